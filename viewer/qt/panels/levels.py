"""The Levels and overlays dock: level slider, overlay toggles, step mode and the volume
inspector, with the words they show."""

from __future__ import annotations

import numpy as np
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from viewer.qt.panels.common import WhenShown, wrap_label
from viewer.qt.widgets import FloatSlider
from viewer.render.style import frame_words
from viewer.render.words import node_label, shown_node_id
from viewer.words.actions import shortcut_of

MAX_CULLED_LINES = 8
"""Culled partners the inspector explains one per line; the rest are counted."""

INSPECT_HINT = "Click a mesh to see the volume under the cursor and all its pair tests."

HEAT_CHOICES = (
    ("off", "Off", "No heat map: the meshes in their own colours"),
    ("work", "Triangles: work", "Each triangle coloured by the volume tests of the leaf "
     "holding it plus the exact triangle tests it took part in, this frame"),
    ("visits", "Nodes: visits", "The boxes at this tree depth coloured by the volume tests "
     "each took part in, this frame"),
    ("sah", "Nodes: SAH share", "The boxes at this tree depth coloured by their share of the "
     "tree's surface-area cost (MacDonald and Booth 1990): where a query is expected to pay"),
)
"""Heat map choices: (``Display.heat_map`` value, words, tooltip)."""

LOG_TIP = ("Colour by the logarithm: counts that span several powers of ten stay apart (zero "
           "stays the lowest colour)")

HEAT_KEY = shortcut_of("view.heat")
"""Shortcut that steps through the heat map choices."""

GHOST_KEY = shortcut_of("view.ghost")
"""Shortcut of the ghost toggle."""

MAX_INSPECT_LEVELS = 8
"""Traversal levels the inspector lists for one box; the rest are counted."""


def level_text(level: int | None, n_levels: int) -> str:
    """The level slider's label: "traversal level 5 of 25 (levels 0–24)", "all 25 traversal
    levels"; levels count from 0, as in the Stats table and the step-mode sentences."""
    if n_levels == 0:
        return "no traversal yet"
    if level is None:
        return f"all {n_levels} traversal levels"
    return (f"traversal level {min(level, n_levels - 1)} of {n_levels} "
            f"(levels 0–{n_levels - 1})")


def tree_depth_text(frame, body: int, level: int | None) -> str:
    """Which tree depth the tree overlay of ``body`` draws at traversal level ``level``:
    "at tree depth 5", "at tree depth 9 (its deepest)", "at every depth"."""
    if level is None:
        return "at every depth"
    trees = frame.trees if frame is not None else ()
    if not trees:
        return f"at tree depth {level}"
    tree = trees[min(body, len(trees) - 1)]
    if level > tree.max_depth:
        return f"at tree depth {tree.max_depth} (its deepest)"
    return f"at tree depth {level}"


def inspect_html(info, shown_level: int | None, is_self: bool = False,
                 file_ids: dict | None = None) -> str:
    """The inspector's text for ``info``, a :class:`core.lab.inspect.NodeInspection`.

    The box's tree depth, then its pair tests grouped by traversal level (each level a link
    ``level:<d>``), with the separating test of every culled pair. The level shown on the
    canvas is marked. ``file_ids``: per body whose tree was read from a file, the file's
    node ids (``(k,) int64``); its nodes are then named by them.
    """
    # A one-mesh scene has no A and B: its box's partners are other boxes of the same mesh.
    body = info.body
    name = "the mesh" if is_self else "AB"[body]
    other = "box" if is_self else "BA"[body]
    partners_in = "the same mesh" if is_self else other
    noun = info.noun
    n_prims = info.n_prims
    own_ids = (file_ids or {}).get(body)
    other_ids = (file_ids or {}).get(body if is_self else 1 - body)
    head = (f"<b>{noun} {node_label(info.node, own_ids)} of {name}</b> (triangle "
            f"{info.triangle} is under "
            f"it)<br>tree depth <b>{info.depth}</b>, {n_prims} "
            f"triangle{'' if n_prims == 1 else 's'}")
    by_level: dict[int, list] = {}
    for test in info.tests:
        by_level.setdefault(test.level, []).append(test)
    if not by_level:
        return head + ("<br>never tested: the traversal culled a pair above it (an ancestor "
                       "pair did not overlap)")
    levels = sorted(by_level)
    span = f"{levels[0]}" if len(levels) == 1 else f"{levels[0]}–{levels[-1]}"
    lines = [head, f"partners in {partners_in} tested at traversal "
             f"level{'s' if len(levels) > 1 else ''} {span} (click a level to show it):"]
    for d in levels[:MAX_INSPECT_LEVELS]:
        tests = by_level[d]
        hits = [f"{other} {shown_node_id(t.partner, other_ids)}" for t in tests
                if t.is_overlap]
        culled = [t for t in tests if not t.is_overlap]
        mark = " ◀ shown" if d == shown_level else ""
        line = (f"<a href='level:{d}'>level {d}</a>{mark}: {len(tests)} tested, "
                f"{len(hits)} overlapping")
        if hits:
            line += " (" + ", ".join(hits[:MAX_CULLED_LINES])
            line += ", …)" if len(hits) > MAX_CULLED_LINES else ")"
        lines.append(line)
        for t in culled[:MAX_CULLED_LINES]:
            lines.append(f"&nbsp;&nbsp;culled {other} {shown_node_id(t.partner, other_ids)}, "
                         "separated by "
                         f"{t.separation}")
        if len(culled) > MAX_CULLED_LINES:
            lines.append(f"&nbsp;&nbsp;… and {len(culled) - MAX_CULLED_LINES} more culled")
    if len(levels) > MAX_INSPECT_LEVELS:
        lines.append(f"… and {len(levels) - MAX_INSPECT_LEVELS} more levels")
    return "<br>".join(lines)


class LevelsPanel(QWidget):
    """Level slider, overlay toggles, step mode and the volume inspector."""

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.setPageStep(1)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.valueChanged.connect(self._on_slider)
        self.level_label = QLabel("level: all")
        self.level_label.setToolTip(
            "A traversal level is one round of pair tests: level 0 tests the two roots, and "
            "every overlapping pair of level d puts the pairs of its children at level d + 1. "
            "It is not a tree depth: with the larger-volume rule a box at depth 5 may be tested "
            "at levels 9 to 11.")
        self.checks: dict[str, QCheckBox] = {}
        # The two tree toggles name the tree depth they draw (set in refresh); the others are
        # short, two to a row, so that the panel fits a 1280x800 screen without scrolling.
        toggles = (
            ("show_tree_a", "boxes of A", "The boxes of A's tree at the tree depth equal to "
             "the traversal level (or the tree's deepest level, if it is shallower)"),
            ("show_tree_b", "boxes of B", "The boxes of B's tree at the tree depth equal to "
             "the traversal level (or the tree's deepest level, if it is shallower)"),
            ("show_overlap", "overlapping pairs",
             "Both volumes of every pair the traversal found overlapping at this level"),
            ("show_culled", "culled pairs (faint)",
             "Both volumes of every pair tested and culled at this level"),
            ("show_parents", "parent boxes (faint)", "The boxes one tree depth above"),
            ("show_contacts", "contacts",
             "Contacting triangles, coloured by how they meet, and their intersection segments"),
            ("is_full_resolution", "every triangle (slower)",
             "Draw big meshes with every triangle instead of a lighter copy (collision always "
             "uses every triangle)"),
        )
        toggle_box = QGroupBox("Draw")
        toggle_layout = QGridLayout(toggle_box)
        for i, (field, text, tip) in enumerate(toggles):
            box = QCheckBox(text)
            box.setToolTip(tip)
            box.toggled.connect(lambda on, f=field: self.model.set_display(**{f: on}))
            if i < 2:
                toggle_layout.addWidget(box, i, 0, 1, 2)
            else:
                toggle_layout.addWidget(box, 2 + (i - 2) // 2, (i - 2) % 2)
            self.checks[field] = box
        self.opacity = FloatSlider(0.05, 1.0, model.display.mesh_opacity)
        self.opacity.value_changed.connect(lambda v: self.model.set_display(mesh_opacity=v))
        opacity_row = QHBoxLayout()
        opacity_row.addWidget(QLabel("mesh opacity"))
        opacity_row.addWidget(self.opacity, 1)
        toggle_layout.addLayout(opacity_row, 5, 0, 1, 2)
        self.heat_combo = QComboBox()
        for value, text, tip in HEAT_CHOICES:
            self.heat_combo.addItem(text, value)
            self.heat_combo.setItemData(self.heat_combo.count() - 1, tip,
                                        Qt.ItemDataRole.ToolTipRole)
        self.heat_combo.setToolTip(f"Colour by where this frame's query spent its work "
                                   f"({HEAT_KEY} steps through the choices)")
        self.heat_combo.currentIndexChanged.connect(
            lambda i: self.model.set_display(heat_map=self.heat_combo.itemData(i)))
        self.heat_log = QCheckBox("log scale")
        self.heat_log.setToolTip(LOG_TIP)
        self.heat_log.toggled.connect(lambda on: self.model.set_display(heat_log=on))
        heat_row = QHBoxLayout()
        heat_row.addWidget(QLabel("heat map"))
        heat_row.addWidget(self.heat_combo, 1)
        heat_row.addWidget(self.heat_log)
        toggle_layout.addLayout(heat_row, 6, 0, 1, 2)
        self.heat_note = wrap_label(QLabel(""))
        self.heat_note.setStyleSheet("color: #b84400;")
        toggle_layout.addWidget(self.heat_note, 7, 0, 1, 2)
        self.ghost_check = QCheckBox("Ghost: freshly built tree")
        self.ghost_check.setToolTip(
            f"Grey dashes: the volumes of a tree built afresh on the current vertices (same "
            f"split rule and leaf size) beside the refitted ones, and both SAH costs in the "
            f"legend; a refit that drifted shows bigger volumes than its ghost ({GHOST_KEY})")
        self.ghost_check.toggled.connect(lambda on: self.model.set_display(show_ghost=on))
        toggle_layout.addWidget(self.ghost_check, 8, 0, 1, 2)

        step_box = QGroupBox("Step mode (teaching)")
        step_layout = QVBoxLayout(step_box)
        self.step_check = QCheckBox("pause and reveal one level at a time")
        self.step_check.toggled.connect(self.model.set_step_mode)
        self.prev_button = QPushButton("◀ Previous level")
        self.next_button = QPushButton("Next level ▶")
        self.prev_button.clicked.connect(lambda: self.step_level(-1))
        self.next_button.clicked.connect(lambda: self.step_level(+1))
        buttons = QHBoxLayout()
        buttons.addWidget(self.prev_button)
        buttons.addWidget(self.next_button)
        self.sentence = wrap_label(QLabel())
        step_layout.addWidget(self.step_check)
        step_layout.addLayout(buttons)
        step_layout.addWidget(self.sentence)

        inspect_box = QGroupBox("Inspector (click a mesh in Camera mode, Esc clears)")
        inspect_layout = QVBoxLayout(inspect_box)
        self.inspect_label = wrap_label(QLabel(INSPECT_HINT))
        # Each traversal level in the list is a link that moves the level slider there.
        self.inspect_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.inspect_label.linkActivated.connect(self._on_inspect_link)
        inspect_layout.addWidget(self.inspect_label)

        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<b>Traversal level</b> (one round of pair tests)"))
        layout.addWidget(self.slider)
        layout.addWidget(self.level_label)
        layout.addWidget(toggle_box)
        layout.addWidget(step_box)
        layout.addWidget(inspect_box)
        layout.addStretch(1)
        self.frame_refresh = WhenShown(self, model, lambda _f: self.refresh())
        model.frame_ready.connect(self.frame_refresh)
        model.level_changed.connect(lambda _l: self.refresh())
        model.display_changed.connect(lambda _d: self.refresh())
        model.analysis_changed.connect(self._refresh_heat)
        model.step_mode_changed.connect(self._on_step_mode)
        model.inspect_changed.connect(self._show_inspect)
        self.refresh()
        self._on_step_mode(model.is_step_mode)

    def n_levels(self) -> int:
        return self.model.n_levels()

    def slider_value_for(self, level: int | None) -> int:
        """Slider position of a level (the last position is "all")."""
        n = self.n_levels()
        return n if level is None else min(level, max(n - 1, 0))

    def refresh(self) -> None:
        n = self.n_levels()
        self.slider.blockSignals(True)
        self.slider.setRange(0, n)
        self.slider.setValue(self.slider_value_for(self.model.level))
        self.slider.blockSignals(False)
        self.level_label.setText(level_text(self.model.level, n))
        plural = frame_words(self.model.frame).plural
        frame = self.model.frame
        is_one_mesh = frame is not None and len(frame.trees) == 1
        for field, name in (("show_tree_a", "A"), ("show_tree_b", "B")):
            where = tree_depth_text(frame, "AB".index(name), self.model.level)
            who = "the mesh" if is_one_mesh else name
            self.checks[field].setText(f"{plural} of {who} {where}")
        self.checks["show_tree_b"].setVisible(not is_one_mesh)  # there is no B
        self.checks["show_parents"].setText(f"parent {plural} (faint)")
        for field, box in self.checks.items():
            box.blockSignals(True)
            box.setChecked(getattr(self.model.display, field))
            box.blockSignals(False)
        self.opacity.set_value(self.model.display.mesh_opacity)
        self._refresh_heat()
        self.sentence.setText(self.current_sentence())

    def _refresh_heat(self) -> None:
        display = self.model.display
        self.heat_combo.blockSignals(True)
        self.heat_combo.setCurrentIndex(max(0, self.heat_combo.findData(display.heat_map)))
        self.heat_combo.blockSignals(False)
        for box, value in ((self.heat_log, display.heat_log),
                           (self.ghost_check, display.show_ghost)):
            box.blockSignals(True)
            box.setChecked(value)
            box.blockSignals(False)
        self.heat_log.setEnabled(display.heat_map != "off")
        note = ""
        tip = LOG_TIP
        if display.heat_map != "off" and self.model.frame is not None:
            heat, why = self.controller.analysis.heat_for(self.model.frame)
            note = f"Heat map {why}" if heat is None else ""
            if heat is not None:
                values = np.concatenate([heat.values(b, display.heat_map) for b in (0, 1)])
                positive = values[values > 0]
                if positive.size:
                    decades = float(np.log10(positive.max() / positive.min()))
                    tip += (f". This frame's values span {decades:.1f} powers of ten"
                            + (": the log scale shows them better" if decades >= 2 else ""))
        self.heat_log.setToolTip(tip)
        if display.show_ghost and self.controller.analysis.is_ghost_building:
            note = (note + "\n" if note else "") + "Building a fresh tree for the ghost…"
        self.heat_note.setText(note)
        self.heat_note.setVisible(bool(note))

    def next_heat_map(self) -> None:
        """The next heat map choice (Off after the last)."""
        index = (self.heat_combo.currentIndex() + 1) % self.heat_combo.count()
        self.model.set_display(heat_map=self.heat_combo.itemData(index))

    def current_sentence(self) -> str:
        from viewer.render.overlays import level_sentence

        result = self.model.shown_result()
        trace = result.trace if result is not None else None
        if trace is None:
            return ""
        if self.model.level is None:
            return "All levels together. Pick a level to see one step of the traversal."
        return level_sentence(trace, self.model.level, self.model.pipeline.descend)

    def _on_slider(self, position: int) -> None:
        n = self.n_levels()
        self.model.set_level(None if position >= n else position)

    def step_level(self, delta: int) -> None:
        n = self.n_levels()
        if n == 0:
            return
        level = self.model.level
        if level is None:
            level = -1 if delta > 0 else n
        self.model.set_level(max(0, min(n - 1, level + delta)))

    def _on_step_mode(self, is_on: bool) -> None:
        self.step_check.blockSignals(True)
        self.step_check.setChecked(is_on)
        self.step_check.blockSignals(False)
        self.prev_button.setEnabled(is_on)
        self.next_button.setEnabled(is_on)
        if is_on:
            # Step mode tells the traversal from the start: pause and go to the root pair.
            self.model.set_playing(False)
            self.model.set_level(0)
        self.refresh()

    def _show_inspect(self, info) -> None:
        if info is None:
            self.inspect_label.setText(INSPECT_HINT)
            return
        frame = self.model.frame
        is_self = frame is not None and len(frame.trees) == 1
        file_ids = ({} if self.controller is None
                    else self.controller.inspector.tree_file_ids(frame))
        self.inspect_label.setText(inspect_html(info, self.model.level, is_self, file_ids))

    def _on_inspect_link(self, link: str) -> None:
        """A level in the inspector's list was clicked: show that traversal level."""
        if link.startswith("level:"):
            self.model.set_level(int(link.split(":", 1)[1]))
