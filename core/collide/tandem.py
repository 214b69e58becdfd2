"""Tandem traversal of two AABB trees: the descend rules, the walk over the trees' own boxes,
and the triangle pairs of the leaf pairs it finds.

The walk itself is :func:`core.collide.traversal.traverse_levels` with the code
:data:`~core.collide.traversal.TREE_BOXES`: B's boxes are tested in A's frame under the
relative pose ``x_A = R x_B + T`` with only the six face axes of the two boxes ("SAT lite",
van den Bergen 1997, section 5.1), which may report a few overlaps that the full 15-axis test
would cull but never misses one.
"""

from __future__ import annotations

import enum

import numpy as np
from numba import njit, prange

from core.collide.traversal import (
    PARALLEL_MIN_PAIRS,
    TREE_BOXES,
    TraversalRecord,
    traverse_from_roots,
)


class DescendRule(enum.IntEnum):
    """Which node of an overlapping pair to split.

    LARGER_VOLUME
        The node whose box has the larger volume (van den Bergen 1997); a leaf is never split.
    BOTH
        Both nodes at once: four children pairs (Gottschalk et al. 1996 split one at a time;
        this is the simultaneous variant of Bullet's ``ICollide``).
    A_FIRST
        Always A until it is a leaf, then B.
    """

    LARGER_VOLUME = 0
    BOTH = 1
    A_FIRST = 2


def traverse(first_a, count_a, bmin_a, bmax_a, first_b, count_b, bmin_b, bmax_b, rot, trans,
             margin, rule, record, parallel_min=PARALLEL_MIN_PAIRS) -> TraversalRecord:
    """Tandem traversal of two trees' own boxes from the pair of roots, on this thread.

    Parameters
    ----------
    first_a, count_a : (ka,) int32
    bmin_a, bmax_a : (ka, 3) float64
    first_b, count_b : (kb,) int32
    bmin_b, bmax_b : (kb, 3) float64
        B's boxes in B's own coordinates.
    rot : (3, 3) float64
    trans : (3,) float64
        Pose of B in A's frame: ``x_A = rot @ x_B + trans``.
    margin : float
        Distance by which boxes are grown in every test.
    rule : int
        A :class:`DescendRule` value.
    record : bool
        Keep every level's pairs (trace mode).
    parallel_min : int
        Smallest frontier processed in parallel.

    Returns
    -------
    TraversalRecord
        See :func:`core.collide.traversal.traverse_levels` (``rest_a, rest_b`` empty).
    """
    # The trees' own boxes are read in place: bmin stands in for the unread volume rows.
    return traverse_from_roots(TREE_BOXES, first_a, count_a, bmin_a, bmax_a, bmin_a, first_b,
                               count_b, bmin_b, bmax_b, bmin_b, rot, trans, margin, rule, False,
                               record, parallel_min=parallel_min)  # fmt: skip


@njit(cache=True, nogil=True)
def expand_leaf_pairs(leaf_a, leaf_b, first_a, count_a, prim_ids_a, first_b, count_b, prim_ids_b):
    """Triangle pairs of the overlapping leaf pairs.

    Parameters
    ----------
    leaf_a, leaf_b : (p,) int32
        Leaf node ids.
    first_*, count_*, prim_ids_* : tree arrays of A and B.

    Returns
    -------
    (q, 2) int32
        Face ids (A, B); q = sum of count_a * count_b over the pairs.
    """
    total = 0
    for i in range(leaf_a.shape[0]):
        total += count_a[leaf_a[i]] * count_b[leaf_b[i]]
    pairs = np.empty((total, 2), dtype=np.int32)
    k = 0
    for i in range(leaf_a.shape[0]):
        a = leaf_a[i]
        b = leaf_b[i]
        for p in range(first_a[a], first_a[a] + count_a[a]):
            for q in range(first_b[b], first_b[b] + count_b[b]):
                pairs[k, 0] = prim_ids_a[p]
                pairs[k, 1] = prim_ids_b[q]
                k += 1
    return pairs


@njit(cache=True, nogil=True, parallel=True)
def transform_points(points, rot, trans):
    """``points @ rot.T + trans`` without temporaries, ``(n, 3) float64``."""
    out = np.empty_like(points)
    for i in prange(points.shape[0]):
        x, y, z = points[i, 0], points[i, 1], points[i, 2]
        for k in range(3):
            out[i, k] = rot[k, 0] * x + rot[k, 1] * y + rot[k, 2] * z + trans[k]
    return out
