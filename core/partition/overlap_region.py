"""AABB + space division of the overlap region (Yu et al. 2018).

Yu, Lyu, Li, "A collision detection algorithm based on AABB and space division of the overlap
region" (2018): intersect the two objects' boxes, divide only that region into cells, bin only
the triangles that touch it, and test only triangles that share a cell, with segment-triangle
tests before the exact one.

Here, in A's frame (B mapped by the relative pose):

1. ``region`` = A's vertex box ∩ B's vertex box, inflated by the box margin; empty -> done.
2. Triangles whose inflated box misses the region are dropped; the others' boxes are clipped
   to the region (a contact point lies in both objects' boxes, hence in the region and in both
   clipped boxes) and binned into a uniform grid over the region
   (:mod:`core.partition.grid`, cell size from the mean size of the binned triangles).
3. Candidate pairs share a cell (deduplicated).
4. Segment pre-test: two triangles can meet only if some edge of each reaches the other's
   plane, i.e. the corners of neither lie strictly on one side of the other's plane. The pre-test
   rejects a pair when all three corners of one triangle are farther than the box margin (plus
   a float64 round-off bound) on one side of the other's plane; it is conservative, so the exact
   test :func:`core.collide.tritri.tri_tri_batch` on the survivors gives exactly the oracle's
   contacts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit, prange

from core.collide.query import rigid_body
from core.mesh import TriMesh
from core.partition import b_in_a_frame, run_tri_tests
from core.partition.base import (
    candidate_keys,
    decode_keys,
    inflated_boxes_and_centroids,
    margin_for,
)
from core.partition.grid import GridParams
from core.partition.grid import build_from_boxes as grid_build
from core.pose import Pose
from core.settings import DEFAULT_TOLERANCES, Tolerances

__all__ = [
    "OverlapRegionParams",
    "OverlapRegionResult",
    "overlap_region_contacts",
]

_ROUNDOFF = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class OverlapRegionParams:
    """Settings of the overlap-region method.

    Attributes
    ----------
    cells_per_axis : int or None
        Divide the region's longest side into this many cubic cells; None: cells of
        ``cell_scale`` times the mean size of the binned triangles.
    cell_scale : float
    use_pretest : bool
        Run the segment / plane pre-test before the exact test.
    """

    cells_per_axis: int | None = None
    cell_scale: float = 1.0
    use_pretest: bool = True


@dataclass(frozen=True, eq=False)
class OverlapRegionResult:
    """Contacts found by the overlap-region method.

    Attributes
    ----------
    pairs : (c, 2) int32
        Contacting face ids (A, B), sorted lexicographically.
    kinds : (c,) int8
    segments : (c, 2, 3) float64
        World coordinates.
    region : (2, 3) float64
        ``(bmin, bmax)`` of the overlap region in A's frame; NaN when the boxes are disjoint.
    n_binned : tuple of int
        Triangles of A and of B that touch the region.
    n_candidates : int
        Distinct pairs sharing a cell.
    n_pretest_rejected : int
        Candidates the pre-test discarded.
    n_tri_tests : int
        Exact tests run.
    cells : (q, 2, 3) float64
        Cells both meshes occupy (A's frame).
    timings : dict[str, float]
        Seconds: ``"region"``, ``"bin"``, ``"pretest"``, ``"tritri"``.
    """

    pairs: np.ndarray
    kinds: np.ndarray
    segments: np.ndarray
    region: np.ndarray
    n_binned: tuple
    n_candidates: int
    n_pretest_rejected: int
    n_tri_tests: int
    cells: np.ndarray
    timings: dict = field(default_factory=dict)

    @property
    def n_contacts(self) -> int:
        return int(self.pairs.shape[0])


@njit(cache=True, nogil=True)
def _all_one_side(p, q, margin):
    """All corners of triangle ``q`` (3, 3) farther than ``margin`` (plus a round-off bound) on
    one side of triangle ``p``'s plane."""
    ux, uy, uz = p[1, 0] - p[0, 0], p[1, 1] - p[0, 1], p[1, 2] - p[0, 2]
    vx, vy, vz = p[2, 0] - p[0, 0], p[2, 1] - p[0, 1], p[2, 2] - p[0, 2]
    wx, wy, wz = p[2, 0] - p[1, 0], p[2, 1] - p[1, 1], p[2, 2] - p[1, 2]
    nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
    ln = np.sqrt(nx * nx + ny * ny + nz * nz)
    l2 = max(ux * ux + uy * uy + uz * uz, vx * vx + vy * vy + vz * vz, wx * wx + wy * wy + wz * wz)
    s = np.empty(3)
    reach = 0.0
    for i in range(3):
        dx, dy, dz = q[i, 0] - p[0, 0], q[i, 1] - p[0, 1], q[i, 2] - p[0, 2]
        s[i] = nx * dx + ny * dy + nz * dz
        reach = max(reach, np.sqrt(dx * dx + dy * dy + dz * dz))
    # s is |n| times a signed distance; the cross product carries an absolute error of a few
    # ulps of l2 per component, which the dot product scales by the reach.
    limit = margin * ln + 8.0 * _ROUNDOFF * l2 * reach
    return (s[0] > limit and s[1] > limit and s[2] > limit) or (
        s[0] < -limit and s[1] < -limit and s[2] < -limit
    )


@njit(cache=True, nogil=True, parallel=True)
def _pretest(tris_a, tris_b, pairs, margin):
    """``(c,) bool``: the pair survives the pre-test (an edge of each reaches the other's plane)."""
    keep = np.empty(pairs.shape[0], dtype=np.bool_)
    for k in prange(pairs.shape[0]):
        p = tris_a[pairs[k, 0]]
        q = tris_b[pairs[k, 1]]
        keep[k] = not (_all_one_side(p, q, margin) or _all_one_side(q, p, margin))
    return keep


def _empty(region, n_binned, timings):
    return OverlapRegionResult(
        pairs=np.empty((0, 2), np.int32), kinds=np.empty(0, np.int8), segments=np.empty((0, 2, 3)),
        region=region, n_binned=n_binned, n_candidates=0, n_pretest_rejected=0, n_tri_tests=0,
        cells=np.empty((0, 2, 3)), timings=timings,
    )  # fmt: skip


def overlap_region_contacts(
    mesh_a: TriMesh,
    mesh_b: TriMesh,
    pose_a: Pose | None = None,
    pose_b: Pose | None = None,
    params: OverlapRegionParams | None = None,
    tol: Tolerances = DEFAULT_TOLERANCES,
) -> OverlapRegionResult:
    """All contacting triangle pairs, by the overlap-region method (see the module text).

    Parameters
    ----------
    mesh_a, mesh_b : TriMesh
    pose_a, pose_b : Pose, optional
    params : OverlapRegionParams, optional
    tol : Tolerances

    Returns
    -------
    OverlapRegionResult
    """
    params = params or OverlapRegionParams()
    mesh_a, _, pose_a = rigid_body(mesh_a, None, pose_a)
    mesh_b, _, pose_b = rigid_body(mesh_b, None, pose_b)
    t0 = time.perf_counter()
    va = mesh_a.vertices
    vb = b_in_a_frame(mesh_b, pose_a, pose_b)
    lo_a, hi_a = va.min(axis=0), va.max(axis=0)
    lo_b, hi_b = vb.min(axis=0), vb.max(axis=0)
    margin = margin_for(np.minimum(lo_a, lo_b), np.maximum(hi_a, hi_b), tol)
    region = np.stack([np.maximum(lo_a, lo_b) - margin, np.minimum(hi_a, hi_b) + margin])
    if np.any(region[0] > region[1]):
        nan = np.full((2, 3), np.nan)
        return _empty(nan, (0, 0), {"region": time.perf_counter() - t0})
    tris_a = va[mesh_a.faces]
    tris_b = vb[mesh_b.faces]
    bmin, bmax, cen = inflated_boxes_and_centroids(np.concatenate([tris_a, tris_b]), margin)
    is_in = np.all(bmin <= region[1], axis=1) & np.all(bmax >= region[0], axis=1)
    ids = np.flatnonzero(is_in)
    n_a_in = int(np.count_nonzero(ids < mesh_a.n_faces))
    n_binned = (n_a_in, int(ids.shape[0] - n_a_in))
    t1 = time.perf_counter()
    if n_binned[0] == 0 or n_binned[1] == 0:
        return _empty(region, n_binned, {"region": t1 - t0})
    sub_min = np.maximum(bmin[ids], region[0])
    sub_max = np.minimum(bmax[ids], region[1])
    if params.cells_per_axis is not None:
        grid = GridParams(cell_size=float(np.max(region[1] - region[0])) / params.cells_per_axis)
    else:
        grid = GridParams(cell_scale=params.cell_scale)
    part = grid_build(None, sub_min, sub_max, cen[ids], n_a_in, grid)
    keys, _ = candidate_keys(part)
    local = decode_keys(keys, n_binned[1])
    # back to face ids: A's binned ids come first and ascend, B's follow
    candidates = np.empty_like(local)
    candidates[:, 0] = ids[local[:, 0]]
    candidates[:, 1] = ids[n_a_in + local[:, 1]] - mesh_a.n_faces
    t2 = time.perf_counter()
    n_candidates = int(candidates.shape[0])
    if params.use_pretest and n_candidates:
        candidates = candidates[_pretest(tris_a, tris_b, candidates, margin)]
    t3 = time.perf_counter()
    pairs, kinds, segs = run_tri_tests(va, mesh_a.faces, vb, mesh_b.faces, candidates, tol, pose_a)
    t4 = time.perf_counter()
    is_both = part.leaf_has_both()
    return OverlapRegionResult(
        pairs=pairs, kinds=kinds, segments=segs, region=region, n_binned=n_binned,
        n_candidates=n_candidates, n_pretest_rejected=n_candidates - int(candidates.shape[0]),
        n_tri_tests=int(candidates.shape[0]),
        cells=np.stack([part.leaf_bmin[is_both], part.leaf_bmax[is_both]], axis=1),
        timings={"region": t1 - t0, "bin": t2 - t1, "pretest": t3 - t2, "tritri": t4 - t3},
    )  # fmt: skip
