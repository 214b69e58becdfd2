"""One pair query by every method, timed the same way: the bounding-volume hierarchies, the
spatial partitions and the overlap-region method (Yu et al. 2018) side by side.

Yu, Lyu and Li (2018) time each method from the bare meshes: the tree, the partition or the
grid over the overlap region is built inside the timed call. :func:`time_methods` does the
same, so a row of its table is what one query from scratch costs with that method. The
benchmark ``benchmarks.yu2018`` and the ``partitions`` experiment both run on it.

    from core.partition.compare import time_methods
    runs = time_methods(teapot, sphere, None, pose, ("aabb", "bsp", "overlap"), repeats=3)
    runs["bsp"].median_seconds, runs["bsp"].n_candidates, runs["bsp"].n_contacts
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from core.mesh import TriMesh
from core.pose import Pose
from core.shapes import decimate_by_clustering, fit_unit, uv_sphere

__all__ = [
    "METHODS",
    "Method",
    "MethodRun",
    "pairs_disagreement",
    "run_method",
    "time_methods",
    "YU_POSE",
    "yu_experiment",
    "yu_teapot",
]


@dataclass(frozen=True)
class Method:
    """One way of answering a pair query.

    Attributes
    ----------
    name : str
        Registry key, also the CSV column prefix.
    label : str
        What a figure's legend says.
    family : str
        ``"hierarchy"``, ``"partition"`` or ``"overlap region"``.
    """

    name: str
    label: str
    family: str


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("aabb", "AABB tree", "hierarchy"),
        Method("obb", "OBB tree", "hierarchy"),
        Method("grid", "uniform grid", "partition"),
        Method("octree", "octree", "partition"),
        Method("kdtree", "k-d tree", "partition"),
        Method("bsp", "BSP tree", "partition"),
        Method("overlap", "overlap region (Yu 2018)", "overlap region"),
    )
}
"""Every method by name, hierarchies first, in the order tables and legends list them."""


@dataclass(frozen=True, eq=False)
class MethodRun:
    """One method's answer to one pair query and what it cost.

    Attributes
    ----------
    method : str
    seconds : (r,) float64
        Wall time of every repeat, building included.
    pairs : (c, 2) int32
        Contacting face ids (A, B), sorted.
    n_volume_tests : int
        Bounding-volume pairs tested (0 for the partitions and the overlap region).
    n_candidates : int
        Triangle pairs the method's culling left (leaf pairs' triangles, pairs sharing a cell).
    n_tri_tests : int
        Exact triangle tests run (the overlap region's pre-test may drop candidates first).
    """

    method: str
    seconds: np.ndarray
    pairs: np.ndarray
    n_volume_tests: int
    n_candidates: int
    n_tri_tests: int

    @property
    def n_contacts(self) -> int:
        return int(self.pairs.shape[0])

    @property
    def median_seconds(self) -> float:
        return float(np.median(self.seconds))

    @property
    def best_seconds(self) -> float:
        return float(np.min(self.seconds))


def _query(method: str) -> Callable:
    """``fn(a, b, pose_a, pose_b) -> (result, n_volume_tests, n_candidates, n_tri_tests)``."""
    from core import contacts
    from core.bvh import SplitRule
    from core.partition import PARTITION_KINDS, partition_contacts
    from core.partition.overlap_region import overlap_region_contacts

    if method == "aabb":
        def run(a, b, pose_a, pose_b):
            r = contacts(a, b, pose_a, pose_b)
            c = r.counters
            return r, c.n_bv_tests, c.n_tri_tests, c.n_tri_tests
    elif method == "obb":
        # The OBBTree as Gottschalk et al. (1996) build it: boxes cut across their own
        # longest axis, so the cuts follow the volumes the traversal tests.
        def run(a, b, pose_a, pose_b):
            r = contacts(a, b, pose_a, pose_b, bv="obb", split=SplitRule.OBB)
            c = r.counters
            return r, c.n_bv_tests, c.n_tri_tests, c.n_tri_tests
    elif method in PARTITION_KINDS:
        def run(a, b, pose_a, pose_b):
            r = partition_contacts(a, b, pose_a, pose_b, kind=method)
            return r, 0, r.n_candidates, r.counters.n_tri_tests
    elif method == "overlap":
        def run(a, b, pose_a, pose_b):
            r = overlap_region_contacts(a, b, pose_a, pose_b)
            return r, 0, r.n_candidates, r.n_tri_tests
    else:
        raise ValueError(f"unknown method {method!r}; one of {', '.join(METHODS)}")
    return run


def run_method(method: str, mesh_a: TriMesh, mesh_b: TriMesh, pose_a: Pose | None,
               pose_b: Pose | None, repeats: int = 1) -> MethodRun:
    """Run one method ``repeats`` times from the bare meshes.

    Parameters
    ----------
    method : str
        A key of :data:`METHODS`.
    mesh_a, mesh_b : TriMesh
    pose_a, pose_b : Pose or None
    repeats : int
        At least 1.

    Returns
    -------
    MethodRun
        The counts and pairs of the last repeat (every repeat finds the same).

    Raises
    ------
    ValueError
        Unknown method or ``repeats < 1``.
    """
    run = _query(method)
    if int(repeats) < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    seconds = np.empty(int(repeats))
    for i in range(seconds.shape[0]):
        t0 = time.perf_counter()
        result, n_volume, n_candidates, n_tests = run(mesh_a, mesh_b, pose_a, pose_b)
        seconds[i] = time.perf_counter() - t0
    pairs = np.asarray(result.pairs, dtype=np.int32)
    if pairs.shape[0]:
        pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
    return MethodRun(method, seconds, pairs, int(n_volume), int(n_candidates), int(n_tests))


def time_methods(mesh_a: TriMesh, mesh_b: TriMesh, pose_a: Pose | None, pose_b: Pose | None,
                 methods: Sequence[str] = tuple(METHODS), repeats: int = 3,
                 on_run: Callable[[str], None] | None = None,
                 warm_up: bool = False) -> dict[str, MethodRun]:
    """Every method in ``methods`` on one pair of posed meshes, ``repeats`` times each.

    The repeats go round the methods (all methods once, then all again), so a slow spell of a
    shared machine falls on every method rather than on one.

    Parameters
    ----------
    mesh_a, mesh_b : TriMesh
    pose_a, pose_b : Pose or None
    methods : sequence of str
        Keys of :data:`METHODS`.
    repeats : int
    on_run : callable, optional
        Called with the method's name before each run (progress, cancel), warm-up runs
        included.
    warm_up : bool
        Run every method once, untimed, first: the first call of a kernel in a process loads
        it from the cache, which made the AABB tree's median of 3 at 2.5k triangles 13 ms
        against 4-7 ms warm.

    Returns
    -------
    dict of str to MethodRun
        In the order of ``methods``.
    """
    for m in methods:
        _query(m)  # an unknown name fails before anything runs
    times: dict[str, list[float]] = {m: [] for m in methods}
    last: dict[str, MethodRun] = {}
    for m in methods if warm_up else ():
        if on_run is not None:
            on_run(m)
        run_method(m, mesh_a, mesh_b, pose_a, pose_b)
    for _ in range(int(repeats)):
        for m in methods:
            if on_run is not None:
                on_run(m)
            last[m] = run_method(m, mesh_a, mesh_b, pose_a, pose_b)
            times[m].append(float(last[m].seconds[0]))
    return {m: MethodRun(m, np.asarray(times[m]), last[m].pairs, last[m].n_volume_tests,
                         last[m].n_candidates, last[m].n_tri_tests) for m in methods}  # fmt: skip


def pairs_disagreement(runs: dict[str, MethodRun]) -> str:
    """Empty when every run found the same contact pairs; else one line naming the methods
    and their contact counts."""
    names = list(runs)
    if not names:
        return ""
    ref = runs[names[0]].pairs
    if all(np.array_equal(runs[m].pairs, ref) for m in names[1:]):
        return ""
    counts = ", ".join(f"{m} {runs[m].n_contacts:,}" for m in names)
    return f"the methods found different contacts: {counts}"


# ----------------------------------------------------------------------------------------------
# The paper's experiment (Yu et al. 2018, :mod:`core.partition.overlap_region`): a
# ~530-triangle teapot against meshes of 2k-8k triangles.


YU_POSE = Pose.from_axis_angle((1, 2, 3), 0.6, (0.6, 0.2, 0.1))
"""B's pose in the paper-shaped runs: turned and shifted so that two bodies of size 2 cut
each other."""

YU_TEAPOT_FACES = 530
"""Triangles of the paper's teapot."""


def yu_teapot(teapot: TriMesh) -> TriMesh:
    """The paper's small body: the teapot decimated to about 530 triangles, centred, longest
    side 2."""
    return fit_unit(decimate_by_clustering(teapot, YU_TEAPOT_FACES))


def yu_experiment(teapot: TriMesh, spot: TriMesh | None = None, repeats: int = 3) -> list[dict]:
    """Time the overlap-region method against the AABB tree and the BSP partition on the
    paper's shape: a ~530-triangle teapot against 2k / 4k / 8k spheres (and spot), both ways.

    Each pair is scaled to the same size and offset so that the surfaces cut each other.

    Returns
    -------
    list of dict
        One row per (A, B): names, triangle counts, contacts, and the best of ``repeats``
        times in seconds under ``"overlap"``, ``"aabb"``, ``"bsp"``; ``"same"`` is True when
        all three found the same pairs.
    """
    small = yu_teapot(teapot)
    others = [fit_unit(uv_sphere(n, name=f"sphere{4 * n * (n - 1)}")) for n in (23, 32, 45)]
    if spot is not None:
        others.append(fit_unit(spot))
    rows = []
    for other in others:
        for a, b in ((small, other), (other, small)):
            runs = time_methods(a, b, None, YU_POSE, ("overlap", "aabb", "bsp"), repeats)
            same = all(np.array_equal(runs[m].pairs, runs["aabb"].pairs) for m in runs)
            rows.append({
                "a": a.name, "b": b.name, "n_a": a.n_faces, "n_b": b.n_faces,
                "contacts": runs["aabb"].n_contacts, "same": bool(same),
                "overlap_candidates": runs["overlap"].n_candidates,
                "overlap_tri_tests": runs["overlap"].n_tri_tests,
                **{m: run.best_seconds for m, run in runs.items()},
            })  # fmt: skip
    return rows
