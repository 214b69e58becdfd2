"""The dock widgets around the canvas: each panel of :mod:`viewer.qt.panels` in a scrolled
dock, by object name.

Each dock writes the model (or asks the controller for an action) and refreshes itself from
model signals with its widgets' signals blocked, so a refresh never writes back.
"""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QComboBox, QDockWidget, QFrame, QScrollArea, QWidget

from viewer.qt.panels.common import WhenShown, narrow_combo
from viewer.qt.panels.deform import DeformPanel
from viewer.qt.panels.experiments import ExperimentsPanel
from viewer.qt.panels.levels import LevelsPanel
from viewer.qt.panels.outliner import OutlinerPanel
from viewer.qt.panels.pipeline import PipelinePanel
from viewer.qt.panels.pseudocode import PseudocodePanel
from viewer.qt.panels.quality import QualityPanel
from viewer.qt.panels.scene import ScenePanel
from viewer.qt.panels.stats import StatsPanel
from viewer.qt.panels.stepper import StepperPanel


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
        narrow_combo(combo)
    dock.setWidget(scroll)
    # A panel that skipped its per-frame refresh while its tab was behind another catches
    # up when the tab is raised (the panel itself gets no show event then).
    for refresh in widget.findChildren(WhenShown):
        dock.visibilityChanged.connect(refresh.on_dock_visibility)
    dock.panel = widget
    return dock


def make_docks(model, controller) -> dict[str, QDockWidget]:
    """Every dock, by object name."""
    return {
        "scene_dock": _dock("Scene", "scene_dock", ScenePanel(model, controller)),
        "levels_dock": _dock("Levels and overlays", "levels_dock", LevelsPanel(model, controller)),
        "deform_dock": _dock("Deform", "deform_dock", DeformPanel(model, controller)),
        "pipeline_dock": _dock("Pipeline", "pipeline_dock", PipelinePanel(model, controller)),
        "stats_dock": _dock("Stats", "stats_dock", StatsPanel(model)),
        "stepper_dock": _dock("Stepper", "stepper_dock", StepperPanel(model, controller)),
        "pseudocode_dock": _dock("Pseudo-code", "pseudocode_dock",
                                 PseudocodePanel(model, controller)),
        "quality_dock": _dock("Quality", "quality_dock", QualityPanel(model, controller)),
        "outliner_dock": _dock("Outliner", "outliner_dock", OutlinerPanel(model, controller)),
        "experiments_dock": _dock("Experiments", "experiments_dock",
                                  ExperimentsPanel(model, controller)),
    }
