"""The user's per-frame pipeline choices and the last cost of each optional analysis."""

from __future__ import annotations

from dataclasses import replace

from PyQt6.QtCore import QObject, pyqtSignal

from viewer.state.pipeline import AnalysisCost, PipelineChoice


class PipelineModel(QObject):
    """What the Pipeline dock chose. Setters emit a signal only when the value changes."""

    pipeline_changed = pyqtSignal(object)
    analysis_costs_changed = pyqtSignal()  # an optional analysis was measured anew

    def __init__(self, parent=None):
        super().__init__(parent)
        self.pipeline = PipelineChoice()
        # The last measured cost of each optional analysis ("distance", "containment",
        # "self", "heat", "ghost", "cross-check") for the Pipeline dock.
        self.analysis_costs: dict[str, AnalysisCost] = {}

    @property
    def is_self_collision(self) -> bool:
        """The scene tests its first body against itself: ``pipeline.self_collision``, the one
        place it is held (the Pipeline dock's check box writes it too)."""
        return self.pipeline.self_collision

    @is_self_collision.setter
    def is_self_collision(self, value: bool) -> None:
        # Set while a scene is replaced, which asks for its frame itself: no signal here.
        self.pipeline = replace(self.pipeline, self_collision=bool(value))

    def set_pipeline(self, **changes) -> None:
        new = replace(self.pipeline, **changes)
        if new != self.pipeline:
            self.pipeline = new
            self.pipeline_changed.emit(new)

    def set_analysis_cost(self, key: str, ms: float, frame_index: int | None) -> None:
        """The last measured cost of the optional analysis ``key`` (Pipeline dock)."""
        self.analysis_costs[key] = AnalysisCost(float(ms), frame_index)
        self.analysis_costs_changed.emit()
