"""The Stepper dock: walk the shown frame's tandem traversal one volume-pair test at a time.

Buttons (each also a window shortcut, see :data:`STEP_BUTTONS`), where the traversal is
("test 14 of 312, level 3"), the current step in words, the pairs still waiting and the
running counters. The dock writes nothing but the controller's stepper calls and refreshes
itself from the model's stepper signals.
"""

from __future__ import annotations

from PyQt6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from viewer.qt.panels.common import wrap_label
from viewer.render.overlays import KIND_LABELS
from viewer.render.stepper import (
    CODE_CULLED,
    CODE_LEAF_PAIR,
    CODE_SPLIT,
    StepView,
    axis_name,
    separation_label,
)
from viewer.words.actions import STEP_KEY, STEPPER, rows_in, shortcut_of

STEP_BUTTONS = tuple((row.args[0], row.label, row.shortcut, row.help)
                     for row in rows_in(STEPPER) if row.handler == STEP_KEY)
"""The stepper's buttons: (key in the dock, text, shortcut, tooltip), the Stepper menu's
step rows of :data:`viewer.words.actions.ACTIONS` (the window gives each its key)."""

TOGGLE_KEY = shortcut_of("stepper.toggle")
"""Turns the stepper on or off (View > Step the traversal)."""

COUNTER_WORDS = (
    ("n_bv_tests", "volume pairs tested"),
    ("n_bv_overlaps", "of them overlapping"),
    ("n_leaf_pairs", "leaf pairs"),
    ("n_tri_tests", "triangle tests"),
    ("n_contacts", "contacts"),
)

TRIANGLE_PAIRS_LISTED = 12
"""Triangle pairs of a leaf pair named one by one; the rest are counted."""

OFF_TEXT = ("Turn the stepper on to walk this frame's traversal one pair test at a time, in "
            f"the order the engine ran them ({shortcut_of('stepper.toggle')}, or "
            f"{shortcut_of('stepper.restart')}).")


def position_text(view: StepView) -> str:
    """"test 14 of 312, level 3" (tests count from 1, levels from 0 as in the Stats dock)."""
    return (f"test {view.position + 1:,} of {view.n_steps:,}, level {view.level} "
            f"(levels 0–{view.n_levels - 1})")


def step_html(view: StepView) -> str:
    """The current step in words: the pair, the outcome and why."""
    noun = view.noun
    head = f"<b>{noun} {view.node_a} of A</b> against <b>{noun} {view.node_b} of B</b>: "
    if view.outcome == CODE_CULLED:
        text = head + "<b>culled</b>, they are apart.<br>"
        if view.separation is not None:
            text += f"Separated by {separation_label(view.separation)}."
        else:
            text += f"Separated by {view.test_words}."
        return text + "<br>Nothing below this pair is tested."
    if view.outcome == CODE_SPLIT:
        kids = ", ".join(f"({a}, {b})" for a, b in view.children)
        return (head + "<b>they overlap</b>: one of them is split.<br>"
                f"{view.split_words[:1].upper()}{view.split_words[1:]}.<br>"
                f"Pairs put on level {view.level + 1}: {kids}.")
    if view.outcome == CODE_LEAF_PAIR:
        tris = view.triangle_pairs
        hits = contact_words(view)
        parts = []
        for a, b in tris[:TRIANGLE_PAIRS_LISTED]:
            kind = hits.get((int(a), int(b)))
            mark = f" <b>{kind}</b>" if kind is not None else ""
            parts.append(f"({int(a)}, {int(b)}){mark}")
        more = tris.shape[0] - TRIANGLE_PAIRS_LISTED
        listed = ", ".join(parts) + (f", and {more:,} more" if more > 0 else "")
        verdict = (f"<b>{len(hits)} in contact</b> ({kinds_summary(hits)})" if hits
                   else "none in contact")
        return (head + "<b>they overlap and both are leaves</b>: their triangles go to the "
                f"exact test.<br>{tris.shape[0]} triangle pair"
                f"{'' if tris.shape[0] == 1 else 's'} (A, B) tested: {listed}.<br>{verdict}.")
    return head + view.test_words


def caption_words(view: StepView) -> str:
    """The step in the lecture caption's words: the outcome ("culled: separated along z",
    the world axis the test separated along, or the test's words for a tilted one) and the
    stepper's running count of contacts (not the frame's total)."""
    if view.outcome == CODE_CULLED:
        sep = view.separation
        along = axis_name(sep.axis) if sep is not None else ""
        what = (f"culled: separated along {along}" if along else
                f"culled: separated by {view.test_words}")
    elif view.outcome == CODE_SPLIT:
        what = "overlap: one volume is split"
    else:
        hits = contact_words(view)
        what = ("two leaves: their triangles tested, "
                + (f"{len(hits)} in contact ({kinds_summary(hits)})" if hits
                   else "none in contact"))
    n = view.counters.get("n_contacts", 0)
    return f"{what}; {n:,} contact{'' if n == 1 else 's'} found so far"


def contact_words(view: StepView) -> dict[tuple[int, int], str]:
    """``{(A triangle, B triangle): kind}`` of the step's contacts, in the contact kinds'
    own words (the legend's "crossing", "touching", "coplanar overlap"; "in contact" when
    the kind is not known)."""
    kinds = list(view.contact_kinds) + [0] * (len(view.contact_pairs) - len(view.contact_kinds))
    return {(int(a), int(b)): KIND_LABELS.get(int(k), "in contact")
            for (a, b), k in zip(view.contact_pairs, kinds)}


def kinds_summary(hits: dict) -> str:
    """"2 crossing, 1 touching": how many contacts of each kind."""
    counts: dict[str, int] = {}
    for kind in hits.values():
        counts[kind] = counts.get(kind, 0) + 1
    return ", ".join(f"{n} {kind}" for kind, n in counts.items())


def waiting_text(view: StepView) -> str:
    """The pairs still waiting: the first ones by level and nodes, then how many more."""
    if view.queue_length == 0:
        return "No pair is waiting: the traversal ends with this test."
    listed = ", ".join(f"L{d} ({a}, {b})" for d, a, b in view.waiting)
    more = view.queue_length - len(view.waiting)
    tail = f" and {more:,} more" if more > 0 else ""
    return f"{view.queue_length:,} waiting (level, A, B): {listed}{tail}."


def counters_text(view: StepView) -> str:
    """The running counters after this step, and the queue length."""
    rows = [f"{view.counters.get(name, 0):,} {words}" for name, words in COUNTER_WORDS]
    return "So far: " + ", ".join(rows) + f"; queue {view.queue_length:,}."


class StepperPanel(QWidget):
    """On/off, the stepper's buttons, the position, the step in words, the queue, counters."""

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.on_check = QCheckBox("Step this frame's traversal pair by pair")
        self.on_check.setToolTip(
            "Walk the tandem traversal one volume-pair test at a time, in the engine's real "
            f"order; pauses playing ({TOGGLE_KEY})")
        self.on_check.toggled.connect(self._on_toggled)
        self.buttons: dict[str, QPushButton] = {}
        grid = QGridLayout()
        for i, (key, text, shortcut, tip) in enumerate(STEP_BUTTONS):
            button = QPushButton(f"{text} ({shortcut})")
            button.setToolTip(tip)
            button.clicked.connect(lambda _c=False, k=key: self.press(k))
            self.buttons[key] = button
            row, col = (0, i) if i < 3 else (1 + (i - 3) // 2, (i - 3) % 2)
            grid.addWidget(button, row, col, 1, 1 if i < 3 else 1)
        self.position_label = QLabel("")
        self.position_label.setToolTip("Pair tests count from 1 in the traversal's order; "
                                       "traversal levels count from 0")
        self.note_label = wrap_label(QLabel(OFF_TEXT))
        self.step_label = wrap_label(QLabel(""))
        self.counters_label = wrap_label(QLabel(""))
        self.counters_label.setToolTip(
            "Running totals after this test; at the last test they equal the frame's counters "
            "in the Stats dock")
        self.waiting_label = wrap_label(QLabel(""))
        self.waiting_label.setToolTip(
            "The pairs the traversal still has to test, in order: the rest of this level, "
            "then the pairs put on the next level so far")
        step_box = QGroupBox("This test")
        QVBoxLayout(step_box).addWidget(self.step_label)
        queue_box = QGroupBox("Waiting")
        QVBoxLayout(queue_box).addWidget(self.waiting_label)
        layout = QVBoxLayout(self)
        layout.addWidget(self.on_check)
        layout.addLayout(grid)
        layout.addWidget(self.position_label)
        layout.addWidget(self.note_label)
        layout.addWidget(step_box)
        layout.addWidget(self.counters_label)
        layout.addWidget(queue_box)
        layout.addStretch(1)
        model.step_position_changed.connect(lambda _p: self.refresh())
        model.steps_changed.connect(lambda _s: self.refresh())
        self.refresh()

    def press(self, key: str) -> None:
        """What a button (or its key) does."""
        c = self.controller
        if key == "restart":
            c.stepper.step_restart()
        elif key == "back":
            c.stepper.step_by(-1)
        elif key == "forward":
            c.stepper.step_by(+1)
        elif key == "frame":
            c.stepper.frame_pair()
        else:
            c.stepper.step_run_to(key)

    def _on_toggled(self, is_on: bool) -> None:
        if is_on:
            self.controller.stepper.start_stepper()
        else:
            self.controller.stepper.stop_stepper()

    def refresh(self) -> None:
        model = self.model
        is_on = model.is_stepping
        self.on_check.blockSignals(True)
        self.on_check.setChecked(is_on)
        self.on_check.blockSignals(False)
        view = self.controller.stepper.step_view() if is_on else None
        for key, button in self.buttons.items():
            button.setEnabled(key == "restart" or view is not None)
        if view is None:
            if not is_on:
                note = OFF_TEXT
            elif model.steps_note:
                note = model.steps_note
            else:
                note = "Preparing the pair tests of this frame…"
            self.note_label.setText(note)
            self.note_label.show()
            for label in (self.position_label, self.step_label, self.counters_label,
                          self.waiting_label):
                label.setText("")
            if is_on and model.steps_note:
                self.buttons["restart"].setEnabled(False)
            return
        self.note_label.hide()
        self.position_label.setText(position_text(view))
        self.step_label.setText(step_html(view))
        self.counters_label.setText(counters_text(view))
        self.waiting_label.setText(waiting_text(view))
