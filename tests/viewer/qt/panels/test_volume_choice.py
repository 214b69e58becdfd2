"""The volume choices in the window (OBB fit, split rule), the legend and Stats naming the
chosen volume, the choices remembered between runs, the inspector saying which test culled a
pair, and the SAT lite vs 15 axes comparison."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QApplication, QLabel

from tests.viewer.conftest import settle
from tests.viewer.helpers import choose, culled_pair_at_own_depth, legend_entries
from viewer.render.words import OVERLAPPED
from viewer.words.kinds import pair_noun, separation_text, volume_noun


# -- 1. OBB fit and split rule ----------------------------------------------------------------
def test_obb_fit_combo_lists_every_fit_and_steers_the_drawn_boxes(qtbot, window):
    from core.bv import ObbFit, fit_volumes
    from core.collide.bvquery import collide_bv

    choice = window.docks["pipeline_dock"].panel.volume_choice
    combo = choice.obb_fit
    assert [combo.itemData(i) for i in range(combo.count())] == [m.name for m in ObbFit]
    labels = [combo.itemText(i) for i in range(combo.count())]
    assert labels[:2] == ["vertices (can give the 'terrible box')", "surface (area-weighted)"]
    for i in range(combo.count()):
        assert combo.itemData(i, Qt.ItemDataRole.ToolTipRole).endswith(".")
    assert window.model.pipeline.bv == "aabb" and not combo.isEnabled()

    choose(choice.bv, "obb")
    assert combo.isEnabled()
    choose(combo, "VERTICES")
    assert window.model.pipeline.obb_fit == "VERTICES"
    settle(qtbot, window)
    frame = window.model.frame
    assert window.controller.frames.pipe.settings.request.obb_fit is ObbFit.VERTICES
    vertex_rows = fit_volumes(frame.trees[0], frame.meshes[0], "obb", ObbFit.VERTICES)
    surface_rows = fit_volumes(frame.trees[0], frame.meshes[0], "obb", ObbFit.SURFACE)
    # The drawn boxes are the vertex fit, which is not the surface fit.
    np.testing.assert_array_equal(frame.volumes.rows[0], vertex_rows)
    assert not np.allclose(vertex_rows, surface_rows)
    expected = collide_bv(frame.meshes[0], frame.trees[0], frame.meshes[1], frame.trees[1],
                          frame.poses[0], frame.poses[1], bv="obb",
                          obb_fit=ObbFit.VERTICES).counters  # fmt: skip
    assert frame.result.counters.n_bv_tests == expected.n_bv_tests
    assert "OBB fit: Covariance of the triangles' vertices" in choice.description.text()

    choose(choice.bv, "sphere")
    assert not combo.isEnabled()


def test_split_combo_offers_the_obbtree_rule_and_rebuilds_with_it(qtbot, window):
    from core.bvh import SplitRule

    split = window.docks["pipeline_dock"].panel.split
    assert [split.itemData(i) for i in range(split.count())] == [r.name for r in SplitRule]
    index = split.findData("OBB")
    assert split.itemText(index) == "OBB longest axis, mean (OBBTree)"
    split.setCurrentIndex(index)
    assert window.model.pipeline.split == "OBB"
    settle(qtbot, window)
    assert window.controller.frames.pipe.settings.request.split is SplitRule.OBB
    assert window.model.frame.rebuilt[:2] == [True, True]
    assert "OBBTree paper" in split.toolTip()


# -- 2. legend and stats name the volume ------------------------------------------------------
def test_volume_nouns_of_every_kind():
    from core.bv import BV_KINDS

    nouns = {key: pair_noun(key) for key in BV_KINDS}
    assert nouns["aabb"] == nouns["aabb15"] == "box pairs"
    assert nouns["obb"] == "oriented box pairs"
    assert nouns["sphere"] == nouns["pss"] == "sphere pairs"
    assert nouns["kdop14"] == "14-DOP pairs"
    assert nouns["lss"] == "capsule pairs"
    assert nouns["rss"] == "rounded-rectangle pairs"
    assert volume_noun("kdop26", plural=True) == "26-DOPs"
    assert volume_noun(None, plural=True) == "boxes"


def test_legend_and_stats_name_the_chosen_volume(qtbot, window):
    stats = window.docks["stats_dock"].panel
    # The legend lists only rows drawn: the culled pairs' row while culled pairs show.
    window.model.set_display(show_culled=True)
    window.model.set_level(8)
    settle(qtbot, window)
    window.redraw()
    assert window.renderer.cell_count("culled") > 0
    assert legend_entries(window)[2:4] == ["box pairs overlapping at this level",
                                    "box pairs culled at this level"]
    assert "volume tests N<sub>bv</sub>" in stats.totals.text()
    choice = window.docks["pipeline_dock"].panel.volume_choice
    for key, words in (("sphere", "sphere pairs"), ("kdop14", "14-DOP pairs"),
                       ("rss", "rounded-rectangle pairs")):
        choose(choice.bv, key)
        settle(qtbot, window)
        window.redraw()
        legend = legend_entries(window)
        assert legend[2] == f"{words} overlapping at this level"
        assert (legend[3] == f"{words} culled at this level") == (
            window.renderer.cell_count("culled") > 0)
        assert legend[0] == f"mesh A and its {volume_noun(key, plural=True)}"
        assert f"({words} tested;" in stats.totals.text()
        fit_ms = 1e3 * window.model.frame.timings["fit"]
        assert f"volume fit {fit_ms:.2f}" in stats.phases.text()
    levels = window.docks["levels_dock"].panel
    assert levels.checks["show_tree_a"].text() == (
        f"rounded rectangles of A at tree depth {window.model.level}")


# -- 3. choices remembered ----------------------------------------------------------------
def test_volume_partition_fit_and_split_are_remembered(qtbot, make_window, settings):
    first = make_window("two-spheres", settings)
    panel = first.docks["pipeline_dock"].panel
    choose(panel.volume_choice.bv, "obb")
    choose(panel.volume_choice.obb_fit, "VERTICES")
    choose(panel.volume_choice.partition, "grid")
    choose(panel.split, "OBB")
    settle(qtbot, first)
    first.close()
    assert settings.value("pipeline/bv") == "obb"

    second = make_window(None, settings)
    p = second.model.pipeline
    assert (p.bv, p.obb_fit, p.partition, p.split) == ("obb", "VERTICES", "grid", "OBB")
    choice = second.docks["pipeline_dock"].panel.volume_choice
    assert choice.bv.currentData() == "obb" and choice.obb_fit.currentData() == "VERTICES"
    assert choice.obb_fit.isEnabled()
    assert second.docks["pipeline_dock"].panel.split.currentData() == "OBB"
    # The first frame already ran with them.
    frame = second.model.frame
    assert frame.volumes.name == "obb" and frame.partition is not None
    assert legend_entries(second)[2] == "oriented box pairs overlapping at this level"
    second.close()


def test_an_unknown_saved_choice_is_ignored(make_window, settings):
    settings.setValue("pipeline/bv", "cylinder")
    settings.setValue("pipeline/obb_fit", "MAGIC")
    settings.setValue("pipeline/partition", "kdtree")
    window = make_window("two-spheres", settings)
    p = window.model.pipeline
    assert (p.bv, p.obb_fit, p.partition) == ("aabb", "SURFACE", "kdtree")


# -- 4. which test culled a pair --------------------------------------------------------------
@pytest.mark.parametrize(("kind", "sep_id", "text"), [
    ("aabb", 1, "A's axis 2 (y)"),
    ("aabb", 3, "B's axis 1 (x)"),
    ("aabb15", 14, "A3 x B3 (edge-edge axis)"),
    ("obb", 2, "A's axis 3"),
    ("obb", 5, "B's axis 3"),
    ("obb", 8, "A1 x B3 (edge-edge axis)"),
    ("obb", 12, "A3 x B1 (edge-edge axis)"),
    ("kdop6", 2, "slab 3 (direction (0, 0, 1))"),
    ("sphere", 0, "centre distance"),
    ("pss", 0, "centre distance"),
    ("lss", 1, "centre distance (bounding spheres)"),
    ("lss", 0, "segment distance (cores farther apart than the radii)"),
    ("rss", 0, "rectangle distance (cores farther apart than the radii)"),
    (None, 0, "A's axis 1 (x)"),
])
def test_separation_text_names_the_test(kind, sep_id, text):
    assert separation_text(kind, sep_id) == text


def test_kdop_slabs_name_their_direction():
    from core.bv.kdop import DIRECTIONS

    dirs = DIRECTIONS[14]
    assert len(dirs) == 7
    diagonal = int(np.flatnonzero(np.all(np.abs(dirs) > 0, axis=1))[0])
    text = separation_text("kdop14", diagonal)
    assert text.startswith(f"slab {diagonal + 1} (direction (")
    assert text.count("1") >= 3 and "0" not in text.split("direction")[1]
    assert separation_text("kdop14", 7 + 0) == "B's slab 1 (direction (1, 0, 0))"


def test_overlapped_mirrors_the_core():
    from core.collide.trace import OVERLAPPED as CORE_OVERLAPPED

    assert OVERLAPPED == CORE_OVERLAPPED
    assert separation_text("obb", OVERLAPPED) == "overlapping"


def test_inspector_says_which_axis_culled_a_partner(window):
    from core.lab.inspect import inspect_node

    frame = window.model.frame
    assert frame.volumes.name == "aabb"
    # Two unrotated spheres: a culled AABB pair is separated along a world axis, and the
    # inspector must name an axis along which the two boxes are really apart.
    np.testing.assert_array_equal(frame.poses[1].rotation, np.eye(3))
    level, a, b, sep = culled_pair_at_own_depth(frame)
    ta, tb = frame.trees
    lo_a = ta.bmin[a] + frame.poses[0].translation
    hi_a = ta.bmax[a] + frame.poses[0].translation
    lo_b = tb.bmin[b] + frame.poses[1].translation
    hi_b = tb.bmax[b] + frame.poses[1].translation
    axis = sep % 3
    assert hi_a[axis] < lo_b[axis] or hi_b[axis] < lo_a[axis]

    tri = int(ta.triangles_under(a)[0])
    window.model.set_level(level)
    info = inspect_node(frame, 0, tri, level)
    assert info.node == a
    k = info.partners.index(b)
    assert info.partner_seps[k] == sep and not info.partner_overlaps[k]
    expected = f"A's axis {axis + 1} ({'xyz'[axis]})" if sep < 3 else \
        f"B's axis {axis + 1} ({'xyz'[axis]})"
    assert info.partner_separations[k] == expected
    window.model.set_inspect(info)
    text = window.docks["levels_dock"].panel.inspect_label.text()
    assert f"box {a} of A" in text
    n_culled_before = sum(1 for o in info.partner_overlaps[:k] if not o)
    if n_culled_before < 8:  # the label explains the first eight culled partners of a level
        assert f"culled B {b}, separated by {expected}" in text


def test_inspector_on_obb_names_axes_of_the_oriented_boxes(qtbot, window):
    from core.lab.inspect import inspect_node

    choice = window.docks["pipeline_dock"].panel.volume_choice
    choose(choice.bv, "obb")
    poses = window.controller.poses
    poses.rotate_body(1, (0.3, 1.0, 0.2), 0.7, poses.centroid_world(1))
    settle(qtbot, window)
    frame = window.model.frame
    level, a, b, sep = culled_pair_at_own_depth(frame)
    info = inspect_node(frame, 0, int(frame.trees[0].triangles_under(a)[0]), level)
    k = info.partners.index(b)
    assert info.kind == "obb"
    assert info.partner_separations[k] == separation_text("obb", sep)
    window.model.set_inspect(info)
    assert f"oriented box {a} of A" in window.docks["levels_dock"].panel.inspect_label.text()


# -- 5. SAT lite vs 15 axes -------------------------------------------------------------------
def test_compare_puts_sat_lite_beside_the_15_axis_test(qtbot, window):
    from viewer.control.compare import DEFAULT_KINDS
    from viewer.qt.dialogs.compare import COLUMNS

    assert "aabb" in DEFAULT_KINDS and "aabb15" in DEFAULT_KINDS
    # A rotated B: SAT lite lets through pairs only an edge-edge axis separates.
    poses = window.controller.poses
    poses.rotate_body(1, (1.0, 1.0, 0.0), 0.6, poses.centroid_world(1))
    settle(qtbot, window)
    dialog = window.open_compare()
    qtbot.waitExposed(dialog)
    assert dialog.checks["aabb"].isChecked() and dialog.checks["aabb15"].isChecked()
    dialog.level.setValue(3)
    dialog.run()
    qtbot.waitUntil(lambda: not dialog.is_running, timeout=60_000)  # runs off the GUI thread
    assert len(dialog.picture_labels) == 4
    dialog.sat_button.click()
    qtbot.waitUntil(lambda: not dialog.is_running, timeout=60_000)  # runs off the GUI thread
    assert [dialog.table.item(r, 0).text() for r in range(dialog.table.rowCount())] == [
        "AABB (SAT lite)", "AABB (15 axes)"]
    # Only the two new pictures are shown (the six-kind run drew four before).
    QApplication.processEvents()  # a label added to a shown dialog is shown by the event loop
    shown = [label for label in dialog.findChildren(QLabel)
             if not label.pixmap().isNull() and label.isVisible()]
    assert sorted(label.toolTip() for label in shown) == ["AABB (15 axes)", "AABB (SAT lite)"]
    traverse = COLUMNS.index("traverse ms")
    rows = {r.kind: r for r in dialog.rows}
    lite, full = rows["aabb"], rows["aabb15"]
    for r, row in enumerate((lite, full)):
        assert int(dialog.table.item(r, 2).text().replace(",", "")) == row.n_bv_tests
        assert float(dialog.table.item(r, traverse).text()) == pytest.approx(
            row.traverse_ms, abs=1e-3)
        assert row.traverse_ms > 0
    # Same boxes, same contacts; the weaker test can only test more pairs.
    assert lite.n_contacts == full.n_contacts
    assert lite.n_bv_tests > full.n_bv_tests
    note = dialog.note.text()
    assert note.startswith("<b>SAT lite vs 15 axes</b>")
    assert f"{lite.n_bv_tests - full.n_bv_tests:,} more volume tests" in note
    assert f"{lite.traverse_ms:.2f} ms against {full.traverse_ms:.2f} ms" in note
    # Without the pair, no sentence.
    for key, box in dialog.checks.items():
        box.setChecked(key == "aabb")
    dialog.run()
    qtbot.waitUntil(lambda: not dialog.is_running, timeout=60_000)  # runs off the GUI thread
    assert dialog.note.text() == ""
    dialog.close()
