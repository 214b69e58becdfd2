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
