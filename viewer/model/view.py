"""How the user works in the 3-D view: drag mode, level, overlays, camera, brush, inspector."""

from __future__ import annotations

from dataclasses import replace

from PyQt6.QtCore import QObject, pyqtSignal

from viewer.state.display import CameraView, Display, Mode


class ViewModel(QObject):
    """What the view draws and how a drag acts. Setters emit a signal only on a change."""

    mode_changed = pyqtSignal(object)
    level_changed = pyqtSignal(object)  # int or None (= all levels)
    display_changed = pyqtSignal(object)
    brush_changed = pyqtSignal()
    inspect_changed = pyqtSignal(object)  # dict or None
    # The camera lives in the canvas; a session reads it from the model. ``camera_wanted``
    # asks the canvas to write its camera into ``camera`` now (a direct, synchronous call on
    # the GUI thread); ``camera_restored`` asks it to move to a saved CameraView.
    camera_wanted = pyqtSignal()
    camera_restored = pyqtSignal(object)  # CameraView

    def __init__(self, parent=None):
        super().__init__(parent)
        self.mode: Mode = Mode.CAMERA
        self.level: int | None = None
        self.display = Display()
        self.brush_radius: float = 0.15  # fraction of the body's longest side
        self.brush_strength: float = 1.0
        self.inspect = None  # core.lab.inspect.NodeInspection of the clicked box
        self.camera: CameraView | None = None  # as of the last camera_wanted

    def read_camera(self) -> CameraView | None:
        """The canvas's camera now (asked through ``camera_wanted``), or None without one."""
        self.camera_wanted.emit()
        return self.camera

    def restore_camera(self, view: CameraView) -> None:
        """Move the canvas's camera to ``view``."""
        self.camera = view
        self.camera_restored.emit(view)

    def set_mode(self, mode: Mode) -> None:
        if mode is not self.mode:
            self.mode = mode
            self.mode_changed.emit(mode)

    def set_level(self, level: int | None) -> None:
        if level != self.level:
            self.level = level
            self.level_changed.emit(level)

    def set_display(self, **changes) -> None:
        new = replace(self.display, **changes)
        if new != self.display:
            self.display = new
            self.display_changed.emit(new)

    def set_brush(self, radius: float | None = None, strength: float | None = None) -> None:
        if radius is not None:
            self.brush_radius = float(radius)
        if strength is not None:
            self.brush_strength = float(strength)
        self.brush_changed.emit()

    def set_inspect(self, info) -> None:
        """``info``: a ``core.lab.inspect.NodeInspection``, or None to clear the inspector."""
        self.inspect = info
        self.inspect_changed.emit(info)
