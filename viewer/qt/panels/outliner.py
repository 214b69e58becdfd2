"""The Outliner dock: each shown tree as a Qt tree view, read lazily from the frame's arrays.

The item model makes no item objects: an index is ``(row, column, node * 2 + body)``, and a
node's children, parent and row come from the flat arrays (``first``, ``count``,
``parent``) when Qt asks, so the view opens at once on a 500k-triangle tree (1M nodes) and
only the rows of expanded nodes are ever touched. Selecting a row selects the node in the
model (the canvas and the Quality panel follow) and moves the level slider to its depth; a
node selected elsewhere (a click on the canvas, a row of the Quality panel) is revealed here,
its ancestors expanded.
"""

from __future__ import annotations

import numpy as np
from PyQt6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from viewer.qt.panels.common import (
    WhenShown,
    header_label,
    set_cell,
    show_header,
    tree_words,
    wrap_label,
)
from viewer.render.words import node_label, shown_node_id

PARTNERS_LISTED = 4
"""Partner ids listed in the "partners this frame" column; the rest are counted."""

BODY_NAMES = ("A", "B")

PATH_COLUMNS = ("node", "depth", "triangles", "SAH term", "sibling overlap", "volume")
"""The columns of the path table (core.bvh.diagnosis.node_row's measures)."""

WORST_LISTED = 3
"""Worst nodes whose reasons the outliner lists under the path (the rest are counted)."""

SEARCH_ERROR_STYLE = "color: #D55E00;"


def _shown_trace(frame):
    """The trace of the shown collision result (bodies 0 and 1, or one body against itself)."""
    if frame is None:
        return None
    result = frame.shown_result()
    return None if result is None else result.trace


class _Partners:
    """Which nodes of the other tree each node was tested against in one frame's trace.

    The trace's node columns are sorted once per body (lazily, on the first question: a
    500k-triangle frame traces millions of pairs), then each node's partners are one
    ``searchsorted`` away.
    """

    def __init__(self, trace, is_self: bool):
        self.trace = trace
        self.is_self = is_self
        self._sorted: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _column(self, body: int) -> tuple[np.ndarray, np.ndarray]:
        if body not in self._sorted:
            node_a, node_b = np.asarray(self.trace.node_a), np.asarray(self.trace.node_b)
            if self.is_self:
                mine = np.concatenate([node_a, node_b])
                other = np.concatenate([node_b, node_a])
            else:
                mine, other = (node_a, node_b) if body == 0 else (node_b, node_a)
            order = np.argsort(mine, kind="stable")
            self._sorted[body] = (mine[order], other[order])
        return self._sorted[body]

    def of(self, body: int, node: int) -> np.ndarray:
        """``(p,) int32`` partner node ids of ``node`` (trace order; a partner may repeat)."""
        mine, other = self._column(body)
        lo, hi = np.searchsorted(mine, node, "left"), np.searchsorted(mine, node, "right")
        return other[lo:hi]


def partners_text(partners: np.ndarray, file_ids=None) -> str:
    """"3: 17, 18, 40" (count, then the first :data:`PARTNERS_LISTED` distinct ids; the
    file's ids when the other tree was read from a file, ``file_ids`` ``(k,) int64``)."""
    if partners.shape[0] == 0:
        return ""
    ids = list(dict.fromkeys(shown_node_id(p, file_ids) for p in partners))
    listed = ", ".join(str(i) for i in ids[:PARTNERS_LISTED])
    more = " …" if len(ids) > PARTNERS_LISTED else ""
    return f"{len(ids)}: {listed}{more}"


class TreeItemModel(QAbstractItemModel):
    """The frame's trees as a Qt item model; top-level rows are the trees' roots.

    Attributes
    ----------
    touched : set of int
        Every node an index was made for (how lazy the model is; the outliner's test reads
        it).
    """

    COLUMNS = ("node", "depth", "triangles", "volume", "SAH share", "partners this frame")
    TIPS = (
        "Node id in the tree (for a tree read from a file: the file's id, BVH Lab's in "
        "brackets)",
        "Depth in the tree (the root is at 0)",
        "Triangles under the node",
        "Volume of the node's bounding volume (the Quality panel's kind once computed, else "
        "the tree's own box)",
        "The node's share of the tree's SAH cost (blank until the Quality panel computed it "
        "for this tree)",
        "Nodes of the other tree this node was tested against in the shown frame's traversal: "
        "how many, then the first few ids (a tree read from a file: the file's ids)",
    )

    def __init__(self, parent=None):
        super().__init__(parent)
        self.frame = None
        self.trees: list = []
        self.names: list[str] = []
        self.file_ids: dict[int, np.ndarray] = {}
        self.quality = None  # QualityResult of one body, or None
        self._partners: _Partners | None = None
        self.touched: set[int] = set()

    # -- data in ----------------------------------------------------------------------------
    def set_frame(self, frame, names, file_ids=None) -> None:
        """Show ``frame``'s trees. The same topology (a refit) keeps the view's expansion and
        only updates the values; a new topology resets the view."""
        trees = list(frame.trees[:2]) if frame is not None else []
        is_same = (len(trees) == len(self.trees) and all(
            a.n_nodes == b.n_nodes and (a.first is b.first or np.array_equal(a.first, b.first))
            for a, b in zip(trees, self.trees)))
        trace = _shown_trace(frame)
        is_self = frame is not None and len(frame.trees) == 1
        self._partners = None if trace is None else _Partners(trace, is_self)
        self.frame = frame
        self.names = list(names)
        self.file_ids = dict(file_ids or {})
        if is_same and trees:
            self.trees = trees
            self._values_changed()
            return
        self.beginResetModel()
        self.trees = trees
        self.touched = set()
        self.endResetModel()

    def set_quality(self, quality) -> None:
        self.quality = quality
        self._values_changed()

    def _values_changed(self) -> None:
        for body in range(len(self.trees)):
            top = self.index(body, 0)
            self.dataChanged.emit(top, top.siblingAtColumn(len(self.COLUMNS) - 1))
        # The rows below are repainted by the view (OutlinerPanel updates its viewport): a
        # dataChanged per expanded node would walk the expansion.

    # -- the index scheme -------------------------------------------------------------------
    @staticmethod
    def node_of(index: QModelIndex) -> tuple[int, int]:
        """``(body, node)`` of a valid index."""
        key = int(index.internalId())
        return key & 1, key >> 1

    def index_of(self, body: int, node: int, column: int = 0) -> QModelIndex:
        """The index of ``node`` of body ``body``'s tree (invalid if there is none)."""
        if body >= len(self.trees) or not 0 <= node < self.trees[body].n_nodes:
            return QModelIndex()
        tree = self.trees[body]
        parent = int(tree.parent[node])
        row = body if parent < 0 else node - int(tree.first[parent])
        self.touched.add(node)
        return self.createIndex(row, column, node * 2 + body)

    def index(self, row, column, parent=QModelIndex()):  # noqa: B008 - Qt's signature
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        if not parent.isValid():
            self.touched.add(0)
            return self.createIndex(row, column, 0 * 2 + row)
        body, node = self.node_of(parent)
        child = int(self.trees[body].first[node]) + row
        self.touched.add(child)
        return self.createIndex(row, column, child * 2 + body)

    def parent(self, index=None):
        if index is None:  # QObject.parent()
            return super().parent()
        if not index.isValid():
            return QModelIndex()
        body, node = self.node_of(index)
        if node == 0:
            return QModelIndex()
        return self.index_of(body, int(self.trees[body].parent[node]))

    def rowCount(self, parent=QModelIndex()):  # noqa: N802, B008 - Qt API
        if not parent.isValid():
            return len(self.trees)
        if parent.column() > 0:
            return 0
        body, node = self.node_of(parent)
        return 0 if int(self.trees[body].count[node]) > 0 else 2

    def hasChildren(self, parent=QModelIndex()):  # noqa: N802, B008 - Qt API
        return self.rowCount(parent) > 0

    def columnCount(self, parent=QModelIndex()):  # noqa: N802, B008 - Qt API
        return len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.TIPS[section]
        return None

    # -- values -----------------------------------------------------------------------------
    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        body, node = self.node_of(index)
        column = index.column()
        if role == Qt.ItemDataRole.TextAlignmentRole and column > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and column == 0 and node == 0:
            return f"the root of {self.names[body] if body < len(self.names) else ''}"
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        return self.cell_text(body, node, column)

    def cell_text(self, body: int, node: int, column: int) -> str:
        """What column ``column`` shows for ``node`` of body ``body``."""
        tree = self.trees[body]
        if column == 0:
            text = node_label(node, self.file_ids.get(body))
            if node == 0:
                name = self.names[body] if body < len(self.names) else ""
                text = f"{BODY_NAMES[body]} {name}: root {text}"
            elif int(tree.count[node]) > 0:
                text += " (leaf)"
            return text
        if column == 1:
            return str(int(tree.depth[node]))
        if column == 2:
            return f"{int(tree.n_prims[node]):,}"
        quality = self._quality_of(body)
        if column == 3:
            if quality is not None:
                return f"{float(quality.quality.nodes.volume[node]):.4g}"
            side = np.asarray(tree.bmax[node]) - np.asarray(tree.bmin[node])
            return f"{float(np.prod(np.maximum(side, 0.0))):.4g}"
        if column == 4:
            if quality is None or not quality.quality.sah:
                return ""
            share = float(quality.quality.nodes.sah[node]) / float(quality.quality.sah)
            return f"{100.0 * share:.2f} %"
        if column == 5:
            if self._partners is None:
                return ""
            other = body if self._partners.is_self else 1 - body
            return partners_text(self._partners.of(body, node), self.file_ids.get(other))
        return ""

    def _quality_of(self, body: int):
        quality = self.quality
        if (quality is None or quality.body != body or body >= len(self.trees)
                or quality.tree.n_nodes != self.trees[body].n_nodes):
            return None
        return quality


class OutlinerPanel(QWidget):
    """The outliner: a :class:`QTreeView` over :class:`TreeItemModel`."""

    def __init__(self, model, controller=None, parent=None):
        super().__init__(parent)
        self.model = model
        self.controller = controller
        self.items = TreeItemModel(self)
        self.view = QTreeView()
        self.view.setModel(self.items)
        self.view.setUniformRowHeights(True)  # no per-row size query: fast on deep trees
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setAlternatingRowColors(True)
        self.view.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.view.setToolTip("Each tree node by node: expand a node to see its two children. "
                             "Selecting a row selects the node on the canvas; clicking a "
                             "volume on the canvas finds it here.")
        self.view.setMinimumHeight(260)
        self.header = header_label()  # which frame and trees the rows are of
        self.note = wrap_label(QLabel("No frame yet."))
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.note)
        layout.addLayout(self._search_row())
        self.search_error = wrap_label(QLabel(""))
        self.search_error.setStyleSheet(SEARCH_ERROR_STYLE)
        self.search_error.hide()
        layout.addWidget(self.search_error)
        layout.addWidget(self.view, 1)
        self.path_caption = wrap_label(QLabel("Select a node (or search one) to see its path "
                                              "to the root."))
        self.path_table = QTableWidget(0, len(PATH_COLUMNS))
        self.path_table.setHorizontalHeaderLabels(PATH_COLUMNS)
        self.path_table.verticalHeader().hide()
        self.path_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.path_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.path_table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.path_table.setToolTip("The selected node (first row), its parent, ... the root, "
                                   "each with its SAH term (its share of the expected query "
                                   "cost), how much its children overlap (share of its "
                                   "volume) and its volume. Click a row to select that node.")
        self.path_table.setMinimumHeight(120)
        # Rows as tall as the text: the path of a deep leaf is twenty rows.
        self.path_table.verticalHeader().setDefaultSectionSize(
            self.path_table.fontMetrics().height() + 6)
        self.path_table.cellClicked.connect(self._on_path_row)
        self.why_label = wrap_label(QLabel(""))
        self.worst_label = wrap_label(QLabel(""))
        self.worst_label.setToolTip("The tree's worst nodes by SAH term, sibling overlap and "
                                    "volume, and why each is bad (core.bvh.diagnosis)")
        for widget in (self.path_caption, self.path_table, self.why_label, self.worst_label):
            layout.addWidget(widget)
        self.path = None  # the NodePath shown
        self._path_asked = None  # (frame index, body, node) of the path last asked for
        self._is_syncing = False
        self.view.selectionModel().currentRowChanged.connect(self._on_current)
        self.frame_refresh = WhenShown(self, model, self.refresh)
        model.frame_ready.connect(self.frame_refresh)
        model.node_selected.connect(self.reveal)
        model.quality_changed.connect(self._on_quality)
        model.tree_sources_changed.connect(lambda: self.refresh(self.model.frame))
        model.frame_failed.connect(lambda _f: show_header(self.header, self.model,
                                                          self.items.frame))
        model.node_selected.connect(self._request_path)
        model.playing_changed.connect(self._on_playing_changed)

    # -- search and path ---------------------------------------------------------------------
    def _search_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.search_body = QComboBox()
        for i, name in enumerate(BODY_NAMES):
            self.search_body.addItem(f"tree {name}")
            self.search_body.setItemData(i, f"Search the tree of body {name}",
                                         Qt.ItemDataRole.ToolTipRole)
        self.search_body.setToolTip("Which tree to search")
        self.search_field = QLineEdit()
        self.search_field.setPlaceholderText("node id, #our id, or t triangle")
        self.search_field.setToolTip(
            "Find a node: its id (for a tree read from a file, the file's id), #id for BVH "
            "Lab's id, or t 120 for the leaf that holds triangle 120. Enter selects it.")
        self.search_field.returnPressed.connect(self.find)
        self.search_button = QPushButton("Find")
        self.search_button.clicked.connect(self.find)
        row.addWidget(self.search_body)
        row.addWidget(self.search_field, 1)
        row.addWidget(self.search_button)
        return row

    def find(self, text: str | None = None, body: int | None = None) -> int | None:
        """Search the field's text (or ``text``) in tree ``body`` (default: the combo's) and
        select the node found; a failed search says why in one line under the field."""
        if text is not None:
            self.search_field.setText(text)
        if body is not None:
            self.search_body.setCurrentIndex(body)
        if self.controller is None:
            return None
        node, error = self.controller.nodes.search(self.search_body.currentIndex(),
                                                   self.search_field.text())
        self.search_error.setText(error)
        self.search_error.setVisible(bool(error))
        return node

    def _request_path(self, selection) -> None:
        # Measured only where it is read: a click on the canvas with the outliner hidden
        # would measure a whole tree for nothing.
        if selection is None:
            # Another scene, or the selection cleared: the path shown is no longer of it.
            self.path, self._path_asked = None, None
            self.path_table.setRowCount(0)
            self.why_label.setText("")
            self.worst_label.setText("")
            self.path_caption.setText("Select a node (or search one) to see its path to the "
                                      "root.")
            return
        if self.controller is None or not self.isVisible():
            return
        frame = self.model.frame
        body, node = selection
        self._path_asked = (frame.index if frame is not None else None, body, node)
        self.path_caption.setText(f"Measuring the path of node "
                                  f"{self._shown_id(body, node)} of {BODY_NAMES[body]}…")
        asked = self._path_asked
        self.controller.nodes.request_path(
            body, node, lambda path, error: self._show_path(path, error, asked))

    def _shown_id(self, body: int, node: int) -> str:
        return str(shown_node_id(node, self.items.file_ids.get(body)))

    def _show_path(self, path, error, asked=None) -> None:
        if asked is not None and asked != self._path_asked:
            # A late answer to an older question: the selection moved on, or another scene
            # came while the path was measured (its lane runs below the GUI's priority).
            return
        if error is not None:
            self.path = None
            self.path_table.setRowCount(0)
            self.path_caption.setText(f"Path not measured: {error}")
            return
        self.path = path
        rows = path.rows
        table = self.path_table
        table.setRowCount(len(rows))
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter

        def number(value, fmt="{:.4g}"):
            return "" if value is None else fmt.format(value)

        for r, row in enumerate(rows):
            kind = "leaf" if row["leaf"] else "node"
            cells = (f"{kind} {row['node']}", str(row["depth"]), f"{row['triangles']:,}",
                     number(row["sah"]), number(row["sibling_overlap"], "{:.1%}"),
                     number(row["volume"]))
            for c, text in enumerate(cells):
                set_cell(table, r, c, text, right if c else None)
        self.path_caption.setText(self.path_caption_text())
        first = rows[0]
        kind = "leaf" if first["leaf"] else "node"
        self.why_label.setText(
            f"Why {kind} {first['node']} is bad: " + "; ".join(path.why) if path.why else
            f"{kind.capitalize()} {first['node']}: none of the diagnosis's reasons applies "
            "(children overlap, long thin triangle, leaf far larger than its sibling, loose "
            "box).")
        worst = [f"node {w['node']} (worst by {w['worst_by'].replace('_', ' ')}): "
                 + "; ".join(w["why"]) for w in path.worst[:WORST_LISTED]]
        more = len(path.worst) - WORST_LISTED
        self.worst_label.setText(
            ("Worst nodes of this tree:\n" + "\n".join(worst)
             + (f"\n({more} more bad nodes)" if more > 0 else "")) if worst
            else "Worst nodes of this tree: no reason to report.")

    def _measure_stale_path(self, frame) -> None:
        """Ask again for the selected node's path when the one asked for is of another frame
        than ``frame``, unless playing (then the path is marked stale instead: a new tree
        every frame)."""
        if (frame is not None and self.model.selected_node is not None
                and self._path_asked is not None and self._path_asked[0] != frame.index
                and not self.model.is_playing):
            self._request_path(self.model.selected_node)  # the new frame's measures

    def _on_playing_changed(self, _is_playing: bool) -> None:
        # Paused after the last frame came while still playing: no frame follows to ask
        # again, so the pause does.
        self._measure_stale_path(self.model.frame)

    def path_caption_text(self) -> str:
        """What the path table was computed on; marked when the view shows another frame."""
        path = self.path
        if path is None:
            return ""
        text = (f"Path of node {path.rows[0]['node']} to the root, {path.caption}; measured "
                f"with {path.kind_label}.")
        frame = self.model.frame
        if frame is not None and frame.index != path.frame_index:
            text += f" Stale: the view shows frame {frame.index}."
        return text

    def _on_path_row(self, row: int, _column: int) -> None:
        path = self.path
        if path is None or self.items.frame is None:
            return
        node = path.node
        tree = self.items.trees[path.body]
        for _ in range(row):
            node = int(tree.parent[node])
        self.model.select_node(path.body, node)

    def refresh(self, frame) -> None:
        names = [b.name for b in self.model.bodies[:2]]
        file_ids = {}
        if self.controller is not None:
            file_ids = self.controller.inspector.tree_file_ids(frame)
        self._is_syncing = True
        try:
            self.items.set_frame(frame, names, file_ids)
        finally:
            self._is_syncing = False
        self.view.viewport().update()
        show_header(self.header, self.model, frame)
        if frame is None:
            self.note.setText("No frame yet.")
            return
        parts = []
        for body, tree in enumerate(self.items.trees):
            # The frame's own tree, not the one pinned now: a failed frame leaves an older
            # frame (and its tree) on screen.
            parts.append(f"{BODY_NAMES[body]}: {tree.n_nodes:,} nodes, "
                         f"{tree_words(frame, body)}")
        self.note.setText("; ".join(parts) + ". Partners: the pairs of the shown frame.")
        if self.model.selected_node is not None:
            self.reveal(self.model.selected_node)
            self._measure_stale_path(frame)
        if self.path is not None:
            self.path_caption.setText(self.path_caption_text())

    def _on_quality(self, quality) -> None:
        self.items.set_quality(quality)
        self.view.viewport().update()

    def _on_current(self, current: QModelIndex, _previous) -> None:
        if self._is_syncing or not current.isValid():
            return
        body, node = self.items.node_of(current)
        self.model.select_node(body, node)
        # As a row of the Quality panel does: the level slider moves to the node's depth.
        self.model.set_level(int(self.items.trees[body].depth[node]))

    def reveal(self, selection) -> None:
        """Expand the ancestors of the selected node, scroll to it and select its row."""
        self._is_syncing = True
        try:
            if selection is None:
                self.view.selectionModel().clearSelection()
                return
            body, node = selection
            index = self.items.index_of(body, node)
            if not index.isValid():
                return
            tree = self.items.trees[body]
            chain = []
            parent = int(tree.parent[node])
            while parent >= 0:
                chain.append(parent)
                parent = int(tree.parent[parent])
            for ancestor in reversed(chain):
                self.view.expand(self.items.index_of(body, ancestor))
            self.view.selectionModel().setCurrentIndex(
                index, self.view.selectionModel().SelectionFlag.ClearAndSelect
                | self.view.selectionModel().SelectionFlag.Rows)
            self.view.scrollTo(index)
        finally:
            self._is_syncing = False
