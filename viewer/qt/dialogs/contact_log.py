"""File > Open contact log…: another engine's contacts, frame by frame, against the exact answer.

A non-modal window over the log the controller checked (:mod:`viewer.control.contact_log`):
what was checked (the log, its engine and meshes), one row per frame (the pairs the engine
reported, the exact ones, how many only the engine reports and how many it missed), and the
pairs of the frame the timeline shows, each with its exact gap and what the engine said
about it. Clicking a frame's row shows that frame (its poses and vertices from the log) with
the disagreeing pairs' triangles outlined; the timeline marks each disagreeing frame.
"""

from __future__ import annotations

import math

from PyQt6.QtCore import Qt
from PyQt6.QtGui import QColor
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
)

from viewer.qt.dialogs.crosscheck import gap_text
from viewer.qt.panels.common import set_cell, wrap_label
from viewer.qt.widgets import ask_file_path, show_kept

LOG_FILTER = "Contact logs (*.jsonl *.json);;All files (*)"
FRAME_COLUMNS = ("log frame", "line", "engine pairs", "exact pairs", "only the engine",
                 "missed", "verdict")
PAIR_COLUMNS = ("triangle pair (A, B)", "the engine", "exact gap", "engine's distance")
FRAMES_LISTED = 2000
"""Frames listed in the table (a log may hold 100,000); the summary counts them all."""
PAIRS_LISTED = 500
"""Pairs of each kind listed for the shown frame; the rest are counted."""
DISAGREE_RGB = (213, 94, 0)  # Okabe-Ito vermillion, as the cross-check's "differs"
STALE_STYLE = "color: #D55E00; font-style: italic;"


def log_gap_text(gap: float) -> str:
    """The cross-check's words for an exact gap ("0 (touching or crossing)", "0.0123
    apart"), or "not computed" (past the per-frame budget of the audit)."""
    return gap_text(gap) if math.isfinite(gap) else "not computed"


def pair_rows(audit, limit: int = PAIRS_LISTED) -> list[tuple[str, str, str, str]]:
    """The pair table's rows of one ``core.lab.audit.FrameAudit``: the pairs only the engine
    reports, then the ones it missed, at most ``limit`` of each."""
    rows = []
    for k, (i, j) in enumerate(audit.only_engine[:limit].tolist()):
        distance = float(audit.engine_distance_only_engine[k])
        rows.append((f"({i}, {j})", "reports it; it does not touch",
                     log_gap_text(float(audit.gap_only_engine[k])),
                     f"{distance:.4g}" if math.isfinite(distance) else ""))
    for k, (i, j) in enumerate(audit.missed[:limit].tolist()):
        rows.append((f"({i}, {j})", "missed it; it touches", log_gap_text(
            float(audit.gap_missed[k])), ""))
    return rows


class ContactLogDialog(QDialog):
    """The checked contact log of ``controller.contact_log``.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    controller : viewer.controller.Controller
    """

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.setWindowTitle("Contact log against the exact answer")
        self.resize(720, 560)
        layout = QVBoxLayout(self)
        self.summary = wrap_label(QLabel("No contact log open (File > Open contact log…)."))
        self.summary.setStyleSheet("font-weight: bold;")
        layout.addWidget(self.summary)
        self.frames = self._table(FRAME_COLUMNS)
        self.frames.setToolTip("One row per frame of the log; click one to show that frame "
                               "(its poses and vertices from the log) with the disagreeing "
                               "pairs outlined")
        self.frames.cellClicked.connect(self._on_frame_row)
        layout.addWidget(self.frames, 2)
        self.shown = wrap_label(QLabel(""))
        layout.addWidget(self.shown)
        self.frame_button = QPushButton("Frame these pairs")
        self.frame_button.setToolTip("Move the camera to the outlined triangles of the shown "
                                     "frame's differing pairs, looking from where it looks now")
        self.frame_button.clicked.connect(controller.contact_log.frame_pairs)
        layout.addWidget(self.frame_button)
        self.pairs = self._table(PAIR_COLUMNS)
        self.pairs.setToolTip("The shown frame's pairs that differ from the exact answer. The "
                              "gap is exact: 0 means the triangles touch, so an engine that "
                              "missed the pair is wrong; a gap above 0 means they are apart")
        layout.addWidget(self.pairs, 1)
        model.recording_changed.connect(self.refresh)
        model.cursor_changed.connect(lambda _c: self._refresh_shown())
        model.scene_changed.connect(self.refresh)
        self.refresh()

    @staticmethod
    def _table(columns) -> QTableWidget:
        table = QTableWidget(0, len(columns))
        table.setHorizontalHeaderLabels(columns)
        table.verticalHeader().hide()
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setStretchLastSection(True)
        return table

    def refresh(self) -> None:
        audit = self.controller.contact_log.audit
        self.frames.setRowCount(0)
        if audit is None:
            self.summary.setText("No contact log open (File > Open contact log…).")
            self._refresh_shown()
            return
        self.summary.setText(audit.summary())
        listed = audit.audits[:FRAMES_LISTED]
        self.frames.setRowCount(len(listed))
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for r, frame in enumerate(listed):
            verdict = "agrees" if frame.agrees else "differs"
            cells = (str(frame.frame), str(frame.line), f"{frame.n_engine:,}",
                     f"{frame.n_exact:,}", f"{frame.only_engine.shape[0]:,}",
                     f"{frame.missed.shape[0]:,}", verdict)
            for c, text in enumerate(cells):
                item = set_cell(self.frames, r, c, text, right if c < 6 else None)
                if not frame.agrees:
                    item.setForeground(QColor(*DISAGREE_RGB))
        if len(audit.audits) > FRAMES_LISTED:
            self.summary.setText(audit.summary() + f" (the first {FRAMES_LISTED:,} frames "
                                 "are listed)")
        self._refresh_shown()

    def _refresh_shown(self) -> None:
        job = self.controller.contact_log
        audit = job.audit
        self.pairs.setRowCount(0)
        self.shown.setStyleSheet("")
        self.frame_button.setEnabled(job.disagreeing_pairs() is not None)
        if audit is None:
            self.shown.setText("")
            return
        if not job.is_shown():
            self.shown.setText("Stale: the timeline no longer holds this log's frames (another "
                               "scene or recording); open the log again to see them.")
            self.shown.setStyleSheet(STALE_STYLE)
            return
        frame = job.shown_frame_audit()
        if frame is None:
            self.shown.setText("The view shows the live scene, not a frame of the log: click a "
                               "row, or drag the timeline.")
            return
        position = self.model.cursor
        if position < FRAMES_LISTED:
            self.frames.selectRow(position)
        rows = pair_rows(frame)
        n_more = (max(0, frame.only_engine.shape[0] - PAIRS_LISTED)
                  + max(0, frame.missed.shape[0] - PAIRS_LISTED))
        more = f" ({n_more:,} more not listed)" if n_more else ""
        outlined = " Their triangles are outlined in the view." if rows else ""
        self.shown.setText(f"Shown: log frame {frame.frame} (line {frame.line}), recorded frame "
                           f"{position + 1} of {len(audit.audits)}: {frame.text()}.{outlined}"
                           f"{more}")
        self.pairs.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                set_cell(self.pairs, r, c, text)

    def _on_frame_row(self, row: int, _column: int) -> None:
        job = self.controller.contact_log
        if not job.is_shown():
            return
        self.controller.recorder.stop_playback()
        self.controller.recorder.scrub_to(job.position_of(row))


class ContactLogMenu:
    """Answers File > Open contact log… of ``window``; the dialog is made on first use."""

    def __init__(self, window):
        self.window, self.model, self.controller = window, window.model, window.controller
        self.dialog: ContactLogDialog | None = None

    def open_dialog(self) -> ContactLogDialog:
        return show_kept(self, "dialog",
                         lambda: ContactLogDialog(self.model, self.controller, self.window))

    def open_contact_log(self, path: str | None = None) -> bool:
        """Ask for a log (unless ``path``), check it on a worker, then show its frames on the
        timeline and the result in the dialog. A bad log: one error line, the scene stays."""
        path = path or ask_file_path(self.window, "Open contact log", "last_contact_log_dir",
                                     LOG_FILTER, ".jsonl", "contacts", is_save=False)
        if not path:
            return False

        def done(is_open: bool) -> None:
            if is_open:
                self.open_dialog().refresh()

        return self.controller.contact_log.open_contact_log(path, on_done=done)
