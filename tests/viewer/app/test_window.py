"""The window, driven like a user would: real widgets, real frames, assertions on what is drawn."""

from __future__ import annotations

import gc
import weakref
from types import SimpleNamespace

import numpy as np
import pyvista as pv
from PyQt6.QtCore import QPointF, Qt

from tests.viewer.conftest import click, drag, qt_point, red_mask, settle
from tests.viewer.helpers import screenshot, without_legend
from viewer.control.worker import Tag
from viewer.render.geometry import LINES_PER_BOX
from viewer.state.display import Mode
from viewer.state.pipeline import UpdateChoice


def test_window_opens_on_default_scene_and_renders_a_non_blank_image(window):
    assert window.model.scene_key == "two-spheres"
    assert [b.name for b in window.model.bodies] == ["sphere A", "sphere B"]
    image = screenshot(window)
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
    # A blank canvas has the background gradient only: a few hundred colours at most, all
    # light. The meshes and boxes add thousands of colours and dark pixels.
    colors = np.unique(image[..., :3].reshape(-1, 3), axis=0)
    assert colors.shape[0] > 1000
    assert (image[..., :3].sum(axis=2) < 300).sum() > 500


def test_scene_list_dock_shows_triangle_counts(window):
    table = window.docks["scene_dock"].panel.bodies
    counts = [int(table.item(r, 2).text().replace(",", "")) for r in range(table.rowCount())]
    assert counts == [b.rest.n_faces for b in window.model.bodies]


def test_drag_in_move_mode_changes_pose_and_contact_count(qtbot, window):
    model = window.model
    assert model.frame.result.counters.n_contacts > 0
    model.set_mode(Mode.MOVE)
    centre_a = window.controller.poses.centroid_world(0)
    centre_b = window.controller.poses.centroid_world(1)
    away = (centre_b - centre_a) / np.linalg.norm(centre_b - centre_a)
    before = np.array(model.bodies[1].pose)
    drag(window.plotter, qt_point(window, centre_b), qt_point(window, centre_b + 2.0 * away))
    settle(qtbot, window)
    assert model.selected == 1
    moved = model.bodies[1].pose[:3, 3] - before[:3, 3]
    # The drag moves B in the view plane: most of the 2.0 units along `away` survive the
    # projection (the view direction is not parallel to the x axis).
    assert np.dot(moved, away) > 1.0
    np.testing.assert_array_equal(model.bodies[1].pose[:3, :3], before[:3, :3])
    assert model.frame.result.counters.n_contacts == 0
    assert window.renderer.cell_count("contact_tris") == 0


def test_right_drag_in_move_mode_rotates_about_the_centroid(qtbot, window):
    window.model.set_mode(Mode.MOVE)
    centre = window.controller.poses.centroid_world(1)
    start = qt_point(window, centre)
    drag(window.plotter, start, start + QPointF(60, 0), button=Qt.MouseButton.RightButton)
    settle(qtbot, window)
    rotation = window.model.bodies[1].pose[:3, :3]
    assert not np.allclose(rotation, np.eye(3))
    np.testing.assert_allclose(rotation @ rotation.T, np.eye(3), atol=1e-12)
    # Rotation about the centroid keeps the centroid where it was.
    np.testing.assert_allclose(window.controller.poses.centroid_world(1), centre, atol=1e-9)


def test_level_slider_sets_overlap_cells_to_what_the_trace_says(window):
    # A drawing budget this view cannot reach: every pair of every level is drawn (the
    # budget's cut is tested below).
    window.renderer.render_budget_s = 10.0
    panel = window.docks["levels_dock"].panel
    frame = window.model.frame
    trace = frame.result.trace
    assert panel.slider.maximum() == trace.n_levels  # last position = all levels
    seen = set()
    for level in range(trace.n_levels):
        panel.slider.setValue(level)
        assert window.model.level == level
        expected = 2 * LINES_PER_BOX * int(trace.overlapping_per_level[level])
        assert window.renderer.cell_count("overlap") == expected
        nodes = frame.trees[0].nodes_at_depth(min(level, frame.trees[0].max_depth))
        assert window.renderer.cell_count("tree_a") == LINES_PER_BOX * len(nodes)
        seen.add(expected)
    assert len(seen) > 3  # the levels really differ
    panel.slider.setValue(trace.n_levels)
    assert window.model.level is None
    total = 2 * LINES_PER_BOX * int(trace.overlapping_per_level.sum())
    assert window.renderer.cell_count("overlap") == total


def test_every_level_is_drawn_within_the_drawing_budget_and_the_canvas_says_so(window):
    window.model.set_display(show_culled=True)
    window.model.set_level(None)
    trace = window.model.frame.result.trace
    overlays = window.renderer.last_overlays
    plan = overlays.plan
    budget_ms = round(1e3 * window.renderer.render_budget_s)
    # Two-spheres' every level at this size is planned past the budget (its render measured
    # 85 ms at 1280x800): the same share of each layer is kept, the first boxes first.
    assert plan.budget_s == window.renderer.render_budget_s
    assert plan.seconds <= plan.budget_s
    n_culled = int(trace.tested_per_level.sum() - trace.overlapping_per_level.sum())
    n_drawn = window.renderer.cell_count("culled") // (2 * LINES_PER_BOX)
    assert 0 < n_drawn < n_culled
    assert f"culled pairs: drawing {n_drawn:,} of {n_culled:,} (drawing budget {budget_ms} ms)" \
        in window.renderer.note.GetText(0)
    # The fit learns from the window's renders: each drawn frame is one more render.
    n_fitted = len(window.renderer.render_cost._renders)
    window.redraw()
    assert len(window.renderer.render_cost._renders) == min(n_fitted + 1, 40)
    # One level is far under the budget: nothing is left out, nothing said.
    window.model.set_level(3)
    assert window.renderer.last_overlays.plan.budget_s is None
    assert "drawing budget" not in window.renderer.note.GetText(0)
    assert window.renderer.cell_count("culled") == 2 * LINES_PER_BOX * int(
        trace.tested_per_level[3] - trace.overlapping_per_level[3])


def test_culled_pairs_overlay_follows_the_trace(window):
    window.model.set_display(show_culled=True)
    trace = window.model.frame.result.trace
    level = 6
    window.model.set_level(level)
    culled = int(trace.tested_per_level[level] - trace.overlapping_per_level[level])
    assert culled > 0
    assert window.renderer.cell_count("culled") == 2 * LINES_PER_BOX * culled


def test_playing_a_deformer_changes_vertices_and_refits(qtbot, window):
    panel = window.docks["deform_dock"].panel
    panel.target.setCurrentIndex(0)
    panel.kind.setCurrentIndex(panel.kind.findData("inflate"))
    body = window.model.bodies[0]
    assert body.deformer == "inflate"
    assert window.model.is_playing  # choosing a deformer starts the clock
    qtbot.waitUntil(lambda: window.model.frame is not None and window.model.frame.t > 0.2,
                    timeout=30_000)
    window.model.set_playing(False)
    settle(qtbot, window)
    # One more frame at a new time: its tree is refitted to new vertices, so its drift is
    # measured. (The last played frame may reuse a tree built on its very vertices, drift
    # 0, when a rebuild came last; seen once under the full suite's load.)
    window.controller.animation.step_time(1 / 30)
    settle(qtbot, window)
    frame = window.model.frame
    rest = body.rest.vertices
    assert np.abs(frame.meshes[0].vertices - rest).max() > 1e-3
    assert frame.rebuilt[0] is False  # refit, not rebuild
    assert frame.drift[0] != 0.0
    # The drawn mesh holds the deformed vertices.
    np.testing.assert_allclose(window.renderer.mesh_polys[0].points, frame.meshes[0].vertices)
    # The refitted root box encloses the deformed mesh exactly.
    tree = frame.trees[0]
    np.testing.assert_allclose(tree.bmin[0], frame.meshes[0].vertices.min(axis=0), atol=1e-9)
    np.testing.assert_allclose(tree.bmax[0], frame.meshes[0].vertices.max(axis=0), atol=1e-9)


def test_step_one_frame_advances_time(qtbot, window):
    t0 = window.model.t
    window.docks["deform_dock"].panel.step.click()
    settle(qtbot, window)
    assert window.model.t == t0 + 1.0 / 30.0
    assert window.model.frame.t == window.model.t


def test_contact_overlay_triangle_count_equals_the_core(window):
    result = window.model.frame.result
    n_core = len(np.unique(result.pairs[:, 0])) + len(np.unique(result.pairs[:, 1]))
    assert n_core > 0
    assert window.renderer.cell_count("contact_tris") == n_core
    assert window.renderer.cell_count("contact_segments") == result.counters.n_contacts
    assert result.counters.n_contacts == result.pairs.shape[0]


def test_screenshot_has_red_where_contacts_are_and_none_when_apart(qtbot, window):
    image = screenshot(window)
    red = red_mask(without_legend(window, image))
    assert red.sum() > 50
    # Every red pixel lies on a projected contact triangle's box, and the red blob is
    # centred among the projected contact segments (parts behind a translucent mesh are
    # tinted, so not every segment point is pure red).
    height = image.shape[0]

    def projected_box(points):
        xy = np.array([window.renderer.world_to_display(p)[:2] for p in points])
        rows = height - 1 - xy[:, 1]
        return xy[:, 0].min(), xy[:, 0].max(), rows.min(), rows.max()

    ys, xs = np.nonzero(red)
    x0, x1, y0, y1 = projected_box(window.renderer.polys["contact_tris"].points)
    assert x0 - 2 <= xs.min() and xs.max() <= x1 + 2
    assert y0 - 2 <= ys.min() and ys.max() <= y1 + 2
    x0, x1, y0, y1 = projected_box(window.model.frame.result.segments.reshape(-1, 3))
    assert x0 - 10 <= xs.mean() <= x1 + 10
    assert y0 - 10 <= ys.mean() <= y1 + 10
    window.controller.poses.translate_body(1, (3.0, 0.0, 0.0))
    settle(qtbot, window)
    assert window.model.frame.result.counters.n_contacts == 0
    image = screenshot(window)
    # No contact drawn: no crossing row in the legend either (it lists what is drawn), so
    # no red anywhere.
    assert "contact: crossing triangles" not in window.renderer.legend_texts
    assert red_mask(image).sum() == 0


def test_opening_a_corrupt_file_shows_the_error_and_keeps_the_scene(window, tmp_path):
    bad = tmp_path / "broken.obj"
    bad.write_text("v 0 0 0\nv 1 0 0\nf 1 2 7\n")
    bodies = list(window.model.bodies)
    meshes = [b.rest for b in bodies]
    frame = window.model.frame
    n_actors = len(window.plotter.renderer.actors)
    assert window.controller.files.load_files([str(bad)], replace_scene=False) is False
    title, text = window.last_error
    assert "broken.obj" in text
    assert window._error_box.isVisible()
    assert window.model.bodies == bodies
    assert [b.rest for b in window.model.bodies] == meshes
    assert window.model.frame is frame
    assert len(window.plotter.renderer.actors) == n_actors
    window._error_box.close()


def test_opening_a_good_file_adds_a_body(qtbot, window, assets_dir):
    assert window.controller.files.load_files([str(assets_dir / "suzanne.obj")],
                                              replace_scene=False)
    settle(qtbot, window)
    assert [b.name for b in window.model.bodies][-1] == "suzanne"
    assert window.model.bodies[-1].rest.n_faces == 968
    table = window.docks["scene_dock"].panel.bodies
    assert table.rowCount() == 3 and table.item(2, 4).text() == "not tested"


def test_step_mode_reveals_one_level_at_a_time(window):
    panel = window.docks["levels_dock"].panel
    panel.step_check.setChecked(True)
    assert window.model.is_step_mode and not window.model.is_playing
    assert window.model.level == 0
    trace = window.model.frame.result.trace
    panel.next_button.click()
    panel.next_button.click()
    assert window.model.level == 2
    sentence = panel.sentence.text()
    assert sentence.startswith(f"Level 2: {int(trace.tested_per_level[2])} pairs tested, "
                               f"{int(trace.overlapping_per_level[2])} overlap")
    assert window.renderer.note.GetText(0).startswith("Level 2:")
    panel.prev_button.click()
    assert window.model.level == 1


def test_clicking_a_mesh_inspects_the_box_under_it(window):
    window.model.set_level(4)
    pos = qt_point(window, window.controller.poses.centroid_world(0))
    click(window.plotter, pos)
    info = window.model.inspect
    assert info is not None
    tree = window.model.frame.trees[info.body]
    assert info.depth == min(4, int(tree.depth[info.node]))
    assert info.n_prims == int(tree.n_prims[info.node])
    pairs, overlapped = window.model.frame.result.trace.level(4)
    mine = pairs[:, info.body] == info.node
    assert list(info.partners) == pairs[mine, 1 - info.body].tolist()
    assert window.renderer.cell_count("inspect") == LINES_PER_BOX * (1 + len(info.partners))
    text = window.docks["levels_dock"].panel.inspect_label.text()
    assert f"box {info.node}" in text


def test_sculpt_stroke_moves_vertices_and_undo_restores_them(qtbot, window):
    window.model.set_mode(Mode.SCULPT)
    original = np.array(window.model.bodies[0].rest.vertices)
    centre = window.controller.poses.centroid_world(0)
    # A point on the near surface of sphere A: pick along the ray through its centre.
    start = qt_point(window, centre)
    drag(window.plotter, start, start + QPointF(-40, -30))
    settle(qtbot, window)
    moved = window.model.bodies[0].rest.vertices
    n_moved = int((np.abs(moved - original).max(axis=1) > 1e-9).sum())
    assert 0 < n_moved < len(original)  # a local pull, not a rigid move
    assert window.model.frame.meshes[0].vertices.shape == original.shape
    window.controller.sculpting.undo_stroke(0)
    np.testing.assert_array_equal(window.model.bodies[0].rest.vertices, original)


def test_a_stroke_keeps_the_brush_it_began_with_and_renders_with_its_frames(qtbot, window):
    sculpting = window.controller.sculpting
    sizes = []
    body_size = sculpting._body_size
    sculpting._body_size = lambda index: sizes.append(index) or body_size(index)
    renders = window.plotter.n_renders
    sculpting.begin_stroke(0)
    top = window.controller.poses.centroid_world(0) + (0.0, 0.9, 0.0)
    for _ in range(3):
        sculpting.sculpt(0, top, np.array([0.0, 0.05, 0.0]))
        # The body's new shape is rendered with the frame asked for it, not once more here.
        assert window.controller.frames.is_frame_running
        assert window.plotter.n_renders == renders
        settle(qtbot, window)
        renders = window.plotter.n_renders
    sculpting.end_stroke(0)
    assert sizes == [0]  # measured when the stroke began, not at each mouse move
    sculpting.begin_stroke(0)
    sculpting.end_stroke(0)
    assert sizes == [0, 0]
    sculpting._body_size = body_size


def test_update_mode_rebuild_rebuilds_every_frame(qtbot, window):
    window.docks["pipeline_dock"].panel.update_mode.setCurrentIndex(1)
    assert window.model.pipeline.update is UpdateChoice.REBUILD
    settle(qtbot, window)
    window.controller.animation.step_time(1 / 30)
    settle(qtbot, window)
    assert window.model.frame.rebuilt == [True, True]


def test_stats_dock_matches_the_frame(window):
    panel = window.docks["stats_dock"].panel
    trace = window.model.frame.result.trace
    assert panel.table.rowCount() == trace.n_levels
    for d in (0, trace.n_levels - 1):
        row = [int(panel.table.item(d, c).text().replace(",", "")) for c in range(4)]
        assert row == [d, int(trace.tested_per_level[d]), int(trace.overlapping_per_level[d]),
                       int(trace.leaf_pairs_per_level[d])]
    c = window.model.frame.result.counters
    assert f"{c.n_bv_tests:,}" in panel.totals.text()
    assert f"contacts = {c.n_contacts:,}" in panel.totals.text()


def test_settings_are_remembered(qtbot, make_window, settings):
    first = make_window("linked-tori", settings)
    first.docks["pipeline_dock"].panel.update_mode.setCurrentIndex(2)
    first.model.set_display(show_culled=True)
    first.model.set_pipeline(distance=False)  # the Pipeline dock's optional analyses too
    first.model.set_display(heat_map="visits", heat_log=True, show_ghost=True)  # and these
    first.close()
    second = make_window(None, settings)
    assert (second.model.display.heat_map, second.model.display.heat_log,
            second.model.display.show_ghost) == ("visits", True, True)
    assert second.model.scene_key == "linked-tori"
    assert second.model.pipeline.update is UpdateChoice.AUTO
    assert second.model.display.show_culled is True
    assert second.model.pipeline.distance is False
    assert second.model.pipeline.containment is True


def test_a_heat_map_saved_by_another_version_is_ignored(qtbot, make_window, settings):
    settings.setValue("display/heat_map", "temperature")  # not a choice this build offers
    settings.setValue("display/show_ghost", "false")
    window = make_window(None, settings)
    assert window.model.display.heat_map == "off" and window.model.display.show_ghost is False


def test_closing_the_window_leaks_no_vtk_objects(qtbot, make_window):
    window = make_window()
    plotter_id = window.plotter._id_name
    assert plotter_id in pv.plotting.plotter._ALL_PLOTTERS
    polys = [weakref.ref(p) for p in window.renderer.polys.values()]
    polys += [weakref.ref(p) for p in window.renderer.mesh_polys]
    window_ref = weakref.ref(window)
    window.close()
    qtbot.waitUntil(lambda: plotter_id not in pv.plotting.plotter._ALL_PLOTTERS, timeout=5000)
    assert window.plotter.ren_win is None
    window.deleteLater()
    del window

    # A frame job finishing on a worker thread may hold the window a moment longer on a busy
    # machine (two test processes on two cores): wait for the release, do not race it.
    def released() -> bool:
        gc.collect()
        return window_ref() is None

    qtbot.waitUntil(released, timeout=10_000)
    assert [r for r in polys if r() is not None] == []


def test_dropping_a_file_on_the_canvas_adds_it_through_the_model(qtbot, window, assets_dir):
    from PyQt6.QtCore import QMimeData, QUrl
    from PyQt6.QtGui import QDropEvent

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(assets_dir / "suzanne.obj"))])
    event = QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    # QApplication.sendEvent drops synthetic drop events (no drag in progress), so hand the
    # event to the canvas filter the way Qt does for a real drop.
    assert window.interaction.eventFilter(window.plotter, event) is True
    settle(qtbot, window)
    assert [b.name for b in window.model.bodies] == ["sphere A", "sphere B", "suzanne"]
    assert len(window.renderer.mesh_actors) == 3


def test_a_frame_finishing_during_shutdown_starts_no_other(qtbot, make_window):
    # Quitting while playing: the running frame's result is delivered (a queued signal) after
    # the executor is shut down, with another frame asked for meanwhile. Starting that one
    # raised "cannot schedule new futures after shutdown" in a slot, and PyQt aborted the app.
    window = make_window()
    controller = window.controller
    controller.frames.shutdown()
    # one ran, one was asked for
    controller.frames._is_busy, controller.frames._is_pending = True, True
    late = SimpleNamespace(tag=Tag("frame", 0, controller.frames._generation - 1))
    controller.frames._on_frame_done(None, late)  # the late delivery
    assert not controller.frames.is_frame_running
    controller.frames.request_frame()  # after shutdown a request is ignored, not an error
    assert not controller.frames.is_frame_running


def test_a_new_scene_is_drawn_once_not_once_per_signal(qtbot, window):
    """A new scene clears a dozen views of the old one, one signal each: the canvas is
    rendered once for all of them (it was four times: the camera reset and three redraws,
    82 ms each on the 278k-triangle bunny with software OpenGL)."""
    model = window.model
    settle(qtbot, window)
    window.model.set_inspect(None)
    before = window.plotter.n_renders
    scenes = window.controller.scenes
    scenes.replace_scene(list(model.bodies), model.scene_key, model.scene_title,
                         model.scene_description, model.scene_param)
    assert window.plotter.n_renders == before + 1
    assert model.frame is None and not window._redraws_held
    window.controller.frames.request_frame()
    settle(qtbot, window)  # the new scene's first frame is drawn as it comes
    assert window.plotter.n_renders >= before + 2 and model.frame is not None
