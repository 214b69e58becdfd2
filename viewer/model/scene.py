"""The scene's bodies, its title and parameter, and the selected body."""

from __future__ import annotations

import numpy as np
from PyQt6.QtCore import QObject, pyqtSignal

from viewer.state.bodies import Body


class SceneModel(QObject):
    """The bodies of the scene. Setters emit a signal only when the value changes."""

    scene_changed = pyqtSignal()  # the list of bodies was replaced
    body_changed = pyqtSignal(int)  # pose, mesh, visibility, colour or deformer of one body
    selection_changed = pyqtSignal(int)  # -1 = none
    scene_param_changed = pyqtSignal(float)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.bodies: list[Body] = []
        self.scene_key: str | None = None
        self.scene_title: str = ""
        self.scene_description: str = ""
        self.scene_param = None  # scenes.SceneParam or None
        self.scene_param_value: float = 0.0
        self.selected: int = -1

    def replace_bodies(self, bodies: list[Body], key: str | None, title: str, description: str,
                       param=None, param_value: float | None = None) -> None:
        """Hold a new scene's bodies (no signal: ``ViewerModel.set_scene`` emits them all)."""
        self.bodies = list(bodies)
        self.scene_key = key
        self.scene_title = title
        self.scene_description = description
        self.scene_param = param
        self.scene_param_value = (float(param_value) if param_value is not None else
                                  param.default if param is not None else 0.0)

    def set_pose(self, index: int, pose: np.ndarray) -> None:
        self.bodies[index].pose = np.array(pose, dtype=np.float64)
        self.body_changed.emit(index)

    def set_rest(self, index: int, mesh) -> None:
        self.bodies[index].rest = mesh
        self.body_changed.emit(index)

    def set_visible(self, index: int, is_visible: bool) -> None:
        if self.bodies[index].is_visible != is_visible:
            self.bodies[index].is_visible = is_visible
            self.body_changed.emit(index)

    def set_color(self, index: int, color: str) -> None:
        self.bodies[index].color = color
        self.body_changed.emit(index)

    def set_deformer(self, index: int, name: str | None, params: dict | None = None) -> None:
        body = self.bodies[index]
        body.deformer = name
        body.deformer_params = dict(params or {})
        self.body_changed.emit(index)

    def set_scene_param_value(self, value: float) -> None:
        if value != self.scene_param_value:
            self.scene_param_value = float(value)
            self.scene_param_changed.emit(self.scene_param_value)

    def set_selected(self, index: int) -> None:
        if index != self.selected:
            self.selected = index
            self.selection_changed.emit(index)
