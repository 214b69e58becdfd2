"""The window's layout on a 1280x800 screen: the 3-D view's share, the controls a lesson needs
visible without scrolling, the View menu's dock list and "Reset layout"."""

from __future__ import annotations

from PyQt6.QtCore import QRect, Qt
from PyQt6.QtWidgets import QApplication, QDockWidget, QScrollArea, QTabBar, QWidget

from tests.viewer.conftest import click, qt_point, settle
from viewer.qt.panels.docks import dock_names
from viewer.qt.window.layout import (
    LAYOUT_VERSION,
    MIN_CANVAS_SHARE,
    WINDOW_FRAME_PX,
    default_window_size,
)

DEFAULT_DOCK_ORDER = dock_names()

SMALL_SCREEN = (1280, 800)


class _Screen:
    """Stands for a QScreen of the given available size."""

    def __init__(self, width: int, height: int):
        self.size = (width, height)

    def availableGeometry(self):  # noqa: N802 - Qt API
        return QRect(0, 0, *self.size)


def _at_small_screen(window) -> None:
    """The window at the size it opens with on a 1280x800 screen."""
    window.resize(*default_window_size(_Screen(*SMALL_SCREEN)))
    QApplication.processEvents()


def _scroll(dock: QDockWidget) -> QScrollArea:
    return dock.widget()


def _fully_visible(widget: QWidget, dock: QDockWidget) -> bool:
    """``widget`` is shown whole inside its dock's viewport (no part scrolled or clipped)."""
    if not widget.isVisible() or widget.visibleRegion().isEmpty():
        return False
    viewport = _scroll(dock).viewport()
    top_left = widget.mapTo(viewport, widget.rect().topLeft())
    rect = QRect(top_left, widget.size())
    return viewport.rect().contains(rect)


def _needs_no_scrolling(dock: QDockWidget) -> bool:
    scroll = _scroll(dock)
    return (scroll.verticalScrollBar().maximum() == 0
            and scroll.widget().width() <= scroll.viewport().width())


def _show_tab(window, name: str) -> QDockWidget:
    dock = window.docks[name]
    dock.raise_()
    QApplication.processEvents()
    return dock


def test_default_window_size_fits_a_1280x800_screen():
    width, height = default_window_size(_Screen(*SMALL_SCREEN))
    assert width == 1280
    assert height + WINDOW_FRAME_PX <= 800  # with a window manager's title bar
    width, height = default_window_size(_Screen(1920, 1080))
    assert width <= 1920 and height + WINDOW_FRAME_PX <= 1080


def test_at_1280x800_the_view_is_wide_and_lesson_controls_need_no_scrolling(qtbot, window):
    _at_small_screen(window)
    assert window.canvas_share() >= MIN_CANVAS_SHARE, window.plotter.width()

    levels_dock = _show_tab(window, "levels_dock")
    levels = levels_dock.panel
    # Step mode and the inspector, with a real click's text in it.
    levels.step_check.setChecked(True)
    window.model.set_level(4)
    pos = qt_point(window, window.controller.poses.centroid_world(0))
    click(window.plotter, pos)
    assert window.model.inspect is not None
    QApplication.processEvents()
    for widget in (levels.slider, levels.level_label, levels.step_check, levels.next_button,
                   levels.sentence, levels.inspect_label):
        assert _fully_visible(widget, levels_dock), widget
    assert _needs_no_scrolling(levels_dock)

    window.controller.scenes.load_scene("concentric-spheres")
    settle(qtbot, window)
    scene_dock = _show_tab(window, "scene_dock")
    slider = scene_dock.panel.param_slider
    assert slider is not None and _fully_visible(slider, scene_dock)
    assert _needs_no_scrolling(scene_dock)

    pipeline_dock = _show_tab(window, "pipeline_dock")
    drift = pipeline_dock.panel.drift
    assert "SAH drift" in drift.text()
    assert _fully_visible(drift, pipeline_dock)
    assert _needs_no_scrolling(pipeline_dock)


def test_the_view_menu_lists_every_dock_and_reset_layout_brings_a_hidden_one_back(
        qtbot, window, settings):
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    texts = [a.text() for a in view_menu.actions()]
    for name in DEFAULT_DOCK_ORDER:
        assert window.docks[name].windowTitle() in texts
    assert "Reset &layout" in texts
    assert window.reset_layout_action.shortcut().toString() == "Ctrl+Shift+R"

    window.dock_actions["stats_dock"].trigger()
    window.docks["scene_dock"].setFloating(True)
    QApplication.processEvents()
    assert not window.docks["stats_dock"].isVisible()

    window.reset_layout_action.trigger()
    QApplication.processEvents()
    for name in DEFAULT_DOCK_ORDER:
        dock = window.docks[name]
        assert not dock.isFloating()
        assert window.dockWidgetArea(dock) == Qt.DockWidgetArea.RightDockWidgetArea
    assert window.dock_actions["stats_dock"].isChecked()
    assert set(window.tabifiedDockWidgets(window.docks["levels_dock"])) == {
        window.docks[n] for n in DEFAULT_DOCK_ORDER[1:]}
    assert window.docks["levels_dock"].isVisible()  # the raised tab
    # The settings now hold the reset layout: restoring them brings every dock back.
    window.dock_actions["stats_dock"].trigger()
    assert window.docks["stats_dock"].isHidden()
    assert window.restoreState(settings.value("window_state"), LAYOUT_VERSION)
    assert all(not window.docks[n].isHidden() for n in DEFAULT_DOCK_ORDER)


def test_a_saved_layout_without_docks_or_from_the_old_layout_is_not_restored(
        qtbot, make_window, settings):
    first = make_window()
    for dock in first.docks.values():
        dock.hide()
    first.save_settings()
    first.close()

    second = make_window()
    QApplication.processEvents()
    qtbot.waitUntil(lambda: second.docks["levels_dock"].isVisible(), timeout=5000)
    assert all(not second.docks[n].isFloating() for n in DEFAULT_DOCK_ORDER)
    second.close()

    # A state saved by the previous layout (no version) is ignored: the default layout stays.
    settings.setValue("window_state", second.saveState())
    third = make_window()
    assert third.restoreState(settings.value("window_state"), LAYOUT_VERSION) is False
    assert third.docks["levels_dock"].isVisible()


def test_dock_tabs_show_their_whole_titles_at_1280x800(qtbot, window):
    _at_small_screen(window)
    settle(qtbot, window)
    qtbot.wait(50)  # the tab bars are set after the layout (a zero-time timer)
    # The dock area's tab bars (a panel's own tabs, e.g. the Quality dock's, are not docks).
    bars = [bar for bar in window.findChildren(QTabBar) if bar.count() and bar.isVisible()
            and bar.parent() is window]
    assert bars, "expected the docks tabbed in one column"
    titles = {window.docks[name].windowTitle() for name in DEFAULT_DOCK_ORDER}
    for bar in bars:
        assert bar.elideMode() == Qt.TextElideMode.ElideNone
        assert bar.usesScrollButtons()
        for i in range(bar.count()):
            assert bar.tabText(i) in titles
            # Not cut: the tab is as wide as its whole title needs.
            assert bar.tabRect(i).width() >= bar.fontMetrics().horizontalAdvance(bar.tabText(i))
