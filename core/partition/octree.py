"""Octree over the triangles of both meshes: a cube split at its centre into eight.

A node is split while it holds more than ``capacity`` triangles (of both meshes, see
:func:`core.partition.base.build_levels`) and is shallower than ``max_depth``; a triangle goes
to every child its inflated box touches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.mesh import TriMesh
from core.partition.base import (
    Partition,
    axis_child_boxes,
    axis_masks,
    box_leaves,
    build_levels,
    build_over_mesh,
)
from core.partition.limits import MAX_OCTREE_DEPTH, check_tree_params
from core.settings import DEFAULT_TOLERANCES, Tolerances

__all__ = ["OctreeParams", "build"]


@dataclass(frozen=True)
class OctreeParams:
    """Octree settings.

    Attributes
    ----------
    max_depth : int
        Deepest level (root = 0). 8 gives cells 1/256 of the scene: below the triangle size of
        every shipped mesh.
    capacity : int
        A node with at most this many triangles is a leaf.
    split_single_mesh : bool
        Also split nodes that hold one mesh only (no candidate can come from them; useful to
        show the whole octree of a mesh).
    """

    max_depth: int = 8
    capacity: int = 16
    split_single_mesh: bool = False

    def __post_init__(self):
        check_tree_params(self, MAX_OCTREE_DEPTH)


def _root_cube(bmin: np.ndarray, bmax: np.ndarray):
    lo, hi = bmin.min(axis=0), bmax.max(axis=0)
    centre = 0.5 * (lo + hi)
    half = 0.5 * float(np.max(hi - lo))
    return (centre - half)[None, :], (centre + half)[None, :]


def build_from_boxes(
    tris, bmin, bmax, cen, n_a: int, params: OctreeParams, margin: float = 0.0
) -> Partition:
    """Octree over triangles given with their inflated boxes.

    Parameters
    ----------
    tris : (m, 3, 3) float64
        Unused (the boxes decide); kept for the common build signature.
    bmin, bmax, cen : (m, 3) float64
        Inflated triangle boxes and centroids.
    n_a : int
    margin : float
        Unused: the boxes are already inflated.
    params : OctreeParams

    Returns
    -------
    Partition
    """
    del tris, cen, margin

    def splitter(state, ent_node, ent_tri, node_start, is_split):
        nmin, nmax = state
        is_axis = np.repeat(is_split[:, None], 3, axis=1)
        pos = 0.5 * (nmin + nmax)
        n_children = np.where(is_split, 8, 0).astype(np.int64)
        masks = axis_masks(ent_node, ent_tri, bmin, bmax, is_axis, pos, is_split)
        cmin, cmax = axis_child_boxes(nmin, nmax, is_axis, pos, is_split, n_children)
        return n_children, masks, (cmin, cmax)

    root = _root_cube(bmin, bmax)
    leaf_start, tri_ids, lmin, lmax, ldepth, n_nodes, depth = build_levels(
        bmin.shape[0], n_a, root, splitter, box_leaves, params.max_depth, params.capacity,
        params.split_single_mesh,
    )  # fmt: skip
    return Partition(
        kind="octree", n_a=n_a, n_tris=bmin.shape[0], leaf_start=leaf_start,
        leaf_tri_ids=tri_ids, leaf_bmin=lmin, leaf_bmax=lmax, leaf_depth=ldepth,
        n_nodes=n_nodes, stats={"depth_reached": depth},
    )  # fmt: skip


def build(
    mesh: TriMesh,
    params: OctreeParams | None = None,
    *,
    n_a: int | None = None,
    tol: Tolerances = DEFAULT_TOLERANCES,
) -> Partition:
    """Octree over a mesh's triangles (the first ``n_a`` are A's when A and B are combined)."""
    return build_over_mesh(build_from_boxes, mesh, params or OctreeParams(), n_a, tol)
