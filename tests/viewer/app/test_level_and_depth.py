"""Traversal level and tree depth are two things on screen: the slider counts levels, a click
says the box's tree depth, and the inspector lists the box's pair tests at every level where
it was tested, each culled one with the test that separated it. Esc clears the selection."""

from __future__ import annotations

import numpy as np
from PyQt6.QtCore import QPointF, Qt
from PyQt6.QtWidgets import QApplication

from tests.viewer.conftest import click
from viewer.words.kinds import separation_text


def _click(window, pos: QPointF) -> None:
    click(window.plotter, pos)
    QApplication.processEvents()


def _tests_from_trace(trace, body: int, node: int) -> dict[int, list[tuple[int, int]]]:
    """Oracle: level -> [(partner, separating id)] of ``node``, read level by level."""
    out: dict[int, list[tuple[int, int]]] = {}
    for d in range(trace.n_levels):
        pairs, _hit = trace.level(d)
        seps = trace.separating_axis(d)
        for (a, b), sep in zip(pairs, seps):
            if (a, b)[body] == node:
                out.setdefault(d, []).append((int((a, b)[1 - body]), int(sep)))
    return out


def _box_tested_below_its_depth(window):
    """A clickable triangle of A whose box at some depth d was tested only at traversal
    levels other than d, one of them culled: ``(depth, triangle, widget point)``."""
    frame = window.model.frame
    tree, trace = frame.trees[0], frame.result.trace
    pose = frame.poses[0].as_matrix()
    mesh = frame.meshes[0]
    ratio = window.plotter.devicePixelRatioF()
    height = window.plotter.ren_win.GetSize()[1]
    for depth in range(3, int(tree.max_depth)):
        for node in np.asarray(tree.nodes_at_depth(depth)):
            tests = _tests_from_trace(trace, 0, int(node))
            if not tests or depth in tests:
                continue
            if all(sep < 0 for row in tests.values() for _p, sep in row):
                continue
            for tri in np.asarray(tree.triangles_under(int(node)))[:20]:
                centroid = mesh.vertices[mesh.faces[tri]].mean(axis=0)
                world = pose[:3, :3] @ centroid + pose[:3, 3]
                x, y, _ = window.renderer.world_to_display(world)
                hit = window.renderer.pick(x, y)
                if hit is None or hit[0] != 0:
                    continue
                window.model.set_level(depth)
                from core.lab.inspect import inspect_node

                info = inspect_node(frame, 0, hit[1], depth)
                if info is not None and info.node == int(node):
                    return depth, int(node), QPointF(x / ratio, (height - 1 - y) / ratio)
    raise AssertionError("no box of A tested away from its own depth")


def test_the_slider_counts_traversal_levels_and_the_overlays_name_the_tree_depth(window):
    window.model.set_level(5)
    n = window.model.n_levels()
    panel = window.docks["levels_dock"].panel
    assert panel.level_label.text() == f"traversal level 5 of {n} (levels 0–{n - 1})"
    assert panel.checks["show_tree_a"].text() == "boxes of A at tree depth 5"
    assert window.renderer.note.GetText(0).startswith(f"traversal level 5 of {n}")
    assert "tree depth 5" in window.renderer.note.GetText(0)
    stats = window.docks["stats_dock"].panel
    assert stats.table.horizontalHeaderItem(0).text() == "traversal level"
    # Past the tree's deepest level the overlay says which depth it really draws.
    deepest = int(window.model.frame.trees[0].max_depth)
    window.model.set_level(min(n - 1, deepest + 2))
    if window.model.level > deepest:
        assert panel.checks["show_tree_a"].text() == (
            f"boxes of A at tree depth {deepest} (its deepest)")
    window.model.set_level(None)
    assert panel.level_label.text() == f"all {n} traversal levels"


def test_a_click_lists_the_box_tests_at_every_level_with_the_separating_test(window):
    depth, node, pos = _box_tested_below_its_depth(window)
    _click(window, pos)
    info = window.model.inspect
    assert info is not None and info.node == node and info.depth == depth
    trace = window.model.frame.result.trace
    expected = _tests_from_trace(trace, 0, node)
    assert depth not in expected  # the level equal to its depth has none of its tests
    got: dict[int, list[tuple[int, int]]] = {}
    for t in info.tests:
        got.setdefault(t.level, []).append((t.partner, t.sep))
    assert got == expected

    text = window.docks["levels_dock"].panel.inspect_label.text()
    assert f"box {node} of A" in text
    assert f"tree depth <b>{depth}</b>" in text
    for d, row in expected.items():
        assert f"<a href='level:{d}'>level {d}</a>" in text
        culled = [(p, s) for p, s in row if s >= 0]
        for partner, sep in culled[:8]:
            assert f"culled B {partner}, separated by {separation_text('aabb', sep)}" in text

    # A level in the list is a link to that level.
    first = min(expected)
    window.docks["levels_dock"].panel.inspect_label.linkActivated.emit(f"level:{first}")
    assert window.model.level == first
    shown = window.docks["levels_dock"].panel.inspect_label.text()
    assert f"level {first}</a> ◀ shown" in shown
    # At that level the clicked box and its partners there are drawn.
    n_partners = len(expected[first])
    assert window.renderer.cell_count("inspect") == 12 * (1 + n_partners)


def test_escape_clears_the_selection(qtbot, window):
    depth, node, pos = _box_tested_below_its_depth(window)
    _click(window, pos)
    window.model.set_selected(1)
    assert window.model.inspect is not None
    assert window.renderer.cell_count("inspect") > 0
    # Esc is a window shortcut (View > Clear selection) and a key of the canvas; the virtual
    # display has no window manager to make the window active, so the key goes to the canvas.
    assert window.clear_selection_action.shortcut().toString() == "Esc"
    qtbot.keyClick(window.plotter, Qt.Key.Key_Escape)
    QApplication.processEvents()
    assert window.model.inspect is None
    assert window.model.selected == -1
    assert window.renderer.cell_count("inspect") == 0
    assert window.renderer.cell_count("selection") == 0
    assert "Click a mesh" in window.docks["levels_dock"].panel.inspect_label.text()


def test_the_clear_selection_action_clears_the_inspector(window):
    _depth, _node, pos = _box_tested_below_its_depth(window)
    _click(window, pos)
    assert window.model.inspect is not None
    window.clear_selection_action.trigger()
    assert window.model.inspect is None
    assert window.renderer.cell_count("inspect") == 0
