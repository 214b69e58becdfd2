"""The one breadth-first traversal: two trees in tandem, any bounding-volume kind, or one tree
against itself.

Starting from a frontier of node pairs (the pair of roots for a whole query), every
overlapping pair is replaced by the pairs of its children until both nodes are leaves (van den
Bergen 1997, section 5). Walking the pairs one level at a time gives the trace for free: a
level's frontier *is* the list of pairs tested at that level, so "trace" mode only keeps the
frontiers that "fast" mode drops. Each level is classified (volume test and descend action),
counted and scattered, in parallel (``prange``) when it is large.

What is tested is chosen by an integer ``code``, once per level:

* :data:`TREE_BOXES` -- the tree's own boxes ``bmin, bmax`` (of :class:`core.bvh.Tree`),
  read in place, with the six face axes of the two boxes ("SAT lite", van den Bergen 1997,
  section 5.1): it may report a few overlaps the full 15-axis test would cull, never misses
  one. ``vol_a, vol_b`` are not read.
* a :attr:`core.bv.BVKind.code` -- that kind's ``overlap`` on its ``(k, w)`` volume rows
  ``vol_a, vol_b`` (:func:`core.bv.registry.overlap_by_code`); ``bmin, bmax`` are not read.

The code is an argument rather than a compiled test function because numba's disk cache does
not reuse a kernel that takes a dispatcher (see :mod:`core.bv.registry`): one kernel, compiled
and cached once for every kind.

Self-collision (``is_self``) walks one tree from ``(root, root)``: a pair of a node with itself
is never volume-tested (a volume always overlaps itself); it becomes the leaf against itself, or
the three pairs ``(l, l), (l, r), (r, r)`` of its children. A pair of two different nodes is a
pair of disjoint subtrees and is handled as in the tandem traversal.

B's volumes are tested in A's frame under the relative pose ``x_A = R x_B + T``.
"""

from __future__ import annotations

import collections

import numpy as np
from numba import njit, prange

from core.bv import obb
from core.bv._geom import is_identity_rotation
from core.bv.registry import BV_KINDS, overlap_by_code, volume_by_code
from core.collide.budget import (
    BASE_LEVEL,
    NO_BUDGET,
    STATUS,
    STATUS_DONE,
    over_budget,
    start_array,
)
from core.jit.kernel_args import frozen, frozen_args

ACTION_CULL = 0
ACTION_LEAVES = 1
ACTION_SPLIT_A = 2
ACTION_SPLIT_B = 3
ACTION_SPLIT_BOTH = 4
ACTION_SPLIT_SELF = 5  # self-traversal: (n, n) -> (l, l), (l, r), (r, r)
#: What :func:`descend_action` answers when the rule compares the two volumes.
ACTION_BY_VOLUME = -1

#: ``code`` of the tree's own axis-aligned boxes (``bmin, bmax``), tested with SAT lite.
TREE_BOXES = -1
#: :attr:`BVKind.code` of the OBB, called without the dispatch chain (see ``_classify_rows_py``).
OBB_CODE = BV_KINDS["obb"].code

#: Frontiers smaller than this are processed on one thread: a parallel launch costs about
#: 20 microseconds, the work ~10 ns a pair.
PARALLEL_MIN_PAIRS = 8192

#: What every traversal returns (built in nopython code, a plain namedtuple in Python).
#:
#: leaf_a, leaf_b : (p,) int32
#:     Overlapping leaf pairs (a self-traversal has ``leaf_a == leaf_b`` for a leaf against
#:     itself).
#: counts : (3,) int64
#:     Volume tests, volume overlaps (self pairs count as overlapping, not as tests), leaf
#:     pairs.
#: level_start : (L + 1,) int64
#: trace_a, trace_b : (N,) int32
#: trace_sep : (N,) int8
#:     -1 or the id of the test that separated the pair (the kind's own numbering).
#: level_leaves : (L,) int64
#:     (The trace fields are empty, ``level_start == [0]``, unless recording.)
#: rest_a, rest_b : (r,) int32
#:     The untested frontier where ``stop_at`` stopped the walk (empty otherwise).
TraversalRecord = collections.namedtuple(
    "TraversalRecord",
    ["leaf_a", "leaf_b", "counts", "level_start", "trace_a", "trace_b", "trace_sep",
     "level_leaves", "rest_a", "rest_b"],
)  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def descend_action(is_leaf_a, is_leaf_b, rule):
    """What to do with an overlapping pair: ``ACTION_*``, or :data:`ACTION_BY_VOLUME` when
    the :class:`~core.collide.tandem.DescendRule` ``rule`` asks the caller to compare the
    two volumes (the caller computes them only then)."""
    if is_leaf_a and is_leaf_b:
        return ACTION_LEAVES
    if is_leaf_a:
        return ACTION_SPLIT_B
    if is_leaf_b:
        return ACTION_SPLIT_A
    if rule == 1:
        return ACTION_SPLIT_BOTH
    if rule == 2:
        return ACTION_SPLIT_A
    return ACTION_BY_VOLUME


# This SAT-lite test is not the row test ``core.bv.aabb.overlap`` (kind "aabb"), though both
# test the same six face axes: that one grows A's box by the margin and adds ``ROUND`` to
# ``|R|`` (as the 15-axis test does), so on B's axes its margin is scaled by a column sum of
# ``|R|``; this one adds the margin once per axis and, without rotation, tests three intervals.
# Written as one helper, one of the two would cull different pairs near round-off, and the
# issue keeps results as they are; both walk the test scenes alike
# (test_aabb_kind_walks_exactly_like_the_tandem_traversal).
def _classify_boxes_py(fa, fb, count_a, bmin_a, bmax_a, count_b, bmin_b, bmax_b,
                       rot, trans, abs_rot, is_rotated, margin, rule, sep_out, action_out):
    """SAT-lite box test and descend action of every pair of a level.

    Parameters
    ----------
    fa, fb : (n,) int32
        Node pairs of the level.
    count_a, count_b : (k,) int32
    bmin_a, bmax_a, bmin_b, bmax_b : (k, 3) float64
    rot, trans, abs_rot : (3, 3), (3,), (3, 3) float64
        Pose of B in A's frame and ``|rot|``.
    is_rotated : bool
    margin : float
    rule : int
    sep_out : (n,) int8
        Written: -1 or the separating axis (0-2 A's, 3-5 B's).
    action_out : (n,) int8
        Written: what to do with the pair.
    """
    for i in prange(fa.shape[0]):
        a = fa[i]
        b = fb[i]
# Per axis, A's then B's centre and half-lengths written out: scalars in registers, no (3,)
# temporaries in the prange body (numba allocates a small array per pair for them).
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
        sep = -1
        if is_rotated:
            d0 = rot[0, 0] * cb0 + rot[0, 1] * cb1 + rot[0, 2] * cb2 + trans[0] - ca0
            d1 = rot[1, 0] * cb0 + rot[1, 1] * cb1 + rot[1, 2] * cb2 + trans[1] - ca1
            d2 = rot[2, 0] * cb0 + rot[2, 1] * cb1 + rot[2, 2] * cb2 + trans[2] - ca2
            # A's face axes: B's box projects to sum_j |R_ij| hB_j.
            rb0 = abs_rot[0, 0] * hb0 + abs_rot[0, 1] * hb1 + abs_rot[0, 2] * hb2
            rb1 = abs_rot[1, 0] * hb0 + abs_rot[1, 1] * hb1 + abs_rot[1, 2] * hb2
            rb2 = abs_rot[2, 0] * hb0 + abs_rot[2, 1] * hb1 + abs_rot[2, 2] * hb2
            if abs(d0) > ha0 + rb0 + margin:
                sep = 0
            elif abs(d1) > ha1 + rb1 + margin:
                sep = 1
            elif abs(d2) > ha2 + rb2 + margin:
                sep = 2
            # B's face axes: the columns of R.
            elif (abs(rot[0, 0] * d0 + rot[1, 0] * d1 + rot[2, 0] * d2)
                  > hb0 + abs_rot[0, 0] * ha0 + abs_rot[1, 0] * ha1 + abs_rot[2, 0] * ha2 + margin):
                sep = 3
            elif (abs(rot[0, 1] * d0 + rot[1, 1] * d1 + rot[2, 1] * d2)
                  > hb1 + abs_rot[0, 1] * ha0 + abs_rot[1, 1] * ha1 + abs_rot[2, 1] * ha2 + margin):
                sep = 4
            elif (abs(rot[0, 2] * d0 + rot[1, 2] * d1 + rot[2, 2] * d2)
                  > hb2 + abs_rot[0, 2] * ha0 + abs_rot[1, 2] * ha1 + abs_rot[2, 2] * ha2 + margin):
                sep = 5
        else:
            # Pure translation: the boxes stay axis aligned and the test is three intervals.
            if abs(cb0 + trans[0] - ca0) > ha0 + hb0 + margin:
                sep = 0
            elif abs(cb1 + trans[1] - ca1) > ha1 + hb1 + margin:
                sep = 1
            elif abs(cb2 + trans[2] - ca2) > ha2 + hb2 + margin:
                sep = 2
        sep_out[i] = sep
        if sep >= 0:
            action_out[i] = ACTION_CULL
            continue
        act = descend_action(count_a[a] > 0, count_b[b] > 0, rule)
        if act == ACTION_BY_VOLUME:
            vol_a = ha0 * ha1 * ha2
            vol_b = hb0 * hb1 * hb2
            if vol_a > vol_b or (vol_a == vol_b and ha0 + ha1 + ha2 >= hb0 + hb1 + hb2):
                act = ACTION_SPLIT_A
            else:
                act = ACTION_SPLIT_B
        action_out[i] = act


def _classify_rows_py(code, fa, fb, count_a, vol_a, count_b, vol_b, rot, trans, margin, rule,
                      sep_out, action_out):  # fmt: skip
    """The test of kind ``code`` and the descend action of every pair of a level.

    Parameters
    ----------
    code : int
        :attr:`core.bv.BVKind.code`.
    fa, fb : (n,) int32
    count_a, count_b : (k,) int32
    vol_a, vol_b : (k, w) float64
        Volume rows of the kind, B's in B's coordinates.
    rot, trans : (3, 3), (3,) float64
    margin : float
    rule : int
    sep_out, action_out : (n,) int8
        Written, as in :func:`_classify_boxes_py` (``sep`` in the kind's numbering).
    """
    for i in prange(fa.shape[0]):
        a = fa[i]
        b = fb[i]
        # The OBB test is called directly: through the dispatch chain it cost 115 instead of
        # 68 ns a pair (measured, serial), the call not being inlined.
        if code == OBB_CODE:
            sep = obb.overlap_at(vol_a, a, vol_b, b, rot, trans, margin)
        else:
            sep = overlap_by_code(code, vol_a, a, vol_b, b, rot, trans, margin)
        sep_out[i] = sep
        if sep >= 0:
            action_out[i] = ACTION_CULL
            continue
        act = descend_action(count_a[a] > 0, count_b[b] > 0, rule)
        if act == ACTION_BY_VOLUME:
            if code == OBB_CODE:
                is_a_larger = obb.half_volume(vol_a, a) >= obb.half_volume(vol_b, b)
            else:
                is_a_larger = volume_by_code(code, vol_a, a) >= volume_by_code(code, vol_b, b)
            act = ACTION_SPLIT_A if is_a_larger else ACTION_SPLIT_B
        action_out[i] = act


def _scatter_py(fa, fb, action, child_offset, leaf_offset, first_a, first_b,
                next_a, next_b, leaf_a, leaf_b):
    """Write each pair's children pairs (or its leaf pair) at the offsets of
    :func:`level_offsets`."""
    for i in prange(fa.shape[0]):
        act = action[i]
        a = fa[i]
        b = fb[i]
        o = child_offset[i]
        if act == ACTION_LEAVES:
            leaf_a[leaf_offset[i]] = a
            leaf_b[leaf_offset[i]] = b
        elif act == ACTION_SPLIT_A:
            c = first_a[a]
            next_a[o] = c
            next_b[o] = b
            next_a[o + 1] = c + 1
            next_b[o + 1] = b
        elif act == ACTION_SPLIT_B:
            c = first_b[b]
            next_a[o] = a
            next_b[o] = c
            next_a[o + 1] = a
            next_b[o + 1] = c + 1
        elif act == ACTION_SPLIT_BOTH:
            ca = first_a[a]
            cb = first_b[b]
            for u in range(2):
                for v in range(2):
                    next_a[o + 2 * u + v] = ca + u
                    next_b[o + 2 * u + v] = cb + v
        elif act == ACTION_SPLIT_SELF:
            c = first_a[a]
            next_a[o], next_b[o] = c, c
            next_a[o + 1], next_b[o + 1] = c, c + 1
            next_a[o + 2], next_b[o + 2] = c + 1, c + 1


# The serial variants are not cached on disk: numba's cache is keyed by the Python function, so
# a second cached jit of the same function loaded the parallel machine code for the serial
# variant too, and every small level paid a thread launch (a 621-test query took 0.23 ms with
# two threads against 0.04 ms with one). Their caller is cached and carries their code.
# Splitting the box test into an inlined per-pair helper instead measured 1.6x slower.
_classify_boxes_serial = njit(nogil=True)(_classify_boxes_py)
_classify_boxes_parallel = njit(cache=True, nogil=True, parallel=True)(_classify_boxes_py)
_classify_rows_serial = njit(nogil=True)(_classify_rows_py)
_classify_rows_parallel = njit(cache=True, nogil=True, parallel=True)(_classify_rows_py)
_scatter_serial = njit(nogil=True)(_scatter_py)
_scatter_parallel = njit(cache=True, nogil=True, parallel=True)(_scatter_py)


@njit(cache=True, nogil=True)
def grow(buffer, needed):
    """``buffer`` itself if it holds ``needed`` items, else a copy at least twice as long."""
    if needed <= buffer.shape[0]:
        return buffer
    out = np.empty(max(needed, 2 * buffer.shape[0]), dtype=buffer.dtype)
    out[: buffer.shape[0]] = buffer
    return out


@njit(cache=True, nogil=True)
def level_offsets(action, n_leaf):
    """Where each pair of a level writes its children and its leaf pair.

    Parameters
    ----------
    action : (n,) int8
        ``ACTION_*`` of each pair (``ACTION_SPLIT_SELF`` gives three children pairs).
    n_leaf : int
        Leaf pairs found before this level.

    Returns
    -------
    child_offset, leaf_offset : (n,) int64
        Exclusive prefix sums (``leaf_offset`` starts at ``n_leaf``).
    n_child, n_new_leaf, n_overlap : int
        Pairs of the next level, leaf pairs and overlapping pairs of this level.
    """
    n = action.shape[0]
    child_offset = np.empty(n, dtype=np.int64)
    leaf_offset = np.empty(n, dtype=np.int64)
    n_child = 0
    n_new_leaf = 0
    n_overlap = 0
    for i in range(n):
        act = action[i]
        child_offset[i] = n_child
        leaf_offset[i] = n_leaf + n_new_leaf
        if act == ACTION_LEAVES:
            n_new_leaf += 1
        elif act == ACTION_SPLIT_BOTH:
            n_child += 4
        elif act == ACTION_SPLIT_SELF:
            n_child += 3
        elif act != ACTION_CULL:
            n_child += 2
        if act != ACTION_CULL:
            n_overlap += 1
    return child_offset, leaf_offset, n_child, n_new_leaf, n_overlap


@njit(cache=True, nogil=True)
def settle_self_pairs(fa, fb, count, sep, action):
    """Overwrite the verdict of every pair of a node with itself; returns how many there were.

    Such a pair always "overlaps" and is not a volume test: it becomes the leaf against itself,
    or the three pairs of its children.
    """
    n_self = 0
    for i in range(fa.shape[0]):
        if fa[i] == fb[i]:
            sep[i] = -1
            action[i] = ACTION_LEAVES if count[fa[i]] > 0 else ACTION_SPLIT_SELF
            n_self += 1
    return n_self


@njit(cache=True, nogil=True)
def record_level(level_start, level_leaves, trace_a, trace_b, trace_sep, n_levels, fa, fb, sep,
                 n_new_leaf):
    """Append one level to the trace buffers (growing them); returns the five buffers."""
    n = fa.shape[0]
    level_start = grow(level_start, n_levels + 2)
    level_leaves = grow(level_leaves, n_levels + 1)
    start = level_start[n_levels]
    trace_a = grow(trace_a, start + n)
    trace_b = grow(trace_b, start + n)
    trace_sep = grow(trace_sep, start + n)
    trace_a[start : start + n] = fa
    trace_b[start : start + n] = fb
    trace_sep[start : start + n] = sep
    level_start[n_levels + 1] = start + n
    level_leaves[n_levels] = n_new_leaf
    return level_start, level_leaves, trace_a, trace_b, trace_sep


@njit(cache=True, nogil=True)
def traverse_levels(code, first_a, count_a, bmin_a, bmax_a, vol_a,
                    first_b, count_b, bmin_b, bmax_b, vol_b,
                    rot, trans, margin, rule, is_self, record, parallel_min,
                    start_a, start_b, stop_at, budget, control, slot):  # fmt: skip
    """Breadth-first traversal from a frontier of node pairs, level by level.

    Parameters
    ----------
    code : int
        :data:`TREE_BOXES` (test ``bmin, bmax``) or a :attr:`core.bv.BVKind.code` (test
        ``vol`` rows with that kind's ``overlap``).
    first_a, count_a : (ka,) int32
    bmin_a, bmax_a : (ka, 3) float64
    vol_a : (ka, w) float64
    first_b, count_b : (kb,) int32
    bmin_b, bmax_b : (kb, 3) float64
    vol_b : (kb, w) float64
        B's volumes in B's own coordinates. Only the arrays ``code`` names are read: pass any
        array of the same type for the others (e.g. ``vol = bmin``), never a copy.
    rot : (3, 3) float64
    trans : (3,) float64
        Pose of B in A's frame: ``x_A = rot @ x_B + trans`` (identity for ``is_self``).
    margin : float
        Distance by which volumes are grown in every test, so round-off never culls a pair
        whose triangles touch within the triangle test's tolerance.
    rule : int
        A :class:`~core.collide.tandem.DescendRule` value.
    is_self : bool
        A is B (the same tree): pairs ``(n, n)`` split into ``(l, l), (l, r), (r, r)``.
    record : bool
        Keep every level's pairs (trace mode).
    parallel_min : int
        Smallest frontier processed in parallel.
    start_a, start_b : (f,) int32
        The first level's pairs (the roots for a whole traversal).
    stop_at : int
        Return before testing a level of at least this many pairs (the caller then splits it
        between threads); levels are numbered from the start frontier.
    budget : int
        Most overlapping pairs of the whole query (all slots together).
    control : (CONTROL_SIZE,) int64
        Shared with the caller (:mod:`core.collide.budget`): after each level this walk's
        counts go to its ``slot``; it stops, leaving a status there, when the query's overlaps
        pass ``budget``, when cancelled, or when another slot stopped. It then stops before
        growing any buffer for the next level.
    slot : int
        0 for a walk from the roots; 1 or 2 for a half of a split frontier (its levels are
        numbered after ``control[BASE_LEVEL]``).

    Returns
    -------
    TraversalRecord
        Partial when ``control`` holds a status: the caller raises, never uses it.
    """
    abs_rot = np.abs(rot)
    is_rotated = not is_identity_rotation(rot)
    fa = start_a
    fb = start_b
    leaf_a = np.empty(1024, dtype=np.int32)
    leaf_b = np.empty(1024, dtype=np.int32)
    n_leaf = 0
    size = 1024 if record else 0
    level_start = np.zeros(256, dtype=np.int64)
    level_leaves = np.zeros(256, dtype=np.int64)
    trace_a = np.empty(size, dtype=np.int32)
    trace_b = np.empty(size, dtype=np.int32)
    trace_sep = np.empty(size, dtype=np.int8)
    n_levels = 0
    n_tests = 0
    n_overlaps = 0
    level0 = control[BASE_LEVEL] if slot > 0 else 0
    while fa.shape[0] > 0 and fa.shape[0] < stop_at:
        n = fa.shape[0]
        sep = np.empty(n, dtype=np.int8)
        action = np.empty(n, dtype=np.int8)
        parallel = n >= parallel_min
        # ``is_rotated`` is passed as a constant: numba then compiles the box test for that
        # literal value and drops the other branch from the pair loop. With the flag passed
        # as a variable, the self-traversal of a deformed 100k-triangle sphere took 43 ms
        # instead of 33 (one thread, medians of 15, measured).
        if code == TREE_BOXES:
            if parallel and is_rotated:
                _classify_boxes_parallel(fa, fb, count_a, bmin_a, bmax_a, count_b, bmin_b,
                                         bmax_b, rot, trans, abs_rot, True, margin, rule,
                                         sep, action)  # fmt: skip
            elif parallel:
                _classify_boxes_parallel(fa, fb, count_a, bmin_a, bmax_a, count_b, bmin_b,
                                         bmax_b, rot, trans, abs_rot, False, margin, rule,
                                         sep, action)  # fmt: skip
            elif is_rotated:
                _classify_boxes_serial(fa, fb, count_a, bmin_a, bmax_a, count_b, bmin_b, bmax_b,
                                       rot, trans, abs_rot, True, margin, rule, sep,
                                       action)  # fmt: skip
            else:
                _classify_boxes_serial(fa, fb, count_a, bmin_a, bmax_a, count_b, bmin_b, bmax_b,
                                       rot, trans, abs_rot, False, margin, rule, sep,
                                       action)  # fmt: skip
        elif parallel:
            _classify_rows_parallel(code, fa, fb, count_a, vol_a, count_b, vol_b, rot, trans,
                                    margin, rule, sep, action)  # fmt: skip
        else:
            _classify_rows_serial(code, fa, fb, count_a, vol_a, count_b, vol_b, rot, trans,
                                  margin, rule, sep, action)  # fmt: skip
        n_self = settle_self_pairs(fa, fb, count_a, sep, action) if is_self else 0
        n_tests += n - n_self
        child_offset, leaf_offset, n_child, n_new_leaf, n_overlap = level_offsets(action, n_leaf)
        n_overlaps += n_overlap
        # Checked before the next level and the leaf and trace buffers are grown.
        if over_budget(control, slot, n_tests, n_overlaps, budget, level0 + n_levels):
            break
        leaf_a = grow(leaf_a, n_leaf + n_new_leaf)
        leaf_b = grow(leaf_b, n_leaf + n_new_leaf)
        next_a = np.empty(n_child, dtype=np.int32)
        next_b = np.empty(n_child, dtype=np.int32)
        if parallel:
            _scatter_parallel(fa, fb, action, child_offset, leaf_offset, first_a, first_b,
                              next_a, next_b, leaf_a, leaf_b)  # fmt: skip
        else:
            _scatter_serial(fa, fb, action, child_offset, leaf_offset, first_a, first_b,
                            next_a, next_b, leaf_a, leaf_b)  # fmt: skip
        n_leaf += n_new_leaf
        if record:
            level_start, level_leaves, trace_a, trace_b, trace_sep = record_level(
                level_start, level_leaves, trace_a, trace_b, trace_sep, n_levels, fa, fb, sep,
                n_new_leaf)
        n_levels += 1
        fa = next_a
        fb = next_b
    if slot == 0:
        control[BASE_LEVEL] = n_levels
    counts = np.array([n_tests, n_overlaps, n_leaf], dtype=np.int64)
    # A stopped walk is never used (its caller raises): no copy of its trace at the peak.
    if not record or control[STATUS] != STATUS_DONE:
        return TraversalRecord(leaf_a[:n_leaf], leaf_b[:n_leaf], counts,
                               np.zeros(1, dtype=np.int64), trace_a[:0], trace_b[:0],
                               trace_sep[:0], level_leaves[:0], fa, fb)  # fmt: skip
    total = level_start[n_levels]
    return TraversalRecord(leaf_a[:n_leaf], leaf_b[:n_leaf], counts,
                           level_start[: n_levels + 1].copy(), trace_a[:total].copy(),
                           trace_b[:total].copy(), trace_sep[:total].copy(),
                           level_leaves[:n_levels].copy(), fa, fb)  # fmt: skip


def traverse_from_roots(*args, parallel_min: int = PARALLEL_MIN_PAIRS,
                        budget: int = NO_BUDGET,
                        control_array=None) -> TraversalRecord:  # fmt: skip
    """The whole traversal from the pair of roots, on this thread (no hand-off).

    ``args`` are :func:`traverse_levels`' from ``code`` to ``record``. ``control_array`` is
    :func:`core.collide.budget.start_array`'s (None: a fresh one); the caller reads the status
    the walk left there (the record is partial when the budget or a cancel stopped it).
    """
    roots = frozen(np.zeros(1, dtype=np.int32))
    array = start_array(None) if control_array is None else control_array
    # Read-only inputs: one compiled signature whatever the caller's arrays (core.jit.kernel_args).
    return traverse_levels(*frozen_args(args), parallel_min, roots, roots, np.iinfo(np.int64).max,
                           np.int64(budget), array, 0)  # fmt: skip
