"""Frame -> overlay PolyData, one per overlay kind (pure: no actors, no Qt).

What is drawn for a chosen traversal level ``d`` (``None`` = every level):

- ``tree_a`` / ``tree_b``: the boxes of each tree at depth ``d`` (clamped to the tree's
  depth), in world coordinates;
- ``parents``: the boxes one depth above (faint, optional);
- ``overlap``: for every pair the trace records as overlapping at level ``d``, A's box and
  B's box (``2 * 12`` line cells per pair, so the cell count is exactly
  ``24 * trace.overlapping_per_level[d]`` when not capped);
- ``culled``: the same for pairs tested and culled at level ``d``;
- ``contact_tris``: every contacting triangle of A and of B once, filled, coloured by how it
  meets the other mesh (cell array ``"rgb"``, see :data:`KIND_COLORS`; cell array ``"kind"``);
- ``contact_segments``: the intersection segment of every contacting pair;
- ``inspect``: the box the user clicked and its partners at that level.

A frame of one body with self-collision (``frame.self_results``) is drawn the same way with
both columns of every pair in the one tree: the self-traversal's box pairs at level ``d`` and
the triangles of the mesh that meet other triangles of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyvista as pv

from viewer.render.drawing_budget import COPY_LAYER, Layer, LineBudget, LinePlan, plan_layers
from viewer.render.geometry import (
    boxes_groups_polydata,
    segments_polydata,
    triangles_polydata,
)
from viewer.render.volumes import (
    cells_polydata,
    distance_polydata,
    frame_volume_set,
    planes_polydata,
    volumes_groups_polydata,
)
from viewer.state.side_results import ShownSide, shown_side

# Mirrors of ``core.collide.tritri.ContactKind`` (the render layer does not call the core; a
# test checks the values are the same).
KIND_CROSSING = 1
KIND_TOUCHING = 2
KIND_COPLANAR = 3

KIND_COLORS = {
    KIND_CROSSING: (213, 94, 0),
    KIND_TOUCHING: (240, 228, 66),
    KIND_COPLANAR: (170, 68, 153),
}
"""RGB of a contacting triangle by contact kind: crossing in Okabe-Ito vermillion (their
red), touching in Okabe-Ito yellow, a coplanar overlap in Tol's muted purple; see the palette
note in :mod:`viewer.render.scene` (each differs from every overlay, also for colour-blind
viewers)."""

KIND_LABELS = {
    KIND_CROSSING: "crossing",
    KIND_TOUCHING: "touching",
    KIND_COPLANAR: "coplanar overlap",
}

# A triangle in several contact pairs shows the strongest kind: a crossing hides a touch,
# and a coplanar overlap (two faces lying on each other) outranks a mere touch.
_KIND_RANK = np.zeros(4, dtype=np.int8)
_KIND_RANK[[KIND_TOUCHING, KIND_COPLANAR, KIND_CROSSING]] = (1, 2, 3)
_RANK_KIND = np.array([0, KIND_TOUCHING, KIND_COPLANAR, KIND_CROSSING], dtype=np.int8)


def triangle_kinds(tri_ids: np.ndarray, kinds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct triangles of a list of contacts, each with its strongest contact kind.

    Parameters
    ----------
    tri_ids : (c,) int
        One triangle id per contact pair (a triangle may repeat).
    kinds : (c,) int8
        Contact kind of each pair.

    Returns
    -------
    ids : (u,) int64
        Sorted distinct triangle ids.
    tri_kinds : (u,) int8
        Crossing if any of its pairs crosses, else coplanar if any is coplanar, else touching.
    """
    ids, inverse = np.unique(np.asarray(tri_ids), return_inverse=True)
    best = np.zeros(ids.shape[0], dtype=np.int8)
    np.maximum.at(best, inverse.ravel(), _KIND_RANK[np.asarray(kinds, dtype=np.int64)])
    return ids.astype(np.int64), _RANK_KIND[best]


def kind_colors(tri_kinds: np.ndarray) -> np.ndarray:
    """``(u, 3) uint8`` RGB of each kind in ``tri_kinds`` (:data:`KIND_COLORS`)."""
    table = np.zeros((4, 3), dtype=np.uint8)
    for kind, rgb in KIND_COLORS.items():
        table[kind] = rgb
    return table[np.asarray(tri_kinds, dtype=np.int64)]


OVERLAY_NAMES = (
    "inspect",
    "tree_a",
    "tree_b",
    "parents",
    "culled",
    "overlap",
    "contact_tris",
    "contact_segments",
    "partition_cells",
    "partition_planes",
    "distance",
)
"""Every overlay kind, in drawing order; each is one actor with this name. The selection
(``inspect``) comes first: a wide line under the boxes it marks, which are drawn over its
middle in their own colours."""


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
    n_by_kind : dict[int, int]
        Of those, how many per contact kind (:data:`KIND_LABELS` keys).
    plan : viewer.render.drawing_budget.LinePlan or None
        What the drawing budget kept (None: built without a budget).
    """

    polys: dict[str, pv.PolyData] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    n_contact_tris: int = 0
    n_by_kind: dict = field(default_factory=dict)
    plan: LinePlan | None = None


def trace_pairs(trace, level: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Node pairs of one level, or of all levels concatenated (``Trace.pairs``; none
    without a trace).

    Returns
    -------
    node_pairs : (p, 2) int32
    overlapped : (p,) bool
    """
    if trace is None:
        return np.empty((0, 2), np.int32), np.empty(0, bool)
    return trace.pairs(level)


def tree_nodes(tree, level: int | None) -> np.ndarray:
    """Node ids drawn for a tree: depth ``level`` (clamped), or all nodes shallow first."""
    if level is None:
        return np.asarray(tree.level_nodes)
    return np.asarray(tree.nodes_at_depth(min(level, tree.max_depth)))


def _layer(name: str, what: str, ids: np.ndarray, cap: int, body: int | None,
           budget: LineBudget | None) -> Layer:
    width = 1.0 if budget is None else budget.width(name)
    return Layer(name, what, np.asarray(ids)[:cap], int(ids.shape[0]), body, width)


def _level_layers(trees, level: int | None, display, trace, is_self: bool, hidden, cap: int,
                  budget: LineBudget | None, out: Overlays) -> list[Layer]:
    """The level's volumes and pairs to draw, cut to the box cap, in drawing order (plus the
    trees' boxes once more for each of the budget's ``tree_copies``)."""
    layers = []
    copies = () if budget is None else budget.tree_copies
    for i, name in ((0, "tree_a"), (1, "tree_b")):
        is_shown = display.show_tree_a if i == 0 else display.show_tree_b
        if (is_self and i == 1) or i in hidden or not (is_shown or copies):
            continue
        ids = tree_nodes(trees[i], level)
        if is_shown:
            layers.append(_layer(name, f"boxes of {'AB'[i]}", ids, cap, i, budget))
        layers.extend(Layer(COPY_LAYER, "", ids[:cap], int(ids.shape[0]), i, float(width),
                            int(dashes)) for width, dashes in copies)

    if display.show_parents and level is not None and level > 0:
        for i in range(1 if is_self else 2):
            if not (display.show_tree_a if i == 0 else display.show_tree_b) or i in hidden:
                continue
            depth = min(level, trees[i].max_depth) - 1
            layers.append(_layer("parents", "parents",
                                 np.asarray(trees[i].nodes_at_depth(depth)), cap, i, budget))

    if trace is not None and (display.show_overlap or display.show_culled):
        pairs, overlapped = trace_pairs(trace, level)
        if is_self:
            # A box paired with itself is split without a test (it always overlaps itself):
            # drawing it would paint every box of the level orange. Only pairs of two
            # different boxes of the tree are drawn.
            is_other = pairs[:, 0] != pairs[:, 1]
            if display.show_overlap and not is_other.all():
                out.notes.append(f"{int(np.count_nonzero(~is_other))} pairs of a box with "
                                 "itself not drawn")
            pairs, overlapped = pairs[is_other], overlapped[is_other]
        if display.show_overlap:
            layers.append(_layer("overlap", "overlapping pairs", pairs[overlapped], cap // 2,
                                 None, budget))
        if display.show_culled:
            layers.append(_layer("culled", "culled pairs", pairs[~overlapped], cap // 2, None,
                                 budget))
    return layers


def node_volumes(frame, trees, groups) -> pv.PolyData:
    """Volumes of some nodes, drawn as the kind the frame's traversal tested.

    Parameters
    ----------
    frame : core.pipeline.Frame
        A frame with ``volumes`` draws them with their kind's ``wire``
        (:mod:`viewer.render.volumes`); a frame without, the trees' own boxes.
    trees : sequence of two trees
    groups : sequence of (body 0 or 1, node ids (j,) int, pose (4, 4) float64)
    """
    if len(frame.trees) == 1:
        # One body against itself (self-collision): both columns are the one tree.
        groups = [(0, ids, pose) for _body, ids, pose in groups]
    volumes = frame_volume_set(frame)
    if volumes is None:
        return boxes_groups_polydata(
            [(trees[b].bmin[ids], trees[b].bmax[ids], pose) for b, ids, pose in groups])
    return volumes_groups_polydata(volumes, groups)


def _pair_volumes(frame, trees, pairs: np.ndarray, poses, hidden=frozenset()) -> pv.PolyData:
    """A's volume then B's volume of every pair (``24 p`` line cells for boxes); the
    volumes of a hidden body (index in ``hidden``) are left out."""
    return node_volumes(frame, trees, [(i, pairs[:, i], poses[i]) for i in (0, 1)
                                       if i not in hidden])


def _add_extras(frame, poses, out: Overlays, level: int | None, side: ShownSide) -> None:
    """Partition cells and planes, and the closest points, of a frame (``side``: its distance,
    the frame's own or one computed beside it, see :func:`viewer.state.side_results.shown_side`).

    BSP planes are drawn down to depth ``level`` (all when None), so the level slider
    reveals the splits one depth at a time; only planes of nodes holding both meshes.
    """
    part = frame.partition
    if part is not None:
        cells = part.cells
        if cells.shape[0] > MAX_PARTITION_CELLS:
            out.notes.append(f"cells: drawing {MAX_PARTITION_CELLS} of {cells.shape[0]} (cap)")
            cells = cells[:MAX_PARTITION_CELLS]
        out.polys["partition_cells"] = cells_polydata(cells, poses[0])
        planes = part.planes
        if planes.n_planes:
            is_shown = planes.has_both & (planes.depth <= (np.inf if level is None else level))
            keep = np.flatnonzero(is_shown)[:MAX_PARTITION_CELLS]
            out.polys["partition_planes"] = planes_polydata(
                planes.center[keep], planes.normal[keep], planes.extent[keep], poses[0])
        multi_a, multi_b = part.n_multi_cell_triangles
        # Short lines: the canvas note shrinks its font to fit its longest line.
        out.notes.append(f"partition: {part.cells.shape[0]:,} cells hold both meshes, "
                         f"{part.n_candidates:,} candidate pairs")
        out.notes.append(f"  triangles in several cells: {multi_a:,} of A, {multi_b:,} of B")
        if planes.n_planes:
            depth = "all depths" if level is None else f"depth <= {level}"
            out.notes.append(f"  splitting planes drawn: {keep.shape[0]} ({depth})")
    dist = side.distance
    if dist is not None:
        out.polys["distance"] = distance_polydata(dist.point_a, dist.point_b)
        late = f", {side.late}" if side.late else ""
        out.notes.append(f"minimum distance {dist.distance:.4g} (purple line{late})")
        out.notes.append(f"  closest: triangle {int(dist.pair[0])} of A, {int(dist.pair[1])} of "
                         f"B; {dist.counters.n_bv_tests:,} RSS pairs bounded")


MAX_PARTITION_CELLS = 20_000
"""Most partition cells (and BSP planes) drawn; above it the canvas says so."""


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


def tested_hidden(hidden) -> frozenset:
    """The tested bodies among ``hidden`` (0 = A, 1 = B), as a frozenset of int: bodies
    past B are not tested, so hiding them changes no overlay."""
    return frozenset(int(i) for i in hidden if int(i) < 2)


def build_overlays(frame, display, level: int | None, inspect=None,
                   hidden=frozenset(), contact_ids: np.ndarray | None = None,
                   side: ShownSide | None = None, budget: LineBudget | None = None) -> Overlays:
    """Overlay geometry of ``frame`` at traversal level ``level``.

    Parameters
    ----------
    frame : core.pipeline.Frame or None
    display : viewer.state.display.Display
    level : int or None
        Traversal level (tree depth for the tree overlays); None = all levels.
    inspect : core.lab.inspect.NodeInspection or None
        The clicked box (``body``, ``node``) and its ``partners``.
    hidden : set of int
        Tested bodies (0 = A, 1 = B) the user hid: nothing of theirs is drawn, neither their
        tree's volumes, nor their half of each pair, nor their contact triangles (the
        intersection segments go when both are hidden), and the note says so.
    contact_ids : (c,) int64 or None
        Only these rows of the frame's contacts are drawn (the traversal stepper's contacts
        found so far); None draws them all.
    side : ShownSide or None
        The distance and inside test to show (computed beside the frame, perhaps on an older
        one: then the note says "from frame N"); None: the frame's own.
    budget : viewer.render.drawing_budget.LineBudget or None
        The render time the level's volumes and pairs must fit: past it every layer keeps
        the same share of its first boxes and the note says so
        (:func:`viewer.render.drawing_budget.plan_layers`); None: only the box cap.

    Returns
    -------
    Overlays
    """
    out = Overlays(polys={name: pv.PolyData() for name in OVERLAY_NAMES})
    if frame is None:
        return out
    if side is None:
        side = shown_side(frame, None)
    containment = side.containment
    if containment is not None:
        late = f" ({side.late})" if side.late else ""
        out.notes.append(f"no contact: {containment.text}{late}")
    is_self = len(frame.trees) == 1 and frame.shown_result() is not None
    if len(frame.trees) < 2 and not is_self:
        return out
    cap = int(display.box_cap)
    volumes = frame_volume_set(frame)
    if volumes is not None and volumes.max_drawn is not None:
        cap = min(cap, volumes.max_drawn)  # e.g. k-DOP faces: about 0.5 ms per volume to build
    # A self-traversal pairs boxes of one tree: both columns index tree 0.
    trees = [frame.trees[0], frame.trees[0]] if is_self else frame.trees
    poses = [_matrix(p) for p in frame.poses]
    if is_self:
        poses = [poses[0], poses[0]]
    result = frame.shown_result()
    trace = result.trace if result is not None else None
    hidden = tested_hidden(hidden)
    if is_self and 0 in hidden:
        hidden = frozenset((0, 1))  # both columns of a self-traversal are the one mesh
    if hidden:
        who = ("the mesh is" if is_self else
               " and ".join("AB"[i] for i in sorted(hidden)) + (" are" if len(hidden) == 2
                                                                  else " is"))
        out.notes.append(f"{who} hidden: not drawn (the counts include it)")

    layers = _level_layers(trees, level, display, trace, is_self, hidden, cap, budget, out)
    kept, out.plan = plan_layers(budget, frame, trees, poses, layers, hidden)
    groups: dict[str, list] = {}
    for layer, n_kept in zip(layers, kept, strict=True):
        if layer.name == COPY_LAYER:
            continue  # planned only: the ghost and the node heat map draw these boxes
        if n_kept < len(layer.ids):
            out.notes.append(f"{layer.what}: drawing {n_kept:,} of {layer.total:,} (drawing "
                             f"budget {1e3 * budget.budget_s:.0f} ms)")
        elif len(layer.ids) < layer.total:
            out.notes.append(f"{layer.what}: drawing {len(layer.ids)} of {layer.total} (cap)")
        if layer.body is None:
            out.polys[layer.name] = _pair_volumes(frame, trees, layer.ids[:n_kept], poses,
                                                  hidden)
        else:
            groups.setdefault(layer.name, []).append(
                (layer.body, layer.ids[:n_kept], poses[layer.body]))
    for name, parts in groups.items():
        out.polys[name] = node_volumes(frame, trees, parts)

    contact_rows = (slice(None) if contact_ids is None or result is None else
                    np.asarray(contact_ids, dtype=np.int64))
    if (result is not None and display.show_contacts and result.pairs[contact_rows].shape[0]
            and len(hidden) < 2):
        meshes = frame.meshes
        pairs, kinds = result.pairs[contact_rows], result.kinds[contact_rows]
        corners, all_kinds = [], []
        # One body: both columns are its own triangles, each drawn once.
        columns = ([(0, np.concatenate([pairs[:, 0], pairs[:, 1]]),
                     np.concatenate([kinds, kinds]))] if is_self else
                   [(i, pairs[:, i], kinds) for i in range(2)])
        for i, column, kinds in columns:
            if i in hidden:
                continue
            tri_ids, tri_kinds = triangle_kinds(column, kinds)
            local = meshes[i].vertices[meshes[i].faces[tri_ids]]
            corners.append(local @ poses[i][:3, :3].T + poses[i][:3, 3])
            all_kinds.append(tri_kinds)
        all_corners = np.concatenate(corners)
        tri_kinds = np.concatenate(all_kinds)
        out.n_contact_tris = int(all_corners.shape[0])
        out.n_by_kind = {k: int(np.count_nonzero(tri_kinds == k)) for k in KIND_COLORS}
        poly = triangles_polydata(all_corners)
        poly.cell_data["kind"] = tri_kinds
        poly.cell_data["rgb"] = kind_colors(tri_kinds)
        poly.cell_data.active_scalars_name = "rgb"
        out.polys["contact_tris"] = poly
        out.polys["contact_segments"] = segments_polydata(
            np.asarray(result.segments)[contact_rows])

    if inspect is not None and trace is not None:
        body, node = int(inspect.body), int(inspect.node)
        partners = np.asarray(inspect.partners, dtype=np.int64)
        groups = [(body, [node], poses[body]), (1 - body, partners, poses[1 - body])]
        out.polys["inspect"] = node_volumes(
            frame, trees, [g for g in groups if g[0] not in hidden])
    _add_extras(frame, poses, out, level, side)
    return out
