"""Tree > Compare two trees…: two trees of the shown body's mesh side by side.

A non-modal window over :mod:`viewer.control.tree_diff`: choose the body and the two trees
(the shown one, a fresh build with the frame's rule, a build with another split rule, a tree
file, or a tree file's topology refitted to the body's mesh as drawn now: ``refit:FILE`` of
``python -m core diff``), Compare, then read what was compared (frame, body, trees; "stale"
once the view shows another frame), the two trees' counts, SAH, EPO and query cost, their
depth and leaf-size histograms, SAH and EPO per level, and the nodes whose boxes differ most.
"Draw" puts one of the two trees in the view: its volumes at the level shown, dashed, and the
nodes that differ most bold (the toggle between the two is the comparison).
"""

from __future__ import annotations

from PyQt6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QDialog,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QTabWidget,
    QVBoxLayout,
)

from viewer.control.tree_diff import BUILT, FRESH, SHOWN
from viewer.qt.panels.common import set_cell, wrap_label
from viewer.qt.widgets import show_kept
from viewer.words.choices import split_choices

STALE_STYLE = "color: #D55E00; font-weight: bold;"
FILE_ENTRY = "tree file…"
REFIT_ENTRY = "tree file, refitted to the shown mesh…"
FILE_PREFIXES = {FILE_ENTRY: "", REFIT_ENTRY: "refit:"}
"""The entries that ask for a file, and the prefix of the spec each makes of its path (as the
command line's ``--tree FILE`` and ``--tree refit:FILE``)."""
SUMMARY_ROWS = (
    ("nodes", lambda t: f"{t['n_nodes']:,}"),
    ("leaves", lambda t: f"{t['n_leaves']:,}"),
    ("depth (shallowest to deepest leaf)", lambda t: f"{t['depth_min']} to {t['depth_max']}"),
    ("SAH cost", lambda t: _diff_number(t["sah"])),
    ("EPO", lambda t: _diff_number(t["epo"])),
    ("query: volume tests", lambda t: f"{t['query']['volume_tests']:,}"),
    ("query: triangle tests", lambda t: f"{t['query']['triangle_tests']:,}"),
    ("query: contacts", lambda t: f"{t['query']['contacts']:,}"),
)
DIFFER_COLUMNS = ("node (tree 1)", "node (tree 2)", "depth 1 / 2", "triangles", "volume 1",
                  "volume 2", "ratio 1 / 2", "corner distance")


def _diff_number(value) -> str:
    return "" if value is None else f"{value:.6g}"


def _diff_table(rows: int, columns) -> QTableWidget:
    table = QTableWidget(rows, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def spec_choices() -> list[tuple[str, str]]:
    """``(label, spec)`` of the trees offered (the file entry's spec is asked for)."""
    rules = [(f"BVH Lab's {label} build", f"build:{name.lower()}")
             for name, label, _tip in split_choices()]
    return [("the shown tree", SHOWN), ("a fresh build (the frame's rule)", FRESH),
            ("the tree as last built (boxes then)", BUILT), *rules,
            *((entry, "") for entry in FILE_PREFIXES)]


class TreeDiffDialog(QDialog):
    """The tree diff of ``controller.tree_diff``."""

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.setWindowTitle("Compare two trees of one mesh")
        self.resize(760, 600)
        self.paths = ["", ""]  # a tree file chosen for tree 1 / tree 2
        layout = QVBoxLayout(self)
        choose = QGridLayout()
        self.body = QComboBox()
        self.body.addItems(["body A", "body B"])
        choose.addWidget(QLabel("Mesh of"), 0, 0)
        choose.addWidget(self.body, 0, 1)
        self.specs = []
        for k, default in enumerate((0, 1)):
            combo = QComboBox()
            for label, spec in spec_choices():
                combo.addItem(label, spec)
            combo.setCurrentIndex(default)
            combo.activated.connect(lambda _i, k=k: self._on_spec(k))
            choose.addWidget(QLabel(f"tree {k + 1}"), 1 + k, 0)
            choose.addWidget(combo, 1 + k, 1)
            self.specs.append(combo)
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip("Run the diff on the shown frame (a worker; Cancel in "
                                       "the progress dialog)")
        self.compare_button.clicked.connect(self.compare)
        choose.addWidget(self.compare_button, 2, 2)
        layout.addLayout(choose)
        self.caption = wrap_label(QLabel("Nothing compared yet."))
        layout.addWidget(self.caption)
        self.stale = wrap_label(QLabel(""))
        self.stale.setStyleSheet(STALE_STYLE)
        layout.addWidget(self.stale)
        draw = QHBoxLayout()
        draw.addWidget(QLabel("Draw in the view:"))
        self.draw_group = QButtonGroup(self)
        self.draw_buttons = []
        for k, words in enumerate(("nothing", "tree 1", "tree 2")):
            button = QRadioButton(words)
            self.draw_group.addButton(button, k)
            draw.addWidget(button)
            self.draw_buttons.append(button)
        self.draw_buttons[0].setChecked(True)
        self.draw_group.idClicked.connect(
            lambda k: controller.tree_diff.set_drawn(None if k == 0 else k - 1))
        draw.addStretch(1)
        layout.addLayout(draw)
        self.tabs = QTabWidget()
        self.summary = _diff_table(len(SUMMARY_ROWS), ("tree 1", "tree 2"))
        self.summary.setVerticalHeaderLabels([words for words, _f in SUMMARY_ROWS])
        self.levels = _diff_table(0, ("SAH tree 1", "SAH tree 2", "EPO tree 1", "EPO tree 2"))
        self.histograms = _diff_table(0, ("leaves at depth: tree 1", "tree 2",
                                     "leaves of size: tree 1", "tree 2"))
        self.differ = _diff_table(0, DIFFER_COLUMNS)
        self.differ.verticalHeader().hide()
        self.differ_note = wrap_label(QLabel(""))
        for table, words in ((self.summary, "Summary"), (self.levels, "SAH / EPO per level"),
                             (self.histograms, "Histograms"), (self.differ, "Differ most")):
            self.tabs.addTab(table, words)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.differ_note)
        controller.tree_diff.on_changed.append(self.refresh)
        model.frame_ready.connect(lambda _f: self._refresh_stale())
        self.refresh()

    def _on_spec(self, k: int) -> None:
        combo = self.specs[k]
        if combo.currentText() not in FILE_PREFIXES:
            return
        what = "to refit" if combo.currentText() == REFIT_ENTRY else "for"
        path, _ = QFileDialog.getOpenFileName(self, f"Tree file {what} tree {k + 1}", "",
                                              "Tree files (*.json *.npz);;All files (*)")
        self.paths[k] = path
        if not path:
            combo.setCurrentIndex(0)

    def spec_of(self, k: int) -> str:
        combo = self.specs[k]
        prefix = FILE_PREFIXES.get(combo.currentText())
        return combo.currentData() if prefix is None else prefix + self.paths[k]

    def choose(self, body: int, first: str, second: str) -> None:
        """Set the body and the two specs (a spec not in the lists is taken as a file;
        ``refit:FILE`` as that file refitted)."""
        self.body.setCurrentIndex(body)
        for k, spec in enumerate((first, second)):
            index = self.specs[k].findData(spec)
            if index < 0:
                is_refit = spec.startswith("refit:")
                index = self.specs[k].findText(REFIT_ENTRY if is_refit else FILE_ENTRY)
                self.paths[k] = spec.removeprefix("refit:")
            self.specs[k].setCurrentIndex(index)

    def compare(self) -> bool:
        return self.controller.tree_diff.compare(self.body.currentIndex(), self.spec_of(0),
                                                 self.spec_of(1))

    def refresh(self) -> None:
        job = self.controller.tree_diff
        result = job.result
        drawn = job.drawn
        self.draw_buttons[0 if drawn is None else drawn + 1].setChecked(True)
        for button in self.draw_buttons[1:]:
            button.setEnabled(result is not None)
        self._refresh_stale()
        if result is None:
            self.caption.setText("Nothing compared yet: choose two trees and Compare.")
            for table in (self.levels, self.histograms, self.differ):
                table.setRowCount(0)
            self.summary.clearContents()
            self.differ_note.setText("")
            return
        report = result.report
        same = "the same contacts" if report["same_contacts"] else (
            "DIFFERENT contacts (a tree whose boxes no longer enclose its triangles, such as "
            "one built before a deformation, misses some: the query uses its boxes as they are)")
        self.caption.setText(
            f"Computed on {result.caption()}. Query: the mesh against a copy of itself moved "
            f"by {report['query_offset']:g} box diagonals along +x; both trees find {same}. "
            f"{report['matched_nodes']:,} nodes hold the same triangles in both trees.")
        trees = report["trees"]
        for r, (_words, cell) in enumerate(SUMMARY_ROWS):
            for c in range(2):
                set_cell(self.summary, r, c, cell(trees[c]))
        per_level = [trees[0]["sah_per_level"], trees[1]["sah_per_level"],
                     trees[0]["epo_per_level"], trees[1]["epo_per_level"]]
        self._columns(self.levels, per_level, _diff_number, "depth")
        histograms = [trees[0]["depth_histogram"], trees[1]["depth_histogram"],
                      trees[0]["leaf_size_histogram"], trees[1]["leaf_size_histogram"]]
        self._columns(self.histograms, histograms, lambda v: f"{v:,}", "")
        rows = report["differ_most"]
        self.differ_note.setText(
            f"Differ most: the {len(rows)} nodes (matched by the triangles they hold) whose box "
            "corners moved most between the two trees; drawn bold with the tree." if rows else
            "Differ most: no node's box differs between the two trees (a node holding the same "
            "triangles has the same box when both are fitted to the same vertices: compare the "
            "shown tree with the tree as last built to see what a refit grew).")
        self.differ.setRowCount(len(rows))
        for r, row in enumerate(rows):
            ratio = row["volume_ratio"]
            cells = (str(row["node_first"]), str(row["node_second"]),
                     f"{row['depth_first']} / {row['depth_second']}", f"{row['triangles']:,}",
                     _diff_number(row["volume_first"]), _diff_number(row["volume_second"]),
                     "" if ratio is None else f"{ratio:.3g}", _diff_number(row["corner_distance"]))
            for c, text in enumerate(cells):
                set_cell(self.differ, r, c, text)

    @staticmethod
    def _columns(table: QTableWidget, columns, fmt, row_words: str) -> None:
        n = max(len(column) for column in columns)
        table.setRowCount(n)
        table.setVerticalHeaderLabels([f"{row_words} {d}".strip() for d in range(n)])
        for c, column in enumerate(columns):
            for r in range(n):
                set_cell(table, r, c, fmt(column[r]) if r < len(column)
                         and column[r] is not None else "")

    def _refresh_stale(self) -> None:
        job = self.controller.tree_diff
        if job.is_stale():
            self.stale.setText(f"Stale: computed on frame {job.result.frame_index}; the view "
                               f"shows frame {self.model.frame.index}. Compare again for it.")
        else:
            self.stale.setText("")


class TreeDiffMenu:
    """Answers Tree > Compare two trees… of ``window``; the dialog is made on first use."""

    def __init__(self, window):
        self.window, self.model, self.controller = window, window.model, window.controller
        self.dialog: TreeDiffDialog | None = None
        # A new result, or the other tree drawn: the view draws it now.
        self.controller.tree_diff.on_changed.append(window.request_redraw)

    def open_dialog(self) -> TreeDiffDialog:
        return show_kept(self, "dialog",
                         lambda: TreeDiffDialog(self.model, self.controller, self.window))
