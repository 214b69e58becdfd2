"""Minimum distance and tolerance queries between two posed meshes (PQP style).

Branch and bound over the same flat trees as the collision query (Larsen, Gottschalk, Lin,
Manocha 2000, "Fast distance queries with rectangular swept sphere volumes"): pairs of nodes
are visited depth first, the closer child pair first, and a pair is dropped when its volumes'
lower-bound distance is already no better than the best triangle pair found. Leaves run the
exact triangle-triangle distance (:func:`core.bv._geom.tri_tri_closest`).

Any kind whose registry row ``bounds_distance`` (it has a ``lower_bound``) can drive it: ``rss``
(PQP's choice, the default), ``lss``, ``pss``, ``sphere``, ``obb`` (largest separating-axis gap)
and the ``aabb`` kinds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from core.bv._geom import tri_tri_closest
from core.bv.registry import BV_KINDS, fit_volumes, get_kind, lower_bound_by_code, volume_by_code
from core.bvh.tree import Tree
from core.checks import instance, real_number
from core.collide.query import box_margin, check_tree, relative_pose, rigid_body
from core.collide.tandem import transform_points
from core.collide.trace import Counters
from core.collide.traversal import grow
from core.jit.kernel_args import frozen
from core.mesh import TriMesh, check_coordinate_bound
from core.pose import Pose
from core.settings import DEFAULT_TOLERANCES, Tolerances


@dataclass(frozen=True, eq=False)
class DistanceResult:
    """The closest pair of triangles of two meshes.

    Attributes
    ----------
    distance : float
        0 when the meshes touch or cross.
    pair : (2,) int64
        Face ids (into A's faces, into B's faces) of a closest pair.
    point_a, point_b : (3,) float64
        The closest points, on A's and on B's triangle, in world coordinates.
    counters : Counters
        ``n_bv_tests`` volume pairs bounded, ``n_tri_tests`` triangle distances computed.
    timings : dict[str, float]
        Seconds: ``"fit"``, ``"search"``.
    """

    distance: float
    pair: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    counters: Counters
    timings: dict = field(default_factory=dict)


@njit(cache=True, nogil=True)
def _leaf_pairs(first_a, count_a, prim_ids_a, va, fa, first_b, count_b, prim_ids_b, vb, fb,
                a, b, best, out_pair, out_pa, out_pb):  # fmt: skip
    n = 0
    for p in range(first_a[a], first_a[a] + count_a[a]):
        ta = prim_ids_a[p]
        for q in range(first_b[b], first_b[b] + count_b[b]):
            tb = prim_ids_b[q]
            n += 1
            d, pa, pb = tri_tri_closest(va[fa[ta, 0]], va[fa[ta, 1]], va[fa[ta, 2]],
                                        vb[fb[tb, 0]], vb[fb[tb, 1]], vb[fb[tb, 2]])  # fmt: skip
            if d < best:
                best = d
                out_pair[0] = ta
                out_pair[1] = tb
                out_pa[:] = pa
                out_pb[:] = pb
    return best, n


@njit(cache=True, nogil=True)
def branch_and_bound(code, first_a, count_a, prim_ids_a, vol_a, va, fa, first_b, count_b,
                     prim_ids_b, vol_b, vb, fb, rot, trans, upper, stop_at, margin):  # fmt: skip
    """Smallest triangle distance below ``upper``.

    Parameters
    ----------
    code : int
        BV kind code (its ``lower_bound`` prunes).
    first_*, count_*, prim_ids_* : tree arrays of A and B.
    vol_a, vol_b : (k, w) float64
        Volumes, B's in B's frame.
    va : (na, 3) float64
    vb : (nb, 3) float64
        B's vertices already in A's frame.
    fa, fb : (m, 3) int32
    rot : (3, 3) float64
    trans : (3,) float64
        ``x_A = rot @ x_B + trans`` (for B's volumes).
    upper : float
        Only distances below this are searched for (``inf`` for the minimum).
    stop_at : float
        Stop as soon as a pair at or below this distance is found (``-1`` never stops).
    margin : float
        Round-off allowance subtracted from every lower bound before pruning.

    Returns
    -------
    best : float
        ``upper`` if nothing closer was found.
    pair : (2,) int64
    pa, pb : (3,) float64
    n_bv, n_tri : int
    """
    pair = np.full(2, -1, dtype=np.int64)
    pa = np.zeros(3)
    pb = np.zeros(3)
    best = upper
    n_bv = 1
    n_tri = 0
    stack_a = np.empty(256, dtype=np.int32)
    stack_b = np.empty(256, dtype=np.int32)
    stack_lb = np.empty(256)
    stack_a[0] = 0
    stack_b[0] = 0
    stack_lb[0] = lower_bound_by_code(code, vol_a[0], vol_b[0], rot, trans)
    top = 1
    ca = np.empty(2, dtype=np.int32)
    cb = np.empty(2, dtype=np.int32)
    lbs = np.empty(2)
    while top > 0:
        top -= 1
        a = stack_a[top]
        b = stack_b[top]
        if stack_lb[top] - margin >= best:
            continue
        leaf_a = count_a[a] > 0
        leaf_b = count_b[b] > 0
        if leaf_a and leaf_b:
            best, n = _leaf_pairs(first_a, count_a, prim_ids_a, va, fa, first_b, count_b,
                                  prim_ids_b, vb, fb, a, b, best, pair, pa, pb)  # fmt: skip
            n_tri += n
            if best <= stop_at:
                break
            continue
        split_a = not leaf_a and (
            leaf_b or volume_by_code(code, vol_a, a) >= volume_by_code(code, vol_b, b)
        )
        for c in range(2):
            if split_a:
                ca[c] = first_a[a] + c
                cb[c] = b
            else:
                ca[c] = a
                cb[c] = first_b[b] + c
            lbs[c] = lower_bound_by_code(code, vol_a[ca[c]], vol_b[cb[c]], rot, trans)
        n_bv += 2
        stack_a = grow(stack_a, top + 2)
        stack_b = grow(stack_b, top + 2)
        stack_lb = grow(stack_lb, top + 2)
        # Push the farther pair first so that the closer one is searched first (PQP).
        order = (0, 1) if lbs[0] >= lbs[1] else (1, 0)
        for c in order:
            if lbs[c] - margin < best:
                stack_a[top] = ca[c]
                stack_b[top] = cb[c]
                stack_lb[top] = lbs[c]
                top += 1
    return best, pair, pa, pb, n_bv, n_tri


def _search(mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b, bv, upper, stop_at, tol):
    kind = get_kind(bv)
    if not kind.bounds_distance:
        usable = " ".join(name for name, k in BV_KINDS.items() if k.bounds_distance)
        raise ValueError(f"bounding volume {kind.name!r} has no distance bound; use one of "
                         f"{usable}")  # fmt: skip
    t0 = time.perf_counter()
    vol_a = fit_volumes(tree_a, mesh_a, kind)
    vol_b = fit_volumes(tree_b, mesh_b, kind)
    rel = relative_pose(pose_a, pose_b)
    rot = np.ascontiguousarray(rel.rotation)
    trans = np.ascontiguousarray(rel.translation)
    vb = transform_points(mesh_b.vertices, rot, trans)
    t1 = time.perf_counter()
    out = branch_and_bound(
        kind.code, tree_a.first, tree_a.count, tree_a.prim_ids, vol_a, mesh_a.vertices,
        mesh_a.faces, tree_b.first, tree_b.count, tree_b.prim_ids, vol_b, vb, mesh_b.faces,
        rot, trans, float(upper), float(stop_at), box_margin(tree_a, tree_b, tol),
    )  # fmt: skip
    t2 = time.perf_counter()
    return out, {"fit": t1 - t0, "search": t2 - t1}


def _checked_rigid(mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b):
    """The distance queries' argument checks, then scales moved into the meshes.

    Raises ``TypeError`` naming a mesh, tree or pose of the wrong type, and ``ValueError`` when
    a posed mesh reaches past :data:`core.mesh.MAX_ABS_COORDINATE` (the distance would
    overflow to infinity).
    """
    for name, mesh, tree, pose in (("mesh_a", mesh_a, tree_a, pose_a),
                                   ("mesh_b", mesh_b, tree_b, pose_b)):  # fmt: skip
        instance(mesh, name, TriMesh)
        check_tree(tree, mesh, name[-1])
        instance(pose, "pose_" + name[-1], Pose, optional=True)
        check_coordinate_bound(mesh, name, pose)
    mesh_a, tree_a, pose_a = rigid_body(mesh_a, tree_a, pose_a)
    mesh_b, tree_b, pose_b = rigid_body(mesh_b, tree_b, pose_b)
    return mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b


def min_distance(
    mesh_a: TriMesh,
    tree_a: Tree,
    mesh_b: TriMesh,
    tree_b: Tree,
    pose_a: Pose | None = None,
    pose_b: Pose | None = None,
    bv: str = "rss",
    tol: Tolerances = DEFAULT_TOLERANCES,
) -> DistanceResult:
    """Minimum distance between two posed meshes, with a closest pair and its points.

    Parameters
    ----------
    mesh_a, mesh_b : TriMesh
    tree_a, tree_b : Tree
    pose_a, pose_b : Pose, optional
        World poses (identity when None).
    bv : str
        Kind whose volumes bound the distance (default ``"rss"``, as PQP).
    tol : Tolerances
        ``box_rel`` sets the round-off allowance of the bounds.

    Returns
    -------
    DistanceResult
    """
    mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b = _checked_rigid(
        mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b
    )
    (best, pair, pa, pb, n_bv, n_tri), timings = _search(
        mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b, bv, np.inf, -1.0, tol
    )
    world = pose_a if pose_a is not None else Pose()
    counters = Counters(n_bv_tests=int(n_bv), n_tri_tests=int(n_tri))
    return DistanceResult(float(best), pair.copy(), world.apply(pa), world.apply(pb), counters,
                          timings)  # fmt: skip


def within_distance(
    mesh_a: TriMesh,
    tree_a: Tree,
    mesh_b: TriMesh,
    tree_b: Tree,
    pose_a: Pose | None = None,
    pose_b: Pose | None = None,
    d: float = 0.0,
    bv: str = "rss",
    tol: Tolerances = DEFAULT_TOLERANCES,
) -> bool:
    """Whether the meshes come within distance ``d`` (PQP's tolerance query).

    Stops at the first triangle pair within ``d``; volume pairs farther than ``d`` are pruned
    from the start, so the answer costs less than :func:`min_distance`.
    """
    d = real_number(d, "d")
    if not np.isfinite(d) or d < 0.0:
        raise ValueError(f"tolerance distance must be a finite number >= 0, got {d}")
    mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b = _checked_rigid(
        mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b
    )
    # Search strictly below an upper bound just above d, and stop at the first pair <= d.
    upper = np.nextafter(float(d), np.inf)
    (best, *_), _ = _search(mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b, bv, upper, d, tol)
    return bool(best <= d)


def brute_force_distance(va, fa, vb, fb):
    """Minimum triangle distance over all pairs, O(ma * mb): the oracle of the tests.

    The arrays reach the kernel read-only, vertices ``float64`` and faces ``int32``
    (:mod:`core.jit.kernel_args`): one compiled signature, the warm-up's, for every caller.

    Parameters
    ----------
    va, vb : (n, 3) float64
        Both in the same frame.
    fa, fb : (m, 3) int32

    Returns
    -------
    dist : float
    pair : (2,) int64
    """
    return _brute_force_distance(frozen(va, np.float64), frozen(fa, np.int32),
                                 frozen(vb, np.float64), frozen(fb, np.int32))


@njit(cache=True, nogil=True)
def _brute_force_distance(va, fa, vb, fb):
    """The kernel of :func:`brute_force_distance`: the same arrays, as that function hands them over
    (read-only, vertices ``float64``, faces and ids ``int32``)."""
    best = np.inf
    pair = np.full(2, -1, dtype=np.int64)
    # The keep-the-smallest loop of _leaf_pairs over every pair: the oracle the tree walk is
    # tested against shares no kernel with it, so one bug cannot hide in both.
    for i in range(fa.shape[0]):
        for j in range(fb.shape[0]):
            d, _, _ = tri_tri_closest(va[fa[i, 0]], va[fa[i, 1]], va[fa[i, 2]],
                                      vb[fb[j, 0]], vb[fb[j, 1]], vb[fb[j, 2]])  # fmt: skip
            if d < best:
                best = d
                pair[0] = i
                pair[1] = j
    return best, pair
