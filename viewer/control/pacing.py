"""How often an analysis beside the frames may start again while the scene plays.

A refitting scene makes new trees every frame, so an analysis of the shown frame (the ghost's
fresh tree, the heat map counted beside the frames, the tree's quality) always has a newer
frame to redo. Run back to back, each one keeps a core busy for the whole play: on this
2-core machine that core is the one the software renderer and the frame's core share.
Big-bunny with every analysis on (interactive benchmark, one run each): the ghost rebuilt
back to back took the render from a median of 28.5 ms (ghost off) to 41 ms, and the longest
GUI block from 62 to 74 ms. A :class:`PlayingPace` lets such an analysis start at most
:data:`PLAYING_SHARE` of the time while playing, and at once when paused.
"""

from __future__ import annotations

import time

from PyQt6.QtCore import QTimer

PLAYING_SHARE = 0.2
"""Largest share of the time an analysis beside the frames runs while playing: the next run
starts no sooner than its last duration / share after the last one started. (A bunny tree's
quality takes 1.5 s to measure; measured every second, it kept one of the two cores busy and
dropped bunny-bunny from 6.6 to 1.8 frames a second.)"""


class PlayingPace:
    """Paces one analysis while playing (:data:`PLAYING_SHARE` of the time, and no more often
    than every ``min_interval_s``).

    Parameters
    ----------
    retry : callable
        Called (no arguments, on the GUI thread) when a run that had to wait may start: it
        asks again for the frame shown then.
    share : float
        Largest share of the time the analysis may run while playing, in (0, 1].
    min_interval_s : float
        Shortest time between two starts while playing.
    is_busy : callable, optional
        Whether a run is going (its lane is busy): it counts as long as it has gone so far.
    clock : callable
        Seconds (``time.perf_counter``; replaceable in tests).
    """

    def __init__(self, retry, share: float = PLAYING_SHARE, min_interval_s: float = 0.0,
                 is_busy=None, clock=time.perf_counter):
        if not 0.0 < share <= 1.0:
            raise ValueError(f"share must be in (0, 1], got {share!r}")
        self.share = float(share)
        self.min_interval_s = float(min_interval_s)
        self.clock = clock
        self.started_at = -1e9  # when the last run started (the clock's seconds)
        self.seconds = 0.0  # how long the last finished run took
        self.is_busy = is_busy if is_busy is not None else (lambda: False)
        self.timer = QTimer()
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(retry)

    def wait_s(self) -> float:
        """Seconds before a run may start while playing (0 or less: now). A run still going
        counts as long as it has gone so far."""
        since = self.clock() - self.started_at
        seconds = max(self.seconds, since) if self.is_busy() else self.seconds
        return max(self.min_interval_s, seconds / self.share) - since

    def must_wait(self, is_playing: bool) -> bool:
        """Whether a run asked for now has to wait; if so, ``retry`` is called once the wait
        is over (one timer, however often this is asked)."""
        wait = self.wait_s() if is_playing else 0.0
        if wait <= 0.0:
            return False
        if not self.timer.isActive():
            self.timer.start(int(1000 * wait) + 1)
        return True

    def start(self) -> None:
        """A run starts now."""
        self.timer.stop()
        self.started_at = self.clock()

    def finish(self, seconds: float | None = None) -> None:
        """The run ended; it took ``seconds`` (default, or None: since :meth:`start`)."""
        self.seconds = (self.clock() - self.started_at) if seconds is None else float(seconds)

    def stop(self) -> None:
        """No retry is pending any more (the app closes, or the analysis was switched off)."""
        self.timer.stop()
