"""The main window's status bar: the failed-frame mark, what the recording holds, each
phase's time and the frame rate (the temporary messages go through ``showMessage``)."""

from __future__ import annotations

from PyQt6.QtCore import QSize, Qt
from PyQt6.QtGui import QPainter
from PyQt6.QtWidgets import QLabel

from viewer.state.timing import SHORT_WORDS, last_and_median, shown_phases

FAILURE_LABEL_STYLE = "color: #D55E00; font-weight: bold;"
"""The status bar's mark of a failed frame (Okabe-Ito vermillion, as on the canvas)."""


TIMING_SHARE = 0.36
"""Most of the status bar's width the phase times take; RECORDING_SHARE the recording's. At
1280x800 the two took the whole bar and the scene's message ("Scene: Two spheres over") was
cut: what is left (about 40 %) holds it."""
RECORDING_SHARE = 0.18


class ElidedLabel(QLabel):
    """A status-bar label at most ``share`` of its parent's width: longer text ends in "…"
    and stands whole in the tooltip (``text()`` is always the whole text)."""

    def __init__(self, share: float, tip: str = ""):
        super().__init__("")
        self.share = float(share)
        self.tip = tip
        self.setToolTip(tip)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt API
        super().setText(text)
        self.setToolTip(f"{text}\n\n{self.tip}" if text and self.is_elided() else self.tip)
        self.updateGeometry()

    def _cap(self) -> int:
        parent = self.parentWidget()
        width = parent.width() if parent is not None else 1280
        return max(40, int(self.share * width))

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        hint = super().sizeHint()
        return QSize(min(hint.width(), self._cap()), hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt API
        return QSize(min(40, super().minimumSizeHint().width()), super().minimumSizeHint().height())

    def shown_text(self) -> str:
        """The text as drawn at the label's width (ending in "…" when cut)."""
        width = min(self.width(), self._cap()) if self.width() > 0 else self._cap()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, width)

    def is_elided(self) -> bool:
        return self.shown_text() != self.text()

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt API
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        rect = self.contentsRect()
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                         self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight,
                                                       rect.width()))
        painter.end()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self.setToolTip(f"{self.text()}\n\n{self.tip}" if self.text() and self.is_elided()
                        else self.tip)


class StatusLine:
    """The permanent labels of ``status_bar`` (a ``QStatusBar``) and what they show."""

    def __init__(self, status_bar):
        self.fps_label = QLabel("")
        self.fps_label.setToolTip("Frames per second while playing; when paused, how long the "
                                  "last frame took (compute, overlay update and render)")
        self.timing_label = ElidedLabel(
            TIMING_SHARE,
            "Time of each phase of the last frame in milliseconds, and in brackets the median "
            "of the frames of the last second (one frame alone jumps)")
        self.frame_state_label = QLabel("")
        self.frame_state_label.setStyleSheet(FAILURE_LABEL_STYLE)
        self.frame_state_label.setToolTip(
            "The last frame failed or was cancelled: the view, its contacts taken away, and "
            "every panel show the last good frame, named in each panel's header")
        self.frame_state_label.setVisible(False)
        self.recording_label = ElidedLabel(
            RECORDING_SHARE,
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
