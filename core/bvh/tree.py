"""The flat-array bounding-volume tree shared by every split rule.

Layout (madmann91/bvh ``index.h``, tinybvh): node 0 is the root; an internal node ``i`` has
its two children at ``first[i]`` and ``first[i] + 1``; a node is a leaf iff ``count[i] > 0``
and then holds the triangles ``prim_ids[first[i] : first[i] + count[i]]``. Children are
always stored after their parent, so a reverse sweep over node indices is a valid bottom-up
order. Every node covers a contiguous run ``prim_ids[prim_start[i] : prim_start[i] +
n_prims[i]]`` of the permuted triangle ids, which makes "the triangles under a node" free.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import KW_ONLY, dataclass

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

#: The fields a tree derives from ``first`` and ``count`` when they are first read, unless
#: whoever made the tree gave them. The query and the refit read only ``first``, ``count``,
#: ``prim_ids`` and the boxes, so a built or refitted tree does not hold these: 40 of the 156
#: bytes a triangle of the 100k benchmark tree cost (five int32 arrays over ~2 nodes a
#: triangle).
DERIVED_FIELDS = ("parent", "depth", "prim_start", "n_prims", "level_nodes", "level_start")


#: The key of :attr:`Tree.corners` in a tree's store of derived arrays.
_CORNERS = "corners"


def levels_of(depth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Node ids grouped by depth, ``(k,) int32``, and the start of each group,
    ``(D + 2,) int64`` (see :attr:`Tree.level_nodes`)."""
    level_nodes = np.argsort(depth, kind="stable").astype(np.int32)
    counts = np.bincount(depth)
    level_start = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=level_start[1:])
    return level_nodes, level_start


def derive_arrays(first: np.ndarray, count: np.ndarray) -> dict[str, np.ndarray]:
    """The :data:`DERIVED_FIELDS` of a tree from its ``first`` and ``count``, as the builder
    makes them (a leaf's run starts at ``first``, a node's at its left child's).

    One vectorised step a level: down from the root for ``parent`` and ``depth``, up from the
    deepest level for ``n_prims`` and ``prim_start``: tens of milliseconds for the 200k nodes
    of a 100k-triangle tree (30 ms on a loaded 2-core machine), once per tree topology.

    Parameters
    ----------
    first, count : (k,) int32
        Of a tree in which every node below the root has one parent.

    Returns
    -------
    dict
        ``parent, depth, prim_start, n_prims, level_nodes (k,) int32``,
        ``level_start (D + 2,) int64``.
    """
    k = first.shape[0]
    parent = np.full(k, -1, dtype=np.int32)
    depth = np.zeros(k, dtype=np.int32)
    levels = []
    nodes = np.zeros(1, dtype=np.int64)
    # A level a pass: at most k levels, even for the chain a degenerate tree is.
    while nodes.shape[0] > 0 and len(levels) < k:
        depth[nodes] = len(levels)
        levels.append(nodes)
        inner = nodes[count[nodes] == 0]
        left = first[inner].astype(np.int64)
        parent[left] = inner
        parent[left + 1] = inner
        nodes = np.stack((left, left + 1), axis=1).ravel()
    n_prims = count.astype(np.int32)
    prim_start = first.astype(np.int32)
    for nodes in reversed(levels):
        inner = nodes[count[nodes] == 0]
        left = first[inner]
        n_prims[inner] = n_prims[left] + n_prims[left + 1]
        prim_start[inner] = prim_start[left]
    level_nodes, level_start = levels_of(depth)
    return {"parent": parent, "depth": depth, "prim_start": prim_start, "n_prims": n_prims,
            "level_nodes": level_nodes, "level_start": level_start}


class _Derived:
    """A :data:`DERIVED_FIELDS` field: the array the tree's maker gave, or else the one
    :func:`derive_arrays` makes when the field is first read (kept with the tree from then,
    and carried by :meth:`Tree.replaced` to trees of the same topology)."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, tree, owner=None):
        if tree is None:
            return None  # the dataclass default: derived unless given
        given = tree.__dict__.get(self.name)
        if given is not None:
            return given
        derived = tree.__dict__.get("_derived")
        if derived is None:
            derived = tree.__dict__["_derived"] = {}
        if self.name not in derived:
            # Only what the maker did not give is kept (a given array is the one used). In
            # place: the dict is shared with the trees refitted from this one or from which
            # it was refitted (Tree.replaced), and they all see the arrays from now on.
            made = derive_arrays(tree.first, tree.count)
            derived.update({name: frozen(a) for name, a in made.items()
                            if tree.__dict__.get(name) is None})  # fmt: skip
        return derived[self.name]

    def __set__(self, tree, value):
        tree.__dict__[self.name] = None if value is None else frozen(value)


@dataclass(frozen=True, eq=False)
class Tree:
    """A binary tree over the triangles of one mesh, with its boxes, in local coordinates.

    The topology (and the boxes, which every split rule needs) is shared by every bounding-
    volume kind: :func:`core.bv.fit_volumes` fits OBBs, spheres, k-DOPs or swept spheres to
    the same nodes.

    Every field is given by keyword. ``parent``, ``depth``, ``prim_start``, ``n_prims`` and
    the level lists (:data:`DERIVED_FIELDS`) may be left out: they are then derived from
    ``first`` and ``count`` when first read (:func:`derive_arrays`), and kept from then on.

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

    # Keyword-only: the derived fields have a default (None: derived when read) but keep
    # their place in the field order (a recording lists the fields in this order).
    _: KW_ONLY
    first: np.ndarray
    count: np.ndarray
    parent: np.ndarray = _Derived()
    depth: np.ndarray = _Derived()
    prim_start: np.ndarray = _Derived()
    n_prims: np.ndarray = _Derived()
    prim_ids: np.ndarray
    bmin: np.ndarray
    bmax: np.ndarray
    level_nodes: np.ndarray = _Derived()
    level_start: np.ndarray = _Derived()
    faces: np.ndarray
    split: SplitRule
    leaf_size: int
    stats: BuildStats
    origin: str = ""

    def __post_init__(self):
        # Read-only arrays whoever made the tree (a build, a refit, a tree file, a caller's
        # own): the kernels that read them then run the one signature the warm-up compiled
        # (core.jit.kernel_args); a view, no copy.
        # The derived fields freeze what they are given themselves (_Derived.__set__).
        for name in _ARRAY_FIELDS:
            if name not in DERIVED_FIELDS:
                object.__setattr__(self, name, frozen(getattr(self, name)))

    def replaced(self, **changes) -> Tree:
        """``dataclasses.replace(self, **changes)`` without deriving what the tree does not
        hold: a derived field stays derived, and when ``first`` and ``count`` are unchanged (a
        refit) both trees share one store of derived arrays, whichever derives them first.

        Sharing the store, not a copy of what it held: the frame pipeline refits its built
        tree every frame, the viewer reads the derived levels of the refitted one, and a
        copy made before that read left each new refit to derive them again, 18-25 ms on
        the GUI thread for the 560k nodes of big-bunny's tree (a few times a run).
        """
        given = {name: self.__dict__.get(name) for name in DERIVED_FIELDS if name not in changes}
        tree = dataclasses.replace(self, **given, **changes)
        if tree.first is self.first and tree.count is self.count:
            tree.__dict__["_derived"] = self.__dict__.setdefault("_derived", {})
        return tree

    def held_arrays(self) -> list[np.ndarray]:
        """The arrays this tree holds now: its fields, less the derived ones neither given
        nor read yet, plus those derived so far (what its memory costs)."""
        held = [getattr(self, name) for name in _ARRAY_FIELDS if name not in DERIVED_FIELDS]
        # A derived array a refit shared while the new tree is given that field is the
        # source tree's to count.
        derived = self.__dict__.get("_derived") or {}
        for name in DERIVED_FIELDS:
            given = self.__dict__.get(name)
            if given is not None or name in derived:
                held.append(given if given is not None else derived[name])
        corners = self._kept_corners()
        if corners is not None:
            held.append(corners)
        return held

    def _kept_corners(self) -> np.ndarray | None:
        """:attr:`corners` if made already for this tree's ``prim_ids`` and ``faces``.

        Kept with the arrays it was made from: a tree replaced with another triangle order
        (core.bvh.scramble) shares the store of derived arrays but not the order.
        """
        kept = (self.__dict__.get("_derived") or {}).get(_CORNERS)
        if kept is not None and kept[0] is self.prim_ids and kept[1] is self.faces:
            return kept[2]
        return None

    @property
    def corners(self) -> np.ndarray:
        """The corners' vertex ids of the triangles in ``prim_ids`` order, ``faces[prim_ids]``,
        ``(m, 3) int32``, read-only.

        What the refit reads: a leaf's triangles are then one run of rows, not rows of
        ``faces`` scattered over the mesh. Measured on the W3 sphere (one thread, medians of
        50 frames): the refit pass took 0.47 against 0.88 ms at 100k triangles and 3.2
        against 6.0 ms at 500k, with the caches warm or flushed alike. 12 bytes a triangle,
        made when first read and shared by the trees refitted from this one (one topology,
        one order), like the :data:`DERIVED_FIELDS`.
        """
        corners = self._kept_corners()
        if corners is None:
            corners = frozen(np.ascontiguousarray(self.faces[self.prim_ids], dtype=np.int32))
            self.__dict__.setdefault("_derived", {})[_CORNERS] = (self.prim_ids, self.faces,
                                                                 corners)  # fmt: skip
        return corners

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
