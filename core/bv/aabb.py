"""Axis-aligned boxes: the volumes of van den Bergen (1997), row ``(bmin 3, bmax 3)``.

Two overlap tests for a rotated B, both over B's box seen in A's frame:

* ``overlap`` -- "SAT lite" (van den Bergen 1997, section 5.1): only the 3 + 3 face axes of
  the two boxes. It never misses an overlap but reports some pairs that the full test would
  cull: that costs extra box tests lower in the tree, against 9 cross-axis tests saved here.
* ``overlap15`` -- the full 15-axis separating axis test (Gottschalk et al. 1996), through
  :func:`core.bv.obb.sat15` with identity axes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.bv._wire import box_record
from core.bv.obb import box_axis_text, box_separation, gap15, sat6, sat15
from core.bv.shapes import Boxes

#: Row layout: ``bmin`` (3) then ``bmax`` (3).
WIDTH = 6
#: Columns of the row layout.
BMIN, BMAX = slice(0, 3), slice(3, 6)


@njit(cache=True, nogil=True)
def fit(vertices, faces, prim_ids, prim_start, n_prims, out):
    """Fit every node's box to the vertices of its triangles.

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32
    prim_ids : (m,) int32
        Tree's permuted triangle ids.
    prim_start, n_prims : (k,) int32
        Each node's run in ``prim_ids``.
    out : (k, 6) float64
        Written with ``bmin, bmax`` per node.
    """
    for node in range(prim_start.shape[0]):
        for j in range(3):
            out[node, j] = np.inf
            out[node, 3 + j] = -np.inf
        for p in range(prim_start[node], prim_start[node] + n_prims[node]):
            t = prim_ids[p]
            for c in range(3):
                v = faces[t, c]
                for j in range(3):
                    x = vertices[v, j]
                    if x < out[node, j]:
                        out[node, j] = x
                    if x > out[node, 3 + j]:
                        out[node, 3 + j] = x


@njit(cache=True, nogil=True)
def _fit_node(vertices, faces, prim_ids, s, n, out, node):
    for j in range(3):
        out[node, j] = np.inf
        out[node, 3 + j] = -np.inf
    for p in range(s, s + n):
        t = prim_ids[p]
        for c in range(3):
            v = faces[t, c]
            for j in range(3):
                x = vertices[v, j]
                out[node, j] = min(out[node, j], x)
                out[node, 3 + j] = max(out[node, 3 + j], x)


@njit(cache=True, nogil=True)
def refit(vertices, faces, prim_ids, prim_start, n_prims, first, count, level_nodes, level_start,
          out):
    """Exact bottom-up refit: leaves from their triangles, parents as the union of children.

    Parameters
    ----------
    vertices, faces, prim_ids, prim_start, n_prims : see :func:`fit`
    first, count : (k,) int32
    level_nodes : (k,) int32
    level_start : (D + 2,) int64
    out : (k, 6) float64
    """
    for d in range(level_start.shape[0] - 2, -1, -1):
        for j in range(level_start[d], level_start[d + 1]):
            node = level_nodes[j]
            if count[node] > 0:
                _fit_node(vertices, faces, prim_ids, prim_start[node], n_prims[node], out, node)
            else:
                c = first[node]
                for k in range(3):
                    out[node, k] = min(out[c, k], out[c + 1, k])
                    out[node, 3 + k] = max(out[c, 3 + k], out[c + 1, 3 + k])


@njit(cache=True, nogil=True)
def overlap(ra, rb, rot, trans, margin):
    """SAT lite: A's three face axes, then B's three.

    Parameters
    ----------
    ra, rb : (6,) float64
        A's row in A's frame, B's row in B's frame.
    rot : (3, 3) float64
    trans : (3,) float64
        ``x_A = rot @ x_B + trans``.
    margin : float
        Growth of both boxes so that round-off never culls touching triangles.

    Returns
    -------
    int
        -1 if the boxes may overlap, else the separating axis: 0-2 A's x, y, z, 3-5 B's.
    """
    # Scalars only (no small arrays): allocating four per test made SAT lite slower than the
    # full 15-axis test (168 vs 69 ns a pair, measured).
    return sat6(_relative_frame(ra, rb, rot, trans),
                0.5 * (ra[3] - ra[0]) + margin, 0.5 * (ra[4] - ra[1]) + margin,
                0.5 * (ra[5] - ra[2]) + margin,
                0.5 * (rb[3] - rb[0]), 0.5 * (rb[4] - rb[1]), 0.5 * (rb[5] - rb[2]))  # fmt: skip


@njit(cache=True, nogil=True)
def _relative_frame(ra, rb, rot, trans):
    """B's box in A's (axis-aligned) frame as :func:`core.bv.obb.relative_frame` gives it:
    ``R = rot``, ``T = rot c_B + trans - c_A``; no allocation."""
    cb0 = 0.5 * (rb[0] + rb[3])
    cb1 = 0.5 * (rb[1] + rb[4])
    cb2 = 0.5 * (rb[2] + rb[5])
    t0 = rot[0, 0] * cb0 + rot[0, 1] * cb1 + rot[0, 2] * cb2 + trans[0] - 0.5 * (ra[0] + ra[3])
    t1 = rot[1, 0] * cb0 + rot[1, 1] * cb1 + rot[1, 2] * cb2 + trans[1] - 0.5 * (ra[1] + ra[4])
    t2 = rot[2, 0] * cb0 + rot[2, 1] * cb1 + rot[2, 2] * cb2 + trans[2] - 0.5 * (ra[2] + ra[5])
    return (rot[0, 0], rot[0, 1], rot[0, 2], rot[1, 0], rot[1, 1], rot[1, 2],
            rot[2, 0], rot[2, 1], rot[2, 2], t0, t1, t2)  # fmt: skip


@njit(cache=True, nogil=True)
def overlap15(ra, rb, rot, trans, margin):
    """Full 15-axis test of two boxes (ids as :func:`core.bv.obb.sat15`)."""
    return sat15(_relative_frame(ra, rb, rot, trans),
                 0.5 * (ra[3] - ra[0]) + margin, 0.5 * (ra[4] - ra[1]) + margin,
                 0.5 * (ra[5] - ra[2]) + margin,
                 0.5 * (rb[3] - rb[0]), 0.5 * (rb[4] - rb[1]), 0.5 * (rb[5] - rb[2]))  # fmt: skip


@njit(cache=True, nogil=True)
def volume(row):
    """Box volume, ``float``."""
    return (row[3] - row[0]) * (row[4] - row[1]) * (row[5] - row[2])


@njit(cache=True, nogil=True)
def lower_bound(ra, rb, rot, trans):
    """A lower bound of the distance between the contents of two boxes.

    Without rotation, the exact box-box distance (the gaps along x, y and z combined): the
    largest single gap is much weaker near corners, and a branch and bound over it visited
    so many pairs that two bunnies side by side took 8.8 s (93 ms with this bound, measured).
    Under rotation, the largest gap over the 15 axes (:func:`core.bv.obb.gap15`).
    """
    if (rot[0, 0] == 1.0 and rot[1, 1] == 1.0 and rot[2, 2] == 1.0 and rot[0, 1] == 0.0
            and rot[0, 2] == 0.0 and rot[1, 0] == 0.0 and rot[1, 2] == 0.0
            and rot[2, 0] == 0.0 and rot[2, 1] == 0.0):  # fmt: skip
        d2 = 0.0
        for k in range(3):
            gap = max(ra[k] - (rb[3 + k] + trans[k]), (rb[k] + trans[k]) - ra[3 + k], 0.0)
            d2 += gap * gap
        return np.sqrt(d2)
    return gap15(_relative_frame(ra, rb, rot, trans),
                 0.5 * (ra[3] - ra[0]), 0.5 * (ra[4] - ra[1]), 0.5 * (ra[5] - ra[2]),
                 0.5 * (rb[3] - rb[0]), 0.5 * (rb[4] - rb[1]), 0.5 * (rb[5] - rb[2]))


def corners(rows: np.ndarray) -> np.ndarray:
    """The eight corners of each box.

    Parameters
    ----------
    rows : (j, 6) float64

    Returns
    -------
    (j, 8, 3) float64
        Corner ``i`` takes ``bmax`` on axis ``k`` iff bit ``k`` of ``i`` is set.
    """
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, WIDTH)
    bits = ((np.arange(8)[:, None] >> np.arange(3)[None, :]) & 1).astype(bool)  # (8, 3)
    return np.where(bits[None], rows[:, None, 3:], rows[:, None, :3])


def wire(rows: np.ndarray) -> dict:
    """Drawable records (:mod:`core.bv._wire`): 12 line cells per box, plus ``"kind": "box"``
    and ``"corners": (j, 8, 3) float64`` (bit order as in :func:`corners`; edges join corners
    that differ in one bit)."""
    return box_record(corners(rows))


def separating_test(sep_id: int) -> str:
    """The test that culled a pair, in words: "A's axis 2 (y)", "B's axis 1 (x)", "A3 x B3
    (edge-edge axis)" (ids of :func:`overlap` and :func:`overlap15`). The axes are the world
    axes of each body's frame, so each is named by its letter too."""
    return box_axis_text(sep_id, letters="xyz")


def distance_outside(row: np.ndarray, points: np.ndarray) -> np.ndarray:
    """How far each point is outside the box ``row (6,)`` (<= 0 inside), ``(p,) float64``:
    the largest excess over the slabs (a lower bound of the true distance, exact on faces)."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    return np.maximum(row[:3] - points, points - row[3:6]).max(axis=1)


def separation(row_a: np.ndarray, row_b: np.ndarray, rot: np.ndarray, trans: np.ndarray,
               sep_id: int):
    """The separating axis of two box rows for a culled pair: axis (3,), both intervals and a
    point to draw it through, in A's frame (:func:`core.bv.obb.box_separation`; SAT lite's
    ids 0-5 and the 15-axis test's are the same numbering)."""
    return box_separation(_aabb_box(row_a), _aabb_box(row_b), rot, trans, sep_id)


def _aabb_box(row: np.ndarray):
    row = np.asarray(row, dtype=np.float64)
    return 0.5 * (row[0:3] + row[3:6]), np.eye(3), 0.5 * (row[3:6] - row[0:3])


def shape(rows: np.ndarray) -> Boxes:
    """The rows ``(j, 6)`` as :class:`core.bv.shapes.Boxes`."""
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, WIDTH)
    return Boxes(rows[:, BMIN], rows[:, BMAX])
