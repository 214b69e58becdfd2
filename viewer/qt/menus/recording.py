"""The Recording menu's answers: save, open and replay a recording, its drift plot, and the
memory limit (the entries are rows of :data:`viewer.words.actions.ACTIONS`; the timeline's keys
there go straight to the controller)."""

from __future__ import annotations

from PyQt6.QtWidgets import QDialog

from viewer.qt.dialogs.window import RecordingLimitsDialog
from viewer.qt.widgets import ask_file_path, show_kept

RECORDING_FILTER = "BVH Lab recordings (*.bvhrec);;All files (*)"


class RecordingMenu:
    """Answers the Recording menu of ``window`` (a :class:`viewer.qt.main_window.MainWindow`).
    The replay and drift dialogs are made on first use and kept between openings."""

    def __init__(self, window):
        self.window, self.model, self.controller = window, window.model, window.controller
        self.replay_dialog = None
        self.drift_dialog = None
        self.limits_dialog: RecordingLimitsDialog | None = None

    def _ask_recording_path(self, title: str, is_save: bool) -> str:
        return ask_file_path(self.window, title, "last_recording_dir", RECORDING_FILTER,
                             ".bvhrec", "recording", is_save)

    def save_recording_as(self, path: str | None = None) -> bool:
        """Recording > Save recording…: ask for a file (unless ``path``) and write it."""
        path = path or self._ask_recording_path("Save recording", is_save=True)
        return bool(path) and self.controller.recorder.save_recording(path)

    def open_recording_file(self, path: str | None = None) -> bool:
        """Recording > Open recording…: ask for a file (unless ``path``) and show it."""
        path = path or self._ask_recording_path("Open recording", is_save=False)
        return bool(path) and self.controller.recorder.open_recording(path)

    def open_replay_dialog(self):
        """Recording > Replay with other settings… (created once, kept between openings)."""
        from viewer.qt.dialogs.replay import ReplayDialog

        dialog = show_kept(self, "replay_dialog",
                           lambda: ReplayDialog(self.model, self.controller, self.window))
        dialog.refresh()
        return dialog

    def apply_recording_limits(self, max_megabytes: float, max_frames: int) -> bool:
        """Cap the recording and remember the caps (QSettings)."""
        if not self.controller.recorder.set_recording_limits(max_megabytes, max_frames):
            return False
        self.window.settings.setValue("recording/max_megabytes", float(max_megabytes))
        self.window.settings.setValue("recording/max_frames", int(max_frames))
        self.window.statusBar().showMessage(
            f"Recording keeps at most {max_megabytes:g} MB and {max_frames:,} frames", 5000)
        return True

    def open_drift_dialog(self):
        """Recording > Drift and frame time… (created once, kept between openings)."""
        from viewer.qt.dialogs.drift import DriftDialog

        return show_kept(self, "drift_dialog",
                         lambda: DriftDialog(self.model, self.controller, self.window))

    def ask_recording_limits(self) -> bool:
        """Recording > Memory limit…: most megabytes and frames held, remembered."""
        dialog = RecordingLimitsDialog(*self.controller.recorder.recording_limits, self.window)
        self.limits_dialog = dialog
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return False
        return self.apply_recording_limits(dialog.megabytes.value(), dialog.frames.value())
