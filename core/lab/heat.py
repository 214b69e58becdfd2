"""Where a collision query spent its work: per triangle and per node, from a frame's trace.

Numpy only (no kernel), so a recorded frame is coloured without compiling anything: every
number here is a count over the rows of the :class:`~core.collide.trace.Trace` the traversal
recorded, and the surface-area share of each node comes from its box alone.

- Per triangle of each mesh: the **volume tests** of the leaf holding it (every trace row that
  names that leaf, overlapping or culled) and the **triangle tests** it took part in (each
  overlapping pair of two leaves sends ``count_a * count_b`` triangle pairs to the exact test,
  so a triangle of A's leaf takes part in ``count_b`` of them). Their sum is the work.
- Per node: its **visits**, the volume tests it took part in, and its **SAH share**: its term
  of the surface-area cost (MacDonald and Booth 1990) in percent of the whole tree's cost.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from core.bvh.quality import SAH_TRAVERSAL_COST, SAH_TRIANGLE_COST
from core.collide.budget import check_trace_rows
from core.collide.trace import OVERLAPPED, Trace
from core.errors import PairBudgetError

NEEDS_TRACE = ("needs the traversal trace: turn on Trace (trace=True in the request); this "
               "frame was computed without it")
"""Why a frame without a trace has no heat map (the words the app shows). The app's own
frames always carry the trace; a recording made from Python without it lands here."""

NEEDS_TWO_MESHES = "needs two meshes: a heat map shows the work of the query of A against B"


class HeatUnavailable(ValueError):
    """A frame that cannot be coloured by work; the message says why in one line."""


class HeatOverBudget(PairBudgetError, HeatUnavailable):
    """The frame's trace has more rows than its request's pair budget
    (:func:`core.collide.budget.check_trace_rows`): a heat map would need too much memory."""


@dataclass(frozen=True, eq=False)
class BodyHeat:
    """The work of one query on one mesh and its tree.

    Attributes
    ----------
    volume_tests : (m,) int64
        Per triangle: volume tests of the leaf holding it.
    triangle_tests : (m,) int64
        Per triangle: exact triangle tests it took part in.
    node_visits : (k,) int64
        Per node: volume tests it took part in.
    sah_share : (k,) float64
        Per node: its term of the tree's SAH cost, in percent of the total (sums to 100).
    """

    volume_tests: np.ndarray
    triangle_tests: np.ndarray
    node_visits: np.ndarray
    sah_share: np.ndarray

    @property
    def work(self) -> np.ndarray:
        """``(m,) int64`` volume plus triangle tests per triangle."""
        return self.volume_tests + self.triangle_tests


@dataclass(frozen=True, eq=False)
class FrameHeat:
    """Heat of both meshes of a query: ``bodies[0]`` is A, ``bodies[1]`` is B.

    ``frame_index`` is the frame whose query it counts (-1 for a trace not of a frame): a heat
    map counted beside the frames may be shown with a later frame, and says which it is."""

    bodies: tuple
    frame_index: int = -1

    def values(self, body: int, what: str) -> np.ndarray:
        """The array a heat map colours: ``what`` is ``"work"``, ``"visits"`` or ``"sah"``."""
        heat = self.bodies[body]
        if what == "work":
            return heat.work
        if what == "visits":
            return heat.node_visits
        if what == "sah":
            return heat.sah_share
        raise ValueError(f"heat map {what!r}: choose work, visits or sah")


def leaf_of_triangles(tree) -> np.ndarray:
    """``(m,) int32`` the leaf holding each triangle (every triangle is in exactly one)."""
    leaves = np.flatnonzero(tree.count > 0)
    out = np.empty(tree.prim_ids.shape[0], dtype=np.int32)
    # Leaf l holds prim_ids[first[l] : first[l] + count[l]]: repeat each leaf id count times
    # over the positions it owns, then scatter to the triangle ids stored there.
    positions = np.repeat(tree.first[leaves].astype(np.int64), tree.count[leaves])
    positions += np.arange(positions.shape[0]) - np.repeat(
        np.cumsum(tree.count[leaves]) - tree.count[leaves], tree.count[leaves])
    out[tree.prim_ids[positions]] = np.repeat(leaves, tree.count[leaves]).astype(np.int32)
    return out


def sah_share(tree, traversal: float = SAH_TRAVERSAL_COST,
              intersection: float = SAH_TRIANGLE_COST) -> np.ndarray:
    """Each node's share of the tree's surface-area cost, in percent, ``(k,) float64``.

    The node's term is ``C_t A(n)`` for an internal node and ``C_i A(n) count(n)`` for a leaf
    (A the surface area of its box; the root's area cancels in the share). The constants are
    those of :func:`core.bvh.quality.sah_cost` (1 and 1), so the terms add up to its cost.
    A tree whose boxes all have zero area shares the cost by node count, as that function does.
    """
    ext = np.asarray(tree.bmax) - np.asarray(tree.bmin)
    area = ext[:, 0] * ext[:, 1] + ext[:, 1] * ext[:, 2] + ext[:, 2] * ext[:, 0]
    count = np.asarray(tree.count)
    term = np.where(count > 0, intersection * area * count, traversal * area)
    total = term.sum()
    if not total > 0.0:
        return np.full(term.shape[0], 100.0 / term.shape[0])
    return 100.0 * term / total


def _body_heat(tree, node_col: np.ndarray, other_count: np.ndarray, is_leaf_pair: np.ndarray,
               sah: np.ndarray) -> BodyHeat:
    k = tree.n_nodes
    visits = np.bincount(node_col, minlength=k).astype(np.int64)
    # Triangle tests per leaf: each overlapping leaf pair (this leaf, other leaf) tests every
    # triangle of this leaf against the other leaf's count_other triangles.
    per_leaf = np.bincount(node_col[is_leaf_pair], weights=other_count[is_leaf_pair],
                           minlength=k)  # fmt: skip
    per_leaf = np.rint(per_leaf).astype(np.int64)
    leaf = leaf_of_triangles(tree)
    return BodyHeat(volume_tests=visits[leaf], triangle_tests=per_leaf[leaf],
                    node_visits=visits, sah_share=sah)


def trace_heat(trace: Trace, tree_a, tree_b) -> FrameHeat:
    """Heat of A and B from the trace of their query.

    Parameters
    ----------
    trace : Trace
        Of the query of ``tree_a`` against ``tree_b``.
    tree_a, tree_b : Tree
        The trees the traversal walked (refitted or built that frame).

    Returns
    -------
    FrameHeat
    """
    node_a = np.asarray(trace.node_a, dtype=np.int64)
    node_b = np.asarray(trace.node_b, dtype=np.int64)
    count_a = np.asarray(tree_a.count, dtype=np.int64)[node_a]
    count_b = np.asarray(tree_b.count, dtype=np.int64)[node_b]
    is_leaf_pair = (np.asarray(trace.sep_axis) == OVERLAPPED) & (count_a > 0) & (count_b > 0)
    heat_a = _body_heat(tree_a, node_a, count_b.astype(np.float64), is_leaf_pair,
                        sah_share(tree_a))  # fmt: skip
    heat_b = _body_heat(tree_b, node_b, count_a.astype(np.float64), is_leaf_pair,
                        sah_share(tree_b))  # fmt: skip
    return FrameHeat((heat_a, heat_b))


def frame_heat(frame) -> FrameHeat:
    """Heat of a frame's query of bodies 0 and 1 (a live or a recorded frame).

    Raises
    ------
    HeatUnavailable
        The frame has fewer than two meshes, or its query ran without the trace.
    HeatOverBudget
        The trace has more rows than the request's ``pair_budget`` (a HeatUnavailable and a
        :class:`~core.errors.PairBudgetError`).
    """
    result = frame.result
    if result is None or len(frame.trees) < 2:
        raise HeatUnavailable(NEEDS_TWO_MESHES)
    if result.trace is None:
        raise HeatUnavailable(NEEDS_TRACE)
    try:
        check_trace_rows(frame, "to colour by work", "the heat map")
    except PairBudgetError as exc:
        raise HeatOverBudget(exc.tree, exc.budget, exc.what, exc.level, exc.detail,
                             exc.operation) from None  # fmt: skip
    heat = trace_heat(result.trace, frame.trees[0], frame.trees[1])
    return replace(heat, frame_index=int(frame.index))
