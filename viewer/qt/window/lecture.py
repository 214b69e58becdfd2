"""Lecture mode (F11, View > Lecture mode): the canvas alone, full screen, for a projector.

Every dock, toolbar, the menu bar and the status bar are hidden and come back exactly as
they were (nothing is written to the saved layout); text and lines are scaled by
:func:`viewer.render.lecture.lecture_scale` of the screen's height; a caption bar at the
bottom says what is shown (the lesson step's caption, or the current state in words) with
the keys under it. The overlay colours stay those of the desk view: they are already chosen
to stay apart under simulated deuteranopia, protanopia and tritanopia
(tests/viewer/render/test_palette.py; lecture mode's screenshot is checked the same way).

Keys (keyboard only): Right / Left the next / previous lesson step, or without a lesson one
pair test of the stepper when it is on and one traversal level otherwise; Space play or
pause; Esc or F11 leave.
"""

from __future__ import annotations

from PyQt6.QtCore import QEvent, QObject, Qt
from PyQt6.QtWidgets import QApplication, QDockWidget, QToolBar

from viewer.render.lecture import lecture_scale
from viewer.words.actions import shortcut_of

LECTURE_KEY = shortcut_of("view.lecture")

# Key names in words: the canvas font (VTK's Arial) has no arrow glyphs (seen as blanks on the
# 1280x800 screenshot).
KEYS_WITH_LESSON = "Right: next step   Left: previous step   Space: play / pause   Esc: leave"
KEYS_STEPPER = "Right: next pair test   Left: previous   Space: play / pause   Esc: leave"
KEYS_LEVELS = "Right: next level   Left: previous level   Space: play / pause   Esc: leave"
KEYS_LESSON_DESK = (f"{shortcut_of('lessons.next')}: next step   "
                    f"{shortcut_of('lessons.previous')}: previous step   "
                    f"{LECTURE_KEY}: lecture mode")

_KEYS = {Qt.Key.Key_Right, Qt.Key.Key_Left, Qt.Key.Key_Space, Qt.Key.Key_Escape,
         Qt.Key.Key_F11}


class LectureMode(QObject):
    """Enters and leaves lecture mode on ``window`` (a :class:`MainWindow`) and handles its
    keys through an application event filter (ahead of the window's shortcuts: Right and
    Left are the stepper's, Esc clears the selection)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.is_on = False
        self.scale = 1.0
        self._hidden: list = []  # widgets lecture mode hid, shown again on leaving
        self._raised: list = []  # the docks in front of their tab group before
        self._was = None  # (full screen, maximized, saved geometry, client rectangle) before

    # -- on and off -------------------------------------------------------------------------
    def toggle(self) -> None:
        if self.is_on:
            self.leave()
        else:
            self.enter()

    def enter(self) -> None:
        if self.is_on:
            return
        window = self.window
        self._was = (window.isFullScreen(), window.isMaximized(), window.saveGeometry(),
                     window.geometry())
        docks = window.findChildren(QDockWidget)
        widgets = [*docks, *window.findChildren(QToolBar), window.menuBar(),
                   window.statusBar()]
        # Every one not closed by the user, tabs behind others included (hiding the front tab
        # brings the next one forward); the front tabs are raised again on leaving.
        self._hidden = [w for w in widgets if not w.isHidden()]
        self._raised = [d for d in docks if d.isVisible()]
        for widget in self._hidden:
            widget.hide()
        self.is_on = True
        QApplication.instance().installEventFilter(self)
        screen = window.screen()
        if screen is not None:
            # Without a window manager (a bare X server, a kiosk) full screen keeps the old
            # size: a black band was left under the view at 1280x800. The screen's size first,
            # then the full-screen state (setting a geometry afterwards clears that state).
            window.setGeometry(screen.geometry())
        window.showFullScreen()
        height = screen.geometry().height() if screen is not None else window.height()
        self.scale = lecture_scale(height)
        window.renderer.set_presentation_scale(self.scale)
        window.renderer.set_note_visible(False)
        window.lecture_action.setChecked(True)
        window.plotter.setFocus()
        window.refresh_caption()
        window.redraw()

    def leave(self) -> None:
        if not self.is_on:
            return
        window = self.window
        self.is_on = False
        QApplication.instance().removeEventFilter(self)
        is_full, is_max, geometry, rectangle = self._was
        if not is_full:
            window.showNormal()
            window.restoreGeometry(geometry)
            if window.geometry() != rectangle:
                # Without a window manager restoreGeometry adds a guessed title bar: the window
                # came back 25 px lower at 1280x800, over a black band. The client rectangle
                # from before puts it back where it was.
                window.setGeometry(rectangle)
            if is_max:
                window.showMaximized()
        for widget in self._hidden:
            widget.show()
        for dock in self._raised:
            dock.raise_()  # the tab that was in front is in front again
        self._hidden, self._raised = [], []
        self.scale = 1.0
        window.renderer.set_presentation_scale(1.0)
        window.renderer.set_note_visible(True)
        window.lecture_action.setChecked(False)
        window.refresh_caption()
        window.redraw()

    # -- keys -------------------------------------------------------------------------------
    def key_hint(self) -> str:
        controller = self.window.controller
        if controller.lessons.lesson is not None:
            return KEYS_WITH_LESSON
        return KEYS_STEPPER if self.window.model.is_stepping else KEYS_LEVELS

    def press(self, key) -> bool:
        """Do what ``key`` does in lecture mode; False if it does nothing here."""
        window, controller = self.window, self.window.controller
        if key in (Qt.Key.Key_Escape, Qt.Key.Key_F11):
            self.leave()
        elif key == Qt.Key.Key_Space:
            window.toggle_play()
        elif key in (Qt.Key.Key_Right, Qt.Key.Key_Left):
            delta = 1 if key == Qt.Key.Key_Right else -1
            if controller.lessons.lesson is not None:
                controller.lessons.next_step() if delta > 0 else controller.lessons.previous_step()
            elif window.model.is_stepping:
                controller.stepper.step_by(delta)
            else:
                window.docks["levels_dock"].panel.step_level(delta)
        else:
            return False
        return True

    def eventFilter(self, obj, event):  # noqa: N802 - Qt API
        kind = event.type()
        if (self.is_on and kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress)
                and event.key() in _KEYS
                and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier):
            if obj is not self.window.windowHandle() and not (
                    hasattr(obj, "window") and obj.window() is self.window):
                return False  # a dialog's keys stay the dialog's
            if kind == QEvent.Type.ShortcutOverride:
                event.accept()  # not a window shortcut: the key press comes here next
                return True
            if not event.isAutoRepeat() or event.key() in (Qt.Key.Key_Right,
                                                          Qt.Key.Key_Left):
                self.press(event.key())
            return True
        return False
