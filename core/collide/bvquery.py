"""Collision query over any bounding-volume kind of :mod:`core.bv`, on the same flat trees.

The traversal is :mod:`core.collide.tandem`'s, breadth first with a classify and a scatter
per level (so the :class:`~core.collide.trace.Trace` has the same form), but each pair is
tested with the chosen kind's ``overlap`` on that kind's ``(k, w)`` volume rows, fitted once
per tree and mesh (:func:`core.bv.fit_volumes`). The separating id in the trace is the
kind's own (box axes 0-14, k-DOP slabs, 0/1 for the swept spheres; see each module). Leaf
pairs go through the same exact triangle test as :func:`core.collide.query.collide`.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit, prange

from core.bv import obb
from core.bv.obb_fit import ObbFit
from core.bv.registry import (
    BV_KINDS,
    BVKind,
    fit_volumes,
    get_kind,
    overlap_by_code,
    volume_by_code,
)
from core.bvh.tree import Tree
from core.collide.query import (
    CollisionResult,
    box_margin,
    check_margin,
    check_tree,
    finish_query,
    relative_pose,
    rigid_body,
    split_traversal,
)
from core.collide.tandem import (
    ACTION_CULL,
    ACTION_LEAVES,
    ACTION_SPLIT_A,
    ACTION_SPLIT_B,
    ACTION_SPLIT_BOTH,
    DescendRule,
    grow,
    level_offsets,
    new_trace_buffers,
    record_level,
    scatter_parallel,
    scatter_serial,
    traversal_output,
)
from core.mesh import TriMesh
from core.pose import Pose
from core.settings import DEFAULT_TOLERANCES, Tolerances

#: :attr:`BVKind.code` of the OBB, called without the dispatch chain (see ``_classify_py``).
OBB_CODE = BV_KINDS["obb"].code


def _classify_py(code, fa, fb, count_a, vol_a, count_b, vol_b, rot, trans, margin, rule,
                 sep_out, action_out):  # fmt: skip
    for i in prange(fa.shape[0]):
        a = fa[i]
        b = fb[i]
        # The OBB test is called directly: through the dispatch chain it cost 115 instead of
        # 68 ns a pair (measured, serial), the call not being inlined.
        if code == OBB_CODE:
            sep = obb.overlap_at(vol_a, a, vol_b, b, rot, trans, margin)
        else:
            sep = overlap_by_code(code, vol_a, a, vol_b, b, rot, trans, margin)
        sep_out[i] = sep
        if sep >= 0:
            action_out[i] = ACTION_CULL
            continue
        leaf_a = count_a[a] > 0
        leaf_b = count_b[b] > 0
        if leaf_a and leaf_b:
            action_out[i] = ACTION_LEAVES
        elif leaf_a:
            action_out[i] = ACTION_SPLIT_B
        elif leaf_b:
            action_out[i] = ACTION_SPLIT_A
        elif rule == 1:
            action_out[i] = ACTION_SPLIT_BOTH
        elif rule == 2:
            action_out[i] = ACTION_SPLIT_A
        elif code == OBB_CODE:
            if obb.half_volume(vol_a, a) >= obb.half_volume(vol_b, b):
                action_out[i] = ACTION_SPLIT_A
            else:
                action_out[i] = ACTION_SPLIT_B
        elif volume_by_code(code, vol_a, a) >= volume_by_code(code, vol_b, b):
            action_out[i] = ACTION_SPLIT_A
        else:
            action_out[i] = ACTION_SPLIT_B


# As in tandem.py: the serial variant is not cached, or it would share the parallel one's
# cache entry (same Python function) and launch threads for every small level.
_classify_serial = njit(nogil=True)(_classify_py)
_classify_parallel = njit(cache=True, nogil=True, parallel=True)(_classify_py)


@njit(cache=True, nogil=True)
def traverse_bv_from(code, first_a, count_a, vol_a, first_b, count_b, vol_b, rot, trans, margin,
                     rule, record, parallel_min, start_a, start_b, stop_at):  # fmt: skip
    """Tandem traversal from a frontier of node pairs with the volumes of kind ``code``.

    Parameters
    ----------
    code : int
        :attr:`core.bv.BVKind.code`.
    first_a, count_a : (ka,) int32
    vol_a : (ka, w) float64
    first_b, count_b : (kb,) int32
    vol_b : (kb, w) float64
        B's volumes in B's coordinates.
    rot : (3, 3) float64
    trans : (3,) float64
        ``x_A = rot @ x_B + trans``.
    margin : float
    rule : int
        A :class:`DescendRule` value (LARGER_VOLUME uses the kind's ``volume``).
    record : bool
    parallel_min : int
    start_a, start_b : (f,) int32
    stop_at : int
        As :func:`core.collide.tandem.traverse_from`.

    Returns
    -------
    Same ten items as :func:`core.collide.tandem.traverse_from`.
    """
    fa = start_a
    fb = start_b
    leaf_a = np.empty(1024, dtype=np.int32)
    leaf_b = np.empty(1024, dtype=np.int32)
    n_leaf = 0
    level_start, level_leaves, trace_a, trace_b, trace_sep = new_trace_buffers(record)
    n_levels = 0
    n_tests = 0
    n_overlaps = 0
    while fa.shape[0] > 0 and fa.shape[0] < stop_at:
        n = fa.shape[0]
        sep = np.empty(n, dtype=np.int8)
        action = np.empty(n, dtype=np.int8)
        parallel = n >= parallel_min
        if parallel:
            _classify_parallel(code, fa, fb, count_a, vol_a, count_b, vol_b, rot, trans, margin,
                               rule, sep, action)  # fmt: skip
        else:
            _classify_serial(code, fa, fb, count_a, vol_a, count_b, vol_b, rot, trans, margin,
                             rule, sep, action)  # fmt: skip
        child_offset, leaf_offset, n_child, n_new_leaf, n_overlap = level_offsets(action, n_leaf)
        n_overlaps += n_overlap
        n_tests += n
        leaf_a = grow(leaf_a, n_leaf + n_new_leaf)
        leaf_b = grow(leaf_b, n_leaf + n_new_leaf)
        next_a = np.empty(n_child, dtype=np.int32)
        next_b = np.empty(n_child, dtype=np.int32)
        if parallel:
            scatter_parallel(fa, fb, action, child_offset, leaf_offset, first_a, first_b,
                              next_a, next_b, leaf_a, leaf_b)  # fmt: skip
        else:
            scatter_serial(fa, fb, action, child_offset, leaf_offset, first_a, first_b,
                            next_a, next_b, leaf_a, leaf_b)  # fmt: skip
        n_leaf += n_new_leaf
        if record:
            level_start, level_leaves, trace_a, trace_b, trace_sep = record_level(
                level_start, level_leaves, trace_a, trace_b, trace_sep, n_levels, fa, fb, sep,
                n_new_leaf)
        n_levels += 1
        fa = next_a
        fb = next_b
    out = traversal_output(leaf_a, leaf_b, n_leaf, n_tests, n_overlaps, record, n_levels,
                           level_start, level_leaves, trace_a, trace_b, trace_sep)
    return out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7], fa, fb


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

    Returns
    -------
    CollisionResult
        Same pairs as :func:`core.collide.collide`; ``timings`` also has ``"fit"``.
    """
    kind = get_kind(bv)
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
    args = (kind.code, tree_a.first, tree_a.count, vol_a, tree_b.first, tree_b.count, vol_b,
            rot, trans, box_pad, int(descend), trace)  # fmt: skip
    traversal = split_traversal(traverse_bv_from, args, trace)
    timings = {"fit": t0 - t_fit, "traverse": time.perf_counter() - t0}
    return finish_query(mesh_a, tree_a, mesh_b, tree_b, traversal, rot, trans, pose_a, margin,
                        trace, timings)  # fmt: skip
