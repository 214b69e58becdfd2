"""Recording > Drift and frame time…: how the refitted trees drift over the recording.

A non-modal window with one matplotlib plot over the recorded frames: the SAH drift of each
body's tree (``frame.drift``: SAH now / SAH at its last build - 1) on the left axis, the frame
time (``frame.timings["total"]``, ms) on the right, every automatic rebuild marked (the
recording's "tree rebuilt (drift)" events as vertical lines, and each frame where a tree was
built as a square on its curve), the AUTO threshold dotted, and a cursor line at the frame
shown. Clicking the plot shows that frame. While frames are recorded the plot is redrawn at
most every :data:`REDRAW_MS` milliseconds (a redraw of a 3000-frame plot costs tens of ms).
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from PyQt6.QtCore import QTimer
from PyQt6.QtGui import QKeySequence
from PyQt6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from viewer.qt.figure_export import FigureSaveError, ask_figure_path, save_figure

REDRAW_MS = 300
"""Least time between two redraws while the recording grows."""

BODY_STYLES = (("#0072B2", "-"), ("#009E73", "--"))
"""Okabe-Ito blue solid for A, bluish green dashed for B: the line style tells them apart
without colour."""
TIME_COLOR = "#777777"
REBUILD_COLOR = "#D55E00"
CURSOR_COLOR = "#000000"


def drift_series(recording) -> dict:
    """The plotted numbers of a recording (frames in recording order).

    Returns
    -------
    dict
        ``drift``: list of ``(n,) float64`` per body (nan where the body is absent);
        ``time_ms``: ``(n,) float64``; ``rebuilt``: list of ``(r,) int64`` positions per
        body where its tree was built (the first frame excluded); ``events``: ``(e,) int64``
        positions of the recording's "tree rebuilt (drift)" events.
    """
    n = len(recording) if recording is not None else 0
    frames = [recording[i] for i in range(n)]
    n_bodies = min(2, max((len(f.drift) for f in frames), default=0))
    drift = [np.array([f.drift[b] if b < len(f.drift) else np.nan for f in frames], np.float64)
             for b in range(n_bodies)]
    rebuilt = [np.array([i for i, f in enumerate(frames) if i > 0 and b < len(f.rebuilt)
                         and f.rebuilt[b]], dtype=np.int64) for b in range(n_bodies)]
    time_ms = np.array([1e3 * f.timings.get("total", np.nan) for f in frames], np.float64)
    events = np.array([e.position for e in (recording.events() if n else [])
                       if e.kind.name == "REBUILD"], dtype=np.int64)
    return {"drift": drift, "time_ms": time_ms, "rebuilt": rebuilt, "events": events}


class DriftDialog(QDialog):
    """The drift and frame-time plot of the model's recording.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    controller : viewer.controller.Controller
        Its ``scrub_to`` shows a clicked frame.
    """

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.setWindowTitle("Drift and frame time over the recording")
        self.resize(860, 460)
        layout = QVBoxLayout(self)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.figure = Figure(figsize=(8, 3.6), tight_layout=True)
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.canvas.setMinimumHeight(260)
        self.canvas.setToolTip("Click a frame to show it in the view")
        layout.addWidget(self.canvas, 1)
        row = QHBoxLayout()
        self.save_button = QPushButton("Save figure…")
        self.save_button.setShortcut(QKeySequence.StandardKey.Save)
        self.save_button.setToolTip("Write this plot as a PNG image or an SVG drawing, by the "
                                    "file name's suffix (Ctrl+S)")
        self.save_button.clicked.connect(lambda: self.save_figure_as())
        self.save_note = QLabel("")
        row.addWidget(self.save_button)
        row.addWidget(self.save_note, 1)
        layout.addLayout(row)
        self.axes = self.figure.add_subplot(1, 1, 1)
        self.time_axes = self.axes.twinx()
        self.cursor_line = None
        self.series: dict = {}
        self.canvas.mpl_connect("button_press_event", self._on_click)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self.refresh)
        model.recording_changed.connect(self._schedule)
        model.cursor_changed.connect(lambda _c: self._move_cursor())
        self.refresh()

    def _schedule(self) -> None:
        if self.isVisible() and not self._timer.isActive():
            self._timer.start()

    def cursor_position(self) -> int | None:
        """The frame the cursor line marks: the shown recorded frame, or the newest when
        live (None with an empty recording)."""
        n = len(self.model.recording) if self.model.recording is not None else 0
        if n == 0:
            return None
        return self.model.cursor if self.model.cursor is not None else n - 1

    def refresh(self) -> None:
        """Redraw the whole plot from the recording."""
        series = drift_series(self.model.recording)
        self.series = series
        ax, tx = self.axes, self.time_axes
        ax.clear()
        tx.clear()
        n = series["time_ms"].shape[0]
        frames = np.arange(n)
        for b, values in enumerate(series["drift"]):
            color, style = BODY_STYLES[b]
            ax.plot(frames, values, color=color, linestyle=style, linewidth=1.6,
                    label=f"SAH drift of {'AB'[b]}'s tree")
        is_labelled = False
        for b, values in enumerate(series["drift"]):
            built = series["rebuilt"][b]
            if built.size:
                ax.plot(built, values[built], linestyle="none", marker="s", markersize=6,
                        color=REBUILD_COLOR, label=None if is_labelled else "tree built")
                is_labelled = True
        for i, position in enumerate(series["events"]):
            ax.axvline(position, color=REBUILD_COLOR, linestyle=":", linewidth=1.2,
                       label="automatic rebuild (drift)" if i == 0 else None)
        if self.model.pipeline.update.value == "auto":
            ax.axhline(self.model.pipeline.drift_threshold, color=REBUILD_COLOR,
                       linestyle=(0, (1, 3)), linewidth=1.0, label="rebuild threshold")
        tx.plot(frames, series["time_ms"], color=TIME_COLOR, linewidth=1.0, alpha=0.8,
                label="frame time (ms)")
        ax.set_xlabel("recorded frame (click to show it)", fontsize=9)
        ax.set_ylabel("SAH drift (SAH now / at build − 1)", fontsize=9)
        tx.set_ylabel("frame time (ms)", fontsize=9, color="#555555")
        # clear() puts the twin's axis back on the left, over the drift axis (seen on the
        # first screenshot): pin it to the right.
        tx.yaxis.set_label_position("right")
        tx.yaxis.tick_right()
        for axes in (ax, tx):
            axes.tick_params(labelsize=8)
        if n:
            ax.set_xlim(-0.5, max(n - 0.5, 0.5))
        # Frames are whole: a short recording was labelled 0.5, 1.5, ... (seen saved as PNG).
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        handles, labels = ax.get_legend_handles_labels()
        more, more_labels = tx.get_legend_handles_labels()
        if handles or more:
            # Above the plot, not over it: inside, it hid the first frames' curves.
            ax.legend(handles + more, labels + more_labels, fontsize=8, loc="lower left",
                      bbox_to_anchor=(0.0, 1.01), ncol=3, frameon=False)
        self.cursor_line = ax.axvline(self.cursor_position() or 0, color=CURSOR_COLOR,
                                      linewidth=1.5, visible=n > 0)  # fmt: skip
        n_events = int(series["events"].shape[0])
        peak = max((float(np.nanmax(v)) for v in series["drift"] if v.size), default=0.0)
        self.summary.setText(
            f"{n:,} recorded frames; {n_events} automatic rebuild{'s' if n_events != 1 else ''}"
            f"; highest drift {peak:.3f}. Drift is how much more a refitted tree is expected "
            "to cost than at its last build (0 = as built); Auto rebuilds past the threshold."
            if n else "Nothing is recorded yet: play the scene or move a body.")
        self.canvas.draw_idle()

    def save_figure_as(self, path: str | None = None) -> Path | None:
        """Save figure…: write the plot to ``path`` (asked when None) as PNG or SVG; the line
        under the plot says where, or why not."""
        if path is None:
            start = Path.home() / f"{self.model.scene_key or 'recording'}-drift.png"
            path = ask_figure_path(self, "Save the drift plot", start)
            if not path:
                return None
        try:
            with self._as_slide():
                written = save_figure(self.figure, path)
        except FigureSaveError as exc:
            self.save_note.setStyleSheet("color: #B00020")
            self.save_note.setText(f"Not saved: {exc}")
            return None
        self.save_note.setStyleSheet("")
        self.save_note.setText(f"Saved {written}")
        return written

    @contextmanager
    def _as_slide(self):
        """The plot as it is saved: a title naming the scene, and none of what only makes sense
        on screen (the saved PNG said "click to show it" and had the cursor line as a black
        bar at its right edge)."""
        ax = self.axes
        label = ax.get_xlabel()
        is_cursor = self.cursor_line is not None and self.cursor_line.get_visible()
        ax.set_xlabel("recorded frame", fontsize=9)
        if self.cursor_line is not None:
            self.cursor_line.set_visible(False)
        scene = self.model.scene_title or "the recording"
        update = self.model.pipeline.update.value
        title = self.figure.suptitle(f"SAH drift and frame time: {scene} (update: {update})",
                                     fontsize=10)
        try:
            yield
        finally:
            title.remove()
            ax.set_xlabel(label, fontsize=9)
            if self.cursor_line is not None:
                self.cursor_line.set_visible(is_cursor)
            self.canvas.draw_idle()

    def _move_cursor(self) -> None:
        position = self.cursor_position()
        if self.cursor_line is None or position is None:
            return
        self.cursor_line.set_xdata([position, position])
        self.cursor_line.set_visible(True)
        self.canvas.draw_idle()

    def _on_click(self, event) -> None:
        if event.xdata is None or event.inaxes not in (self.axes, self.time_axes):
            return
        self.scrub_to_x(event.xdata)

    def scrub_to_x(self, x: float) -> None:
        """Show the recorded frame nearest ``x`` (plot coordinates)."""
        n = len(self.model.recording) if self.model.recording is not None else 0
        if n:
            self.controller.recorder.scrub_to(int(round(min(max(x, 0), n - 1))))

    def showEvent(self, event):  # noqa: N802 - Qt API
        super().showEvent(event)
        self.refresh()
