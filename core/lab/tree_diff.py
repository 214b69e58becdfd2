"""Two trees of one mesh side by side: counts, histograms, cost per level, the nodes whose
boxes differ most, and the cost of the same query with each.

The trees may come from anywhere (another engine's file, BVH Lab's build with any split rule,
a file's topology refitted to deformed vertices: :func:`tree_from_spec`), so their nodes are
matched by what they hold: two nodes are the same node when they hold the same set of
triangles. The sets are compared through a 64-bit fingerprint per node (the sum of one random
64-bit word per triangle, summed bottom-up in one pass over each tree), so matching every node
of two million-node trees takes linear time; the nodes a report lists are then checked
exactly (their sorted triangle ids are compared).

"The same query" is the mesh against a copy of itself moved by ``offset`` times its bounding
box diagonal along +x, the copy with BVH Lab's midpoint tree: body B is the same for both, so a
difference in volume tests or triangle tests is the first tree's doing. Both queries decide
with exact predicates, so a valid tree finds the same contacts; a tree whose boxes do not
enclose its triangles may miss some, and the report says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.bvh.diagnosis import box_volume, node_triangles
from core.mesh import TriMesh

N_DIFFER = 10
"""Matched nodes listed whose boxes differ most."""
DEFAULT_OFFSET = 0.1
"""The query's copy of the mesh is moved by this fraction of the box diagonal along +x."""
_FINGERPRINT_SEED = 20090524  # fixed: the same file gives the same matching every run


@dataclass(frozen=True)
class TreeSource:
    """A tree of the mesh and where it came from.

    Attributes
    ----------
    tree : core.bvh.Tree
    words : str
        For people and JSON: ``"file a.json"``, ``"BVH Lab's SAH build, leaf size 1"``,
        ``"file rest.json refitted to the mesh"``.
    file_ids : (k,) int64 or None
        The file's node ids (None: BVH Lab's ids).
    """

    tree: object
    words: str
    file_ids: np.ndarray | None = None

    def node_id(self, node: int) -> int:
        return int(node if self.file_ids is None else self.file_ids[int(node)])


def tree_from_spec(spec: str, mesh: TriMesh) -> TreeSource:
    """The tree ``spec`` names over ``mesh``.

    Parameters
    ----------
    spec : str
        A tree file (read over the mesh, boxes as given); ``build:RULE`` or
        ``build:RULE:LEAF`` (BVH Lab builds it, e.g. ``build:sah:4``); ``refit:FILE`` (the
        file's topology with boxes fitted to the mesh's vertices: a tree refitted after a
        deformation). An existing file of that name wins over the prefixes.

    Raises
    ------
    ValueError
        An unknown rule or a bad leaf size (naming ``--tree`` and the spec); TreeFileError for
        a bad file.
    """
    from core.bvh import SplitRule, build_tree
    from core.bvh.refit import refit_tree
    from core.bvh.tree_formats import read_any_tree as read_tree

    if os.path.exists(spec) or not spec.startswith(("build:", "refit:")):
        imported = read_tree(spec, mesh)
        return TreeSource(imported.tree, f"file {Path(spec).name}", imported.file_ids)
    kind, _, rest = spec.partition(":")
    if kind == "refit":
        imported = read_tree(rest, mesh)
        return TreeSource(refit_tree(imported.tree, mesh),
                          f"file {Path(rest).name} refitted to the mesh", imported.file_ids)
    rule, _, leaf = rest.partition(":")
    names = [r.name.lower() for r in SplitRule]
    if rule.lower() not in names:
        raise ValueError(f"--tree {spec}: unknown split rule {rule!r}; one of "
                         f"{', '.join(names)}")
    try:
        leaf_size = int(leaf) if leaf else 1
    except ValueError:
        raise ValueError(f"--tree {spec}: the leaf size must be a whole number") from None
    if leaf_size < 1:
        raise ValueError(f"--tree {spec}: the leaf size must be at least 1")
    split = SplitRule[rule.upper()]
    return TreeSource(build_tree(mesh, split, leaf_size),
                      f"BVH Lab's {split.name.lower()} build, leaf size {leaf_size}")


def triangle_words(n_triangles: int) -> np.ndarray:
    """``(n_triangles,) uint64``: one fixed odd random word per triangle."""
    return np.random.default_rng(_FINGERPRINT_SEED).integers(
        0, 2**63, size=n_triangles, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def node_fingerprints(tree, words: np.ndarray) -> np.ndarray:
    """``(k,) uint64``: each node's sum of ``words`` (:func:`triangle_words`) over the
    triangles under it."""
    ordered = words[tree.prim_ids]
    # prefix sums (mod 2**64) give each node's run in prim_ids in one subtraction
    prefix = np.concatenate([[np.uint64(0)], np.cumsum(ordered, dtype=np.uint64)])
    start = tree.prim_start.astype(np.int64)
    return prefix[start + tree.n_prims.astype(np.int64)] - prefix[start]


def match_nodes(first, second, n_triangles: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes of ``first`` and ``second`` holding the same triangles.

    Returns
    -------
    nodes_first, nodes_second : (j,) int64
        Matched pairs (equal fingerprint and triangle count), in ``first``'s node order.
    """
    words = triangle_words(n_triangles)
    fa, fb = node_fingerprints(first, words), node_fingerprints(second, words)
    # A valid binary tree has no two nodes over the same set (no node has one child), so a
    # fingerprint is unique within a tree; intersect1d keeps the first of any collision.
    _common, a, b = np.intersect1d(fa, fb, assume_unique=False, return_indices=True)
    same_count = first.n_prims[a] == second.n_prims[b]
    a, b = a[same_count].astype(np.int64), b[same_count].astype(np.int64)
    order = np.argsort(a, kind="stable")
    return a[order], b[order]


def _same_triangles(first, second, a: int, b: int) -> bool:
    return np.array_equal(np.sort(node_triangles(first, a)), np.sort(node_triangles(second, b)))


def differing_nodes(first: TreeSource, second: TreeSource, n_triangles: int,
                    n: int = N_DIFFER) -> tuple[int, list[dict]]:
    """The matched nodes whose boxes differ most: ``(n_matched, rows)``.

    Rows are ordered by how far the two boxes' corners are apart (largest first), each
    ``{"node_first", "node_second", "depth_first", "depth_second", "triangles",
    "volume_first", "volume_second", "volume_ratio", "corner_distance"}`` with node ids as
    each tree's source names them; ``volume_ratio`` is first over second (None when the
    second is flat), so a node that grew in the first tree has a ratio above 1.
    """
    ta, tb = first.tree, second.tree
    a, b = match_nodes(ta, tb, n_triangles)
    if a.size == 0:
        return 0, []
    corner = np.maximum(np.abs(ta.bmin[a] - tb.bmin[b]).max(axis=1),
                        np.abs(ta.bmax[a] - tb.bmax[b]).max(axis=1))
    va, vb = box_volume(ta.bmin[a], ta.bmax[a]), box_volume(tb.bmin[b], tb.bmax[b])
    rows = []
    for k in np.argsort(-corner, kind="stable"):
        if len(rows) == n or corner[k] == 0.0:
            break
        if not _same_triangles(ta, tb, int(a[k]), int(b[k])):
            continue  # a fingerprint collision (never seen): not the same node
        rows.append({
            "node_first": first.node_id(a[k]), "node_second": second.node_id(b[k]),
            "depth_first": int(ta.depth[a[k]]), "depth_second": int(tb.depth[b[k]]),
            "triangles": int(ta.n_prims[a[k]]),
            "volume_first": float(va[k]), "volume_second": float(vb[k]),
            "volume_ratio": float(va[k] / vb[k]) if vb[k] > 0.0 else None,
            "corner_distance": float(corner[k]),
        })  # fmt: skip
    return int(a.size), rows


def per_level(values: np.ndarray, depth: np.ndarray) -> list:
    """Sum of ``values`` over the nodes of each depth (None where every value is NaN)."""
    out = []
    for d in range(int(depth.max()) + 1 if depth.size else 0):
        at = values[depth == d]
        finite = at[~np.isnan(at)]
        out.append(float(finite.sum()) if finite.size else None)
    return out


def query_cost(mesh: TriMesh, source: TreeSource, pose_b, tree_b) -> dict:
    """Volume tests, triangle tests and contacts of the mesh with ``source``'s tree against
    its copy (``tree_b`` at ``pose_b``, the same for both trees of a diff)."""
    from core.collide.query import collide

    result = collide(mesh, source.tree, mesh, tree_b, None, pose_b)
    counters = result.counters
    return {"volume_tests": int(counters.n_bv_tests), "triangle_tests": int(counters.n_tri_tests),
            "contacts": int(result.pairs.shape[0])}


def tree_summary(mesh: TriMesh, source: TreeSource, query: dict) -> dict:
    """One tree's column of the diff (``query``: its :func:`query_cost`)."""
    from core.bvh import tree_quality

    quality = tree_quality(mesh, source.tree)
    measures = quality.to_json()
    return {
        "tree": source.words, "n_nodes": quality.n_nodes, "n_leaves": quality.n_leaves,
        "depth_min": quality.depth_min, "depth_max": quality.depth_max,
        "depth_histogram": measures["depth_histogram"],
        "leaf_size_histogram": measures["leaf_size_histogram"],
        "sah": measures["sah"], "epo": measures["epo"],
        "sah_per_level": per_level(quality.nodes.sah, quality.node_depth),
        "epo_per_level": per_level(quality.nodes.epo, quality.node_depth),
        "query": query,
    }  # fmt: skip


def diff_trees(mesh: TriMesh, first: TreeSource, second: TreeSource,
               offset: float = DEFAULT_OFFSET) -> dict:
    """The diff of two trees of ``mesh`` (the JSON of ``python -m core diff``).

    The query's copy of the mesh (moved by ``offset`` box diagonals along +x, with BVH
    Lab's midpoint tree) is made once and met by both trees."""
    from core.bvh import build_tree
    from core.pose import Pose

    diagonal = float(np.linalg.norm(mesh.vertices.max(axis=0) - mesh.vertices.min(axis=0)))
    pose_b, tree_b = Pose(translation=(offset * diagonal, 0.0, 0.0)), build_tree(mesh)
    columns = [tree_summary(mesh, source, query_cost(mesh, source, pose_b, tree_b))
               for source in (first, second)]
    n_matched, rows = differing_nodes(first, second, mesh.n_faces)
    contacts = [c["query"]["contacts"] for c in columns]
    return {
        "mesh": mesh.name, "triangles": mesh.n_faces, "query_offset": offset,
        "trees": columns, "matched_nodes": n_matched, "differ_most": rows,
        "same_contacts": contacts[0] == contacts[1],
    }
