"""The compare view: the current frame through several bounding-volume kinds, side by side.

A non-modal dialog (View > Compare bounding volumes): tick kinds, pick a tree depth, press
Run. The table gives each kind's tightness (total volume at that depth), volume tests,
triangle tests and fit / refit / query times; below it, the tree at that depth drawn with
the first four ticked kinds.
"""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtGui import QImage, QPixmap
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from viewer.compare import DEFAULT_KINDS, compare_kinds
from viewer.frame_extras import bv_choices, volume_set
from viewer.render.thumbnails import volumes_image

MAX_PICTURES = 4
"""Kinds drawn side by side (the first ticked ones): more would be too small to read."""

COLUMNS = ("kind", "total volume at depth", "volume tests", "overlapping", "triangle tests",
           "contacts", "fit ms", "refit ms", "query ms")


class CompareDialog(QDialog):
    """Compare bounding-volume kinds on the model's current frame.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    """

    def __init__(self, model, parent=None):
        super().__init__(parent)
        self.model = model
        self.rows = []
        self.images = []
        self.setWindowTitle("Compare bounding volumes")
        self.checks: dict[str, QCheckBox] = {}
        ticks = QGridLayout()
        for n, (key, label, description) in enumerate(bv_choices()):
            box = QCheckBox(label)
            box.setToolTip(description)
            box.setChecked(key in DEFAULT_KINDS)
            self.checks[key] = box
            ticks.addWidget(box, n // 4, n % 4)
        self.level = QSpinBox()
        self.level.setRange(0, 40)
        self.level.setValue(model.level if model.level is not None else 5)
        self.level.setPrefix("tree depth ")
        self.run_button = QPushButton("Run on the current frame")
        self.run_button.clicked.connect(self.run)
        controls = QHBoxLayout()
        controls.addWidget(self.level)
        controls.addWidget(self.run_button)
        controls.addStretch(1)
        self.status = QLabel("Same trees for every kind: only the volumes differ.")
        self.status.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.pictures = QHBoxLayout()
        self.picture_labels: list[QLabel] = []
        layout = QVBoxLayout(self)
        layout.addLayout(ticks)
        layout.addLayout(controls)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        layout.addLayout(self.pictures)
        self.resize(1500, 820)

    def selected_kinds(self) -> list[str]:
        return [key for key, box in self.checks.items() if box.isChecked()]

    def run(self) -> None:
        """Fill the table and the pictures from the model's current frame."""
        frame = self.model.frame
        if frame is None or frame.result is None or len(frame.trees) < 2:
            self.status.setText("Needs a frame with two meshes (A and B).")
            return
        kinds = self.selected_kinds()
        if not kinds:
            self.status.setText("Tick at least one kind.")
            return
        level = int(self.level.value())
        self.status.setText("Running…")
        QApplication.processEvents()
        self.rows = compare_kinds(frame, kinds, level, self.model.pipeline.descend)
        self._fill_table()
        self._fill_pictures(frame, kinds[:MAX_PICTURES], level)
        best = min(self.rows, key=lambda r: r.n_bv_tests)
        tight = min(self.rows, key=lambda r: r.total_volume)
        self.status.setText(
            f"Frame {frame.index}, depth {level}: fewest volume tests with {best.label} "
            f"({best.n_bv_tests:,}); tightest at this depth: {tight.label}. Times in ms on "
            "this machine; refit marked * is looser than a fresh fit (merges child volumes).")

    def _fill_table(self) -> None:
        self.table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            values = (row.label, f"{row.total_volume:.4g}", f"{row.n_bv_tests:,}",
                      f"{row.n_bv_overlaps:,}", f"{row.n_tri_tests:,}", f"{row.n_contacts:,}",
                      f"{row.fit_ms:.2f}",
                      f"{row.refit_ms:.2f}{'' if row.refit_exact else ' *'}",
                      f"{row.query_ms:.2f}")  # fmt: skip
            for c, text in enumerate(values):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)

    def _fill_pictures(self, frame, kinds, level: int) -> None:
        for label in self.picture_labels:
            self.pictures.removeWidget(label)
            label.deleteLater()
        self.picture_labels, self.images = [], []
        for key in kinds:
            volumes = volume_set(frame, key)
            image = volumes_image(frame, volumes, level, f"{volumes.label}, depth {level}")
            self.images.append(image)
            h, w = image.shape[:2]
            qimage = QImage(image.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()
            label = QLabel()
            label.setPixmap(QPixmap.fromImage(qimage))
            label.setToolTip(volumes.label)
            self.pictures.addWidget(label)
            self.picture_labels.append(label)
