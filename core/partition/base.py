"""Machinery shared by the spatial partitions: triangle boxes, the level-by-level tree builder,
leaf storage and the candidate pairs of a two-mesh query.

A partition is built over the triangles of BOTH meshes in A's frame: ids ``0 .. n_a - 1`` are
A's faces, ``n_a .. m - 1`` are B's faces shifted by ``n_a``. Every kind ends as a set of
*leaves* (grid cells, octree / k-d leaves, BSP leaves), each holding the ids of the triangles
that land in it; a triangle may land in several leaves.

Why the candidates are complete
-------------------------------
Each triangle's box is inflated by ``margin`` (the same ``Tolerances.box_rel`` scale the AABB
tree uses) and every decision that sends a triangle to a side is a comparison of that box (or
of the triangle's vertices, for BSP planes) against one split value: a triangle goes low when
its low end is ``<=`` the split, high when its high end is ``>=`` it. If two inflated boxes
share a point ``p``, then at every split both go to the side ``p`` is on, so they end in one
common leaf; this uses only monotone float comparisons, no arithmetic that can round. The grid
uses ``floor((x - origin) / cell)``, which is monotone in ``x`` as well.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from core.mesh import TriMesh
from core.partition.limits import MAX_ENTRIES, too_many_entries
from core.settings import DEFAULT_TOLERANCES, Tolerances

__all__ = [
    "Partition",
    "PlaneRecords",
    "build_levels",
    "candidate_keys",
    "combined_triangles",
    "margin_for",
    "inflated_boxes_and_centroids",
]


@dataclass(frozen=True, eq=False)
class PlaneRecords:
    """Splitting planes, drawable as squares.

    Attributes
    ----------
    center : (p, 3) float64
        A point of the plane: the centroid of the node's triangle centroids projected onto it.
    normal : (p, 3) float64
        Unit normals.
    extent : (p,) float64
        Half the diagonal of the node's triangle bounds, a size to draw the plane at.
    depth : (p,) int32
        Depth of the node the plane splits (root = 0).
    has_both : (p,) bool
        The node held triangles of both meshes.
    """

    center: np.ndarray
    normal: np.ndarray
    extent: np.ndarray
    depth: np.ndarray
    has_both: np.ndarray

    @classmethod
    def empty(cls) -> PlaneRecords:
        return cls(
            np.empty((0, 3)), np.empty((0, 3)), np.empty(0), np.empty(0, np.int32),
            np.empty(0, bool),
        )  # fmt: skip

    @property
    def n_planes(self) -> int:
        return int(self.center.shape[0])


@dataclass(frozen=True, eq=False)
class Partition:
    """A built spatial partition (any kind).

    Attributes
    ----------
    kind : str
        Registry name (``"grid"``, ``"octree"``, ``"kdtree"``, ``"bsp"``).
    n_a : int
        Triangles ``0 .. n_a - 1`` belong to mesh A, the rest to mesh B.
    n_tris : int
        All triangles the partition was built over.
    leaf_start : (q + 1,) int64
        Leaf ``k`` holds ``leaf_tri_ids[leaf_start[k]:leaf_start[k + 1]]``; empty leaves are
        not stored.
    leaf_tri_ids : (e,) int32
        Triangle ids, ascending inside each leaf (so A's come first).
    leaf_bmin, leaf_bmax : (q, 3) float64
        The leaf's region: grid cell, octree / k-d node box. BSP leaves are convex cells cut by
        planes; their box here is the bounds of the (inflated) triangle boxes they hold.
    leaf_depth : (q,) int32
        Depth of the leaf (0 for grid cells).
    planes : PlaneRecords
        BSP splitting planes (empty for the other kinds).
    n_nodes : int
        Nodes created, leaves included (grid: occupied cells).
    stats : dict
        Kind-specific build numbers (cell size, grid dims, depth reached, ...).
    """

    kind: str
    n_a: int
    n_tris: int
    leaf_start: np.ndarray
    leaf_tri_ids: np.ndarray
    leaf_bmin: np.ndarray
    leaf_bmax: np.ndarray
    leaf_depth: np.ndarray
    planes: PlaneRecords = field(default_factory=PlaneRecords.empty)
    n_nodes: int = 0
    stats: dict = field(default_factory=dict)

    @property
    def n_leaves(self) -> int:
        return int(self.leaf_start.shape[0] - 1)

    def leaves_per_triangle(self) -> np.ndarray:
        """How many leaves each triangle landed in, ``(n_tris,) int64``."""
        return np.bincount(self.leaf_tri_ids, minlength=self.n_tris)

    def n_multi_cell_triangles(self) -> tuple[int, int]:
        """Triangles of A, and of B, that landed in more than one leaf."""
        is_multi = self.leaves_per_triangle() > 1
        return int(is_multi[: self.n_a].sum()), int(is_multi[self.n_a :].sum())

    def leaf_has_both(self) -> np.ndarray:
        """``(q,) bool``: the leaf holds triangles of both meshes."""
        return _leaf_has_both(self.leaf_start, self.leaf_tri_ids, self.n_a)


def margin_for(bmin: np.ndarray, bmax: np.ndarray, tol: Tolerances = DEFAULT_TOLERANCES) -> float:
    """Box inflation for a scene whose coordinates lie in ``[bmin, bmax]`` (``(3,) float64``).

    The same rule as the AABB traversal (:func:`core.collide.query.box_margin`): round-off in
    any coordinate is a fraction of the largest coordinate magnitude or extent.
    """
    scale = max(
        float(np.max(np.abs(bmin))), float(np.max(np.abs(bmax))), float(np.max(bmax - bmin))
    )
    return tol.box_rel * scale


def combined_triangles(va: np.ndarray, fa: np.ndarray, vb: np.ndarray, fb: np.ndarray):
    """Corners of A's then B's triangles, ``(ma + mb, 3, 3) float64`` (B already in A's frame)."""
    return np.concatenate([va[fa], vb[fb]], axis=0)


@njit(cache=True, nogil=True)
def inflated_boxes_and_centroids(tris, margin):
    """The axis-aligned box of each triangle inflated by ``margin``, and its centroid.

    Parameters
    ----------
    tris : (m, 3, 3) float64
    margin : float

    Returns
    -------
    bmin, bmax : (m, 3) float64
    centroid : (m, 3) float64
    """
    m = tris.shape[0]
    bmin = np.empty((m, 3))
    bmax = np.empty((m, 3))
    cen = np.empty((m, 3))
    for i in range(m):
        for k in range(3):
            a, b, c = tris[i, 0, k], tris[i, 1, k], tris[i, 2, k]
            bmin[i, k] = min(a, b, c) - margin
            bmax[i, k] = max(a, b, c) + margin
            cen[i, k] = (a + b + c) / 3.0
    return bmin, bmax, cen


@njit(cache=True, nogil=True)
def _leaf_has_both(leaf_start, leaf_tri_ids, n_a):
    q = leaf_start.shape[0] - 1
    out = np.zeros(q, dtype=np.bool_)
    for k in range(q):
        s, e = leaf_start[k], leaf_start[k + 1]
        # ids ascend inside a leaf: A's first, B's last
        out[k] = e > s and leaf_tri_ids[s] < n_a and leaf_tri_ids[e - 1] >= n_a
    return out


@njit(cache=True, nogil=True)
def _leaf_pair_keys(leaf_start, leaf_tri_ids, n_a, n_b):
    """All (a, b) pairs sharing a leaf as keys ``a * n_b + b``, duplicates included."""
    q = leaf_start.shape[0] - 1
    split = np.empty(q, dtype=np.int64)
    total = 0
    for k in range(q):
        s, e = leaf_start[k], leaf_start[k + 1]
        j = s
        while j < e and leaf_tri_ids[j] < n_a:
            j += 1
        split[k] = j
        total += (j - s) * (e - j)
    keys = np.empty(total, dtype=np.int64)
    c = 0
    for k in range(q):
        s, j, e = leaf_start[k], split[k], leaf_start[k + 1]
        for ia in range(s, j):
            base = np.int64(leaf_tri_ids[ia]) * n_b - n_a
            for ib in range(j, e):
                keys[c] = base + leaf_tri_ids[ib]
                c += 1
    return keys


def candidate_keys(part: Partition) -> tuple[np.ndarray, int]:
    """Deduplicated candidate pairs of a two-mesh partition.

    Returns
    -------
    keys : (c,) int64
        ``a * n_b + b`` for every pair of an A and a B triangle sharing a leaf, sorted and
        unique (so the decoded pairs are in lexicographic order).
    n_raw : int
        Pairs before deduplication (a pair counts once per shared leaf).
    """
    n_b = part.n_tris - part.n_a
    keys = _leaf_pair_keys(part.leaf_start, part.leaf_tri_ids, part.n_a, n_b)
    return np.unique(keys), int(keys.shape[0])


def decode_keys(keys: np.ndarray, n_b: int) -> np.ndarray:
    """``(c, 2) int32`` face-id pairs from keys ``a * n_b + b``."""
    pairs = np.empty((keys.shape[0], 2), dtype=np.int32)
    pairs[:, 0] = keys // n_b
    pairs[:, 1] = keys % n_b
    return pairs


# ----------------------------------------------------------------------------------------------
# Level-by-level tree builder shared by the octree, the k-d tree and the BSP tree.


@njit(cache=True, nogil=True)
def node_counts(ent_node, ent_tri, n_nodes, n_a):
    """Entries per node, ``(k,) int64`` all and ``(k,) int64`` of mesh A."""
    count = np.zeros(n_nodes, dtype=np.int64)
    count_a = np.zeros(n_nodes, dtype=np.int64)
    for e in range(ent_node.shape[0]):
        count[ent_node[e]] += 1
        if ent_tri[e] < n_a:
            count_a[ent_node[e]] += 1
    return count, count_a


@njit(cache=True, nogil=True)
def _scatter(ent_node, ent_tri, masks, child_first):
    """Send each entry of a split node to every child in its bit mask; stable, so the new
    entries are grouped by child and keep ascending triangle ids inside each child."""
    n_total = 0
    for e in range(ent_node.shape[0]):
        if child_first[ent_node[e]] >= 0:
            # An int, not the mask's uint8: run as Python (core.jit.interpreted) the count would
            # stay uint8 and wrap past 255 entries (an IndexError below).
            mk = int(masks[e])
            while mk:
                n_total += mk & 1
                mk >>= 1
    n_next = 0
    for i in range(child_first.shape[0]):
        n_next = max(n_next, child_first[i] + 8)
    per_child = np.zeros(n_next + 1, dtype=np.int64)
    for e in range(ent_node.shape[0]):
        f = child_first[ent_node[e]]
        if f >= 0:
            for c in range(8):
                if masks[e] >> c & 1:
                    per_child[f + c + 1] += 1
    for i in range(n_next):
        per_child[i + 1] += per_child[i]
    out_node = np.empty(n_total, dtype=np.int32)
    out_tri = np.empty(n_total, dtype=np.int32)
    for e in range(ent_node.shape[0]):
        f = child_first[ent_node[e]]
        if f >= 0:
            for c in range(8):
                if masks[e] >> c & 1:
                    j = per_child[f + c]
                    out_node[j] = f + c
                    out_tri[j] = ent_tri[e]
                    per_child[f + c] += 1
    return out_node, out_tri


# A splitter decides, for one level, how the nodes chosen for splitting are split:
#   splitter(level_state, ent_node, ent_tri, node_start, is_split) ->
#       (n_children (k,) int64, masks (e,) uint8, child_state)
# where level_state / child_state is whatever the kind needs per node (boxes, ...), and
# ``leaf_boxes(level_state, leaf_node_ids)`` gives the drawn box of leaves of that level.
Splitter = Callable


def build_levels(
    n_tris: int,
    n_a: int,
    root_state: tuple,
    splitter: Splitter,
    leaf_boxes: Callable,
    max_depth: int,
    capacity: int,
    split_single_mesh: bool,
    on_split: Callable | None = None,
    max_child_fraction: float = 1.0,
):
    """Grow a tree one level at a time; nodes with more than ``capacity`` triangles (and, unless
    ``split_single_mesh``, triangles of both meshes) above ``max_depth`` are split.

    A node holding one mesh only can never yield a candidate pair, so by default it is not split
    further: the candidates are the same and the build touches far fewer entries. A split that
    sends every triangle of the node to two or more children (all of them straddle) is undone:
    repeating it would copy the same triangles into ever more nodes. With
    ``max_child_fraction < 1`` a split is also undone when its largest child keeps more than
    that fraction of the node's triangles (k-d and BSP trees: a fan of triangles around one
    vertex, e.g. a UV-sphere pole, cannot be separated and would otherwise be copied at every
    level down to ``max_depth``).

    Parameters
    ----------
    root_state : tuple of arrays
        Per-node state of the root level (leading dimension 1), e.g. ``(bmin, bmax)``.
    splitter : callable
        ``splitter(state, ent_node, ent_tri, node_start, is_split) -> (n_children (k,) int64,
        masks (e,) uint8, child_state)``; ``child_state`` is a tuple of arrays whose leading
        dimension is ``n_children.sum()``, children of a node consecutive.
    leaf_boxes : callable
        ``leaf_boxes(state, leaf_node_ids) -> (bmin, bmax)``, both ``(q, 3) float64``.
    on_split : callable, optional
        ``on_split(is_kept)`` after each level's splits, ``is_kept (k,) bool`` the nodes really
        split (after undoing the useless ones).

    Returns
    -------
    leaf_start : (q + 1,) int64
    leaf_tri_ids : (e,) int32
    leaf_bmin, leaf_bmax : (q, 3) float64
    leaf_depth : (q,) int32
    n_nodes : int
    depth_reached : int
    """
    ent_node = np.zeros(n_tris, dtype=np.int32)
    ent_tri = np.arange(n_tris, dtype=np.int32)
    state = root_state
    n_level = 1
    depth = 0
    n_nodes = 1
    leaf_tris_all, leaf_counts = [], []
    bmins, bmaxs, depths = [], [], []
    while True:
        count, count_a = node_counts(ent_node, ent_tri, n_level, n_a)
        has_both = (count_a > 0) & (count > count_a)
        is_split = (count > capacity) & (depth < max_depth)
        if not split_single_mesh:
            is_split &= has_both
        node_start = np.zeros(n_level + 1, dtype=np.int64)
        np.cumsum(count, out=node_start[1:])
        n_children = np.zeros(n_level, dtype=np.int64)
        if is_split.any():
            split = splitter(state, ent_node, ent_tri, node_start, is_split)
            n_children, masks, child_state = split
            is_useless = _useless_splits(ent_node, masks, n_children, count, max_child_fraction)
            if is_useless.any():
                keep_child = np.repeat(~is_useless, n_children)
                child_state = tuple(a[keep_child] for a in child_state)
                n_children = np.where(is_useless, 0, n_children)
            if on_split is not None:
                on_split(n_children > 0)
        is_leaf = (n_children == 0) & (count > 0)
        if is_leaf.any():
            leaf_ids = np.flatnonzero(is_leaf)
            leaf_tris_all.append(ent_tri[is_leaf[ent_node]])
            leaf_counts.append(count[leaf_ids])
            lo, hi = leaf_boxes(state, leaf_ids)
            bmins.append(lo)
            bmaxs.append(hi)
            depths.append(np.full(leaf_ids.shape[0], depth, dtype=np.int32))
        if not n_children.any():
            break
        # Entries of the next level (one per child a triangle goes to), before they exist.
        n_next = int(_BITS_SET[masks[n_children[ent_node] > 0]].sum(dtype=np.int64))
        n_kept = sum(ids.shape[0] for ids in leaf_tris_all)
        if n_next + n_kept > MAX_ENTRIES:
            raise too_many_entries(n_next + n_kept)
        child_first = np.full(n_level, -1, dtype=np.int64)
        has_children = n_children > 0
        offsets = np.cumsum(n_children) - n_children
        child_first[has_children] = offsets[has_children]
        ent_node, ent_tri = _scatter(ent_node, ent_tri, masks, child_first)
        n_level = int(n_children.sum())
        n_nodes += n_level
        state = child_state
        depth += 1
    if leaf_counts:
        counts = np.concatenate(leaf_counts)
        tri_ids = np.concatenate(leaf_tris_all).astype(np.int32)
        bmin, bmax = np.concatenate(bmins), np.concatenate(bmaxs)
        leaf_depth = np.concatenate(depths)
    else:
        counts = np.zeros(0, dtype=np.int64)
        tri_ids = np.zeros(0, dtype=np.int32)
        bmin = bmax = np.zeros((0, 3))
        leaf_depth = np.zeros(0, dtype=np.int32)
    leaf_start = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=leaf_start[1:])
    return leaf_start, tri_ids, bmin, bmax, leaf_depth, n_nodes, depth


_BITS_SET = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
"""Bits set in each byte value: the children one entry's child mask sends it to."""


@njit(cache=True, nogil=True)
def _useless_splits(ent_node, masks, n_children, count, max_child_fraction):
    """``(k,) bool``: split nodes whose every non-empty child would get all their triangles,
    with at least two such children, or whose largest child would keep more than
    ``max_child_fraction`` of them."""
    k = n_children.shape[0]
    per_child = np.zeros((k, 8), dtype=np.int64)
    for e in range(ent_node.shape[0]):
        n = ent_node[e]
        if n_children[n] > 0:
            for c in range(8):
                if masks[e] >> c & 1:
                    per_child[n, c] += 1
    out = np.zeros(k, dtype=np.bool_)
    for n in range(k):
        if n_children[n] == 0:
            continue
        n_full = 0
        n_nonempty = 0
        for c in range(8):
            if per_child[n, c] > max_child_fraction * count[n]:
                out[n] = True
            if per_child[n, c] > 0:
                n_nonempty += 1
                if per_child[n, c] == count[n]:
                    n_full += 1
        out[n] |= n_nonempty >= 2 and n_full == n_nonempty
    return out


@njit(cache=True, nogil=True)
def leaf_content_boxes(leaf_start, leaf_tri_ids, tri_bmin, tri_bmax):
    """Bounds of the triangle boxes each leaf holds, ``(q, 3) float64`` twice."""
    q = leaf_start.shape[0] - 1
    bmin = np.full((q, 3), np.inf)
    bmax = np.full((q, 3), -np.inf)
    for k in range(q):
        for j in range(leaf_start[k], leaf_start[k + 1]):
            t = leaf_tri_ids[j]
            for d in range(3):
                bmin[k, d] = min(bmin[k, d], tri_bmin[t, d])
                bmax[k, d] = max(bmax[k, d], tri_bmax[t, d])
    return bmin, bmax


def build_over_mesh(build_fn, mesh: TriMesh, params, n_a: int | None, tol: Tolerances):
    """Public ``build`` of every kind: one mesh (or A and B already combined in A's frame,
    the first ``n_a`` faces being A's)."""
    tris = np.ascontiguousarray(mesh.vertices[mesh.faces])
    margin = margin_for(mesh.vertices.min(axis=0), mesh.vertices.max(axis=0), tol)
    bmin, bmax, cen = inflated_boxes_and_centroids(tris, margin)
    n_a = mesh.n_faces if n_a is None else int(n_a)
    return build_fn(tris, bmin, bmax, cen, n_a, params, margin)


def mesh_triangles(mesh: TriMesh) -> np.ndarray:
    """``(m, 3, 3) float64`` corners of a mesh's faces."""
    return mesh.vertices[mesh.faces]


# ----------------------------------------------------------------------------------------------
# Axis-aligned splits (octree: three axes at once, k-d tree: one axis).


@njit(cache=True, nogil=True)
def axis_masks(ent_node, ent_tri, tri_bmin, tri_bmax, is_axis, pos, is_split):
    """Children each entry goes to, as a bit mask over child indices.

    Parameters
    ----------
    ent_node, ent_tri : (e,) int32
        Node (of this level) and triangle of each entry.
    tri_bmin, tri_bmax : (m, 3) float64
        Inflated triangle boxes.
    is_axis : (k, 3) bool
        Axes a node splits on; child index bit ``j`` is the side of the ``j``-th split axis.
    pos : (k, 3) float64
        Split values.
    is_split : (k,) bool

    Returns
    -------
    (e,) uint8
        A triangle goes low when its box's low end is ``<= pos`` and high when its high end is
        ``>= pos``; one straddling the split goes to both.
    """
    masks = np.zeros(ent_node.shape[0], dtype=np.uint8)
    for e in range(ent_node.shape[0]):
        n = ent_node[e]
        if not is_split[n]:
            continue
        t = ent_tri[e]
        bits = 1
        n_bits = 0
        for k in range(3):
            if is_axis[n, k]:
                new = 0
                if tri_bmin[t, k] <= pos[n, k]:
                    new |= bits
                if tri_bmax[t, k] >= pos[n, k]:
                    new |= bits << (1 << n_bits)
                bits = new
                n_bits += 1
        masks[e] = bits
    return masks


@njit(cache=True, nogil=True)
def axis_child_boxes(bmin, bmax, is_axis, pos, is_split, n_children):
    """Boxes of the children of the split nodes, in child order, ``(c, 3) float64`` twice."""
    total = 0
    for i in range(n_children.shape[0]):
        total += n_children[i]
    cmin = np.empty((total, 3))
    cmax = np.empty((total, 3))
    j = 0
    for i in range(bmin.shape[0]):
        if not is_split[i]:
            continue
        for c in range(n_children[i]):
            bit = 0
            for k in range(3):
                lo, hi = bmin[i, k], bmax[i, k]
                if is_axis[i, k]:
                    if c >> bit & 1:
                        lo = pos[i, k]
                    else:
                        hi = pos[i, k]
                    bit += 1
                cmin[j, k] = lo
                cmax[j, k] = hi
            j += 1
    return cmin, cmax


def box_leaves(state, leaf_ids):
    """Leaf boxes of a level whose state is ``(bmin, bmax)``."""
    bmin, bmax = state
    return bmin[leaf_ids], bmax[leaf_ids]
