"""The look of the canvas: the overlay palette, line widths and opacities, text sizes, and the
legend's rows (which name the volumes in the words of the kind a frame tested).

Plain data and pure functions: no plotter, no Qt.
"""

from __future__ import annotations

from viewer.render.ghost import GhostView
from viewer.render.marks import NODE_COLOR, VIOLATION_COLOR
from viewer.render.overlays import KIND_COLORS, KIND_COPLANAR, KIND_CROSSING, KIND_TOUCHING
from viewer.render.volumes import frame_volume_set
from viewer.render.words import UNNAMED, KindWords

# The overlay palette: Okabe & Ito (2008) and Paul Tol's (2021) colour-blind-safe schemes.
# Chosen by searching those palettes for the set whose closest pair stays farthest apart in
# CIE L*a*b* under the Machado et al. (2009) protanopia, deuteranopia and tritanopia
# simulations: every two overlays that can be on screen together differ by Delta E >= 18
# under each simulation and >= 25 in normal vision (tests/viewer/render/test_palette.py). Eleven
# overlays can be on screen at once; no set from these palettes keeps all of them 20 apart
# under all three simulations (the best reached 18.0).
TREE_A_COLOR = "#222255"  # Tol dark blue: the boxes of A (its mesh is light blue)
TREE_B_COLOR = "#225522"  # Tol dark green: the boxes of B (its mesh is light green)
OVERLAP_COLOR = "#ee8866"  # Tol light orange
CULLED_COLOR = "#808080"  # neutral grey: the same for every colour vision
CONTACT_COLOR = "#d55e00"
"""Fallback colour of the contact triangles (Okabe-Ito vermillion, their red); each is drawn
in its kind's colour (``overlays.KIND_COLORS``)."""
SEGMENT_COLOR = "#000000"
INSPECT_COLOR = "#66ccee"
"""Tol bright cyan: the selection, both the clicked volume (with its partners) and the mesh
selected in Move mode."""
SELECTION_COLOR = INSPECT_COLOR
BRUSH_COLOR = "#ffaabb"  # Tol light pink
PARTITION_COLOR = "#882255"  # Tol muted wine: partition cells and BSP splitting planes
PLANE_COLOR = PARTITION_COLOR
DISTANCE_COLOR = "#770099"
"""Dark purple, thick, with its two end points as balls: the closest points. It was Tol's
rainbow orange, next to the crossing contacts' vermillion; searched over the sRGB cube (steps
of 17) for the colour farthest from every other colour of the canvas (the legend's rows, the
meshes, the background, the ghost, the cross-check, the heat swatch, the tree marks) under
normal vision and the three simulations: Delta E >= 23 from each, >= 30 from the violet of
the selected node (tests/viewer/render/test_palette.py, tests/viewer/qt/panels/test_quality.py)."""
# The traversal stepper (viewer.render.stepper): the pair under test in A's and B's tree
# colours, the decided pairs faint in the colours the level overlays give overlapping and
# culled pairs, leaf pairs in Tol's light pink, the separating axis in Tol's bright cyan and
# the gap between the two intervals in Tol's muted wine. Searched like the palette above
# among the Tol and Okabe-Ito colours, against every colour on screen while stepping (the
# contact kinds and the black segments included): every two differ by Delta E >= 18 under
# each simulation (tests/viewer/qt/panels/test_stepper.py).
STEP_LEAF_COLOR = "#ffaabb"
STEP_AXIS_COLOR = "#33bbee"
STEP_GAP_COLOR = "#882255"
GHOST_COLOR = "#777777"
"""Grey dashes: the volumes of a freshly built tree (the ghost beside the refitted ones)."""
CROSSCHECK_COLOR = "#ee3377"
"""Tol vibrant magenta: the triangles of pairs only one of two engines reports."""
DIFF_COLOR = "#009988"
"""Tol vibrant teal: Tree > Compare two trees' drawn tree (dashed) and its nodes that differ
most from the other tree (thick)."""
HEAT_SWATCH = "#21918c"
"""Viridis at its middle: the legend row that points to the heat map's colour bar."""
BACKGROUND = "#f4f6f9"
"""One flat colour: the gradient from ``#d9e1ea`` at the top that it replaced was a
full-window shaded quad, 11 ms of each render of the bunny pair at 1280x800 under llvmpipe
(86.9 -> 76.1 ms, minimum of 25 renders on the loaded two-core machine)."""

FAILURE_COLOR = "#d55e00"
"""Okabe-Ito vermillion: the mark of a failed or cancelled frame under the title."""

NOTE_WIDTH_CHARS = 70
"""Line length of the canvas note (the step-mode sentence)."""

NOTE_FONT_PX = 14
"""Canvas note and title sizes at 96 DPI (scaled by the screen's logical DPI / 96); fixed,
where VTK's corner text shrank with the view."""
TITLE_FONT_PX = 18

# name -> (colour, line width in pixels, opacity). Lines a projector shows: tree boxes 2 px
# (they were 1 px; 2.5 px made the deep levels a dark mat of lines), the pairs and segments
# thicker still. Software OpenGL under Xvfb (llvmpipe) draws these widths (checked on
# screenshots, tests/viewer/render/test_palette.py).
OVERLAY_STYLE = {
    "tree_a": (TREE_A_COLOR, 2.0, 0.8),
    "tree_b": (TREE_B_COLOR, 2.0, 0.8),
    "parents": ("#607d8b", 1.5, 0.25),
    "culled": (CULLED_COLOR, 2.0, 0.7),
    "overlap": (OVERLAP_COLOR, 4.0, 1.0),
    "contact_tris": (CONTACT_COLOR, 1.0, 1.0),
    "contact_segments": (SEGMENT_COLOR, 5.0, 1.0),
    # Drawn first and wide: the boxes it marks are drawn over its middle in their own colour,
    # so the selection frames them instead of hiding them.
    "inspect": (INSPECT_COLOR, 10.0, 1.0),
    "selection": (SELECTION_COLOR, 3.0, 1.0),
    "brush": (BRUSH_COLOR, 3.0, 1.0),
    "partition_cells": (PARTITION_COLOR, 2.0, 0.9),
    "partition_planes": (PLANE_COLOR, 2.5, 0.9),
    "distance": (DISTANCE_COLOR, 6.0, 1.0),
    "step_culled": (CULLED_COLOR, 1.5, 0.35),
    "step_split": (OVERLAP_COLOR, 1.5, 0.4),
    "step_leaf": (STEP_LEAF_COLOR, 2.5, 0.9),
    "step_a": (TREE_A_COLOR, 5.0, 1.0),
    "step_b": (TREE_B_COLOR, 5.0, 1.0),
    # A leaf pair's triangles sent to the exact test: their edges in their tree's colour.
    "step_tris_a": (TREE_A_COLOR, 2.5, 1.0),
    "step_tris_b": (TREE_B_COLOR, 2.5, 1.0),
    "step_axis": (STEP_AXIS_COLOR, 3.0, 1.0),
    "step_interval_a": (TREE_A_COLOR, 10.0, 1.0),
    "step_interval_b": (TREE_B_COLOR, 10.0, 1.0),
    "step_gap": (STEP_GAP_COLOR, 5.0, 1.0),
    # Thick and nearly opaque: at 3 px and 0.75 the dashes were lost among the tree boxes.
    "ghost": (GHOST_COLOR, 4.0, 0.95),
    "crosscheck": (CROSSCHECK_COLOR, 5.0, 1.0),
    "diff_tree": (DIFF_COLOR, 2.0, 0.9),
    "diff_nodes": (DIFF_COLOR, 6.0, 0.99),
    # Tree inspection (viewer.render.marks): flagged nodes thick red, the selected node's
    # triangles tinted and its volume thicker than any level overlay. Opacity just below 1
    # puts them in VTK's translucent pass, after the meshes (see set_bodies): drawn opaque
    # they sat inside the translucent meshes and came out blended with the mesh colour (the
    # violet of a node inside sphere A was not found on a screenshot).
    "violations": (VIOLATION_COLOR, 4.0, 0.99),
    "node_triangles": (NODE_COLOR, 1.0, 0.6),
    "node_highlight": (NODE_COLOR, 6.0, 0.99),
}


def _hex(rgb) -> str:
    return "#" + "".join(f"{c:02x}" for c in rgb)


LEGEND_ROW_KEYS = ("overlap", "culled", "crossing", "touching", "coplanar", "segments",
                   "selected", "node", "brush")
"""The legend rows shown only while something is drawn in their colour (``drawn`` of
:func:`legend_entries`); the meshes' rows are always shown."""


def legend_entries(words: KindWords = UNNAMED, has_partition: bool = False,
                   has_distance: bool = False, is_one_mesh: bool = False,
                   extra_rows=(), drawn=None, sources=()) -> list[list[str]]:
    """``[text, colour]`` rows of the canvas legend, naming the volumes in the kind's
    ``words`` ("sphere pairs overlapping at this level", "14-DOP pairs ..."); the partition
    and closest-points rows only when those are drawn.

    ``is_one_mesh``: the frame has one mesh (tested against itself): no row speaks of a
    mesh B, and the pairs are pairs of the mesh's own volumes. ``extra_rows``: ``(text,
    colour)`` rows added at the end (the ghost's, the cross-check's). ``drawn``: the keys of
    :data:`LEGEND_ROW_KEYS` whose overlay draws something now (None: every row, the legend
    before the first frame); a row for nothing on screen ("sculpt brush" while nobody
    sculpts) only took room over the picture. ``sources``: per body, the label of a tree read
    from a file (:func:`pinned_tree_words`), said in its mesh's row; "" for BVH Lab's own."""
    plural, pairs = words.plural, words.pairs

    def from_file(body: int) -> str:
        label = sources[body] if body < len(sources) else ""
        return f" ({label})" if label else ""

    if is_one_mesh:
        meshes = [[f"the mesh and its {plural}{from_file(0)}", TREE_A_COLOR]]
    else:
        meshes = [[f"mesh A and its {plural}{from_file(0)}", TREE_A_COLOR],
                  [f"mesh B and its {plural}{from_file(1)}", TREE_B_COLOR]]
    optional = [
        ("overlap", [f"{pairs} overlapping at this level", OVERLAP_COLOR]),
        ("culled", [f"{pairs} culled at this level", CULLED_COLOR]),
        ("crossing", ["contact: crossing triangles", _hex(KIND_COLORS[KIND_CROSSING])]),
        ("touching", ["contact: touching triangles", _hex(KIND_COLORS[KIND_TOUCHING])]),
        ("coplanar", ["contact: coplanar overlap", _hex(KIND_COLORS[KIND_COPLANAR])]),
        ("segments", ["intersection segments", SEGMENT_COLOR]),
        ("selected", [f"selected: clicked {words.noun} and partners, mesh", INSPECT_COLOR]),
        # The node chosen in the Outliner, the Quality dock or by a click, drawn thick in
        # violet over everything: only the caption's "violet: node ..." line named it, and
        # beside the cyan "selected" row a student read the violet box as the cyan one.
        ("node", ["selected tree node and its triangles", NODE_COLOR]),
        ("brush", ["sculpt brush", BRUSH_COLOR]),
    ]
    rows = [*meshes, *(row for key, row in optional if drawn is None or key in drawn)]
    if has_partition:
        rows.append(["partition cells and splitting planes", PARTITION_COLOR])
    if has_distance:
        rows.append(["closest points (minimum distance)", DISTANCE_COLOR])
    rows.extend([str(t), str(c)] for t, c in extra_rows)
    return rows


def frame_legend_rows(overlays) -> frozenset:
    """The keys of :data:`LEGEND_ROW_KEYS` a frame's overlays (a
    :class:`viewer.render.overlays.Overlays`) draw something for: the level's pairs, each
    contact kind present, the segments."""
    polys = overlays.polys
    drawn = {key for key, name in (("overlap", "overlap"), ("culled", "culled"),
                                   ("segments", "contact_segments")) if polys[name].n_cells}
    by_kind = getattr(overlays, "n_by_kind", None) or {}
    for key, kind in (("crossing", KIND_CROSSING), ("touching", KIND_TOUCHING),
                      ("coplanar", KIND_COPLANAR)):
        if by_kind.get(kind, 0):
            drawn.add(key)
    if polys["inspect"].n_cells:
        drawn.add("selected")
    return frozenset(drawn)


def step_legend_entries(words: KindWords = UNNAMED,
                        drawn: frozenset | None = None) -> list[list[str]]:
    """``[text, colour]`` rows of the canvas legend while the traversal stepper is on.

    Parameters
    ----------
    words : KindWords
    drawn : frozenset of str, optional
        What is drawn: names of :data:`viewer.render.stepper.STEP_OVERLAY_NAMES` with cells,
        and the contact keys of :func:`frame_legend_rows`. Only the rows of what is drawn are
        listed (the pair under test always); None lists every row.
    """
    noun = words.noun
    rows = [
        (None, f"A's {noun} under test; its extent on the axis", TREE_A_COLOR),
        (None, f"B's {noun} under test; its extent on the axis", TREE_B_COLOR),
        ("step_culled", "decided earlier: culled (apart)", CULLED_COLOR),
        ("step_split", "decided earlier: overlap, split", OVERLAP_COLOR),
        ("step_leaf", "decided earlier: two leaves, triangles tested", STEP_LEAF_COLOR),
        ("step_axis", "separating axis (culled pair)", STEP_AXIS_COLOR),
        ("step_gap", "gap between the two extents", STEP_GAP_COLOR),
        ("crossing", "contact: crossing triangles", _hex(KIND_COLORS[KIND_CROSSING])),
        ("touching", "contact: touching triangles", _hex(KIND_COLORS[KIND_TOUCHING])),
        ("coplanar", "contact: coplanar overlap", _hex(KIND_COLORS[KIND_COPLANAR])),
        ("segments", "intersection segments", SEGMENT_COLOR),
    ]
    return [[text, colour] for key, text, colour in rows
            if key is None or drawn is None or key in drawn]


LEGEND = legend_entries()
"""The legend before the first frame (no kind named yet)."""


def ghost_words(ghost: GhostView | None, frame, counts: tuple[int, int] | None = None,
                limit_words: str = "the box cap; pick a level to see the rest") -> list[str]:
    """The legend rows of the ghost drawn with ``frame``: what it is, which frame it was
    built on when that is not ``frame`` ("fresh tree of frame 12"), both SAH costs, and
    "drawing N of M ghost boxes" when the box cap left some out (``counts``: ``(drawn,
    total)`` of :func:`viewer.render.ghost.ghost_box_counts`; ``limit_words``: what left them
    out, short: with the drawing budget's longer words the legend grew over the scene's title
    at 1280x800)."""
    if ghost is None:
        return []
    words = frame_words(ghost.frame).plural
    if ghost.frame is frame:
        rows = [f"ghost (grey dashes): {words} of a fresh tree", ghost.sah_text()]
    else:
        built, shown = ghost.frame.index, frame.index if frame is not None else "?"
        # Short rows: at 1280x800 the long ones made the legend 670 px wide, over the title.
        rows = [f"ghost (grey dashes): fresh tree of frame {built}, frame {shown} shown",
                f"frame {built} {ghost.sah_text()}"]
    if counts is not None and counts[0] < counts[1]:
        rows.append(f"drawing {counts[0]:,} of {counts[1]:,} ghost boxes ({limit_words})")
    return rows


PINNED_LABEL_CHARS = 40
"""A tree file's label in a legend row is cut to this many characters (the middle elided):
a long file name made the legend as wide as the picture."""


def pinned_tree_words(frame) -> tuple[str, ...]:
    """Per body of ``frame`` (A, B), the label of a tree read from a file ("tree from
    octahedron-obbrss.bin"), else "": the legend said only "oriented boxes" for coal's own
    boxes, which the status line alone called coal's."""
    sources = frame.tree_sources or ()
    out = []
    for label in sources[:2]:
        text = str(label) if label else ""
        if len(text) > PINNED_LABEL_CHARS:
            half = (PINNED_LABEL_CHARS - 1) // 2
            text = f"{text[:half]}\u2026{text[-half:]}"
        out.append(text)
    return tuple(out)


def frame_words(frame) -> KindWords:
    """The words of the kind a frame's traversal tested, from the frame's volumes (for a
    self-collision frame, the tree's own boxes); :data:`UNNAMED` without volumes."""
    volumes = frame_volume_set(frame)
    return UNNAMED if volumes is None else volumes.words

