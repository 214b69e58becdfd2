"""The canvas legend lists only what is drawn, stands in the corner where it hides the least
(the geometry, the texts, a box a helper asks to keep clear), and is smaller in a small
export frame."""

from __future__ import annotations

import numpy as np
import pyvista as pv

from tests.viewer.conftest import settle
from viewer.render.legend import (
    CORNERS,
    LEGEND_FONT_PX,
    CanvasLegend,
    corner_origin,
    pick_corner,
    small_view_font_px,
)

VIEW = (800, 600)
BOX = (200, 100)


def test_an_empty_view_keeps_the_top_right_corner():
    assert pick_corner(VIEW, BOX, []) == "top right" == CORNERS[0]


def test_the_corner_hiding_the_least_is_picked():
    # Geometry filling the top right: the legend goes where nothing is.
    assert pick_corner(VIEW, BOX, [(500, 400, 800, 600)]) == "bottom right"
    # Everything but the bottom left is covered.
    avoid = [(0, 300, 800, 600), (400, 0, 800, 300)]
    assert pick_corner(VIEW, BOX, avoid) == "bottom left"
    # A weighted box (text, the stepper's pair) counts more than a large box of geometry.
    avoid = [(0, 0, 800, 600), (600, 480, 790, 590, 4.0)]
    assert pick_corner(VIEW, BOX, avoid) != "top right"


def test_corner_origins_keep_the_margin():
    assert corner_origin("top right", VIEW, BOX, 8) == (592, 492)
    assert corner_origin("bottom left", VIEW, BOX, 8) == (8, 8)


def test_a_small_view_gets_a_smaller_font():
    assert small_view_font_px(15, 1280) == 15
    assert small_view_font_px(15, 640) == 12
    assert small_view_font_px(15, 320) == 9  # never below the floor
    plotter = pv.Plotter(off_screen=True, window_size=[640, 400])
    legend = CanvasLegend(plotter.renderer)
    legend.set_entries([("mesh A and its boxes", "#222255"), ("mesh B and its boxes", "#225522"),
                        ("contact: crossing triangles", "#d55e00")])
    plotter.render()
    assert legend.shown_font_px() == 12 < LEGEND_FONT_PX
    x0, y0, x1, y1 = legend.box_on_screen()
    assert (x1 - x0) * (y1 - y0) < 0.12 * 640 * 400
    plotter.close()


def test_only_rows_in_use_are_listed(qtbot, window):
    renderer = window.renderer
    texts = renderer.legend_texts
    assert "sculpt brush" not in texts
    assert not any(t.startswith("selected") for t in texts)
    assert "contact: crossing triangles" in texts and "intersection segments" in texts
    # Two spheres crossing: no touching or coplanar contact, no culled pair drawn.
    assert "contact: touching triangles" not in texts
    assert "contact: coplanar overlap" not in texts
    assert not any("culled" in t for t in texts)
    window.model.set_selected(1)
    renderer.set_selection(window.model.bodies[1])
    assert any(t.startswith("selected") for t in renderer.legend_texts)
    renderer.set_brush(np.zeros(3), 0.2)
    assert "sculpt brush" in renderer.legend_texts
    renderer.set_selection(None)
    renderer.set_brush(None)
    assert "sculpt brush" not in renderer.legend_texts
    assert not any(t.startswith("selected") for t in renderer.legend_texts)
    window.model.set_display(show_culled=True)
    for level in range(6, 20):
        window.model.set_level(level)
        settle(qtbot, window)
        if renderer.cell_count("culled"):
            break
    assert renderer.cell_count("culled") > 0
    assert any("culled" in t for t in renderer.legend_texts)


def _overlap(a, b) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h)


def test_the_legend_keeps_a_box_clear_that_a_helper_names(qtbot, window):
    legend = window.renderer.canvas_legend
    window.redraw()
    assert legend.corner == "top right"
    view = window.plotter.renderer.GetSize()
    pair = (view[0] - 300, view[1] - 120, view[0] - 10, view[1] - 10)  # the pair, top right
    legend.set_avoid("stepper", [pair])
    window.redraw()
    settle(qtbot, window)
    assert legend.corner != "top right"
    assert _overlap(legend.box_on_screen(), pair) == 0.0
    legend.set_avoid("stepper", [])
    window.redraw()
    assert legend.corner == "top right"


def test_drawn_geometry_and_texts_are_kept_clear(qtbot, window):
    """The boxes the legend weighs: B's boxes on screen (the root box at level 0), the title,
    the note; and the legend is where the least of them is covered."""
    window.model.set_level(0)
    settle(qtbot, window)
    window.redraw()
    renderer = window.renderer
    avoid = renderer._legend_avoid_boxes()
    tree_b = renderer.polys["tree_b"]
    points = np.array([renderer.world_to_display(p)[:2] for p in tree_b.points])
    view = window.plotter.renderer.GetSize()
    inside = np.clip(points, 0, [view[0], view[1]])
    assert any(b[0] - 1 <= inside[:, 0].min() and inside[:, 0].max() <= b[2] + 1
               and b[1] - 1 <= inside[:, 1].min() and inside[:, 1].max() <= b[3] + 1
               for b in avoid)
    title = [b for b in avoid if len(b) > 4 and b[1] > view[1] / 2 and b[0] < 20]
    assert title, "the title's box is kept clear"
    legend = renderer.canvas_legend
    box = legend.box_on_screen()
    size = (box[2] - box[0], box[3] - box[1])
    assert legend.corner == pick_corner(tuple(view), size, avoid)


def test_the_stepper_pair_is_kept_clear(qtbot, window):
    """Test 1,410 of Two spheres: the pair under test was a speck under the legend."""
    from viewer.render.screen_boxes import actor_boxes

    stepper = window.controller.stepper
    stepper.start_stepper()
    stepper.step_to(min(1410, stepper.n_steps() - 1))
    settle(qtbot, window)
    window.redraw()
    renderer = window.renderer
    pair = [renderer.actors[n] for n in ("step_a", "step_b") if renderer.polys[n].n_cells]
    assert pair
    legend = renderer.canvas_legend.box_on_screen()
    weighted = [b[:4] for b in renderer._legend_avoid_boxes() if len(b) > 4]
    for box in actor_boxes(window.plotter.renderer, pair):
        assert box in weighted  # weighed like a text, not as one more piece of geometry
        assert _overlap(legend, box) == 0.0


def test_while_playing_the_corner_is_picked_a_few_times_a_second(qtbot, window):
    import time

    from viewer.qt.main_window import LEGEND_REPICK_S

    legend = window.renderer.canvas_legend
    covered = {"box": (0.0, 0.0, 0.0, 0.0)}
    legend.screen_boxes = lambda: [covered["box"]]
    view = tuple(int(v) for v in window.plotter.renderer.GetSize())
    top_right = (view[0] / 2, view[1] / 2, view[0], view[1])
    window.plotter.render()
    assert legend.corner == "top right"
    window.model.set_playing(True)
    try:
        assert legend.repick_every_s == LEGEND_REPICK_S
        covered["box"] = top_right  # the geometry moved under the legend
        window.plotter.render()
        assert legend.corner == "top right"  # kept: picked less than an interval ago
        time.sleep(LEGEND_REPICK_S)
        window.plotter.render()
        assert legend.corner != "top right"
    finally:
        window.model.set_playing(False)
    assert legend.repick_every_s == 0.0
    covered["box"] = (0.0, 0.0, view[0] / 2, view[1] / 2)  # paused: every render picks
    window.plotter.render()
    legend_corner = legend.corner
    covered["box"] = top_right
    window.plotter.render()
    assert legend.corner != "top right" and legend_corner == "top right"
