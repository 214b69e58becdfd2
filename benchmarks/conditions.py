"""What a measurement ran under: the 1-minute load average around it and its repeat count.

Every table ``make bench`` prints says both with its numbers (issue 27, item 6), because on
this project's 2-core machines another job on the cores changes a median by up to 2.5x
(the W3 500k ratio was 0.53x idle and 2.46x at load 4-5 in one session). A table measured
at a load above :data:`HIGH_LOAD` gets a warning line: rerun it on an idle machine before
reporting a PASS.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

HIGH_LOAD = 1.5
"""An idle measurement taken at a 1-minute load average above this is flagged: other work
shared the two cores, so its ratio is not an idle one."""


def high_load_warning(what: str, load: float | None) -> str | None:
    """``"warning: W3 100k was measured at load 2.1 (above 1.5): rerun ..."``, or None when
    the load is unknown or not above :data:`HIGH_LOAD`."""
    if load is None or load <= HIGH_LOAD:
        return None
    return (f"warning: {what} was measured at load {load:.1f} (above {HIGH_LOAD:g}): "
            "rerun on an idle machine before reporting a PASS")


OTHER_LOAD_LIMIT = 0.5
"""A measurement of a program that itself keeps the cores busy (the interactive window: its
GUI thread, the renderer's threads and the frame lane) raises the load average by itself,
so for it the CPU that other processes used during the run is what tells idle from busy:
above half a core, the run is flagged like a load average above :data:`HIGH_LOAD`."""


def cpu_counters(stat_path: str = "/proc/stat") -> tuple[float, float] | None:
    """``(busy, children)`` in CPU seconds: the whole machine's busy time since boot (the
    ``cpu`` line of ``/proc/stat`` without idle and iowait) and the finished child
    processes' of this one (:func:`resource.getrusage`, grandchildren that were waited for
    included). None where either cannot be read (not Linux)."""
    try:
        import resource

        with open(stat_path, encoding="ascii") as stat:
            fields = stat.readline().split()
        ticks = os.sysconf("SC_CLK_TCK")
        user, nice, system, _idle, _iowait, irq, softirq, *rest = (int(x) for x in fields[1:])
        steal = rest[0] if rest else 0
        busy = (user + nice + system + irq + softirq + steal) / ticks
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    except (ImportError, OSError, ValueError, IndexError):
        return None
    return busy, usage.ru_utime + usage.ru_stime


def other_processes_load(before: tuple[float, float] | None,
                         after: tuple[float, float] | None, wall_s: float) -> float | None:
    """Cores other processes kept busy between two :func:`cpu_counters` readings, on
    average over ``wall_s`` seconds: the machine's busy time less the children's (and this
    process's own, negligible while it waits). None when unknown."""
    if before is None or after is None or wall_s <= 0:
        return None
    busy = after[0] - before[0]
    children = after[1] - before[1]
    return max(0.0, busy - children) / wall_s


def other_load_warning(what: str, other_load: float | None) -> str | None:
    """``"warning: ... other processes used 0.9 cores ..."`` when ``other_load`` is above
    :data:`OTHER_LOAD_LIMIT`, else None."""
    if other_load is None or other_load <= OTHER_LOAD_LIMIT:
        return None
    return (f"warning: during {what} other processes used {other_load:.1f} cores (above "
            f"{OTHER_LOAD_LIMIT:g}): rerun on an idle machine before reporting a PASS")


def load_average() -> float | None:
    """The 1-minute load average, or None where the system has none (``os.getloadavg``)."""
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):
        return None


@dataclass
class Conditions:
    """The load around one measurement and how many times it was repeated.

    Use as ``with Conditions(repeats=5) as conditions: ...``: the load is read when the block
    starts and when it ends.

    Attributes
    ----------
    repeats : int
        Timed repeats behind each median (frames, for a frame rate).
    load_start, load_end : float or None
        1-minute load average before and after; None where unknown.
    unit : str
        What a repeat is ("repeats", "frames").
    """

    repeats: int
    load_start: float | None = None
    load_end: float | None = None
    unit: str = field(default="repeats")

    def __enter__(self) -> Conditions:
        self.load_start = load_average()
        return self

    def __exit__(self, *_exc) -> None:
        self.load_end = load_average()

    @property
    def load(self) -> float | None:
        """The higher of the two loads (None if neither is known)."""
        known = [x for x in (self.load_start, self.load_end) if x is not None]
        return max(known) if known else None

    def words(self) -> str:
        """``"load 0.8->1.2, 5 repeats"``."""
        def one(x):
            return "?" if x is None else f"{x:.1f}"

        return f"load {one(self.load_start)}->{one(self.load_end)}, {self.repeats} {self.unit}"

    def warning(self, what: str) -> str | None:
        """A line saying ``what`` was measured on a busy machine, or None."""
        return high_load_warning(what, self.load)

    def lines(self, what: str) -> list[str]:
        """The conditions line, then the warning when there is one."""
        warning = self.warning(what)
        return [f"  measured at {self.words()}", *([warning] if warning else [])]

    def as_json(self) -> dict:
        return {"repeats": self.repeats, "load_start": self.load_start,
                "load_end": self.load_end, "unit": self.unit}

    @classmethod
    def from_json(cls, entry: dict | None) -> Conditions | None:
        if not entry:
            return None
        return cls(int(entry["repeats"]), entry.get("load_start"), entry.get("load_end"),
                   entry.get("unit", "repeats"))
