"""Window of the scene-octree demo (Zhou et al. 2009): 60 objects moving through an octree.

View > Scene octree demo. The selected object's search is drawn: the octree nodes it visited
(boxes), the objects it ran the OBB-OBB test with (orange) and those whose OBB overlaps it
(red). The side panel counts the frame's OBB-AABB and OBB-OBB tests against a search that
starts every object at the root.
"""

from __future__ import annotations

import time
from dataclasses import replace

from PyQt6.QtCore import Qt, QTimer
from PyQt6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from viewer.canvas import Canvas
from viewer.control.scene_octree import SceneOctreeDemo
from viewer.control.worker import Tag, Workers
from viewer.render.octree_demo import (
    ROLE_COLORS,
    ROLE_LABELS,
    nodes_polydata,
    object_roles,
    objects_polydata,
)
from viewer.render.scene import set_default_view
from viewer.render.style import BACKGROUND

FRAME_INTERVAL_MS = 100
"""Animation tick. One frame's two octree queries take about 0.1 s (pure Python in the
core), so faster ticks would only queue. They run on a worker lane, newest tick first: a tick
that arrives while a frame is computed replaces the one waiting."""

NODE_COLOR = "#1f4fa8"
ALL_NODES_COLOR = "#9e9e9e"


class SceneOctreeWindow(QMainWindow):
    """The demo window.

    Parameters
    ----------
    demo : SceneOctreeDemo, optional
        Built with 60 objects when not given.
    """

    def __init__(self, parent=None, demo: SceneOctreeDemo | None = None):
        super().__init__(parent)
        self.setWindowTitle("Scene octree over object OBBs (Zhou et al. 2009)")
        self.demo = demo if demo is not None else SceneOctreeDemo()
        self.t = 0.0
        self.frame = None
        self.plotter = Canvas(self, multi_samples=0)
        self.plotter.set_background(BACKGROUND)
        panel = QWidget()
        self.play = QPushButton("Play")
        self.play.setCheckable(True)
        self.play.toggled.connect(self._on_play)
        self.step_button = QPushButton("Step")
        self.step_button.clicked.connect(lambda: self.advance(0.2))
        self.focus = QSpinBox()
        self.focus.setRange(0, self.demo.n_objects - 1)
        self.focus.valueChanged.connect(self._on_focus)
        self.show_all = QCheckBox("faint: every octree node")
        self.show_all.toggled.connect(lambda _on: self.redraw())
        self.counts = QLabel()
        self.counts.setWordWrap(True)
        self.counts.setTextFormat(Qt.TextFormat.RichText)
        legend = "<br>".join(
            f"<span style='color:#{''.join(f'{c:02x}' for c in ROLE_COLORS[r])}'>■</span> "
            f"{ROLE_LABELS[r]}" for r in sorted(ROLE_LABELS))
        legend += (f"<br><span style='color:{NODE_COLOR}'>□</span> octree nodes the selected "
                   "object's search visited")
        buttons = QHBoxLayout()
        buttons.addWidget(self.play)
        buttons.addWidget(self.step_button)
        form = QFormLayout()
        form.addRow("selected object", self.focus)
        layout = QVBoxLayout(panel)
        intro = QLabel(
            "Each object is stored in the smallest octree node holding its OBB. Next frame its "
            "search starts from that node, moving up or down as it moves; node boxes are tested "
            "against its OBB (OBB-AABB), then the objects found against it (OBB-OBB).")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        layout.addLayout(buttons)
        layout.addLayout(form)
        layout.addWidget(self.show_all)
        layout.addWidget(QLabel(legend))
        layout.addWidget(self.counts)
        layout.addStretch(1)
        panel.setFixedWidth(330)
        central = QWidget()
        row = QHBoxLayout(central)
        row.addWidget(self.plotter, 1)
        row.addWidget(panel)
        self.setCentralWidget(central)
        self.resize(1300, 850)

        self._objects = None
        self._nodes = None
        self._all_nodes = None
        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_INTERVAL_MS)
        self.timer.timeout.connect(lambda: self.advance(FRAME_INTERVAL_MS / 1000.0))
        self._clock = None
        self.workers = Workers(parent=self)
        self._frames = self.workers.lane("octree frames", coalesce=True)
        self.advance(0.0, inline=True)  # the window opens with its first frame
        set_default_view(self.plotter)
        self.plotter.render()

    # -- frames -------------------------------------------------------------------------------
    @property
    def is_computing(self) -> bool:
        """A frame is being computed (or waits); it is drawn when it comes."""
        return self._frames.is_busy

    def advance(self, dt: float, inline: bool = False) -> None:
        """Move the objects by ``dt`` seconds and run the octree query on the worker lane
        (``inline``: at once, on this thread)."""
        self.t += dt
        self.demo.focus = int(self.focus.value())
        t = self.t

        def step(_control):
            start = time.perf_counter()
            return self.demo.step(t), 1e3 * (time.perf_counter() - start)

        self._frames.submit(step, tag=Tag("octree frame", inputs=(t,)),
                            on_result=lambda done, _job: self._show_frame(*done),
                            inline=inline or None)

    def _show_frame(self, frame, query_ms: float) -> None:
        focus = int(self.focus.value())
        # The object selected while the frame was computed is the one shown.
        self.frame = frame if frame.focus == focus else replace(frame, focus=focus)
        self.query_ms = query_ms
        self.redraw()

    def _on_focus(self, value: int) -> None:
        self.demo.focus = int(value)
        if self.frame is not None:
            # Same frame, another object's search: no new query needed.
            self.frame = replace(self.frame, focus=int(value))
            self.redraw()

    def _on_play(self, is_on: bool) -> None:
        self.play.setText("Pause" if is_on else "Play")
        if is_on:
            self.timer.start()
        else:
            self.timer.stop()

    def roles(self):
        f = self.frame
        return object_roles(self.demo.n_objects, f.focus, f.tested_objects, f.record.pairs)

    def redraw(self) -> None:
        f = self.frame
        if f is None or self.plotter.ren_win is None:
            return
        objects = objects_polydata(self.demo.meshes, f.poses, self.roles())
        octree = self.demo.octree
        nodes = nodes_polydata(octree.bmin, octree.bmax, f.visited_nodes)
        if self._objects is None:
            self._objects = objects
            actor = self.plotter.add_mesh(objects, scalars="rgb", rgb=True, name="objects",
                                          reset_camera=False, render=False)
            actor.mapper.SetScalarModeToUseCellData()
            self._nodes = nodes
            self.plotter.add_mesh(nodes, color=NODE_COLOR, line_width=2.0, name="visited",
                                  lighting=False, reset_camera=False, render=False)
            leaves = [i for i in range(octree.n_nodes) if octree.first_child[i] < 0]
            self._all_nodes = nodes_polydata(octree.bmin, octree.bmax, leaves)
            self._all_actor = self.plotter.add_mesh(
                self._all_nodes, color=ALL_NODES_COLOR, opacity=0.25, line_width=1.0,
                name="all_nodes", lighting=False, reset_camera=False, render=False)
        else:
            self._objects.shallow_copy(objects)
            self._objects.Modified()
            self._nodes.shallow_copy(nodes)
            self._nodes.Modified()
        self._all_actor.visibility = self.show_all.isChecked()
        r = f.record
        self.counts.setText(
            f"<b>t = {f.t:.1f} s</b><br>"
            f"overlapping OBB pairs: {r.pairs.shape[0]}<br>"
            f"OBB-AABB node tests: {r.n_node_tests:,} (every search from the root: "
            f"{f.n_root_node_tests:,})<br>"
            f"OBB-OBB tests: {r.n_obb_tests:,}<br>"
            f"locate moves from last frame's nodes: {int(r.n_locate_steps.sum())}<br>"
            f"selected object {f.focus}: node {int(r.start_node[f.focus])} "
            f"(depth {int(octree.depth[r.start_node[f.focus]])}), "
            f"{f.visited_nodes.shape[0]} nodes visited, {f.tested_objects.shape[0]} objects "
            f"tested<br>query {self.query_ms:.0f} ms (with the from-root baseline)")
        self.plotter.render()

    def closeEvent(self, event):  # noqa: N802 - Qt API
        self.timer.stop()
        self._frames.cancel()  # a frame still coming finds no plotter and is not drawn
        self.plotter.close()
        super().closeEvent(event)
