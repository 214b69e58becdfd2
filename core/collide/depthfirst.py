"""The fast mode's walk: the tandem traversal depth first, with a stack, recording nothing.

It tests the same node pairs as :func:`core.collide.traversal.traverse_levels` (every pair
is tested, culled or descended by the same rule, whatever the order) and finds the same
overlapping leaf pairs with the same three counters, in another order (a query sorts its
contacts). What it saves is the level loop's bookkeeping: each level allocates its arrays and
makes three passes over its pairs (test, prefix sums, scatter), and the midpoint trees of the
benchmark spheres are deep (89 levels at 100k triangles). Measured on W1 at 100k, one
thread, CPU time of the walk, medians of 9: the trees' boxes (148,197 tests) 4.8-5.4 ms in
the level loop against 3.9-4.0 ms here; OBB rows (29,107 tests) 3.5-4.0 against 3.2-3.4 ms.
The stack (last in, first out, as the recursive traversals of RAPID and fcl) keeps the pairs
it works on near each other in the node arrays.

The trace mode keeps the level loop: the trace *is* its frontiers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.bv import obb
from core.bv._geom import is_identity_rotation
from core.bv.registry import overlap_by_code, volume_by_code
from core.collide.budget import CHECK_EVERY, over_budget
from core.collide.traversal import (
    ACTION_BY_VOLUME,
    ACTION_LEAVES,
    ACTION_SPLIT_A,
    ACTION_SPLIT_B,
    OBB_CODE,
    TREE_BOXES,
    TraversalRecord,
    descend_action,
    grow,
)


@njit(cache=True, nogil=True, inline="always")
def _push_children(act, a, b, first_a, first_b, stack_a, stack_b, top):
    """Push the children pairs of an overlapping pair (right first, so the left one is walked
    first); returns the new top. The stacks hold at least ``top + 4`` items."""
    if act == ACTION_SPLIT_A:
        c = first_a[a]
        stack_a[top], stack_b[top] = c + 1, b
        stack_a[top + 1], stack_b[top + 1] = c, b
        return top + 2
    if act == ACTION_SPLIT_B:
        c = first_b[b]
        stack_a[top], stack_b[top] = a, c + 1
        stack_a[top + 1], stack_b[top + 1] = a, c
        return top + 2
    ca = first_a[a]
    cb = first_b[b]
    stack_a[top], stack_b[top] = ca + 1, cb + 1
    stack_a[top + 1], stack_b[top + 1] = ca + 1, cb
    stack_a[top + 2], stack_b[top + 2] = ca, cb + 1
    stack_a[top + 3], stack_b[top + 3] = ca, cb
    return top + 4


@njit(cache=True, nogil=True)
def _start_stack(start_a, start_b):
    """The stacks with the start frontier pushed in reverse (its first pair is walked first)."""
    n_start = start_a.shape[0]
    stack_a = np.empty(n_start + 4096, dtype=np.int32)
    stack_b = np.empty(n_start + 4096, dtype=np.int32)
    for i in range(n_start):
        stack_a[i] = start_a[n_start - 1 - i]
        stack_b[i] = start_b[n_start - 1 - i]
    return stack_a, stack_b, n_start


@njit(cache=True, nogil=True)
def _record(leaf_a, leaf_b, n_leaf, n_tests, n_overlaps):
    counts = np.array([n_tests, n_overlaps, n_leaf], dtype=np.int64)
    empty_i32 = np.empty(0, dtype=np.int32)
    return TraversalRecord(leaf_a[:n_leaf].copy(), leaf_b[:n_leaf].copy(), counts,
                           np.zeros(1, dtype=np.int64), empty_i32, empty_i32,
                           np.empty(0, dtype=np.int8), np.empty(0, dtype=np.int64),
                           empty_i32, empty_i32)  # fmt: skip


@njit(cache=True, nogil=True)
def _boxes_until_full(first_a, count_a, bmin_a, bmax_a, first_b, count_b, bmin_b, bmax_b, rot,
                      trans, abs_rot, is_rotated, margin, rule, stack_a, stack_b, leaf_a, leaf_b,
                      state, overlap_room):  # fmt: skip
    """Walk on the trees' own boxes (SAT lite, the arithmetic of the level loop's
    ``_classify_boxes_py``) until the stack is empty or a buffer could overflow.

    ``state`` is ``[top, n_leaf, n_tests, n_overlaps]`` (int64), read and written. The
    buffers are never reallocated in here: a loop that may replace its arrays took half as
    long again (numba reloads and reference-counts them), so the caller grows them between
    calls. It also returns once ``n_overlaps`` reaches ``overlap_room``, so the caller looks
    at the budget and the cancel flag every :data:`~core.collide.budget.CHECK_EVERY`
    overlaps.
    """
    top, n_leaf, n_tests, n_overlaps = state[0], state[1], state[2], state[3]
    stack_room = stack_a.shape[0] - 4
    leaf_room = leaf_a.shape[0]
    while top > 0 and top <= stack_room and n_leaf < leaf_room and n_overlaps < overlap_room:
        top -= 1
        a = stack_a[top]
        b = stack_b[top]
        n_tests += 1
# The level loop's SAT-lite arithmetic (core.collide.traversal._classify_boxes_py) written
# out again, not called: the depth-first walk must cull exactly the pairs the level loop culls,
# and a per-pair helper for this test measured 1.6x slower in the level loop (see there).
        ca0 = 0.5 * (bmin_a[a, 0] + bmax_a[a, 0])
        ca1 = 0.5 * (bmin_a[a, 1] + bmax_a[a, 1])
        ca2 = 0.5 * (bmin_a[a, 2] + bmax_a[a, 2])
        ha0 = 0.5 * (bmax_a[a, 0] - bmin_a[a, 0])
        ha1 = 0.5 * (bmax_a[a, 1] - bmin_a[a, 1])
        ha2 = 0.5 * (bmax_a[a, 2] - bmin_a[a, 2])
        cb0 = 0.5 * (bmin_b[b, 0] + bmax_b[b, 0])
        cb1 = 0.5 * (bmin_b[b, 1] + bmax_b[b, 1])
        cb2 = 0.5 * (bmin_b[b, 2] + bmax_b[b, 2])
        hb0 = 0.5 * (bmax_b[b, 0] - bmin_b[b, 0])
        hb1 = 0.5 * (bmax_b[b, 1] - bmin_b[b, 1])
        hb2 = 0.5 * (bmax_b[b, 2] - bmin_b[b, 2])
        if is_rotated:
            d0 = rot[0, 0] * cb0 + rot[0, 1] * cb1 + rot[0, 2] * cb2 + trans[0] - ca0
            d1 = rot[1, 0] * cb0 + rot[1, 1] * cb1 + rot[1, 2] * cb2 + trans[1] - ca1
            d2 = rot[2, 0] * cb0 + rot[2, 1] * cb1 + rot[2, 2] * cb2 + trans[2] - ca2
            rb0 = abs_rot[0, 0] * hb0 + abs_rot[0, 1] * hb1 + abs_rot[0, 2] * hb2
            rb1 = abs_rot[1, 0] * hb0 + abs_rot[1, 1] * hb1 + abs_rot[1, 2] * hb2
            rb2 = abs_rot[2, 0] * hb0 + abs_rot[2, 1] * hb1 + abs_rot[2, 2] * hb2
            if abs(d0) > ha0 + rb0 + margin:
                continue
            if abs(d1) > ha1 + rb1 + margin:
                continue
            if abs(d2) > ha2 + rb2 + margin:
                continue
            if (abs(rot[0, 0] * d0 + rot[1, 0] * d1 + rot[2, 0] * d2)
                    > hb0 + abs_rot[0, 0] * ha0 + abs_rot[1, 0] * ha1 + abs_rot[2, 0] * ha2
                    + margin):
                continue
            if (abs(rot[0, 1] * d0 + rot[1, 1] * d1 + rot[2, 1] * d2)
                    > hb1 + abs_rot[0, 1] * ha0 + abs_rot[1, 1] * ha1 + abs_rot[2, 1] * ha2
                    + margin):
                continue
            if (abs(rot[0, 2] * d0 + rot[1, 2] * d1 + rot[2, 2] * d2)
                    > hb2 + abs_rot[0, 2] * ha0 + abs_rot[1, 2] * ha1 + abs_rot[2, 2] * ha2
                    + margin):
                continue
        else:
            if abs(cb0 + trans[0] - ca0) > ha0 + hb0 + margin:
                continue
            if abs(cb1 + trans[1] - ca1) > ha1 + hb1 + margin:
                continue
            if abs(cb2 + trans[2] - ca2) > ha2 + hb2 + margin:
                continue
        n_overlaps += 1
        act = descend_action(count_a[a] > 0, count_b[b] > 0, rule)
        if act == ACTION_BY_VOLUME:
            vol_a = ha0 * ha1 * ha2
            vol_b = hb0 * hb1 * hb2
            is_a_larger = vol_a > vol_b or (vol_a == vol_b and ha0 + ha1 + ha2 >= hb0 + hb1 + hb2)
            act = ACTION_SPLIT_A if is_a_larger else ACTION_SPLIT_B
        if act == ACTION_LEAVES:
            leaf_a[n_leaf] = a
            leaf_b[n_leaf] = b
            n_leaf += 1
            continue
        top = _push_children(act, a, b, first_a, first_b, stack_a, stack_b, top)
    state[0], state[1], state[2], state[3] = top, n_leaf, n_tests, n_overlaps


@njit(cache=True, nogil=True)
def _rows_until_full(code, first_a, count_a, vol_a, first_b, count_b, vol_b, rot, trans,
                     is_rotated, margin, rule, stack_a, stack_b, leaf_a, leaf_b, state,
                     overlap_room):  # fmt: skip
    """Walk on a kind's volume rows until the stack is empty or a buffer could overflow;
    as :func:`_boxes_until_full`."""
    top, n_leaf, n_tests, n_overlaps = state[0], state[1], state[2], state[3]
    stack_room = stack_a.shape[0] - 4
    leaf_room = leaf_a.shape[0]
    while top > 0 and top <= stack_room and n_leaf < leaf_room and n_overlaps < overlap_room:
        top -= 1
        a = stack_a[top]
        b = stack_b[top]
        n_tests += 1
# The stack walk of _boxes_until_full with the row test in place of the trees' own boxes:
# two kernels, not one taking the test as an argument, so the box walk (the one the
# benchmarks time) keeps its scalar box arithmetic and passes no kind code per pair.
        # The OBB test called directly, as in the level loop (the dispatch chain costs).
        if code == OBB_CODE and is_rotated:
            sep = obb.overlap_at(vol_a, a, vol_b, b, rot, trans, margin)
        elif code == OBB_CODE:
            sep = obb.overlap_at_unrotated(vol_a, a, vol_b, b, trans, margin)
        else:
            sep = overlap_by_code(code, vol_a, a, vol_b, b, rot, trans, margin)
        if sep >= 0:
            continue
        n_overlaps += 1
        act = descend_action(count_a[a] > 0, count_b[b] > 0, rule)
        if act == ACTION_BY_VOLUME:
            if code == OBB_CODE:
                is_a_larger = obb.half_volume(vol_a, a) >= obb.half_volume(vol_b, b)
            else:
                is_a_larger = volume_by_code(code, vol_a, a) >= volume_by_code(code, vol_b, b)
            act = ACTION_SPLIT_A if is_a_larger else ACTION_SPLIT_B
        if act == ACTION_LEAVES:
            leaf_a[n_leaf] = a
            leaf_b[n_leaf] = b
            n_leaf += 1
            continue
        top = _push_children(act, a, b, first_a, first_b, stack_a, stack_b, top)
    state[0], state[1], state[2], state[3] = top, n_leaf, n_tests, n_overlaps


@njit(cache=True, nogil=True)
def traverse_depth_first(code, first_a, count_a, bmin_a, bmax_a, vol_a,
                         first_b, count_b, bmin_b, bmax_b, vol_b,
                         rot, trans, margin, rule, start_a, start_b, budget, control,
                         slot):  # fmt: skip
    """Tandem traversal of two trees from a frontier of node pairs, depth first.

    Parameters
    ----------
    code, first_a, ..., rule
        As :func:`core.collide.traversal.traverse_levels` (two different trees: the self
        traversal keeps the level loop).
    start_a, start_b : (f,) int32
        The pairs to start from (the roots for a whole traversal).
    budget, control, slot
        As :func:`core.collide.traversal.traverse_levels`: the counts are published and the
        budget and cancel flag read every :data:`~core.collide.budget.CHECK_EVERY` overlaps
        and at the end (the stop level is -1: a depth-first walk has no levels).

    Returns
    -------
    TraversalRecord
        ``leaf_a, leaf_b`` and ``counts`` (volume tests, overlaps, leaf pairs); the trace
        fields and ``rest_a, rest_b`` empty. Partial when ``control`` holds a status.
    """
    abs_rot = np.abs(rot)
    is_rotated = not is_identity_rotation(rot)
    stack_a, stack_b, top = _start_stack(start_a, start_b)
    leaf_a = np.empty(1024, dtype=np.int32)
    leaf_b = np.empty(1024, dtype=np.int32)
    state = np.array([top, 0, 0, 0], dtype=np.int64)
    while state[0] > 0:
        if over_budget(control, slot, state[2], state[3], budget, -1):
            break
        if state[0] + 4 > stack_a.shape[0]:
            stack_a = grow(stack_a, state[0] + 4)
            stack_b = grow(stack_b, state[0] + 4)
        if state[1] == leaf_a.shape[0]:
            leaf_a = grow(leaf_a, state[1] + 1)
            leaf_b = grow(leaf_b, state[1] + 1)
        # One loop per test: with both tests in one loop the box walk took twice as long.
        if code == TREE_BOXES:
            _boxes_until_full(first_a, count_a, bmin_a, bmax_a, first_b, count_b, bmin_b, bmax_b,
                              rot, trans, abs_rot, is_rotated, margin, rule, stack_a, stack_b,
                              leaf_a, leaf_b, state, state[3] + CHECK_EVERY)  # fmt: skip
        else:
            _rows_until_full(code, first_a, count_a, vol_a, first_b, count_b, vol_b, rot,
                             trans, is_rotated, margin, rule, stack_a, stack_b, leaf_a, leaf_b,
                             state, state[3] + CHECK_EVERY)  # fmt: skip
    over_budget(control, slot, state[2], state[3], budget, -1)
    return _record(leaf_a, leaf_b, state[1], state[2], state[3])
