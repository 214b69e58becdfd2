"""The Deform dock: the animated deformer of the selected body, the clock, and the sculpt
brush."""

from __future__ import annotations

import enum

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from viewer.control.deformers import deformer_description, deformer_fields, deformer_names
from viewer.qt.panels.common import narrow_combo, wrap_label
from viewer.qt.widgets import FloatSlider, add_choices
from viewer.words.actions import shortcut_of

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


class DeformPanel(QWidget):
    """Animated deformer of the selected body, the clock, and the sculpt brush."""

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.target = QComboBox()
        self.target.currentIndexChanged.connect(self._on_target)
        self.kind = QComboBox()
        add_choices(self.kind, [(None, "none", "No deformer: the mesh keeps its rest shape."),
                                *((key, label, deformer_description(key))
                                  for key, label in deformer_names())])
        self.kind.currentIndexChanged.connect(self._on_kind)
        self.description = wrap_label(QLabel())
        self.params_box = QWidget()
        self.params_layout = QFormLayout(self.params_box)
        self.params_layout.setContentsMargins(0, 0, 0, 0)
        self.play = QPushButton("Play")
        self.play.setCheckable(True)
        self.play.toggled.connect(self.model.set_playing)
        self.step = QPushButton("Step one frame")
        self.step.clicked.connect(lambda: self.controller.animation.step_time(1.0 / 30.0))
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
        self.undo = QPushButton(f"Undo stroke ({shortcut_of('edit.undo')})")
        self.undo.clicked.connect(lambda: self.controller.sculpting.undo_stroke())
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
                combo = narrow_combo(QComboBox())
                add_choices(combo, ((member, str(member.value).replace("_", " "),
                                     choice_tip(spec.label, member.value))
                                    for member in spec.choices))
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
            self.controller.sculpting.reset_rest(index)
