"""Outliner search: a node by its id (the file's for a tree from a file), by BVH Lab's id or by
a triangle; its path to the root with each ancestor's measures and the reasons in words."""

from __future__ import annotations

import numpy as np
import pytest

from core.bvh.diagnosis import path_to_root
from tests.viewer.conftest import settle
from tests.viewer.helpers import foreign_tree_copy
from viewer.control.node_search import parse_query


def _outliner(window):
    dock = window.docks["outliner_dock"]
    dock.show()
    dock.raise_()
    return dock.panel


def _path_shown(qtbot, panel, node_label):
    qtbot.waitUntil(lambda: panel.path is not None and panel.path_table.rowCount() > 0
                    and panel.path_table.item(0, 0).text() == node_label, timeout=60_000)


def test_search_parses_node_ids_our_ids_and_triangles():
    assert parse_query("17").node_id == 17 and not parse_query("17").is_ours
    assert parse_query(" node 17 ").node_id == 17
    assert parse_query("#17").is_ours and parse_query("#17").node_id == 17
    assert parse_query("t 120").triangle == 120
    assert parse_query("triangle 5").triangle == 5
    with pytest.raises(ValueError, match="search 'abc'"):
        parse_query("abc")


def test_a_triangle_search_selects_its_leaf_and_lists_the_path_to_the_root(qtbot, window):
    panel = _outliner(window)
    tree = window.model.frame.trees[0]
    node = panel.find("t 5", body=0)
    assert node is not None and int(tree.count[node]) > 0
    assert 5 in tree.prim_ids[tree.prim_start[node]:tree.prim_start[node] + tree.n_prims[node]]
    assert window.model.selected_node == (0, node)
    assert panel.items.node_of(panel.view.currentIndex()) == (0, node)
    _path_shown(qtbot, panel, f"leaf {node}")
    path = path_to_root(tree, node)
    table = panel.path_table
    assert table.rowCount() == len(path)
    assert [table.item(r, 0).text().split()[-1] for r in range(len(path))] == \
        [str(k) for k in path]
    assert table.item(len(path) - 1, 0).text() == "node 0"
    assert [table.item(r, 1).text() for r in range(len(path))] == \
        [str(int(tree.depth[k])) for k in path]
    assert table.item(0, 2).text() == f"{int(tree.n_prims[node]):,}"
    assert table.item(0, 3).text() != ""  # the SAH term is filled in
    frame = window.model.frame
    assert panel.path_caption.text().startswith(f"Path of node {node} to the root, frame "
                                                f"{frame.index}, A: ")
    assert panel.why_label.text().startswith(f"Why leaf {node} is bad:") or \
        "none of the diagnosis's reasons" in panel.why_label.text()
    assert panel.worst_label.text().startswith("Worst nodes of this tree")
    # A row of the path selects that ancestor.
    panel._on_path_row(2, 0)
    assert window.model.selected_node == (0, path[2])
    # Another scene: the path of the old one goes.
    window.controller.scenes.load_scene("two-spheres")
    settle(qtbot, window)
    assert panel.path is None and panel.path_table.rowCount() == 0


def test_a_bad_search_says_why_in_one_line_and_keeps_the_selection(qtbot, window):
    panel = _outliner(window)
    window.model.select_node(0, 0)
    n_nodes = window.model.frame.trees[0].n_nodes
    assert panel.find(str(n_nodes + 5), body=0) is None
    assert panel.search_error.isVisibleTo(panel)
    assert panel.search_error.text() == \
        f"A: node {n_nodes + 5}: the tree has nodes 0 to {n_nodes - 1}"
    n_faces = window.model.frame.meshes[1].n_faces
    assert panel.find("t 99999999", body=1) is None
    assert panel.search_error.text() == \
        f"B: triangle 99999999: the mesh has triangles 0 to {n_faces - 1}"
    assert window.model.selected_node == (0, 0)


def test_a_tree_from_a_file_is_searched_by_the_files_ids(qtbot, window, tmp_path):
    path = tmp_path / "theirs.json"
    file_id, shrunk, _grown = foreign_tree_copy(window.model.frame.trees[0], path)
    assert window.tree_tools.open_tree_file(0, str(path))
    settle(qtbot, window)
    ids = window.controller.inspector.tree_file_ids(window.model.frame)[0]
    ours = int(np.flatnonzero(ids == file_id[shrunk])[0])
    assert ours != file_id[shrunk]
    panel = _outliner(window)
    assert panel.find(str(file_id[shrunk]), body=0) == ours
    _path_shown(qtbot, panel, f"leaf {file_id[shrunk]}")
    assert panel.path_table.item(panel.path_table.rowCount() - 1, 0).text() == \
        f"node {int(ids[0])}"
    assert panel.find(f"#{ours}", body=0) == ours  # BVH Lab's own id with '#'
    # The shrunk leaf's box no longer holds its triangles: not a reason of the diagnosis,
    # but the path is the file's; the caption names the file.
    assert "tree from theirs.json" in panel.path_caption.text()


def test_the_path_is_marked_stale_when_the_frame_changes(qtbot, window):
    panel = _outliner(window)
    node = panel.find("t 0", body=1)
    _path_shown(qtbot, panel, f"leaf {node}")
    shown = panel.path.frame_index
    window.model.set_playing(True)
    # While playing the path is not measured again, it says which frame it is of.
    qtbot.waitUntil(lambda: window.model.frame.index != shown
                    and "Stale: the view shows frame" in panel.path_caption.text(),
                    timeout=60_000)
    assert panel.path.frame_index == shown
    window.model.set_playing(False)
    settle(qtbot, window)
    # Paused: measured again on the shown frame.
    qtbot.waitUntil(lambda: panel.path.frame_index == window.model.frame.index
                    and "Stale" not in panel.path_caption.text(), timeout=60_000)


def test_pausing_after_the_last_frame_came_measures_the_stale_path_again(qtbot, window):
    # The last frame of a play can arrive before the pause: no frame follows it, so the
    # pause itself asks for the path of the shown frame (a full run waited 60 s for it).
    panel = _outliner(window)
    node = panel.find("t 0", body=1)
    _path_shown(qtbot, panel, f"leaf {node}")
    shown = panel.path.frame_index
    window.model.frames_model.is_playing = True  # playing, without the play timer
    window.controller.frames.request_frame()
    settle(qtbot, window)
    assert window.model.frame.index != shown
    assert "Stale: the view shows frame" in panel.path_caption.text()
    window.model.set_playing(False)  # no frame comes after this one
    qtbot.waitUntil(lambda: panel.path.frame_index == window.model.frame.index
                    and "Stale" not in panel.path_caption.text(), timeout=60_000)


def test_a_path_that_arrives_after_another_scene_came_is_not_shown(qtbot, window, monkeypatch):
    import threading

    from viewer.control import node_search

    release = threading.Event()
    measured = node_search.node_path

    def held_node_path(*args, **kwargs):
        release.wait(30)  # measured slowly: the user loads another scene meanwhile
        return measured(*args, **kwargs)

    monkeypatch.setattr(node_search, "node_path", held_node_path)
    panel = _outliner(window)
    node = panel.find("t 5", body=0)
    assert node is not None and panel.path is None  # asked, still being measured
    window.controller.scenes.load_scene("two-spheres")
    settle(qtbot, window)
    release.set()
    lane = window.controller.workers.lanes["node path"]
    qtbot.waitUntil(lambda: not lane.is_busy, timeout=60_000)
    assert panel.path is None and panel.path_table.rowCount() == 0
