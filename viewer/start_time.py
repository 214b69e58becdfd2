"""How long ago this process started, for the ``first frame after X.X s`` line.

The clock is the kernel's record of the process's start (``/proc/self/stat``, field 22,
``starttime``), not a ``time.perf_counter()`` taken in ``viewer/__main__.py``: ``python -m
viewer`` runs the interpreter's start-up and ``viewer/__init__.py`` before ``__main__``'s first
line, and a user waits through those too. ``starttime`` counts clock ticks (10 ms) since boot
on the clock of ``CLOCK_BOOTTIME`` (Linux 5.5 and later), so the age is exact to 0.01 s,
enough for a number printed with one decimal. Where ``/proc`` is missing (not Linux), the age
is counted from the first import of this module, which ``viewer/__main__.py`` does first.
"""

from __future__ import annotations

import os
import time

_IMPORTED_AT = time.perf_counter()

#: The one line written to standard error when the first frame is on screen (an interface:
#: scripts that time the start read it).
FIRST_FRAME_LINE = "first frame after {seconds:.1f} s"


def _age_from_proc() -> float | None:
    """Seconds since this process started, from ``/proc/self/stat``; None where unreadable."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            text = stat.read().decode()
        # The command name (field 2) is in parentheses and may hold spaces: split after it.
        fields = text[text.rindex(")") + 2:].split()
        start_ticks = int(fields[19])  # field 22 of the whole line
        ticks_per_s = os.sysconf("SC_CLK_TCK")
        now = time.clock_gettime(time.CLOCK_BOOTTIME)
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    age = now - start_ticks / ticks_per_s
    return age if age >= 0.0 else None


def seconds_since_start() -> float:
    """Seconds since the process started (see the module's note for which clock).

    Returns
    -------
    float
        Non-negative seconds.
    """
    age = _age_from_proc()
    return age if age is not None else time.perf_counter() - _IMPORTED_AT


def first_frame_line(seconds: float) -> str:
    """``first frame after X.X s`` for ``seconds``."""
    return FIRST_FRAME_LINE.format(seconds=seconds)
