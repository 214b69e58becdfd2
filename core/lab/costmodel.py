"""The cost model of a collision query, ``T = Nu Cu + Nbv Cbv + Np Cp`` (Gottschalk, Lin and
Manocha 1996, section 4.3), with unit costs measured on this machine.

``Nu`` counts volume updates (nodes refitted because a body deformed), ``Nbv`` volume-pair
tests and ``Np`` triangle-pair tests; a frame's counters give them (:func:`frame_counts`).
``Cu``, ``Cbv`` and ``Cp`` are the times of one such operation, measured per bounding-volume
kind by timing the real kernels on batches and dividing by the count
(:func:`measure_unit_costs`). :func:`predict` multiplies them out, term by term.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

#: Triangles of each of the two spheres the unit costs are measured on: enough for about
#: 20k volume tests and a few thousand triangle tests a query (timer resolution is not an
#: issue), small enough that measuring one kind takes well under a second.
MEASURE_TRIANGLES = 3000

#: Repeats of each timing; the median is kept (one repeat slowed by another process on a
#: shared machine does not move it).
MEASURE_REPEATS = 5

#: Words of the three terms, in the order of the equation.
TERM_NAMES = ("volume updates", "volume tests", "triangle tests")


@dataclass(frozen=True)
class UnitCosts:
    """Measured time of one operation of each term, for one kind.

    Attributes
    ----------
    kind : str
        Key of :data:`core.bv.BV_KINDS`.
    update_ns : float
        ``Cu``: refitting one node's volume (the tree's box, plus the kind's own volume for
        a kind other than the tree's boxes), nanoseconds.
    volume_test_ns : float
        ``Cbv``: one volume-pair test of the traversal, its bookkeeping included, ns.
    primitive_test_ns : float
        ``Cp``: one exact triangle-pair test, ns.
    """

    kind: str
    update_ns: float
    volume_test_ns: float
    primitive_test_ns: float


@dataclass(frozen=True)
class CostTerm:
    """One term of the cost model.

    Attributes
    ----------
    name : str
        ``"volume updates"``, ``"volume tests"`` or ``"triangle tests"``.
    count : int
        ``Nu``, ``Nbv`` or ``Np``.
    unit_ns : float
        ``Cu``, ``Cbv`` or ``Cp``, nanoseconds.
    ms : float
        ``count * unit_ns``, milliseconds.
    share : float
        Fraction of the predicted total, 0 ... 1 (0 when the total is 0).
    """

    name: str
    count: int
    unit_ns: float
    ms: float
    share: float


@dataclass(frozen=True)
class CostPrediction:
    """``T = Nu Cu + Nbv Cbv + Np Cp`` term by term.

    Attributes
    ----------
    terms : tuple of CostTerm
        Updates, volume tests, triangle tests.
    total_ms : float
    """

    terms: tuple[CostTerm, ...]
    total_ms: float


def predict(nu: int, nbv: int, np_: int, costs: UnitCosts) -> CostPrediction:
    """The predicted time of a query (or frame) with these counts.

    Parameters
    ----------
    nu, nbv, np_ : int
        Volume updates, volume tests, triangle tests (each >= 0).
    costs : UnitCosts

    Returns
    -------
    CostPrediction
    """
    counts = (nu, nbv, np_)
    for name, count in zip(("nu", "nbv", "np_"), counts):
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
            raise ValueError(f"{name} must be a whole number >= 0, got {count!r}")
    units = (costs.update_ns, costs.volume_test_ns, costs.primitive_test_ns)
    ms = [int(c) * u * 1e-6 for c, u in zip(counts, units)]
    total = float(sum(ms))
    terms = tuple(CostTerm(name, int(c), float(u), float(m), m / total if total > 0 else 0.0)
                  for name, c, u, m in zip(TERM_NAMES, counts, units, ms))  # fmt: skip
    return CostPrediction(terms=terms, total_ms=total)


def frame_counts(frame) -> tuple[int, int, int]:
    """``(Nu, Nbv, Np)`` of a :class:`core.pipeline.Frame` from its own records.

    ``Nu`` is the number of nodes of the trees refitted this frame (``Frame.refitted``; a
    tree rebuilt or kept as it was updates no volume: a build is a different cost); ``Nbv``
    and ``Np`` are the volume and triangle tests of the pair query and of any self-collision
    queries (their :class:`~core.collide.trace.Counters`).
    """
    refitted = frame.refitted or [False] * len(frame.trees)
    nu = sum(int(tree.n_nodes) for tree, was in zip(frame.trees, refitted) if was)
    results = [frame.result] if frame.result is not None else []
    results += [r for r in (frame.self_results or []) if r is not None]
    nbv = sum(int(r.counters.n_bv_tests) for r in results)
    np_ = sum(int(r.counters.n_tri_tests) for r in results)
    return nu, nbv, np_


def _median_ns(run, count: int) -> float:
    """Median over :data:`MEASURE_REPEATS` runs of ``run()`` (seconds it reports) per item."""
    times = [run() for _ in range(MEASURE_REPEATS)]
    return float(np.median(times)) * 1e9 / max(1, count)


def update_volumes(tree, mesh, bv, leaves=None):
    """Refit one tree's volumes to ``mesh``'s vertices as a frame does: the tree's boxes
    (:func:`core.bvh.refit.refit_tree`) and, for a kind other than the tree's own boxes, the
    kind's volumes (its ``refit`` where that is exact and cheap, else a fit from the
    triangles, as :func:`core.bv.fit_volumes` does). Returns the refitted tree."""
    from core.bv import fit_from_triangles, refit_volumes
    from core.bvh.refit import refit_tree

    refitted = refit_tree(tree, mesh, leaves)
    if not bv.is_tree_box:
        if bv.has_fit_choice or not bv.refit_exact:
            fit_from_triangles(refitted, mesh, bv)
        else:
            refit_volumes(refitted, mesh, bv)
    return refitted


#: Triangle pairs per timed batch of the triangle test: the query's own few hundred candidate
#: pairs, repeated. Timed alone, the query's triangle phase also pays a fixed part (posing B's
#: vertices, sorting the contacts) that made Cp swing from 0.2 to 14 us between kinds with
#: few candidates (measured); the batch spreads it over this many tests.
TRIANGLE_BATCH = 20_000


def _triangle_test_ns(mesh, trees, traced, pose_b) -> float:
    """``Cp`` in ns: the exact triangle test (:func:`core.collide.query.exact_contacts`) on
    the traced query's candidate pairs (its overlapping leaf pairs), repeated to
    :data:`TRIANGLE_BATCH` pairs; median of :data:`MEASURE_REPEATS` runs."""
    from core.collide.query import exact_contacts

    trace = traced.trace
    tree_a, tree_b = trees
    na, nb = trace.node_a.astype(np.int64), trace.node_b.astype(np.int64)
    is_pair = (trace.sep_axis < 0) & (tree_a.count[na] > 0) & (tree_b.count[nb] > 0)
    pairs = np.stack([tree_a.prim_ids[tree_a.first[na[is_pair]]],
                      tree_b.prim_ids[tree_b.first[nb[is_pair]]]], axis=1).astype(np.int32)
    if pairs.shape[0] == 0:
        return float("nan")
    batch = np.ascontiguousarray(np.tile(pairs, (-(-TRIANGLE_BATCH // pairs.shape[0]), 1)))
    rot = np.ascontiguousarray(pose_b.rotation)
    trans = np.ascontiguousarray(pose_b.translation)
    exact_contacts(mesh, mesh, batch[:64], rot, trans, None)  # load the kernel once
    times = []
    for _ in range(MEASURE_REPEATS):
        t0 = time.perf_counter()
        exact_contacts(mesh, mesh, batch, rot, trans, None)
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) * 1e9 / batch.shape[0]


def measure_unit_costs(kind: str, progress=None, n_triangles: int = MEASURE_TRIANGLES,
                       is_traced: bool = False) -> UnitCosts:
    """Measure ``Cu``, ``Cbv`` and ``Cp`` of one kind on this machine.

    Two spheres of ``n_triangles`` triangles, the second moved by 1.2 radii and
    turned 30 degrees (so box tests run their rotated form, as in a typical frame), are built
    once. Then, each repeated :data:`MEASURE_REPEATS` times and the median kept:

    * ``Cu``: refit both trees' volumes the way a frame does (:func:`update_volumes`); time
      divided by the nodes refitted;
    * ``Cbv``: the traversal's own time (``timings["traverse"]``) divided by its volume tests;
    * ``Cp``: the exact triangle test on the query's candidate pairs, repeated to a batch of
      :data:`TRIANGLE_BATCH` (:func:`_triangle_test_ns`), divided by the batch.

    So each unit cost is that of the very kernels a frame runs, bookkeeping included.

    Parameters
    ----------
    kind : str
        Key of :data:`core.bv.BV_KINDS`.
    progress : core.experiments.base.Progress, optional
        Told before each of the three measurements (and may cancel).
    n_triangles : int
        Triangles of each measuring sphere (default :data:`MEASURE_TRIANGLES`).
    is_traced : bool
        Time the traversal while it records its per-level trace, as the viewer's frames do
        (they draw it). Default False: the bare query, as the benchmarks and the command
        line run it. On bunny against bunny the viewer's traced traversal took several times
        the bare one's time, so a prediction from bare unit costs undershot its frames.

    Returns
    -------
    UnitCosts
    """
    from core.bv import get_kind
    from core.bvh import SplitRule, build_trees
    from core.bvh.refit import leaf_nodes
    from core.collide.dispatch import tree_query
    from core.experiments.common import sphere_mesh
    from core.pose import Pose
    from core.request import CollisionRequest

    bv = get_kind(kind)

    def say(step: int, what: str) -> None:
        if progress is not None:
            progress.report(step, 3, f"{bv.name}: {what}")

    say(0, "building the measuring scene")
    sphere = sphere_mesh(n_triangles)
    pose_b = Pose.from_axis_angle((1.0, 1.0, 0.0), math.radians(30.0), (1.2, 0.0, 0.0))
    trees = build_trees([sphere, sphere], SplitRule.MIDPOINT, 1)
    leaves = [leaf_nodes(t) for t in trees]

    def update() -> float:
        t0 = time.perf_counter()
        for tree, tree_leaves in zip(trees, leaves):
            update_volumes(tree, sphere, bv, tree_leaves)
        return time.perf_counter() - t0

    say(1, "timing volume updates")
    update()  # first call outside the timing: page in the arrays
    n_nodes = sum(int(t.n_nodes) for t in trees)
    update_ns = _median_ns(update, n_nodes)

    say(2, "timing volume and triangle tests")
    request = CollisionRequest(bv=bv.name, trace=True)
    first = tree_query(request, sphere, trees[0], sphere, trees[1], None, pose_b)
    fast = request if is_traced else request.replace(trace=False)
    runs = [tree_query(fast, sphere, trees[0], sphere, trees[1], None, pose_b)
            for _ in range(MEASURE_REPEATS)]  # fmt: skip
    volume_ns = float(np.median([r.timings["traverse"] for r in runs])) * 1e9 / max(
        1, first.counters.n_bv_tests)
    tri_ns = _triangle_test_ns(sphere, trees, first, pose_b)
    if progress is not None:
        progress.report(3, 3, f"{bv.name}: measured")
    return UnitCosts(kind=bv.name, update_ns=update_ns, volume_test_ns=volume_ns,
                     primitive_test_ns=tri_ns)


__all__ = ["CostPrediction", "CostTerm", "TERM_NAMES", "UnitCosts", "frame_counts",
           "measure_unit_costs", "predict", "update_volumes"]
