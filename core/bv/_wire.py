"""Drawable records shared by the kinds' ``wire``: line cells as plain numpy arrays.

Every kind's ``wire(rows)`` returns a dict with at least

- ``"points"``: ``(N, 3) float64``, in the volumes' own frame;
- ``"line_sizes"``: ``(c,) int64``, point ids per line cell (a closed loop repeats its first);
- ``"line_ids"``: ``(line_sizes.sum(),) int64``, the point ids of each cell, cell after cell;

so a viewer draws any kind from these three arrays without knowing which kind it is (the
core emits drawable records, only the viewer draws: Jolt's ``DebugRenderer``). Kinds add
their own descriptive keys (``"kind"``, ``"corners"``, ...) for tests and tools.
"""

from __future__ import annotations

import numpy as np

CIRCLE_SEGMENTS = 24
"""Segments of each drawn circle or rounded corner set (24: round at any zoom a student uses,
3 circles x 25 points per sphere keeps 20k spheres under 2M points)."""

LINES_PER_BOX = 12

# Corner c of a box: bit k of c set = the + side on axis k. Edges join corners one bit apart.
_BOX_EDGES = np.array(
    [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6),
     (3, 7)],
    dtype=np.int64,
)


def lines_record(points: np.ndarray, sizes: np.ndarray, ids: np.ndarray, **extra) -> dict:
    """The common drawable record (see the module docstring) plus a kind's own keys."""
    return {"points": np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 3),
            "line_sizes": np.asarray(sizes, dtype=np.int64),
            "line_ids": np.asarray(ids, dtype=np.int64), **extra}  # fmt: skip


def box_lines(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(j, 8, 3)`` corners (bit order above) -> points, sizes, ids: 12 line cells per box."""
    j = corners.shape[0]
    edges = (np.arange(j, dtype=np.int64)[:, None, None] * 8 + _BOX_EDGES[None]).reshape(-1, 2)
    return corners.reshape(-1, 3), np.full(edges.shape[0], 2, dtype=np.int64), edges.ravel()


def closed_loops(loops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points, cell sizes and point ids of ``(c, q, 3)`` closed loops (``q + 1`` ids each)."""
    c, q = loops.shape[:2]
    ids = np.arange(c * q, dtype=np.int64).reshape(c, q)
    ids = np.concatenate([ids, ids[:, :1]], axis=1)
    return loops.reshape(-1, 3), np.full(c, q + 1, dtype=np.int64), ids.ravel()


def polygon_loops(points: np.ndarray, sizes: np.ndarray):
    """Closed polylines of any sizes: ``points (N, 3)``, ``sizes (g,)`` corners each, polygon
    after polygon -> points, cell sizes (``sizes + 1``) and point ids."""
    if sizes.shape[0] == 0:
        return np.empty((0, 3)), np.empty(0, np.int64), np.empty(0, np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    # Each polygon's corner ids, then its first again to close the loop.
    member = np.repeat(np.arange(sizes.shape[0]), sizes + 1)
    offset = np.arange(member.shape[0]) - np.repeat(starts + np.arange(sizes.shape[0]), sizes + 1)
    ids = starts[member] + offset % np.repeat(sizes, sizes + 1)
    return points, sizes + 1, ids


def circle_basis() -> tuple[np.ndarray, np.ndarray]:
    """Cosines and sines of :data:`CIRCLE_SEGMENTS` angles around a circle, ``(s,)`` each."""
    angle = np.linspace(0.0, 2.0 * np.pi, CIRCLE_SEGMENTS, endpoint=False)
    return np.cos(angle), np.sin(angle)


def box_record(corners: np.ndarray) -> dict:
    """The record of boxes given by their ``(j, 8, 3)`` corners: 12 line cells each, and
    ``"kind": "box"``, ``"corners"``."""
    return lines_record(*box_lines(corners), kind="box", corners=corners)
