"""The main window's layout: its default size, the dock column on the right, the timeline
under the canvas, and the check that a remembered layout leaves the canvas room."""

from __future__ import annotations

from PyQt6.QtCore import Qt, QTimer
from PyQt6.QtWidgets import QDockWidget, QTabBar

from viewer.qt.panels.docks import dock_names

DOCK_WIDTH_PX = 400
"""Default width of the dock column (logical pixels): the widest panel (the Pipeline dock's
volume choice) fits without clipping, and at 1280x800 the canvas keeps about 860 px."""

MIN_CANVAS_SHARE = 0.6
"""A remembered layout that leaves the canvas less than this share of the window width is
not restored: the default layout is used instead."""

LAYOUT_VERSION = 5
"""Version of the saved dock layout (``QMainWindow.saveState``); a state saved by an older
layout (two dock columns, no timeline under the canvas, no Quality and Outliner docks, or no
Experiments dock) is ignored."""

DEFAULT_WINDOW_SIZE = (1500, 950)
"""Default window size on a large screen; smaller screens get their available size."""

WINDOW_FRAME_PX = 40
"""Height a window manager's title bar and borders add around the window (Qt does not know
it before the window is shown); kept free on a screen smaller than the default size."""


def default_window_size(screen) -> tuple[int, int]:
    """``(width, height)`` of a new window: :data:`DEFAULT_WINDOW_SIZE` or, on a smaller
    screen, its available size less the window frame (a 1280x800 screen: 1280x760)."""
    width, height = DEFAULT_WINDOW_SIZE
    if screen is None:
        return width, height
    available = screen.availableGeometry()
    return (min(width, available.width()),
            min(height, available.height() - WINDOW_FRAME_PX))


def make_timeline_dock(timeline) -> QDockWidget:
    """The dock of the timeline panel, allowed under or over the canvas only."""
    dock = QDockWidget("Timeline")
    dock.setObjectName("timeline_dock")
    dock.setWidget(timeline)
    dock.setAllowedAreas(Qt.DockWidgetArea.BottomDockWidgetArea
                         | Qt.DockWidgetArea.TopDockWidgetArea)
    return dock


def apply_default_layout(window) -> None:
    """Every dock of ``window`` shown, docked and tabbed in one column on the right (Levels
    raised), the timeline under the canvas."""
    area = Qt.DockWidgetArea.RightDockWidgetArea
    docks = [window.docks[name] for name in dock_names()]
    for dock in docks:
        dock.setFloating(False)
        window.addDockWidget(area, dock)
        dock.show()
    for dock in docks[1:]:
        window.tabifyDockWidget(docks[0], dock)
    docks[0].raise_()
    window.timeline_dock.setFloating(False)
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, window.timeline_dock)
    window.timeline_dock.show()
    window.resizeDocks([docks[0]], [DOCK_WIDTH_PX], Qt.Orientation.Horizontal)
    QTimer.singleShot(0, lambda: show_whole_tab_titles(window))


STEPPER_DOCKS = ("stepper_dock", "pseudocode_dock")
"""Shown together while stepping: the step in words above the line of pseudo-code it runs."""

STEPPER_SHARE = 0.5
"""Share of the dock column's height the Stepper dock takes above the Pseudo-code dock."""


def show_stepper_docks(window) -> None:
    """The Stepper and Pseudo-code docks both in view, stacked in the dock column: the
    Stepper tab raised in its group and the Pseudo-code dock split off under it (as tabs of
    one group they were never visible together, and at 1280x800 both hid behind the tab
    bar's scroll arrows). Docks the user floated or closed are shown where they are."""
    stepper, code = (window.docks[name] for name in STEPPER_DOCKS)
    for dock in (stepper, code):
        if dock.isHidden():
            dock.show()
    if not stepper.isFloating() and not code.isFloating():
        if code in window.tabifiedDockWidgets(stepper):
            # splitDockWidget would only add it as one more tab of the group: taken out of
            # the group, it is added under it in the same column.
            window.removeDockWidget(code)
            window.addDockWidget(window.dockWidgetArea(stepper), code, Qt.Orientation.Vertical)
            code.show()
        height = max(1, stepper.height() + code.height())
        window.resizeDocks([stepper, code], [int(STEPPER_SHARE * height),
                                             height - int(STEPPER_SHARE * height)],
                           Qt.Orientation.Vertical)
    stepper.raise_()


def show_whole_tab_titles(window) -> None:
    """Dock tabs keep their whole titles and scroll when they do not fit: with eight docks in
    one column Qt cut them to "S…" and "Pse…" (seen at 1280 and 1920 wide)."""
    for bar in window.findChildren(QTabBar):
        bar.setElideMode(Qt.TextElideMode.ElideNone)
        bar.setUsesScrollButtons(True)


def canvas_share(window) -> float:
    """Share of the window width the 3-D view has (0 before the window is laid out)."""
    return window.plotter.width() / max(1, window.width())


def is_layout_usable(window) -> bool:
    """Whether the laid-out window shows a dock and leaves the canvas at least
    :data:`MIN_CANVAS_SHARE` of its width."""
    is_any_shown = any(d.isVisible() for d in window.docks.values())
    return is_any_shown and canvas_share(window) >= MIN_CANVAS_SHARE
