"""The Tree menu and what it ties together in the window: the Quality and Outliner docks,
the invariant check, trees read from and written to files, the selected node on the canvas.

The window owns one :class:`TreeTools`; it answers the menu (rows ``tree.*`` of
:data:`viewer.words.actions.ACTIONS`), keeps the status-bar line of the
last invariant check, and redraws the inspection overlays when the selection or the check
changes.
"""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtCore import QObject
from PyQt6.QtGui import QAction
from PyQt6.QtWidgets import QFileDialog, QLabel

from viewer.qt.menus.build import actions_under
from viewer.words.actions import TREE, shortcut_of

BODY_NAMES = ("A", "B")

# Any file is read by its content (core.bvh.tree_formats); the filters only help find them.
TREE_OPEN_FILTER = ("Tree files (*.json *.npz *.txt *.xml *.bin *.3mbvh);;"
                    "BVH Lab trees (*.json *.npz);;coal BVHModel archives (*.txt *.xml *.bin);;"
                    "three-mesh-bvh trees (*.json *.3mbvh);;All files (*)")
TREE_SAVE_FILTERS = {"JSON tree (*.json)": ".json", "NumPy archive tree (*.npz)": ".npz"}

SHORTCUTS = {key: shortcut_of(f"tree.{key}") for key in ("quality", "outliner", "check")}
"""The Tree menu's keys (rows of :data:`viewer.words.actions.ACTIONS`, where a test checks that
every key is unique)."""

SETTING_VALIDATE = "tree/validate_after_refit"


class TreeTools(QObject):
    """The Tree menu of ``window`` (a :class:`viewer.qt.main_window.MainWindow`)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.model, self.controller = window.model, window.controller
        self.actions: dict[str, QAction] = {}
        self.validation_label = QLabel("")
        self.validation_label.setToolTip("The last invariant check of the trees (Tree > Check "
                                         "tree invariants); the violations are listed in the "
                                         "Quality panel and drawn in dark red")
        window.statusBar().addPermanentWidget(self.validation_label)
        self.model.validation_changed.connect(self._on_validation)
        self.model.node_selected.connect(lambda _s: window.redraw())
        self.model.tree_sources_changed.connect(self._sync_actions)
        self.model.scene_changed.connect(self._sync_actions)
        quality_dock = window.docks["quality_dock"]
        quality_dock.visibilityChanged.connect(self.controller.inspector.set_quality_on)

    # -- menu -------------------------------------------------------------------------------
    def bind_actions(self) -> None:
        """Take the Tree menu's actions (rows ``tree.*`` of the action table, made and placed
        by :func:`viewer.qt.menus.build.build_menus`) and follow the docks and the setting."""
        w = self.window
        self.actions = actions_under(w.table_actions, "tree")
        self.menu = w.menus[TREE]
        for key in ("quality", "outliner"):
            w.docks[f"{key}_dock"].visibilityChanged.connect(self.actions[key].setChecked)
        every = self.actions["every_refit"]
        every.setChecked(str(w.settings.value(SETTING_VALIDATE, "false")).lower() == "true")
        if every.isChecked():
            self.controller.inspector.set_validate_after_refit(True)
        self._sync_actions()

    def _sync_actions(self) -> None:
        if not self.actions:
            return
        n = len(self.model.bodies)
        for body in range(2):
            self.actions[f"open_{body}"].setEnabled(body < n)
            self.actions[f"save_{body}"].setEnabled(body < n)
            self.actions[f"own_{body}"].setEnabled(body in self.model.tree_sources)

    # -- actions ----------------------------------------------------------------------------
    def toggle_dock(self, name: str) -> None:
        """Bring dock ``name`` to the front; hide it if it already is. (Qt's own toggle hid a
        dock that was open but behind another tab, which looked like doing nothing.)"""
        dock = self.window.docks[name]
        if dock.isVisible() and not dock.visibleRegion().isEmpty():
            dock.close()
        else:
            dock.show()
            dock.raise_()
        self.actions[name.removesuffix("_dock")].setChecked(dock.isVisible())

    def check_invariants(self) -> None:
        self.window.docks["quality_dock"].show()
        self.window.docks["quality_dock"].raise_()
        self.controller.inspector.check_invariants()

    def set_validate_after_refit(self, is_on: bool) -> None:
        self.window.settings.setValue(SETTING_VALIDATE, bool(is_on))
        self.controller.inspector.set_validate_after_refit(bool(is_on))
        self.window.statusBar().showMessage(
            "Every refitted or rebuilt tree is checked with its frame" if is_on else
            "Trees are checked only on demand (Tree > Check tree invariants)", 5000)

    def _start_dir(self) -> str:
        return str(self.window.settings.value("last_tree_dir", str(Path.home())))

    def open_tree_file(self, body: int, path: str | None = None) -> bool:
        """Tree > Open tree file for body A/B…: ask for a file, then read and check it in a
        worker thread and use it. With ``path`` (scripts, tests) it is read at once and the
        return value says whether it is in use; from the dialog, whether reading started."""
        if path:
            self.window.settings.setValue("last_tree_dir", str(Path(path).parent))
            is_open = self.controller.inspector.open_tree_file(body, path)
            self._after_open(is_open)
            return is_open
        path, _ = QFileDialog.getOpenFileName(
            self.window, f"Open a tree for body {BODY_NAMES[body]}", self._start_dir(),
            TREE_OPEN_FILTER)
        if not path:
            return False
        self.window.settings.setValue("last_tree_dir", str(Path(path).parent))
        return self.controller.inspector.open_tree_file_async(body, path, self._after_open)

    def _after_open(self, is_open: bool) -> None:
        if is_open:
            self.window.docks["quality_dock"].show()
            self.window.docks["quality_dock"].raise_()

    def save_tree_file(self, body: int, path: str | None = None) -> bool:
        """Tree > Save tree of body A/B…: JSON or NPZ by the chosen filter, written in a
        worker thread. With ``path`` (scripts, tests; the suffix picks the format) it is
        written at once and the return value says whether it was saved; from the dialog,
        whether writing started."""
        if path:
            self.window.settings.setValue("last_tree_dir", str(Path(path).parent))
            return self.controller.inspector.save_tree_file(body, path)
        name = self.model.bodies[body].name if body < len(self.model.bodies) else "tree"
        start = str(Path(self._start_dir()) / f"{name}-tree.json")
        path, chosen = QFileDialog.getSaveFileName(
            self.window, f"Save the tree of body {BODY_NAMES[body]}", start,
            ";;".join(TREE_SAVE_FILTERS))
        if not path:
            return False
        if Path(path).suffix.lower() not in TREE_SAVE_FILTERS.values():
            path += TREE_SAVE_FILTERS.get(chosen, ".json")
        self.window.settings.setValue("last_tree_dir", str(Path(path).parent))
        return self.controller.inspector.save_tree_file_async(body, path)

    # -- status -----------------------------------------------------------------------------
    def _on_validation(self, check) -> None:
        text = check.status() if check is not None else ""
        self.validation_label.setText(text)
        self.validation_label.setStyleSheet("color: #b00000;" if check is not None
                                            and check.violations else "")
        self.window.redraw()

    def violation_nodes(self) -> dict | None:
        """Per body, the node ids of the last check's violations (None: nothing to draw)."""
        check = self.model.validation
        if check is None or not check.violations:
            return None
        return {body: check.nodes(body) for body in range(2)}
