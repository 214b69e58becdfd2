"""The core's phases as the benchmarks call them (van den Bergen 1997 defaults).

Everything here goes through the public core API: ``build_tree`` / ``build_trees``,
``refit_tree`` and ``collide``, with the default split rule (MIDPOINT), leaf size 1 and
descend rule (LARGER_VOLUME).
"""

from __future__ import annotations

import numpy as np

from core.bv import fit_volumes
from core.bvh import SplitRule, build_tree, build_trees, refit_tree
from core.bvh.refit import leaf_nodes
from core.mesh import TriMesh
from core.pose import Pose

NAME = "ours"


def build_two(mesh_a: TriMesh, mesh_b: TriMesh, n_threads: int):
    """Build the trees of both meshes.

    With two threads the two serial builders run side by side (``build_trees``: the builder
    releases the GIL); with one thread they run one after the other.

    Returns
    -------
    (Tree, Tree)
    """
    if n_threads > 1:
        tree_a, tree_b = build_trees([mesh_a, mesh_b])
        return tree_a, tree_b
    return build_tree(mesh_a), build_tree(mesh_b)


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
