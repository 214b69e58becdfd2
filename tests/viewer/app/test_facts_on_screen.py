"""What a student sees must be right: each fact on screen checked against the frame behind it.

Scene changes clear every view of the old scene; the gap of "Parallel close proximity" is the
measured minimum distance; one-mesh scenes speak of one mesh; hidden bodies draw nothing;
load notes stay; timings show a running median; every choice has words and a tooltip.
"""

from __future__ import annotations

import re

import numpy as np
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QComboBox

from core.lab.inspect import inspect_node
from tests.viewer.conftest import click, qt_point, settle
from viewer.render.geometry import LINES_PER_BOX
from viewer.state.timing import TimingHistory


def _click_scene(qtbot, window, key: str) -> None:
    """Click the entry of built-in scene ``key`` in the Scene dock's list, as a user does."""
    scene_list = window.docks["scene_dock"].panel.scene_list
    for row in range(scene_list.count()):
        item = scene_list.item(row)
        if item.data(Qt.ItemDataRole.UserRole) == key:
            scene_list.scrollToItem(item)
            qtbot.mouseClick(scene_list.viewport(), Qt.MouseButton.LeftButton,
                             pos=scene_list.visualItemRect(item).center())
            break
    else:
        raise AssertionError(f"no scene {key} in the list")
    settle(qtbot, window)
    assert window.model.scene_key == key


def _click_mesh(window, body: int) -> None:
    pos = qt_point(window, window.controller.poses.centroid_world(body))
    click(window.plotter, pos)


# -- 1. a scene change clears every view of the old scene ----------------------------------------
def test_changing_scene_clears_inspector_selection_step_mode_and_compare(qtbot, window):
    levels = window.docks["levels_dock"].panel
    idle_text = levels.inspect_label.text()
    window.model.set_level(3)
    _click_mesh(window, 1)
    assert window.model.inspect is not None
    assert "of B" in levels.inspect_label.text()
    assert window.renderer.cell_count("inspect") > 0
    window.model.set_selected(1)
    assert window.renderer.cell_count("selection") > 0
    levels.step_check.setChecked(True)
    dialog = window.open_compare()
    dialog.run()
    qtbot.waitUntil(lambda: not dialog.is_running, timeout=60_000)  # runs off the GUI thread
    assert dialog.table.rowCount() > 0 and dialog.picture_labels

    _click_scene(qtbot, window, "linked-tori")

    assert window.model.inspect is None
    assert levels.inspect_label.text() == idle_text
    assert window.renderer.cell_count("inspect") == 0
    assert window.model.selected == -1
    assert window.renderer.cell_count("selection") == 0
    assert not window.docks["scene_dock"].panel.bodies.selectedItems()
    assert not window.model.is_step_mode and not levels.step_check.isChecked()
    assert not levels.next_button.isEnabled()
    assert dialog.table.rowCount() == 0 and not dialog.picture_labels
    assert "New scene" in dialog.status.text()
    dialog.close()


# -- 2. "Parallel close proximity": a true gap on a logarithmic slider --------------------------
def test_gap_slider_is_the_measured_distance_and_the_spheres_never_touch(qtbot, make_window):
    window = make_window("concentric-spheres")
    panel = window.docks["scene_dock"].panel
    slider = panel.param_slider
    stops = slider.values
    assert stops[0] <= 1e-4 and stops[-1] >= 1e-1
    steps = np.diff(np.log10(stops))
    np.testing.assert_allclose(steps, steps[0])  # logarithmic: equal ratios
    description = window.model.scene_description
    assert "never touch" in description and "volume tests" in description
    texts, n_tests = [], []
    for position in range(len(stops)):
        slider.slider.setValue(position)
        settle(qtbot, window)
        frame = window.model.frame
        counters = frame.result.counters
        assert counters.n_contacts == 0, f"the spheres touch at a gap of {stops[position]}"
        measured = frame.distance.distance
        assert measured > 0
        # The outer sphere is scaled so that the measured gap is the one asked for.
        np.testing.assert_allclose(measured, stops[position], rtol=1e-6)
        text = panel.measured.text()
        assert f"{measured:#.4g}" in text
        assert f"{counters.n_bv_tests:,} volume tests" in text
        texts.append(text)
        n_tests.append(counters.n_bv_tests)
    # Successive stops read differently, and a smaller gap costs more volume tests.
    assert all(a != b for a, b in zip(texts, texts[1:]))
    assert n_tests[0] > 3 * n_tests[-1]


# -- 3. one-mesh scenes speak of one mesh --------------------------------------------------------
def test_self_collision_scene_labels_name_one_mesh(qtbot, make_window):
    window = make_window("folding-tube")
    renderer = window.renderer
    texts = [renderer.legend.GetEntryString(i)
             for i in range(renderer.legend.GetNumberOfEntries())]
    assert texts == renderer.legend_texts
    assert not any("mesh B" in t or "mesh A" in t for t in texts)
    assert texts[0].startswith("the mesh and its")
    levels = window.docks["levels_dock"].panel
    assert not levels.checks["show_tree_b"].isVisible()
    assert "of the mesh" in levels.checks["show_tree_a"].text()
    frame = window.model.frame
    window.model.set_inspect(inspect_node(frame, 0, 10, window.model.level))
    text = levels.inspect_label.text()
    assert "of the mesh" in text and "partners in the same mesh" in text
    assert " in B" not in text and " of A" not in text
    stats = window.docks["stats_dock"].panel
    assert "A:" not in stats.trees.text() and "mesh:" in stats.trees.text()
    roles = window.docks["scene_dock"].panel.bodies
    assert roles.item(0, 4).text() == "against itself"
    assert not window.docks["scene_dock"].panel.make_b.isVisible()  # no body to swap into B
    pipeline = window.docks["pipeline_dock"].panel
    assert "A:" not in pipeline.drift.text()

    # Back to two meshes: the legend has its two mesh rows again.
    window.controller.scenes.load_scene("two-spheres")
    settle(qtbot, window)
    window.redraw()
    texts = [renderer.legend.GetEntryString(i)
             for i in range(renderer.legend.GetNumberOfEntries())]
    assert texts[:2] == ["mesh A and its boxes", "mesh B and its boxes"]


# -- 4. a hidden body draws nothing --------------------------------------------------------------
def test_hiding_a_body_hides_its_boxes_pairs_and_contacts(qtbot, window):
    frame = window.model.frame
    result = frame.result
    level = window.model.level
    n_overlap = int(result.trace.overlapping_per_level[level])
    assert window.renderer.cell_count("overlap") == 2 * LINES_PER_BOX * n_overlap
    assert window.renderer.cell_count("tree_b") > 0
    table = window.docks["scene_dock"].panel.bodies
    table.item(1, 0).setCheckState(Qt.CheckState.Unchecked)  # the "shown" box of B
    settle(qtbot, window)
    window.redraw()
    assert not window.model.bodies[1].is_visible
    assert not window.renderer.mesh_actors[1].visibility
    assert window.renderer.cell_count("tree_b") == 0
    assert window.renderer.cell_count("tree_a") > 0
    # Only A's volume of each overlapping pair, only A's contacting triangles.
    assert window.renderer.cell_count("overlap") == LINES_PER_BOX * n_overlap
    n_tris_a = np.unique(result.pairs[:, 0]).size
    assert window.renderer.cell_count("contact_tris") == n_tris_a
    assert "B is hidden" in window.renderer.note.GetText(0)
    stats = window.docks["stats_dock"].panel
    assert "hidden" in stats.meshes.text() and "sphere B" in stats.meshes.text()

    table.item(1, 0).setCheckState(Qt.CheckState.Checked)
    settle(qtbot, window)
    window.redraw()
    assert window.renderer.cell_count("overlap") == 2 * LINES_PER_BOX * n_overlap
    assert "hidden" not in window.renderer.note.GetText(0)
    assert "hidden" not in stats.meshes.text()


def test_hiding_the_one_mesh_of_a_self_collision_scene_hides_its_overlays(qtbot, make_window):
    window = make_window("rippling-shell")
    assert window.renderer.cell_count("tree_a") > 0
    window.model.set_visible(0, False)
    settle(qtbot, window)
    window.redraw()
    for name in ("tree_a", "overlap", "contact_tris", "contact_segments"):
        assert window.renderer.cell_count(name) == 0, name
    assert "the mesh is hidden" in window.renderer.note.GetText(0)


# -- 5. File > Open: the scene list highlights no old built-in scene ---------------------------
def test_opening_files_as_a_new_scene_clears_the_scene_list_highlight(qtbot, window, assets_dir):
    scene_list = window.docks["scene_dock"].panel.scene_list
    assert scene_list.currentItem().data(Qt.ItemDataRole.UserRole) == "two-spheres"
    assert window.controller.files.load_files([str(assets_dir / "spot.obj")], replace_scene=True)
    settle(qtbot, window)
    assert window.model.scene_key is None
    assert scene_list.currentRow() == -1
    assert not scene_list.selectedItems()


# -- 6. load notes stay where the body is listed -------------------------------------------------
def test_load_notes_stay_in_the_scene_and_stats_docks(qtbot, window, tmp_path):
    path = tmp_path / "notes.obj"
    # An open square of two quads (polygons), and one zero-area triangle.
    path.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 2 1 0\nv 3 0 0\n"
                    "f 1 2 3 4\nf 2 5 6 3\nf 1 5 7\n")
    assert window.controller.files.load_files([str(path)], replace_scene=True)
    settle(qtbot, window)
    window.model.message.emit("an unrelated message that replaces the status bar's")
    table = window.docks["scene_dock"].panel.bodies
    note = table.item(0, 5)
    assert note.text() == "⚠ 3"
    tip = note.toolTip()
    assert "1 degenerate (zero-area) triangles kept" in tip
    assert "boundary edges" in tip
    assert "2 polygons of the file split into triangles" in tip
    stats = window.docks["stats_dock"].panel.meshes.text()
    assert "degenerate" in stats and "polygons" in stats and "boundary" in stats


def test_a_decimated_drawing_is_noted_until_full_resolution_is_ticked(window):
    from viewer.qt.panels.mesh_notes import body_notes
    from viewer.state.display import Display

    body = window.model.bodies[0]

    class _Big:
        n_faces = 69_451

    big = type(body)(body.key, "bunny", _Big(), _Big(), body.pose, body.color)
    assert any("drawn with about 20,000 of its 69,451" in n for n in body_notes(big, Display()))
    assert not body_notes(big, Display(is_full_resolution=True))


# -- 7. timings: a running median, self-collision time, the last frame when paused --------------
def test_timing_history_keeps_the_last_second_and_its_median():
    history = TimingHistory(window_s=1.0)
    for t, value in ((0.0, 0.0028), (0.1, 0.0695), (0.2, 0.0026)):
        history.add({"traverse": value}, now=t)
    assert history.last("traverse") == 0.0026
    assert history.median("traverse") == 0.0028
    history.add({"traverse": 0.004}, now=1.15)  # the first two are now older than 1 s
    assert history.count("traverse") == 2
    assert history.median("traverse") == 0.5 * (0.0026 + 0.004)
    history.add({"traverse": 0.001}, now=10.0)  # a paused scene keeps its last frame
    assert history.count("traverse") == 1 and history.median("traverse") == 0.001


class _Timed:
    """A frame with other phase times (the rest read from the real frame)."""

    def __init__(self, frame, **ms):
        self._frame = frame
        self.timings = {**frame.timings, **{k: v / 1e3 for k, v in ms.items()}}

    def __getattr__(self, name):
        return getattr(self.__dict__["_frame"], name)


def test_status_bar_and_stats_show_the_last_time_and_the_running_median(qtbot, window):
    frame = window.model.frame
    window.model.timing_history.clear()  # only the three frames below, on a clock of our own
    for t, traverse in ((100.0, 2.8), (100.1, 69.5), (100.2, 2.6)):
        window.model.set_frame(_Timed(frame, traverse=traverse), now=t)
    # Paused, a frame's overlays are prepared at once and rendered (with its times written)
    # in the next turn of the event loop.
    qtbot.waitUntil(lambda: not window.is_redraw_pending, timeout=5_000)
    status = window.status_line.timing_label.text()
    assert "traverse 2.6 (2.8)" in status
    phases = window.docks["stats_dock"].panel.phases.text()
    assert "traverse 2.60 (2.80)" in phases and "median" in phases
    # Nothing plays: the last frame's time, not a frame rate of zero.
    assert not window.model.is_playing
    assert window.status_line.fps_label.text().startswith("last frame ")
    assert "FPS" not in window.status_line.fps_label.text()


def test_self_collision_status_bar_shows_the_self_collision_time(make_window):
    window = make_window("folding-tube")
    frame = window.model.frame
    assert frame.result is None and "self" in frame.timings
    status = window.status_line.timing_label.text()
    assert "self-collision" in status and "traverse" not in status
    phases = window.docks["stats_dock"].panel.phases.text()
    assert "self-collision" in phases and "traverse" not in phases


# -- 9. every choice in words, with a tooltip ----------------------------------------------------
_ENUM_NAME = re.compile(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)*")


def _combos_ok(window) -> int:
    combos = window.findChildren(QComboBox)
    n_items = 0
    for combo in combos:
        for i in range(combo.count()):
            text = combo.itemText(i)
            assert text and not _ENUM_NAME.fullmatch(text), f"raw name {text!r} in a combo"
            tip = combo.itemData(i, Qt.ItemDataRole.ToolTipRole)
            assert tip, f"no tooltip on {text!r}"
            n_items += 1
    return n_items


def test_every_combo_item_is_words_with_a_tooltip(qtbot, make_window):
    window = make_window("folding-tube")  # its bend deformer adds axis choices
    deform = window.docks["deform_dock"].panel
    assert deform.params_box.findChildren(QComboBox), "expected the deformer's axis choices"
    assert _combos_ok(window) > 20
    pipeline = window.docks["pipeline_dock"].panel
    assert pipeline.descend.currentText() == "split the larger volume"
    pipeline.descend.setCurrentIndex(pipeline.descend.findText("split both volumes"))
    assert window.model.pipeline.descend == "BOTH"
    settle(qtbot, window)

