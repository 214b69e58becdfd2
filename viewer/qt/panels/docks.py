"""The dock widgets around the canvas: the panel registry :data:`PANELS`, and each panel of
:mod:`viewer.qt.panels` in a scrolled dock, by object name.

Each dock writes the model (or asks the controller for an action) and refreshes itself from
model signals with its widgets' signals blocked, so a refresh never writes back. A new dock is
one panel module in this package and one row of :data:`PANELS` (CONTRIBUTING.md, "A dock
panel"): the window makes its dock, tabs it into the default layout in the row's place and
lists it in View > Docks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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


@dataclass(frozen=True)
class PanelRow:
    """One dock of the window.

    Attributes
    ----------
    name : str
        The dock's object name (``"stats_dock"``): QSettings restores the layout by it and
        the window finds the dock by it (``window.docks[name]``).
    title : str
        The dock's title, its tab's words and its View > Docks entry.
    panel : callable
        ``panel(model)`` or, with ``takes_controller``, ``panel(model, controller)``: the
        panel widget (a class of this package).
    takes_controller : bool
        Whether the panel asks the controller for actions (a panel that only shows the model
        takes the model alone).
    """

    name: str
    title: str
    panel: Callable
    takes_controller: bool = True


PANELS: list[PanelRow] = [
    PanelRow("levels_dock", "Levels and overlays", LevelsPanel),
    PanelRow("scene_dock", "Scene", ScenePanel),
    PanelRow("deform_dock", "Deform", DeformPanel),
    PanelRow("pipeline_dock", "Pipeline", PipelinePanel),
    PanelRow("stats_dock", "Stats", StatsPanel, takes_controller=False),
    PanelRow("stepper_dock", "Stepper", StepperPanel),
    PanelRow("pseudocode_dock", "Pseudo-code", PseudocodePanel),
    PanelRow("quality_dock", "Quality", QualityPanel),
    PanelRow("outliner_dock", "Outliner", OutlinerPanel),
    PanelRow("experiments_dock", "Experiments", ExperimentsPanel),
]
"""Every dock, in the tab order of the default layout (the first is raised): one tab each in a
single column on the right (:func:`viewer.qt.window.layout.default_layout`)."""


def dock_names() -> tuple[str, ...]:
    """The docks' object names in :data:`PANELS` order."""
    return tuple(row.name for row in PANELS)


def make_docks(model, controller) -> dict[str, QDockWidget]:
    """Every dock of :data:`PANELS`, by object name, in the table's order."""
    docks = {}
    for row in PANELS:
        panel = row.panel(model, controller) if row.takes_controller else row.panel(model)
        docks[row.name] = _dock(row.title, row.name, panel)
    return docks
