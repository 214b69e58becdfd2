"""The Pipeline dock's optional analyses: one check box each, with its last measured cost.

Minimum distance and the inside test (when A and B are apart), self-collision, the heat map
and the ghost (a fresh tree beside the refitted one). Each box writes the one model field
that holds the choice (``PipelineChoice.distance``, ``.containment``, ``.self_collision``;
``Display.heat_map``, ``.show_ghost``), and reads "minimum distance — 1,588 ms (frame 37)":
the last time it took, and the frame it was measured on. The cross-check runs only when asked
for (its dialog), so it is a line with its cost, not a choice.
"""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QCheckBox, QGridLayout, QGroupBox, QLabel

from viewer.control.frame_budget import INLINE_ANALYSIS_S

BESIDE = "beside the frame"
"""Where the distance, the inside test, the ghost and the self-collision of a scene of two or
more meshes run: on their own lane, never inside the frame."""

ANALYSES = (
    ("distance", "minimum distance (apart)", BESIDE,
     "When A and B do not touch: the closest points of A and B and their distance, drawn "
     "as a purple line. Computed "
     f"{BESIDE}, on the finished frame, one at a time for the newest frame: it never slows "
     "the frames down; a result older than the frame shown says \"from frame N\"."),
    ("containment", "inside test (apart)", BESIDE,
     "When A and B do not touch: whether A is inside B, B inside A, or they are apart (a ray "
     "count through the closed "
     f"surfaces). Computed {BESIDE}, like the minimum distance."),
    ("self", "self-collision", f"the frame's query with one mesh, else {BESIDE}",
     "Test every mesh's triangles against its own. In a one-mesh scene it is the frame's one "
     "result and runs inside the frame (its time is the frame's 'self-collision' phase); with "
     f"two or more meshes it is an analysis and runs {BESIDE}, like the minimum distance."),
    ("heat", "heat map", f"counted when the frame is drawn if that is quick, else {BESIDE}",
     "Colour the meshes by the work the traversal did on them this frame (the Levels dock "
     "offers the other heat maps). Counted from the frame's trace when it is drawn while the "
     f"count took at most {1e3 * INLINE_ANALYSIS_S:.0f} ms; a slower count runs {BESIDE} and "
     "the map shown then says which frame it is of."),
    ("ghost", "ghost (fresh tree)", BESIDE,
     "Build a new tree on the frame's vertices and draw its volumes beside the refitted ones, "
     "to see how loose the refit has become. Built beside the frames, one at a time for the "
     "newest frame, and drawn as of the frame it was built on."),
)
"""(cost key, words, where it runs, tooltip) of each optional analysis, in the dock's
order."""

NOT_MEASURED = "not measured yet"
"""A cost's words before the analysis ever ran."""


class AnalysesBox(QGroupBox):
    """The optional analyses' check boxes and costs (the Pipeline dock's last section)."""

    def __init__(self, model, parent=None):
        super().__init__("Optional analyses (last measured cost, frame)", parent)
        self.model = model
        self.checks: dict[str, QCheckBox] = {}
        self.costs: dict[str, QLabel] = {}  # beside each box: its last cost and frame
        grid = QGridLayout(self)
        grid.setVerticalSpacing(2)
        for row, (key, words, where, tip) in enumerate(ANALYSES):
            check = QCheckBox(words)
            check.setObjectName(f"analysis_{key}")
            check.setToolTip(f"{tip} ({where})")
            check.toggled.connect(lambda on, key=key: self._write(key, on))
            cost = QLabel()
            cost.setToolTip(f"{tip} ({where})")
            cost.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.checks[key], self.costs[key] = check, cost
            grid.addWidget(check, row, 0)
            grid.addWidget(cost, row, 1)
        self.cross_check = QLabel()
        self.cross_check.setToolTip("Another engine's verdict on the shown frame's contacts: "
                                    "run from its dialog, never with every frame.")
        self.cross_check_cost = QLabel()
        self.cross_check_cost.setAlignment(Qt.AlignmentFlag.AlignRight
                                           | Qt.AlignmentFlag.AlignVCenter)
        grid.addWidget(self.cross_check, len(ANALYSES), 0)
        grid.addWidget(self.cross_check_cost, len(ANALYSES), 1)
        self._heat_mode = "work"  # the heat map the box turns back on
        for signal in (model.pipeline_changed, model.display_changed):
            signal.connect(lambda _v: self.refresh())
        model.scene_changed.connect(self.refresh)
        model.analysis_costs_changed.connect(self.refresh)
        self.refresh()

    def _write(self, key: str, on: bool) -> None:
        if key == "distance":
            self.model.set_pipeline(distance=on)
        elif key == "containment":
            self.model.set_pipeline(containment=on)
        elif key == "self":
            self.model.set_pipeline(self_collision=on)
        elif key == "heat":
            self.model.set_display(heat_map=self._heat_mode if on else "off")
        elif key == "ghost":
            self.model.set_display(show_ghost=on)

    def _is_on(self, key: str) -> bool:
        pipeline, display = self.model.pipeline, self.model.display
        return {"distance": pipeline.distance, "containment": pipeline.containment,
                "self": pipeline.self_collision, "heat": display.heat_map != "off",
                "ghost": display.show_ghost}[key]

    def cost_text(self, key: str) -> str:
        """``"1,588 ms (frame 37)"``, or :data:`NOT_MEASURED`."""
        cost = self.model.analysis_costs.get(key)
        return cost.text() if cost is not None else NOT_MEASURED

    def row_text(self, key: str) -> str:
        """A row in one line: ``"minimum distance (when apart) — 1,588 ms (frame 37)"``."""
        return f"{self.checks[key].text()} — {self.cost_text(key)}"

    def refresh(self) -> None:
        if self.model.display.heat_map != "off":
            self._heat_mode = self.model.display.heat_map
        for key, _words, _where, _tip in ANALYSES:
            check = self.checks[key]
            check.blockSignals(True)
            check.setChecked(self._is_on(key))
            check.blockSignals(False)
            self.costs[key].setText(self.cost_text(key))
        self.cross_check.setText("cross-check (on demand)")
        self.cross_check_cost.setText(self.cost_text("cross-check"))
