"""The dock widgets around the canvas.

Each dock writes the model (or asks the controller for an action) and refreshes itself from
model signals with its widgets' signals blocked, so a refresh never writes back.
"""

from __future__ import annotations

import enum

import numpy as np
from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtGui import QColor
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QColorDialog,
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSlider,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from viewer.controller import deformer_description, deformer_fields, deformer_names
from viewer.frame_extras import descend_choices, split_choices
from viewer.model import UpdateChoice
from viewer.qt.volume_choice import VolumeChoice
from viewer.qt.widgets import FloatSlider, StopSlider
from viewer.render.overlays import KIND_LABELS, shown_result
from viewer.render.scene import DISPLAY_MAX_TRIANGLES, frame_kind
from viewer.render.words import pair_noun, volume_noun
from viewer.scenes import SCENES
from viewer.timing import PHASE_WORDS, last_and_median, shown_phases

MAX_CULLED_LINES = 8
"""Culled partners the inspector explains one per line; the rest are counted."""


def _dock(title: str, object_name: str, widget: QWidget) -> QDockWidget:
    dock = QDockWidget(title)
    dock.setObjectName(object_name)  # QSettings restores dock layout by object name
    # A scroll area keeps every control reachable when the screen is small.
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    scroll.setWidget(widget)
    scroll.setMinimumWidth(330)
    # A combo box is as wide as its longest entry by default, which pushed panels wider than
    # the dock column and clipped their right edge ("SAH drift" in the Pipeline dock).
    for combo in widget.findChildren(QComboBox):
        _narrow(combo)
    dock.setWidget(scroll)
    dock.panel = widget
    return dock


COMBO_MIN_CHARS = 14
"""Characters a combo box shows when the dock is narrow; its popup still shows the whole
entries."""


def _narrow(combo: QComboBox) -> QComboBox:
    """Let a combo box shrink to :data:`COMBO_MIN_CHARS` instead of its longest entry."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(COMBO_MIN_CHARS)
    return combo


def _wrap(label: QLabel) -> QLabel:
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


UPDATE_CHOICES = (
    (UpdateChoice.REFIT, "refit every frame",
     "Keep the tree's shape and recompute its volumes bottom-up from the moved triangles: "
     "fast, but the volumes loosen as the mesh deforms (the drift grows)."),
    (UpdateChoice.REBUILD, "rebuild every frame",
     "Build the tree anew from the triangles every frame: tight volumes, slow build."),
    (UpdateChoice.AUTO, "auto: rebuild when drift > threshold",
     "Refit, and rebuild once the SAH drift (how much costlier the refitted tree is than "
     "at its last build) passes the threshold."),
)
"""Label and tooltip of each tree-update choice."""

AXIS_TIPS = {
    "x": "the mesh's own x axis", "y": "the mesh's own y axis", "z": "the mesh's own z axis",
    "longest": "the longest side of the mesh's rest box",
    "shortest": "the shortest side of the mesh's rest box",
}
"""Words for the values of a deformer's axis choice (``core.deform.Axis``)."""


def choice_tip(label: str, value) -> str:
    """Tooltip of one value of a deformer's choice field, e.g. "axis: the longest side of
    the mesh's rest box"."""
    return f"{label}: {AXIS_TIPS.get(str(value), str(value).replace('_', ' '))}"


def body_notes(body, display) -> list[str]:
    """What the user should know about a body's mesh: the notes loading found
    (``Body.notes``) and whether it is drawn with fewer triangles than it has."""
    notes = list(body.notes)
    n_faces = body.rest.n_faces
    if n_faces > DISPLAY_MAX_TRIANGLES and not display.is_full_resolution:
        notes.append(f"drawn with about {DISPLAY_MAX_TRIANGLES:,} of its {n_faces:,} triangles "
                     "(drawing only: collision uses every triangle; tick 'draw big meshes with "
                     "every triangle' to see them all)")
    return notes


# ----------------------------------------------------------------------------------------------
#: The list entry that opens the many-objects demo (Zhou et al. 2009) in its own window: its
#: sixty moving bodies are not a two-body scene of this window.
SCENE_OCTREE_ENTRY = "__scene_octree__"


class ScenePanel(QWidget):
    """Built-in scenes (one click each) and the bodies of the current scene.

    Signals
    -------
    scene_octree_requested
        The last list entry, the scene-octree demo, was clicked.
    """

    COLUMNS = ("shown", "name", "triangles", "colour", "role", "notes")
    scene_octree_requested = pyqtSignal()

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.scene_list = QListWidget()
        for key, spec in SCENES.items():
            item = QListWidgetItem(spec.title)
            item.setData(Qt.ItemDataRole.UserRole, key)
            item.setToolTip(spec.description)
            self.scene_list.addItem(item)
        item = QListWidgetItem("Sixty moving objects: scene octree (Zhou 2009) ↗")
        item.setData(Qt.ItemDataRole.UserRole, SCENE_OCTREE_ENTRY)
        item.setToolTip("Opens its own window: an octree over the objects' oriented boxes, "
                        "each object starting its search at last frame's node.")
        self.scene_list.addItem(item)
        self.scene_list.setMaximumHeight(170)
        self.scene_list.itemClicked.connect(self._on_scene_clicked)
        self.description = _wrap(QLabel())
        self.bodies = QTableWidget(0, len(self.COLUMNS))
        self.bodies.setHorizontalHeaderLabels(list(self.COLUMNS))
        self.bodies.verticalHeader().setVisible(False)
        header = self.bodies.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.bodies.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.bodies.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.bodies.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.bodies.setMaximumHeight(140)
        self.bodies.itemSelectionChanged.connect(self._on_row_selected)
        self.bodies.itemChanged.connect(self._on_item_changed)
        self.make_b = QPushButton("Test this body as B")
        self.make_b.setToolTip("Only bodies A and B are tested; swap the selected body into B")
        self.make_b.clicked.connect(self._on_make_b)
        self.param_box = QGroupBox("Scene parameter")
        self.param_layout = QFormLayout(self.param_box)
        self.param_slider: FloatSlider | StopSlider | None = None
        self.measured: QLabel | None = None  # the gap a distance parameter gave, and its cost
        self.param_box.hide()
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Built-in scenes (click to load):"))
        layout.addWidget(self.scene_list)
        layout.addWidget(self.description)
        layout.addWidget(self.bodies)
        layout.addWidget(self.make_b)
        layout.addWidget(self.param_box)
        layout.addStretch(1)
        model.scene_changed.connect(self.refresh)
        model.body_changed.connect(lambda _i: self.refresh_rows())
        model.display_changed.connect(lambda _d: self.refresh_rows())  # full-resolution drawing
        model.frame_ready.connect(self._show_measured)
        model.selection_changed.connect(self._show_selection)

    def _on_scene_clicked(self, item: QListWidgetItem) -> None:
        key = item.data(Qt.ItemDataRole.UserRole)
        if key == SCENE_OCTREE_ENTRY:
            self.refresh()  # keep the current scene highlighted
            self.scene_octree_requested.emit()
            return
        self.controller.load_scene(key)

    def refresh(self) -> None:
        self.description.setText(
            f"<b>{self.model.scene_title}</b><br>{self.model.scene_description}")
        # The built-in scene on show, or none: after File > Open replaced the scene, no entry
        # of the list is what the canvas shows.
        rows = [row for row in range(self.scene_list.count())
                if self.scene_list.item(row).data(Qt.ItemDataRole.UserRole)
                == self.model.scene_key]
        self.scene_list.blockSignals(True)
        if rows:
            self.scene_list.setCurrentRow(rows[0])
        else:
            self.scene_list.setCurrentRow(-1)
            self.scene_list.clearSelection()
        self.scene_list.blockSignals(False)
        self.refresh_rows()
        self._refresh_param()

    def refresh_rows(self) -> None:
        self.bodies.blockSignals(True)
        self.bodies.setRowCount(len(self.model.bodies))
        for row, body in enumerate(self.model.bodies):
            shown = QTableWidgetItem()
            shown.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled
                           | Qt.ItemFlag.ItemIsSelectable)
            shown.setCheckState(Qt.CheckState.Checked if body.is_visible
                                else Qt.CheckState.Unchecked)
            self.bodies.setItem(row, 0, shown)
            self.bodies.setItem(row, 1, QTableWidgetItem(body.name))
            tris = QTableWidgetItem(f"{body.rest.n_faces:,}")
            tris.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.bodies.setItem(row, 2, tris)
            button = self.bodies.cellWidget(row, 3)
            if not isinstance(button, QPushButton):
                button = QPushButton()
                button.clicked.connect(lambda _c=False, r=row: self._pick_color(r))
                self.bodies.setCellWidget(row, 3, button)
            button.setStyleSheet(f"background-color: {body.color}")
            role = "A" if row == 0 else ("B" if row == 1 else "not tested")
            if self.model.is_self_collision and len(self.model.bodies) == 1:
                role = "against itself"
            self.bodies.setItem(row, 4, QTableWidgetItem(role))
            notes = body_notes(body, self.model.display)
            note = QTableWidgetItem(f"⚠ {len(notes)}" if notes else "")
            note.setToolTip("<br>".join(notes) if notes else "No notes about this mesh")
            self.bodies.setItem(row, 5, note)
        self.bodies.resizeColumnToContents(0)
        self.bodies.blockSignals(False)
        # Swapping a body into B needs a third body: with one or two it only confused.
        self.make_b.setVisible(len(self.model.bodies) > 2)
        self._show_selection(self.model.selected)

    def _refresh_param(self) -> None:
        while self.param_layout.rowCount():
            self.param_layout.removeRow(0)  # deletes the row's widgets
        self.param_slider = self.measured = None
        param = self.model.scene_param
        if param is None:
            self.param_box.hide()
            return
        if param.n_stops is not None:
            self.param_slider = StopSlider(param.stops(), self.model.scene_param_value)
        else:
            self.param_slider = FloatSlider(param.lo, param.hi, self.model.scene_param_value, 3)
        self.param_slider.value_changed.connect(self.model.set_scene_param_value)
        self.param_layout.addRow(f"{param.label} asked", self.param_slider)
        if param.is_distance:
            self.param_slider.setToolTip(
                f"The minimum distance between the two surfaces, from {param.lo:g} to "
                f"{param.hi:g}{' in logarithmic steps' if param.is_log else ''}; the "
                "mesh is scaled so that its triangles are exactly this far from the other's")
            self.measured = _wrap(QLabel())
            self.param_layout.addRow(self.measured)
            self._show_measured(self.model.frame)
        self.param_box.show()

    def _show_measured(self, frame) -> None:
        """The distance the frame measured between A and B, and the work that gap cost
        (from the frame's counters): what the gap slider's experiment is about."""
        param = self.model.scene_param
        if param is None or not param.is_distance or self.measured is None:
            return
        if frame is None or frame.result is None:
            self.measured.setText("measured gap: computing…")
            return
        c = frame.result.counters
        distance = getattr(frame, "distance", None)
        if c.n_contacts or distance is None:
            head = (f"the surfaces touch: <b>{c.n_contacts:,} contacts</b> (the meshes were "
                    "moved or reshaped)")
        else:
            # Four significant digits with trailing zeros: successive logarithmic stops
            # (26% apart) always read differently.
            head = (f"measured gap (minimum distance between the surfaces): "
                    f"<b>{distance.distance:#.4g}</b>")
        self.measured.setText(
            f"{head}<br>this gap costs <b>{c.n_bv_tests:,} volume tests</b> "
            f"({c.n_bv_overlaps:,} overlapping) and {c.n_tri_tests:,} triangle tests")

    def _show_selection(self, index: int) -> None:
        self.bodies.blockSignals(True)
        if 0 <= index < self.bodies.rowCount():
            self.bodies.selectRow(index)
        else:
            self.bodies.clearSelection()
        self.bodies.blockSignals(False)

    def _on_row_selected(self) -> None:
        rows = {i.row() for i in self.bodies.selectedIndexes()}
        self.model.set_selected(rows.pop() if rows else -1)

    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        if item.column() == 0:
            self.model.set_visible(item.row(), item.checkState() == Qt.CheckState.Checked)

    def _pick_color(self, row: int) -> None:
        if row >= len(self.model.bodies):
            return
        color = QColorDialog.getColor(QColor(self.model.bodies[row].color), self, "Mesh colour")
        if color.isValid():
            self.model.set_color(row, color.name())

    def _on_make_b(self) -> None:
        self.controller.swap_to_b(self.model.selected)


INSPECT_HINT = "Click a mesh to see the volume under the cursor and all its pair tests."

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
    trees = getattr(frame, "trees", ()) if frame is not None else ()
    if not trees:
        return f"at tree depth {level}"
    tree = trees[min(body, len(trees) - 1)]
    if level > tree.max_depth:
        return f"at tree depth {tree.max_depth} (its deepest)"
    return f"at tree depth {level}"


def inspect_html(info: dict, shown_level: int | None, is_self: bool = False) -> str:
    """The inspector's text for :func:`viewer.render.overlays.inspect_node`'s ``info``.

    The box's tree depth, then its pair tests grouped by traversal level (each level a link
    ``level:<d>``), with the separating test of every culled pair. The level shown on the
    canvas is marked.
    """
    # A one-mesh scene has no A and B: its box's partners are other boxes of the same mesh.
    name = "the mesh" if is_self else "AB"[info["body"]]
    other = "box" if is_self else "BA"[info["body"]]
    partners_in = "the same mesh" if is_self else other
    noun = volume_noun(info.get("kind"))
    n_prims = info["n_prims"]
    head = (f"<b>{noun} {info['node']} of {name}</b> (triangle {info['triangle']} is under "
            f"it)<br>tree depth <b>{info['depth']}</b>, {n_prims} "
            f"triangle{'' if n_prims == 1 else 's'}")
    by_level: dict[int, list[dict]] = {}
    for test in info.get("tests", []):
        by_level.setdefault(test["level"], []).append(test)
    if not by_level:
        return head + ("<br>never tested: the traversal culled a pair above it (an ancestor "
                       "pair did not overlap)")
    levels = sorted(by_level)
    span = f"{levels[0]}" if len(levels) == 1 else f"{levels[0]}–{levels[-1]}"
    lines = [head, f"partners in {partners_in} tested at traversal "
             f"level{'s' if len(levels) > 1 else ''} {span} (click a level to show it):"]
    for d in levels[:MAX_INSPECT_LEVELS]:
        tests = by_level[d]
        hits = [f"{other} {t['partner']}" for t in tests if t["is_overlap"]]
        culled = [t for t in tests if not t["is_overlap"]]
        mark = " ◀ shown" if d == shown_level else ""
        line = (f"<a href='level:{d}'>level {d}</a>{mark}: {len(tests)} tested, "
                f"{len(hits)} overlapping")
        if hits:
            line += " (" + ", ".join(hits[:MAX_CULLED_LINES])
            line += ", …)" if len(hits) > MAX_CULLED_LINES else ")"
        lines.append(line)
        for t in culled[:MAX_CULLED_LINES]:
            lines.append(f"&nbsp;&nbsp;culled {other} {t['partner']}, separated by "
                         f"{t['separation']}")
        if len(culled) > MAX_CULLED_LINES:
            lines.append(f"&nbsp;&nbsp;… and {len(culled) - MAX_CULLED_LINES} more culled")
    if len(levels) > MAX_INSPECT_LEVELS:
        lines.append(f"… and {len(levels) - MAX_INSPECT_LEVELS} more levels")
    return "<br>".join(lines)


# ----------------------------------------------------------------------------------------------
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
        self.sentence = _wrap(QLabel())
        step_layout.addWidget(self.step_check)
        step_layout.addLayout(buttons)
        step_layout.addWidget(self.sentence)

        inspect_box = QGroupBox("Inspector (click a mesh in Camera mode, Esc clears)")
        inspect_layout = QVBoxLayout(inspect_box)
        self.inspect_label = _wrap(QLabel(INSPECT_HINT))
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
        model.frame_ready.connect(lambda _f: self.refresh())
        model.level_changed.connect(lambda _l: self.refresh())
        model.display_changed.connect(lambda _d: self.refresh())
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
        plural = volume_noun(frame_kind(self.model.frame), plural=True)
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
        self.sentence.setText(self.current_sentence())

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
        self.inspect_label.setText(inspect_html(info, self.model.level, is_self))

    def _on_inspect_link(self, link: str) -> None:
        """A level in the inspector's list was clicked: show that traversal level."""
        if link.startswith("level:"):
            self.model.set_level(int(link.split(":", 1)[1]))


# ----------------------------------------------------------------------------------------------
class DeformPanel(QWidget):
    """Animated deformer of the selected body, the clock, and the sculpt brush."""

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.target = QComboBox()
        self.target.currentIndexChanged.connect(self._on_target)
        self.kind = QComboBox()
        self.kind.addItem("none", None)
        self.kind.setItemData(0, "No deformer: the mesh keeps its rest shape.",
                              Qt.ItemDataRole.ToolTipRole)
        for key, label in deformer_names():
            self.kind.addItem(label, key)
            self.kind.setItemData(self.kind.count() - 1, deformer_description(key),
                                  Qt.ItemDataRole.ToolTipRole)
        self.kind.currentIndexChanged.connect(self._on_kind)
        self.description = _wrap(QLabel())
        self.params_box = QWidget()
        self.params_layout = QFormLayout(self.params_box)
        self.params_layout.setContentsMargins(0, 0, 0, 0)
        self.play = QPushButton("Play")
        self.play.setCheckable(True)
        self.play.toggled.connect(self.model.set_playing)
        self.step = QPushButton("Step one frame")
        self.step.clicked.connect(lambda: self.controller.step_time(1.0 / 30.0))
        self.time_label = QLabel("t = 0.00 s")
        clock = QHBoxLayout()
        clock.addWidget(self.play)
        clock.addWidget(self.step)
        clock.addWidget(self.time_label)

        brush_box = QGroupBox("Sculpt brush (Sculpt mode: drag on a surface)")
        brush_layout = QFormLayout(brush_box)
        self.radius = FloatSlider(0.02, 0.5, model.brush_radius)
        self.radius.value_changed.connect(lambda v: self.model.set_brush(radius=v))
        self.strength = FloatSlider(0.05, 2.0, model.brush_strength)
        self.strength.value_changed.connect(lambda v: self.model.set_brush(strength=v))
        self.undo = QPushButton("Undo stroke (Ctrl+Z)")
        self.undo.clicked.connect(lambda: self.controller.undo_stroke())
        self.reset = QPushButton("Reset to rest shape")
        self.reset.clicked.connect(self._on_reset)
        brush_layout.addRow("radius (× size)", self.radius)
        brush_layout.addRow("strength", self.strength)
        brush_layout.addRow(self.undo)
        brush_layout.addRow(self.reset)

        layout = QVBoxLayout(self)
        form = QFormLayout()
        form.addRow("mesh", self.target)
        form.addRow("deformer", self.kind)
        layout.addLayout(form)
        layout.addWidget(self.description)
        layout.addWidget(self.params_box)
        layout.addLayout(clock)
        layout.addWidget(brush_box)
        layout.addStretch(1)
        model.scene_changed.connect(self.refresh_targets)
        model.selection_changed.connect(self._follow_selection)
        model.time_changed.connect(lambda t: self.time_label.setText(f"t = {t:.2f} s"))
        model.playing_changed.connect(self._on_playing)
        model.brush_changed.connect(self._on_brush)
        self.refresh_targets()

    def body_index(self) -> int:
        index = self.target.currentIndex()
        return index if 0 <= index < len(self.model.bodies) else -1

    def refresh_targets(self) -> None:
        self.target.blockSignals(True)
        self.target.clear()
        is_one_mesh = self.model.is_self_collision and len(self.model.bodies) == 1
        for i, body in enumerate(self.model.bodies):
            role = "AB"[i] if i < 2 else "not tested"
            self.target.addItem(body.name if is_one_mesh else f"{role}: {body.name}", i)
            self.target.setItemData(
                i, "The mesh whose deformer and sculpt brush this dock sets"
                + ("" if is_one_mesh else f" ({'tested as ' + role if i < 2 else role})"),
                Qt.ItemDataRole.ToolTipRole)
        # Start on the first body that has a deformer (the one the scene is about).
        with_deformer = [i for i, b in enumerate(self.model.bodies) if b.deformer]
        self.target.setCurrentIndex(with_deformer[0] if with_deformer else 0)
        self.target.blockSignals(False)
        self.refresh_params()

    def _follow_selection(self, index: int) -> None:
        if 0 <= index < self.target.count():
            self.target.setCurrentIndex(index)

    def _on_target(self, _index: int) -> None:
        self.refresh_params()

    def refresh_params(self) -> None:
        index = self.body_index()
        body = self.model.bodies[index] if index >= 0 else None
        self.kind.blockSignals(True)
        self.kind.setCurrentIndex(max(0, self.kind.findData(body.deformer if body else None)))
        self.kind.blockSignals(False)
        while self.params_layout.rowCount():
            self.params_layout.removeRow(0)
        if body is None or body.deformer is None:
            self.description.setText("No deformer: the mesh keeps its rest shape.")
            return
        self.description.setText(deformer_description(body.deformer))
        for spec in deformer_fields(body.deformer):
            value = body.deformer_params.get(spec.name, spec.default)
            if isinstance(spec.kind, type) and issubclass(spec.kind, enum.Enum):
                combo = _narrow(QComboBox())
                for member in spec.choices:
                    combo.addItem(str(member.value).replace("_", " "), member)
                    combo.setItemData(combo.count() - 1, choice_tip(spec.label, member.value),
                                      Qt.ItemDataRole.ToolTipRole)
                combo.setCurrentIndex(max(0, combo.findData(value)))
                combo.currentIndexChanged.connect(
                    lambda _i, n=spec.name, c=combo: self._set_param(n, c.currentData()))
                self.params_layout.addRow(spec.label, combo)
            else:
                is_int = spec.kind is int
                lo = spec.min if spec.min is not None else 0.0
                hi = spec.max if spec.max is not None else max(1.0, 2 * float(value))
                slider = FloatSlider(lo, hi, value, 3, is_integer=is_int)
                slider.value_changed.connect(
                    lambda v, n=spec.name, i=is_int: self._set_param(n, int(v) if i else v))
                self.params_layout.addRow(spec.label, slider)

    def _set_param(self, name: str, value) -> None:
        index = self.body_index()
        if index < 0:
            return
        body = self.model.bodies[index]
        params = dict(body.deformer_params)
        params[name] = value
        self.model.set_deformer(index, body.deformer, params)

    def _on_kind(self, _index: int) -> None:
        index = self.body_index()
        if index < 0:
            return
        key = self.kind.currentData()
        params = {f.name: f.default for f in deformer_fields(key)} if key else {}
        self.model.set_deformer(index, key, params)
        self.refresh_params()
        if key and not self.model.is_playing and not self.model.is_step_mode:
            self.model.set_playing(True)

    def _on_playing(self, is_playing: bool) -> None:
        self.play.blockSignals(True)
        self.play.setChecked(is_playing)
        self.play.setText("Pause" if is_playing else "Play")
        self.play.blockSignals(False)

    def _on_brush(self) -> None:
        self.radius.set_value(self.model.brush_radius)
        self.strength.set_value(self.model.brush_strength)

    def _on_reset(self) -> None:
        index = self.body_index()
        if index >= 0:
            self.controller.reset_rest(index)


# ----------------------------------------------------------------------------------------------
class PipelinePanel(QWidget):
    """Refit / rebuild / auto, drift, split and descend rules."""

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.update_mode = QComboBox()
        for choice, text, tip in UPDATE_CHOICES:
            self.update_mode.addItem(text, choice)
            self.update_mode.setItemData(self.update_mode.count() - 1, tip,
                                         Qt.ItemDataRole.ToolTipRole)
        self.update_mode.currentIndexChanged.connect(
            lambda _i: self.model.set_pipeline(update=self.update_mode.currentData()))
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.0, 5.0)
        self.threshold.setSingleStep(0.05)
        self.threshold.setDecimals(2)
        self.threshold.valueChanged.connect(
            lambda v: self.model.set_pipeline(drift_threshold=float(v)))
        self.split = QComboBox()
        for name, label, tooltip in split_choices():
            self.split.addItem(label, name)
            self.split.setItemData(self.split.count() - 1, tooltip, Qt.ItemDataRole.ToolTipRole)
        self.split.currentIndexChanged.connect(
            lambda _i: self.model.set_pipeline(split=self.split.currentData()))
        self.descend = QComboBox()
        for name, label, tooltip in descend_choices():
            self.descend.addItem(label, name)
            self.descend.setItemData(self.descend.count() - 1, tooltip,
                                     Qt.ItemDataRole.ToolTipRole)
        self.descend.currentIndexChanged.connect(
            lambda _i: self.model.set_pipeline(descend=self.descend.currentData()))
        self.margin = QDoubleSpinBox()
        self.margin.setRange(0.0, 10.0)
        self.margin.setDecimals(4)
        self.margin.setSingleStep(0.005)
        self.margin.setSpecialValueText("0 (exact contact only)")
        # Apply the typed value on Enter or leaving the box, not at every keystroke: each
        # value recomputes the frame, and "0.012" typed key by key would run 0, 0.01, 0.012.
        self.margin.setKeyboardTracking(False)
        self.margin.setToolTip(
            "Near-contact margin D. At 0 only triangles that really touch or cross are "
            "contacts, decided exactly. Above 0, triangle pairs that do not touch but are at "
            "most D apart are also reported, with their distance, in the Stats dock.")
        self.margin.valueChanged.connect(lambda v: self.model.set_pipeline(margin=float(v)))
        self.drift = _wrap(QLabel("drift: -"))
        form = QFormLayout(self)
        form.addRow("tree update", self.update_mode)
        form.addRow("drift threshold", self.threshold)
        form.addRow("split rule", self.split)
        form.addRow("descend rule", self.descend)
        form.addRow("near-contact margin", self.margin)
        self.volume_choice = VolumeChoice(model)
        form.addRow(self.volume_choice)
        form.addRow(self.drift)
        model.pipeline_changed.connect(lambda _p: self.refresh())
        model.frame_ready.connect(self._on_frame)
        self.refresh()

    def refresh(self) -> None:
        p = self.model.pipeline
        widgets = (self.update_mode, self.threshold, self.split, self.descend, self.margin)
        for widget in widgets:
            widget.blockSignals(True)
        self.margin.setValue(p.margin)
        self.update_mode.setCurrentIndex(self.update_mode.findData(p.update))
        self.threshold.setValue(p.drift_threshold)
        self.threshold.setEnabled(p.update is UpdateChoice.AUTO)
        self.split.setCurrentIndex(max(0, self.split.findData(p.split)))
        self.descend.setCurrentIndex(max(0, self.descend.findData(p.descend)))
        for combo in (self.update_mode, self.split, self.descend):
            # The chosen item's tooltip on the closed combo too.
            combo.setToolTip(combo.itemData(combo.currentIndex(), Qt.ItemDataRole.ToolTipRole))
        for widget in widgets:
            widget.blockSignals(False)

    def _on_frame(self, frame) -> None:
        if frame is None:
            self.drift.setText("drift: -")
            return
        parts = []
        names = ("mesh",) if frame.result is None else ("A", "B")  # self-collision: one
        for i, (drift, rebuilt) in enumerate(zip(frame.drift[:2], frame.rebuilt[:2])):
            parts.append(f"{names[i]}: drift {drift:+.3f}{' (rebuilt)' if rebuilt else ''}")
        self.drift.setText(
            "SAH drift since the last build (cost now / cost at build − 1):<br>"
            + "<br>".join(parts))


# ----------------------------------------------------------------------------------------------
class StatsPanel(QWidget):
    """Per-level table, totals, phase times and tree statistics."""

    HEADERS = ("traversal level", "tested", "overlap", "leaf pairs")

    def __init__(self, model, parent=None):
        super().__init__(parent)
        self.model = model
        self.table = QTableWidget(0, len(self.HEADERS))
        self.table.setHorizontalHeaderLabels(list(self.HEADERS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setMinimumHeight(180)
        self.totals = _wrap(QLabel())
        self.phases = _wrap(QLabel())
        self.trees = _wrap(QLabel())
        self.relation = _wrap(QLabel())  # contact kinds, or containment when apart
        self.meshes = _wrap(QLabel())  # hidden bodies and each mesh's notes
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.relation)
        layout.addWidget(self.totals)
        layout.addWidget(self.meshes)
        layout.addWidget(self.phases)
        layout.addWidget(self.trees)
        model.frame_ready.connect(self.refresh)
        model.scene_changed.connect(self._refresh_meshes)
        model.body_changed.connect(lambda _i: self._refresh_meshes())
        model.display_changed.connect(lambda _d: self._refresh_meshes())
        model.view_timings_changed.connect(lambda _t: self._refresh_phases(self.model.frame))
        model.level_changed.connect(lambda _l: self._highlight_level())

    def refresh(self, frame) -> None:
        result = shown_result(frame)
        self.relation.setText(relation_text(frame, result))
        self._refresh_meshes()
        if frame is None or result is None:
            self.table.setRowCount(0)
            self.totals.setText("")
            self.trees.setText("")
            self._refresh_phases(frame)
            return
        trace = result.trace
        if trace is not None:
            tested = trace.tested_per_level
            overlap = trace.overlapping_per_level
            leaves = trace.leaf_pairs_per_level
            self.table.setRowCount(trace.n_levels)
            for d in range(trace.n_levels):
                for col, value in enumerate((d, tested[d], overlap[d], leaves[d])):
                    item = QTableWidgetItem(f"{int(value):,}")
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                    self.table.setItem(d, col, item)
            self._highlight_level()
        c = result.counters
        self.totals.setText(
            f"<b>Totals</b>: volume tests N<sub>bv</sub> = {c.n_bv_tests:,} "
            f"({pair_noun(frame_kind(frame))} tested; {c.n_bv_overlaps:,} overlapping, "
            f"{c.n_leaf_pairs:,} leaf pairs); "
            f"triangle tests N<sub>p</sub> = {c.n_tri_tests:,}; contacts = {c.n_contacts:,}")
        rows = []
        names = ("mesh",) if frame.result is None else ("A", "B")  # self-collision: one tree
        for i, tree in enumerate(frame.trees[:len(names)]):
            s = tree.stats
            rows.append(
                f"{names[i]}: {tree.n_nodes:,} nodes, depth {s.depth_min}–{s.depth_max}, "
                f"SAH drift {frame.drift[i]:+.3f}{' (rebuilt now)' if frame.rebuilt[i] else ''}")
        self.trees.setText("<b>Trees</b><br>" + "<br>".join(rows))
        self._refresh_phases(frame)

    def _refresh_meshes(self) -> None:
        """Which tested bodies are hidden (the counts include them, the canvas does not draw
        them), and the notes about each mesh."""
        lines = []
        for i, body in enumerate(self.model.bodies):
            role = ("" if self.model.is_self_collision and len(self.model.bodies) == 1
                    else f"{'AB'[i]}, " if i < 2 else "not tested, ")
            if not body.is_visible and i < 2:
                lines.append(f"<b>{body.name}</b> ({role}hidden): its mesh, "
                             f"{volume_noun(frame_kind(self.model.frame), plural=True)}, pair "
                             "volumes and contacts are not drawn; the counts above include it")
            for note in body_notes(body, self.model.display):
                lines.append(f"<b>{body.name}</b>: {note}")
        self.meshes.setText("<b>Meshes</b><br>" + "<br>".join(lines) if lines else "")

    def _refresh_phases(self, frame) -> None:
        if frame is None:
            self.phases.setText("")
            return
        history = self.model.timing_history
        # "volume fit" appears for kinds other than the tree's own boxes (they fit their
        # volumes every frame, before the traversal: the cost the OBB fit choice changes);
        # a self-collision scene shows its self-collision time instead of an empty
        # traverse.
        words = dict(PHASE_WORDS)
        parts = [f"{words[name]} {last_and_median(history, name)}"
                 for name in shown_phases(frame.timings, frame.result is None)]
        n = history.count("total")
        self.phases.setText(
            "<b>Phase times (ms)</b>, last frame (median of the "
            f"{n} frame{'' if n == 1 else 's'} of the last second): " + ", ".join(parts))

    def _highlight_level(self) -> None:
        level = self.model.level
        self.table.clearSelection()
        if level is not None and level < self.table.rowCount():
            self.table.selectRow(level)


def relation_text(frame, result) -> str:
    """Stats line about how the tested meshes meet: contacts per kind, or, with no contact,
    containment ("A is inside B", "apart", "undefined: B is open (N boundary edges)")."""
    if frame is None or result is None:
        return ""
    text = _contact_relation(frame, result)
    near = getattr(result, "near_pairs", None)
    if getattr(result, "margin", 0.0) > 0.0 and near is not None:
        text += (f"<br>{len(near):,} near pairs (not touching, at most {result.margin:g} "
                 f"apart)")
        if len(near):
            text += f", closest {float(np.min(result.near_distances)):.4g}"
    return text


def _contact_relation(frame, result) -> str:
    is_self = frame.result is None
    who = "Self-collision" if is_self else "A and B"
    if result.n_contacts:
        kinds = np.asarray(result.kinds)
        parts = [f"{int(np.count_nonzero(kinds == k)):,} {label}"
                 for k, label in KIND_LABELS.items() if np.any(kinds == k)]
        return f"<b>{who}</b>: {result.n_contacts:,} contact pairs ({', '.join(parts)})"
    containment = getattr(frame, "containment", None)
    if containment is not None:
        return f"<b>No contact</b>: {containment.text}"
    return f"<b>{who}</b>: no contact"


def make_docks(model, controller) -> dict[str, QDockWidget]:
    """Every dock, by object name."""
    return {
        "scene_dock": _dock("Scene", "scene_dock", ScenePanel(model, controller)),
        "levels_dock": _dock("Levels and overlays", "levels_dock", LevelsPanel(model, controller)),
        "deform_dock": _dock("Deform", "deform_dock", DeformPanel(model, controller)),
        "pipeline_dock": _dock("Pipeline", "pipeline_dock", PipelinePanel(model, controller)),
        "stats_dock": _dock("Stats", "stats_dock", StatsPanel(model)),
    }
