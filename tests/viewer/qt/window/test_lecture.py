"""Lecture mode: the canvas alone, full screen, large text, a caption and keyboard-only
control; the Lessons menu and its keys."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QApplication, QDockWidget, QToolBar

from tests.viewer.conftest import settle
from tests.viewer.helpers import check_apart, screenshot, text_heights
from viewer.qt.window.lecture import KEYS_LEVELS, KEYS_WITH_LESSON
from viewer.render.lecture import LECTURE_REFERENCE_HEIGHT_PX, lecture_scale
from viewer.render.legend import LEGEND_FONT_PX
from viewer.render.style import NOTE_FONT_PX


def press(qtbot, window, key):
    """A key on the canvas of the active window (shortcuts only reach an active window)."""
    if QApplication.activeWindow() is not window:
        window.activateWindow()
        window.plotter.setFocus()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    qtbot.keyClick(window.plotter, key)
    QApplication.processEvents()


def shown_bars(window) -> dict:
    """Visibility of every dock, toolbar, the menu bar and the status bar, by name."""
    widgets = [*window.findChildren(QDockWidget), *window.findChildren(QToolBar)]
    shown = {w.objectName() or w.windowTitle(): w.isVisible() for w in widgets}
    shown["menu bar"] = window.menuBar().isVisible()
    shown["status bar"] = window.statusBar().isVisible()
    return shown


def test_the_scale_follows_the_screen_height():
    assert lecture_scale(800) == pytest.approx(800 / LECTURE_REFERENCE_HEIGHT_PX)
    assert 1.45 <= lecture_scale(800) <= 1.55 and 2.0 <= lecture_scale(1080) <= 2.1
    assert lecture_scale(400) == 1.0  # never smaller than the desk view


def test_lecture_mode_hides_every_bar_scales_the_text_and_esc_brings_all_back(
        qtbot, window, settings):
    window.docks["stats_dock"].hide()  # one dock the user closed stays closed afterwards
    QApplication.processEvents()
    before = shown_bars(window)
    saved_layout = settings.value("window_state")
    legend_px = window.renderer.canvas_legend.font_px
    widths = {n: a.prop.line_width for n, a in window.renderer.actors.items()}
    rectangle = window.geometry()

    press(qtbot, window, Qt.Key.Key_F11)
    lecture = window.lecture
    assert lecture.is_on and window.isFullScreen() and window.lecture_action.isChecked()
    assert not any(shown_bars(window).values()), shown_bars(window)
    # The whole screen, also without a window manager (a band was left under the view).
    assert window.size() == window.screen().geometry().size()
    screen_height = window.screen().geometry().height()
    assert lecture.scale == pytest.approx(lecture_scale(screen_height))
    assert window.renderer.canvas_legend.font_px == round(LEGEND_FONT_PX * lecture.scale)
    assert window.renderer.actors["overlap"].prop.line_width > widths["overlap"]
    # The legend's letters on screen grow with the font.
    window.redraw()
    heights = text_heights(window, screenshot(window))
    assert max(heights) >= 0.7 * LEGEND_FONT_PX * lecture.scale, heights
    # Without a lesson the caption says what is shown, in words, with the keys under it.
    caption, hint = window.renderer.caption_bar.texts()
    assert caption.startswith("Two spheres overlapping: traversal level 5 of")
    assert "triangle pairs in contact" in caption.replace("\n", " ")
    assert hint == KEYS_LEVELS
    assert not window.renderer.note.GetVisibility()

    press(qtbot, window, Qt.Key.Key_Escape)
    assert not lecture.is_on and not window.isFullScreen()
    # Back where it was (without a window manager it came back 25 px lower).
    qtbot.waitUntil(lambda: window.geometry() == rectangle, timeout=5000)
    assert shown_bars(window) == before  # the same tab in front of each dock group too
    assert window.renderer.canvas_legend.font_px == legend_px
    assert {n: a.prop.line_width for n, a in window.renderer.actors.items()} == widths
    assert window.renderer.caption_bar.texts() == ("", "")
    assert settings.value("window_state") == saved_layout  # the saved layout untouched


def test_closing_in_lecture_mode_saves_the_layout_from_before(qtbot, window, settings):
    from viewer.qt.window.layout import LAYOUT_VERSION

    window.lecture.enter()
    QApplication.processEvents()
    assert all(dock.isHidden() for dock in window.docks.values())
    window.close()
    QApplication.processEvents()
    assert not window.lecture.is_on
    for dock in window.docks.values():
        dock.hide()
    # The layout saved on closing is the one from before lecture mode: every dock shown.
    assert window.restoreState(settings.value("window_state"), LAYOUT_VERSION)
    assert not any(dock.isHidden() for dock in window.docks.values())
    assert not window.menuBar().isHidden()


def test_without_a_lesson_arrows_step_the_level_and_space_plays(qtbot, window):
    window.lecture.enter()
    level = window.model.level
    press(qtbot, window, Qt.Key.Key_Right)
    assert window.model.level == level + 1
    press(qtbot, window, Qt.Key.Key_Left)
    press(qtbot, window, Qt.Key.Key_Left)
    assert window.model.level == level - 1
    press(qtbot, window, Qt.Key.Key_Space)
    assert window.model.is_playing
    press(qtbot, window, Qt.Key.Key_Space)
    assert not window.model.is_playing
    window.lecture.leave()


def test_arrows_step_the_lesson_and_the_caption_follows(qtbot, window):
    controller = window.controller
    assert controller.lessons.open_lesson("aabb-levels")
    settle(qtbot, window)
    lesson = controller.lessons.lesson
    window.lecture.enter()
    for expected in (1, 2):
        press(qtbot, window, Qt.Key.Key_Right)
        settle(qtbot, window)
        assert controller.lessons.lesson_index == expected
        assert window.model.level == lesson.steps[expected].level
    caption, hint = window.renderer.caption_bar.texts()
    assert caption.replace("\n", " ") == lesson.steps[2].caption
    assert hint.startswith(f"{lesson.title}, step 3 of {len(lesson)}")
    assert KEYS_WITH_LESSON in hint
    press(qtbot, window, Qt.Key.Key_Left)
    settle(qtbot, window)
    assert controller.lessons.lesson_index == 1
    # The caption bar is drawn: its white bar is at the bottom centre of the screenshot.
    image = screenshot(window)
    height, width = image.shape[:2]
    strip = image[int(0.9 * height):, width // 2 - 20: width // 2 + 20]
    assert (strip.sum(axis=2) < 200).any(), "no caption text at the bottom"
    assert window.renderer.caption_bar.lift_px == 0  # no note under it in lecture mode
    window.lecture.leave()
    # On the desk the caption bar sits above the note's lines in the lower-left corner.
    n_note_lines = len(window.renderer.note.GetText(0).splitlines())
    assert n_note_lines >= 1
    assert window.renderer.caption_bar.lift_px >= n_note_lines * NOTE_FONT_PX
    # PageDown and PageUp step the lesson outside lecture mode too.
    press(qtbot, window, Qt.Key.Key_PageDown)
    settle(qtbot, window)
    assert controller.lessons.lesson_index == 2
    press(qtbot, window, Qt.Key.Key_PageUp)
    assert controller.lessons.lesson_index == 1
    assert window.lesson_menu.previous_action.isEnabled()


def test_the_overlay_colours_stay_apart_in_lecture_mode(qtbot, window):
    window.model.set_pipeline(partition="grid")
    settle(qtbot, window)
    window.lecture.enter()
    QApplication.processEvents()
    least = check_apart(window, screenshot(window))
    assert np.isfinite(least)
    window.lecture.leave()


def test_the_lessons_menu_opens_a_file_and_saves_the_state_as_a_step(qtbot, window, tmp_path):
    menu = window.lesson_menu
    titles = [a.text() for a in menu.menu.actions() if a.text()]
    assert titles[:5] == ["An AABB tree, level by level", "The tandem traversal, step by step",
                          "AABB against OBB in parallel close proximity",
                          "Refit against rebuild under deformation",
                          "Spatial partitions against hierarchies"]
    assert menu.open_action.shortcut().toString() == "Ctrl+Shift+L"
    assert menu.save_action.shortcut().toString() == "Ctrl+Alt+L"
    window.model.set_level(3)
    path = tmp_path / "mine.toml"
    assert menu.save_step(str(path), "Level three of the two spheres.", "Mine")
    assert menu.open_file(str(path))
    settle(qtbot, window)
    assert window.controller.lessons.lesson.title == "Mine" and window.model.level == 3
    caption, _hint = window.renderer.caption_bar.texts()
    assert caption == "Level three of the two spheres."

    broken = tmp_path / "broken.toml"
    broken.write_text('[[step]]\ncaption = "a"\nview = "sideways"\n')
    assert not menu.open_file(str(broken))
    assert window.last_error[1].startswith("broken.toml line 3: step 1 key 'view'")
    assert window.controller.lessons.lesson.title == "Mine"  # the open lesson stays


def test_a_step_with_an_experiment_shows_its_figure_over_the_canvas(qtbot, window, tmp_path):
    path = tmp_path / "figure.toml"
    path.write_text('[[step]]\ncaption = "The spheres."\nscene = "concentric-spheres"\n\n'
                    '[[step]]\ncaption = "The measurement."\n'
                    'experiment = { name = "pcp", sizes = [200] }\n')
    controller = window.controller
    assert controller.lessons.open_lesson(str(path))
    settle(qtbot, window)
    window.lecture.enter()
    press(qtbot, window, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: controller.lessons.figure is not None, timeout=300_000)
    QApplication.processEvents()
    layer = window.renderer.figure_layer
    qtbot.waitUntil(lambda: layer.is_shown, timeout=10_000)
    view_width, view_height = window.plotter.ren_win.GetSize()
    height, width = layer.image.shape[:2]
    assert width <= view_width and height <= view_height
    assert max(width / view_width, height / view_height) >= 0.8  # it fills the view
    # Drawn above the caption bar, which still shows the step's caption.
    assert layer.actor.GetPosition()[1] >= window.renderer.caption_bar.top_px()
    assert window.renderer.caption_bar.texts()[0] == "The measurement."
    assert not window.renderer.legend.GetVisibility()  # it showed around the figure's edges
    image = screenshot(window)
    middle = image[view_height // 3: 2 * view_height // 3, view_width // 3: 2 * view_width // 3]
    assert (middle.min(axis=2) > 245).mean() > 0.3  # the figure's white page covers the view
    press(qtbot, window, Qt.Key.Key_Left)
    assert controller.lessons.figure is None and not layer.is_shown
    assert window.renderer.legend.GetVisibility()
    window.lecture.leave()
