"""The Pipeline dock: tree update (refit / rebuild / auto), drift, split and descend rules,
near-contact margin, bounding-volume kind, and the optional analyses with their cost
(:mod:`viewer.qt.panels.analyses`)."""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QDoubleSpinBox, QFormLayout, QLabel, QWidget

from viewer.qt.panels.analyses import AnalysesBox
from viewer.qt.panels.common import wrap_label
from viewer.qt.panels.volume_choice import VolumeChoice
from viewer.qt.widgets import pipeline_combo
from viewer.state.pipeline import UpdateChoice
from viewer.words.choices import descend_choices, split_choices

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


class PipelinePanel(QWidget):
    """Refit / rebuild / auto, drift, split and descend rules."""

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.update_mode = pipeline_combo(model, "update", UPDATE_CHOICES)
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.0, 5.0)
        self.threshold.setSingleStep(0.05)
        self.threshold.setDecimals(2)
        self.threshold.valueChanged.connect(
            lambda v: self.model.set_pipeline(drift_threshold=float(v)))
        self.split = pipeline_combo(model, "split", split_choices())
        self.descend = pipeline_combo(model, "descend", descend_choices())
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
        self.drift = wrap_label(QLabel("drift: -"))
        # On a first start: which of the chosen kernels still compile (hidden otherwise).
        self.compile_note = wrap_label(QLabel())
        self.compile_note.setObjectName("compile_note")
        self.compile_note.setStyleSheet("QLabel { background: #fff3c4; padding: 4px; }")
        self.compile_note.hide()
        form = QFormLayout(self)
        form.addRow(self.compile_note)
        form.addRow("tree update", self.update_mode)
        form.addRow("drift threshold", self.threshold)
        form.addRow("split rule", self.split)
        form.addRow("descend rule", self.descend)
        form.addRow("near-contact margin", self.margin)
        self.volume_choice = VolumeChoice(model)
        form.addRow(self.volume_choice)
        form.addRow(self.drift)
        self.analyses = AnalysesBox(model)
        form.addRow(self.analyses)
        model.pipeline_changed.connect(lambda _p: self.refresh())
        model.frame_ready.connect(self._on_frame)
        model.kernels_changed.connect(lambda _k: self._show_compile_note())
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
        self._show_compile_note()

    def _show_compile_note(self) -> None:
        missing = self.controller.kernels.missing_kernels()
        self.compile_note.setVisible(bool(missing))
        if missing:
            status = self.model.kernels
            self.compile_note.setText(
                f"<b>Not compiled yet:</b> {', '.join(missing)} (compiling kernels "
                f"{status.n_done} of {status.n_steps}, first start). Until then frames run as "
                "Python: the same answers, more slowly. They speed up by themselves.")

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
