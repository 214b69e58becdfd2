"""The flat-array bounding-volume tree shared by every split rule.

Layout (madmann91/bvh ``index.h``, tinybvh): node 0 is the root; an internal node ``i`` has
its two children at ``first[i]`` and ``first[i] + 1``; a node is a leaf iff ``count[i] > 0``
and then holds the triangles ``prim_ids[first[i] : first[i] + count[i]]``. Children are
always stored after their parent, so a reverse sweep over node indices is a valid bottom-up
order. Every node covers a contiguous run ``prim_ids[prim_start[i] : prim_start[i] +
n_prims[i]]`` of the permuted triangle ids, which makes "the triangles under a node" free.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

from core.jit.kernel_args import frozen


class SplitRule(enum.IntEnum):
    """How a node's triangles are divided between its two children.

    MIDPOINT
        van den Bergen (1997): longest axis of the node's box, split at the box midpoint;
        a triangle goes left when the midpoint of its projection on that axis is below.
    MEDIAN
        Object median on the longest axis: two halves of equal size (a balanced tree).
    MEAN
        Mean of the triangle centres on the longest axis (Gottschalk et al. 1996, OBBTree).
    SAH
        Surface-area heuristic over 16 bins per axis (Wald 2007, binned SAH).
    LBVH
        Morton order of the centres, split at the highest differing bit (Karras 2012).
    OBB
        Gottschalk, Lin and Manocha (1996), section 4: the node's oriented box (principal
        axes of its area-weighted triangles), cut across the box's longest axis at the mean of
        the triangle centres; if every centre falls on one side, the next longest box axis.
        The tree for OBB volumes (``--bv obb``): its cuts follow the boxes that will be tested.
    """

    MIDPOINT = 0
    MEDIAN = 1
    MEAN = 2
    SAH = 3
    LBVH = 4
    OBB = 5


@dataclass(frozen=True)
class BuildStats:
    """What a build produced; part of the result, not a debug extra.

    Attributes
    ----------
    n_nodes : int
    n_leaves : int
    depth_min, depth_max : int
        Shallowest and deepest leaf (root at depth 0).
    leaf_size_mean : float
    leaf_size_max : int
    sah_cost : float
        Surface-area cost with traversal and triangle costs 1 (see ``quality.sah_cost``).
    volume_sum : float
        Sum of the volumes of all node boxes.
    build_seconds : float
    """

    n_nodes: int
    n_leaves: int
    depth_min: int
    depth_max: int
    leaf_size_mean: float
    leaf_size_max: int
    sah_cost: float
    volume_sum: float
    build_seconds: float


#: The array fields of a :class:`Tree`, read-only once it is made.
_ARRAY_FIELDS = ("first", "count", "parent", "depth", "prim_start", "n_prims", "prim_ids",
                 "bmin", "bmax", "level_nodes", "level_start", "faces")


@dataclass(frozen=True, eq=False)
class Tree:
    """A binary tree over the triangles of one mesh, with its boxes, in local coordinates.

    The topology (and the boxes, which every split rule needs) is shared by every bounding-
    volume kind: :func:`core.bv.fit_volumes` fits OBBs, spheres, k-DOPs or swept spheres to
    the same nodes.

    Attributes
    ----------
    first : (k,) int32
        Leaf: start in ``prim_ids``. Internal: index of the left child (right is ``+ 1``).
    count : (k,) int32
        Number of triangles in a leaf; 0 for internal nodes.
    parent : (k,) int32
        Parent index, -1 for the root.
    depth : (k,) int32
        Root at 0.
    prim_start : (k,) int32
        Start of the node's run in ``prim_ids``.
    n_prims : (k,) int32
        Number of triangles under the node.
    prim_ids : (m,) int32
        Triangle ids permuted so that each node's triangles are contiguous.
    bmin, bmax : (k, 3) float64
        Box corners.
    level_nodes : (k,) int32
        Node ids grouped by depth: nodes at depth d are
        ``level_nodes[level_start[d] : level_start[d + 1]]``.
    level_start : (max_depth + 2,) int64
    faces : (m, 3) int32
        The faces the tree was built on (checked by refit).
    split : SplitRule
    leaf_size : int
    stats : BuildStats
        Of the build this tree's topology came from (refit keeps it).
    origin : str
        Where the tree came from, as a message names it: "" for a tree BVH Lab built, "tree
        from random.json" for one read from a file (refit and pinning keep it).
    """

    first: np.ndarray
    count: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    prim_start: np.ndarray
    n_prims: np.ndarray
    prim_ids: np.ndarray
    bmin: np.ndarray
    bmax: np.ndarray
    level_nodes: np.ndarray
    level_start: np.ndarray
    faces: np.ndarray
    split: SplitRule
    leaf_size: int
    stats: BuildStats
    origin: str = ""

    def __post_init__(self):
        # Read-only arrays whoever made the tree (a build, a refit, a tree file, a caller's
        # own): the kernels that read them then run the one signature the warm-up compiled
        # (core.jit.kernel_args); a view, no copy.
        for name in _ARRAY_FIELDS:
            object.__setattr__(self, name, frozen(getattr(self, name)))

    @property
    def n_nodes(self) -> int:
        return int(self.first.shape[0])

    @property
    def max_depth(self) -> int:
        return int(self.level_start.shape[0] - 2)

    @property
    def is_leaf(self) -> np.ndarray:
        """``(k,) bool``."""
        return self.count > 0

    def nodes_at_depth(self, d: int) -> np.ndarray:
        """Node ids at depth ``d`` (empty beyond the deepest level), ``(j,) int32``."""
        if d < 0 or d > self.max_depth:
            return np.empty(0, dtype=np.int32)
        return self.level_nodes[self.level_start[d] : self.level_start[d + 1]]

    def triangles_under(self, node: int) -> np.ndarray:
        """Triangle ids below ``node``, ``(n_prims[node],) int32``."""
        s = self.prim_start[node]
        return self.prim_ids[s : s + self.n_prims[node]]

    def children(self, node: int) -> tuple[int, int] | None:
        """The two children of an internal node, or None for a leaf."""
        if self.count[node] > 0:
            return None
        return int(self.first[node]), int(self.first[node]) + 1
