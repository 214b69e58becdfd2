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


def warm_up(verbose: bool = True) -> float:
    """Run every kernel on tiny inputs; return the seconds it took."""
    t0 = time.perf_counter()
    from core.bvh import SplitRule, build_tree, refit_tree, tree_drift
    from core.collide import DescendRule, collide, tandem
    from core.pose import Pose

    a, b = _tiny_meshes()
    pose = Pose.from_axis_angle((1, 2, 3), 0.6, (0.1, 0.0, 0.0))
    for rule in SplitRule:
        tree_a = build_tree(a, rule, 1)
        tree_b = build_tree(b, rule, 2)
        tree_drift(tree_a, refit_tree(tree_a, a.with_vertices(a.vertices * 1.01)))
    saved = tandem.PARALLEL_MIN_PAIRS
    try:
        for parallel_min in (saved, 0):
            tandem.PARALLEL_MIN_PAIRS = parallel_min
            import core.collide.query as query

            query.PARALLEL_MIN_PAIRS = parallel_min
            for descend in DescendRule:
                for trace in (False, True):
                    collide(a, tree_a, b, tree_b, None, pose, descend=descend, trace=trace)
                    collide(a, tree_a, b, tree_b, None, None, descend=descend, trace=trace)
    finally:
        tandem.PARALLEL_MIN_PAIRS = saved
        query.PARALLEL_MIN_PAIRS = saved
    seconds = time.perf_counter() - t0
    if verbose:
        print(f"numba kernels ready in {seconds:.1f} s")
    return seconds
