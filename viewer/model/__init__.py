"""The viewer's state, in sub-models by topic, and the Qt signals that announce its changes.

Widgets write the model; the controller and the render layer listen (napari ``_qt`` /
``_vispy`` split). The model holds no VTK object and calls nothing in the core: meshes are
opaque ``TriMesh`` values and poses are plain ``(4, 4)`` matrices. The plain state types live
in :mod:`viewer.state`, which the render layer may import; each topic's values, setters and
signals live in one small sub-model:

============================  ========================================================
``model.scene_model``         bodies, scene title and parameter, selected body
``model.view_model``          drag mode, level, overlays, camera, brush, inspector
``model.pipeline_model``      pipeline choices, cost of each optional analysis
``model.frames_model``        frame shown, live and failed frames, recording, playback,
                              time, phase times, side results
``model.stepper_model``       step mode and the traversal stepper
``model.inspection_model``    node picked, tree quality, invariant check, tree files
``model.jobs_model``          messages, loading, job progress, experiments, cost model,
                              kernel compile
============================  ========================================================

:class:`ViewerModel` composes them. Its own job is what spans topics (a new scene clears
every view of the old one, in one place); the sub-models' values, setters and signals are
reached through it under their old names too (:data:`DELEGATED`), so that callers written
against one model keep working: a signal is the sub-model's own signal object, a value reads
and writes the sub-model's attribute, a setter is the sub-model's bound method.
"""

from __future__ import annotations

from PyQt6.QtCore import QObject, pyqtSignal

from viewer.model.frames import FramesModel
from viewer.model.inspection import InspectionModel
from viewer.model.jobs import JobsModel
from viewer.model.pipeline import PipelineModel
from viewer.model.scene import SceneModel
from viewer.model.stepper import StepperModel
from viewer.model.view import ViewModel
from viewer.state.bodies import Body
from viewer.state.display import DEFAULT_LEVEL

PARTS: dict[str, type[QObject]] = {
    "scene_model": SceneModel,
    "view_model": ViewModel,
    "pipeline_model": PipelineModel,
    "frames_model": FramesModel,
    "stepper_model": StepperModel,
    "inspection_model": InspectionModel,
    "jobs_model": JobsModel,
}
"""Attribute of :class:`ViewerModel` -> the sub-model class it holds."""

DELEGATED: dict[str, dict[str, tuple[str, ...]]] = {
    "scene_model": {
        "values": ("bodies", "scene_key", "scene_title", "scene_description", "scene_param",
                   "scene_param_value", "selected"),
        "signals": ("scene_changed", "body_changed", "selection_changed",
                    "scene_param_changed"),
        "methods": ("set_pose", "set_rest", "set_visible", "set_color", "set_deformer",
                    "set_scene_param_value", "set_selected"),
    },
    "view_model": {
        "values": ("mode", "level", "display", "brush_radius", "brush_strength", "inspect",
                   "camera"),
        "signals": ("mode_changed", "level_changed", "display_changed", "brush_changed",
                    "inspect_changed", "camera_wanted", "camera_restored"),
        "methods": ("read_camera", "restore_camera", "set_mode", "set_level", "set_display",
                    "set_brush", "set_inspect"),
    },
    "pipeline_model": {
        "values": ("pipeline", "analysis_costs", "is_self_collision"),
        "signals": ("pipeline_changed", "analysis_costs_changed"),
        "methods": ("set_pipeline", "set_analysis_cost"),
    },
    "frames_model": {
        "values": ("frame", "frame_failure", "view_timings", "t", "is_playing", "fps",
                   "timing_history", "recording", "cursor", "live_frame", "is_recording",
                   "playback", "playback_speed", "side", "side_by_frame", "slow_frame"),
        "signals": ("frame_ready", "frame_failed", "view_timings_changed", "time_changed",
                    "playing_changed", "recording_changed", "cursor_changed",
                    "playback_changed", "side_changed", "slow_frame_changed"),
        "methods": ("set_frame", "set_side", "replace_live_frame", "set_slow_frame",
                    "set_frame_failure", "set_recording", "set_cursor", "set_playback",
                    "set_playback_speed", "set_view_timings", "set_time", "set_playing",
                    "shown_result", "n_levels"),
    },
    "stepper_model": {
        "values": ("is_step_mode", "step_position", "steps", "steps_note", "is_stepping"),
        "signals": ("step_mode_changed", "steps_changed", "step_position_changed"),
        "methods": ("set_step_mode", "set_steps", "set_step_position"),
    },
    "inspection_model": {
        "values": ("selected_node", "quality_body", "cost_constants", "quality",
                   "quality_status", "validation", "validate_after_refit", "tree_sources"),
        "signals": ("analysis_changed", "node_selected", "quality_changed",
                    "quality_inputs_changed", "quality_status_changed", "validation_changed",
                    "tree_sources_changed"),
        "methods": ("select_node", "set_quality_body", "set_cost_constants", "set_quality",
                    "set_quality_status", "set_validation", "set_tree_source"),
    },
    "jobs_model": {
        "values": ("loading", "experiment_running", "experiment_result", "cost_view",
                   "kernels"),
        "signals": ("message", "error", "loading_changed", "job_progress", "job_finished",
                    "experiment_started", "experiment_progress", "experiment_finished",
                    "cost_model_changed", "kernels_changed"),
        "methods": ("set_loading", "set_experiment_running", "finish_experiment",
                    "set_cost_view", "set_kernels"),
    },
}
"""Per sub-model, the names :class:`ViewerModel` passes on to it: ``values`` (read and
written there), ``signals`` (its signal objects) and ``methods`` (its bound setters)."""


class ViewerModel(QObject):
    """The viewer's state: the sub-models of :data:`PARTS`, and a new scene across them all."""

    changes_batched = pyqtSignal(bool)
    """True before, False after a change that emits many signals in a row (a new scene):
    a view that draws on each of them draws once, at the False (see :meth:`set_scene`)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        for name, part in PARTS.items():
            setattr(self, name, part(self))
        # The sub-models' signals and setters under their old names: the same objects, so a
        # connection made through either name is one connection.
        for name, delegated in DELEGATED.items():
            part = getattr(self, name)
            for attr in (*delegated["signals"], *delegated["methods"]):
                setattr(self, attr, getattr(part, attr))

    # -- scene ------------------------------------------------------------------------------
    def set_scene(self, bodies: list[Body], key: str | None, title: str, description: str,
                  param=None, param_value: float | None = None) -> None:
        """Replace the bodies; every view of the old scene is cleared here, in one place.

        ``param_value`` is the scene parameter's value (default: ``param.default``); a
        restored session passes the value its bodies were saved with.

        The dozen signals below come between ``changes_batched(True)`` and
        ``changes_batched(False)``: the window drew the canvas for three of them, one by
        one (four renders of a new scene where one shows it; 82 ms each on the 278k-triangle
        bunny with software OpenGL)."""
        self.changes_batched.emit(True)
        try:
            self._replace_scene(bodies, key, title, description, param, param_value)
        finally:
            self.changes_batched.emit(False)

    def _replace_scene(self, bodies, key, title, description, param, param_value) -> None:
        self.scene_model.replace_bodies(bodies, key, title, description, param, param_value)
        was_stepping = self.is_step_mode
        # Everything that describes the old scene's frame: a clicked box, a selected body,
        # step mode's position, the timings of its frames. Each is emitted below so that no
        # view keeps showing it (the inspector once kept "box 1948 of B" across scenes).
        self.selected = -1
        had_failure = self.frame_failure is not None
        was_scrubbed = self.cursor is not None
        had_side = self.side is not None
        self.frames_model.forget_scene()
        self.inspect = None
        self.is_step_mode = False
        was_stepping_pairs = self.step_position is not None
        self.step_position = None
        self.steps = None
        self.steps_note = ""
        self.level = DEFAULT_LEVEL
        had_node = self.selected_node is not None
        self.selected_node = None
        self.quality = None
        self.validation = None
        self.tree_sources = {}
        self.scene_changed.emit()
        if had_side:
            self.side_changed.emit(None)
        self.selection_changed.emit(-1)
        self.inspect_changed.emit(None)
        if was_stepping:
            self.step_mode_changed.emit(False)
        if was_stepping_pairs:
            self.steps_changed.emit(None)
            self.step_position_changed.emit(None)
        self.level_changed.emit(self.level)
        if was_scrubbed:
            self.cursor_changed.emit(None)
        if had_node:
            self.node_selected.emit(None)
        self.quality_changed.emit(None)
        self.validation_changed.emit(None)
        self.tree_sources_changed.emit()
        if had_failure:
            self.frame_failed.emit(None)
        self.frame_ready.emit(None)

    def add_body(self, body: Body) -> None:
        self.bodies.append(body)
        self.frame = None
        self.scene_changed.emit()


def _value(part: str, name: str) -> property:
    """A property of :class:`ViewerModel` that reads and writes ``name`` of sub-model
    ``part``."""

    def get(model):
        return getattr(getattr(model, part), name)

    def set_(model, value) -> None:
        setattr(getattr(model, part), name, value)

    owner = PARTS[part]
    doc = getattr(getattr(owner, name, None), "__doc__", None) if isinstance(
        getattr(owner, name, None), property) else None
    return property(get, set_, doc=doc or f"``{part}.{name}``.")


for _part, _delegated in DELEGATED.items():
    for _name in _delegated["values"]:
        setattr(ViewerModel, _name, _value(_part, _name))
del _part, _delegated, _name
