"""One entry for every pair query: a :class:`core.request.CollisionRequest` in, a
:class:`core.collide.query.CollisionResult` out.

Which code answers is decided here and nowhere else: the tree's own refitted boxes
(:func:`core.collide.query.collide`), volumes of another kind fitted on the same topology
(:func:`core.collide.bvquery.collide_bv`), or a spatial partition
(:func:`core.partition.partition_contacts`). Callers (``contacts()``, the frame pipeline, the
command line) hold a request and never branch on the kind themselves.
"""

from __future__ import annotations

from core.bv import TREE_BOX_KIND
from core.bvh.build import build_trees
from core.bvh.tree import Tree
from core.collide.budget import QueryControl
from core.collide.bvquery import collide_bv
from core.collide.query import CollisionResult, collide
from core.mesh import TriMesh
from core.pose import Pose
from core.request import CollisionRequest


def tree_query(
    request: CollisionRequest,
    mesh_a: TriMesh,
    tree_a: Tree,
    mesh_b: TriMesh,
    tree_b: Tree,
    pose_a: Pose | None = None,
    pose_b: Pose | None = None,
    *,
    control: QueryControl | None = None,
    names: tuple[str, str] | None = None,
) -> CollisionResult:
    """Contacts of two posed meshes by traversing their trees with ``request.bv``.

    Parameters
    ----------
    request : CollisionRequest
        ``bv``, ``obb_fit``, ``descend``, ``trace``, ``tol``, ``margin`` and ``pair_budget``
        are used; the trees are given, so ``split`` and ``leaf_size`` are those they were
        built with.
    mesh_a, mesh_b : TriMesh
    tree_a, tree_b : Tree
        Trees fitted to the meshes' current vertices.
    pose_a, pose_b : Pose, optional
    control : QueryControl, optional
        Cancel flag and progress (:class:`core.collide.budget.QueryControl`).
    names : (str, str), optional
        The trees as a budget error names them (default: the file of a tree read from one,
        else "BVH Lab's AABB tree of body A").

    Returns
    -------
    CollisionResult
        ``timings`` has ``"traverse"`` and ``"tritri"``, and ``"fit"`` for a kind other than
        the tree's own boxes.
    """
    if request.bv == TREE_BOX_KIND:
        return collide(mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b,
                       descend=request.descend, trace=request.trace, tol=request.tol,
                       margin=request.margin, pair_budget=request.pair_budget,
                       control=control, names=names)  # fmt: skip
    return collide_bv(mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b, bv=request.bv,
                      descend=request.descend, trace=request.trace, tol=request.tol,
                      obb_fit=request.obb_fit, margin=request.margin,
                      pair_budget=request.pair_budget, control=control,
                      names=names)  # fmt: skip


def partition_query(
    request: CollisionRequest,
    mesh_a: TriMesh,
    mesh_b: TriMesh,
    pose_a: Pose | None = None,
    pose_b: Pose | None = None,
) -> CollisionResult:
    """Contacts of two posed meshes, candidate pairs from ``request.partition``.

    Returns
    -------
    CollisionResult
        With ``partition_kind``, ``cells``, ``planes`` and the candidate counts; ``timings``
        has ``"build"``, ``"candidates"`` and ``"tritri"``.

    Raises
    ------
    ValueError
        The request names no partition, or asks for a near-contact margin (the partitions
        find touching pairs only).
    """
    from core.partition import partition_contacts

    if request.partition is None:
        raise ValueError("partition_query needs a request with a partition kind")
    if request.margin > 0.0:
        raise ValueError("margin works with the tree traversal, not with a partition")
    return partition_contacts(mesh_a, mesh_b, pose_a, pose_b, kind=request.partition,
                              tol=request.tol, **dict(request.partition_params))  # fmt: skip


def run_query(
    request: CollisionRequest,
    mesh_a: TriMesh,
    mesh_b: TriMesh,
    pose_a: Pose | None = None,
    pose_b: Pose | None = None,
    trees: tuple[Tree, Tree] | None = None,
    *,
    control: QueryControl | None = None,
    names: tuple[str, str] | None = None,
) -> CollisionResult:
    """The pair query a request asks for: its partition if it names one, else its trees.

    Parameters
    ----------
    request : CollisionRequest
    mesh_a, mesh_b : TriMesh
    pose_a, pose_b : Pose, optional
    trees : (Tree, Tree), optional
        Trees already fitted to the meshes; built with ``request.split`` and
        ``request.leaf_size`` when None (and when a partition answers, not used).
    control, names
        As :func:`tree_query`.

    Returns
    -------
    CollisionResult
    """
    if request.partition is not None:
        return partition_query(request, mesh_a, mesh_b, pose_a, pose_b)
    if trees is None:
        trees = build_trees([mesh_a, mesh_b], request.split, request.leaf_size)
    return tree_query(request, mesh_a, trees[0], mesh_b, trees[1], pose_a, pose_b,
                      control=control, names=names)  # fmt: skip
