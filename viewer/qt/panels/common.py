"""Helpers the dock panels share: a label that wraps, a combo box that fits a narrow dock, a
per-frame refresh that waits while its dock cannot be seen, a table cell written in place."""

from __future__ import annotations

import time

from PyQt6.QtCore import QEvent, QObject, Qt, QTimer
from PyQt6.QtWidgets import QComboBox, QLabel, QTableWidget, QTableWidgetItem

from viewer.state.frame_caption import frame_caption, tree_words

__all__ = ["WhenShown", "frame_caption", "header_label", "header_text", "narrow_combo",
           "set_cell", "show_header", "tree_words", "wrap_label"]

PLAYING_REFRESH_S = 0.1
"""While the animation plays, a panel on screen refreshes at most this often (ten times a
second, what a reader can follow); the newest frame's numbers come at the end of each interval,
and at once when playing stops. Refreshing the docks with every frame took part of the GUI
thread's 50 ms a frame on bunny x bunny (interactive benchmark)."""

COMBO_MIN_CHARS = 14
"""Characters a combo box shows when the dock is narrow; its popup still shows the whole
entries."""


def narrow_combo(combo: QComboBox) -> QComboBox:
    """Let a combo box shrink to :data:`COMBO_MIN_CHARS` instead of its longest entry."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(COMBO_MIN_CHARS)
    return combo


def wrap_label(label: QLabel) -> QLabel:
    """Let a label wrap its text and the user select it."""
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


HEADER_STYLE = "color: #555555;"
"""A panel's header line: what its numbers were computed on (grey, out of the way)."""
STALE_HEADER_STYLE = "color: #D55E00; font-weight: bold;"
"""The header while the last live frame failed: Okabe-Ito vermillion, as the canvas mark."""


def header_text(model, frame, bodies=None) -> str:
    """The header line of a panel whose numbers come from ``frame``: which frame and which
    trees, "(recorded)" for a frame of the recording, and while the last live frame failed,
    that failure and that these numbers are an older frame's."""
    if frame is None:
        return "No frame yet."
    text = "Numbers of " + frame_caption(frame, bodies)
    if model.cursor is not None and frame is model.frame:
        text += " (recorded)"
    failure = getattr(model, "frame_failure", None)
    if failure is not None:
        text += f"\n{failure.text(model.frame)}: these numbers are frame {frame.index}'s"
    return text


def header_label() -> QLabel:
    """A panel's header line (plain text, wraps, selectable)."""
    label = wrap_label(QLabel("No frame yet."))
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet(HEADER_STYLE)
    label.setToolTip("What these numbers were computed on: the frame and each body's tree")
    return label


def show_header(label: QLabel, model, frame, bodies=None) -> None:
    """Write :func:`header_text` into ``label``, in the stale colour after a failed frame."""
    label.setText(header_text(model, frame, bodies))
    is_stale = frame is not None and getattr(model, "frame_failure", None) is not None
    label.setStyleSheet(STALE_HEADER_STYLE if is_stale else HEADER_STYLE)


class WhenShown(QObject):
    """A panel's refresh that, while the animation plays, runs only if the panel can be seen.

    While playing, a panel on screen refreshes at most every :data:`PLAYING_REFRESH_S`
    seconds, with the newest arguments. A dock tabbed behind another, closed, or in a hidden
    window is not refreshed on each frame while playing: it keeps the newest arguments and
    refreshes once when it is shown
    (its dock's ``visibilityChanged``, connected by ``viewer.qt.panels.docks``, or a show event)
    or when playing stops. Paused, every call refreshes at once (a single step, a click on
    a level: what a reader checks right after, even on a hidden panel). On the 278k-triangle
    benchmark the Stats and Outliner docks, behind the Levels tab, took 7 and 11 ms of the
    GUI thread per frame.

    Parameters
    ----------
    panel : QWidget
        The widget whose visibility decides (its dock's scroll area makes it hidden with
        the dock).
    model : viewer.model.ViewerModel
        ``is_playing`` and ``playing_changed``.
    refresh : callable
        The panel's refresh; called with the arguments of the newest call.
    """

    def __init__(self, panel, model, refresh):
        super().__init__(panel)
        self.panel, self.model, self.refresh = panel, model, refresh
        self.n_refreshes = 0
        self.n_deferred = 0
        self._waiting: tuple | None = None
        self._last_run = -float("inf")  # perf_counter seconds of the last refresh
        self._interval_timer = QTimer(self)
        self._interval_timer.setSingleShot(True)
        self._interval_timer.timeout.connect(self._on_interval)
        panel.installEventFilter(self)
        model.playing_changed.connect(self._on_playing)

    def is_seen(self) -> bool:
        """Some of the panel is on screen. A dock tabbed behind another stays "visible" to
        Qt (``isVisible``) with nothing of it on screen: its visible region is empty."""
        return self.panel.isVisible() and not self.panel.visibleRegion().isEmpty()

    def __call__(self, *args) -> None:
        if self.model.is_playing:
            if not self.is_seen():
                self._waiting = args
                self.n_deferred += 1
                return
            wait_s = self._last_run + PLAYING_REFRESH_S - time.perf_counter()
            if wait_s > 0:
                # Seen, but refreshed less than an interval ago: the newest call runs when
                # the interval ends.
                self._waiting = args
                self.n_deferred += 1
                if not self._interval_timer.isActive():
                    self._interval_timer.start(int(1e3 * wait_s) + 1)
                return
        self._run(args)

    def _on_interval(self) -> None:
        if self.is_seen() or not self.model.is_playing:
            self.catch_up()

    @property
    def is_waiting(self) -> bool:
        """A refresh was skipped while hidden and has not run yet."""
        return self._waiting is not None

    def _run(self, args) -> None:
        self._waiting = None
        self._last_run = time.perf_counter()
        self.n_refreshes += 1
        self.refresh(*args)

    def catch_up(self) -> None:
        """Run the refresh skipped while hidden, if any."""
        if self._waiting is not None:
            self._run(self._waiting)

    def on_dock_visibility(self, is_visible: bool) -> None:
        """``QDockWidget.visibilityChanged``: its tab was raised (or it was shown)."""
        if is_visible:
            self.catch_up()

    def _on_playing(self, is_playing: bool) -> None:
        if not is_playing:
            self.catch_up()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt API
        # The event's type first: while the garbage collector takes a panel and its filter
        # apart, the filter's attributes may be gone when the dying panel's last events come.
        if event.type() == QEvent.Type.Show and watched is self.panel:
            self.catch_up()
        return False


def set_cell(table: QTableWidget, row: int, col: int, text: str,
             alignment=None) -> QTableWidgetItem:
    """Write ``text`` into the cell, reusing its item: a table refreshed every frame changes
    the text of the same items instead of allocating a new item per cell (and the view keeps
    its selection and scroll position)."""
    item = table.item(row, col)
    if item is None:
        item = QTableWidgetItem(text)
        if alignment is not None:
            item.setTextAlignment(alignment)
        table.setItem(row, col, item)
    elif item.text() != text:
        item.setText(text)
    return item
