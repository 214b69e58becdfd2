"""Tree > Save tree / Open tree file in the window: a broken node listed and drawn in red by
the file's own id; a bad file leaves the scene as it was."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PyQt6.QtWidgets import QApplication

from tests.viewer.colour_vision import hex_rgb
from tests.viewer.conftest import settle
from tests.viewer.helpers import answer_file_dialog, assert_trees_kept, foreign_tree_copy
from viewer.render.marks import VIOLATION_COLOR


def _red_pixels(window) -> int:
    image = np.asarray(window.plotter.screenshot(return_img=True))[..., :3].astype(int)
    diff = np.abs(image - hex_rgb(VIOLATION_COLOR).astype(int))
    return int(np.count_nonzero(diff.max(axis=-1) <= 12))


def _broken_copy(path, out):
    """Shrink one leaf's box in a saved JSON tree by hand: its triangles stick out along +x.
    Returns the leaf's id in the file."""
    data = json.loads(path.read_text())
    count = np.asarray(data["count"])
    bounds = np.asarray(data["bounds"], dtype=np.float64)
    leaf = int(np.flatnonzero(count > 0)[len(np.flatnonzero(count > 0)) // 2])
    lo, hi = bounds[leaf, 0], bounds[leaf, 3]
    bounds[leaf, 3] = lo + 0.25 * (hi - lo)  # max x pulled in
    data["bounds"] = bounds.tolist()
    out.write_text(json.dumps(data))
    return leaf, float(0.75 * (hi - lo))


def test_a_broken_node_in_a_reopened_tree_is_listed_and_drawn_red(qtbot, window, tmp_path):
    tools = window.tree_tools
    saved = tmp_path / "a.json"
    assert tools.save_tree_file(0, str(saved))
    assert saved.is_file()
    n_nodes = window.model.frame.trees[0].n_nodes
    broken = tmp_path / "a-broken.json"
    leaf, _size = _broken_copy(saved, broken)
    window.redraw()
    assert window.renderer.cell_count("violations") == 0
    assert _red_pixels(window) == 0

    assert tools.open_tree_file(0, str(broken))
    settle(qtbot, window)
    check = window.model.validation
    assert check is not None and len(check.violations) >= 1
    listed = check.violations[0]
    assert listed.body == 0 and listed.shown_id == leaf  # the file's id
    assert listed.what == "triangle sticks out of its leaf"
    assert listed.size > 0
    assert "tree of A: 1 violation" in tools.validation_label.text()
    panel = window.docks["quality_dock"].panel
    assert panel.violations.rowCount() == len(check.violations)
    assert panel.violations.item(0, 1).text() == str(leaf)
    assert panel.violations.item(0, 5).text() == "triangle sticks out of its leaf"
    # The frame runs with the file's tree, broken box and all, and draws that box red.
    frame = window.model.frame
    tree = frame.trees[0]
    assert tree.n_nodes == n_nodes
    assert window.renderer.cell_count("violations") == 12 * len(check.nodes(0))
    ours = int(check.nodes(0)[0])
    drawn = window.renderer.polys["violations"]
    pose = frame.poses[0].as_matrix()
    corners = np.array([tree.bmin[ours], tree.bmax[ours]]) @ pose[:3, :3].T + pose[:3, 3]
    np.testing.assert_allclose(drawn.bounds[::2], corners.min(axis=0), atol=1e-9)
    assert _red_pixels(window) > 20
    n_bad = len(check.nodes(0))
    assert f"dark red: {n_bad} node{'s' if n_bad != 1 else ''} breaking an invariant" in \
        window.renderer.note.GetText(0)
    assert (f"A: {n_nodes:,} nodes, tree from a-broken.json"
            in window.docks["outliner_dock"].panel.note.text())

    # Back to BVH Lab's own tree: nothing is red any more.
    assert window.controller.inspector.use_own_tree(0)
    settle(qtbot, window)
    assert window.model.validation is None
    assert window.renderer.cell_count("violations") == 0


def test_a_bad_tree_file_leaves_the_scene_as_it_was(qtbot, window, tmp_path):
    before = window.model.frame
    bad = tmp_path / "not-a-tree.json"
    bad.write_text("{ this is not json")
    assert not window.tree_tools.open_tree_file(1, str(bad))
    QApplication.processEvents()
    title, text = window.last_error
    assert title == "Cannot open tree file"
    assert "not-a-tree.json" in text and "\n" not in text
    assert window.model.tree_sources == {}
    assert window.model.validation is None
    assert_trees_kept(qtbot, window, before)
    # A tree of another mesh (B's tree offered for A): the triangle count names the problem.
    other = tmp_path / "b.npz"
    assert window.tree_tools.save_tree_file(1, str(other))
    assert not window.tree_tools.open_tree_file(0, str(other))
    assert "b.npz" in window.last_error[1]
    assert window.model.tree_sources == {}


def test_checking_after_every_refit_lists_the_frames_own_report_and_is_remembered(
        qtbot, make_window, settings, tmp_path):
    window = make_window()
    action = window.tree_tools.actions["every_refit"]
    assert not action.isChecked()
    action.trigger()
    settle(qtbot, window)
    window.controller.frames.request_frame()
    settle(qtbot, window)
    check = window.model.validation
    assert check is not None and check.is_every_refit
    assert check.frame_index == window.model.frame.index
    assert [s.split(":")[0] for s in check.summaries] == ["tree of A", "tree of B"]
    assert all("tree OK" in s for s in check.summaries)
    # A broken tree read from a file: every frame's own report lists it.
    saved = tmp_path / "a.json"
    assert window.tree_tools.save_tree_file(0, str(saved))
    leaf, _ = _broken_copy(saved, tmp_path / "broken.json")
    assert window.tree_tools.open_tree_file(0, str(tmp_path / "broken.json"))
    settle(qtbot, window)
    check = window.model.validation
    assert check.is_every_refit and check.frame_index == window.model.frame.index
    assert check.violations[0].shown_id == leaf
    assert window.renderer.cell_count("violations") == 12 * len(check.nodes(0))
    window.save_settings()
    window.close()
    again = make_window()
    assert again.tree_tools.actions["every_refit"].isChecked()
    assert again.model.validate_after_refit


def test_the_menu_reads_a_tree_file_off_the_gui_thread_with_a_progress_line(
        qtbot, window, tmp_path, monkeypatch):
    saved = tmp_path / "a.json"
    assert window.tree_tools.save_tree_file(0, str(saved))
    leaf, _ = _broken_copy(saved, tmp_path / "broken.json")

    answer_file_dialog(monkeypatch, tmp_path / "broken.json")
    loading = []
    window.model.loading_changed.connect(loading.append)
    window.docks["quality_dock"].hide()
    assert window.tree_tools.open_tree_file(0)  # reading started
    qtbot.waitUntil(lambda: window.model.tree_sources.get(0) is not None, timeout=60_000)
    assert loading[0] == "Reading tree file broken.json for body A…" and loading[-1] == ""
    assert window.model.validation.violations[0].shown_id == leaf
    assert window.docks["quality_dock"].isVisible()
    # A bad file read the same way: one error line, nothing pinned.
    window.controller.inspector.use_own_tree(0)
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    done = []
    assert window.controller.inspector.open_tree_file_async(1, str(bad), done.append)
    qtbot.waitUntil(lambda: done == [False], timeout=60_000)
    assert "bad.json" in window.last_error[1]
    assert window.model.tree_sources == {}


def test_a_tree_read_for_a_scene_that_changed_meanwhile_is_not_used(qtbot, window, tmp_path):
    saved = tmp_path / "a.json"
    assert window.tree_tools.save_tree_file(0, str(saved))
    window.controller.frames.is_threaded = False  # run the read at once, then change the scene
    # Hold the read's result instead of using it (as if it arrived after the change below).
    on_tree_read = window.controller.inspector._on_tree_read
    held = []
    window.controller.inspector._on_tree_read = held.append
    assert window.controller.inspector.open_tree_file_async(0, str(saved))
    window.controller.frames.is_threaded = True
    window.controller.scenes.load_scene("linked-tori")
    settle(qtbot, window)
    done = []
    job = held[0][:-1] + (done.append,)
    on_tree_read(job)
    assert done == [False]
    assert window.model.tree_sources == {}
    # The same body sculpted while its tree was read (a new rest mesh, same Body): not used.
    saved = tmp_path / "tori.json"
    assert window.tree_tools.save_tree_file(0, str(saved))
    window.controller.frames.is_threaded = False
    assert window.controller.inspector.open_tree_file_async(0, str(saved))
    window.controller.frames.is_threaded = True
    rest = window.model.bodies[0].rest
    window.model.set_rest(0, rest.with_vertices(rest.vertices * 1.01))
    on_tree_read(held[1][:-1] + (done.append,))
    assert done == [False, False]
    assert window.model.tree_sources == {}


def test_the_menu_writes_a_tree_file_off_the_gui_thread_with_a_progress_line(
        qtbot, window, tmp_path, monkeypatch):
    from core.bvh.treefile_read import read_tree
    from viewer.qt.menus import tree as tree_menu

    target = tmp_path / "mine"  # no suffix: the chosen filter adds it
    monkeypatch.setattr(tree_menu.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(target), "NumPy archive tree (*.npz)"))
    loading = []
    window.model.loading_changed.connect(loading.append)
    shown = window.model.frame.trees[1]
    assert window.tree_tools.save_tree_file(1)  # writing started
    written = tmp_path / "mine.npz"
    qtbot.waitUntil(lambda: loading and loading[-1] == "", timeout=60_000)
    assert loading[0] == "Writing the tree of B to mine.npz…"
    back = read_tree(written, window.model.bodies[1].rest).tree
    np.testing.assert_array_equal(back.first, shown.first)
    np.testing.assert_array_equal(back.bmin, shown.bmin)
    # A folder that does not exist: one error line naming the file, nothing written.
    done = []
    bad = tmp_path / "missing" / "t.json"
    assert window.controller.inspector.save_tree_file_async(0, str(bad), done.append)
    qtbot.waitUntil(lambda: done == [False], timeout=60_000)
    assert "t.json" in window.last_error[1] and "\n" not in window.last_error[1]
    assert not bad.parent.exists()


def test_a_foreign_tree_is_named_by_the_files_ids_in_every_table_and_caption(
        qtbot, window, tmp_path):
    from viewer.qt.panels.quality import VIOLATION_COLUMNS

    path = tmp_path / "theirs.json"
    file_id, shrunk, grown = foreign_tree_copy(window.model.frame.trees[0], path)
    assert window.tree_tools.open_tree_file(0, str(path))
    settle(qtbot, window)
    tree = window.model.frame.trees[0]
    ids = window.controller.inspector.tree_file_ids(window.model.frame)[0]
    # Our ids differ from the file's (a renumbered tree); the file's is named first.
    ours_shrunk, ours_grown = (int(np.flatnonzero(ids == file_id[n])[0]) for n in (shrunk, grown))
    assert ours_shrunk != file_id[shrunk] and ours_grown != file_id[grown]

    # Invariants table: the child and the axis the check found, named by the file's ids.
    panel = window.docks["quality_dock"].panel
    assert list(VIOLATION_COLUMNS) == ["tree", "node", "child / triangle", "axis", "size",
                                       "what"]
    rows = {panel.violations.item(r, 1).text(): [panel.violations.item(r, c).text()
                                                  for c in range(len(VIOLATION_COLUMNS))]
            for r in range(panel.violations.rowCount())}
    parent = int(tree.parent[ours_grown])
    child_row = rows[f"{int(ids[parent])} (BVH Lab's {parent})"]
    assert child_row[2:4] == [f"child {file_id[grown]}", "-y"]
    assert child_row[5] == "child sticks out of its parent"
    assert float(child_row[4]) == pytest.approx(0.125, rel=1e-3)
    leaf_row = rows[f"{file_id[shrunk]} (BVH Lab's {ours_shrunk})"]
    assert leaf_row[5] == "triangle sticks out of its leaf"
    assert leaf_row[2].startswith("triangle ") and leaf_row[3] == "+x"
    # The status bar and the panel give the same count.
    assert panel.violations.rowCount() == 2
    assert window.tree_tools.validation_label.text().startswith("tree of A: 2 violations")
    assert "tree of A: 2 violations in 2 nodes" in panel.check_note.text()

    # The selection caption and the outliner name the file's id first.
    window.model.select_node(0, ours_shrunk)
    QApplication.processEvents()
    note = window.renderer.note.GetText(0)
    assert f"violet: node {file_id[shrunk]} (BVH Lab's {ours_shrunk}) of A (depth" in note
    outliner = window.docks["outliner_dock"].panel
    assert outliner.items.cell_text(0, ours_shrunk, 0) == \
        f"{file_id[shrunk]} (BVH Lab's {ours_shrunk}) (leaf)"

    # The stepper's words name A's nodes by the file's ids (its fields stay BVH Lab's).
    window.controller.stepper.start_stepper()
    qtbot.waitUntil(lambda: window.model.steps is not None, timeout=120_000)
    steps = window.model.steps
    split = next(steps[i] for i in range(len(steps))
                 if steps[i].split_words.startswith("split A")
                 and int(ids[steps[i].node_a]) != steps[i].node_a)  # fmt: skip
    assert split.split_words.startswith(f"split A (node {int(ids[split.node_a])}): ")
    window.controller.stepper.stop_stepper()

    # The Quality table: each row names its node by the file's id (and sorts by it).
    window.docks["quality_dock"].raise_()
    window.controller.inspector.set_quality_on(True)
    qtbot.waitUntil(lambda: window.model.quality is not None
                    and window.model.quality.frame is window.model.frame, timeout=120_000)
    QApplication.processEvents()
    assert panel.worst.rowCount() > 0
    for row in range(panel.worst.rowCount()):
        node = panel.row_node(row)
        assert panel.worst.item(row, 0).text() == (
            str(node) if ids[node] == node else f"{int(ids[node])} (BVH Lab's {node})")
        assert panel.worst.item(row, 0).value == ids[node]


def test_a_hidden_bodys_selection_is_not_drawn(qtbot, window):
    tree = window.model.frame.trees[1]
    node = int(tree.first[0])
    window.model.select_node(1, node)
    QApplication.processEvents()
    assert window.renderer.cell_count("node_highlight") == 12
    assert window.renderer.cell_count("node_triangles") == int(tree.n_prims[node])
    window.model.set_visible(1, False)
    window.redraw()
    assert window.renderer.cell_count("node_highlight") == 0
    assert window.renderer.cell_count("node_triangles") == 0
    note = window.renderer.note.GetText(0)
    assert f"selected node {node} of B: hidden with its body" in note
    assert "violet" not in note
    window.model.set_visible(1, True)
    window.redraw()
    assert window.renderer.cell_count("node_highlight") == 12


def test_the_volume_inspector_names_nodes_of_a_foreign_tree_by_the_files_ids():
    from core.lab.inspect import NodeInspection, NodeTest
    from viewer.qt.panels.levels import inspect_html

    info = NodeInspection(body=0, node=5, depth=2, n_prims=3, triangle=17, level=2,
                          noun="box",
                          tests=(NodeTest(level=2, partner=6, is_overlap=True, sep=-1,
                                          separation=""),
                                 NodeTest(level=2, partner=4, is_overlap=False, sep=0,
                                          separation="A's axis 0 (x)")))
    file_ids = {0: np.array([9, 8, 7, 6, 5, 40, 3]), 1: np.array([0, 1, 2, 3, 31, 5, 61])}
    text = inspect_html(info, 2, file_ids=file_ids)
    assert "<b>box 40 (BVH Lab's 5) of A</b>" in text
    assert "(B 61)" in text and "culled B 31, separated by A's axis 0 (x)" in text
    # A tree BVH Lab built: its own ids.
    plain = inspect_html(info, 2)
    assert "<b>box 5 of A</b>" in plain and "(B 6)" in plain and "culled B 4," in plain
