"""The Quality dock: totals, histograms and worst nodes equal the core's ``tree_quality``;
a row clicked is the node drawn on the canvas."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QApplication

from core.bvh.metrics import CostConstants, tree_quality
from tests.viewer.colour_vision import VISIONS, delta_e, hex_rgb, simulate
from tests.viewer.conftest import settle
from tests.viewer.helpers import open_quality_dock
from viewer.qt.panels.quality import METRIC_WORDS, WORST_LISTED, HistogramCanvas
from viewer.render.marks import NODE_COLOR, VIOLATION_COLOR
from viewer.render.overlays import KIND_COLORS
from viewer.render.style import (
    BACKGROUND,
    BRUSH_COLOR,
    CULLED_COLOR,
    DISTANCE_COLOR,
    INSPECT_COLOR,
    OVERLAP_COLOR,
    PARTITION_COLOR,
    SEGMENT_COLOR,
    TREE_A_COLOR,
    TREE_B_COLOR,
)
from viewer.scenes import COLOR_A, COLOR_B


def _expected(window, body=0, constants=None):
    frame = window.model.frame
    constants = constants or CostConstants()
    return tree_quality(frame.meshes[body], frame.trees[body], frame.volumes.name, constants,
                        volumes=frame.volumes.rows[body])


def test_panel_totals_and_histograms_are_tree_quality(qtbot, window):
    panel = open_quality_dock(qtbot, window)
    shown = window.model.quality.quality
    q = _expected(window)
    assert shown.sah == pytest.approx(q.sah, rel=1e-12)
    text = panel.totals.text()
    for part in (f"SAH cost <b>{q.sah:.4g}</b>", f"{q.n_nodes:,} nodes", f"{q.n_leaves:,} leaves",
                 f"leaf depth {q.depth_min}–{q.depth_max}", f"EPO <b>{q.epo:.4g}</b>",
                 f"mean sibling overlap <b>{q.sibling_overlap:.4g}</b>"):
        assert part in text
    assert "C<sub>t</sub> = 1" in text and "C<sub>i</sub> = 1" in text
    np.testing.assert_array_equal(panel.depth_plot.counts, q.depth_histogram)
    np.testing.assert_array_equal(panel.leaf_plot.counts, q.leaf_size_histogram)
    assert panel.depth_plot.axes.get_xlabel() == "depth"
    assert panel.leaf_plot.axes.get_xlabel() == "triangles in the leaf"
    # The worst nodes by SAH, worst first, as tree_quality ranks them.
    panel.metric.setCurrentIndex(list(METRIC_WORDS).index("sah"))
    expected = list(q.worst("sah", WORST_LISTED))
    panel.worst.sortItems(3, Qt.SortOrder.DescendingOrder)
    shown_ids = [panel.row_node(r) for r in range(panel.worst.rowCount())]
    assert sorted(shown_ids) == sorted(int(i) for i in expected)  # the same 50 nodes
    values = [panel.worst.item(r, 3).value for r in range(panel.worst.rowCount())]
    assert values == sorted(values, reverse=True)  # sorted by the SAH column, worst first
    assert values[0] == pytest.approx(q.nodes.sah[expected[0]])
    assert panel.worst.item(0, 3).text() == f"{100 * q.nodes.sah[expected[0]] / q.sah:.2f} %"


def test_cost_constants_and_body_choice_remeasure(qtbot, window):
    panel = open_quality_dock(qtbot, window)
    panel.traversal_cost.setValue(2.5)
    qtbot.waitUntil(lambda: window.model.quality.quality.constants.traversal == 2.5,
                    timeout=60_000)
    q = _expected(window, 0, CostConstants(traversal=2.5, intersection=1.0))
    assert window.model.quality.quality.sah == pytest.approx(q.sah, rel=1e-12)
    assert f"SAH cost <b>{q.sah:.4g}</b>" in panel.totals.text()
    panel.body_buttons[1].click()
    qtbot.waitUntil(lambda: window.model.quality.body == 1, timeout=60_000)
    q_b = _expected(window, 1, CostConstants(traversal=2.5, intersection=1.0))
    assert window.model.quality.quality.sah == pytest.approx(q_b.sah, rel=1e-12)
    assert "Tree of B" in panel.totals.text()


def _node_pixels(window) -> int:
    image = np.asarray(window.plotter.screenshot(return_img=True))[..., :3].astype(int)
    diff = np.abs(image - hex_rgb(NODE_COLOR).astype(int))
    return int(np.count_nonzero(diff.max(axis=-1) <= 12))


def test_clicking_the_worst_epo_row_selects_and_draws_that_node(qtbot, window):
    panel = open_quality_dock(qtbot, window)
    window.redraw()
    assert window.renderer.cell_count("node_highlight") == 0
    assert _node_pixels(window) == 0
    panel.metric.setCurrentIndex(list(METRIC_WORDS).index("epo"))
    panel.worst.sortItems(4, Qt.SortOrder.DescendingOrder)  # worst EPO first
    q = window.model.quality.quality
    top = panel.row_node(0)
    assert q.nodes.epo[top] == pytest.approx(np.nanmax(q.nodes.epo[q.worst("epo", 50)]))
    panel.worst.selectRow(0)
    QApplication.processEvents()
    tree = window.model.frame.trees[0]
    assert window.model.selected_node == (0, top)
    assert window.model.level == int(tree.depth[top])  # the level slider follows
    assert window.renderer.cell_count("node_highlight") == 12  # its box: 12 edges
    assert window.renderer.cell_count("node_triangles") == int(tree.n_prims[top])
    highlight = window.renderer.polys["node_highlight"]
    pose = window.model.frame.poses[0].as_matrix()
    corners = np.array([tree.bmin[top], tree.bmax[top]]) @ pose[:3, :3].T + pose[:3, 3]
    np.testing.assert_allclose(highlight.bounds[::2], corners.min(axis=0), atol=1e-9)
    np.testing.assert_allclose(highlight.bounds[1::2], corners.max(axis=0), atol=1e-9)
    assert _node_pixels(window) > 50  # drawn, in its own colour
    assert f"violet: node {top} of A (depth {int(tree.depth[top])}" in \
        window.renderer.note.GetText(0)
    # The outliner follows the same selection.
    outliner = window.docks["outliner_dock"].panel
    assert outliner.items.node_of(outliner.view.currentIndex()) == (0, top)
    # Esc-like clearing from the model clears the highlight.
    window.model.select_node(None)
    settle(qtbot, window)
    assert window.renderer.cell_count("node_highlight") == 0


def test_the_highlight_and_the_violation_red_stand_apart_for_every_colour_vision():
    on_screen = [TREE_A_COLOR, TREE_B_COLOR, OVERLAP_COLOR, CULLED_COLOR, SEGMENT_COLOR,
                 INSPECT_COLOR, BRUSH_COLOR, PARTITION_COLOR, DISTANCE_COLOR, BACKGROUND,
                 COLOR_A, COLOR_B, VIOLATION_COLOR]
    contacts = ["#{:02x}{:02x}{:02x}".format(*rgb) for rgb in KIND_COLORS.values()]
    on_screen += contacts

    def worst(colour, others):
        return min(float(delta_e(simulate(hex_rgb(colour), v), simulate(hex_rgb(o), v)))
                   for v in VISIONS for o in others)

    assert worst(NODE_COLOR, on_screen) >= 25
    assert worst(VIOLATION_COLOR, contacts + [DISTANCE_COLOR, OVERLAP_COLOR]) >= 18


def test_while_playing_measuring_takes_at_most_its_share_of_the_time(qtbot, window):
    from viewer.control.pacing import PLAYING_SHARE

    open_quality_dock(qtbot, window)
    controller = window.controller
    # As if the last measurement had just started and taken 2 s: while playing, the next one
    # may start only 2 s / share after it, whatever the frames do meanwhile.
    pace = controller.inspector.quality_pace
    pace.start()
    pace.finish(2.0)
    window.model.set_playing(True)
    try:
        window.model.set_quality(None)  # as if a new frame's tree were waiting to be measured
        controller.inspector.request_quality()
        assert controller.inspector._quality_running is None
        assert pace.timer.isActive()
        assert pace.timer.remainingTime() > 1000 * (2.0 / PLAYING_SHARE - 2.0)
    finally:
        window.model.set_playing(False)


def test_the_worst_nodes_are_listed_worst_first_by_the_chosen_measure(qtbot, window):
    from viewer.qt.panels.quality import METRIC_COLUMNS

    panel = open_quality_dock(qtbot, window)
    q = window.model.quality.quality
    for index in range(panel.metric.count()):
        panel.metric.setCurrentIndex(index)
        metric = panel.metric.currentData()
        column = METRIC_COLUMNS[metric]
        assert WORST_COLUMNS_WORDS[metric] == panel.worst.horizontalHeaderItem(column).text()
        values = [panel.worst.item(r, column).value for r in range(panel.worst.rowCount())]
        finite = [v for v in values if v == v]
        assert finite == sorted(finite, reverse=True), metric
        if finite:
            top = panel.row_node(0)
            assert getattr(q.nodes, metric)[top] == pytest.approx(finite[0])


WORST_COLUMNS_WORDS = {"sah": "SAH share", "epo": "EPO", "sibling_overlap": "sibling overlap",
                       "volume": "volume"}


def test_histogram_ticks_are_whole_numbers(qtbot):
    # Every leaf of one triangle: one bar at x = 1 (the default ticks read -0.5 ... 1.5).
    plot = HistogramCanvas("leaves by size", "triangles in the leaf", "leaves")
    qtbot.addWidget(plot)
    plot.show_counts(np.array([0, 4711]))
    plot.draw()
    lo, hi = plot.axes.get_xlim()
    shown = [t.get_text() for t, x in zip(plot.axes.get_xticklabels(), plot.axes.get_xticks())
             if lo <= x <= hi]
    assert shown == ["0", "1"]
    assert all("." not in t.get_text() for t in plot.axes.get_yticklabels())


def test_the_worst_nodes_table_reads_from_the_top_when_the_tree_changes(qtbot, window):
    panel = open_quality_dock(qtbot, window)
    panel.tabs.setCurrentIndex(0)
    panel.worst.setFixedHeight(240)  # fewer rows than listed fit: the table scrolls
    QApplication.processEvents()
    bar = panel.worst.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum())
    panel.body_buttons[1].click()  # the tree of B: another list
    qtbot.waitUntil(lambda: window.model.quality.body == 1, timeout=60_000)
    QApplication.processEvents()
    assert bar.value() == 0
    # A new measurement of the same tree (other cost constants) keeps the position.
    bar.setValue(bar.maximum())
    scrolled = bar.value()
    panel.traversal_cost.setValue(2.5)
    qtbot.waitUntil(lambda: window.model.quality.quality.constants.traversal == 2.5,
                    timeout=60_000)
    QApplication.processEvents()
    assert bar.value() == scrolled


def test_status_bar_and_panel_count_every_violation_found_not_only_the_listed(qtbot):
    from core.bvh.validate import ValidationReport, Violation, ViolationKind
    from viewer.control.inspecting import tree_check
    from viewer.model import ViewerModel
    from viewer.qt.panels.quality import QualityPanel

    listed = tuple(Violation(n, ViolationKind.CHILD_OUTSIDE, 0.5 / n,
                             f"node {n} (depth 3): child {2 * n + 1} sticks out by "
                             f"{0.5 / n:.4g} along -z", child=2 * n + 1, axis="-z")
                   for n in (3, 4))
    # The check lists the largest violations only (1,000 by default): here 2 of 1,500.
    report = ValidationReport(listed, 4095, 0.01, n_found=1500)
    check = tree_check([report], None, {0: np.arange(4095)[::-1]})
    model = ViewerModel()
    panel = QualityPanel(model)
    qtbot.addWidget(panel)
    model.set_validation(check)
    assert check.status().startswith("tree of A: 1,500 violations")
    assert "tree of A: 1,500 violations in 2 nodes (the 2 largest listed)" in \
        panel.check_note.text()
    assert panel.violations.rowCount() == 2
    # The child and the axis of each line, the child by the file's id (4094 - ours).
    assert [panel.violations.item(0, c).text() for c in (1, 2, 3)] == \
        ["4091 (BVH Lab's 3)", "child 4087", "-z"]



def test_a_chart_deleted_while_it_draws_raises_nothing(qtbot, monkeypatch):
    # Its window closed during the idle draw: update() on the deleted widget raised and
    # matplotlib printed the traceback into the test log.
    from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
    from PyQt6 import sip

    def draw_then_gone(self):
        sip.delete(self)
        self.update()  # what matplotlib's Qt draw does last

    gone = HistogramCanvas("depths", "depth", "nodes")
    monkeypatch.setattr(FigureCanvasQTAgg, "draw", draw_then_gone)
    gone.draw()
    kept = HistogramCanvas("depths", "depth", "nodes")
    qtbot.addWidget(kept)

    def fails(self):
        raise RuntimeError("another failure")

    monkeypatch.setattr(FigureCanvasQTAgg, "draw", fails)
    try:
        with pytest.raises(RuntimeError, match="another failure"):
            kept.draw()  # only a deleted chart's error is dropped
    finally:
        # The chart's own idle draw, still queued, must not meet the failing draw (it
        # printed a traceback into the full run's log).
        monkeypatch.undo()


def test_a_hidden_chart_is_drawn_only_once_it_shows(qtbot, window):
    # The Quality dock starts in a tab behind another: its charts wait (matplotlib drew
    # them for nobody, about 100 ms each, in every new window).
    charts = window.docks["quality_dock"].findChildren(HistogramCanvas)
    assert len(charts) == 2
    assert not any(chart.isVisible() for chart in charts)
    assert [chart.n_renders for chart in charts] == [0, 0]
    assert [chart.figure.axes for chart in charts] == [[], []]  # not even made yet
    panel = open_quality_dock(qtbot, window)
    panel.tabs.setCurrentWidget(charts[0].parentWidget())
    qtbot.waitUntil(lambda: charts[0].isVisible() and charts[0].n_renders >= 1,
                    timeout=60_000)
