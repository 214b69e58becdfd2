"""The main window's status bar: the failed-frame mark, what the recording holds, each
phase's time and the frame rate (the temporary messages go through ``showMessage``)."""

from __future__ import annotations

from PyQt6.QtWidgets import QLabel

from viewer.timing import SHORT_WORDS, last_and_median, shown_phases

FAILURE_LABEL_STYLE = "color: #D55E00; font-weight: bold;"
"""The status bar's mark of a failed frame (Okabe-Ito vermillion, as on the canvas)."""


class StatusLine:
    """The permanent labels of ``status_bar`` (a ``QStatusBar``) and what they show."""

    def __init__(self, status_bar):
        self.fps_label = QLabel("")
        self.fps_label.setToolTip("Frames per second while playing; when paused, how long the "
                                  "last frame took (compute, overlay update and render)")
        self.timing_label = QLabel("")
        self.timing_label.setToolTip(
            "Time of each phase of the last frame in milliseconds, and in brackets the median "
            "of the frames of the last second (one frame alone jumps)")
        self.frame_state_label = QLabel("")
        self.frame_state_label.setStyleSheet(FAILURE_LABEL_STYLE)
        self.frame_state_label.setToolTip(
            "The last frame failed or was cancelled: the view, its contacts taken away, and "
            "every panel show the last good frame, named in each panel's header")
        self.frame_state_label.setVisible(False)
        self.recording_label = QLabel("")
        self.recording_label.setToolTip(
            "What the recording holds (Recording > Memory limit… caps it; the oldest frames go)")
        for label in (self.frame_state_label, self.recording_label, self.timing_label,
                      self.fps_label):
            status_bar.addPermanentWidget(label)

    def clear_timings(self) -> None:
        """No frame: no times, no rate."""
        self.timing_label.setText("")
        self.fps_label.setText("")

    def show_failure(self, text: str) -> None:
        """The failed frame's mark ("" hides it); the tooltip holds the words whole, as the
        status bar may cut them short."""
        self.frame_state_label.setText(text)
        self.frame_state_label.setToolTip(f"{text}. The view and every panel show the last "
                                          "good frame, named in each panel's header.")
        self.frame_state_label.setVisible(bool(text))

    def show_recording(self, recording) -> None:
        """What ``recording`` (a ``viewer.control.recording.Recording`` or None) holds."""
        self.recording_label.setText(recording.summary() if recording is not None
                                     and len(recording) else "")

    def show_timings(self, model, frame) -> None:
        """Contacts, each phase's last time with its median over the last second, and the
        frame rate while playing (the last frame's time when paused)."""
        history = model.timing_history
        shown = model.shown_result()  # bodies A and B, or one body against itself
        contacts = shown.counters.n_contacts if shown is not None else 0
        phases = shown_phases(frame.timings, frame.result is None)
        if not any(body.deformer for body in model.bodies):
            phases.remove("deform")  # nothing deforms: "deform 0.0" only takes room
        phases.remove("total")  # "last frame ... ms" at the end already says the whole time
        self.timing_label.setText(
            f"contacts {contacts:,} | ms (median of 1 s): " + " · ".join(
                f"{SHORT_WORDS[name]} {last_and_median(history, name, 1)}" for name in phases))
        if model.is_playing and model.fps > 0:
            self.fps_label.setText(f"{model.fps:.1f} FPS")
        else:
            total = (frame.timings.get("total", 0.0) + model.view_timings.overlay
                     + model.view_timings.render)
            self.fps_label.setText(f"last frame {1e3 * total:.1f} ms")
