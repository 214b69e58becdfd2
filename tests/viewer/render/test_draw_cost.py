"""Why drawing a frame was slow, in words (issue 25 item 3: the view says why it is slow when
it is, for the drawing as for the core's time)."""

from __future__ import annotations

import pyvista as pv

from viewer.render import draw_cost
from viewer.render.draw_cost import DRAW_BUDGET_S, drawn_cells, slow_drawing_words


def test_within_the_budget_nothing_is_said():
    assert slow_drawing_words(3, 0.004, DRAW_BUDGET_S - 0.005, {"bodies": 40_000},
                              (800, 600)) == ""


def test_slow_drawing_names_the_frame_the_times_the_size_and_what_drew_most():
    cells = {"bodies": 40_000, "heat_tris": 6_013, "ghost": 3_072}
    words = slow_drawing_words(57, 0.012, 0.131, cells, (874, 660))
    assert words.startswith("Drawing frame 57 is slow (143 ms: 12 ms overlays, 131 ms render, "
                            "against 50 ms) at 874x660 pixels: ")
    assert "40,000 mesh triangles, 6,013 heat-map triangles, 3,072 lines of the ghost tree" in words
    # The meshes drew most: the advice is fewer pixels, not the heat map.
    assert "\u2014 make the window smaller" in words
    heat_first = slow_drawing_words(57, 0.012, 0.131, {"bodies": 2_000, "heat_tris": 6_013},
                                    (874, 660))
    assert heat_first.endswith("\u2014 turn the heat map off (Levels and overlays)")


def test_with_only_the_meshes_drawn_the_advice_is_fewer_pixels():
    words = slow_drawing_words(None, 0.0, 0.2, {"bodies": 40_000}, (1920, 1080))
    assert words.startswith("Drawing the view is slow (200 ms")
    assert "make the window smaller" in words


def test_drawn_cells_counts_the_visible_named_layers():
    plotter = pv.Plotter(off_screen=True)
    plotter.add_mesh(pv.Sphere(theta_resolution=8, phi_resolution=8), name="body:a#0")
    plotter.add_mesh(pv.Sphere(theta_resolution=4, phi_resolution=4), name="body:b#1")
    plotter.add_mesh(pv.Box(), name="ghost")
    hidden = plotter.add_mesh(pv.Cube(), name="heat_tris")
    hidden.SetVisibility(False)
    plotter.add_mesh(pv.Cone(), name="unnamed-layer")
    sphere_cells = (pv.Sphere(theta_resolution=8, phi_resolution=8).n_cells
                    + pv.Sphere(theta_resolution=4, phi_resolution=4).n_cells)
    assert drawn_cells(plotter.renderer.actors) == {"bodies": sphere_cells,
                                                   "ghost": pv.Box().n_cells}
    plotter.close()


def test_the_window_says_why_drawing_was_slow(make_window):
    window = make_window()
    window._slow_notice.budget_s = 0.0  # every drawing is slow
    messages = []
    window.model.message.connect(messages.append)
    # Another set of layers is another reason: said in the status bar once.
    window.model.set_display(show_tree_a=False, show_tree_b=False, show_overlap=False)
    window.redraw()
    words = window.model.view_timings.slow_words
    assert words.startswith(f"Drawing frame {window.model.frame.index} is slow (")
    width, height = window.plotter.ren_win.GetSize()
    assert f"at {width}x{height} pixels: " in words
    assert "lines of A's boxes" not in words and " contact triangles" in words
    said = [m for m in messages if m.startswith("Drawing ")]
    assert len(said) == 1 and "lines of A's boxes" not in said[0]
    window.redraw()  # the same reason again: not said again
    assert len([m for m in messages if m.startswith("Drawing ")]) == 1
    label = window.docks["stats_dock"].panel.slow
    assert window.model.view_timings.slow_words in label.text() and not label.isHidden()


def test_the_layers_are_counted_only_for_a_slow_drawing():
    notice = draw_cost.SlowDrawingNotice(budget_s=0.05)
    asked = []

    def actors():
        asked.append(1)
        return {}

    assert notice.check(4, 0.01, 0.02, actors, (800, 600)) == ("", False)
    assert asked == []  # within the budget the renderer's actors are not walked
    words, is_new = notice.check(5, 0.01, 0.07, actors, (800, 600))
    assert words.startswith("Drawing frame 5 is slow (80 ms") and is_new and asked == [1]
