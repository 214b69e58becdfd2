"""The Stats dock: per-level table, totals, how the meshes meet, phase times, tree statistics
and the cost model of the frame (T = Nu·Cu + Nbv·Cbv + Np·Cp, each term with its count, unit
cost, predicted time and share, then the predicted total against the measured one)."""

from __future__ import annotations

import numpy as np
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from viewer.qt.panels.common import WhenShown, header_label, set_cell, show_header, wrap_label
from viewer.qt.panels.mesh_notes import body_notes
from viewer.render.overlays import KIND_LABELS
from viewer.render.style import frame_words
from viewer.state.side_results import ShownSide, shown_side
from viewer.state.timing import PHASE_WORDS, last_and_median, shown_phases

RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
"""Numbers are right-aligned."""

COST_HEADERS = ("term", "count", "unit cost (ns)", "predicted (ms)", "share")

COST_TOOLTIP = (
    "The cost model T = Nu·Cu + Nbv·Cbv + Np·Cp (Gottschalk, Lin and Manocha 1996): the "
    "frame's counts of volume updates, volume tests and triangle tests, each times its unit "
    "cost measured on this machine for this kind of volume")


class StatsPanel(QWidget):
    """Per-level table, totals, phase times, tree statistics and the cost model."""

    HEADERS = ("traversal level", "tested", "overlap", "leaf pairs")

    def __init__(self, model, parent=None):
        super().__init__(parent)
        self.model = model
        self.header = header_label()  # which frame and trees the numbers below are of
        self.table = QTableWidget(0, len(self.HEADERS))
        self.table.setHorizontalHeaderLabels(list(self.HEADERS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setMinimumHeight(180)
        self.totals = wrap_label(QLabel())
        self.phases = wrap_label(QLabel())
        self.trees = wrap_label(QLabel())
        self.relation = wrap_label(QLabel())  # contact kinds, or containment when apart
        self.meshes = wrap_label(QLabel())  # hidden bodies and each mesh's notes
        # Why the live frame passed the frame budget, in words (hidden when it did not).
        self.slow = wrap_label(QLabel())
        self.slow.setObjectName("slow_frame")
        self.slow.setStyleSheet("QLabel { background: #fff3c4; padding: 4px; }")
        self.slow.hide()
        self.cost_title = wrap_label(QLabel())
        self.cost_title.setToolTip(COST_TOOLTIP)
        self.cost_table = QTableWidget(0, len(COST_HEADERS))
        self.cost_table.setHorizontalHeaderLabels(list(COST_HEADERS))
        self.cost_table.verticalHeader().setVisible(False)
        self.cost_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.cost_table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.cost_table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.cost_table.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.Stretch)
        self.cost_table.setToolTip(COST_TOOLTIP)
        self.cost_total = wrap_label(QLabel())
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.slow)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.relation)
        layout.addWidget(self.totals)
        layout.addWidget(self.meshes)
        layout.addWidget(self.phases)
        layout.addWidget(self.trees)
        layout.addWidget(self.cost_title)
        layout.addWidget(self.cost_table)
        layout.addWidget(self.cost_total)
        self.frame_refresh = WhenShown(self, model, self.refresh)
        model.frame_ready.connect(self.frame_refresh)
        model.scene_changed.connect(self._refresh_meshes)
        model.body_changed.connect(lambda _i: self._refresh_meshes())
        model.display_changed.connect(lambda _d: self._refresh_meshes())
        # Every redraw reports its times: refreshed like the frame (it took 0.9 ms of the GUI
        # thread a frame on bunny-bunny, docks hidden or not).
        self.timings_refresh = WhenShown(self, model, self._on_view_timings)
        model.view_timings_changed.connect(self.timings_refresh)
        model.level_changed.connect(lambda _l: self._highlight_level())
        # The controller measures the cost model anew after every frame.
        self.cost_refresh = WhenShown(self, model, self.show_cost)
        model.cost_model_changed.connect(self.cost_refresh)
        model.frame_failed.connect(lambda _f: show_header(self.header, self.model,
                                                          self.model.frame))
        self.show_cost(model.cost_view)

    def _on_view_timings(self, _timings) -> None:
        self._refresh_phases(self.model.frame)
        self._refresh_slow(self.model.frame)

    def _refresh_slow(self, frame) -> None:
        """Why the shown live frame was slow: its core time (the frame's own phases) and its
        drawing (the last redraw's, which drew this frame)."""
        lines = [self.model.slow_frame] if frame is self.model.live_frame else []
        lines.append(self.model.view_timings.slow_words)
        self.slow.setText("\n".join(line for line in lines if line))
        self.slow.setVisible(bool(self.slow.text()))

    def refresh(self, frame) -> None:
        show_header(self.header, self.model, frame)
        result = frame.shown_result() if frame is not None else None
        self.relation.setText(relation_text(
            frame, result, shown_side(frame, self.model.side, self.model.side_by_frame)))
        self._refresh_slow(frame)
        self._refresh_meshes()
        if frame is None or result is None:
            self.table.setRowCount(0)
            self.totals.setText("")
            self.trees.setText("")
            self._refresh_phases(frame)
            return
        trace = result.trace
        if trace is not None:
            tested = trace.tested_per_level
            overlap = trace.overlapping_per_level
            leaves = trace.leaf_pairs_per_level
            self.table.setRowCount(trace.n_levels)
            for d in range(trace.n_levels):
                for col, value in enumerate((d, tested[d], overlap[d], leaves[d])):
                    set_cell(self.table, d, col, f"{int(value):,}", RIGHT)
            self._highlight_level()
        c = result.counters
        self.totals.setText(
            f"<b>Totals</b>: volume tests N<sub>bv</sub> = {c.n_bv_tests:,} "
            f"({frame_words(frame).pairs} tested; {c.n_bv_overlaps:,} overlapping, "
            f"{c.n_leaf_pairs:,} leaf pairs); "
            f"triangle tests N<sub>p</sub> = {c.n_tri_tests:,}; contacts = {c.n_contacts:,}")
        rows = []
        names = ("mesh",) if frame.result is None else ("A", "B")  # self-collision: one tree
        for i, tree in enumerate(frame.trees[:len(names)]):
            s = tree.stats
            rows.append(
                f"{names[i]}: {tree.n_nodes:,} nodes, depth {s.depth_min}–{s.depth_max}, "
                f"SAH drift {frame.drift[i]:+.3f}{' (rebuilt now)' if frame.rebuilt[i] else ''}")
        self.trees.setText("<b>Trees</b><br>" + "<br>".join(rows))
        self._refresh_phases(frame)

    def _refresh_meshes(self) -> None:
        """Which tested bodies are hidden (the counts include them, the canvas does not draw
        them), and the notes about each mesh."""
        lines = []
        for i, body in enumerate(self.model.bodies):
            role = ("" if self.model.is_self_collision and len(self.model.bodies) == 1
                    else f"{'AB'[i]}, " if i < 2 else "not tested, ")
            if not body.is_visible and i < 2:
                lines.append(f"<b>{body.name}</b> ({role}hidden): its mesh, "
                             f"{frame_words(self.model.frame).plural}, pair "
                             "volumes and contacts are not drawn; the counts above include it")
            for note in body_notes(body, self.model.display):
                lines.append(f"<b>{body.name}</b>: {note}")
        self.meshes.setText("<b>Meshes</b><br>" + "<br>".join(lines) if lines else "")

    def _refresh_phases(self, frame) -> None:
        if frame is None:
            self.phases.setText("")
            return
        history = self.model.timing_history
        # Every phase the frame ran, from its timings: "volume fit" for kinds other than the
        # tree's own boxes (the cost the OBB fit choice changes), "spatial partition" when
        # one is chosen, "minimum distance" and "inside test" when A and B are apart; a
        # self-collision scene shows its self-collision time instead of an empty traverse.
        words = dict(PHASE_WORDS)
        parts = [f"{words[name]} {last_and_median(history, name)}"
                 for name in shown_phases(frame.timings, frame.result is None)]
        n = history.count("total")
        self.phases.setText(
            "<b>Phase times (ms)</b>, last frame (median of the "
            f"{n} frame{'' if n == 1 else 's'} of the last second): " + ", ".join(parts))

    def show_cost(self, view) -> None:
        """The cost model of ``view`` (a :class:`viewer.state.status.CostView`; None: no frame)."""
        prediction = None if view is None else view.prediction
        if view is None:
            self.cost_title.setText("")
            self.cost_total.setText("")
        else:
            self.cost_title.setText(
                f"<b>Cost model</b> T = N<sub>u</sub>·C<sub>u</sub> + N<sub>bv</sub>·C<sub>bv"
                f"</sub> + N<sub>p</sub>·C<sub>p</sub>, unit costs of {view.kind_label} "
                "measured on this machine"
                + (f"<br>{view.status}" if view.status else ""))
        self.cost_table.setVisible(prediction is not None)
        if prediction is None:
            self.cost_table.setRowCount(0)
            self.cost_total.setText("")
            return
        terms = list(prediction.terms)
        self.cost_table.setRowCount(len(terms))
        for row, term in enumerate(terms):
            cells = (cost_term_words(term.name), f"{int(term.count):,}",
                     f"{term.unit_ns:.1f}", f"{term.ms:.3f}", f"{100.0 * term.share:.1f} %")
            for col, text in enumerate(cells):
                set_cell(self.cost_table, row, col, text, RIGHT if col else None)
        header = self.cost_table.horizontalHeader().height()
        rows = sum(self.cost_table.rowHeight(r) for r in range(len(terms)))
        self.cost_table.setFixedHeight(header + rows + 2 * self.cost_table.frameWidth())
        measured = view.measured_ms
        ratio = (f" (measured / predicted = {measured / prediction.total_ms:.2f})"
                 if prediction.total_ms > 0 else "")
        if self.model.is_playing and measured > CONTENDED_RATIO * prediction.total_ms:
            ratio += PLAYING_NOTE
        self.cost_total.setText(
            f"Predicted T = <b>{prediction.total_ms:.3f} ms</b>; measured "
            f"<b>{measured:.3f} ms</b> (both cover the {view.measured_phases} of this "
            f"frame){ratio}" + (f"; {view.measured_note}" if view.measured_note else ""))

    def _highlight_level(self) -> None:
        level = self.model.level
        self.table.clearSelection()
        if level is not None and level < self.table.rowCount():
            self.table.selectRow(level)


CONTENDED_RATIO = 2.0
"""Above this measured / predicted ratio while playing, the dock says why. Seen on bunny-bunny
at 1600x1000: traversal 12.7 ms (median) while playing against 3.3 ms paused and stepped, the
software renderer's threads drawing on the same two cores; paused, measured / predicted was
0.76."""
PLAYING_NOTE = ("; while playing, drawing runs on the same cores and slows the kernels: pause "
                "and step a frame (.) to compare the model with the kernels alone")
"""Said under the cost model when :data:`CONTENDED_RATIO` is passed while playing."""

COST_TERM_WORDS = {"nu": "volume updates", "nbv": "volume tests", "np": "triangle tests"}
"""Words of the cost model's terms by the letters of their counts."""


def cost_term_words(name: str) -> str:
    """"volume tests" for the term of N_bv (whether the core names it "Nbv", "nbv" or in
    words)."""
    key = name.lower().replace("_", "").replace(" ", "")
    return COST_TERM_WORDS.get(key, name)


def relation_text(frame, result, side: ShownSide | None = None) -> str:
    """Stats line about how the tested meshes meet: contacts per kind, or, with no contact,
    containment ("A is inside B", "apart", "undefined: B is open (N boundary edges)"), from
    ``side`` when given (computed beside the frames: "(from frame N)" when of an older one)."""
    if frame is None or result is None:
        return ""
    text = _contact_relation(frame, result, side if side is not None else shown_side(frame,
                                                                                      None))
    near = getattr(result, "near_pairs", None)
    if getattr(result, "margin", 0.0) > 0.0 and near is not None:
        text += (f"<br>{len(near):,} near pairs (not touching, at most {result.margin:g} "
                 f"apart)")
        if len(near):
            text += f", closest {float(np.min(result.near_distances)):.4g}"
    return text


def _contact_relation(frame, result, side: ShownSide) -> str:
    is_self = frame.result is None
    who = "Self-collision" if is_self else "A and B"
    if result.n_contacts:
        kinds = np.asarray(result.kinds)
        parts = [f"{int(np.count_nonzero(kinds == k)):,} {label}"
                 for k, label in KIND_LABELS.items() if np.any(kinds == k)]
        return f"<b>{who}</b>: {result.n_contacts:,} contact pairs ({', '.join(parts)})"
    containment = side.containment
    if containment is not None:
        late = f" ({side.late})" if side.late else ""
        return f"<b>No contact</b>: {containment.text}{late}"
    return f"<b>{who}</b>: no contact"
