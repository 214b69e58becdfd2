"""View > Cross-check this frame with python-fcl…: another engine's contacts for this frame.

The shown frame's meshes A and B run through python-fcl (or coal) in the background (a busy
bar meanwhile); then either "identical (N triangle pairs)" in green, or in red how many pairs
only one engine reports and a table of them (the pair, who reports it, its exact gap), while
their triangles are outlined in the view. The gap is exact (rational arithmetic): 0 means the
triangles touch or cross, so the engine that missed the pair is wrong; a positive gap means
they are apart.
"""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QLabel,
    QProgressBar,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

IDENTICAL_STYLE = "color: #009E73; font-weight: bold; font-size: 120%;"  # Okabe-Ito green
DIFFER_STYLE = "color: #D55E00; font-weight: bold; font-size: 120%;"  # Okabe-Ito vermillion
COLUMNS = ("triangle pair (A, B)", "reported by", "exact gap")
OURS = "BVH Lab only"


def gap_text(gap: float) -> str:
    """"0 (touching or crossing)" or the distance with 4 significant digits."""
    return "0 (touching or crossing)" if gap == 0.0 else f"{gap:.4g} apart"


def verdict_text(check) -> str:
    if check.identical:
        return f"identical ({check.n_ours:,} triangle pairs)"
    name = check.engine_version.split()[0]
    return (f"differ: {check.only_ours.shape[0]:,} pairs only BVH Lab reports, "
            f"{check.only_theirs.shape[0]:,} only {name} reports "
            f"({check.n_agreed:,} pairs agreed)")


class CrossCheckDialog(QDialog):
    """Runs the cross-check of the shown frame and shows its verdict.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    controller : viewer.controller.Controller
        Its ``cross_check_frame`` runs the check in the background.
    """

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.check = None
        self.setWindowTitle("Cross-check with another engine")
        self.resize(620, 420)
        layout = QVBoxLayout(self)
        self.intro = QLabel("")
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # busy: the other engine gives no progress
        layout.addWidget(self.busy)
        self.verdict = QLabel("")
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.verdict)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table, 1)
        # With the table hidden ("identical") the words stay at the top, not spread out.
        layout.addStretch(0)

    def run(self, engine: str | None = None) -> bool:
        """Start the check of the shown frame with ``engine`` (``"fcl"``, ``"coal"``; default
        the first installed); False when it cannot start."""
        found, words = self.controller.cross_check_engine()
        if engine is not None and engine != found:
            words = engine
        frame = self.model.frame
        n = (f"{frame.meshes[0].n_faces:,} and {frame.meshes[1].n_faces:,} triangles"
             if frame is not None and len(frame.meshes) >= 2 else "")
        self.intro.setText(f"Running this frame's meshes A and B ({n}) through {words} and "
                           "through BVH Lab, on the same float coordinates; each pair only "
                           "one of them reports gets its exact distance.")
        self.verdict.setText("")
        self.verdict.setStyleSheet("")
        self.table.setRowCount(0)
        self.check = None
        started = self.controller.cross_check_frame(self.show_result, engine)
        self.busy.setVisible(started)
        return started

    def show_result(self, check, error) -> None:
        """The check finished (``error`` None) or failed."""
        self.busy.setVisible(False)
        if error is not None:
            self.verdict.setStyleSheet(DIFFER_STYLE)
            self.verdict.setText(f"Cross-check failed: {type(error).__name__}: {error}")
            return
        self.check = check
        self.verdict.setText(f"{verdict_text(check)} · {check.seconds:.2f} s")
        self.verdict.setStyleSheet(IDENTICAL_STYLE if check.identical else DIFFER_STYLE)
        theirs = check.engine_version.split()[0] + " only"
        rows = ([(p, OURS, g) for p, g in zip(check.only_ours, check.gap_only_ours)]
                + [(p, theirs, g) for p, g in zip(check.only_theirs, check.gap_only_theirs)])
        self.table.setRowCount(len(rows))
        for r, (pair, who, gap) in enumerate(rows):
            for c, text in enumerate((f"{int(pair[0])}, {int(pair[1])}", who, gap_text(gap))):
                item = QTableWidgetItem(text)
                item.setForeground(Qt.GlobalColor.darkRed)
                self.table.setItem(r, c, item)
        self.table.setVisible(bool(rows))
