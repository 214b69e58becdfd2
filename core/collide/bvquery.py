"""Collision query over any bounding-volume kind of :mod:`core.bv`, on the same flat trees.

The traversal is the one of :func:`core.collide.traversal.traverse_levels` (so the
:class:`~core.collide.trace.Trace` has the same form), with each pair tested by the chosen
kind's ``overlap`` on that kind's ``(k, w)`` volume rows, fitted once per tree and mesh
(:func:`core.bv.fit_volumes`). The separating id in the trace is the
kind's own (box axes 0-14, k-DOP slabs, 0/1 for the swept spheres; see each module). Leaf
pairs go through the same exact triangle test as :func:`core.collide.query.collide`.
"""

from __future__ import annotations

import time

import numpy as np

from core.bv.obb_fit import ObbFit
from core.bv.registry import BVKind, fit_volumes, get_kind
from core.bvh.tree import Tree
from core.collide.budget import DEFAULT_PAIR_BUDGET, QueryControl, check_budget, tree_name
from core.collide.query import (
    CollisionResult,
    box_margin,
    check_margin,
    check_tree,
    finish_query,
    relative_pose,
    rigid_body,
)
from core.collide.tandem import DescendRule
from core.collide.traversal_driver import budgeted_traversal
from core.jit.busy_cores import threads_for_free_cores
from core.mesh import TriMesh
from core.pose import Pose
from core.settings import DEFAULT_TOLERANCES, Tolerances


def collide_bv(
    mesh_a: TriMesh,
    tree_a: Tree,
    mesh_b: TriMesh,
    tree_b: Tree,
    pose_a: Pose | None = None,
    pose_b: Pose | None = None,
    *,
    bv: str | BVKind = "obb",
    descend: DescendRule = DescendRule.LARGER_VOLUME,
    trace: bool = False,
    tol: Tolerances = DEFAULT_TOLERANCES,
    volumes_a: np.ndarray | None = None,
    volumes_b: np.ndarray | None = None,
    obb_fit: ObbFit = ObbFit.SURFACE,
    margin: float = 0.0,
    pair_budget: int = DEFAULT_PAIR_BUDGET,
    control: QueryControl | None = None,
    names: tuple[str, str] | None = None,
) -> CollisionResult:
    """All contacting triangle pairs of two posed meshes, traversing with one BV kind.

    Parameters
    ----------
    mesh_a, mesh_b : TriMesh
    tree_a, tree_b : Tree
        Topologies (any split rule); their own AABBs are only used for the round-off margin.
    pose_a, pose_b : Pose, optional
    bv : str or BVKind
        A key of :data:`core.bv.BV_KINDS`.
    descend : DescendRule
    trace : bool
    tol : Tolerances
    volumes_a, volumes_b : (k, w) float64, optional
        Volume rows to use instead of :func:`core.bv.fit_volumes` (e.g. refitted ones, or an
        OBB fit with another :class:`~core.bv.ObbFit`).
    obb_fit : ObbFit
        Only for ``"obb"`` volumes fitted here: how the axes are chosen.
    margin : float
        Near-contact distance, as in :func:`core.collide.collide`. The volumes are inflated
        by ``sqrt(3) * margin``: the k-DOP slabs use unnormalised directions up to
        ``(1, 1, 1)``, along which two points ``D`` apart differ by up to ``sqrt(3) D``.
    pair_budget, control, names
        As :func:`core.collide.collide` (the default names say the kind: "BVH Lab's OBB
        tree of body A").

    Returns
    -------
    CollisionResult
        Same pairs as :func:`core.collide.collide`; ``timings`` also has ``"fit"``.

    Raises
    ------
    PairBudgetError, QueryCancelled
        As :func:`core.collide.collide`.
    """
    kind = get_kind(bv)
    pair_budget = check_budget(pair_budget)
    if names is None:
        names = (tree_name(tree_a, "A", kind.label), tree_name(tree_b, "B", kind.label))
    check_tree(tree_a, mesh_a, "a")
    check_tree(tree_b, mesh_b, "b")
    for name, tree, volumes in (("volumes_a", tree_a, volumes_a), ("volumes_b", tree_b, volumes_b)):
        if volumes is not None and np.shape(volumes) != (tree.n_nodes, kind.width):
            raise ValueError(
                f"{name} must have shape ({tree.n_nodes}, {kind.width}) for {kind.name} "
                f"volumes of this tree, got {np.shape(volumes)}"
            )
    # Volumes given for an unscaled mesh do not bound the scaled one: fit them afresh.
    if pose_a is not None and not pose_a.is_rigid:
        volumes_a = None
    if pose_b is not None and not pose_b.is_rigid:
        volumes_b = None
    mesh_a, tree_a, pose_a = rigid_body(mesh_a, tree_a, pose_a)
    mesh_b, tree_b, pose_b = rigid_body(mesh_b, tree_b, pose_b)
    t_fit = time.perf_counter()
    vol_a = fit_volumes(tree_a, mesh_a, kind, obb_fit) if volumes_a is None else volumes_a
    vol_b = fit_volumes(tree_b, mesh_b, kind, obb_fit) if volumes_b is None else volumes_b
    rel = relative_pose(pose_a, pose_b)
    rot = np.ascontiguousarray(rel.rotation)
    trans = np.ascontiguousarray(rel.translation)
    margin = check_margin(margin)
    box_pad = box_margin(tree_a, tree_b, tol) + np.sqrt(3.0) * margin

    t0 = time.perf_counter()
    # The volume rows stand in for the box arrays, which the kind's code never reads.
    args = (kind.code, tree_a.first, tree_a.count, vol_a, vol_a, vol_a,
            tree_b.first, tree_b.count, vol_b, vol_b, vol_b,
            rot, trans, box_pad, int(descend), False, trace)  # fmt: skip
    # One thread while the other cores are busy (core.jit.busy_cores: a parallel launch then
    # waits for a scheduler slice).
    with threads_for_free_cores():
        traversal = budgeted_traversal(args, trace, pair_budget, control, (tree_a, tree_b),
                                       names, "the collision query")  # fmt: skip
        timings = {"fit": t0 - t_fit, "traverse": time.perf_counter() - t0}
        return finish_query(mesh_a, tree_a, mesh_b, tree_b, traversal, rot, trans, pose_a,
                            margin, trace, timings, pair_budget, names)  # fmt: skip
