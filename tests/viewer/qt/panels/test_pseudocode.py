"""The Pseudo-code dock follows the stepper: the executed line is marked and highlighted."""

from __future__ import annotations

from PyQt6.QtGui import QColor
from PyQt6.QtWidgets import QApplication

from core.lab import pseudocode
from core.lab.steps import StepOutcome, traversal_steps
from viewer.qt.panels.pseudocode import HIGHLIGHT_COLOR, MARKER


def _panel(window):
    dock = window.docks["pseudocode_dock"]
    dock.raise_()
    QApplication.processEvents()
    return dock.panel


def _marked(code_list) -> list[int]:
    return [i for i, text in enumerate(code_list.texts()) if text.startswith(MARKER)]


def _highlighted(code_list) -> list[int]:
    return [i for i in range(code_list.count())
            if code_list.item(i).background().color() == QColor(HIGHLIGHT_COLOR)]


def test_the_traversal_is_listed_without_a_mark_while_the_stepper_is_off(window):
    panel = _panel(window)
    texts = panel.traversal.texts()
    assert len(texts) == len(pseudocode.TRAVERSAL.lines)
    assert "queue ← [(root of A, root of B)]" in texts[0]
    assert _marked(panel.traversal) == [] and _highlighted(panel.traversal) == []
    assert "van den Bergen 1998" in panel.traversal_title.text()
    assert panel.off_label.isVisible()


def test_the_highlight_moves_with_the_step(window):
    panel = _panel(window)
    window.controller.stepper.start_stepper()
    steps = traversal_steps(window.model.frame)
    kind = window.model.frame.request.bv
    seen = set()
    for what in (None, "leaf", "contact"):
        if what is not None:
            window.controller.stepper.step_run_to(what)
        step = steps[window.model.step_position]
        line = pseudocode.line_for(step) - 1
        assert _marked(panel.traversal) == [line] == _highlighted(panel.traversal)
        test_line = pseudocode.test_line_for(kind, step) - 1
        assert _marked(panel.test) == [test_line] == _highlighted(panel.test)
        seen.add(line)
        assert f"pair (a, b) = ({step.node_a}, {step.node_b})" in panel.variables.text()
        assert f"queue length = {step.queue_length:,}" in panel.variables.text()
    # A culled pair: the cull line, and the test's line of the axis that separated it.
    culled = next(i for i in range(len(steps)) if steps[i].outcome is StepOutcome.CULLED)
    window.controller.stepper.step_to(culled)
    assert _marked(panel.traversal) == [pseudocode.LINE_CULL - 1]
    assert _marked(panel.test) == [pseudocode.test_line_for(kind, steps[culled]) - 1]
    seen.add(pseudocode.LINE_CULL - 1)
    assert len(seen) >= 3  # split, leaves and cull lines
    assert pseudocode.overlap_listing(kind).title in panel.test_toggle.text()


def test_the_overlap_test_collapses_and_expands(window):
    panel = _panel(window)
    window.controller.stepper.start_stepper()
    assert panel.test.isVisible()
    panel.test_toggle.click()
    assert not panel.test.isVisible() and "show" in panel.test_toggle.text()
    panel.test_toggle.click()
    assert panel.test.isVisible() and "hide" in panel.test_toggle.text()
