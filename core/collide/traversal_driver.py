"""The traversal driver of a query: the traversal kernel run on two threads once its
frontier is wide enough (:func:`split_traversal`), under a pair budget and a cancel flag
(:func:`budgeted_traversal`), and what a finished walk gives the result (its counters and its
per-level trace). :func:`core.collide.query.collide`, :func:`core.collide.bvquery.collide_bv`
and :func:`core.collide.selfcollide.self_collide` all run through it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from core.bvh.tree import Tree
from core.collide.budget import (
    LEVEL_SEEN,
    N_SLOTS,
    OVERLAPS,
    STATUS,
    STATUS_DONE,
    STATUS_OVER_BUDGET,
    STOP_LEVEL,
    QueryControl,
    leaf_triangle_pairs,
    raise_if_stopped,
    start_array,
)
from core.collide.depthfirst import traverse_depth_first
from core.collide.trace import Counters, Trace
from core.collide.traversal import (
    PARALLEL_MIN_PAIRS,
    TREE_BOXES,
    TraversalRecord,
    traverse_levels,
)
from core.jit.kernel_args import frozen, frozen_args

#: A recorded traversal (or one tree against itself) whose frontier is this large is split
#: between two threads, each walking its half to the leaves on its own (the kernels release
#: the GIL); an unrecorded walk of two trees' own boxes stays on one thread
#: (:func:`split_traversal`).
#: One hand-off per query instead of a parallel launch per level: with idle OpenMP threads
#: asleep (see core/__init__.py) each launch pays a wake-up, and per-level parallelism
#: measured no faster than one thread on W1.
#: 512 pairs: the level-by-level head up to the split cost 0.09 ms on the W3 100k frame's
#: trees (leaf size 8), against 0.57 ms up to 2048, and the halves stay balanced. Two-thread
#: walk, medians of 40 (``split_traversal`` on the benchmark's sphere trees), at
#: frontier 256 / 512 / 1024 / 2048: 100k 1.11-1.29 / 1.15-1.25 / 1.32-1.35 / 1.19-1.51 ms
#: (one thread 1.77), 500k 2.22-2.50 / 1.84-1.88 / 2.11-2.25 / 2.27-2.82 ms (one thread
#: 2.92); with the per-level record 100k 1.89-2.00 ms at 512 against 2.02-2.09 at 2048,
#: 500k 2.99-3.22 against 3.27-3.35. Below 512 the halves came out uneven (100k: 1.9 ms at
#: 32 and 128).
SPLIT_FRONTIER = 512

_split_pool: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _split_pool
    if _split_pool is None:
        _split_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="bvh-traverse")
    return _split_pool


def _zip_levels(parts):
    """Merge the traces of frontier halves walked apart: level d is both halves' level d.

    Returns ``level_start, trace_a, trace_b, trace_sep, level_leaves`` of the merged levels.
    """
    n_levels = max(len(p.level_start) - 1 for p in parts)
    a, b, sep, starts, leaves = [], [], [], [0], []
    for d in range(n_levels):
        n_level, n_leaves = 0, 0
        for p in parts:
            ls = p.level_start
            if d < len(ls) - 1:
                rows = slice(ls[d], ls[d + 1])
                a.append(p.trace_a[rows])
                b.append(p.trace_b[rows])
                sep.append(p.trace_sep[rows])
                n_level += ls[d + 1] - ls[d]
                n_leaves += p.level_leaves[d]
        starts.append(starts[-1] + n_level)
        leaves.append(n_leaves)
    return (np.asarray(starts, dtype=np.int64), np.concatenate(a), np.concatenate(b),
            np.concatenate(sep), np.asarray(leaves, dtype=np.int64))  # fmt: skip


#: The pair of roots every walk starts from (read-only, as every input of the kernels).
_ROOTS = frozen(np.zeros(1, dtype=np.int32))


def split_traversal(args, record, budget: int, control_array: np.ndarray) -> TraversalRecord:
    """Run the traversal kernel, on two threads once its frontier is wide enough.

    Parameters
    ----------
    args : tuple
        The arguments of :func:`core.collide.traversal.traverse_levels` up to ``record``
        (``code`` ... ``is_self, record``); this adds ``parallel_min, start_a, start_b,
        stop_at`` and the budget arguments.
    record : bool
        Whether the traversal records its levels (they are then zipped back together).
    budget : int
        Most overlapping volume pairs of the whole query.
    control_array : (CONTROL_SIZE,) int64
        :func:`core.collide.budget.start_array`'s; the head counts in slot 0, the two halves
        in slots 1 and 2.

    Returns
    -------
    TraversalRecord
        The whole traversal (``rest_a, rest_b`` empty), or a partial one when the walk
        stopped early: ``control_array`` then holds the status, which the caller raises.

    Without a record (and for two different trees) the walk is depth first
    (:mod:`core.collide.depthfirst`): the same pairs and counters without the level loop's
    bookkeeping. On the trees' own boxes (``TREE_BOXES``: a box test is a few comparisons)
    the whole walk stays on one thread: timed in turns with warp's refit frame (the W3 frame's
    traversal, medians of 50 frames), 100k took 0.77 ms on one thread against 1.22 ms split,
    500k 1.88 against 2.35 ms; the hand-off to the pool thread, whose core had gone idle, cost
    more than the half it walked. Fitted volumes of every kind (``collide_bv``: OBBs, RSS,
    spheres, k-DOPs, ...), whose tests cost more, still split: walked on one thread, W2 (OBB
    trees, margin 1e-3) went from 0.28x fcl to 0.45-0.49x.
    """
    # Read-only inputs whatever the caller's arrays are (a refitted tree's boxes, rows a
    # caller passed in): one compiled signature of each walk, the one the warm-up compiled.
    args = frozen_args(args)
    roots = _ROOTS
    is_two_trees = not args[15]
    is_depth_first = not record and is_two_trees
    is_split = numba.get_num_threads() > 1
    budget = np.int64(budget)
    if is_depth_first and (not is_split or args[0] == TREE_BOXES):
        return traverse_depth_first(*args[:15], roots, roots, budget, control_array, 0)
    split = SPLIT_FRONTIER if is_split else np.iinfo(np.int64).max
    head = traverse_levels(*args, PARALLEL_MIN_PAIRS, roots, roots, split, budget,
                           control_array, 0)  # fmt: skip
    if head.rest_a.shape[0] == 0 or control_array[STATUS] != STATUS_DONE:
        return head
    # Interleaved halves: neighbouring pairs are neighbours in space, so every other pair
    # spreads the dense regions over both threads.
    halves = [(frozen(head.rest_a[k::2]), frozen(head.rest_b[k::2])) for k in range(2)]
    no_split = np.iinfo(np.int64).max
    if is_depth_first:
        futures = [_pool().submit(traverse_depth_first, *args[:15], ha, hb, budget,
                                  control_array, slot)
                   for slot, (ha, hb) in enumerate(halves, start=1)]  # fmt: skip
    else:
        futures = [_pool().submit(traverse_levels, *args, no_split, ha, hb, no_split, budget,
                                  control_array, slot)
                   for slot, (ha, hb) in enumerate(halves, start=1)]  # fmt: skip
    del halves
    tails = [f.result() for f in futures]
    if control_array[STATUS] != STATUS_DONE:
        return head
    merged = head._replace(
        leaf_a=np.concatenate([head.leaf_a] + [t.leaf_a for t in tails]),
        leaf_b=np.concatenate([head.leaf_b] + [t.leaf_b for t in tails]),
        counts=head.counts + sum(t.counts for t in tails),
        rest_a=tails[0].rest_a, rest_b=tails[0].rest_b,
    )  # fmt: skip
    if not record:
        return merged
    starts, a, b, sep, leaves = _zip_levels(tails)
    n_head = head.level_start[-1]
    return merged._replace(
        level_start=np.concatenate([head.level_start, starts[1:] + n_head]),
        trace_a=np.concatenate([head.trace_a, a]), trace_b=np.concatenate([head.trace_b, b]),
        trace_sep=np.concatenate([head.trace_sep, sep]),
        level_leaves=np.concatenate([head.level_leaves, leaves]),
    )  # fmt: skip


def budgeted_traversal(args, record, budget: int, control: QueryControl | None, trees,
                       names, what: str) -> TraversalRecord:  # fmt: skip
    """:func:`split_traversal` under a pair budget and a cancel flag.

    Parameters
    ----------
    args, record
        As :func:`split_traversal`.
    budget : int
        Most overlapping volume pairs (``CollisionRequest.pair_budget``).
    control : QueryControl or None
        Its cancel flag is read and its progress written between levels.
    trees : (Tree, Tree)
    names : (str, str)
        The trees as the error names them (:func:`core.collide.budget.tree_name`).
    what : str
        The operation, for the cancel message.

    Raises
    ------
    PairBudgetError
        One line naming the tree and the budget, before any buffer grew past it.
    QueryCancelled
    """
    array = start_array(control)
    traversal = split_traversal(args, record, budget, array)
    if array[STATUS] == STATUS_DONE and array[OVERLAPS:OVERLAPS + N_SLOTS].sum() > budget:
        # Two threads that finished together may each have read the other's count before
        # its last store: the sum after both is exact.
        array[STATUS] = STATUS_OVER_BUDGET
        array[STOP_LEVEL] = array[LEVEL_SEEN] if record else -1
    if array[STATUS] == STATUS_DONE:
        return traversal
    # The partial walk's buffers go back now, not when the caller drops the traceback.
    del traversal
    raise_if_stopped(array, budget, trees, names, what)
    raise AssertionError("unreachable: a stopped walk always raises")


def check_triangle_budget(traversal: TraversalRecord, tree_a: Tree, tree_b: Tree, budget: int,
                          names, same_tree: bool = False,
                          operation: str = "the collision query") -> None:  # fmt: skip
    """Raise :class:`~core.errors.PairBudgetError` before listing more than ``budget``
    triangle pairs (leaves of many triangles multiply the leaf pairs)."""
    n_pairs = leaf_triangle_pairs(traversal.leaf_a, traversal.leaf_b, tree_a.count,
                                  tree_b.count, same_tree)  # fmt: skip
    if n_pairs > budget:
        from core.collide.budget import blamed
        from core.errors import PairBudgetError

        name, _ = blamed((tree_a,) if same_tree else (tree_a, tree_b), names)
        raise PairBudgetError(name, budget, "triangle pairs to test", None,
                              "its leaves overlap too much or hold too many triangles",
                              operation)  # fmt: skip


def traversal_counters(traversal: TraversalRecord, n_tri_tests: int, n_contacts: int) -> Counters:
    """The :class:`Counters` of a query: the traversal's and the triangle tests' that followed."""
    n_bv_tests, n_bv_overlaps, n_leaf_pairs = (int(c) for c in traversal.counts)
    return Counters(n_bv_tests=n_bv_tests, n_bv_overlaps=n_bv_overlaps,
                    n_leaf_pairs=n_leaf_pairs, n_tri_tests=int(n_tri_tests),
                    n_contacts=int(n_contacts))  # fmt: skip


def traversal_trace(traversal: TraversalRecord) -> Trace:
    """The per-level :class:`Trace` of a traversal that recorded its levels."""
    return Trace(traversal.level_start, traversal.trace_a, traversal.trace_b,
                 traversal.trace_sep, traversal.level_leaves)  # fmt: skip

