"""Tree inspection drawn on the canvas: the selected node and the nodes that break an invariant.

Three overlays, each one named actor updated in place like the level overlays:

- ``node_highlight``: the selected node's volume, in the kind the frame's traversal tested,
  thick and in :data:`NODE_COLOR`;
- ``node_triangles``: the triangles under the selected node, filled (tinted) in that colour;
- ``violations``: the tree's own boxes of every node the invariant check flagged, in
  :data:`VIOLATION_COLOR`. The check is about those boxes (a child's box inside its parent's,
  a leaf's triangles inside its box), so they are drawn whatever kind the traversal tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyvista as pv

from viewer.render.geometry import boxes_groups_polydata, triangles_polydata
from viewer.render.overlays import node_volumes
from viewer.render.words import node_label

MARK_NAMES = ("violations", "node_triangles", "node_highlight")
"""The inspection overlays, in drawing order (the highlight last: over everything)."""

NODE_COLOR = "#8800ff"
"""Violet: the node selected in the Quality panel, the outliner or by a click. Chosen among
saturated hues for the largest smallest difference from every colour that can be on screen
with it (tree, pair, contact, selection, partition and distance colours, the meshes and the
background): Delta E >= 31 under the Machado et al. (2009) protanopia, deuteranopia and
tritanopia simulations and in normal vision (tests/viewer/qt/panels/test_quality.py)."""

VIOLATION_COLOR = "#b00000"
"""Dark red: the nodes that break an invariant. A dark red rather than a pure one, because
pure red is within Delta E 3 of the vermillion crossing contacts for colour-blind viewers;
this one stays >= 18 from them and from the closest-points line under every simulation."""

MAX_TINTED_TRIANGLES = 200_000
"""Most triangles of the selected node tinted (the root of a 500k-triangle mesh holds all of
them: the canvas says when the tint is capped)."""


@dataclass
class Marks:
    """The inspection overlays of one frame: ``polys`` by name in :data:`MARK_NAMES`, and
    canvas ``notes``."""

    polys: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)


def build_marks(frame, selected: tuple[int, int] | None,
                violation_nodes: dict | None = None, file_ids: dict | None = None,
                hidden=frozenset()) -> Marks:
    """The inspection overlays of ``frame``.

    Parameters
    ----------
    frame : core.pipeline.Frame or None
    selected : (body, node) or None
        The selected node (body 0 = A, 1 = B); ignored when the frame has no such node.
    violation_nodes : dict[int, (j,) int] or None
        Per body, the node ids an invariant check flagged.
    file_ids : dict[int, (k,) int64] or None
        Per body whose tree was read from a file, the file's node ids (indexed by BVH Lab's):
        the caption names the selected node by them (:func:`viewer.render.words.node_label`).
    hidden : set of int
        Bodies the user hid: their selected node and flagged boxes are not drawn either (the
        note says the selection is hidden with its body).

    Returns
    -------
    Marks
        ``node_highlight``: the node's volume as line cells (12 for a box);
        ``node_triangles``: one filled triangle cell per triangle under the node (capped at
        :data:`MAX_TINTED_TRIANGLES`); ``violations``: 12 line cells per flagged node.
    """
    out = Marks(polys={name: pv.PolyData() for name in MARK_NAMES})
    if frame is None or not frame.trees:
        return out
    trees = frame.trees
    poses = [p.as_matrix() if hasattr(p, "as_matrix") else np.asarray(p, np.float64)
             for p in frame.poses]
    hidden = frozenset(int(b) for b in hidden)
    if selected is not None:
        body, node = selected
        label = node_label(node, (file_ids or {}).get(body))
        if body in hidden:
            out.notes.append(f"selected node {label} of {'AB'[body]}: hidden with its body")
        elif 0 <= body < len(trees) and 0 <= node < trees[body].n_nodes:
            tree = trees[body]
            out.notes.append(f"violet: node {label} of {'AB'[body]} (depth "
                             f"{int(tree.depth[node])}, {int(tree.n_prims[node]):,} triangles)")
            out.polys["node_highlight"] = node_volumes(frame, trees, [(body, [node],
                                                                       poses[body])])
            start, n = int(tree.prim_start[node]), int(tree.n_prims[node])
            if n > MAX_TINTED_TRIANGLES:
                out.notes.append(f"selected node: tinting {MAX_TINTED_TRIANGLES:,} of its "
                                 f"{n:,} triangles (cap)")
                n = MAX_TINTED_TRIANGLES
            tri_ids = np.asarray(tree.prim_ids[start:start + n])
            mesh = frame.meshes[body]
            local = np.asarray(mesh.vertices)[np.asarray(mesh.faces)[tri_ids]]
            pose = poses[body]
            out.polys["node_triangles"] = triangles_polydata(local @ pose[:3, :3].T
                                                             + pose[:3, 3])
    groups = []
    for body, ids in (violation_nodes or {}).items():
        if body >= len(trees) or body in hidden:
            continue
        tree = trees[body]
        ids = np.asarray(ids, dtype=np.int64)
        ids = ids[(ids >= 0) & (ids < tree.n_nodes)]
        if ids.shape[0]:
            groups.append((tree.bmin[ids], tree.bmax[ids], poses[body]))
    if groups:
        out.polys["violations"] = boxes_groups_polydata(groups)
        n = sum(g[0].shape[0] for g in groups)
        out.notes.append(f"dark red: {n:,} node{'s' if n != 1 else ''} breaking an invariant "
                         "(Quality panel, Invariants)")
    return out
