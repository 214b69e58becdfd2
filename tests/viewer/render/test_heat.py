"""Heat maps on the canvas: colours at known triangles, the colour bar's words, node boxes."""

from __future__ import annotations

import numpy as np
from PyQt6.QtWidgets import QApplication

from core.lab.heat import frame_heat
from tests.viewer.conftest import settle
from tests.viewer.helpers import screenshot
from viewer.render.heat import HEAT_TITLES

PLAIN = {"show_tree_a": False, "show_tree_b": False, "show_overlap": False,
         "show_contacts": False, "show_culled": False, "show_parents": False}
"""Overlays off: only the heat map colours the triangles under test."""


def _visible_pixel(window, body: int, tri_ids) -> tuple[int, int, int] | None:
    """``(tri, row, col)`` of the first triangle in ``tri_ids`` whose centroid pixel shows
    that very triangle (the picker agrees), or None."""
    frame = window.model.frame
    mesh, pose = frame.meshes[body], frame.poses[body].as_matrix()
    height = window.plotter.ren_win.GetSize()[1]
    legend_x, legend_y = window.renderer.legend.GetPosition()
    width = window.plotter.ren_win.GetSize()[0]
    for tri in tri_ids:
        centroid = mesh.vertices[mesh.faces[tri]].mean(axis=0) @ pose[:3, :3].T + pose[:3, 3]
        x, y, _ = window.renderer.world_to_display(centroid)
        if not (5 < x < width - 5 and 5 < y < height - 5):
            continue
        if x > legend_x * width and y > legend_y * height:
            continue  # under the legend
        if y < 0.28 * height and x > 0.5 * width:
            continue  # under the colour bars
        picked = window.renderer.pick(x, y)
        if picked is not None and picked[:2] == (body, int(tri)):
            return int(tri), int(round(height - 1 - y)), int(round(x))
    return None


def _close(rgb, expected, tol=6) -> bool:
    return bool(np.all(np.abs(np.asarray(rgb) - np.asarray(expected)) <= tol))


def _idle_pixel(window, heat) -> tuple[int, int, int]:
    """A visible triangle of A that did no work, and its pixel with the heat map off."""
    cold = _visible_pixel(window, 0, np.flatnonzero(heat.bodies[0].work == 0))
    assert cold is not None
    return cold


def test_triangle_work_colours_busy_triangles_and_leaves_idle_ones_alone(window):
    window.model.set_display(**PLAIN)
    frame = window.model.frame
    heat = frame_heat(frame)
    cold = _idle_pixel(window, heat)
    plain = screenshot(window).astype(int)[cold[1], cold[2]]
    window.model.set_display(heat_map="work")
    work = np.concatenate([heat.bodies[0].work, heat.bodies[1].work])
    assert window.renderer.cell_count("heat_tris") == np.count_nonzero(work)
    assert window.renderer.heat.title == HEAT_TITLES["work"]
    assert window.renderer.heat.title == "volume + triangle tests per triangle"
    n_idle = int(np.count_nonzero(work == 0))
    assert (f"heat map: {n_idle:,} of {len(work):,} triangles took part in no test (left in "
            "their body's colour)") in " ".join(window.renderer.note.GetText(0).split())
    image = screenshot(window).astype(int)
    lut = window.renderer.heat
    # One scale per body, from 0 to its own largest work.
    assert lut.last.scales == {b: (0.0, float(heat.bodies[b].work.max())) for b in (0, 1)}
    low, high = lut.color_of(0.0), lut.color_of(lut.last.scales[0][1])
    # A triangle with zero work keeps its body's colour, as drawn with the heat map off (it
    # used to be the colormap's dark purple, which hid both bodies).
    assert _close(image[cold[1], cold[2]], plain), (image[cold[1], cold[2]], plain)
    assert not _close(image[cold[1], cold[2]], low, tol=30)
    # The hottest visible triangle: the colour bar's colour for its work (the hottest of
    # all: the high end, yellow).
    for body in (0, 1):
        order = np.argsort(-heat.bodies[body].work)
        hot = _visible_pixel(window, body, order[:200])
        if hot is not None:
            break
    assert hot is not None
    value = heat.bodies[body].work[hot[0]]
    assert value > 0
    assert _close(image[hot[1], hot[2]], lut.color_of(value, body)), \
        (image[hot[1], hot[2]], value)
    if value == heat.bodies[body].work.max():
        assert _close(image[hot[1], hot[2]], high)
    # Viridis runs from dark purple to yellow: the two ends are far apart.
    assert np.abs(np.subtract(low, high)).sum() > 300


def test_log_scale_paints_only_triangles_with_work(window):
    window.model.set_display(**PLAIN)
    heat = frame_heat(window.model.frame)
    cold = _idle_pixel(window, heat)
    plain = screenshot(window).astype(int)[cold[1], cold[2]]
    window.model.set_display(heat_map="work", heat_log=True)
    picture = window.renderer.heat.last
    assert picture.is_log and all(low > 0 for low, _high in picture.scales.values())
    assert window.renderer.heat.title == "volume + triangle tests per triangle (log scale)"
    work = np.concatenate([heat.bodies[0].work, heat.bodies[1].work])
    assert window.renderer.cell_count("heat_tris") == np.count_nonzero(work)
    image = screenshot(window).astype(int)
    assert _close(image[cold[1], cold[2]], plain)


def test_node_heat_draws_the_boxes_at_the_level(window):
    window.model.set_level(3)
    window.model.set_display(heat_map="visits")
    frame = window.model.frame
    n_boxes = sum(len(t.nodes_at_depth(min(3, t.max_depth))) for t in frame.trees)
    assert window.renderer.cell_count("heat_nodes") == 12 * n_boxes
    assert window.renderer.cell_count("heat_tris") == 0
    # The coloured boxes replace the trees' own boxes at this depth.
    assert window.renderer.cell_count("tree_a") == 0
    assert window.renderer.heat.title == "volume tests per node"
    heat = frame_heat(frame)
    ids = frame.trees[0].nodes_at_depth(3)
    drawn = np.asarray(window.renderer.heat.polys["heat_nodes"].cell_data["heat"])
    assert np.array_equal(drawn[: 12 * len(ids)], np.repeat(heat.bodies[0].node_visits[ids], 12))
    window.model.set_display(heat_map="sah")
    assert window.renderer.heat.title == "% of SAH cost"
    drawn = np.asarray(window.renderer.heat.polys["heat_nodes"].cell_data["heat"])
    assert np.allclose(drawn[: 12 * len(ids)], np.repeat(heat.bodies[0].sah_share[ids], 12))
    # Shares at this depth are well below 1 %: each body's scale ends at its largest, not
    # at 1.
    assert drawn.max() < 1.0
    assert window.renderer.heat.last.scales[0] == (0.0, float(drawn[: 12 * len(ids)].max()))
    window.model.set_display(heat_map="off")
    assert window.renderer.cell_count("heat_nodes") == 0
    assert window.renderer.heat.title == ""
    assert window.renderer.cell_count("tree_a") > 0


def test_levels_panel_chooser_and_shortcut(qtbot, window):
    panel = window.docks["levels_dock"].panel
    texts = [panel.heat_combo.itemText(i) for i in range(panel.heat_combo.count())]
    assert texts == ["Off", "Triangles: work", "Nodes: visits", "Nodes: SAH share"]
    panel.heat_combo.setCurrentIndex(1)
    assert window.model.display.heat_map == "work"
    assert window.renderer.cell_count("heat_tris") > 0
    work = frame_heat(window.model.frame).bodies[0].work
    assert "This frame's values span" in panel.heat_log.toolTip()
    assert work.max() > 0
    window.heat_action.trigger()  # H: the next choice
    assert window.model.display.heat_map == "visits"
    assert panel.heat_combo.currentText() == "Nodes: visits"
    assert window.heat_action.shortcut().toString() == "H"


def test_recorded_frame_is_coloured_by_its_own_trace(qtbot, window):
    window.model.set_display(heat_map="work")
    window.controller.poses.translate_body(1, (0.15, 0.0, 0.0))
    settle(qtbot, window)
    recording = window.model.recording
    assert len(recording) >= 2
    window.controller.recorder.scrub_to(0)
    QApplication.processEvents()
    first = recording[0]
    expected = np.concatenate([frame_heat(first).bodies[b].work for b in (0, 1)])
    drawn = np.asarray(window.renderer.heat.polys["heat_tris"].cell_data["heat"])
    assert np.array_equal(drawn, expected[expected > 0])  # idle triangles are not painted
    last = recording[len(recording) - 1]
    other = np.concatenate([frame_heat(last).bodies[b].work for b in (0, 1)])
    assert not np.array_equal(expected, other), "moving B must change where the work is"


def test_frame_without_trace_says_why(qtbot, window):
    from core.pipeline import BodyInput, FramePipeline, PipelineSettings
    from core.request import CollisionRequest

    model = window.model
    bodies = [BodyInput(b.key, b.rest) for b in model.bodies]
    untraced = FramePipeline(PipelineSettings(CollisionRequest(trace=False))).step(bodies)
    model.set_display(heat_map="work")
    model.set_frame(untraced)
    panel = window.docks["levels_dock"].panel
    assert panel.heat_note.text().startswith("Heat map needs the traversal trace: turn on Trace")
    assert window.renderer.cell_count("heat_tris") == 0
    assert window.renderer.heat.title == ""


def test_each_body_has_its_own_colour_scale_and_bar(window):
    # On two spheres A's busiest triangle takes 25 tests and B's 37: on one scale for both,
    # A's hottest was a middle green (and B's 10 next to A's 13,623 on bunny-sphere, dark).
    from matplotlib import colormaps

    window.model.set_display(**PLAIN)
    heat = frame_heat(window.model.frame)
    maxima = [float(heat.bodies[b].work.max()) for b in (0, 1)]
    cool = int(np.argmin(maxima))
    assert maxima[cool] < 0.8 * maxima[1 - cool]
    window.model.set_display(heat_map="work")
    layer = window.renderer.heat
    image = screenshot(window).astype(int)
    order = np.argsort(-heat.bodies[cool].work)
    hot = _visible_pixel(window, cool, order[:300])
    assert hot is not None
    value = float(heat.bodies[cool].work[hot[0]])
    assert value >= 0.75 * maxima[cool]
    # The colour of its value on its own body's scale (viridis, as the bar shows it).
    expected = np.round(255 * np.asarray(colormaps["viridis"](value / maxima[cool])[:3]))
    assert _close(image[hot[1], hot[2]], expected, tol=8), (image[hot[1], hot[2]], expected)
    assert _close(expected, layer.color_of(value, cool), tol=2)
    assert layer.bar_titles() == ["A: volume + triangle tests per triangle",
                                  "B: volume + triangle tests per triangle"]
    assert (f"heat map: triangles, frame {window.model.frame.index} (a colour bar each)"
            in window.renderer.legend_texts)
    # One body hidden: one bar, its own.
    window.model.set_visible(1 - cool, False)
    window.redraw()
    assert layer.bar_titles() == [f"{'AB'[cool]}: volume + triangle tests per triangle"]


def test_colour_bar_ticks_are_powers_of_ten_on_a_log_scale(window):
    from viewer.render.heat import bar_ticks

    def labels(scale, is_log, is_count=True):
        _n, fmt, values = bar_ticks(scale, is_log, is_count)
        return [fmt % v for v in values]

    # The work of bunny-sphere (1 to 13,623 tests): labels read 10.5, 110, 1.15e+03.
    assert labels((1.0, 13623.0), True) == ["1", "10", "100", "1000", "10000"]
    assert labels((3.0, 13623.0), True) == ["10", "100", "1000", "10000"]
    assert labels((1.0, 1000.0), True) == ["1", "10", "100", "1000"]
    assert labels((0.002, 0.5), True, is_count=False) == ["0.01", "0.1"]
    assert labels((2.0, 25.0), True) == ["2", "25"]  # one power inside: the two ends
    assert bar_ticks((0.0, 13623.0), False) == (4, "%.0f", None)  # 0, 4541, 9082, 13623
    # Drawn: each body's bar carries its own powers of ten.
    window.model.set_display(heat_map="visits", heat_log=True)
    layer = window.renderer.heat
    assert sorted(layer.last.scales) == [0, 1]
    for body, scale in layer.last.scales.items():
        assert layer.bar_labels(body) == labels(scale, True)


def test_colour_bar_titles_clear_the_tick_labels_at_any_size():
    """The bars' boxes were a fixed share of the view: with a larger font (lecture mode, a
    small export) the tick labels ran out of their box into the title under them. Now each
    box holds the bar and a line of labels, and each title stands clear above its box."""
    import pyvista as pv

    from viewer.render.heat import HeatLayer

    for size, font in (((640, 400), 14), ((640, 400), 28), ((1280, 800), 15),
                       ((1920, 1080), 30)):
        plotter = pv.Plotter(off_screen=True, window_size=list(size))
        layer = HeatLayer(plotter)
        layer.set_font_px(font)
        plotter.ren_win.Render()  # the layer lays itself out before each render
        spans = []
        for bar, title in zip(layer.bars, layer.bar_title_actors):
            x, y = bar.GetPosition()
            _w, h = bar.GetPosition2()
            bottom, height = y * size[1], h * size[1]
            labels = height * (1.0 - bar.GetBarRatio())
            assert labels >= 1.2 * font, (size, font, labels)  # a line of tick labels fits
            assert title.GetTextProperty().GetFontSize() == font
            title_y = title.GetPosition()[1] * size[1]
            assert title_y >= bottom + height  # on its box, not over its labels
            spans.append((bottom, title_y + 1.2 * font))
        (top_bottom, _), (_, low_title_top) = spans
        assert low_title_top <= top_bottom  # the lower bar's title under the upper box
        plotter.close()


def test_a_heat_map_of_an_older_frame_names_its_own_frame(qtbot, window):
    window.model.set_display(heat_map="work")
    settle(qtbot, window)
    older = window.model.frame
    heat = frame_heat(older)
    assert heat.frame_index == older.index
    window.controller.poses.translate_body(1, (0.01, 0.0, 0.0))
    settle(qtbot, window)
    newer = window.model.frame
    assert newer.index > older.index
    # Drawn with the newer frame, as a heat counted beside the frames is until the next count.
    window.renderer.update_frame(newer, window.model.display, window.model.level, heat=heat,
                                 heat_note=f"from frame {older.index}")
    assert f"heat map: triangles, frame {older.index} (a colour bar each)" in \
        window.renderer.legend_texts


def test_the_note_stays_left_of_the_colour_bars_at_1280x800(qtbot, window):
    """The heat line ("heat map: 5,230 of 6,432 triangles took part in no test (left in
    their body's colour)") ran under B's colour bar at 1280x800: the note wraps left of the
    bars, measured in pixels with VTK's own font metrics."""
    import vtkmodules.vtkRenderingFreeType  # noqa: F401 - registers the font renderer
    from vtkmodules.vtkRenderingCore import vtkTextProperty, vtkTextRenderer

    window.resize(1280, 800)
    settle(qtbot, window)
    window.model.set_display(heat_map="work")
    window.model.select_node(0, 1)  # its note line ("violet: node 1 of A ...") comes after
    settle(qtbot, window)
    window.redraw()
    renderer = window.renderer
    text = renderer.note.GetText(0)
    assert "took part in no test (left in their body's colour)" in " ".join(text.split())
    assert "violet: node 1 of A" in text
    view_width = renderer.plotter.renderer.GetSize()[0]
    bar_x = min(bar.GetPosition()[0] for bar in renderer.heat.bars) * view_width
    prop = vtkTextProperty()
    prop.ShallowCopy(renderer.note.GetTextProperty())
    prop.SetFontSize(renderer._note_px())
    box = [0, 0, 0, 0]
    widths = []
    for line in text.splitlines():
        assert vtkTextRenderer.GetInstance().GetBoundingBox(prop, line or " ", box, 72)
        widths.append(box[1] - box[0])
    assert len(widths) >= 2  # the heat line was wrapped
    assert max(widths) + 10 < bar_x, (max(widths), bar_x, text)


def test_a_line_that_fits_by_its_measured_width_stays_whole():
    """The character estimate alone broke lines that fitted ("... 23 / ms)" at 1280x800):
    a line the font measures narrow enough stays whole, a wider one is wrapped, and a
    wrapped line keeps its indent."""
    from viewer.render.heat import BAR_PLACES, lines_left_of_bars

    font_px, view_width = 14, 874
    room = BAR_PLACES[0][0] * view_width - font_px
    line = "heat map from frame 327 (counted beside the frames: 23 ms) and more words"
    assert lines_left_of_bars([line], view_width, font_px, lambda t: room) == [line]
    wrapped = lines_left_of_bars(["  " + line], view_width, font_px, lambda t: room + 1)
    assert len(wrapped) == 2 and all(piece.startswith("  ") for piece in wrapped)
    assert " ".join(piece.strip() for piece in wrapped) == line
    short = "bunny A: drawn with 19,999 of 69,451 triangles"
    assert lines_left_of_bars([short], view_width, font_px, lambda t: 10**6) == [short]
