"""The Lessons menu: the built-in lessons, Open lesson file…, Next / Previous step, Close
lesson, and Save current state as a lesson step… (the teacher types the caption)."""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLineEdit,
    QPlainTextEdit,
)

from viewer.lessons import BUILTIN_LESSONS
from viewer.qt.menus.build import make_action
from viewer.qt.widgets import dialog_buttons
from viewer.words.actions import LESSONS

LESSON_FILTER = "Lessons (*.toml);;All files (*)"


class SaveStepDialog(QDialog):
    """Asks for the new step's caption and, for a new file, the lesson's title."""

    def __init__(self, path: Path, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Save current state as a step of {path.name}")
        form = QFormLayout(self)
        self.caption = QPlainTextEdit()
        self.caption.setPlaceholderText("What this step shows, in one or two sentences a "
                                        "student understands")
        self.caption.setToolTip("Shown at the bottom of the view when the step is played")
        form.addRow("Caption", self.caption)
        self.title = QLineEdit(path.stem.replace("-", " "))
        self.title.setToolTip("The lesson's title (used when the file is new)")
        self.title.setEnabled(not path.exists())
        form.addRow("Lesson title", self.title)
        buttons = dialog_buttons(self, QDialogButtonBox.StandardButton.Save)
        form.addRow(buttons)


class LessonMenu:
    """Answers the Lessons menu of ``window`` (a :class:`MainWindow` whose ``table_actions`` are
    made already; the entries are rows of :data:`viewer.words.actions.ACTIONS`) and makes one
    entry per built-in lesson."""

    def __init__(self, window):
        self.window = window
        controller = window.controller
        self.builtin_actions = {
            name: make_action(window, title,
                              lambda _c=False, n=name: controller.lessons.open_lesson(n), None,
                              f"Play the built-in lesson '{name}'")
            for name, title in BUILTIN_LESSONS.items()}
        actions = window.table_actions
        self.open_action = actions["lessons.open"]
        self.next_action = actions["lessons.next"]
        self.previous_action = actions["lessons.previous"]
        self.close_action = actions["lessons.close"]
        self.save_action = actions["lessons.save_step"]
        controller.lessons.lesson_signals.lesson_changed.connect(lambda _l: self.sync())
        controller.lessons.lesson_signals.step_changed.connect(lambda _i: self.sync())
        self.sync()

    @property
    def menu(self):
        """The Lessons menu (built from the action table with the window's other menus)."""
        return self.window.menus[LESSONS]

    def builtin_action_list(self) -> list:
        """The built-in lessons' entries, in menu order (the table's ``lessons.builtin``)."""
        return list(self.builtin_actions.values())

    def sync(self) -> None:
        controller = self.window.controller
        lesson, index = controller.lessons.lesson, controller.lessons.lesson_index
        is_open = lesson is not None
        self.next_action.setEnabled(is_open and index is not None and index + 1 < len(lesson))
        self.previous_action.setEnabled(is_open and bool(index))
        self.close_action.setEnabled(is_open)

    def _start_dir(self) -> str:
        return str(self.window.settings.value("last_lesson_dir", str(Path.home())))

    def open_file(self, path: str | None = None) -> bool:
        """Lessons > Open lesson file… (``path`` skips the dialog)."""
        if not path:
            path, _ = QFileDialog.getOpenFileName(self.window, "Open lesson", self._start_dir(),
                                                  LESSON_FILTER)
        if not path:
            return False
        self.window.settings.setValue("last_lesson_dir", str(Path(path).parent))
        return self.window.controller.lessons.open_lesson(path)

    def save_step(self, path: str | None = None, caption: str | None = None,
                  title: str = "") -> bool:
        """Lessons > Save current state as a lesson step… (``path`` and ``caption`` skip the
        dialogs)."""
        window = self.window
        if not path:
            path, _ = QFileDialog.getSaveFileName(
                window, "Save current state as a lesson step", self._start_dir(),
                LESSON_FILTER, options=QFileDialog.Option.DontConfirmOverwrite)
            if path and not Path(path).suffix:
                path += ".toml"
        if not path:
            return False
        window.settings.setValue("last_lesson_dir", str(Path(path).parent))
        if caption is None:
            dialog = SaveStepDialog(Path(path), window)
            self.save_dialog = dialog
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return False
            caption, title = dialog.caption.toPlainText(), dialog.title.text()
        return window.controller.lessons.save_lesson_step(path, caption, title)
