"""Running medians of the phase times, and the words the window shows them in (pure: no Qt).

One frame's time alone jumps: while the bunny pair played, "traverse" read 2.8 ms, then
69.5 ms, then 2.6 ms on three consecutive frames (a garbage collection, the other thread,
the OS). The median of the frames of the last second keeps the typical value readable; the
last value is shown next to it, so a spike is still seen.
"""

from __future__ import annotations

import time
from collections import deque

WINDOW_S = 1.0
"""Length of the running window, in seconds of wall-clock time."""

PHASE_WORDS = (("deform", "deform"), ("update", "refit / rebuild"), ("fit", "volume fit"),
               ("traverse", "traverse"), ("tritri", "triangle tests"),
               ("partition", "spatial partition"), ("distance", "minimum distance"),
               ("containment", "inside test"), ("self", "self-collision"),
               ("total", "core frame"), ("overlay", "overlay update"), ("render", "render"))
"""Phases in the order they run, with their words for the Stats dock: the core frame's
(``Frame.timings``, "core frame" is their total), then the viewer's drawing."""

SHORT_WORDS = {"deform": "deform", "update": "update", "fit": "fit", "traverse": "traverse",
               "tritri": "tri", "partition": "partition", "distance": "distance",
               "containment": "inside", "self": "self-collision", "total": "core",
               "overlay": "overlay", "render": "render"}
"""Shorter words for the status bar."""

OPTIONAL_PHASES = frozenset({"fit", "partition", "distance", "containment", "self"})
"""Phases a frame runs only for some choices (a fitted kind, a spatial partition, bodies
apart, self-collision): listed only when the frame's ``timings`` has them."""


class TimingHistory:
    """Samples of named times over the last :data:`WINDOW_S` seconds.

    Parameters
    ----------
    window_s : float
        Samples older than this (relative to the newest) are dropped; the newest sample of
        each name is always kept, so a paused scene still has its last frame's times.
    """

    def __init__(self, window_s: float = WINDOW_S):
        self.window_s = float(window_s)
        self._samples: dict[str, deque] = {}

    def clear(self) -> None:
        self._samples.clear()

    def add(self, values: dict, now: float | None = None) -> None:
        """Record ``{name: seconds}`` at clock time ``now`` (default ``time.perf_counter()``)."""
        now = time.perf_counter() if now is None else float(now)
        for name, value in values.items():
            samples = self._samples.setdefault(name, deque())
            samples.append((now, float(value)))
            while len(samples) > 1 and samples[0][0] < now - self.window_s:
                samples.popleft()

    def last(self, name: str) -> float | None:
        """The newest sample of ``name`` (seconds), or None."""
        samples = self._samples.get(name)
        return samples[-1][1] if samples else None

    def median(self, name: str) -> float | None:
        """Median of the samples of ``name`` in the window (seconds), or None."""
        samples = self._samples.get(name)
        if not samples:
            return None
        values = sorted(v for _t, v in samples)
        mid = len(values) // 2
        return values[mid] if len(values) % 2 else 0.5 * (values[mid - 1] + values[mid])

    def count(self, name: str) -> int:
        """Samples of ``name`` in the window."""
        return len(self._samples.get(name, ()))


def shown_phases(timings: dict, is_self_only: bool) -> list[str]:
    """Names of the phases worth showing for a frame's ``timings``.

    A phase the frame did not run is left out (:data:`OPTIONAL_PHASES`). A self-collision
    scene has no A-B pair: its "traverse" and "triangle tests" are 0 and the time is in
    "self"; showing "traverse 0.0" there hid a 115 ms self-collision.
    """
    names = []
    for name, _words in PHASE_WORDS:
        if name in ("traverse", "tritri") and is_self_only:
            continue
        if name in OPTIONAL_PHASES and name not in timings:
            continue
        names.append(name)
    return names


def last_and_median(history: TimingHistory, name: str, decimals: int = 2) -> str:
    """"2.80 (3.10)": the last value and the running median, in milliseconds."""
    last, median = history.last(name), history.median(name)
    if last is None:
        return "-"
    return f"{1e3 * last:.{decimals}f} ({1e3 * median:.{decimals}f})"
