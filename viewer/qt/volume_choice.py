"""Choice of bounding volume and spatial partition (part of the Pipeline dock).

Writes ``model.pipeline.bv`` / ``model.pipeline.partition``; refreshes itself from the model
with its widgets' signals blocked.
"""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel

from viewer.frame_extras import bv_choices, partition_choices


class VolumeChoice(QGroupBox):
    """Two combos, "Bounding volume" and "Spatial partition", and a sentence on the kind."""

    def __init__(self, model, parent=None):
        super().__init__("Bounding volume and partition", parent)
        self.model = model
        self._descriptions = {}
        self.bv = QComboBox()
        for key, label, description in bv_choices():
            self.bv.addItem(label, key)
            self.bv.setItemData(self.bv.count() - 1, description, Qt.ItemDataRole.ToolTipRole)
            self._descriptions[key] = description
        self.bv.currentIndexChanged.connect(
            lambda _i: self.model.set_pipeline(bv=self.bv.currentData()))
        self.partition = QComboBox()
        for key, label in partition_choices():
            self.partition.addItem(label, key)
        self.partition.currentIndexChanged.connect(
            lambda _i: self.model.set_pipeline(partition=self.partition.currentData()))
        self.description = QLabel()
        self.description.setWordWrap(True)
        form = QFormLayout(self)
        form.addRow("Bounding volume", self.bv)
        form.addRow("Spatial partition", self.partition)
        form.addRow(self.description)
        model.pipeline_changed.connect(lambda _p: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        p = self.model.pipeline
        for combo, value in ((self.bv, p.bv), (self.partition, p.partition)):
            combo.blockSignals(True)
            combo.setCurrentIndex(max(0, combo.findData(value)))
            combo.blockSignals(False)
        text = self._descriptions.get(p.bv, "")
        if p.partition != "none":
            text += (" The partition's cells that hold triangles of both meshes are drawn in "
                     "brown (BSP: its splitting planes in indigo); its candidate count is on "
                     "the canvas.")
        self.description.setText(text)
