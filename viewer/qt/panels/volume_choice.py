"""Choice of bounding volume, OBB fit and spatial partition (part of the Pipeline dock).

Writes ``model.pipeline.bv`` / ``obb_fit`` / ``partition``; refreshes itself from the model
with its widgets' signals blocked.
"""

from __future__ import annotations

from PyQt6.QtWidgets import QFormLayout, QGroupBox, QLabel

from viewer.qt.widgets import pipeline_combo
from viewer.words.choices import bv_choices, obb_fit_choices, partition_choices, partition_tip
from viewer.words.kinds import has_fit_choice

OBB_SPLIT = "OBB"
"""Split rule that cuts across the node's own oriented box (Gottschalk et al. 1996)."""


class VolumeChoice(QGroupBox):
    """Three combos, "Bounding volume", "OBB fit" and "Spatial partition", and a sentence on
    the kind."""

    def __init__(self, model, parent=None):
        super().__init__("Bounding volume and partition", parent)
        self.model = model
        self.bv = pipeline_combo(model, "bv", bv_choices())
        self._descriptions = {key: description for key, _l, description in bv_choices()}
        self.obb_fit = pipeline_combo(model, "obb_fit", obb_fit_choices())
        self._fit_tooltips = {name: tip for name, _l, tip in obb_fit_choices()}
        self.partition = pipeline_combo(
            model, "partition",
            ((key, label, partition_tip(key)) for key, label in partition_choices()))
        self.description = QLabel()
        self.description.setWordWrap(True)
        form = QFormLayout(self)
        form.addRow("Bounding volume", self.bv)
        form.addRow("OBB fit", self.obb_fit)
        form.addRow("Spatial partition", self.partition)
        form.addRow(self.description)
        model.pipeline_changed.connect(lambda _p: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        p = self.model.pipeline
        for combo, value in ((self.bv, p.bv), (self.obb_fit, p.obb_fit),
                             (self.partition, p.partition)):
            combo.blockSignals(True)
            combo.setCurrentIndex(max(0, combo.findData(value)))
            combo.blockSignals(False)
        is_obb = has_fit_choice(p.bv)  # the "OBB fit" combo is enabled only for such kinds
        self.obb_fit.setEnabled(is_obb)
        self.obb_fit.setToolTip(
            self._fit_tooltips.get(p.obb_fit, "") if is_obb
            else "How the oriented boxes' axes are chosen: pick the OBB bounding volume first.")
        text = self._descriptions.get(p.bv, "")
        if is_obb:
            text += f" OBB fit: {self._fit_tooltips.get(p.obb_fit, '')}"
            if p.split != OBB_SPLIT:
                text += (" The split rule 'OBB longest axis, mean (OBBTree)' builds the tree "
                         "the OBBTree paper pairs with these boxes.")
        if p.partition != "none":
            text += (" The partition's cells that hold triangles of both meshes are drawn in "
                     "wine red (BSP: its splitting planes too); its candidate count is on the "
                     "canvas.")
        self.description.setText(text)
