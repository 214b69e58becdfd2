"""View > Cross-check this frame with python-fcl…: another engine against the shown frame.

The contacts the SHOWN frame reported (its pairs, found with its own trees, a tree pinned
from a file included, its kind of volume and its margin) are compared with python-fcl (or
coal) run on the same triangles, in the background (a busy bar meanwhile). The verdict names
what was compared ("frame 37, A: tree from mine.json, B: BVH Lab's AABB tree (midpoint
split): differs: 8 pairs only python-fcl reports"); "identical (N triangle pairs)" is green,
a difference red with a table of the pairs only one side reports (the pair, who reports it,
its exact gap), while their triangles are outlined in the view. The gap is exact (rational
arithmetic): 0 means the triangles touch or cross, so the side that missed the pair is wrong;
a positive gap means they are apart. With a margin, a pair only the peer reports that the
frame lists as a near pair says so. When the view moves on to another frame, the dialog says
which frame its verdict is about.
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

from viewer.qt.panels.common import frame_caption

IDENTICAL_STYLE = "color: #009E73; font-weight: bold; font-size: 120%;"  # Okabe-Ito green
DIFFER_STYLE = "color: #D55E00; font-weight: bold; font-size: 120%;"  # Okabe-Ito vermillion
STALE_STYLE = "color: #D55E00; font-style: italic;"
COLUMNS = ("triangle pair (A, B)", "reported by", "exact gap")
OURS = "BVH Lab only"
NEAR_NOTE = " (BVH Lab: a near pair, within the margin)"


def gap_text(gap: float) -> str:
    """"0 (touching or crossing)" or the distance with 4 significant digits."""
    return "0 (touching or crossing)" if gap == 0.0 else f"{gap:.4g} apart"


def verdict_text(check) -> str:
    """The check's one-line verdict, naming the frame, trees, kind and margin compared."""
    return check.verdict()


def moved_on_text(check, frame) -> str:
    """"" while ``frame`` is the one checked, else a line saying which frame the verdict is
    about (the view moved on, or went back)."""
    compared = getattr(check, "compared", None)
    if compared is None or compared.frame_index is None:
        return ""
    if frame is not None and frame.index == compared.frame_index:
        return ""
    now = f"the view now shows frame {frame.index}" if frame is not None else "no frame shown"
    return (f"This verdict is about frame {compared.frame_index}; {now}. Run the "
            "cross-check again to compare that frame.")


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
        self.checked_frame = None  # the frame the running or shown check is about
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
        self.moved_on = QLabel("")
        self.moved_on.setWordWrap(True)
        self.moved_on.setStyleSheet(STALE_STYLE)
        self.moved_on.setVisible(False)
        layout.addWidget(self.moved_on)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table, 1)
        # With the table hidden ("identical") the words stay at the top, not spread out.
        layout.addStretch(0)
        model.frame_ready.connect(lambda _f: self._show_moved_on())
        model.frame_failed.connect(lambda _f: self._show_moved_on())

    def run(self, engine: str | None = None) -> bool:
        """Start the check of the shown frame with ``engine`` (``"fcl"``, ``"coal"``; default
        the first installed); False when it cannot start."""
        found, words = self.controller.analysis.cross_check_engine()
        if engine is not None and engine != found:
            words = engine
        frame = self.model.frame
        n = (f"{frame.meshes[0].n_faces:,} and {frame.meshes[1].n_faces:,} triangles"
             if frame is not None and len(frame.meshes) >= 2 else "")
        what = frame_caption(frame) if frame is not None else "this frame"
        self.intro.setText(f"Comparing the contacts of {what} with {words}, run on the same "
                           f"float coordinates of meshes A and B ({n}); each pair only one "
                           "of them reports gets its exact distance.")
        self.verdict.setText("")
        self.verdict.setStyleSheet("")
        self.table.setRowCount(0)
        self.check = None
        started = self.controller.analysis.cross_check_frame(self.show_result, engine)
        if started:
            self.checked_frame = frame
        self._show_moved_on()
        self.busy.setVisible(started)
        return started

    def _show_moved_on(self) -> None:
        """Say which frame the verdict is about once the view shows another one."""
        text = moved_on_text(self.check, self.model.frame) if self.check is not None else ""
        failure = getattr(self.model, "frame_failure", None)
        if failure is not None and self.check is not None:
            # The verdict is about the frame still shown, not the one asked for since.
            text = " ".join(filter(None, [failure.text(self.model.frame) + ".", text]))
        self.moved_on.setText(text)
        self.moved_on.setVisible(bool(text))

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
        self._show_moved_on()
        theirs = check.engine_version.split()[0] + " only"
        near = getattr(check, "is_near_only_theirs", None)
        if near is None or len(near) != len(check.only_theirs):
            near = [False] * len(check.only_theirs)
        rows = ([(p, OURS, g) for p, g in zip(check.only_ours, check.gap_only_ours)]
                + [(p, theirs + (NEAR_NOTE if is_near else ""), g)
                   for p, g, is_near in zip(check.only_theirs, check.gap_only_theirs, near)])
        self.table.setRowCount(len(rows))
        for r, (pair, who, gap) in enumerate(rows):
            for c, text in enumerate((f"{int(pair[0])}, {int(pair[1])}", who, gap_text(gap))):
                item = QTableWidgetItem(text)
                item.setForeground(Qt.GlobalColor.darkRed)
                self.table.setItem(r, c, item)
        self.table.setVisible(bool(rows))
