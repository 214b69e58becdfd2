"""Tree > Compare two trees… in the window: the core's diff of two trees of the shown body's
mesh, labelled with what it was computed on, drawn in the view one tree at a time with the
nodes that differ most bold; stale once the frame changes; a bad tree file is one line."""

from __future__ import annotations

from PyQt6.QtWidgets import QApplication

from core.lab.tree_diff import TreeSource, diff_trees, tree_from_spec
from tests.viewer.conftest import settle
from tests.viewer.helpers import answer_file_dialog
from viewer.qt.dialogs.tree_diff import FILE_ENTRY, REFIT_ENTRY
from viewer.words.actions import ACTIONS_BY_ID


def _compare(qtbot, window, body, first, second):
    dialog = window.tree_diff_menu.open_dialog()
    dialog.choose(body, first, second)
    assert dialog.compare()
    qtbot.waitUntil(lambda: not window.controller.recorder.is_job_running, timeout=120_000)
    QApplication.processEvents()
    return dialog


def _inflate_body_a(qtbot, window):
    """Body A inflating (the Deform dock), played past t = 0.2, then paused and settled."""
    panel = window.docks["deform_dock"].panel
    panel.target.setCurrentIndex(0)
    panel.kind.setCurrentIndex(panel.kind.findData("inflate"))
    qtbot.waitUntil(lambda: window.model.frame is not None and window.model.frame.t > 0.2,
                    timeout=60_000)
    window.model.set_playing(False)
    settle(qtbot, window)


def test_the_action_is_one_row_with_a_key():
    row = ACTIONS_BY_ID["tree.diff"]
    assert row.menu == "T&ree" and row.shortcut == "Ctrl+Shift+T"


def test_the_diff_of_the_shown_tree_and_a_sah_build_is_shown_and_drawn(qtbot, window):
    frame = window.model.frame
    dialog = _compare(qtbot, window, 0, "shown", "build:sah")
    result = window.controller.tree_diff.result
    assert result is not None and result.frame_index == frame.index
    mesh = frame.meshes[0]
    expected = diff_trees(mesh, TreeSource(frame.trees[0], "shown"),
                          tree_from_spec("build:sah", mesh))
    assert dialog.caption.text().startswith(
        f"Computed on frame {frame.index}, body A ({window.model.bodies[0].name}): tree 1 = "
        "the shown tree (BVH Lab's")
    assert "tree 2 = BVH Lab's sah build, leaf size 1" in dialog.caption.text()
    assert dialog.stale.text() == ""
    summary = dialog.summary
    for c in range(2):
        trees = expected["trees"][c]
        assert summary.item(0, c).text() == f"{trees['n_nodes']:,}"
        assert summary.item(5, c).text() == f"{trees['query']['volume_tests']:,}"
        assert summary.item(3, c).text() == f"{trees['sah']:.6g}"
    assert dialog.levels.rowCount() == max(len(t["sah_per_level"]) for t in expected["trees"])
    # Two builds on the same vertices: a node holding the same triangles has the same box.
    assert expected["differ_most"] == [] and dialog.differ.rowCount() == 0
    assert "no node's box differs" in dialog.differ_note.text()

    # Draw tree 2: its volumes at the level shown, dashed, and its legend row.
    renderer = window.renderer
    window.redraw()
    # A new diff draws tree 1 at once; "nothing" takes it away.
    assert dialog.draw_buttons[1].isChecked() and renderer.cell_count("diff_tree") > 0
    dialog.draw_buttons[0].click()
    window.redraw()
    assert renderer.cell_count("diff_tree") == 0
    dialog.draw_buttons[2].click()
    window.redraw()
    assert renderer.cell_count("diff_tree") > 0 and renderer.cell_count("diff_tree") % 48 == 0
    assert renderer.cell_count("diff_nodes") == 0
    legend = [text for text, _colour in renderer.canvas_legend.entries]
    assert "diff: tree 2 of A (dashed)" in legend
    dialog.draw_buttons[0].click()
    window.redraw()
    assert renderer.cell_count("diff_tree") == 0

    # Another frame: the result says which frame it is of.
    window.controller.animation.step_time(1 / 30)
    settle(qtbot, window)
    assert window.model.frame.index != frame.index
    assert dialog.stale.text().startswith(f"Stale: computed on frame {frame.index}; the view "
                                          f"shows frame {window.model.frame.index}")
    dialog.draw_buttons[1].click()
    window.redraw()
    legend = [text for text, _colour in window.renderer.canvas_legend.entries]
    assert f"diff: tree 1 of A, frame {frame.index} (dashed)" in legend


def test_a_refitted_tree_against_its_build_names_the_nodes_that_grew_most(qtbot, window):
    _inflate_body_a(qtbot, window)
    window.controller.animation.step_time(1 / 30)  # a refit at a new time
    settle(qtbot, window)
    frame = window.model.frame
    assert frame.rebuilt[0] is False
    dialog = _compare(qtbot, window, 0, "shown", "built")
    result = window.controller.tree_diff.result
    assert result is not None, window.last_error
    assert "tree 2 = the tree as built at frame " in dialog.caption.text()
    rows = result.report["differ_most"]
    # Inflating grows every box: the refitted (first) tree's boxes are the larger ones.
    assert rows and rows[0]["volume_ratio"] > 1.0
    assert dialog.differ.item(0, 6).text() == f"{rows[0]['volume_ratio']:.3g}"
    # The same nodes on both sides (the refit keeps the build's topology).
    assert rows[0]["node_first"] == rows[0]["node_second"]
    # Drawn: each tree's boxes of those nodes, bold; the refitted ones are the larger.
    renderer = window.renderer
    dialog.draw_buttons[1].click()
    window.redraw()
    assert renderer.cell_count("diff_nodes") == 12 * len(rows)
    first = renderer.polys["diff_nodes"].bounds
    dialog.draw_buttons[2].click()
    window.redraw()
    assert renderer.cell_count("diff_nodes") == 12 * len(rows)
    assert renderer.polys["diff_nodes"].bounds != first
    legend = [text for text, _colour in renderer.canvas_legend.entries]
    assert f"diff: tree 2 of A (dashed), its {len(rows)} most-changed nodes (bold)" in legend
    # Against a fresh build of the same vertices: same triangles, same boxes: nothing grew.
    _compare(qtbot, window, 0, "shown", "fresh")
    assert "tree 2 = a fresh BVH Lab's midpoint build" in dialog.caption.text()


def test_a_tree_file_refitted_to_the_deformed_mesh_is_offered_as_the_cli_refit(
        qtbot, window, tmp_path, monkeypatch):
    # The command line's --tree refit:FILE: the file's topology with its boxes fitted to the
    # mesh as it is now. Saved at rest, then inflated: the refitted boxes are the larger.
    path = tmp_path / "rest.json"
    assert window.controller.inspector.save_tree_file(0, path)
    _inflate_body_a(qtbot, window)
    dialog = window.tree_diff_menu.open_dialog()
    answer_file_dialog(monkeypatch, path)
    for k, entry in enumerate((REFIT_ENTRY, FILE_ENTRY)):  # picked as a user does
        combo = dialog.specs[k]
        combo.setCurrentIndex(combo.findText(entry))
        combo.activated.emit(combo.currentIndex())
    assert (dialog.spec_of(0), dialog.spec_of(1)) == (f"refit:{path}", str(path))
    assert dialog.compare()
    qtbot.waitUntil(lambda: not window.controller.recorder.is_job_running, timeout=120_000)
    QApplication.processEvents()
    result = window.controller.tree_diff.result
    assert result is not None, window.last_error
    assert ("tree 1 = file rest.json refitted to the mesh; tree 2 = file rest.json"
            in dialog.caption.text())
    mesh = window.model.frame.meshes[0]
    expected = diff_trees(mesh, tree_from_spec(f"refit:{path}", mesh),
                          tree_from_spec(str(path), mesh))
    assert result.report["differ_most"] == expected["differ_most"]
    rows = result.report["differ_most"]
    assert rows and rows[0]["volume_ratio"] > 1.0  # inflated: tree 1's boxes grew
    # choose() takes the same spec back to the same entry.
    dialog.choose(0, f"refit:{path}", "shown")
    assert dialog.specs[0].currentText() == REFIT_ENTRY
    assert dialog.spec_of(0) == f"refit:{path}"


def test_a_bad_tree_file_is_one_line_and_keeps_the_last_result(qtbot, window, tmp_path):
    _compare(qtbot, window, 1, "shown", "fresh")
    kept = window.controller.tree_diff.result
    assert kept is not None
    bad = tmp_path / "not-a-tree.json"
    bad.write_text("{ not json")
    _compare(qtbot, window, 1, "shown", str(bad))
    title, text = window.last_error
    assert title == "Cannot compare trees"
    assert "not-a-tree.json" in text and "\n" not in text
    assert window.controller.tree_diff.result is kept


def test_cancel_stops_the_diff_and_keeps_no_result(qtbot, window):
    messages = []
    window.model.message.connect(messages.append)
    dialog = window.tree_diff_menu.open_dialog()
    dialog.choose(0, "shown", "build:sah")
    assert dialog.compare()
    window.controller.recorder.cancel_job()  # checked after the trees are made
    qtbot.waitUntil(lambda: not window.controller.recorder.is_job_running, timeout=120_000)
    QApplication.processEvents()
    assert "Tree diff cancelled" in messages
    assert window.controller.tree_diff.result is None
    assert dialog.caption.text().startswith("Nothing compared yet")
