"""A picture a projector and a colour-blind student can read: a fixed legend font, lines of
2 px and more, and overlay colours that stay apart under simulated colour-vision deficiency
(Machado et al. 2009) on a screenshot of the canvas."""

from __future__ import annotations

import itertools

import numpy as np
import pyvista as pv
from PyQt6.QtWidgets import QApplication

from tests.viewer.colour_vision import MACHADO_2009, delta_e, hex_rgb, simulate
from tests.viewer.conftest import click, settle
from viewer.render import style as sc
from viewer.render.legend import LEGEND_FONT_PX
from viewer.render.overlays import KIND_COLORS, KIND_COPLANAR, KIND_CROSSING, KIND_TOUCHING
from viewer.render.scene import SceneRenderer

MIN_DELTA_E_CVD = 18.0
"""Least CIE76 difference of two overlays on screen together, under each simulation. 20 was
the aim; no set of eleven colours from the Okabe-Ito and Tol palettes reaches it under all
three simulations (the best found: 18.0), and eleven overlays can be on screen at once."""
MIN_DELTA_E_NORMAL = 25.0

CONTACT_ROWS = {"contact: crossing triangles", "contact: touching triangles",
                "contact: coplanar overlap", "intersection segments"}
DISTANCE_ROW = "closest points (minimum distance)"


def _screenshot(window) -> np.ndarray:
    window.redraw()
    QApplication.processEvents()
    return np.asarray(window.plotter.screenshot(return_img=True))[..., :3]


def _legend_box(window, image):
    """(rows, cols) slices of the legend box in the image."""
    legend = window.renderer.legend
    height, width = image.shape[:2]
    x0, y0 = legend.GetPosition()
    dx, dy = legend.GetPosition2()
    cols = slice(int(round(x0 * width)), int(round((x0 + dx) * width)))
    rows = slice(height - int(round((y0 + dy) * height)), height - int(round(y0 * height)))
    return rows, cols


def _swatch_pixels(window, image) -> dict[str, tuple[int, int]]:
    """Legend text -> (row, col) of a pixel of its swatch, found by its exact colour in the
    legend's swatch column."""
    rows, cols = _legend_box(window, image)
    box = image[rows, cols].astype(int)
    swatch_cols = slice(0, max(4, box.shape[1] // 8))
    out = {}
    for text, color in window.renderer.canvas_legend.entries:
        target = hex_rgb(color).astype(int)
        hit = np.argwhere(np.abs(box[:, swatch_cols] - target).sum(axis=2) <= 3)
        assert hit.size, f"no swatch drawn for {text!r}"
        r, c = hit[len(hit) // 2]
        out[text] = (rows.start + int(r), cols.start + int(c))
    return out


def _on_screen_together(a: str, b: str) -> bool:
    """Every two rows of one legend (it lists only what is drawn) are checked, the
    closest-points line against the contacts too: it was drawn in the crossing contacts'
    orange, which a student could not tell apart from a contact."""
    return True


def _check_apart(window, image, save_dir=None) -> float:
    """Every two legend colours, read back from the screenshot, differ enough in normal
    vision and under each simulated deficiency; returns the least difference seen."""
    where = _swatch_pixels(window, image)
    least = np.inf
    for vision in ("normal", *MACHADO_2009):
        seen = simulate(image, vision)
        bound = MIN_DELTA_E_NORMAL if vision == "normal" else MIN_DELTA_E_CVD
        for a, b in itertools.combinations(where, 2):
            if not _on_screen_together(a, b):
                continue
            diff = float(delta_e(seen[where[a]], seen[where[b]]))
            least = min(least, diff)
            assert diff >= bound, f"{vision}: {a!r} vs {b!r} differ by only {diff:.1f}"
    return least


def test_overlay_colours_stay_apart_for_every_colour_vision_on_a_screenshot(qtbot, make_window):
    # Contacts and a partition: every overlay but the closest-points line in the legend.
    window = make_window()
    window.model.set_pipeline(partition="grid")
    settle(qtbot, window)
    texts = window.renderer.legend_texts
    assert "partition cells and splitting planes" in texts
    assert window.renderer.cell_count("partition_cells") > 0
    _check_apart(window, _screenshot(window))

    # Apart (inside): the closest-points line and its legend row instead of contacts.
    window.controller.scenes.load_scene("concentric-spheres")
    settle(qtbot, window)
    assert window.model.frame.distance is not None
    assert DISTANCE_ROW in window.renderer.legend_texts
    assert window.renderer.cell_count("distance") >= 1
    _check_apart(window, _screenshot(window))


def test_the_pairs_the_issue_named_differ_and_actors_draw_the_legend_colours(window):
    touching = np.array(KIND_COLORS[KIND_TOUCHING], dtype=np.uint8)
    coplanar = np.array(KIND_COLORS[KIND_COPLANAR], dtype=np.uint8)
    named = [(hex_rgb(sc.OVERLAP_COLOR), touching),
             (coplanar, hex_rgb(sc.INSPECT_COLOR)),
             (coplanar, hex_rgb(sc.BRUSH_COLOR)),
             (hex_rgb(sc.INSPECT_COLOR), hex_rgb(sc.BRUSH_COLOR))]
    for a, b in named:
        for vision in ("normal", *MACHADO_2009):
            assert delta_e(simulate(a, vision), simulate(b, vision)) >= MIN_DELTA_E_CVD
    # Contacts keep their meaning: crossing is the palette's red.
    r, g, b = KIND_COLORS[KIND_CROSSING]
    assert r > 2 * g and r > 2 * b
    # What the actors draw is what the legend shows (every row, the ones not in use too).
    legend = dict(sc.legend_entries(window.renderer.legend_kind, True, True))
    actors = window.renderer.actors
    for name, text in (("tree_a", "mesh A and its boxes"), ("tree_b", "mesh B and its boxes"),
                       ("overlap", "box pairs overlapping at this level"),
                       ("culled", "box pairs culled at this level"),
                       ("contact_segments", "intersection segments"),
                       ("brush", "sculpt brush")):
        drawn = np.round(np.array(actors[name].prop.color.float_rgb) * 255).astype(int)
        assert drawn.tolist() == hex_rgb(legend[text]).astype(int).tolist(), name
    for name in ("inspect", "selection"):
        drawn = np.round(np.array(actors[name].prop.color.float_rgb) * 255).astype(int)
        assert drawn.tolist() == hex_rgb(sc.INSPECT_COLOR).astype(int).tolist()


def test_closest_points_differ_from_every_other_colour_of_the_canvas():
    """The closest-points line was Tol's rainbow orange beside the crossing contacts'
    vermillion: now it differs from every legend row, the analyses' rows and the tree marks,
    in normal vision and under each simulated deficiency."""
    from viewer.render.marks import NODE_COLOR, VIOLATION_COLOR

    rows = sc.legend_entries(has_partition=True, has_distance=True)
    distance = dict(rows)[DISTANCE_ROW]
    others = [c for t, c in rows if t != DISTANCE_ROW]
    others += [sc.GHOST_COLOR, sc.CROSSCHECK_COLOR, sc.HEAT_SWATCH, NODE_COLOR, VIOLATION_COLOR,
               sc.BACKGROUND]
    for other in others:
        for vision in ("normal", *MACHADO_2009):
            bound = MIN_DELTA_E_NORMAL if vision == "normal" else MIN_DELTA_E_CVD
            diff = float(delta_e(simulate(hex_rgb(distance), vision),
                                 simulate(hex_rgb(other), vision)))
            assert diff >= bound, f"{vision}: closest points vs {other} differ by {diff:.1f}"


def _text_heights(window, image) -> list[int]:
    """Heights in pixels of the dark text runs in the legend's text column."""
    rows, cols = _legend_box(window, image)
    box = image[rows, cols].astype(int)
    text = box[:, box.shape[1] // 8: -4]
    is_dark = (text.sum(axis=2) < 250).any(axis=1)
    runs, start = [], None
    for i, dark in enumerate(np.append(is_dark, False)):
        if dark and start is None:
            start = i
        elif not dark and start is not None:
            runs.append(i - start)
            start = None
    return runs


def test_the_legend_font_is_fixed_and_readable(qtbot, window):
    window.resize(1280, 800)
    QApplication.processEvents()
    small = _text_heights(window, _screenshot(window))
    n_rows = len(window.renderer.legend_texts)
    assert len(small) == n_rows  # one run of ink per row: rows do not touch
    # Ascender to descender of a 15 px font: about 11-16 px (it was about 6 at 1280x800).
    tallest = max(small)
    assert 0.7 * LEGEND_FONT_PX <= tallest <= 1.2 * LEGEND_FONT_PX, small

    # A longer label (rounded rectangles) and a bigger window: the same text size.
    choice = window.docks["pipeline_dock"].panel.volume_choice
    choice.bv.setCurrentIndex(choice.bv.findData("rss"))
    settle(qtbot, window)
    assert any("rounded-rectangle pairs" in t for t in window.renderer.legend_texts)
    window.resize(1900, 1050)
    QApplication.processEvents()
    big = _text_heights(window, _screenshot(window))
    assert abs(max(big) - tallest) <= 1, (small, big)


def test_lines_are_drawn_at_least_two_pixels_wide():
    """Software OpenGL under Xvfb honours the line widths the overlays ask for."""
    for name in ("tree_a", "tree_b", "culled", "partition_cells"):
        assert 2.0 <= sc.OVERLAY_STYLE[name][1] <= 3.0, name
    for name in ("overlap", "contact_segments", "distance"):
        assert sc.OVERLAY_STYLE[name][1] >= 4.0, name
    plotter = pv.Plotter(off_screen=True, window_size=[120, 120])
    plotter.set_background("white")
    line = pv.Line((-1, 0, 0), (1, 0, 0))
    plotter.add_mesh(line, color="black", line_width=sc.OVERLAY_STYLE["tree_a"][1], lighting=False)
    plotter.view_xy()
    image = np.asarray(plotter.screenshot(return_img=True))[..., :3].astype(int)
    plotter.close()
    column = image[:, 60].sum(axis=1)
    assert np.count_nonzero(column < 300) >= 2


def test_the_selection_frames_the_boxes_instead_of_hiding_them(window):
    """The clicked box and its overlapping partners keep their own colours in the middle of
    a wide selection outline (it was drawn over them, and the orange pairs vanished)."""
    from tests.viewer.conftest import qt_point

    window.model.set_level(5)
    pos = qt_point(window, window.controller.poses.centroid_world(0))
    click(window.plotter, pos)
    info = window.model.inspect
    assert info is not None
    # Show a level where the clicked box has overlapping partners (the box stays the same).
    hits = [t["level"] for t in info.get("tests", []) if t["is_overlap"]]
    if not hits:  # without the per-level list: the level equal to its depth
        hits = [info["depth"]]
    window.model.set_level(hits[0])
    assert window.model.inspect["node"] == info["node"]
    image = _screenshot(window).astype(int)
    rows, cols = _legend_box(window, image)
    image[rows, cols] = 255
    outline = np.abs(image - hex_rgb(sc.INSPECT_COLOR)).sum(axis=2) < 40
    assert outline.sum() > 200
    # Pixels not of the outline's colour with the outline on both sides within 4 px: what
    # is drawn inside the frame.
    framed = np.zeros_like(outline)
    for k in range(1, 5):
        left, right = np.roll(outline, k, axis=1), np.roll(outline, -k, axis=1)
        up, down = np.roll(outline, k, axis=0), np.roll(outline, -k, axis=0)
        framed |= ~outline & ((left & right) | (up & down))
    overlap = np.abs(image - hex_rgb(sc.OVERLAP_COLOR).astype(int)).sum(axis=2) < 60
    assert np.count_nonzero(framed & overlap) > 300  # was 13 with the outline drawn on top


def test_canvas_text_follows_the_screen_scale():
    """On a 144 DPI screen (scale 1.5) the legend, note and title are 1.5 times larger."""
    sizes = {}
    for scale in (1.0, 1.5):
        plotter = pv.Plotter(off_screen=True, window_size=[800, 600])
        renderer = SceneRenderer(plotter, text_scale=scale)
        plotter.render()
        width, height = renderer.canvas_legend.box_px()
        sizes[scale] = (renderer.canvas_legend.font_px, renderer.note.GetMaximumFontSize(),
                        renderer.note.GetMinimumFontSize(), height)
        plotter.close()
    assert sizes[1.0][:3] == (LEGEND_FONT_PX, sc.NOTE_FONT_PX, sc.NOTE_FONT_PX)
    assert sizes[1.5][:3] == (round(1.5 * LEGEND_FONT_PX), round(1.5 * sc.NOTE_FONT_PX),
                              round(1.5 * sc.NOTE_FONT_PX))
    assert sizes[1.5][3] > 1.3 * sizes[1.0][3]  # the legend box grows with its font
