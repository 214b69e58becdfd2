"""The Tree menu and what it ties together in the window: the Quality and Outliner docks,
the invariant check, trees read from and written to files, the selected node on the canvas.

The window owns one :class:`TreeTools`; it builds the menu, keeps the status-bar line of the
last invariant check, and redraws the inspection overlays when the selection or the check
changes.
"""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtCore import QObject
from PyQt6.QtGui import QAction
from PyQt6.QtWidgets import QFileDialog, QLabel

BODY_NAMES = ("A", "B")

TREE_OPEN_FILTER = "BVH Lab trees (*.json *.npz);;All files (*)"
TREE_SAVE_FILTERS = {"JSON tree (*.json)": ".json", "NumPy archive tree (*.npz)": ".npz"}

SHORTCUTS = {
    "quality": "Ctrl+Shift+Q",
    "outliner": "Ctrl+Shift+U",
    "check": "Ctrl+Shift+I",
}
"""The Tree menu's keys (free of every other menu's: tests/viewer/test_window.py)."""

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
        quality_dock.visibilityChanged.connect(self.controller.set_quality_on)

    # -- menu -------------------------------------------------------------------------------
    def build_menu(self, menu_bar) -> None:
        """The "Tree" menu, added to ``menu_bar`` where it is called (after Stepper)."""
        w = self.window
        menu = menu_bar.addMenu("T&ree")
        self.menu = menu

        def add(key, text, slot, shortcut=None, tip=""):
            action = w._action(text, slot, shortcut, tip)
            menu.addAction(action)
            self.actions[key] = action
            return action

        for key, name, text in (("quality", "quality_dock", "&Quality panel"),
                                ("outliner", "outliner_dock", "O&utliner")):
            action = add(key, text, lambda _c=False, n=name: self.toggle_dock(n),
                         SHORTCUTS[key], f"Show the {w.docks[name].windowTitle()} dock in "
                         "front, or hide it when it is in front")
            action.setCheckable(True)
            w.docks[name].visibilityChanged.connect(action.setChecked)
        menu.addSeparator()
        add("check", "&Check tree invariants", self.check_invariants, SHORTCUTS["check"],
            "Each node encloses its children and its triangles in the current pose, the "
            "triangle ids are a permutation, the topology is consistent")
        every = add("every_refit", "Check invariants after every &refit",
                    self.set_validate_after_refit, None,
                    "Debug setting: the pipeline checks every tree it refits or builds (slower)")
        every.setCheckable(True)
        every.setChecked(str(w.settings.value(SETTING_VALIDATE, "false")).lower() == "true")
        if every.isChecked():
            self.controller.set_validate_after_refit(True)
        menu.addSeparator()
        for body, name in enumerate(BODY_NAMES):
            add(f"open_{body}", f"&Open tree file for body {name}…",
                lambda _c=False, b=body: self.open_tree_file(b), None,
                f"Read a tree of body {name} built by another engine (JSON or NPZ, see the "
                "README), check it and use it for the collision query")
        for body, name in enumerate(BODY_NAMES):
            add(f"own_{body}", f"Use BVH Lab's own tree again for {name}",
                lambda _c=False, b=body: self.controller.use_own_tree(b), None,
                f"Forget the tree read from a file for body {name}: build BVH Lab's own")
        for body, name in enumerate(BODY_NAMES):
            add(f"save_{body}", f"&Save tree of body {name}…",
                lambda _c=False, b=body: self.save_tree_file(b), None,
                f"Write the shown tree of body {name} as JSON or as a NumPy archive (NPZ)")
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
        self.controller.check_invariants()

    def set_validate_after_refit(self, is_on: bool) -> None:
        self.window.settings.setValue(SETTING_VALIDATE, bool(is_on))
        self.controller.set_validate_after_refit(bool(is_on))
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
            is_open = self.controller.open_tree_file(body, path)
            self._after_open(is_open)
            return is_open
        path, _ = QFileDialog.getOpenFileName(
            self.window, f"Open a tree for body {BODY_NAMES[body]}", self._start_dir(),
            TREE_OPEN_FILTER)
        if not path:
            return False
        self.window.settings.setValue("last_tree_dir", str(Path(path).parent))
        return self.controller.open_tree_file_async(body, path, self._after_open)

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
            return self.controller.save_tree_file(body, path)
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
        return self.controller.save_tree_file_async(body, path)

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
