"""The Experiments menu: the Experiments window (Ctrl+Shift+E), one entry per experiment that
opens the window on it, and Run / Cancel with their keys.

Esc clears the canvas selection (View > Clear selection) except while an experiment runs:
then it cancels the run. Two actions on one key would make Qt fire neither, so the selection
action gives Esc up for the length of the run.
"""

from __future__ import annotations

from PyQt6.QtCore import QObject, QTimer
from PyQt6.QtGui import QAction, QKeySequence

from viewer.qt.menus.build import make_action
from viewer.words.actions import EXPERIMENTS, shortcut_of

WINDOW_KEY = shortcut_of("experiments.window")
"""Experiments > Experiments window."""

DOCK_NAME = "experiments_dock"

FIGURE_WIDTH_PX = 640
"""Narrowest docked Experiments window that still shows a figure readably; a narrower one
(the dock column's default 400 px) opens floating instead, at :data:`FLOATING_SIZE`."""

FLOATING_SIZE = (1000, 900)
"""Size of the floating Experiments window: a 10-inch figure drawn about 960 px wide (96 dpi,
the screen's own) with the controls above and the reading and save buttons under it. A
smaller screen gets 90 % of its free area (the window scrolls)."""


class ExperimentsMenu(QObject):
    """Answers the Experiments menu of ``window`` (a :class:`viewer.qt.main_window.MainWindow`
    whose ``table_actions`` are made already; the entries are rows of
    :data:`viewer.words.actions.ACTIONS`) and makes one entry per experiment."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.model = window.model
        self.dock = window.docks[DOCK_NAME]
        self.panel = self.dock.panel
        actions = window.table_actions
        self.window_action = actions["experiments.window"]
        self.experiment_actions: dict[str, QAction] = {
            name: make_action(window, f"{info.title}…",
                              lambda _c=False, n=name: self.open_window(n), None,
                              f"Open the Experiments window on this experiment ({info.source})")
            for name, info in self.panel.catalogue.items()}
        self.run_action = actions["experiments.run"]
        self.cancel_action = actions["experiments.cancel"]
        self.cancel_action.setEnabled(False)
        self._selection_key = QKeySequence()
        self.model.experiment_started.connect(lambda _n: self._set_running(True))
        self.model.experiment_finished.connect(lambda _r, _e: self._set_running(False))

    @property
    def menu(self):
        """The Experiments menu (built from the action table with the window's other menus)."""
        return self.window.menus[EXPERIMENTS]

    def experiment_action_list(self) -> list[QAction]:
        """One entry per experiment, in the catalogue's order (the table's
        ``experiments.list``)."""
        return list(self.experiment_actions.values())

    def open_window(self, name: str | None = None):
        """Show the Experiments window in front (on experiment ``name`` if given). Tabbed in
        a dock column (the default layout) or docked narrower than :data:`FIGURE_WIDTH_PX`, it
        floats instead, at :data:`FLOATING_SIZE` over the main window; docked alone and wide
        enough, it stays."""
        dock = self.dock
        if name is not None and self.model.experiment_running is None:
            self.panel.select(name)
        # A tab of the dock column (the default layout) is as narrow as the column; its own
        # width is not laid out until it is raised (Qt reports 640 px for a 400 px column).
        is_narrow = (bool(self.window.tabifiedDockWidgets(dock))
                     or dock.width() < FIGURE_WIDTH_PX)
        if not dock.isFloating() and is_narrow:
            # Leaving the tab column raises its neighbour tab; keep the tabs the user had.
            raised = [d for d in self.window.docks.values() if d is not dock
                      and not d.isFloating() and not d.visibleRegion().isEmpty()]
            dock.setFloating(True)
            # The tab bar switches after this returns (seen: the Outliner came to the front).
            QTimer.singleShot(0, lambda: [other.raise_() for other in raised])
            dock.resize(*self._floating_size())
            centre = self.window.geometry().center()
            dock.move(centre.x() - dock.width() // 2, max(0, centre.y() - dock.height() // 2))
        dock.show()
        dock.raise_()
        dock.activateWindow()
        return self.panel

    def _floating_size(self) -> tuple[int, int]:
        width, height = FLOATING_SIZE
        screen = self.window.screen()
        if screen is not None:
            free = screen.availableGeometry()
            width = min(width, int(0.9 * free.width()))
            height = min(height, int(0.9 * free.height()))
        return width, height

    def run(self) -> bool:
        """Run (Ctrl+Return): the chosen experiment, the window shown."""
        self.open_window()
        return self.panel.run()

    def _set_running(self, is_running: bool) -> None:
        self.cancel_action.setEnabled(is_running)
        self.run_action.setEnabled(not is_running)
        clear = self.window.clear_selection_action
        if is_running:
            self._selection_key = clear.shortcut()
            clear.setShortcut(QKeySequence())
        elif not self._selection_key.isEmpty():
            clear.setShortcut(self._selection_key)
            self._selection_key = QKeySequence()
