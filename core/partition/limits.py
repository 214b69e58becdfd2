"""The caps on a spatial partition's settings and on what one build may hold.

A partition's settings come from people and from files (a recorded request replays them), so
each is checked when its settings record is made: a depth of a million or a capacity of 0
would grow a build without bound (a replay with huge settings grew to 5.7 GB). The build
itself is budgeted too (:data:`MAX_ENTRIES`), because a fine grid or a deep tree over a large
mesh can reach any size with settings that are each in range.
"""

from __future__ import annotations

import math

MAX_OCTREE_DEPTH = 21
"""Deepest octree level: cells 1/2,097,152 of the scene's extent (float64 still tells their
corners apart; the default, 8, is already below every shipped mesh's triangle size)."""

MAX_TREE_DEPTH = 64
"""Deepest k-d or BSP level (each level halves the triangles: 64 is beyond any mesh)."""

MAX_CAPACITY = 10**9
"""Most triangles a leaf may be given as its capacity."""

MAX_PLANE_CANDIDATES = 1024
"""Most candidate planes or score samples a BSP node may try."""

CELL_SCALE_RANGE = (1e-2, 1e3)
"""Grid cell edge in mean triangle sizes: finer than 1/100 puts a million cells on a
triangle."""

MAX_ENTRIES = 32_000_000
"""Most (cell, triangle) entries one partition build may hold (256 MB of ids; two 100k-triangle
spheres take about 2 million). A build past it stops with a ValueError naming the setting to
change."""


def check_int_setting(value, name: str, low: int, high: int) -> None:
    """``value`` an int (not a bool) in ``[low, high]``; else TypeError or ValueError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {low}..{high:,}, got {value:,}")


def check_real(value, name: str, low: float, high: float, low_open: bool = False) -> None:
    """``value`` a finite real number (not a bool) in ``[low, high]`` (``(low, high]`` with
    ``low_open``); else TypeError or ValueError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if not math.isfinite(value) or value > high or value < low or (low_open and value == low):
        bracket = "(" if low_open else "["
        raise ValueError(f"{name} must be a finite number in {bracket}{low:g}, {high:g}], "
                         f"got {value}")  # fmt: skip


def check_flag(value, name: str) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be true or false, got {type(value).__name__}")


def check_tree_params(params, max_depth: int) -> None:
    """The settings every level-by-level partition shares."""
    check_int_setting(params.max_depth, "max_depth", 0, max_depth)
    check_int_setting(params.capacity, "capacity", 1, MAX_CAPACITY)
    check_flag(params.split_single_mesh, "split_single_mesh")


def too_many_entries(n_entries: int) -> ValueError:
    """The error a build past :data:`MAX_ENTRIES` stops with."""
    return ValueError(f"the partition would hold {n_entries:,} (cell, triangle) entries (at "
                      f"most {MAX_ENTRIES:,}): use a larger cell size or capacity, or a "
                      f"smaller max_depth")  # fmt: skip
