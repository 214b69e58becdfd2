"""A competing load that the benchmark starts itself: busy processes standing in for the
renderer.

In the app the renderer (software OpenGL) always competes with the core for the cores, so a
speed that holds only on an idle machine is not what a user sees (issue 27: two numba threads
gave 1.8x on an idle machine and about 1.1x at a load of 1-2). ``python -m benchmarks
--competing-load N`` times the targets a second time with ``N`` such processes running.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator

MAX_PROCESSES = 64
"""More busy processes than this is a typo, not a measurement."""
SPIN = "while True:\n    pass\n"
"""What each process runs: one core's worth of pure computation, no memory, no I/O."""


def default_processes() -> int:
    """One busy process per core."""
    return os.cpu_count() or 1


def check_processes(n: int) -> int:
    """``n`` itself; ValueError naming ``--competing-load`` and the limit when it is out of
    range."""
    if not 0 <= n <= MAX_PROCESSES:
        raise ValueError(f"--competing-load {n}: from 0 (none) to {MAX_PROCESSES} processes")
    return n


@contextlib.contextmanager
def competing_load(n_processes: int, settle_s: float = 1.0) -> Iterator[list]:
    """Run ``n_processes`` busy processes while the block runs; they are stopped afterwards,
    whatever happens in the block.

    Parameters
    ----------
    n_processes : int
    settle_s : float
        Seconds to let them start before the block measures anything.

    Yields
    ------
    list of subprocess.Popen
    """
    check_processes(n_processes)
    processes = []
    try:
        for _ in range(n_processes):
            processes.append(subprocess.Popen([sys.executable, "-c", SPIN],
                                              stdin=subprocess.DEVNULL))
        time.sleep(settle_s if processes else 0.0)
        yield processes
    finally:
        for process in processes:
            process.kill()
        for process in processes:
            process.wait()
