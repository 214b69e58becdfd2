"""The Outliner dock: a lazy Qt tree view of each hierarchy, in step with the canvas."""

from __future__ import annotations

import numpy as np
from PyQt6.QtWidgets import QApplication

from core.mesh import TriMesh
from core.pipeline import BodyInput, FramePipeline
from core.pose import Pose
from tests.viewer.conftest import click, qt_point
from viewer.model import ViewerModel
from viewer.qt.panels.outliner import OutlinerPanel, partners_text


def _grid_mesh(n: int) -> TriMesh:
    """A wavy height field of ``2 (n - 1)^2`` triangles."""
    x, z = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n), indexing="ij")
    y = 0.1 * np.sin(5 * x) * np.cos(4 * z)
    vertices = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1)
    ids = np.arange(n * n).reshape(n, n)
    a, b, c, d = ids[:-1, :-1], ids[1:, :-1], ids[:-1, 1:], ids[1:, 1:]
    faces = np.concatenate([np.stack([a, b, d], -1).reshape(-1, 3),
                            np.stack([a, d, c], -1).reshape(-1, 3)])
    return TriMesh.from_arrays(vertices, faces, name="grid")


def _big_frame():
    """A real frame: a 500k-triangle height field against a small one crossing it."""
    big, small = _grid_mesh(501), _grid_mesh(12)
    assert big.n_faces == 500_000
    tilt = Pose.from_matrix(np.array([[1, 0, 0, 0.1], [0, 0, -1, 0.0], [0, 1, 0, 0.0],
                                      [0, 0, 0, 1.0]]))
    return FramePipeline().step([BodyInput("big", big), BodyInput("small", small, tilt)])


def test_the_outliner_opens_a_500k_tree_touching_only_what_is_expanded(qtbot):
    frame = _big_frame()
    tree = frame.trees[0]
    assert tree.n_nodes > 500_000
    model = ViewerModel()
    panel = OutlinerPanel(model)
    qtbot.addWidget(panel)
    panel.resize(700, 500)
    panel.show()
    model.set_frame(frame)
    QApplication.processEvents()
    items, view = panel.items, panel.view
    assert items.rowCount() == 2  # the two roots
    assert items.touched <= {0}  # nothing below the roots was asked for
    root = items.index(0, 0)
    view.expand(root)
    QApplication.processEvents()
    assert items.rowCount(root) == 2
    assert items.touched <= {0, 1, 2}
    # A leaf deep in the tree, selected elsewhere: only its ancestors' rows are made.
    leaf = int(np.flatnonzero(np.asarray(tree.count) > 0)[-1])
    depth = int(tree.depth[leaf])
    model.select_node(0, leaf)
    QApplication.processEvents()
    current = view.currentIndex()
    assert items.node_of(current) == (0, leaf)
    parent = int(tree.parent[leaf])
    assert view.isExpanded(items.index_of(0, parent))
    # Each expanded ancestor makes its two children; the view may ask for a few neighbours.
    assert len(items.touched) <= 4 * (depth + 2)
    assert items.cell_text(0, leaf, 1) == str(depth)
    assert items.cell_text(0, leaf, 2) == f"{int(tree.n_prims[leaf]):,}"


def test_outliner_columns_and_partners_come_from_the_frame(qtbot):
    frame = _big_frame()
    model = ViewerModel()
    panel = OutlinerPanel(model)
    qtbot.addWidget(panel)
    model.set_frame(frame)
    items = panel.items
    trace = frame.result.trace
    # The root of A was tested against the root of B at level 0 (and only there).
    rows = np.flatnonzero(np.asarray(trace.node_a) == 0)
    partners = np.asarray(trace.node_b)[rows]
    assert items.cell_text(0, 0, 5) == partners_text(partners)
    assert items.cell_text(0, 0, 5).startswith(f"{np.unique(partners).size}: 0")
    # A node deep in B tested against several of A: its partners, in trace order.
    node_b = np.asarray(trace.node_b)
    busy = int(np.bincount(node_b).argmax())
    expected = list(dict.fromkeys(int(p) for p in np.asarray(trace.node_a)[node_b == busy]))
    text = items.cell_text(1, busy, 5)
    assert text.startswith(f"{len(expected)}: " + ", ".join(str(p) for p in expected[:4]))
    # SAH share is blank until the quality is measured; the volume is the box's.
    assert items.cell_text(0, 0, 4) == ""
    tree = frame.trees[0]
    side = tree.bmax[0] - tree.bmin[0]
    assert items.cell_text(0, 0, 3) == f"{float(np.prod(side)):.4g}"


def test_outliner_and_canvas_select_the_same_node_both_ways(qtbot, window):
    panel = window.docks["outliner_dock"].panel
    window.docks["outliner_dock"].raise_()
    QApplication.processEvents()
    frame = window.model.frame
    tree = frame.trees[0]
    # Outliner -> model -> canvas: the highlight is that node's volume.
    child = panel.items.index_of(0, int(tree.first[0]))
    panel.view.expand(panel.items.index(0, 0))
    panel.view.setCurrentIndex(child)
    QApplication.processEvents()
    assert window.model.selected_node == (0, int(tree.first[0]))
    assert window.renderer.cell_count("node_highlight") == 12  # one box, 12 edges
    assert window.renderer.cell_count("node_triangles") == int(tree.n_prims[tree.first[0]])
    # Canvas -> model -> outliner: a click on sphere A selects the box under it.
    click(window.plotter, qt_point(window, (-1.5, 0.0, 0.4)))
    QApplication.processEvents()
    info = window.model.inspect
    assert info is not None and info.body == 0
    assert window.model.selected_node == (0, info.node)
    current = panel.view.currentIndex()
    assert panel.items.node_of(current) == (0, info.node)
    node = info.node
    ancestor = int(tree.parent[node])
    while ancestor >= 0:
        assert panel.view.isExpanded(panel.items.index_of(0, ancestor))
        ancestor = int(tree.parent[ancestor])


def test_selecting_an_outliner_row_moves_the_level_slider_to_its_depth(qtbot, window):
    panel = window.docks["outliner_dock"].panel
    window.docks["outliner_dock"].raise_()
    levels = window.docks["levels_dock"].panel
    tree = window.model.frame.trees[1]
    window.model.set_level(0)
    QApplication.processEvents()
    assert levels.slider.value() == 0
    # Two levels down on B: the root's second child's first child.
    node = int(tree.first[int(tree.first[0]) + 1])
    assert int(tree.count[int(tree.first[0]) + 1]) == 0 and int(tree.depth[node]) == 2
    for ancestor in (0, int(tree.first[0]) + 1):
        panel.view.expand(panel.items.index_of(1, ancestor))
    panel.view.setCurrentIndex(panel.items.index_of(1, node))
    QApplication.processEvents()
    assert window.model.selected_node == (1, node)
    assert window.model.level == 2
    assert levels.slider.value() == 2
    assert levels.level_label.text().startswith("traversal level 2")
