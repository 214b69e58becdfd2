"""The Pseudo-code dock: the tandem traversal as the literature writes it, with the line the
stepper's current pair test executes highlighted, the current kind's overlap test below it
(collapsible, its deciding line highlighted the same way), and the traversal's variables.

The highlight is a light yellow background (Tol's light yellow, black text stays readable:
contrast about 15:1) plus a "▶" marker in the margin, so colour is not the only cue.
"""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtGui import QColor, QFontDatabase
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from viewer.qt.panels.common import wrap_label
from viewer.qt.panels.stepper import COUNTER_WORDS
from viewer.render.stepper import StepView
from viewer.words.actions import shortcut_of

HIGHLIGHT_COLOR = "#eedd88"
"""Background of the executed line (Tol light yellow)."""

MARKER = "▶ "
BLANK = "  "


def marked_lines(lines, current: int) -> list[str]:
    """The lines with the marker before line ``current`` and blanks before the others."""
    return [(MARKER if i == current else BLANK) + line for i, line in enumerate(lines)]


class CodeList(QListWidget):
    """Read-only monospace lines with one line highlighted (background and marker)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(self.focusPolicy().NoFocus)
        # As wide as the dock, not as the longest line; a long line wraps under itself
        # instead of running off the right edge (at 1280x800 the lines were cut there, the
        # rest behind a sideways scroll bar).
        self.setHorizontalScrollBarPolicy(self.horizontalScrollBarPolicy().ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setWordWrap(True)
        self.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.current = -1
        self._lines: list[str] = []

    def set_lines(self, lines, current: int) -> None:
        lines = list(lines)
        if lines != self._lines:
            self._lines = lines
            self.clear()
            for text in marked_lines(lines, -1):
                self.addItem(QListWidgetItem(text))
        self.highlight(current)
        rows = max(1, self.count())
        self.setMinimumHeight(min(rows, 14) * self.sizeHintForRow(0) + 2 * self.frameWidth())

    def highlight(self, current: int) -> None:
        """Mark line ``current`` (-1: none) and scroll it into view."""
        self.current = current
        for i in range(self.count()):
            item = self.item(i)
            is_current = i == current
            item.setText((MARKER if is_current else BLANK) + self._lines[i])
            item.setBackground(QColor(HIGHLIGHT_COLOR) if is_current else QColor(0, 0, 0, 0))
        if 0 <= current < self.count():
            self.scrollToItem(self.item(current))

    def texts(self) -> list[str]:
        return [self.item(i).text() for i in range(self.count())]


def variables_text(view: StepView) -> str:
    """The traversal's variables at this step."""
    counters = "<br>".join(f"&nbsp;&nbsp;{words}: {view.counters.get(name, 0):,}"
                           for name, words in COUNTER_WORDS)
    return (f"pair (a, b) = ({view.node_a}, {view.node_b})<br>"
            f"level = {view.level}<br>"
            f"queue length = {view.queue_length:,}<br>"
            f"counters so far:<br>{counters}")


class PseudocodePanel(QWidget):
    """The traversal's lines, the kind's overlap test (collapsible) and the variables."""

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.traversal = CodeList()
        self.traversal.setToolTip("The tandem traversal, breadth first as the engine runs it; "
                                  "▶ marks the line the current pair test executes")
        self.test_toggle = QToolButton()
        self.test_toggle.setCheckable(True)
        self.test_toggle.setChecked(True)
        self.test_toggle.setAutoRaise(True)
        self.test_toggle.setToolTip("Show or hide the overlap test of the current bounding "
                                    "volume; ▶ marks the line that decided this pair")
        self.test_toggle.toggled.connect(self._on_test_toggled)
        self.test_toggle.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.test = CodeList()
        self.variables = wrap_label(QLabel(""))
        self.variables.setToolTip("The traversal's variables after the current pair test")
        self.off_label = wrap_label(QLabel(
            "The stepper is off: turn it on in the Stepper dock "
            f"({shortcut_of('stepper.toggle')}) to follow the "
            "traversal line by line."))
        title, lines = controller.stepper.traversal_pseudocode()
        self.traversal_title = wrap_label(QLabel(f"<b>{title}</b>"))
        self.traversal.set_lines(lines, -1)
        code_box = QGroupBox("Tandem traversal")
        code_layout = QVBoxLayout(code_box)
        code_layout.addWidget(self.traversal_title)
        code_layout.addWidget(self.traversal, 1)
        code_layout.addWidget(self.test_toggle)
        code_layout.addWidget(self.test)
        var_box = QGroupBox("Variables")
        QVBoxLayout(var_box).addWidget(self.variables)
        layout = QVBoxLayout(self)
        layout.addWidget(self.off_label)
        layout.addWidget(code_box, 1)
        layout.addWidget(var_box)
        self._test_title = ""
        model.step_position_changed.connect(lambda _p: self.refresh())
        model.steps_changed.connect(lambda _s: self.refresh())
        self.refresh()

    def _on_test_toggled(self, is_open: bool) -> None:
        self.test.setVisible(is_open)
        self._title_toggle()

    def _title_toggle(self) -> None:
        arrow = "▼" if self.test_toggle.isChecked() else "▶"
        what = self._test_title or "the overlap test"
        self.test_toggle.setText(f"{arrow} {what} (click to "
                                 f"{'hide' if self.test_toggle.isChecked() else 'show'})")

    def refresh(self) -> None:
        view = self.controller.stepper.step_view() if self.model.is_stepping else None
        self.off_label.setVisible(view is None)
        if view is None:
            if self.model.is_stepping and self.model.steps_note:
                self.off_label.setText(self.model.steps_note)
            self.traversal.highlight(-1)
            self.test.highlight(-1)
            self.test_toggle.setVisible(False)
            self.test.setVisible(False)
            self.variables.setText("")
            return
        self.traversal.set_lines(view.traversal_lines, view.traversal_line)
        self.test_toggle.setVisible(True)
        self.test.setVisible(self.test_toggle.isChecked())
        self._test_title = view.test_title
        self._title_toggle()
        self.test.set_lines(view.test_lines, view.test_line)
        self.variables.setText(variables_text(view))
