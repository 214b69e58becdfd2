"""A long frame's progress and cancel, through the window's job dialog.

A frame normally takes milliseconds; one whose trees overlap badly (a random-order tree read
from a file) walks up to the request's pair budget first, which takes seconds. After
:data:`SHOW_AFTER_S` the frame shows in the same progress dialog as the other background jobs
(the model's ``job_progress``: the traversal's level and its overlapping pairs against the
budget), whose Cancel stops the traversal at its next level
(:class:`core.collide.budget.QueryControl`). The control is dropped when the frame ends, so
nothing keeps a failed frame's arrays.
"""

from __future__ import annotations

import time

from PyQt6.QtCore import QTimer

from core.collide.budget import QueryControl

SHOW_AFTER_S = 1.0
"""A frame running longer than this shows its progress (shorter ones never flash a dialog)."""

POLL_MS = 250
"""How often the progress is read while a frame runs."""

WORDS = "Frame: traversal"
"""The job dialog's words (its title reads "BVH Lab: frame:")."""


class FrameWatch:
    """The control of the frame in flight, its progress in the job dialog, and its cancel.

    Parameters
    ----------
    model : ViewerModel
        Its ``job_progress`` and ``job_finished`` signals drive the window's job dialog.
    budget : callable
        ``budget() -> int``: the pair budget of the running frame's request.
    """

    def __init__(self, model, budget):
        self.model = model
        self._budget = budget
        self.control: QueryControl | None = None
        self._started = 0.0
        self._is_shown = False
        self._timer = QTimer()
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._tick)

    def start(self) -> QueryControl:
        """A new control for the frame about to run (the cancel flag and progress it shares)."""
        self.control = QueryControl()
        self._started = time.perf_counter()
        self._timer.start()
        return self.control

    def stop(self) -> None:
        """The frame ended: close its progress and drop its control."""
        self._timer.stop()
        self.control = None
        if self._is_shown:
            self._is_shown = False
            self.model.job_finished.emit(WORDS)

    def cancel(self) -> bool:
        """Stop the running frame at its next level; whether one was running."""
        if self.control is None:
            return False
        self.control.cancel()
        return True

    def _tick(self) -> None:
        control = self.control
        if control is None or time.perf_counter() - self._started < SHOW_AFTER_S:
            return
        level, tests, overlaps = control.progress()
        budget = int(self._budget())
        self._is_shown = True
        if tests == 0:
            # No volume pair tested yet: the frame is still refitting or building its trees
            # (on a first start, with kernels running as Python while they compile). A bar
            # at "level 0 ... (0 of 50,000,000)" read as if nothing was happening.
            seconds = time.perf_counter() - self._started
            self.model.job_progress.emit(f"{WORDS} not started after {seconds:.0f} s: the "
                                         "trees are refitted or built first", 0, 0)
            return
        self.model.job_progress.emit(f"{WORDS} level {level}, overlapping volume pairs against "
                                     "the pair budget", min(overlaps, budget), budget)
