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

import numba
import numpy as np
from numba import njit, prange

from core.collide.traversal import (
    PARALLEL_MIN_PAIRS,
    TREE_BOXES,
    TraversalRecord,
    traverse_from_roots,
)
from core.jit.kernel_args import frozen, frozen_args


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


#: Fewest leaf pairs screened on two threads: about 75 ns a leaf pair on one thread, the
#: leaves' boxes included (W3 100k, leaf size 8, 6,627 leaf pairs: 0.50 ms), against some 20
#: microseconds for a launch. Two threads took 0.48 ms there and 1.09 ms against one thread's
#: 1.33 ms at 500k (16,229 leaf pairs; medians of 200, idle).
PARALLEL_MIN_LEAF_PAIRS = 2048


def overlapping_triangle_pairs(leaf_a, leaf_b, tree_a, tree_b, va, fa, vb, fb):
    """Triangle pairs of the overlapping leaf pairs whose triangles' boxes overlap.

    The first stage of the exact triangle test (:func:`core.collide.tritri._boxes_apart`),
    run while the pairs are listed: a pair whose corner boxes are apart on an axis is
    disjoint for the coordinates given (comparisons round nothing), so it never reaches the
    plane tests. With several triangles a leaf most pairs stop here: on the W3 100k frame
    (leaf size 6) 15,891 of 155,229 candidate pairs have overlapping boxes, for 1,936
    contacts. Each leaf's boxes are computed once, not once per leaf pair it is in: that took
    the W3 100k screen (leaf size 8, one thread) from 1.24 to 0.53 ms.

    Parameters
    ----------
    leaf_a, leaf_b : (p,) int32
        Leaf node ids.
    tree_a, tree_b : Tree
    va : (na, 3) float64
    fa : (ma, 3) int32
        Mesh A's vertices and faces.
    vb : (nb, 3) float64
        Mesh B's vertices in A's frame (the coordinates the exact test is given).
    fb : (mb, 3) int32

    Returns
    -------
    pairs : (q, 2) int32
        Face ids (A, B), in :func:`expand_leaf_pairs`' order with the apart pairs left out.
    n_candidates : int
        Pairs of the leaf pairs before the box stage (``sum count_a * count_b``): the
        triangle tests the traversal asked for.
    """
    inputs = (*frozen_args((leaf_a, leaf_b, tree_a.first, tree_a.count, tree_a.prim_ids,
                            tree_b.first, tree_b.count, tree_b.prim_ids)),
              frozen(va, np.float64), frozen(fa, np.int32), frozen(vb, np.float64),
              frozen(fb, np.int32))  # fmt: skip
    n_threads = numba.get_num_threads()
    if leaf_a.shape[0] >= PARALLEL_MIN_LEAF_PAIRS and n_threads > 1:
        return _overlapping_triangle_pairs_parallel(*inputs, n_threads)
    return _overlapping_triangle_pairs(*inputs)


@njit(cache=True, nogil=True)
def _leaf_boxes(first, count, prim_ids, verts, faces, node, boxes, union):
    """Write the corner boxes of ``node``'s triangles into ``boxes[:count[node]]`` and their
    union into ``union``, rows ``(lo_x, lo_y, lo_z, hi_x, hi_y, hi_z)``."""
    for k in range(3):
        union[k] = np.inf
        union[3 + k] = -np.inf
    for j in range(count[node]):
        f = prim_ids[first[node] + j]
        for k in range(3):
            x0 = verts[faces[f, 0], k]
            x1 = verts[faces[f, 1], k]
            x2 = verts[faces[f, 2], k]
            lo = min(x0, x1, x2)
            hi = max(x0, x1, x2)
            boxes[j, k] = lo
            boxes[j, 3 + k] = hi
            union[k] = min(union[k], lo)
            union[3 + k] = max(union[3 + k], hi)


@njit(cache=True, nogil=True)
def _boxes_meet(boxes, j, other, i):
    """Whether row ``j`` of ``boxes`` and row ``i`` of ``other`` overlap (touching counts).

    Non-short-circuit ``&``: six comparisons without a branch, which the callers add to a
    count (a branch per pair mispredicted on about one pair in ten on the W3 frame).
    """
    return (
        (other[i, 3] >= boxes[j, 0]) & (boxes[j, 3] >= other[i, 0])
        & (other[i, 4] >= boxes[j, 1]) & (boxes[j, 4] >= other[i, 1])
        & (other[i, 5] >= boxes[j, 2]) & (boxes[j, 5] >= other[i, 2])
    )  # fmt: skip


@njit(cache=True, nogil=True)
def _leaf_slots(leaf, count, n_nodes):
    """Number the distinct leaves of ``leaf`` in order of first use.

    Returns
    -------
    slot_of : (n_nodes,) int32
        The leaf's slot, -1 for nodes not in ``leaf``.
    nodes : (s,) int32
        The leaf of each slot.
    starts : (s + 1,) int64
        Where each slot's triangles start in the slots' box rows: the rows hold each distinct
        leaf's triangles once, so they never outnumber the tree's triangles, however uneven
        its leaves (a tree read from a file may hold one leaf of thousands beside many of one).
    most : int
        Most triangles in one of them (at least 1).
    """
    slot_of = np.full(n_nodes, -1, dtype=np.int32)
    nodes = np.empty(leaf.shape[0], dtype=np.int32)
    starts = np.empty(leaf.shape[0] + 1, dtype=np.int64)
    starts[0] = 0
    n_slots = 0
    most = 1
    for i in range(leaf.shape[0]):
        node = leaf[i]
        if slot_of[node] < 0:
            slot_of[node] = n_slots
            nodes[n_slots] = node
            starts[n_slots + 1] = starts[n_slots] + count[node]
            n_slots += 1
            most = max(most, count[node])
    return slot_of, nodes[:n_slots], starts[:n_slots + 1], most


@njit(cache=True, nogil=True)
def _slot_boxes(nodes, starts, first, count, prim_ids, verts, faces):
    """Corner boxes of each slot's triangles and their union (:func:`_leaf_boxes`).

    Returns
    -------
    boxes : (starts[-1], 6) float64
        Rows ``starts[s]`` to ``starts[s + 1] - 1`` for slot ``s``.
    unions : (s, 6) float64
    """
    boxes = np.empty((starts[-1], 6))
    unions = np.empty((nodes.shape[0], 6))
    for s in range(nodes.shape[0]):
        _leaf_boxes(first, count, prim_ids, verts, faces, nodes[s],
                    boxes[starts[s]:starts[s + 1]], unions[s])  # fmt: skip
    return boxes, unions


@njit(cache=True, nogil=True)
def _leaf_box_rows(leaf, first, count, prim_ids, verts, faces):
    """One tree's side of the box stage: its distinct leaves numbered (:func:`_leaf_slots`)
    and their triangles' boxes (:func:`_slot_boxes`).

    Returns
    -------
    slot_of, starts, boxes, unions, most
        As those two functions return them.
    """
    slot_of, nodes, starts, most = _leaf_slots(leaf, count, count.shape[0])
    boxes, unions = _slot_boxes(nodes, starts, first, count, prim_ids, verts, faces)
    return slot_of, starts, boxes, unions, most


@njit(cache=True, nogil=True)
def _screen_leaf_pairs(lo, hi, leaf_a, leaf_b, first_a, count_a, prim_ids_a, first_b, count_b,
                       prim_ids_b, slot_a, starts_a, boxes_a, unions_a, most_a, slot_b,
                       starts_b, boxes_b, unions_b, most_b, pairs, k):  # fmt: skip
    """Write the meeting triangle pairs of leaf pairs ``lo`` to ``hi - 1`` from row ``k`` of
    ``pairs`` on; return the row after the last one kept.

    Per leaf pair: the triangles of each leaf whose box meets the other leaf's union of
    triangle boxes, then those against each other. The boxes are computed once a leaf
    (:func:`_slot_boxes`): on the W3 100k frame 6,627 leaf pairs use 1,361 leaves of A and
    1,343 of B. A pair is written before the test decides whether it stays, so row
    ``k + kept`` is written too.
    """
    near_a = np.empty(most_a, dtype=np.int64)
    near_b = np.empty(most_b, dtype=np.int64)
    for i in range(lo, hi):
        a = leaf_a[i]
        b = leaf_b[i]
        sa = slot_a[a]
        sb = slot_b[b]
        rows_a = boxes_a[starts_a[sa]:starts_a[sa + 1]]
        rows_b = boxes_b[starts_b[sb]:starts_b[sb + 1]]
        n_near_a = 0
        for p in range(count_a[a]):
            near_a[n_near_a] = p
            n_near_a += _boxes_meet(rows_a, p, unions_b, sb)
        if n_near_a == 0:
            continue
        n_near_b = 0
        for q in range(count_b[b]):
            near_b[n_near_b] = q
            n_near_b += _boxes_meet(rows_b, q, unions_a, sa)
        for ii in range(n_near_a):
            p = near_a[ii]
            face_a = prim_ids_a[first_a[a] + p]
            for jj in range(n_near_b):
                q = near_b[jj]
                pairs[k, 0] = face_a
                pairs[k, 1] = prim_ids_b[first_b[b] + q]
                k += _boxes_meet(rows_a, p, rows_b, q)
    return k


@njit(cache=True, nogil=True)
def _candidate_starts(leaf_a, leaf_b, count_a, count_b):
    """``(p + 1,) int64``: where each leaf pair's candidates start in the full listing."""
    starts = np.empty(leaf_a.shape[0] + 1, dtype=np.int64)
    starts[0] = 0
    for i in range(leaf_a.shape[0]):
        starts[i + 1] = starts[i] + count_a[leaf_a[i]] * count_b[leaf_b[i]]
    return starts


@njit(cache=True, nogil=True)
def _overlapping_triangle_pairs(leaf_a, leaf_b, first_a, count_a, prim_ids_a, first_b, count_b,
                                prim_ids_b, va, fa, vb, fb):  # fmt: skip
    """The kernel of :func:`overlapping_triangle_pairs` on this thread (inputs read-only)."""
    total = _candidate_starts(leaf_a, leaf_b, count_a, count_b)[-1]
    pairs = np.empty((total + 1, 2), dtype=np.int32)
    slot_a, starts_a, boxes_a, unions_a, most_a = _leaf_box_rows(leaf_a, first_a, count_a,
                                                                 prim_ids_a, va, fa)
    slot_b, starts_b, boxes_b, unions_b, most_b = _leaf_box_rows(leaf_b, first_b, count_b,
                                                                 prim_ids_b, vb, fb)
    k = _screen_leaf_pairs(0, leaf_a.shape[0], leaf_a, leaf_b, first_a, count_a, prim_ids_a,
                           first_b, count_b, prim_ids_b, slot_a, starts_a, boxes_a, unions_a,
                           most_a, slot_b, starts_b, boxes_b, unions_b, most_b, pairs,
                           0)  # fmt: skip
    return pairs[:k], total


@njit(cache=True, nogil=True, parallel=True)
def _overlapping_triangle_pairs_parallel(leaf_a, leaf_b, first_a, count_a, prim_ids_a, first_b,
                                         count_b, prim_ids_b, va, fa, vb, fb, n_runs):  # fmt: skip
    """:func:`_overlapping_triangle_pairs` with the leaf pairs in ``n_runs`` runs (one per
    thread), each writing inside its own candidates' rows (plus one spare row each), then
    packed in order: the same pairs in the same order. (``n_runs`` comes from the caller:
    ``numba.get_num_threads()`` inside a kernel keeps it out of the on-disk cache.)"""
    n = leaf_a.shape[0]
    starts = _candidate_starts(leaf_a, leaf_b, count_a, count_b)
    pairs = np.empty((starts[n] + n_runs, 2), dtype=np.int32)
    kept = np.zeros(n_runs, dtype=np.int64)
    slot_a, starts_a, boxes_a, unions_a, most_a = _leaf_box_rows(leaf_a, first_a, count_a,
                                                                 prim_ids_a, va, fa)
    slot_b, starts_b, boxes_b, unions_b, most_b = _leaf_box_rows(leaf_b, first_b, count_b,
                                                                 prim_ids_b, vb, fb)
    for r in prange(n_runs):
        lo = r * n // n_runs
        hi = (r + 1) * n // n_runs
        row = starts[lo] + r
        kept[r] = _screen_leaf_pairs(lo, hi, leaf_a, leaf_b, first_a, count_a, prim_ids_a,
                                     first_b, count_b, prim_ids_b, slot_a, starts_a, boxes_a,
                                     unions_a, most_a, slot_b, starts_b, boxes_b, unions_b,
                                     most_b, pairs, row) - row  # fmt: skip
    out = np.empty((kept.sum(), 2), dtype=np.int32)
    k = 0
    for r in range(n_runs):
        row = starts[r * n // n_runs] + r
        out[k:k + kept[r]] = pairs[row:row + kept[r]]
        k += kept[r]
    return out, starts[n]


@njit(cache=True, nogil=True, parallel=True)
def transform_points(points, rot, trans):
    """``points @ rot.T + trans`` without temporaries, ``(n, 3) float64``."""
    out = np.empty_like(points)
    for i in prange(points.shape[0]):
        x, y, z = points[i, 0], points[i, 1], points[i, 2]
        for k in range(3):
            out[i, k] = rot[k, 0] * x + rot[k, 1] * y + rot[k, 2] * z + trans[k]
    return out
