"""One thread while the other cores are busy: the parallel kernels' threads, chosen per call.

A parallel kernel waits for all its threads at the end. When another process keeps the other
core busy (in the app, the software renderer; in the benchmark, ``--competing-load``), the
second thread runs only when the scheduler gives it a slice, and the whole launch waits for
it. Measured on this project's 2-core machine with two busy processes (W3 100k frame, medians
of 9, the benchmark of issue 27): 49.9 ms on two threads against 47.4 ms on one, and 13.8 ms
on one thread idle; at 500k 67.7 ms on two threads against 47.2 on one. Idle, two threads
were faster (27.9 against 37.4 ms at 500k).

So a query or a refit asks, as it starts, how many threads are runnable on the machine
(``/proc/loadavg``'s fourth field, counted the instant it is read, unlike the load averages)
and runs on one thread when the other cores are taken. The answer is kept for
:data:`RECHECK_S` so that many small calls read the file once.

``BVH_LAB_KEEP_THREADS=1`` in the environment turns the choice off: the warm-up must run the
two-thread kernels to compile them even when it shares the machine (``make test`` warms up
in two processes), and the tests that check what runs on two threads must not depend on what
else the machine is doing.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

import numba

#: How long one reading of the runnable count stands (seconds): short against a user's
#: frame, long against a small query's 50 microseconds.
RECHECK_S = 0.05

#: Set to ``1`` to keep numba's thread count whatever the machine is doing.
KEEP_THREADS_ENV = "BVH_LAB_KEEP_THREADS"

_LOADAVG = "/proc/loadavg"
_last = {"at": -1.0, "busy": 0}


def runnable_elsewhere(path: str = _LOADAVG) -> int:
    """Threads runnable on the machine besides the caller, at this instant.

    Parameters
    ----------
    path : str
        The kernel's load file (a test passes its own).

    Returns
    -------
    int
        0 where the file is missing or unreadable (then the kernels keep their threads).
    """
    try:
        with open(path, encoding="ascii") as f:
            running = f.read().split()[3].split("/")[0]
        return max(int(running) - 1, 0)
    except (OSError, IndexError, ValueError):
        return 0


def free_cores(n_cores: int | None = None, path: str = _LOADAVG) -> int:
    """Cores not taken by another runnable thread (at least 1: the caller's own)."""
    now = time.monotonic()
    if now - _last["at"] > RECHECK_S or path != _LOADAVG:
        _last["at"], _last["busy"] = now, runnable_elsewhere(path)
    cores = n_cores if n_cores is not None else (os.cpu_count() or 1)
    return max(cores - _last["busy"], 1)


@contextlib.contextmanager
def threads_for_free_cores(path: str = _LOADAVG) -> Iterator[int]:
    """Run the block's parallel kernels on no more threads than there are free cores.

    Yields
    ------
    int
        The threads the block's kernels use (``numba.get_num_threads()`` inside it).
    """
    before = numba.get_num_threads()
    is_kept = os.environ.get(KEEP_THREADS_ENV) == "1"
    wanted = min(before, free_cores(path=path)) if before > 1 and not is_kept else before
    if wanted == before:
        yield before
        return
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(before)


@contextlib.contextmanager
def kept_threads() -> Iterator[None]:
    """Keep numba's thread count inside the block whatever the machine is doing (the
    warm-up: its two-thread kernels compile only when they run on two threads)."""
    before = os.environ.get(KEEP_THREADS_ENV)
    os.environ[KEEP_THREADS_ENV] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(KEEP_THREADS_ENV, None)
        else:
            os.environ[KEEP_THREADS_ENV] = before
