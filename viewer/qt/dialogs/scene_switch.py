"""Switching to another scene while the recording holds frames: the recording is one scene's
and goes with it, so the user is asked first (save, discard or cancel).

A switch used to drop every recorded frame without a word.
"""

from __future__ import annotations

from PyQt6.QtWidgets import QMessageBox

ASK_FROM_FRAMES = 2
"""Recorded frames from which a switch asks: every scene records its first frame by itself,
so one frame is nothing the user made."""

SAVE, DISCARD, CANCEL = "save", "discard", "cancel"


def recording_question(parent, n_frames: int, scene_title: str) -> QMessageBox:
    """The question, not shown: its buttons are Save…, Discard and Cancel (the default)."""
    box = QMessageBox(QMessageBox.Icon.Question, "Switch scene",
                      f"The recording holds {n_frames:,} frames of “{scene_title}”. Another "
                      "scene starts a new recording: save this one first?",
                      QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                      | QMessageBox.StandardButton.Cancel, parent)
    box.button(QMessageBox.StandardButton.Save).setText("Save…")
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    return box


def ask_about_recording(parent, n_frames: int, scene_title: str) -> str:
    """:data:`SAVE`, :data:`DISCARD` or :data:`CANCEL` (closing the box cancels)."""
    box = recording_question(parent, n_frames, scene_title)
    box.exec()
    return {QMessageBox.StandardButton.Save: SAVE,
            QMessageBox.StandardButton.Discard: DISCARD}.get(box.standardButton(
                box.clickedButton()), CANCEL)


def may_leave_recording(window) -> bool:
    """Whether ``window`` (the main window) may switch scenes: True without a recording worth
    asking about, or when the user discards it or starts saving it (the save job keeps the
    frames it writes: the new scene gets a new recording); False when the user cancels (or
    cancels the file dialog)."""
    recording = window.model.recording
    n_frames = 0 if recording is None else len(recording)
    if n_frames < ASK_FROM_FRAMES:
        return True
    answer = ask_about_recording(window, n_frames, window.model.scene_title)
    if answer == SAVE:
        return bool(window.recording_menu.save_recording_as())
    return answer == DISCARD


def load_scene_asking(window, key: str) -> bool:
    """Load built-in scene ``key`` if :func:`may_leave_recording` allows (False if not)."""
    if not may_leave_recording(window):
        return False
    return window.controller.scenes.load_scene(key)
