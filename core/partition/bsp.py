"""BSP tree over the triangles of both meshes: each node is cut by one plane; a triangle goes
to the back when one of its corners is within ``margin`` of the back side or behind it, to the
front likewise, so a triangle straddling the plane goes to both.

Two plane rules (:class:`BspPlaneRule`):

* ``TRIANGLE`` (auto-partition, Fuchs, Kedem & Naylor 1980): candidate planes are the planes
  of up to ``n_candidates`` triangles of the node, evenly spread through it; each is scored on
  up to ``n_score_samples`` of the node's triangles by ``straddle_weight * straddling +
  |front - back|`` and the lowest wins. The principal plane (below) is always a candidate too:
  on a curved surface each triangle's plane is a tangent plane with the node on one side.
* ``PRINCIPAL`` (an arbitrary direction fitted to the node): the normal is the principal axis of
  the node's triangle centroids (power iteration on their 3x3 covariance), through their median.

A triangle lying in its own splitting plane goes to both sides; a split that sends every
triangle of a node to both sides is undone (see :func:`core.partition.base.build_levels`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np
from numba import njit

from core.mesh import TriMesh
from core.partition.base import (
    Partition,
    PlaneRecords,
    build_levels,
    build_over_mesh,
    leaf_content_boxes,
)
from core.partition.limits import (
    MAX_PLANE_CANDIDATES,
    MAX_TREE_DEPTH,
    check_int_setting,
    check_real,
    check_tree_params,
)
from core.settings import DEFAULT_TOLERANCES, Tolerances

__all__ = ["BspParams", "BspPlaneRule", "build"]

# Power iterations on a 3x3 covariance: the error shrinks as (l2 / l1)^k; 32 steps leave
# 1e-3 even when the two largest variances differ by 20 %, plenty for a splitting direction
# (any plane is correct, only the balance of the split depends on it).
_POWER_STEPS = 32


class BspPlaneRule(IntEnum):
    """How a BSP node chooses its plane."""

    TRIANGLE = 0
    """The plane of one of the node's triangles (auto-partition), best of a sample."""
    PRINCIPAL = 1
    """Normal along the principal axis of the centroids, through their median."""


@dataclass(frozen=True)
class BspParams:
    """BSP settings.

    Attributes
    ----------
    max_depth : int
    capacity : int
        A node with at most this many triangles is a leaf.
    plane_rule : BspPlaneRule
    n_candidates : int
        Triangle planes tried per node (``TRIANGLE`` rule).
    n_score_samples : int
        Triangles each candidate plane is scored on.
    straddle_weight : float
        Cost of a straddling triangle against one unit of imbalance; straddlers are copied into
        both subtrees, so they cost more than an uneven split.
    split_single_mesh : bool
        Also split nodes that hold one mesh only.
    max_child_fraction : float
        A split whose larger child keeps more than this fraction of the node's triangles is
        undone (the node stays a leaf), as :class:`core.partition.kdtree.KdTreeParams`' (which
        says what it was measured on).
    """

    max_depth: int = 24
    capacity: int = 16
    plane_rule: BspPlaneRule = BspPlaneRule.TRIANGLE
    n_candidates: int = 8
    n_score_samples: int = 64
    straddle_weight: float = 4.0
    split_single_mesh: bool = False
    max_child_fraction: float = 0.9

    def __post_init__(self):
        check_tree_params(self, MAX_TREE_DEPTH)
        if not isinstance(self.plane_rule, BspPlaneRule):
            raise TypeError(f"plane_rule must be a BspPlaneRule, got "
                            f"{type(self.plane_rule).__name__}")  # fmt: skip
        check_int_setting(self.n_candidates, "n_candidates", 1, MAX_PLANE_CANDIDATES)
        check_int_setting(self.n_score_samples, "n_score_samples", 1, MAX_PLANE_CANDIDATES)
        check_real(self.straddle_weight, "straddle_weight", 0.0, 1e6)
        check_real(self.max_child_fraction, "max_child_fraction", 0.0, 1.0, low_open=True)


@njit(cache=True, nogil=True)
def _side_range(tris, t, nx, ny, nz, d):
    s0 = nx * tris[t, 0, 0] + ny * tris[t, 0, 1] + nz * tris[t, 0, 2] - d
    s1 = nx * tris[t, 1, 0] + ny * tris[t, 1, 1] + nz * tris[t, 1, 2] - d
    s2 = nx * tris[t, 2, 0] + ny * tris[t, 2, 1] + nz * tris[t, 2, 2] - d
    return min(s0, s1, s2), max(s0, s1, s2)


@njit(cache=True, nogil=True)
def _principal_plane(tris, cen, ent_tri, s, e):
    """Normal (principal axis of the centroids) and offset (their median along it)."""
    n = e - s
    mean = np.zeros(3)
    for j in range(s, e):
        for k in range(3):
            mean[k] += cen[ent_tri[j], k]
    mean /= n
    cov = np.zeros((3, 3))
    for j in range(s, e):
        t = ent_tri[j]
        for a in range(3):
            for b in range(3):
                cov[a, b] += (cen[t, a] - mean[a]) * (cen[t, b] - mean[b])
    # start from the axis of largest variance: never orthogonal to the principal axis
    v = np.zeros(3)
    best = 0
    for k in range(1, 3):
        if cov[k, k] > cov[best, best]:
            best = k
    v[best] = 1.0
    if cov[best, best] <= 0.0:
        return v, 0.0, False
    for _ in range(_POWER_STEPS):
        w = np.zeros(3)
        for a in range(3):
            w[a] = cov[a, 0] * v[0] + cov[a, 1] * v[1] + cov[a, 2] * v[2]
        norm = np.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
        if norm == 0.0:
            break
        v = w / norm
    proj = np.empty(n)
    for j in range(s, e):
        t = ent_tri[j]
        proj[j - s] = v[0] * cen[t, 0] + v[1] * cen[t, 1] + v[2] * cen[t, 2]
    return v, np.median(proj), True


@njit(cache=True, nogil=True)
def _plane_score(tris, ent_tri, s, e, step, nx, ny, nz, d, straddle_weight, margin):
    """``straddle_weight * straddling + |front - back|`` over every ``step``-th triangle."""
    n_front = 0
    n_back = 0
    n_both = 0
    for j in range(s, e, step):
        lo, hi = _side_range(tris, ent_tri[j], nx, ny, nz, d)
        is_back = lo <= margin
        is_front = hi >= -margin
        if is_back and is_front:
            n_both += 1
        elif is_back:
            n_back += 1
        else:
            n_front += 1
    return straddle_weight * n_both + abs(n_front - n_back)


@njit(cache=True, nogil=True)
def _choose_planes(tris, cen, ent_tri, node_start, is_split, rule, n_candidates, n_samples,
                   straddle_weight, margin):  # fmt: skip
    """Plane of every split node.

    Returns
    -------
    normal : (k, 3) float64
    offset : (k,) float64
        The plane is ``normal . x == offset``.
    is_ok : (k,) bool
        False when no plane could be found (all centroids equal and no usable triangle).
    """
    k = node_start.shape[0] - 1
    normal = np.zeros((k, 3))
    offset = np.zeros(k)
    is_ok = np.zeros(k, dtype=np.bool_)
    for i in range(k):
        if not is_split[i]:
            continue
        s, e = node_start[i], node_start[i + 1]
        n = e - s
        v, d, ok = _principal_plane(tris, cen, ent_tri, s, e)
        normal[i] = v
        offset[i] = d
        is_ok[i] = ok
        if rule != 0:
            continue
        # The principal plane competes with the triangle planes: on curved surfaces every
        # triangle plane is a tangent plane with the whole node on one side.
        sample_step = max(1, n // n_samples)
        best = np.inf
        if ok:
            best = _plane_score(tris, ent_tri, s, e, sample_step, v[0], v[1], v[2], d,
                                straddle_weight, margin)  # fmt: skip
        cand_step = max(1, n // n_candidates)
        for j in range(s, e, cand_step):
            t = ent_tri[j]
            ux = tris[t, 1, 0] - tris[t, 0, 0]
            uy = tris[t, 1, 1] - tris[t, 0, 1]
            uz = tris[t, 1, 2] - tris[t, 0, 2]
            vx = tris[t, 2, 0] - tris[t, 0, 0]
            vy = tris[t, 2, 1] - tris[t, 0, 1]
            vz = tris[t, 2, 2] - tris[t, 0, 2]
            nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
            ln = np.sqrt(nx * nx + ny * ny + nz * nz)
            if ln == 0.0:
                continue
            nx, ny, nz = nx / ln, ny / ln, nz / ln
            dt = nx * tris[t, 0, 0] + ny * tris[t, 0, 1] + nz * tris[t, 0, 2]
            score = _plane_score(tris, ent_tri, s, e, sample_step, nx, ny, nz, dt,
                                 straddle_weight, margin)  # fmt: skip
            if score < best:
                best = score
                normal[i, 0], normal[i, 1], normal[i, 2] = nx, ny, nz
                offset[i] = dt
                is_ok[i] = True
    return normal, offset, is_ok


@njit(cache=True, nogil=True)
def _plane_masks(ent_node, ent_tri, tris, normal, offset, is_split, margin):
    """Bit 0: the triangle reaches the back (a corner ``<= margin``), bit 1: the front."""
    masks = np.zeros(ent_node.shape[0], dtype=np.uint8)
    for e in range(ent_node.shape[0]):
        i = ent_node[e]
        if not is_split[i]:
            continue
        lo, hi = _side_range(tris, ent_tri[e], normal[i, 0], normal[i, 1], normal[i, 2],
                             offset[i])  # fmt: skip
        bits = 0
        if lo <= margin:
            bits |= 1
        if hi >= -margin:
            bits |= 2
        masks[e] = bits
    return masks


@njit(cache=True, nogil=True)
def _plane_records(tris, cen, bmin, bmax, ent_tri, node_start, is_split, normal, offset):
    """Centre (mean centroid projected on the plane) and extent (half diagonal of the node's
    triangle bounds) of each split node's plane."""
    k = node_start.shape[0] - 1
    center = np.zeros((k, 3))
    extent = np.zeros(k)
    for i in range(k):
        if not is_split[i]:
            continue
        s, e = node_start[i], node_start[i + 1]
        lo = np.full(3, np.inf)
        hi = np.full(3, -np.inf)
        mean = np.zeros(3)
        for j in range(s, e):
            t = ent_tri[j]
            for d in range(3):
                mean[d] += cen[t, d]
                lo[d] = min(lo[d], bmin[t, d])
                hi[d] = max(hi[d], bmax[t, d])
        mean /= e - s
        dist = mean[0] * normal[i, 0] + mean[1] * normal[i, 1] + mean[2] * normal[i, 2]
        dist -= offset[i]
        for d in range(3):
            center[i, d] = mean[d] - dist * normal[i, d]
        diag = hi - lo
        extent[i] = 0.5 * np.sqrt(diag[0] ** 2 + diag[1] ** 2 + diag[2] ** 2)
    return center, extent


def build_from_boxes(
    tris, bmin, bmax, cen, n_a: int, params: BspParams, margin: float = 0.0
) -> Partition:
    """BSP tree over triangles.

    Parameters
    ----------
    tris : (m, 3, 3) float64
        Corners; the planes are tested against them.
    bmin, bmax, cen : (m, 3) float64
        Inflated boxes and centroids.
    n_a : int
    params : BspParams
    margin : float
        The boxes' inflation; a corner within ``margin`` of a plane counts on both sides.

    Returns
    -------
    Partition
        ``planes`` holds every splitting plane; leaf boxes bound the leaves' triangles.
    """
    records = []
    n_a_all = n_a

    def splitter(state, ent_node, ent_tri, node_start, is_split):
        (depth,) = state
        normal, offset, is_ok = _choose_planes(
            tris, cen, ent_tri, node_start, is_split, int(params.plane_rule),
            params.n_candidates, params.n_score_samples, params.straddle_weight, margin,
        )  # fmt: skip
        is_split = is_split & is_ok
        masks = _plane_masks(ent_node, ent_tri, tris, normal, offset, is_split, margin)
        center, extent = _plane_records(
            tris, cen, bmin, bmax, ent_tri, node_start, is_split, normal, offset
        )
        ids = np.flatnonzero(is_split)
        is_a = ent_tri < n_a_all
        n_a_per = np.bincount(ent_node[is_a], minlength=is_split.shape[0])
        n_per = np.diff(node_start)
        has_both = (n_a_per > 0) & (n_per > n_a_per)
        records.append((ids, center[ids], normal[ids], extent[ids], depth[ids], has_both[ids]))
        n_children = np.where(is_split, 2, 0).astype(np.int64)
        return n_children, masks, (np.repeat(depth + 1, n_children),)

    def no_boxes(state, leaf_ids):
        return np.zeros((leaf_ids.shape[0], 3)), np.zeros((leaf_ids.shape[0], 3))

    def on_split(is_kept):
        # drop the planes of splits that build_levels undid (every triangle on both sides)
        ids, *rest = records[-1]
        keep = is_kept[ids]
        records[-1] = (ids[keep], *(a[keep] for a in rest))

    root = (np.zeros(1, dtype=np.int32),)
    leaf_start, tri_ids, _, _, ldepth, n_nodes, depth = build_levels(
        bmin.shape[0], n_a, root, splitter, no_boxes, params.max_depth, params.capacity,
        params.split_single_mesh, on_split, params.max_child_fraction,
    )  # fmt: skip
    lmin, lmax = leaf_content_boxes(leaf_start, tri_ids, bmin, bmax)
    planes = _collect_planes(records)
    return Partition(
        kind="bsp", n_a=n_a, n_tris=bmin.shape[0], leaf_start=leaf_start,
        leaf_tri_ids=tri_ids, leaf_bmin=lmin, leaf_bmax=lmax, leaf_depth=ldepth,
        planes=planes, n_nodes=n_nodes, stats={"depth_reached": depth},
    )  # fmt: skip


def _collect_planes(records) -> PlaneRecords:
    if not records:
        return PlaneRecords.empty()
    return PlaneRecords(
        center=np.concatenate([r[1] for r in records]),
        normal=np.concatenate([r[2] for r in records]),
        extent=np.concatenate([r[3] for r in records]),
        depth=np.concatenate([r[4] for r in records]).astype(np.int32),
        has_both=np.concatenate([r[5] for r in records]),
    )


def build(
    mesh: TriMesh,
    params: BspParams | None = None,
    *,
    n_a: int | None = None,
    tol: Tolerances = DEFAULT_TOLERANCES,
) -> Partition:
    """BSP tree over a mesh's triangles (the first ``n_a`` are A's when combined)."""
    return build_over_mesh(build_from_boxes, mesh, params or BspParams(), n_a, tol)
