"""Frame -> overlay PolyData, one per overlay kind (pure: no actors, no Qt).

What is drawn for a chosen traversal level ``d`` (``None`` = every level):

- ``tree_a`` / ``tree_b``: the boxes of each tree at depth ``d`` (clamped to the tree's
  depth), in world coordinates;
- ``parents``: the boxes one depth above (faint, optional);
- ``overlap``: for every pair the trace records as overlapping at level ``d``, A's box and
  B's box (``2 * 12`` line cells per pair, so the cell count is exactly
  ``24 * trace.overlapping_per_level[d]`` when not capped);
- ``culled``: the same for pairs tested and culled at level ``d``;
- ``contact_tris``: every contacting triangle of A and of B once, filled;
- ``contact_segments``: the intersection segment of every contacting pair;
- ``inspect``: the box the user clicked and its partners at that level.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyvista as pv

from viewer.render.geometry import (
    boxes_groups_polydata,
    boxes_polydata,
    segments_polydata,
    triangles_polydata,
)

OVERLAY_NAMES = (
    "tree_a",
    "tree_b",
    "parents",
    "culled",
    "overlap",
    "contact_tris",
    "contact_segments",
    "inspect",
)
"""Every overlay kind, in drawing order; each is one actor with this name."""


@dataclass
class Overlays:
    """The overlay geometry of one frame.

    Attributes
    ----------
    polys : dict[str, pv.PolyData]
        One entry per name in :data:`OVERLAY_NAMES` (empty PolyData when nothing to draw).
    notes : list of str
        Lines for the canvas, e.g. that an overlay was capped.
    n_contact_tris : int
        Distinct contacting triangles of A plus those of B (cells of ``contact_tris``).
    """

    polys: dict[str, pv.PolyData] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    n_contact_tris: int = 0


def trace_pairs(trace, level: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Node pairs of one level, or of all levels concatenated.

    Returns
    -------
    node_pairs : (p, 2) int32
    overlapped : (p,) bool
    """
    if trace is None or trace.n_levels == 0:
        return np.empty((0, 2), np.int32), np.empty(0, bool)
    if level is not None:
        return trace.level(min(level, trace.n_levels - 1))
    parts = [trace.level(d) for d in range(trace.n_levels)]
    return (np.concatenate([p for p, _ in parts]), np.concatenate([o for _, o in parts]))


def tree_nodes(tree, level: int | None) -> np.ndarray:
    """Node ids drawn for a tree: depth ``level`` (clamped), or all nodes shallow first."""
    if level is None:
        return np.asarray(tree.level_nodes)
    return np.asarray(tree.nodes_at_depth(min(level, tree.max_depth)))


def _capped(ids: np.ndarray, cap: int, what: str, notes: list[str]) -> np.ndarray:
    if ids.shape[0] > cap:
        notes.append(f"{what}: drawing {cap} of {ids.shape[0]} (cap)")
        return ids[:cap]
    return ids


def _pair_boxes(pairs: np.ndarray, tree_a, tree_b, pose_a, pose_b) -> pv.PolyData:
    """A's box then B's box of every pair, as one PolyData of ``24 p`` line cells."""
    ia, ib = pairs[:, 0], pairs[:, 1]
    return boxes_groups_polydata(
        [(tree_a.bmin[ia], tree_a.bmax[ia], pose_a), (tree_b.bmin[ib], tree_b.bmax[ib], pose_b)]
    )


def _matrix(pose) -> np.ndarray:
    """A core Pose (or a 4x4 matrix) as ``(4, 4) float64``."""
    if hasattr(pose, "as_matrix"):
        return pose.as_matrix()
    return np.asarray(pose, dtype=np.float64)


def level_sentence(trace, level: int, descend: str = "LARGER_VOLUME") -> str:
    """One sentence for step mode about traversal level ``level``."""
    if trace is None or trace.n_levels == 0:
        return "No traversal yet."
    level = min(level, trace.n_levels - 1)
    tested = int(trace.tested_per_level[level])
    overlap = int(trace.overlapping_per_level[level])
    leaves = int(trace.leaf_pairs_per_level[level])
    text = f"Level {level}: {tested} pairs tested, {overlap} overlap"
    if level == 0:
        verdict = "overlap" if overlap else "do not overlap"
        text = f"Level 0: the two root boxes are tested; they {verdict}"
    if leaves:
        text += f"; {leaves} are pairs of leaves, sent to the exact triangle test"
    internal = overlap - leaves
    if internal > 0:
        rule = {
            "LARGER_VOLUME": "the larger box of each of the other pairs is split",
            "BOTH": "both boxes of each of the other pairs are split",
            "A_FIRST": "A's box is split first (B's once A's is a leaf)",
        }.get(descend, "one box of each of the other pairs is split")
        text += f"; {rule}, giving the pairs of level {level + 1}"
    elif level == trace.n_levels - 1:
        text += "; nothing is left to split: the traversal ends here"
    culled = tested - overlap
    if culled:
        text += f". {culled} pairs are culled: their boxes are apart"
    return text + "."


def build_overlays(frame, display, level: int | None, inspect: dict | None = None) -> Overlays:
    """Overlay geometry of ``frame`` at traversal level ``level``.

    Parameters
    ----------
    frame : core.pipeline.Frame or None
    display : viewer.model.Display
    level : int or None
        Traversal level (tree depth for the tree overlays); None = all levels.
    inspect : dict or None
        ``{"body": 0 or 1, "node": int}`` of a clicked box.

    Returns
    -------
    Overlays
    """
    out = Overlays(polys={name: pv.PolyData() for name in OVERLAY_NAMES})
    if frame is None or len(frame.trees) < 2:
        return out
    cap = int(display.box_cap)
    trees = frame.trees
    poses = [_matrix(p) for p in frame.poses]
    result = frame.result
    trace = result.trace if result is not None else None

    for i, name in ((0, "tree_a"), (1, "tree_b")):
        is_shown = display.show_tree_a if i == 0 else display.show_tree_b
        if not is_shown:
            continue
        ids = _capped(tree_nodes(trees[i], level), cap, f"boxes of {'AB'[i]}", out.notes)
        out.polys[name] = boxes_polydata(trees[i].bmin[ids], trees[i].bmax[ids], poses[i])

    if display.show_parents and level is not None and level > 0:
        groups = []
        for i in range(2):
            if not (display.show_tree_a if i == 0 else display.show_tree_b):
                continue
            depth = min(level, trees[i].max_depth) - 1
            ids = _capped(np.asarray(trees[i].nodes_at_depth(depth)), cap, "parents", out.notes)
            groups.append((trees[i].bmin[ids], trees[i].bmax[ids], poses[i]))
        out.polys["parents"] = boxes_groups_polydata(groups)

    if trace is not None and (display.show_overlap or display.show_culled):
        pairs, overlapped = trace_pairs(trace, level)
        if display.show_overlap:
            hit = _capped(pairs[overlapped], cap // 2, "overlapping pairs", out.notes)
            out.polys["overlap"] = _pair_boxes(hit, trees[0], trees[1], poses[0], poses[1])
        if display.show_culled:
            miss = _capped(pairs[~overlapped], cap // 2, "culled pairs", out.notes)
            out.polys["culled"] = _pair_boxes(miss, trees[0], trees[1], poses[0], poses[1])

    if result is not None and display.show_contacts and result.pairs.shape[0]:
        meshes = frame.meshes
        corners = []
        for i in range(2):
            tri_ids = np.unique(result.pairs[:, i])
            local = meshes[i].vertices[meshes[i].faces[tri_ids]]
            corners.append(local @ poses[i][:3, :3].T + poses[i][:3, 3])
        all_corners = np.concatenate(corners)
        out.n_contact_tris = int(all_corners.shape[0])
        out.polys["contact_tris"] = triangles_polydata(all_corners)
        out.polys["contact_segments"] = segments_polydata(np.asarray(result.segments))

    if inspect is not None and trace is not None:
        body, node = int(inspect["body"]), int(inspect["node"])
        tree, other = trees[body], trees[1 - body]
        partners = np.asarray(inspect.get("partners", []), dtype=np.int64)
        out.polys["inspect"] = boxes_groups_polydata(
            [(tree.bmin[[node]], tree.bmax[[node]], poses[body]),
             (other.bmin[partners], other.bmax[partners], poses[1 - body])]
        )
    return out


def inspect_node(frame, body: int, tri_id: int, level: int | None) -> dict | None:
    """What the inspector shows for a clicked triangle of body 0 or 1.

    The clicked box is the ancestor, at the chosen level's depth, of the leaf holding
    triangle ``tri_id`` (the deepest leaf when ``level`` is None or deeper than the leaf).

    Returns
    -------
    dict or None
        ``body, node, depth, n_prims, triangle, level, partners (list of int),
        partner_overlaps (list of bool), levels_tested (traversal levels where the box was
        in a tested pair)``; None when there is no frame or no tree.
    """
    if frame is None or body > 1 or len(frame.trees) < 2:
        return None
    tree = frame.trees[body]
    where = np.flatnonzero(np.asarray(tree.prim_ids) == tri_id)
    if where.size == 0:
        return None
    pos = int(where[0])
    leaves = np.flatnonzero(np.asarray(tree.count) > 0)
    starts = np.asarray(tree.first)[leaves]
    counts = np.asarray(tree.count)[leaves]
    inside = (starts <= pos) & (pos < starts + counts)
    node = int(leaves[np.flatnonzero(inside)[0]])
    if level is not None:
        while int(tree.depth[node]) > level and int(tree.parent[node]) >= 0:
            node = int(tree.parent[node])
    trace = frame.result.trace if frame.result is not None else None
    partners: list[int] = []
    overlaps: list[bool] = []
    levels_tested: list[int] = []
    if trace is not None and trace.n_levels:
        pairs, overlapped = trace_pairs(trace, level)
        mine = pairs[:, body] == node
        partners = [int(p) for p in pairs[mine, 1 - body]]
        overlaps = [bool(o) for o in overlapped[mine]]
        # With the larger-volume rule a box is not always tested at the level equal to its
        # depth: list every level where it was.
        column = trace.node_a if body == 0 else trace.node_b
        rows = np.flatnonzero(np.asarray(column) == node)
        levels_tested = sorted({int(d) for d in
                                np.searchsorted(trace.level_start, rows, side="right") - 1})
    return {
        "body": body,
        "node": node,
        "depth": int(tree.depth[node]),
        "n_prims": int(tree.n_prims[node]),
        "triangle": int(tri_id),
        "level": level,
        "partners": partners,
        "partner_overlaps": overlaps,
        "levels_tested": levels_tested,
    }
