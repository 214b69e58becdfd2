"""Spatial partitions for a two-mesh query: uniform grid, octree, k-d tree, BSP tree.

Each kind is built over the triangles of both meshes in A's frame (B mapped by the relative
pose); the candidate pairs are the (A, B) triangle pairs that share a cell, deduplicated, and
each candidate runs the exact test :func:`core.collide.tritri.tri_tri_batch`. The contacts are
therefore exactly those of the AABB tree and of the brute-force oracle.

    from core.partition import partition_contacts
    result = partition_contacts(spot, teapot, None, pose_b, kind="octree", max_depth=6)
    result.pairs, result.n_candidates, result.cells

The seed-paper methods live next to them: :mod:`core.partition.overlap_region` (Yu et al.
2018) and :mod:`core.partition.scene_octree` (Zhou et al. 2009).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields

import numpy as np

from core.collide.query import CollisionResult, relative_pose, rigid_body
from core.collide.tandem import transform_points
from core.collide.trace import Counters
from core.collide.tritri import ContactKind, check_kinds, tri_tri_batch
from core.mesh import TriMesh
from core.partition import bsp, grid, kdtree, octree
from core.partition.base import (
    Partition,
    PlaneRecords,
    candidate_keys,
    combined_triangles,
    decode_keys,
    inflated_boxes_and_centroids,
    margin_for,
)
from core.partition.bsp import BspParams, BspPlaneRule
from core.partition.grid import GridParams
from core.partition.kdtree import KdTreeParams
from core.partition.octree import OctreeParams
from core.pose import Pose
from core.settings import DEFAULT_TOLERANCES, Tolerances

__all__ = [
    "PARTITION_KINDS",
    "BspParams",
    "BspPlaneRule",
    "GridParams",
    "KdTreeParams",
    "OctreeParams",
    "Partition",
    "PartitionKind",
    "PlaneRecords",
    "make_params",
    "partition_contacts",
]


@dataclass(frozen=True)
class PartitionKind:
    """One registry entry.

    Attributes
    ----------
    name : str
    params_type : type
        Frozen dataclass of the kind's settings.
    build : callable
        ``build(mesh, params=None, *, n_a=None, tol=...) -> Partition``.
    build_from_boxes : callable
        ``(tris, bmin, bmax, cen, n_a, params, margin) -> Partition``, the form the query uses.
    """

    name: str
    params_type: type
    build: object
    build_from_boxes: object


PARTITION_KINDS: dict[str, PartitionKind] = {
    "grid": PartitionKind("grid", GridParams, grid.build, grid.build_from_boxes),
    "octree": PartitionKind("octree", OctreeParams, octree.build, octree.build_from_boxes),
    "kdtree": PartitionKind("kdtree", KdTreeParams, kdtree.build, kdtree.build_from_boxes),
    "bsp": PartitionKind("bsp", BspParams, bsp.build, bsp.build_from_boxes),
}
"""Every partition kind by name, in the order the CLI and the viewer list them."""


def make_params(kind: str, **params):
    """The kind's settings dataclass from keyword arguments.

    Raises
    ------
    ValueError
        Unknown kind or a keyword the kind does not have.
    """
    if kind not in PARTITION_KINDS:
        raise ValueError(f"unknown partition kind {kind!r}; one of {list(PARTITION_KINDS)}")
    ptype = PARTITION_KINDS[kind].params_type
    names = {f.name for f in fields(ptype)}
    unknown = sorted(set(params) - names)
    if unknown:
        raise ValueError(f"{kind} has no setting {unknown}; settings: {sorted(names)}")
    if "plane_rule" in params and not isinstance(params["plane_rule"], BspPlaneRule):
        rule = params["plane_rule"]
        params["plane_rule"] = BspPlaneRule[rule.upper()] if isinstance(rule, str) else rule
    return ptype(**params)


def run_tri_tests(va, fa, vb, fb, candidates, tol: Tolerances, pose_a: Pose | None):
    """Exact tests of candidate pairs (B already in A's frame); keeps the contacts in order.

    Returns
    -------
    pairs : (c, 2) int32
    kinds : (c,) int8
    segments : (c, 2, 3) float64
        In world coordinates.
    """
    n = candidates.shape[0]
    kinds = np.empty(n, dtype=np.int8)
    segs = np.empty((n, 2, 3))
    if n:
        tri_tri_batch(va, fa, vb, fb, candidates, kinds, segs)
        check_kinds(kinds, candidates, "face pair (A, B)")
    hit = kinds != int(ContactKind.DISJOINT)
    pairs, kinds, segs = candidates[hit], kinds[hit], segs[hit]
    if pose_a is not None and not pose_a.is_identity and segs.shape[0]:
        segs = pose_a.apply(segs)
    return pairs, kinds, segs


def b_in_a_frame(mesh_b: TriMesh, pose_a: Pose | None, pose_b: Pose | None) -> np.ndarray:
    """B's vertices in A's frame, ``(nb, 3) float64``, computed as the AABB query does."""
    rel = relative_pose(pose_a, pose_b)
    vb = mesh_b.vertices
    if not rel.is_rigid:
        vb = vb * rel.scale
    if not rel.is_identity:
        vb = transform_points(
            vb, np.ascontiguousarray(rel.rotation), np.ascontiguousarray(rel.translation)
        )
    return vb


def partition_contacts(
    mesh_a: TriMesh,
    mesh_b: TriMesh,
    pose_a: Pose | None = None,
    pose_b: Pose | None = None,
    kind: str = "grid",
    *,
    params=None,
    tol: Tolerances = DEFAULT_TOLERANCES,
    **param_kwargs,
) -> CollisionResult:
    """All contacting triangle pairs of two posed meshes, candidates from a spatial partition.

    Parameters
    ----------
    mesh_a, mesh_b : TriMesh
    pose_a, pose_b : Pose, optional
        World poses; None is the identity.
    kind : str
        A key of :data:`PARTITION_KINDS`.
    params : dataclass, optional
        The kind's settings (``GridParams`` ...); or give them as keywords instead.
    tol : Tolerances
    **param_kwargs
        Settings of the kind, e.g. ``cell_size=0.05``, ``max_depth=6``, ``capacity=8``.

    Returns
    -------
    CollisionResult
        With the partition's records (``cells``, ``planes``, ``n_candidates`` ...).
    """
    if params is None:
        params = make_params(kind, **param_kwargs)
    elif param_kwargs:
        raise ValueError("give the settings either as params= or as keywords, not both")
    entry = PARTITION_KINDS[kind]
    mesh_a, _, pose_a = rigid_body(mesh_a, None, pose_a)
    mesh_b, _, pose_b = rigid_body(mesh_b, None, pose_b)

    t0 = time.perf_counter()
    va = mesh_a.vertices
    vb = b_in_a_frame(mesh_b, pose_a, pose_b)
    tris = combined_triangles(va, mesh_a.faces, vb, mesh_b.faces)
    lo = np.minimum(va.min(axis=0), vb.min(axis=0))
    hi = np.maximum(va.max(axis=0), vb.max(axis=0))
    margin = margin_for(lo, hi, tol)
    bmin, bmax, cen = inflated_boxes_and_centroids(tris, margin)
    part = entry.build_from_boxes(tris, bmin, bmax, cen, mesh_a.n_faces, params, margin)
    t1 = time.perf_counter()
    keys, n_raw = candidate_keys(part)
    candidates = decode_keys(keys, mesh_b.n_faces)
    t2 = time.perf_counter()
    pairs, kinds, segs = run_tri_tests(va, mesh_a.faces, vb, mesh_b.faces, candidates, tol, pose_a)
    t3 = time.perf_counter()

    is_both = part.leaf_has_both()
    cells = np.stack([part.leaf_bmin[is_both], part.leaf_bmax[is_both]], axis=1)
    return CollisionResult(
        pairs=pairs,
        kinds=kinds,
        segments=segs,
        counters=Counters(n_tri_tests=int(candidates.shape[0]), n_contacts=int(pairs.shape[0])),
        timings={"build": t1 - t0, "candidates": t2 - t1, "tritri": t3 - t2},
        partition_kind=kind,
        n_candidates=int(keys.shape[0]),
        n_raw_candidates=n_raw,
        cells=cells,
        planes=part.planes,
        n_multi_cell_triangles=part.n_multi_cell_triangles(),
        partition=part,
    )
