"""The compare view: the current frame through several bounding-volume kinds, side by side.

A non-modal dialog (View > Compare bounding volumes): tick kinds, pick a tree depth, press
Run. The table gives each kind's tightness (total volume at that depth), volume tests,
triangle tests and fit / refit / traverse / query times; with both AABB tests in it, a
sentence under it weighs SAT lite against the 15-axis test ("SAT lite vs 15 axes" runs just
those two); below it, the tree at that depth drawn with the first four ticked kinds.
"""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtGui import QImage, QPixmap
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from viewer.control.compare import DEFAULT_KINDS, SAT_KINDS, KindComparison, volume_set
from viewer.render.thumbnails import volumes_image
from viewer.words.choices import bv_choices, obb_fit_choices

MAX_PICTURES = 4

MIN_PICTURE_PX = 160
"""Narrowest a picture of the compare view is shrunk to."""
"""Kinds drawn side by side (the first ticked ones): more would be too small to read."""

COLUMNS = ("kind", "total volume at depth", "volume tests", "overlapping", "triangle tests",
           "contacts", "fit ms", "refit ms", "traverse ms", "query ms")
""""traverse ms" is the volume tests alone (best of a few runs); "query ms" adds the
triangle tests."""


def sat_note(rows) -> str:
    """The sentence under the table when both AABB tests are in it ("" otherwise): the extra
    volume tests SAT lite costs against the arithmetic each test saves."""
    by_kind = {row.kind: row for row in rows}
    if not all(kind in by_kind for kind in SAT_KINDS):
        return ""
    lite, full = (by_kind[kind] for kind in SAT_KINDS)
    extra = lite.n_bv_tests - full.n_bv_tests
    if extra > 0:
        cost = (f"here SAT lite needs {extra:,} more volume tests ({lite.n_bv_tests:,} against "
                f"{full.n_bv_tests:,}), because a pair that only an edge-edge axis separates "
                "passes it and is split again")
    else:
        cost = ("here SAT lite needs no more volume tests than the 15-axis test (the face "
                "axes already separate every culled pair, as when nothing is rotated)")
    faster = "SAT lite" if lite.traverse_ms <= full.traverse_ms else "the 15-axis test"
    return (f"<b>SAT lite vs 15 axes</b>: the same boxes, tested on the 6 face axes only or "
            f"on all 15 (9 more edge-edge axes, the costliest to compute); {cost}. Traversal "
            f"{lite.traverse_ms:.2f} ms against {full.traverse_ms:.2f} ms: on this frame "
            f"{faster} wins.")


COMPARE_SIZE = (1500, 820)
"""Size of the compare view at most; a smaller screen gets 95 % of its free width and 90 % of
its free height."""


class CompareDialog(QDialog):
    """Compare bounding-volume kinds on the model's current frame.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    """

    def __init__(self, model, parent=None):
        super().__init__(parent)
        self.model = model
        self.rows = []
        self.images = []
        self.comparison = KindComparison(self)  # runs the kinds off the GUI thread
        self.setWindowTitle("Compare bounding volumes")
        self.checks: dict[str, QCheckBox] = {}
        ticks = QGridLayout()
        for n, (key, label, description) in enumerate(bv_choices()):
            box = QCheckBox(label)
            box.setToolTip(description)
            box.setChecked(key in DEFAULT_KINDS)
            self.checks[key] = box
            ticks.addWidget(box, n // 4, n % 4)
        self.level = QSpinBox()
        self.level.setRange(0, 40)
        self.level.setValue(model.level if model.level is not None else 5)
        self.level.setPrefix("tree depth ")
        self.run_button = QPushButton("Run on the current frame")
        self.run_button.clicked.connect(self.run)
        self.sat_button = QPushButton("SAT lite vs 15 axes")
        self.sat_button.setToolTip(
            "Tick only the axis-aligned boxes with both tests (6 face axes, and all 15) and "
            "run: the extra volume tests SAT lite costs against the arithmetic it saves.")
        self.sat_button.clicked.connect(self.run_sat_pair)
        controls = QHBoxLayout()
        controls.addWidget(self.level)
        controls.addWidget(self.run_button)
        controls.addWidget(self.sat_button)
        controls.addStretch(1)
        self.status = QLabel("Same trees for every kind: only the volumes differ.")
        self.status.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.pictures = QHBoxLayout()
        self.picture_labels: list[QLabel] = []
        layout = QVBoxLayout(self)
        layout.addLayout(ticks)
        layout.addLayout(controls)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        self.note = QLabel("")
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        layout.addLayout(self.pictures)
        width, height = COMPARE_SIZE
        screen = parent.screen() if parent is not None else self.screen()
        if screen is not None:
            # 1500x820 stood off a 1280x800 screen: its title bar and OK out of reach.
            free = screen.availableGeometry()
            width, height = min(width, int(0.95 * free.width())), min(height,
                                                                      int(0.9 * free.height()))
        self.resize(width, height)
        model.scene_changed.connect(self.clear)

    @property
    def is_running(self) -> bool:
        """A comparison runs (or waits); its rows replace the table when it ends."""
        return self.comparison.is_running

    def clear(self) -> None:
        """Forget the results of the last run: they describe another scene's frame."""
        self.comparison.forget()
        self.rows = []
        self.table.setRowCount(0)
        self.note.setText("")
        self._fill_pictures(None, [], 0)
        self.status.setText("New scene: press Run to compare the kinds on its frame.")

    def run_sat_pair(self) -> None:
        """The ready choice: only ``aabb`` and ``aabb15`` ticked, then :meth:`run`."""
        for key, box in self.checks.items():
            box.setChecked(key in SAT_KINDS)
        self.run()

    def selected_kinds(self) -> list[str]:
        return [key for key, box in self.checks.items() if box.isChecked()]

    def run(self) -> None:
        """Fill the table and the pictures from the model's current frame."""
        frame = self.model.frame
        if frame is None or frame.result is None or len(frame.trees) < 2:
            self.status.setText("Needs a frame with two meshes (A and B).")
            return
        kinds = self.selected_kinds()
        if not kinds:
            self.status.setText("Tick at least one kind.")
            return
        level = int(self.level.value())
        self.status.setText(f"Running on frame {frame.index}…")
        self.comparison.run(frame, kinds, level, self.model.pipeline.descend,
                            self.model.pipeline.obb_fit,
                            lambda rows, job: self._show_rows(frame, kinds, level, rows, job),
                            self._show_error)

    def _show_error(self, error, job) -> None:
        if self.comparison.is_current(job):
            self.status.setText(f"Frame {job.tag.frame_index}: the comparison failed: "
                                f"{type(error).__name__}: {error}")

    def _show_rows(self, frame, kinds, level: int, rows, job) -> None:
        """A run's rows, on the GUI thread; those of a scene no longer shown are dropped."""
        if not self.comparison.is_current(job):
            return
        self.rows = rows
        self._fill_table()
        self.note.setText(sat_note(self.rows))
        self._fill_pictures(frame, kinds[:MAX_PICTURES], level)
        best = min(self.rows, key=lambda r: r.n_bv_tests)
        tight = min(self.rows, key=lambda r: r.total_volume)
        self.status.setText(
            f"Frame {frame.index}, depth {level}: fewest volume tests with {best.label} "
            f"({best.n_bv_tests:,}); tightest at this depth: {tight.label}. Times in ms on "
            "this machine; refit marked * is looser than a fresh fit (merges child volumes)."
            + ("" if self.model.frame is frame else
               f" The view has moved on: these rows are from frame {frame.index}."))

    def row_label(self, row) -> str:
        """The kind's label; the OBB's says which fit made it ("OBB, fit: surface ...")."""
        if not row.has_fit_choice:
            return row.label
        fits = {name: label for name, label, _t in obb_fit_choices()}
        return f"{row.label}, fit: {fits.get(self.model.pipeline.obb_fit, '')}"

    def _fill_table(self) -> None:
        self.table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            values = (self.row_label(row), f"{row.total_volume:.4g}", f"{row.n_bv_tests:,}",
                      f"{row.n_bv_overlaps:,}", f"{row.n_tri_tests:,}", f"{row.n_contacts:,}",
                      f"{row.fit_ms:.2f}",
                      f"{row.refit_ms:.2f}{'' if row.refit_exact else ' *'}",
                      f"{row.traverse_ms:.3f}", f"{row.query_ms:.2f}")  # fmt: skip
            for c, text in enumerate(values):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)

    def _fill_pictures(self, frame, kinds, level: int) -> None:
        while self.pictures.count():  # the old pictures and the stretch after them
            widget = self.pictures.takeAt(0).widget()
            if widget is not None:
                # Hidden now: deleteLater waits for the event loop, and until then a removed
                # label stays painted where it was, beside the new pictures.
                widget.hide()
                widget.deleteLater()
        self.picture_labels, self.images = [], []
        for key in kinds:
            volumes = volume_set(frame, key, self.model.pipeline.obb_fit)
            image = volumes_image(frame, volumes, level, f"{volumes.label}, depth {level}")
            self.images.append(image)
            h, w = image.shape[:2]
            qimage = QImage(image.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()
            label = QLabel()
            pixmap = QPixmap.fromImage(qimage)
            # Four side by side within the window (at 360 px each they made it 1,480 px wide,
            # wider than a 1280x800 screen).
            room = max(MIN_PICTURE_PX, (self.width() - 40) // max(1, len(kinds)) - 8)
            if pixmap.width() > room:
                pixmap = pixmap.scaledToWidth(room, Qt.TransformationMode.SmoothTransformation)
            label.setPixmap(pixmap)
            label.setToolTip(volumes.label)
            self.pictures.addWidget(label)
            self.picture_labels.append(label)
        self.pictures.addStretch(1)  # pictures side by side from the left, not spread out
