"""The Quality dock: one tree's quality totals, depth and leaf-size histograms, its worst
nodes, and the invariant check's violations.

The numbers come from the controller (``model.quality``, computed off the GUI thread); this
panel only writes the model: the body measured, the cost constants, the selected node.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from PyQt6 import sip
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from viewer.qt.panels.common import header_label, show_header, tree_words, wrap_label
from viewer.render.words import ids_text, node_label, shown_node_id

WORST_LISTED = 50
"""Nodes listed in the worst-nodes table."""

BODY_NAMES = ("A", "B")

METRIC_WORDS = {
    "sah": "SAH share (cost of the node)",
    "epo": "EPO (foreign triangle area inside)",
    "sibling_overlap": "sibling overlap (children's shared volume)",
    "volume": "volume",
}
"""The metrics the worst-nodes table can rank by, in words (keys of ``TreeQuality.METRICS``)."""

METRIC_TIPS = {
    "sah": "The node's term of the SAH cost (MacDonald and Booth 1990): its surface area "
           "relative to the root's, times C_t (internal) or C_i times its triangles (leaf)",
    "epo": "Effective primitive overlap (Aila, Karras and Laine 2013): area of other "
           "triangles inside the node's volume, relative to the whole surface, times its cost",
    "sibling_overlap": "Volume shared by the node's two children, relative to the node's "
                       "volume (internal nodes)",
    "volume": "Volume of the node's bounding volume",
}

WORST_COLUMNS = ("node", "depth", "triangles", "SAH share", "EPO", "sibling overlap", "volume")

METRIC_COLUMNS = {"sah": 3, "epo": 4, "sibling_overlap": 5, "volume": 6}
"""The worst-nodes table's column of each measure of :data:`METRIC_WORDS`."""

NODE_ROLE = Qt.ItemDataRole.UserRole + 1
"""Item data of every worst-nodes cell: BVH Lab's id of the row's node (the node column
shows and sorts by the file's id for a tree read from a file)."""

VIOLATION_COLUMNS = ("tree", "node", "child / triangle", "axis", "size", "what")
"""The Invariants table's columns; the long words last, so the short ones fit the dock."""

VIOLATION_TIPS = (
    "The body whose tree breaks the invariant",
    "Node id; for a tree read from a file, the file's own id (BVH Lab's beside it)",
    "What sticks out of the node: its child (the file's id for a tree read from a file) or "
    "the triangle of a leaf that sticks out the most",
    "The axis and side it sticks out the most along (+x: past the box's largest x)",
    "How far it sticks out, in mesh units",
    "Which invariant the node breaks (the whole line in the tooltip)",
)

HISTOGRAM_COLOR = "#4477aa"  # Tol blue: plain bars, no meaning beyond "count"


class NumberItem(QTableWidgetItem):
    """A table cell shown as text and sorted by its number (nan sorts last)."""

    def __init__(self, value: float, text: str):
        super().__init__(text)
        self.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.set_number(value, text)

    def set_number(self, value: float, text: str) -> None:
        """Show ``text``, sort by ``value`` (a refresh rewrites the same item in place)."""
        self.value = float(value)
        self.setData(Qt.ItemDataRole.UserRole, self.value)
        if self.text() != text:
            self.setText(text)

    def __lt__(self, other):
        a, b = self.value, getattr(other, "value", math.nan)
        if math.isnan(a):
            return False
        if math.isnan(b):
            return True
        return a < b


def _measure_text(value: float, digits: int = 4) -> str:
    return "—" if value is None or not math.isfinite(float(value)) else f"{float(value):.{digits}g}"


def _share(value: float, total: float) -> str:
    if not math.isfinite(value) or not total:
        return "—"
    return f"{100.0 * value / total:.2f} %"


def _bytes(n: int) -> str:
    return f"{n / 2**20:,.1f} MiB" if n >= 2**20 else f"{n / 2**10:,.1f} KiB"


class HistogramCanvas(FigureCanvasQTAgg):
    """One bar chart with labelled axes (matplotlib, drawn with the QtAgg backend).

    The axes are made and filled when the chart first shows (or :attr:`axes` is read): the
    Quality dock starts in a tab behind another, and its two charts' axes cost about 70 ms
    each in every new window (cProfile of the test suite's window, under load), for a chart
    nobody had looked at yet.
    """

    def __init__(self, title: str, xlabel: str, ylabel: str):
        self.figure = Figure(figsize=(3.6, 2.2), dpi=90, layout="constrained")
        super().__init__(self.figure)
        self._axes = None
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.counts = np.zeros(0, dtype=np.int64)
        self.n_draws = 1  # charts drawn, the empty one first (a test counts them)
        self.n_renders = 0  # times matplotlib drew the figure (a test counts them)
        self._hidden_draw_pending = False
        self._is_chart_stale = True  # the axes do not show self.counts yet
        self.setMinimumHeight(170)

    @property
    def axes(self):
        """The chart's matplotlib axes, made and filled with the counts on first use."""
        if self._is_chart_stale:
            self._fill_chart()
        return self._axes

    def draw_idle(self) -> None:
        """Queue a draw, or, while the chart is hidden (the Quality dock in a tab behind
        another), keep it for when it shows. matplotlib's Qt canvas draws a hidden chart as
        soon as it has a size: two charts of 100 ms each per new window (cProfile of a test
        window), drawn for nobody."""
        if self.isVisible():
            super().draw_idle()
        else:
            self._hidden_draw_pending = True

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._is_chart_stale:
            self._fill_chart()
        if self._hidden_draw_pending:
            self._hidden_draw_pending = False
            super().draw_idle()

    def draw(self) -> None:
        """Draw the chart, unless its widget is gone: a chart whose window closed while its
        idle draw ran raised from ``update()`` ("wrapped C/C++ object of type
        HistogramCanvas has been deleted", printed by matplotlib in the full test run)."""
        try:
            super().draw()
            self.n_renders += 1
        except RuntimeError:
            if not sip.isdeleted(self):
                raise

    def show_counts(self, counts: np.ndarray) -> None:
        """Bars of ``counts`` (``(n,) int``, bar ``j`` at x = j); the same counts again are
        not drawn again: a refit keeps its tree's depths and leaf sizes, and each draw of the
        chart (constrained layout) blocked the GUI thread for about 200 ms while the
        278k-triangle bunny played (cProfile, under load)."""
        counts = np.asarray(counts, dtype=np.int64)
        if np.array_equal(counts, self.counts):
            return
        self.counts = counts
        self.n_draws += 1
        if self.isVisible():
            self._fill_chart()
        else:
            self._is_chart_stale = True

    def _fill_chart(self) -> None:
        self._is_chart_stale = False
        if self._axes is None:
            self._axes = self.figure.add_subplot()
        ax = self._axes
        ax.clear()
        if self.counts.shape[0]:
            ax.bar(np.arange(self.counts.shape[0]), self.counts, width=0.85,
                   color=HISTOGRAM_COLOR)
        ax.set_title(self.title, fontsize=9)
        ax.set_xlabel(self.xlabel, fontsize=8)
        ax.set_ylabel(self.ylabel, fontsize=8)
        ax.tick_params(labelsize=7)
        # Depths, leaf sizes and counts are whole numbers: with one or two bars the default
        # locator put ticks at -0.5, 0.5, 1.5 (a "leaf of 0.5 triangles").
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        self.draw_idle()


class QualityPanel(QWidget):
    """Totals, histograms, worst nodes and violations of one body's tree."""

    def __init__(self, model, controller=None, parent=None):
        super().__init__(parent)
        self.model = model
        self.controller = controller
        self.shown_nodes: list[int] = []  # node ids of the worst-nodes rows, in table order
        self._shown_topology: tuple = ()  # the tree the worst-nodes table lists (see refresh)

        body_row = QHBoxLayout()
        self.body_group = QButtonGroup(self)
        self.body_buttons = []
        for i, name in enumerate(BODY_NAMES):
            button = QRadioButton(f"tree of {name}")
            button.setToolTip(f"Measure the tree of body {name}")
            self.body_group.addButton(button, i)
            self.body_buttons.append(button)
            body_row.addWidget(button)
        self.body_buttons[model.quality_body].setChecked(True)
        body_row.addStretch(1)
        self.body_group.idClicked.connect(self.model.set_quality_body)

        self.traversal_cost = self._cost_box(
            "C_t: cost of one volume test in the SAH (MacDonald and Booth 1990)",
            model.cost_constants[0])
        self.intersection_cost = self._cost_box(
            "C_i: cost of one triangle test in the SAH", model.cost_constants[1])
        costs = QFormLayout()
        costs.addRow("traversal cost C_t", self.traversal_cost)
        costs.addRow("triangle cost C_i", self.intersection_cost)

        self.header = header_label()  # which frame and tree the numbers below are of
        self.header.setText("Not measured yet.")
        self.status = wrap_label(QLabel("Open this panel on a scene to measure its tree."))
        self.status.setToolTip("What the measurement is doing; it runs in the background")
        self.totals = wrap_label(QLabel(""))

        self.depth_plot = HistogramCanvas("leaves by depth", "depth", "leaves")
        self.leaf_plot = HistogramCanvas("leaves by size", "triangles in the leaf", "leaves")
        plots = QWidget()
        plots_layout = QVBoxLayout(plots)
        plots_layout.addWidget(self.depth_plot)
        plots_layout.addWidget(self.leaf_plot)

        self.metric = QComboBox()
        for i, (key, words) in enumerate(METRIC_WORDS.items()):
            self.metric.addItem(words, key)
            self.metric.setItemData(i, METRIC_TIPS[key], Qt.ItemDataRole.ToolTipRole)
        self.metric.setToolTip(f"List the {WORST_LISTED} worst nodes by this measure")
        self.metric.currentIndexChanged.connect(lambda _i: self._fill_worst())
        self.worst = QTableWidget(0, len(WORST_COLUMNS))
        self.worst.setHorizontalHeaderLabels(list(WORST_COLUMNS))
        self.worst.horizontalHeaderItem(0).setToolTip(
            "Node id; for a tree read from a file, the file's own id (BVH Lab's beside it)")
        self.worst.verticalHeader().setVisible(False)
        self.worst.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.worst.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.worst.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self._sorted_metric = None  # the measure the table was last sorted by
        self.worst.setSortingEnabled(True)
        self.worst.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.worst.setToolTip("Click a row to select the node on the canvas and in the "
                              "outliner; click a heading to sort")
        self.worst.setMinimumHeight(220)
        self.worst.itemSelectionChanged.connect(self._on_worst_row)
        worst_page = QWidget()
        worst_layout = QVBoxLayout(worst_page)
        worst_layout.addWidget(self.metric)
        worst_layout.addWidget(self.worst, 1)

        self.check_button = QPushButton("Check invariants now")
        self.check_button.setToolTip("Each node encloses its children and its triangles in "
                                     "the current pose; triangle ids a permutation; topology "
                                     "consistent")
        self.check_button.clicked.connect(self._check)
        self.check_note = wrap_label(QLabel("Not checked yet."))
        self.violations = QTableWidget(0, len(VIOLATION_COLUMNS))
        self.violations.setHorizontalHeaderLabels(list(VIOLATION_COLUMNS))
        for column, tip in enumerate(VIOLATION_TIPS):
            self.violations.horizontalHeaderItem(column).setToolTip(tip)
        self.violations.verticalHeader().setVisible(False)
        self.violations.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.violations.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.violations.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.violations.horizontalHeader().setStretchLastSection(True)
        self.violations.itemSelectionChanged.connect(self._on_violation_row)
        self.violation_rows: list = []
        check_page = QWidget()
        check_layout = QVBoxLayout(check_page)
        self.check_header = header_label()  # which frame and trees were checked
        self.check_header.setText("Not checked yet.")
        check_layout.addWidget(self.check_header)
        check_layout.addWidget(self.check_button)
        check_layout.addWidget(self.check_note)
        check_layout.addWidget(self.violations, 1)

        self.tabs = QTabWidget()
        self.tabs.addTab(worst_page, "Worst nodes")
        self.tabs.addTab(plots, "Histograms")
        self.tabs.addTab(check_page, "Invariants")

        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addLayout(body_row)
        layout.addLayout(costs)
        layout.addWidget(self.status)
        layout.addWidget(self.totals)
        layout.addWidget(self.tabs, 1)

        model.quality_changed.connect(self.refresh)
        model.quality_status_changed.connect(self.status.setText)
        model.validation_changed.connect(self.show_validation)
        model.node_selected.connect(self._select_row)
        model.frame_failed.connect(lambda _f: self._show_headers())

    def _cost_box(self, tip: str, value: float) -> QDoubleSpinBox:
        box = QDoubleSpinBox()
        box.setRange(0.01, 1000.0)
        box.setDecimals(2)
        box.setSingleStep(0.1)
        box.setValue(value)
        box.setToolTip(tip)
        box.setKeyboardTracking(False)  # one measurement per value typed, not per digit
        box.valueChanged.connect(lambda _v: self.model.set_cost_constants(
            self.traversal_cost.value(), self.intersection_cost.value()))
        return box

    # -- headers ----------------------------------------------------------------------------
    def _show_headers(self) -> None:
        """The header lines: the frame and tree the quality was measured on, and the frame
        and trees the invariants were checked on (each with a failed frame's mark)."""
        result = self.model.quality
        if result is None:
            self.header.setText("Not measured yet.")
        else:
            show_header(self.header, self.model, result.frame, [result.body])
        check = self.model.validation
        if check is None:
            self.check_header.setText("Not checked yet.")
        else:
            text = f"Checked: {check.caption}" if check.caption else "Checked."
            failure = self.model.frame_failure
            if failure is not None:
                text += f"\n{failure.text(self.model.frame)}"
            self.check_header.setText(text)

    # -- quality ----------------------------------------------------------------------------
    def refresh(self, result) -> None:
        """Show ``result`` (a controller ``QualityResult``) or clear the panel."""
        self._show_headers()
        for i, button in enumerate(self.body_buttons):
            button.blockSignals(True)
            button.setChecked(i == self.model.quality_body)
            button.blockSignals(False)
        if result is None:
            self.totals.setText("")
            self.depth_plot.show_counts(np.zeros(0))
            self.leaf_plot.show_counts(np.zeros(0))
            self.worst.setRowCount(0)
            self.shown_nodes = []
            self._shown_topology = ()
            return
        self.totals.setText(totals_text(result, self.model))
        q = result.quality
        self.depth_plot.show_counts(q.depth_histogram)
        self.leaf_plot.show_counts(q.leaf_size_histogram)
        self._fill_worst()
        topology = self._topology_of(result)
        previous = self._shown_topology
        if not previous or previous[:2] != topology[:2] or previous[2] is not topology[2]:
            # Another tree (body, file or topology): its worst nodes are a new list, read
            # from the top; a refit of the same tree keeps where the user scrolled to.
            self._shown_topology = topology
            self.worst.scrollToTop()

    def _topology_of(self, result) -> tuple:
        """What makes ``result``'s tree another tree than the one shown: its body, where it
        comes from and its topology (a refit keeps all three)."""
        tree = result.tree
        previous = self._shown_topology
        first = tree.first
        if previous and previous[2] is not first and np.array_equal(previous[2], first):
            first = previous[2]  # the same topology in a new array (a rebuild that agrees)
        return (result.body, self.model.tree_sources.get(result.body), first)

    def _fill_worst(self) -> None:
        result = self.model.quality
        self.worst.setSortingEnabled(False)
        self.worst.blockSignals(True)
        try:
            if result is None:
                self.worst.setRowCount(0)
                self.shown_nodes = []
                return
            q, tree = result.quality, result.tree
            ids = np.asarray(q.worst(self.metric.currentData(), WORST_LISTED), dtype=np.int64)
            nodes = q.nodes
            file_ids = self._file_ids(result)
            self.worst.setRowCount(ids.shape[0])
            for row, node in enumerate(ids):
                node = int(node)
                values = (
                    (shown_node_id(node, file_ids), node_label(node, file_ids)),
                    (int(tree.depth[node]), str(int(tree.depth[node]))),
                    (int(tree.n_prims[node]), f"{int(tree.n_prims[node]):,}"),
                    (float(nodes.sah[node]), _share(float(nodes.sah[node]), float(q.sah))),
                    (float(nodes.epo[node]), _measure_text(nodes.epo[node])),
                    (float(nodes.sibling_overlap[node]),
                     _measure_text(nodes.sibling_overlap[node])),
                    (float(nodes.volume[node]), _measure_text(nodes.volume[node])),
                )
                for col, (value, text) in enumerate(values):
                    item = self.worst.item(row, col)
                    if isinstance(item, NumberItem):
                        item.set_number(value, text)  # in place: no new item per cell
                    else:
                        item = NumberItem(value, text)
                        self.worst.setItem(row, col, item)
                    item.setData(NODE_ROLE, node)
        finally:
            metric = self.metric.currentData()
            if metric != self._sorted_metric:
                # A newly chosen measure lists its worst node first. Sorting on enabling
                # would otherwise follow the header's default, node ids largest first; a
                # column the user clicked since stays as it is until the measure changes.
                self._sorted_metric = metric
                self.worst.horizontalHeader().setSortIndicator(
                    METRIC_COLUMNS[metric], Qt.SortOrder.DescendingOrder)
                self.worst.scrollToTop()
            self.worst.blockSignals(False)
            self.worst.setSortingEnabled(True)
        self.shown_nodes = [self.row_node(r) for r in range(self.worst.rowCount())]
        self._select_row(self.model.selected_node)

    def _file_ids(self, result):
        """``(k,) int64`` file ids of ``result``'s tree when it was read from a file, else
        None (the table then names BVH Lab's ids)."""
        if self.controller is None:
            return None
        return self.controller.inspector.tree_file_ids(result.frame).get(result.body)

    def row_node(self, row: int) -> int:
        """BVH Lab's id of the node in row ``row`` of the worst-nodes table (as sorted now);
        the row names a node of a tree read from a file by the file's id."""
        return int(self.worst.item(row, 0).data(NODE_ROLE))

    def _on_worst_row(self) -> None:
        rows = self.worst.selectionModel().selectedRows()
        result = self.model.quality
        if not rows or result is None:
            return
        node = self.row_node(rows[0].row())
        self.select_node(result.body, node, int(result.tree.depth[node]))

    def select_node(self, body: int, node: int, depth: int | None) -> None:
        """Select ``node`` of ``body`` for every view, and show its depth's level."""
        self.model.select_node(body, node)
        if depth is not None:
            self.model.set_level(depth)

    def _select_row(self, selection) -> None:
        """Follow a selection made elsewhere: select its row if the table lists it."""
        result = self.model.quality
        self.worst.blockSignals(True)
        try:
            self.worst.clearSelection()
            if selection is None or result is None or selection[0] != result.body:
                return
            for row in range(self.worst.rowCount()):
                if self.row_node(row) == selection[1]:
                    self.worst.selectRow(row)
                    break
        finally:
            self.worst.blockSignals(False)

    # -- invariants -------------------------------------------------------------------------
    def _check(self) -> None:
        if self.controller is not None:
            self.controller.inspector.check_invariants()

    def show_validation(self, check) -> None:
        """List a :class:`viewer.state.checks.TreeCheck` (None: not checked)."""
        self._show_headers()
        self.violations.blockSignals(True)
        try:
            if check is None:
                self.check_note.setText("Not checked yet.")
                self.violations.setRowCount(0)
                self.violation_rows = []
                return
            when = ("checked with the frame (after every refit)" if check.is_every_refit
                    else "checked on demand")
            self.check_note.setText("; ".join(check.summaries) + f" ({when}).")
            rows = list(check.violations)
            self.violation_rows = rows
            self.violations.setRowCount(len(rows))
            for row, v in enumerate(rows):
                self.violations.setItem(row, 0, QTableWidgetItem(BODY_NAMES[v.body]))
                self.violations.setItem(row, 1, NumberItem(v.shown_id, _violation_node(v)))
                self.violations.setItem(row, 2, QTableWidgetItem(v.part))
                self.violations.setItem(row, 3, QTableWidgetItem(v.axis))
                self.violations.setItem(row, 4, NumberItem(v.size, _measure_text(v.size)))
                what = QTableWidgetItem(v.what)
                what.setToolTip(v.text)
                self.violations.setItem(row, 5, what)
        finally:
            self.violations.blockSignals(False)
        if check.violations:
            self.tabs.setCurrentIndex(2)

    def _on_violation_row(self) -> None:
        rows = self.violations.selectionModel().selectedRows()
        if not rows:
            return
        v = self.violation_rows[rows[0].row()]
        if v.node >= 0:
            frame = self.model.frame
            depth = None
            if frame is not None and v.body < len(frame.trees) \
                    and v.node < frame.trees[v.body].n_nodes:
                depth = int(frame.trees[v.body].depth[v.node])
            self.select_node(v.body, v.node, depth)


def _violation_node(v) -> str:
    """The node column of a violation row: the shown id, BVH Lab's beside it when they
    differ."""
    return "whole tree" if v.node < 0 else ids_text(v.shown_id, v.node)


def totals_text(result, model) -> str:
    """The totals of a ``QualityResult`` as a few lines of rich text."""
    q = result.quality
    name = model.bodies[result.body].name if result.body < len(model.bodies) else ""
    c = q.constants
    # The measured frame's own tree, not the one pinned now: after a failed frame they
    # differ (the header once named the pinned file over BVH Lab's tree's numbers).
    lines = [
        f"<b>Tree of {BODY_NAMES[result.body]}</b> ({name}), {result.kind_label}, "
        f"{tree_words(result.frame, result.body)}",
        f"SAH cost <b>{q.sah:.4g}</b> (C<sub>t</sub> = {c.traversal:g}, C<sub>i</sub> = "
        f"{c.intersection:g})",
        f"EPO <b>{_measure_text(q.epo)}</b> · mean sibling overlap "
        f"<b>{_measure_text(q.sibling_overlap)}</b>",
        *([f"<i>{q.epo_note}</i>"] if q.epo_note and not math.isfinite(q.epo) else []),
        *([f"<i>{q.sibling_overlap_note}</i>"] if q.sibling_overlap_note
          and not math.isfinite(q.sibling_overlap) else []),
        f"{q.n_nodes:,} nodes, {q.n_leaves:,} leaves, leaf depth {q.depth_min}–{q.depth_max}",
        f"memory {_bytes(q.memory_bytes)} (mesh {_bytes(q.mesh_bytes)})",
    ]
    return "<br>".join(lines)
