"""The traversal stepper's state: step mode, the steps of the shown frame, the pair under test."""

from __future__ import annotations

from PyQt6.QtCore import QObject, pyqtSignal


class StepperModel(QObject):
    """Step mode and the traversal stepper. Setters emit a signal only on a change."""

    step_mode_changed = pyqtSignal(bool)
    steps_changed = pyqtSignal(object)  # the stepper's steps (opaque) or None
    step_position_changed = pyqtSignal(object)  # int, or None when the stepper is off

    def __init__(self, parent=None):
        super().__init__(parent)
        self.is_step_mode: bool = False
        # The position of the pair under test (None: stepper off), the steps of the shown
        # frame (an opaque core object, computed by the controller), and why the frame
        # cannot be stepped ("" when it can).
        self.step_position: int | None = None
        self.steps = None
        self.steps_note: str = ""

    def set_step_mode(self, is_step_mode: bool) -> None:
        if is_step_mode != self.is_step_mode:
            self.is_step_mode = is_step_mode
            self.step_mode_changed.emit(is_step_mode)

    def set_steps(self, steps, note: str = "") -> None:
        """The steps of the shown frame's traversal (None with ``note``: why there are none,
        one sentence; None and "": not computed yet)."""
        self.steps = steps
        self.steps_note = note
        self.steps_changed.emit(steps)

    def set_step_position(self, position: int | None) -> None:
        """The pair under test (None turns the stepper off)."""
        if position != self.step_position:
            self.step_position = position
            self.step_position_changed.emit(position)

    @property
    def is_stepping(self) -> bool:
        """Whether the traversal stepper is on."""
        return self.step_position is not None
