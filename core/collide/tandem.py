"""Tandem traversal of two AABB trees, level by level (breadth first).

Starting from the pair of roots, every overlapping pair of boxes is replaced by the pairs
of its children until both nodes are leaves (van den Bergen 1997, section 5). Walking the
pairs one level at a time gives the trace for free: a level's frontier *is* the list of
pairs tested at that level, so "trace" mode only keeps the frontiers that "fast" mode drops.
Each level is classified, counted and scattered in parallel (``prange``) when it is large.

B's boxes are tested in A's frame under the relative pose ``x_A = R x_B + T``: with only
the six face axes of the two boxes ("SAT lite", van den Bergen 1997, section 5.1), which
may report a few overlaps that the full 15-axis test would cull but never misses one.
"""

from __future__ import annotations

import enum

import numpy as np
from numba import njit, prange


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


ACTION_CULL = 0
ACTION_LEAVES = 1
ACTION_SPLIT_A = 2
ACTION_SPLIT_B = 3
ACTION_SPLIT_BOTH = 4
ACTION_SPLIT_SELF = 5  # self-traversal: (n, n) -> (l, l), (l, r), (r, r)

#: Frontiers smaller than this are processed on one thread: a parallel launch costs about
#: 20 microseconds, the work ~10 ns a pair.
PARALLEL_MIN_PAIRS = 8192


def _classify_py(fa, fb, count_a, bmin_a, bmax_a, count_b, bmin_b, bmax_b,
                 rot, trans, abs_rot, is_rotated, margin, rule, sep_out, action_out):
    """Box test and descend action of every pair of a level.

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
        Written: -1 or the separating axis.
    action_out : (n,) int8
        Written: what to do with the pair.
    """
    for i in prange(fa.shape[0]):
        a = fa[i]
        b = fb[i]
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
        leaf_a = count_a[a] > 0
        leaf_b = count_b[b] > 0
        if leaf_a and leaf_b:
            action_out[i] = ACTION_LEAVES
        elif leaf_a:
            action_out[i] = ACTION_SPLIT_B
        elif leaf_b:
            action_out[i] = ACTION_SPLIT_A
        elif rule == 1:
            action_out[i] = ACTION_SPLIT_BOTH
        elif rule == 2:
            action_out[i] = ACTION_SPLIT_A
        else:
            vol_a = ha0 * ha1 * ha2
            vol_b = hb0 * hb1 * hb2
            if vol_a > vol_b or (vol_a == vol_b and ha0 + ha1 + ha2 >= hb0 + hb1 + hb2):
                action_out[i] = ACTION_SPLIT_A
            else:
                action_out[i] = ACTION_SPLIT_B


def _scatter_py(fa, fb, action, child_offset, leaf_offset, first_a, first_b,
                next_a, next_b, leaf_a, leaf_b):
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


# The serial variants are not cached on disk: numba's cache is keyed by the Python function, so
# a second cached jit of the same function loaded the parallel machine code for the serial
# variant too, and every small level paid a thread launch (a 621-test query took 0.23 ms with
# two threads against 0.04 ms with one). Their callers are cached and carry their code.
# Splitting the body into an inlined per-pair helper instead measured 1.6x slower.
classify_serial = njit(nogil=True)(_classify_py)
classify_parallel = njit(cache=True, nogil=True, parallel=True)(_classify_py)
scatter_serial = njit(nogil=True)(_scatter_py)
scatter_parallel = njit(cache=True, nogil=True, parallel=True)(_scatter_py)


@njit(cache=True, nogil=True)
def grow(buffer, needed):
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
def new_trace_buffers(record):
    """Empty trace buffers: level_start, level_leaves, trace_a, trace_b, trace_sep."""
    size = 1024 if record else 0
    return (np.zeros(256, dtype=np.int64), np.zeros(256, dtype=np.int64),
            np.empty(size, dtype=np.int32), np.empty(size, dtype=np.int32),
            np.empty(size, dtype=np.int8))


@njit(cache=True, nogil=True)
def traversal_output(leaf_a, leaf_b, n_leaf, n_tests, n_overlaps, record, n_levels,
                     level_start, level_leaves, trace_a, trace_b, trace_sep):
    """The tuple every traversal returns (see :func:`traverse`), buffers trimmed."""
    counts = np.array([n_tests, n_overlaps, n_leaf], dtype=np.int64)
    if record:
        total = level_start[n_levels]
        return (leaf_a[:n_leaf], leaf_b[:n_leaf], counts, level_start[: n_levels + 1].copy(),
                trace_a[:total].copy(), trace_b[:total].copy(), trace_sep[:total].copy(),
                level_leaves[:n_levels].copy())
    return (leaf_a[:n_leaf], leaf_b[:n_leaf], counts, np.zeros(1, dtype=np.int64),
            trace_a[:0], trace_b[:0], trace_sep[:0], level_leaves[:0])



@njit(cache=True, nogil=True)
def traverse(first_a, count_a, bmin_a, bmax_a, first_b, count_b, bmin_b, bmax_b,
             rot, trans, is_rotated, margin, rule, record, parallel_min):
    """Tandem traversal from the pair of roots; see :func:`traverse_from` for the arguments.

    Returns the first eight items of :func:`traverse_from` (everything but the frontier).
    """
    roots = np.zeros(1, dtype=np.int32)
    out = traverse_from(first_a, count_a, bmin_a, bmax_a, first_b, count_b, bmin_b, bmax_b,
                        rot, trans, is_rotated, margin, rule, record, parallel_min,
                        roots, roots, np.iinfo(np.int64).max)
    return out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7]


@njit(cache=True, nogil=True)
def traverse_from(first_a, count_a, bmin_a, bmax_a, first_b, count_b, bmin_b, bmax_b,
                  rot, trans, is_rotated, margin, rule, record, parallel_min,
                  start_a, start_b, stop_at):
    """Tandem traversal from a frontier of node pairs, level by level.

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
    is_rotated : bool
        False when ``rot`` is the identity (then the test is three interval checks).
    margin : float
        Distance by which boxes are grown in every test, so round-off never culls a pair
        whose triangles touch within the triangle test's tolerance.
    rule : int
        A :class:`DescendRule` value.
    record : bool
        Keep every level's pairs (trace mode).
    parallel_min : int
        Smallest frontier processed in parallel.
    start_a, start_b : (f,) int32
        The first level's pairs (the roots for a whole traversal).
    stop_at : int
        Return before testing a level of at least this many pairs (the caller then splits it
        between threads); levels are numbered from the start frontier.

    Returns
    -------
    leaf_a, leaf_b : (p,) int32
        Overlapping leaf pairs.
    counts : (3,) int64
        BV tests, BV overlaps, leaf pairs.
    level_start : (L + 1,) int64
    trace_a, trace_b : (N,) int32
    trace_sep : (N,) int8
    level_leaves : (L,) int64
        (The last four are empty unless ``record``.)
    rest_a, rest_b : (r,) int32
        The untested frontier where ``stop_at`` stopped the walk (empty otherwise).
    """
    abs_rot = np.abs(rot)
    fa = start_a
    fb = start_b
    leaf_a = np.empty(1024, dtype=np.int32)
    leaf_b = np.empty(1024, dtype=np.int32)
    n_leaf = 0
    level_start, level_leaves, trace_a, trace_b, trace_sep = new_trace_buffers(record)
    n_levels = 0
    n_tests = 0
    n_overlaps = 0
    while fa.shape[0] > 0 and fa.shape[0] < stop_at:
        n = fa.shape[0]
        sep = np.empty(n, dtype=np.int8)
        action = np.empty(n, dtype=np.int8)
        parallel = n >= parallel_min
        if parallel:
            classify_parallel(fa, fb, count_a, bmin_a, bmax_a, count_b, bmin_b, bmax_b,
                              rot, trans, abs_rot, is_rotated, margin, rule, sep, action)
        else:
            classify_serial(fa, fb, count_a, bmin_a, bmax_a, count_b, bmin_b, bmax_b,
                            rot, trans, abs_rot, is_rotated, margin, rule, sep, action)
        child_offset, leaf_offset, n_child, n_new_leaf, n_overlap = level_offsets(action, n_leaf)
        n_overlaps += n_overlap
        n_tests += n
        leaf_a = grow(leaf_a, n_leaf + n_new_leaf)
        leaf_b = grow(leaf_b, n_leaf + n_new_leaf)
        next_a = np.empty(n_child, dtype=np.int32)
        next_b = np.empty(n_child, dtype=np.int32)
        if parallel:
            scatter_parallel(fa, fb, action, child_offset, leaf_offset, first_a, first_b,
                              next_a, next_b, leaf_a, leaf_b)
        else:
            scatter_serial(fa, fb, action, child_offset, leaf_offset, first_a, first_b,
                            next_a, next_b, leaf_a, leaf_b)
        n_leaf += n_new_leaf
        if record:
            level_start, level_leaves, trace_a, trace_b, trace_sep = record_level(
                level_start, level_leaves, trace_a, trace_b, trace_sep, n_levels, fa, fb, sep,
                n_new_leaf)
        n_levels += 1
        fa = next_a
        fb = next_b
    out = traversal_output(leaf_a, leaf_b, n_leaf, n_tests, n_overlaps, record, n_levels,
                           level_start, level_leaves, trace_a, trace_b, trace_sep)
    return out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7], fa, fb


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
