"""The Scene dock: built-in scenes (one click each) and the bodies of the current scene."""

from __future__ import annotations

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtGui import QColor
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QColorDialog,
    QFormLayout,
    QGroupBox,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from viewer.qt.panels.common import wrap_label
from viewer.qt.panels.mesh_notes import body_notes
from viewer.qt.widgets import FloatSlider, StopSlider
from viewer.scenes import SCENES
from viewer.state.side_results import shown_side

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
        # Asked before a click switches scenes (the main window asks about the recording).
        self.may_switch_scene = lambda: True
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
        self.description = wrap_label(QLabel())
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
        if not self.may_switch_scene():
            self.refresh()  # cancelled: the current scene stays highlighted
            return
        self.controller.scenes.load_scene(key)

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
            self.measured = wrap_label(QLabel())
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
        side = shown_side(frame, self.model.side, self.model.side_by_frame)
        distance = side.distance
        if c.n_contacts:
            head = (f"the surfaces touch: <b>{c.n_contacts:,} contacts</b> (the meshes were "
                    "moved or reshaped)")
        elif distance is None:
            head = ("measured gap: computing…" if self.model.pipeline.distance else
                    "measured gap: minimum distance is off (Pipeline dock)")
        else:
            # Four significant digits with trailing zeros: successive logarithmic stops
            # (26% apart) always read differently.
            late = f" ({side.late})" if side.late else ""
            head = (f"measured gap (minimum distance between the surfaces): "
                    f"<b>{distance.distance:#.4g}</b>{late}")
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
        self.controller.scenes.swap_to_b(self.model.selected)
