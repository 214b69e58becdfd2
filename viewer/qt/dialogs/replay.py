"""Replay with other settings: the recorded shapes run again with another bounding volume,
split rule, update mode or descend rule, compared frame by frame with what was recorded.

A non-modal dialog (Recording > Replay with other settings…): choose, press Run (a progress
dialog with Cancel while it runs in the background), then read the per-frame table (volume
tests recorded -> replayed and the change, triangle tests, time) and the plot. The contacts of
every frame must be the same whatever the settings; a frame where they differ is flagged
loudly (red text and a warning box).
"""

from __future__ import annotations

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from viewer.state.pipeline import UpdateChoice
from viewer.words.choices import bv_choices, descend_choices, split_choices

COLUMNS = ("frame", "volume tests (recorded → replayed)", "change", "triangle tests "
           "(recorded → replayed)", "time ms (recorded → replayed)", "contacts")

UPDATE_WORDS = {UpdateChoice.REFIT: ("refit", "Refit the recorded trees' volumes every frame"),
                UpdateChoice.REBUILD: ("rebuild", "Build both trees afresh every frame"),
                UpdateChoice.AUTO: ("auto (rebuild on drift)",
                                    "Refit, and rebuild a tree when its SAH drift passes the "
                                    "threshold")}

IDENTICAL_STYLE = "color: #009E73; font-weight: bold;"  # Okabe-Ito bluish green
DIFFER_STYLE = "color: #D55E00; font-weight: bold; font-size: 120%;"  # Okabe-Ito vermillion


def percent_change(recorded: float, replayed: float) -> str:
    """"-37.5 %" (replayed against recorded), "0 %" when equal, "new" from zero."""
    if recorded == replayed:
        return "0 %"
    if recorded == 0:
        return "new"
    return f"{100.0 * (replayed - recorded) / recorded:+.1f} %"


def contacts_text(report) -> str:
    """"contacts identical in all 240 frames" or "contacts differ in frames 3, 7"."""
    if report.all_identical:
        return f"contacts identical in all {len(report.rows):,} frames"
    shown = ", ".join(str(f) for f in report.mismatches[:20])
    more = f" and {len(report.mismatches) - 20} more" if len(report.mismatches) > 20 else ""
    return f"contacts differ in frames {shown}{more}"


class ReplayDialog(QDialog):
    """Replay the model's recording with other settings and show what changed.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    controller : viewer.controller.Controller
        Its ``replay_with`` runs the replay in the background.
    """

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.report = None
        self.setWindowTitle("Replay the recording with other settings")
        self.resize(900, 680)
        layout = QVBoxLayout(self)
        self.intro = QLabel("")
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)

        form = QFormLayout()
        self.bv = self._combo([(k, name, tip) for k, name, tip in bv_choices()])
        self.split = self._combo(split_choices())
        self.update_mode = self._combo([(c.value, *UPDATE_WORDS[c]) for c in UpdateChoice])
        self.descend = self._combo(descend_choices())
        form.addRow("Bounding volume", self.bv)
        form.addRow("Split rule", self.split)
        form.addRow("Update", self.update_mode)
        form.addRow("Descend rule", self.descend)
        layout.addLayout(form)

        row = QHBoxLayout()
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Run every recorded frame again with these settings "
                                   "(in the background; Cancel stops it)")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run)
        row.addWidget(self.run_button)
        self.verdict = QLabel("")
        self.verdict.setTextFormat(Qt.TextFormat.PlainText)
        self.verdict.setWordWrap(True)  # the settings in words are long
        row.addWidget(self.verdict, 1)
        layout.addLayout(row)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        # Seen at 1280x800: the "contacts" column was cut off behind a scroll bar.
        self.table.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(self.table, 1)

        self.figure = Figure(figsize=(8, 2.6), tight_layout=True)
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.canvas.setMinimumHeight(200)
        layout.addWidget(self.canvas)
        self._warning: QMessageBox | None = None

    @staticmethod
    def _combo(choices) -> QComboBox:
        combo = QComboBox()
        for i, (key, words, tip) in enumerate(choices):
            combo.addItem(words, key)
            combo.setItemData(i, tip, Qt.ItemDataRole.ToolTipRole)
        return combo

    def refresh(self) -> None:
        """Start from the app's current choices and say what will be replayed."""
        p = self.model.pipeline
        for combo, value in ((self.bv, p.bv), (self.split, p.split),
                             (self.update_mode, p.update.value), (self.descend, p.descend)):
            index = combo.findData(value)
            if index >= 0:
                combo.setCurrentIndex(index)
        n = len(self.model.recording) if self.model.recording is not None else 0
        self.intro.setText(
            f"The recording holds {n:,} frames. Each one's meshes and poses run again through "
            "a fresh pipeline with the settings below; the table compares the work with what "
            "was recorded. The contacts must be the same whatever the settings.")
        self.run_button.setEnabled(n > 0)

    def run(self) -> bool:
        """Replay with the chosen settings (in the background)."""
        self.verdict.setText("replaying…")
        self.verdict.setStyleSheet("")
        return self.controller.recorder.replay_with(
            self.show_report, bv=self.bv.currentData(), split=self.split.currentData(),
            update=self.update_mode.currentData(), descend=self.descend.currentData())

    def show_report(self, report, error) -> None:
        """The replay finished (``error`` None) or failed or was cancelled."""
        if error is not None:
            self.verdict.setStyleSheet("")
            self.verdict.setText(f"Replay stopped: {error}" if str(error) else
                                 "Replay cancelled")
            return
        self.report = report
        self._fill_table(report)
        self._plot(report)
        text = contacts_text(report)
        # The choices as the combo boxes name them, not the core's enum names.
        chosen = ", ".join(box.currentText() for box in
                           (self.bv, self.split, self.update_mode, self.descend))
        self.verdict.setText(f"{chosen}: {text}")
        self.verdict.setStyleSheet(IDENTICAL_STYLE if report.all_identical else DIFFER_STYLE)
        if not report.all_identical:
            self._warning = QMessageBox(
                QMessageBox.Icon.Warning, "Contacts differ",
                f"The replay found other contacts than the recording: {text}. The contacts "
                "must not depend on the bounding volume or the rules; this is a bug worth "
                "reporting with the recording file.", QMessageBox.StandardButton.Ok, self)
            self._warning.open()

    def _fill_table(self, report) -> None:
        rows = report.rows
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            cells = (
                f"{row.frame}",
                f"{row.recorded_bv_tests:,} → {row.bv_tests:,}",
                percent_change(row.recorded_bv_tests, row.bv_tests),
                f"{row.recorded_tri_tests:,} → {row.tri_tests:,}",
                f"{row.recorded_time_ms:.2f} → {row.time_ms:.2f}",
                "identical" if row.contacts_identical else "DIFFER",
            )
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if c == len(cells) - 1 and not row.contacts_identical:
                    item.setForeground(Qt.GlobalColor.red)
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(r, c, item)

    def _plot(self, report) -> None:
        rows = report.rows
        frames = [row.frame for row in rows]
        self.figure.clear()
        tests, times = self.figure.subplots(1, 2)
        # Okabe-Ito blue for what was recorded, vermillion dashed for the replay: the line
        # style tells them apart without colour.
        tests.plot(frames, [row.recorded_bv_tests for row in rows], color="#0072B2",
                   label="recorded")
        tests.plot(frames, [row.bv_tests for row in rows], color="#D55E00", linestyle="--",
                   label="replayed")
        tests.set_title("volume tests per frame", fontsize=9)
        times.plot(frames, [row.recorded_time_ms for row in rows], color="#0072B2",
                   label="recorded")
        times.plot(frames, [row.time_ms for row in rows], color="#D55E00", linestyle="--",
                   label="replayed")
        times.set_title("time per frame (ms)", fontsize=9)
        for axes in (tests, times):
            axes.set_xlabel("frame", fontsize=8)
            axes.tick_params(labelsize=7)
            axes.legend(fontsize=7)
        self.canvas.draw()
