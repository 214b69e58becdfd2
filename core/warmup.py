"""Compile every numba kernel once so the first frame of the app does not stall.

Kernels are compiled with ``cache=True``: this writes the machine code next to the sources
and later processes load it in well under a second. ``make run`` and ``make test`` call
``python -m core warmup`` after installing.
"""

from __future__ import annotations

import time

import numpy as np


def _tiny_meshes():
    from core.mesh import TriMesh

    # Two small closed octahedra: enough triangles for internal nodes on both sides.
    v = np.array(
        [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=np.float64
    )
    f = np.array(
        [[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]]
    )
    return TriMesh.from_arrays(v, f, "a"), TriMesh.from_arrays(v * 0.9 + 0.3, f, "b")


def _warm_bounding_volumes(a, tree_a, b, tree_b, pose) -> None:
    """The kernels of every bounding-volume kind, the generic traversal and distance."""
    import core.collide.query as query
    from core.bv import BV_KINDS, ObbFit, fit_volumes, refit_volumes
    from core.distance import min_distance, within_distance

    for method in ObbFit:
        fit_volumes(tree_a, a, "obb", obb_fit=method)
    from core.collide.bvquery import collide_bv

    # collide_bv runs through query's traversal driver: its threshold picks the variant.
    saved = query.PARALLEL_MIN_PAIRS
    try:
        for parallel_min in (saved, 0):
            query.PARALLEL_MIN_PAIRS = parallel_min
            for trace in (False, True):
                # The traversal kernel serves every kind (dispatch on the kind's code) and was
                # compiled above; the kinds only compile their own fit and refit.
                for bv in ("obb", "aabb"):
                    collide_bv(a, tree_a, b, tree_b, None, pose, bv=bv, trace=trace)
    finally:
        query.PARALLEL_MIN_PAIRS = saved
    for name in BV_KINDS:
        fit_volumes(tree_b, b, name)
        refit_volumes(tree_a, a, name)
    min_distance(a, tree_a, b, tree_b, None, pose)
    within_distance(a, tree_a, b, tree_b, None, pose, d=0.1)


def _warm_quality(a, tree_a) -> None:
    """The tree-quality kernels: EPO clipping against half-spaces and balls, the polytope
    face solver (k-DOPs, OBB intersections)."""
    from core.bvh.metrics import tree_quality

    for bv in ("aabb", "obb", "kdop14", "sphere"):
        tree_quality(a, tree_a, bv)


def _warm_partitions(a, b, pose) -> None:
    """The spatial partitions and the overlap-region method (Yu et al. 2018)."""
    from core.partition import PARTITION_KINDS, partition_contacts
    from core.partition.overlap_region import overlap_region_contacts

    for kind in PARTITION_KINDS:
        partition_contacts(a, b, None, pose, kind=kind)
    overlap_region_contacts(a, b, None, pose)


def warm_up(verbose: bool = True) -> float:
    """Run every kernel on tiny inputs; return the seconds it took."""
    t0 = time.perf_counter()
    import core.collide.query as query
    import core.collide.selfcollide as selfcollide
    from core.bvh import SplitRule, build_tree, refit_tree, tree_drift
    from core.collide import DescendRule, collide, self_collide
    from core.pose import Pose

    a, b = _tiny_meshes()
    pose = Pose.from_axis_angle((1, 2, 3), 0.6, (0.1, 0.0, 0.0))
    for rule in SplitRule:
        tree_a = build_tree(a, rule, 1)
        tree_b = build_tree(b, rule, 2)
        tree_drift(tree_a, refit_tree(tree_a, a.with_vertices(a.vertices * 1.01)))
    # Levels run serially below a size threshold and in parallel above it: lower the
    # threshold once so both variants run. Every query below goes through the one traversal
    # kernel (core.collide.traversal), whose machine code holds both variants.
    modules = (query, selfcollide)
    saved = [m.PARALLEL_MIN_PAIRS for m in modules]
    try:
        for parallel_min in (saved[0], 0):
            for m in modules:
                m.PARALLEL_MIN_PAIRS = parallel_min
            for descend in DescendRule:
                for trace in (False, True):
                    collide(a, tree_a, b, tree_b, None, pose, descend=descend, trace=trace)
                    collide(a, tree_a, b, tree_b, None, None, descend=descend, trace=trace)
                    self_collide(a, tree_a, trace=trace, descend=descend)
    finally:
        for m, value in zip(modules, saved):
            m.PARALLEL_MIN_PAIRS = value
    collide(a, tree_a, b, tree_b, None, pose, margin=0.1)  # the near-contact distance kernel
    _warm_bounding_volumes(a, tree_a, b, tree_b, pose)
    _warm_quality(a, tree_a)
    _warm_partitions(a, b, pose)
    seconds = time.perf_counter() - t0
    if verbose:
        print(f"numba kernels ready in {seconds:.1f} s")
    return seconds
