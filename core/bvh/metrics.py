"""Quality of a bounding-volume tree, per tree and per node, for every bounding-volume kind.

* **SAH cost** (MacDonald and Booth 1990; Wald 2007): the expected cost of a query that hits
  the root, when the chance of reaching a node is its surface area over the root's:
  ``(C_t sum_internal A(n) + C_i sum_leaves A(n) count(n)) / A(root)``.
* **EPO**, effective primitive overlap (Aila, Karras and Laine 2013, eq. 3):
  ``sum_n C_n A((S \\ S_n) ∩ n) / A(S)``: the surface of triangles *not* under a node that lies
  inside its volume, which a query reaching the node pays for without finding them there
  (``C_n = C_i`` for leaves, ``C_t`` for internal nodes). Kernel: :mod:`core.bvh.epo`.
* **Sibling overlap**: ``volume(left ∩ right) / volume(node)`` of each internal node.
* Depth and leaf-size histograms, node count, memory.

A kind's rows are measured as the shape its registry row's ``shape`` says they are (a record
of :mod:`core.bv.shapes`); no kind is named here. Which shapes have which measure, and why:
:mod:`core.bvh.shape_measures`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from core.bv.aabb import refit as aabb_refit
from core.bv.registry import fit_volumes, get_kind
from core.bvh.epo import foreign_areas
from core.bvh.shape_measures import _frozen, _Shapes, _shapes
from core.mesh import triangle_areas

FLAT_MESH_NOTE = "EPO is not defined for a mesh without surface area"

#: Nodes listed per metric by :meth:`TreeQuality.to_json` (and the command line).
JSON_WORST = 10


@dataclass(frozen=True)
class CostConstants:
    """The SAH and EPO cost constants.

    Attributes
    ----------
    traversal : float
        ``C_t``, the cost of one bounding-volume test (default 1).
    intersection : float
        ``C_i``, the cost of one triangle test (default 1). Equal costs, as in madmann91/bvh's
        default configuration and :mod:`core.bvh.quality`, make the SAH "expected tests per
        query".

    Raises
    ------
    ValueError
        A constant that is not a finite number above 0, naming the field.
    """

    traversal: float = 1.0
    intersection: float = 1.0

    def __post_init__(self):
        for name in ("traversal", "intersection"):
            value = getattr(self, name)
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"cost constant {name} must be a number, got {value!r}") from None
            if isinstance(value, bool) or not (math.isfinite(number) and number > 0.0):
                raise ValueError(f"cost constant {name} must be finite and > 0, got {value!r}")
            object.__setattr__(self, name, number)


@dataclass(frozen=True, eq=False)
class NodeMetrics:
    """Each node's measures, in node order; every array is ``(k,) float64``, ``k = n_nodes``.

    Attributes
    ----------
    sah : (k,) float64
        The node's term of the SAH cost (``C_t A(n)/A(root)`` internal, ``C_i A(n)/A(root)
        count(n)`` leaf); the nodes sum to :attr:`TreeQuality.sah`.
    epo : (k,) float64
        The node's term of EPO, ``C_n A((S \\ S_n) ∩ n) / A(S)``; NaN where the kind has none.
    sibling_overlap : (k,) float64
        Internal node: ``volume(left ∩ right) / volume(node)``; NaN for leaves, for a node of
        volume 0 and where the kind has no exact intersection volume.
    volume : (k,) float64
        Volume of the node's bounding volume of this kind.
    area : (k,) float64
        Surface area of the node's bounding volume.
    """

    sah: np.ndarray
    epo: np.ndarray
    sibling_overlap: np.ndarray
    volume: np.ndarray
    area: np.ndarray


@dataclass(frozen=True, eq=False)
class TreeQuality:
    """The quality of one tree with one kind of bounding volume.

    Attributes
    ----------
    bv : str
        Registry key of the kind (``"aabb"``: the tree's own boxes).
    constants : CostConstants
    sah : float
        ``(C_t sum_internal A(n) + C_i sum_leaves A(n) count(n)) / A(root)``, ``A`` the
        surface area of the node's volume of this kind.
    epo : float
        ``sum_n C_n A((S \\ S_n) ∩ n) / A(S)``; NaN where not defined (see :attr:`epo_note`).
    sibling_overlap : float
        Arithmetic mean of :attr:`NodeMetrics.sibling_overlap` over the internal nodes where
        it is defined (NaN if none is).
    n_nodes, n_leaves : int
    depth_min, depth_max : int
        Shallowest and deepest leaf (root at depth 0).
    depth_histogram : (depth_max + 1,) int64
        Leaves at each depth.
    leaf_size_histogram : (leaf_size_max + 1,) int64
        Leaves holding ``j`` triangles.
    memory_bytes : int
        The tree's arrays plus this kind's volume rows (the tree's own boxes count once).
    mesh_bytes : int
        Vertices and faces, for comparison.
    nodes : NodeMetrics
    node_depth : (k,) int32
        Depth of every node (what the worst-node lists show).
    node_triangles : (k,) int32
        Triangles under every node.
    epo_note, sibling_overlap_note : str
        Why the measure is NaN; empty when it is defined.
    """

    bv: str
    constants: CostConstants
    sah: float
    epo: float
    sibling_overlap: float
    n_nodes: int
    n_leaves: int
    depth_min: int
    depth_max: int
    depth_histogram: np.ndarray
    leaf_size_histogram: np.ndarray
    memory_bytes: int
    mesh_bytes: int
    nodes: NodeMetrics
    node_depth: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int32))
    node_triangles: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int32))
    epo_note: str = ""
    sibling_overlap_note: str = ""

    METRICS: ClassVar[tuple[str, ...]] = ("sah", "epo", "sibling_overlap", "volume")

    def worst(self, metric: str, n: int = 20) -> np.ndarray:
        """The ``n`` nodes with the largest value of ``metric``, worst first.

        Parameters
        ----------
        metric : str
            One of :attr:`METRICS`.
        n : int
            Most nodes returned.

        Returns
        -------
        (j,) int32
            Node ids, ``j <= n``; nodes where the value is NaN are left out; ties keep node
            order.

        Raises
        ------
        ValueError
            An unknown metric (naming it and the known ones) or a negative ``n``.
        """
        if metric not in self.METRICS:
            raise ValueError(f"unknown metric {metric!r}; one of {', '.join(self.METRICS)}")
        if int(n) < 0:
            raise ValueError(f"number of worst nodes must be >= 0, got {n}")
        values = getattr(self.nodes, metric)
        ids = np.flatnonzero(~np.isnan(values))
        order = np.argsort(-values[ids], kind="stable")
        return ids[order][: int(n)].astype(np.int32)

    def to_json(self) -> dict:
        """The measures as plain JSON values (NaN as None), in the command line's key order:
        ``bv``, ``constants``, ``sah``, ``epo`` (and ``epo_note`` when it is None),
        ``sibling_overlap`` (and ``sibling_overlap_note``), ``n_nodes``, ``n_leaves``,
        ``depth_min``, ``depth_max``, ``depth_histogram``, ``leaf_size_histogram``,
        ``memory_bytes``, ``mesh_bytes``, ``worst`` (per metric, the worst
        :data:`JSON_WORST` nodes as ``{node, depth, triangles, value}``)."""

        def number(x: float):
            return float(x) if math.isfinite(x) else None

        out = {
            "bv": self.bv,
            "constants": {"traversal": self.constants.traversal,
                          "intersection": self.constants.intersection},
            "sah": number(self.sah),
            "epo": number(self.epo),
        }  # fmt: skip
        if self.epo_note:
            out["epo_note"] = self.epo_note
        out["sibling_overlap"] = number(self.sibling_overlap)
        if self.sibling_overlap_note:
            out["sibling_overlap_note"] = self.sibling_overlap_note
        out.update({
            "n_nodes": self.n_nodes,
            "n_leaves": self.n_leaves,
            "depth_min": self.depth_min,
            "depth_max": self.depth_max,
            "depth_histogram": self.depth_histogram.tolist(),
            "leaf_size_histogram": self.leaf_size_histogram.tolist(),
            "memory_bytes": self.memory_bytes,
            "mesh_bytes": self.mesh_bytes,
        })  # fmt: skip
        out["worst"] = {
            metric: [
                {"node": int(i), "depth": int(self.node_depth[i]),
                 "triangles": int(self.node_triangles[i]),
                 "value": float(getattr(self.nodes, metric)[i])}
                for i in self.worst(metric, JSON_WORST)
            ]
            for metric in self.METRICS
        }  # fmt: skip
        return out



# -- the measures -------------------------------------------------------------------------------


def _given_rows(mesh, tree, kind, volumes):
    if tree.faces.shape[0] != mesh.n_faces:
        raise ValueError(f"tree has {tree.faces.shape[0]} triangles, mesh {mesh.name!r} has "
                         f"{mesh.n_faces}")  # fmt: skip
    if volumes is None:
        return None
    rows = np.asarray(volumes, dtype=np.float64)
    if rows.shape != (tree.n_nodes, kind.width):
        raise ValueError(f"volumes must have shape ({tree.n_nodes}, {kind.width}) for "
                         f"{kind.name}, got {rows.shape}")  # fmt: skip
    return rows


def _kind_rows(mesh, tree, kind, volumes) -> np.ndarray:
    rows = _given_rows(mesh, tree, kind, volumes)
    if rows is not None:
        return rows
    if kind.is_tree_box:
        return np.concatenate([tree.bmin, tree.bmax], axis=1)
    return np.asarray(fit_volumes(tree, mesh, kind))


def _tree_arrays(tree):
    """The tree's topology arrays, read-only int32, in the kernels' order."""
    return tuple(_frozen(a, np.int32) for a in (tree.prim_ids, tree.prim_start, tree.n_prims,
                                                  tree.first, tree.count))  # fmt: skip


def _search_boxes(mesh, tree) -> np.ndarray:
    """Every node's box fitted to the mesh as it is, ``(k, 6) float64``: the EPO walk's
    boxes, so that stale or hand-edited boxes of the tree cannot hide a triangle."""
    out = np.empty((tree.n_nodes, 6))
    prim_ids, prim_start, n_prims, first, count = _tree_arrays(tree)
    aabb_refit(_frozen(mesh.vertices), _frozen(mesh.faces, np.int32), prim_ids, prim_start,
               n_prims, first, count, _frozen(tree.level_nodes, np.int32),
               _frozen(tree.level_start, np.int64), out)  # fmt: skip
    return _frozen(out)


def _tree_bytes(tree) -> int:
    arrays = (tree.first, tree.count, tree.parent, tree.depth, tree.prim_start, tree.n_prims,
              tree.prim_ids, tree.bmin, tree.bmax, tree.level_nodes, tree.level_start)  # fmt: skip
    return int(sum(a.nbytes for a in arrays))


def tree_quality(mesh, tree, bv: str = "aabb", constants: CostConstants = CostConstants(),
                 volumes=None, *, pair_budget: int | None = None, progress=None,
                 name: str = "") -> TreeQuality:
    """The quality measures of ``tree`` with bounding volumes of kind ``bv``.

    Parameters
    ----------
    mesh : TriMesh
        The vertices the tree's volumes bound now (same faces as the tree).
    tree : Tree
    bv : str
        Registry key (:data:`core.bv.BV_KINDS`); ``"aabb"`` measures the tree's own boxes.
    constants : CostConstants
        ``C_t`` and ``C_i`` of SAH and EPO (default 1 and 1).
    volumes : (k, width) array_like of float, optional
        The kind's rows if the caller has them (a frame's); fitted here otherwise (for
        ``"aabb"``: the tree's ``bmin, bmax``).
    pair_budget : int, optional
        Most (volume, triangle) pairs the EPO walk may look at; default the larger of
        :data:`core.collide.budget.DEFAULT_PAIR_BUDGET` and :data:`EPO_PAIRS_PER_NODE` per
        node. EPO is the one measure that is not linear in the tree's size: a good tree's walk
        meets the triangles near each node (the bunny's midpoint tree: 15.0 million pairs
        with ``aabb``, 18.5 million with ``obb``, about 110 to 130 a node); a tree whose boxes
        span the mesh meets every triangle from every node (its random-order tree: nodes x
        triangles, 9.6 billion).
    progress : callable, optional
        ``progress(phase: str)`` called as each phase starts ("obb volumes of 138,901 nodes",
        "SAH and sibling overlap", "EPO of 138,901 nodes"), for a caller that shows it.
    name : str
        The tree as a budget error names it (default: :func:`core.collide.budget.tree_name`).

    Returns
    -------
    TreeQuality

    Raises
    ------
    ValueError
        Unknown kind, constants that are not :class:`CostConstants`, a mesh with another
        number of triangles than the tree, or volume rows of the wrong shape.
    PairBudgetError
        The EPO walk would look at more than ``pair_budget`` pairs (one line naming the
        tree and the budget; a ValueError too).
    """
    from core.collide.budget import DEFAULT_PAIR_BUDGET, check_budget, tree_name

    if pair_budget is None:
        budget = max(DEFAULT_PAIR_BUDGET, EPO_PAIRS_PER_NODE * tree.n_nodes)
    else:
        budget = check_budget(pair_budget)
    say = progress if progress is not None else (lambda _phase: None)
    name = name or tree_name(tree, None)
    kind = get_kind(bv)
    if not isinstance(constants, CostConstants):
        raise ValueError(f"constants must be CostConstants, got {type(constants).__name__}")
    say(f"{kind.name} volumes of {tree.n_nodes:,} nodes")
    rows = _kind_rows(mesh, tree, kind, volumes)
    say("SAH and sibling overlap")
    is_leaf = tree.count > 0
    internal = np.flatnonzero(~is_leaf)
    left = tree.first[internal].astype(np.int64)
    shapes = _shapes(kind, rows, left, left + 1)
    c_t, c_i = constants.traversal, constants.intersection

    root_area = float(shapes.area[0])
    # A mesh on a line or a point has a root of area 0: then every node counts as the root.
    rel = shapes.area / root_area if root_area > 0.0 else np.ones(tree.n_nodes)
    sah = np.where(is_leaf, c_i * rel * tree.count, c_t * rel)

    k = tree.n_nodes
    overlap = np.full(k, np.nan)
    parent_volume = shapes.volume[internal]
    with np.errstate(invalid="ignore", divide="ignore"):
        overlap[internal] = np.where(parent_volume > 0.0,
                                     shapes.overlap_volume / parent_volume, np.nan)  # fmt: skip
    defined = overlap[~np.isnan(overlap)]
    overlap_mean = float(defined.mean()) if defined.size else math.nan

    epo, epo_note = _epo(mesh, tree, shapes, is_leaf, c_t, c_i, budget, say, name)

    leaves = np.flatnonzero(is_leaf)
    leaf_depth = tree.depth[leaves]
    memory = _tree_bytes(tree) + (0 if kind.is_tree_box else int(rows.nbytes))
    return TreeQuality(
        bv=kind.name,
        constants=constants,
        sah=float(sah.sum()),
        epo=float(epo.sum()) if not epo_note else math.nan,
        sibling_overlap=overlap_mean,
        n_nodes=k,
        n_leaves=int(leaves.shape[0]),
        depth_min=int(leaf_depth.min()),
        depth_max=int(leaf_depth.max()),
        depth_histogram=np.bincount(leaf_depth).astype(np.int64),
        leaf_size_histogram=np.bincount(tree.count[leaves]).astype(np.int64),
        memory_bytes=memory,
        mesh_bytes=int(mesh.vertices.nbytes + mesh.faces.nbytes),
        nodes=NodeMetrics(sah=sah, epo=epo, sibling_overlap=overlap,
                          volume=np.asarray(shapes.volume, dtype=np.float64),
                          area=np.asarray(shapes.area, dtype=np.float64)),
        node_depth=np.asarray(tree.depth, dtype=np.int32),
        node_triangles=np.asarray(tree.n_prims, dtype=np.int32),
        epo_note=epo_note,
        sibling_overlap_note=shapes.overlap_note,
    )  # fmt: skip


EPO_PAIRS_PER_NODE = 1000
"""The EPO walk's default budget per node (with at least the query's pair budget): eight times
the most a good tree needed (the bunny's midpoint tree, 110 to 130 pairs a node with aabb and
obb), so the walk stays linear in the tree's size and a random-order tree stops after about
a seventieth of its nodes x triangles (the bunny's: about 6 s of CPU time, measured on a busy
two-core machine)."""

EPO_FIRST_CHUNK = 1024
"""Nodes of the EPO walk's first chunk; the next chunks are sized from the work per node so
far, so the budget is looked at (and progress shown) about every :data:`EPO_CHUNKS`-th of
it."""
EPO_CHUNKS = 20


def _epo(mesh, tree, shapes: _Shapes, is_leaf, c_t: float, c_i: float, budget: int, say,
         name: str):  # fmt: skip
    """Per-node EPO terms ``(k,) float64`` and a note (empty when defined), walked in chunks of
    nodes with the work counted against ``budget`` between them (see :func:`tree_quality`)."""
    k = tree.n_nodes
    if shapes.epo_note:
        return np.full(k, np.nan), shapes.epo_note
    surface = float(triangle_areas(mesh.vertices, mesh.faces).sum())
    if not surface > 0.0:
        return np.full(k, np.nan), FLAT_MESH_NOTE
    if shapes.balls is not None:
        normals, offsets, balls = np.zeros((1, 0, 3)), np.zeros((k, 0)), shapes.balls
    else:
        normals, offsets, balls = shapes.normals, shapes.offsets, np.zeros((0, 4))
    args = (_frozen(mesh.vertices), _frozen(mesh.faces, np.int32), *_tree_arrays(tree),
            int(tree.max_depth), _search_boxes(mesh, tree), _frozen(shapes.query_box),
            _frozen(normals), _frozen(offsets), _frozen(balls))  # fmt: skip
    foreign = np.zeros(k)
    done, spent, chunk = 0, 0, EPO_FIRST_CHUNK
    say(f"EPO of {k:,} nodes")
    while done < k:
        nodes = _frozen(np.arange(done, min(done + chunk, k)), np.int32)
        work = np.zeros(nodes.shape[0], dtype=np.int64)
        foreign[done : done + nodes.shape[0]] = foreign_areas(*args, nodes, work)
        done += nodes.shape[0]
        spent += int(work.sum())
        if spent > budget:
            from core.errors import PairBudgetError

            raise PairBudgetError(name, budget, "volume-triangle pairs to measure EPO", None,
                                  "its boxes overlap too much", "EPO")  # fmt: skip
        # The next chunk: about a twentieth of the budget at the work per node so far.
        per_node = max(spent / done, 1.0)
        chunk = int(min(max(budget / EPO_CHUNKS / per_node, 64), 1 << 20))
    return np.where(is_leaf, c_i, c_t) * foreign / surface, ""
