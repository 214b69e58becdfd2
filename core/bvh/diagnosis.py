"""Per-node diagnosis and search: find a node by its id or by a triangle, walk its path to the
root with each ancestor's measures, and say in words why a bad node is bad.

The reasons are the ones a tree's author can act on (Aila, Karras and Laine 2013 name sibling
overlap and oversized leaves as what SAH alone hides; long thin triangles make any box loose,
Wald 2007):

* **children overlap**: the two children's boxes share more than :data:`OVERLAP_SHARE` of
  the parent's volume, so a query entering one often enters both;
* **long thin triangle** in a leaf: a triangle whose longest edge is more than
  :data:`THIN_RATIO` times its height on that edge: its box is mostly empty;
* **leaf far larger than its sibling**: a leaf's box holds more than :data:`SIBLING_RATIO`
  times the sibling's volume;
* **loose box**: the node's box holds more than :data:`LOOSE_RATIO` times the volume of the
  box around its own triangles (a stale refit, or a file whose boxes are padded).
"""

from __future__ import annotations

import numpy as np

OVERLAP_SHARE = 0.25
"""Children overlapping by more than this share of the parent's volume are reported."""
THIN_RATIO = 10.0
"""A triangle whose longest edge exceeds this many times its height on it is long and thin."""
SIBLING_RATIO = 10.0
"""A leaf with more than this many times its sibling's volume is far larger."""
LOOSE_RATIO = 2.0
"""A box with more than this many times the volume of its triangles' own box is loose."""
N_DIAGNOSED = 10
"""Worst nodes (by SAH term, sibling overlap and volume) given reasons in a report."""


class NodeSearchError(ValueError):
    """A node id or triangle id that the tree does not have (the message names it)."""


def _node_of_id(node_id: int, n_nodes: int, file_ids) -> int:
    if file_ids is None:
        if not 0 <= node_id < n_nodes:
            raise NodeSearchError(f"--node {node_id}: the tree has nodes 0 to {n_nodes - 1}")
        return int(node_id)
    hits = np.flatnonzero(np.asarray(file_ids) == node_id)
    if hits.size == 0:
        raise NodeSearchError(f"--node {node_id}: no node of the file has this id")
    return int(hits[0])


def leaf_of_triangle(tree, triangle: int) -> int:
    """The leaf that holds ``triangle`` (NodeSearchError naming it when out of range)."""
    n = int(tree.prim_ids.shape[0])
    if not 0 <= triangle < n:
        raise NodeSearchError(f"--triangle {triangle}: the mesh has triangles 0 to {n - 1}")
    where = int(np.flatnonzero(tree.prim_ids == triangle)[0])
    leaves = np.flatnonzero(tree.count > 0)
    inside = (tree.prim_start[leaves] <= where) & (where < tree.prim_start[leaves]
                                                   + tree.n_prims[leaves])
    return int(leaves[np.flatnonzero(inside)[0]])


def find_node(tree, node_id: int | None = None, triangle: int | None = None,
              file_ids=None) -> int:
    """Our node index for a node id (the file's id when ``file_ids`` is given) or for the
    leaf holding ``triangle``."""
    if (node_id is None) == (triangle is None):
        raise NodeSearchError("give a node id or a triangle id, not both")
    if node_id is not None:
        return _node_of_id(int(node_id), tree.n_nodes, file_ids)
    return leaf_of_triangle(tree, int(triangle))


def path_to_root(tree, node: int) -> list[int]:
    """``[node, parent, ..., root]``."""
    path = [int(node)]
    while tree.parent[path[-1]] >= 0:
        path.append(int(tree.parent[path[-1]]))
    return path


def node_triangles(tree, node: int) -> np.ndarray:
    """``(n_prims[node],) int32``: the triangles under ``node`` (its run of ``prim_ids``)."""
    start = int(tree.prim_start[node])
    return tree.prim_ids[start:start + int(tree.n_prims[node])]


def box_volume(lo, hi):
    """Volume of boxes ``(..., 3)`` corners ``lo``, ``hi`` (0 for an empty box): a float for
    one box, ``(...)`` float64 for many."""
    volume = np.prod(np.maximum(np.asarray(hi) - np.asarray(lo), 0.0), axis=-1)
    return float(volume) if np.ndim(volume) == 0 else volume


def _thin_triangles(vertices, faces, triangles) -> list[tuple[int, float]]:
    """``(triangle, longest edge / height on it)`` of the long thin ones, thinnest first."""
    corners = vertices[faces[triangles]]  # (t, 3, 3)
    edges = np.stack([corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 1],
                      corners[:, 0] - corners[:, 2]], axis=1)
    lengths = np.linalg.norm(edges, axis=2)
    longest = lengths.max(axis=1)
    area2 = np.linalg.norm(np.cross(edges[:, 0], -edges[:, 2]), axis=1)  # twice the area
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(area2 > 0.0, longest**2 / area2, np.inf)
    thin = np.flatnonzero(ratio > THIN_RATIO)
    order = thin[np.argsort(-ratio[thin], kind="stable")]
    return [(int(triangles[k]), float(ratio[k])) for k in order]


def why_bad(mesh, tree, node: int, name=lambda k: k) -> list[str]:
    """The reasons ``node`` is bad, in words (empty when none of the module's apply).

    Parameters
    ----------
    mesh : TriMesh
        The vertices the tree's boxes bound now.
    tree : Tree
    node : int
    name : callable
        Our node index -> the id people see (a file's id).
    """
    reasons = []
    lo, hi = tree.bmin[node], tree.bmax[node]
    volume = box_volume(lo, hi)
    if tree.count[node] == 0:
        left = int(tree.first[node])
        right = left + 1
        shared = box_volume(np.maximum(tree.bmin[left], tree.bmin[right]),
                             np.minimum(tree.bmax[left], tree.bmax[right]))
        if volume > 0.0 and shared / volume > OVERLAP_SHARE:
            reasons.append(f"children {name(left)} and {name(right)} overlap by "
                           f"{100 * shared / volume:.0f} % of the node's volume")
    else:
        thin = _thin_triangles(mesh.vertices, mesh.faces, node_triangles(tree, node))
        if thin:
            triangle, ratio = thin[0]
            more = f" (and {len(thin) - 1} more)" if len(thin) > 1 else ""
            words = "degenerate (no area)" if not np.isfinite(ratio) else \
                f"long and thin: longest edge {ratio:.0f}x its height"  # fmt: skip
            reasons.append(f"triangle {triangle} is {words}{more}")
        parent = int(tree.parent[node])
        if parent >= 0:
            first = int(tree.first[parent])
            sibling = first + 1 if first == node else first
            sibling_volume = box_volume(tree.bmin[sibling], tree.bmax[sibling])
            if sibling_volume > 0.0 and volume / sibling_volume > SIBLING_RATIO:
                reasons.append(f"a leaf {volume / sibling_volume:.0f}x the volume of its "
                               f"sibling {name(sibling)}")
    corners = mesh.vertices[mesh.faces[node_triangles(tree, node)]].reshape(-1, 3)
    if corners.size:
        tight = box_volume(corners.min(axis=0), corners.max(axis=0))
        if tight > 0.0 and volume / tight > LOOSE_RATIO:
            reasons.append(f"its box holds {volume / tight:.1f}x the volume of the box around "
                           "its own triangles (loose: a stale refit or padded boxes)")
    return reasons


def node_row(quality, tree, node: int, name=lambda k: k) -> dict:
    """One node's measures, as a path row: ``{"node", "depth", "triangles", "leaf", "sah",
    "sibling_overlap", "volume"}`` (None where a measure is not defined)."""
    def number(array):
        value = float(array[node])
        return value if np.isfinite(value) else None

    return {"node": int(name(node)), "depth": int(tree.depth[node]),
            "triangles": int(tree.n_prims[node]), "leaf": bool(tree.count[node] > 0),
            "sah": number(quality.nodes.sah),
            "sibling_overlap": number(quality.nodes.sibling_overlap),
            "volume": number(quality.nodes.volume)}  # fmt: skip


def diagnose_worst(mesh, tree, quality, name=lambda k: k, n: int = N_DIAGNOSED) -> list[dict]:
    """Reasons for the worst nodes by SAH term, sibling overlap and volume: ``[{"node",
    "worst_by", "why"}]``, nodes with no reason left out, each node once."""
    seen, out = set(), []
    for metric in ("sah", "sibling_overlap", "volume"):
        for node in quality.worst(metric, n):
            node = int(node)
            if node in seen:
                continue
            seen.add(node)
            reasons = why_bad(mesh, tree, node, name)
            if reasons:
                out.append({"node": int(name(node)), "worst_by": metric, "why": reasons})
    return out
