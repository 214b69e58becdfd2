"""The core's phases as the benchmarks call them (van den Bergen 1997 defaults).

Everything here goes through the public core API: ``build_tree`` / ``build_trees``,
``refit_tree`` and ``collide``, with the default split rule (MIDPOINT) and descend rule
(LARGER_VOLUME), and up to :data:`LEAF_SIZE` triangles a leaf.
"""

from __future__ import annotations

import numpy as np

from core.bv import fit_volumes
from core.bvh import SplitRule, build_tree, build_trees, refit_tree
from core.bvh.refit import leaf_nodes
from core.mesh import TriMesh
from core.pose import Pose

NAME = "ours"

#: Most triangles in a leaf of the benchmark's trees (W1, W3, memory). The app keeps the
#: request's default, one triangle a leaf, which the lessons draw. Bytes of one tree per
#: triangle (Tree.held_arrays, float64 boxes, the derived arrays not held) against the
#: mesh's 32, on the 100k / 500k spheres: leaf size 1: 116 / 116 B (3.63x), 2: 68 / 68,
#: 4: 40.1 / 39.1 (1.25x / 1.22x), 6: 30.5 / 30.1 (0.95x / 0.94x), 8: 23.5 / 23.2 (0.73x /
#: 0.72x), 12: 16.9 / 16.9 (0.53x), 16: 14.4 / 13.9 (0.45x / 0.43x). Since the triangle test
#: screens the pairs of a leaf pair by their corner boxes, each leaf's boxes computed once a
#: query (core.collide.tandem.overlapping_triangle_pairs), bigger leaves no longer multiply
#: the exact tests. The W3 frame, medians of 25 frames, 5 runs alternating the leaf sizes,
#: idle: 100k one thread 3.39 / 3.15 / 3.04 ms at leaf size 8 / 12 / 16 (24: 3.03, 32:
#: 2.98), two threads 2.57 / 2.48 / 2.63; 500k one thread 14.3 / 13.3 / 13.1 ms, two threads
#: 9.9 / 9.6 / 9.1. 12 is the fastest at 100k on two threads and within 4 % of the fastest
#: elsewhere. A refitted tree also holds its triangles' corners in tree order
#: (``Tree.corners``, 12 B a triangle), which halved the refit: the W3 memory line counts
#: them for A, 0.72x the meshes at 100k against 0.53x without.
LEAF_SIZE = 12


def build_two(mesh_a: TriMesh, mesh_b: TriMesh, n_threads: int):
    """Build the trees of both meshes.

    With two threads the two serial builders run side by side (``build_trees``: the builder
    releases the GIL); with one thread they run one after the other.

    Returns
    -------
    (Tree, Tree)
    """
    if n_threads > 1:
        tree_a, tree_b = build_trees([mesh_a, mesh_b], leaf_size=LEAF_SIZE)
        return tree_a, tree_b
    return build_one(mesh_a), build_one(mesh_b)


def build_one(mesh: TriMesh):
    """The benchmark's tree of ``mesh``: MIDPOINT, up to :data:`LEAF_SIZE` triangles a leaf."""
    return build_tree(mesh, leaf_size=LEAF_SIZE)


def refit(tree, mesh: TriMesh, leaves: np.ndarray):
    """Refit ``tree`` to ``mesh`` (same faces, moved vertices).

    Parameters
    ----------
    leaves : (l,) int32
        Leaf ids of the tree, kept between frames as a per-body cache would.
    """
    return refit_tree(tree, mesh, leaves)


def leaves_of(tree) -> np.ndarray:
    """Leaf ids of ``tree``, ``(l,) int32``."""
    return leaf_nodes(tree)


def query(mesh_a, tree_a, mesh_b, tree_b, pose_b: Pose, trace: bool = False):
    """All contacts of A (at the identity) and B (at ``pose_b``); a ``CollisionResult``."""
    from core.collide import collide

    return collide(mesh_a, tree_a, mesh_b, tree_b, None, pose_b, trace=trace)


def pairs(result) -> np.ndarray:
    """Contacting face pairs, ``(c, 2) int32``, sorted (as the result already is)."""
    return np.asarray(result.pairs, dtype=np.int32).reshape(-1, 2)


def kind_query(spec: str, mesh_a: TriMesh, mesh_b: TriMesh, pose_b: Pose | None = None):
    """A query with another bounding-volume kind, its trees built and volumes fitted once.

    Parameters
    ----------
    spec : str
        ``kind`` or ``kind:RULE`` (a key of ``core.bv.BV_KINDS``, a ``SplitRule`` name; the
        default rule is MIDPOINT), as in ``benchmarks.w2_kinds``.
    pose_b : Pose, optional
        B's pose (A at the identity).

    Returns
    -------
    callable
        ``() -> CollisionResult``; what is timed (the fits are not: a rigid body keeps them).
    """
    from core.collide.bvquery import collide_bv

    kind, _, rule = spec.partition(":")
    split = SplitRule[rule] if rule else SplitRule.MIDPOINT
    tree_a, tree_b = build_tree(mesh_a, split), build_tree(mesh_b, split)
    vol_a, vol_b = fit_volumes(tree_a, mesh_a, kind), fit_volumes(tree_b, mesh_b, kind)
    return lambda: collide_bv(mesh_a, tree_a, mesh_b, tree_b, None, pose_b, bv=kind,
                              volumes_a=vol_a, volumes_b=vol_b)  # fmt: skip
