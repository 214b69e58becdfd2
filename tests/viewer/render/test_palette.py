"""A picture a projector and a colour-blind student can read: a fixed legend font, lines of
2 px and more, and overlay colours that stay apart under simulated colour-vision deficiency
(Machado et al. 2009) on a screenshot of the canvas."""

from __future__ import annotations

import numpy as np
import pyvista as pv
from PyQt6.QtWidgets import QApplication

from tests.viewer.colour_vision import MACHADO_2009, delta_e, hex_rgb, simulate
from tests.viewer.conftest import click, settle
from tests.viewer.helpers import (
    MIN_DELTA_E_CVD,
    MIN_DELTA_E_NORMAL,
    check_apart,
    legend_box,
    screenshot,
    text_heights,
)
from viewer.render import style as sc
from viewer.render.legend import LEGEND_FONT_PX
from viewer.render.overlays import KIND_COLORS, KIND_COPLANAR, KIND_CROSSING, KIND_TOUCHING
from viewer.render.scene import SceneRenderer

CONTACT_ROWS = {"contact: crossing triangles", "contact: touching triangles",
                "contact: coplanar overlap", "intersection segments"}
DISTANCE_ROW = "closest points (minimum distance)"


def test_overlay_colours_stay_apart_for_every_colour_vision_on_a_screenshot(qtbot, make_window):
    # Contacts and a partition: every overlay but the closest-points line in the legend.
    window = make_window()
    window.model.set_pipeline(partition="grid")
    settle(qtbot, window)
    texts = window.renderer.legend_texts
    assert "partition cells and splitting planes" in texts
    assert window.renderer.cell_count("partition_cells") > 0
    check_apart(window, screenshot(window))

    # Apart (inside): the closest-points line and its legend row instead of contacts.
    window.controller.scenes.load_scene("concentric-spheres")
    settle(qtbot, window)
    assert window.model.frame.distance is not None
    assert DISTANCE_ROW in window.renderer.legend_texts
    assert window.renderer.cell_count("distance") >= 1
    check_apart(window, screenshot(window))


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


def test_the_legend_font_is_fixed_and_readable(qtbot, window):
    window.resize(1280, 800)
    QApplication.processEvents()
    small = text_heights(window, screenshot(window))
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
    big = text_heights(window, screenshot(window))
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
    hits = [t.level for t in info.tests if t.is_overlap]
    if not hits:  # without the per-level list: the level equal to its depth
        hits = [info.depth]
    window.model.set_level(hits[0])
    assert window.model.inspect.node == info.node
    image = screenshot(window).astype(int)
    rows, cols = legend_box(window, image)
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
