"""The Experiments window (a dock): rerun a classic result of the literature and get its figure.

The user picks an experiment, checks or edits its sizes, runs it (Ctrl+Return) and watches a
progress bar ("3 of 12: aabb at gap 1e-3", elapsed time); Esc cancels. The figure is drawn by
the result itself (``ExperimentResult.draw``) into a matplotlib Qt canvas with the reading of
the result under it, and Save figure / Save data / Save all to folder write PNG or SVG, CSV, or
all three. The run happens in the controller (:mod:`viewer.control.experiments`); this panel
only writes requests and shows what the model announces.
"""

from __future__ import annotations

import math
import re
import time
from pathlib import Path

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PyQt6.QtCore import QSize, Qt, QTimer
from PyQt6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from viewer.control.recording import JobCancelled
from viewer.qt.figure_export import FigureSaveError, ask_figure_path, save_figure
from viewer.qt.panels.common import wrap_label
from viewer.words.actions import shortcut_of

RUN_KEY = shortcut_of("experiments.run")
CANCEL_KEY = shortcut_of("experiments.cancel")

ERROR_STYLE = "color: #B00020"
"""Red of the one-line messages (a bad size, a failed run, a file not written)."""

ELAPSED_TICK_MS = 200
"""How often the elapsed time under the progress bar is updated while a run goes on."""

CSV_FILTER = "Comma-separated values (*.csv)"

SHORT_MEANING_CHARS = 28
"""A sizes meaning up to this long goes in the field's label ("Sizes (triangles per
sphere)"); a longer one on its own line under the field."""

_SEPARATORS = re.compile(r"[\s,;]+")
_SUFFIXES = {"k": 1_000, "K": 1_000, "M": 1_000_000}


def sizes_from_text(text: str, defaults: tuple) -> tuple:
    """The sizes typed in the field: numbers separated by spaces or commas (``k`` and ``M``
    suffixes allowed: "20k"), each finite and positive; whole numbers when the defaults are
    (triangle counts, frames).

    Returns
    -------
    tuple of float or int
        Never empty.

    Raises
    ------
    ValueError
        One line naming the bad entry and why.
    """
    words = [w for w in _SEPARATORS.split(text.strip()) if w]
    if not words:
        return tuple(defaults)
    is_whole = all(isinstance(d, int) and not isinstance(d, bool) for d in defaults)
    sizes = []
    for word in words:
        # "20k" and "1.5M" as on the command line (python -m core experiment --sizes).
        multiplier = _SUFFIXES.get(word[-1], 1) if len(word) > 1 else 1
        try:
            value = float(word[:-1] if multiplier != 1 else word) * multiplier
        except ValueError:
            raise ValueError(f"size {word!r} is not a number") from None
        if not math.isfinite(value) or value <= 0:
            raise ValueError(f"size {word!r} must be a positive number")
        if is_whole:
            if value != int(value):
                raise ValueError(f"size {word!r} must be a whole number")
            value = int(value)
        sizes.append(value)
    return tuple(sizes)


def sizes_text(sizes) -> str:
    """Sizes as the field shows them ("0.1, 0.01, 0.001")."""
    return ", ".join(f"{s:g}" if isinstance(s, float) else str(s) for s in sizes)


def progress_words(done: int, total: int, what: str, seconds: float) -> str:
    """"3 of 12: aabb at gap 1e-3 (4.2 s)"; without a total, only what and the time."""
    head = f"{done:,} of {total:,}" if total > 0 else ""
    body = ": ".join(part for part in (head, what) if part)
    return f"{body} ({seconds:.1f} s)" if body else f"Starting… ({seconds:.1f} s)"


class FittedFigureCanvas(FigureCanvasQTAgg):
    """A figure shown at its own proportions and size in inches, scaled to the widget's width.

    An experiment draws its figure for its saved size (``draw`` sets e.g. 10 x 6.2 inches,
    wraps its caption to that width and places legend and caption in fractions of it). The
    usual Qt canvas instead changes the figure's inches to the widget's pixels at a fixed dpi,
    which at a dock's 600 pixels pushed the wrapped caption past the right edge and squeezed
    the legend into the axes. Here the dpi follows the width instead: what the dock shows is
    the saved picture, smaller.
    """

    def __init__(self, figure):
        super().__init__(figure)
        self.design_inches = tuple(float(x) for x in figure.get_size_inches())
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def fit_to_figure(self) -> None:
        """Take the figure's current size in inches as its design size (after a draw)."""
        self.design_inches = tuple(float(x) for x in self.figure.get_size_inches())
        self.updateGeometry()
        self._set_dpi_for(self.width())
        self.figure.set_size_inches(*self.design_inches, forward=False)

    def _set_dpi_for(self, width_px: int) -> None:
        if width_px > 0:
            self.figure.set_dpi(width_px * self.device_pixel_ratio / self.design_inches[0])

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt API
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt API
        return round(width * self.design_inches[1] / self.design_inches[0])

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        return QSize(600, self.heightForWidth(600))

    def resizeEvent(self, event):  # noqa: N802 - Qt API
        # The base class divides the new pixels by the figure's dpi; set the dpi first so
        # that the figure keeps its design width in inches.
        self._set_dpi_for(event.size().width())
        super().resizeEvent(event)


class ExperimentsPanel(QWidget):
    """Choose, run and save an experiment.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    controller : viewer.controller.Controller
        Its ``experiment_catalogue``, ``run_experiment_named``, ``cancel_experiment``,
        ``save_experiment_data`` and ``save_experiment_outputs``.
    """

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.catalogue = {info.name: info for info in controller.experiments.experiment_catalogue()}
        self.results: dict[str, object] = {}  # experiment key -> its last ExperimentResult
        self._started = 0.0
        self._last_progress = (0, 0, "")
        self._last_dir: Path | None = None

        self.choice = QComboBox()
        for info in self.catalogue.values():
            self.choice.addItem(info.title, info.name)
            # Each item says what it shows and where it comes from, like every other choice.
            self.choice.setItemData(self.choice.count() - 1, f"{info.shows} ({info.source})",
                                    Qt.ItemDataRole.ToolTipRole)
        self.choice.setToolTip("The experiment to run (the Experiments menu lists them too)")
        self.title = wrap_label(QLabel())
        self.source = wrap_label(QLabel())
        self.sizes = QLineEdit()
        self.sizes_label = QLabel("Sizes")
        self.sizes_meaning = wrap_label(QLabel())  # a meaning too long for the label
        self.sizes_meaning.setStyleSheet("color: #555555")
        self.sizes_error = wrap_label(QLabel())
        self.sizes_error.setStyleSheet(ERROR_STYLE)
        self.sizes_error.hide()
        self.defaults_button = QPushButton("Defaults")
        self.defaults_button.setToolTip("Put the experiment's default sizes back")
        self.quick_button = QPushButton("Quick")
        self.quick_button.setToolTip("A few small sizes: the figure in seconds, for a first "
                                     "look")
        self.use_scene = QCheckBox("Use the current scene (bodies A and B)")
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip(f"Run the experiment with these sizes ({RUN_KEY})")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip(f"Stop the run; the last figure stays ({CANCEL_KEY})")
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress.hide()  # shown while a run goes on: idle, it looked like an empty field
        self.progress_label = wrap_label(QLabel())
        self.message = wrap_label(QLabel())  # a failed run (red) or a cancelled one
        self.figure = Figure(figsize=(10.0, 6.2))
        self.canvas = FittedFigureCanvas(self.figure)
        self.canvas.setMinimumHeight(200)
        self.shows = wrap_label(QLabel())
        self.reading = wrap_label(QLabel())
        self.save_figure_button = QPushButton("Save figure…")
        self.save_figure_button.setToolTip("Write the figure as a PNG image or an SVG drawing, "
                                           "by the file name")
        self.save_data_button = QPushButton("Save data…")
        self.save_data_button.setToolTip("Write the numbers behind the figure as CSV, with a "
                                         "header saying what each column is")
        self.save_all_button = QPushButton("Save all to folder…")
        self.save_all_button.setToolTip("Write the figure (PNG and SVG) and the data (CSV) "
                                        "into a folder")
        self.save_note = wrap_label(QLabel())

        form = QFormLayout()
        form.addRow("Experiment", self.choice)
        sizes_row = QHBoxLayout()
        sizes_row.addWidget(self.sizes, 1)
        sizes_row.addWidget(self.quick_button)
        sizes_row.addWidget(self.defaults_button)
        sizes_box = QVBoxLayout()  # the field, its long meaning and a bad size's message
        sizes_box.setSpacing(2)
        sizes_box.addLayout(sizes_row)
        sizes_box.addWidget(self.sizes_meaning)
        sizes_box.addWidget(self.sizes_error)
        form.addRow(self.sizes_label, sizes_box)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.progress, 1)
        saves = QHBoxLayout()
        for button in (self.save_figure_button, self.save_data_button, self.save_all_button):
            saves.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.title)
        layout.addWidget(self.source)
        layout.addWidget(self.shows)
        layout.addWidget(self.use_scene)
        layout.addLayout(buttons)
        layout.addWidget(self.progress_label)
        layout.addWidget(self.message)
        # The save buttons above the figure: under it (and the reading) they were scrolled
        # out of a 900 px window (seen at 1600x1000).
        layout.addLayout(saves)
        layout.addWidget(self.save_note)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self.reading)

        self._elapsed_timer = QTimer(self)
        self._elapsed_timer.setInterval(ELAPSED_TICK_MS)
        self._elapsed_timer.timeout.connect(self._show_progress)
        self.choice.currentIndexChanged.connect(lambda _i: self._show_choice())
        self.sizes.textEdited.connect(lambda _t: self.sizes_error.hide())
        self.sizes.returnPressed.connect(self.run)
        self.defaults_button.clicked.connect(lambda: self._fill_sizes("default"))
        self.quick_button.clicked.connect(lambda: self._fill_sizes("quick"))
        self.run_button.clicked.connect(self.run)
        self.cancel_button.clicked.connect(self.cancel)
        self.save_figure_button.clicked.connect(lambda: self.save_figure_as())
        self.save_data_button.clicked.connect(lambda: self.save_data_as())
        self.save_all_button.clicked.connect(lambda: self.save_all_to())
        model.experiment_started.connect(self._on_started)
        model.experiment_progress.connect(self._on_progress)
        model.experiment_finished.connect(self._on_finished)
        self._show_choice()

    # -- choice ----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """Registry key of the chosen experiment."""
        return self.choice.currentData()

    @property
    def info(self):
        return self.catalogue[self.name]

    def select(self, name: str) -> None:
        """Show experiment ``name`` (its sizes back to the defaults)."""
        index = self.choice.findData(name)
        if index < 0:
            raise KeyError(f"no experiment called {name!r}")
        if index == self.choice.currentIndex():
            self._show_choice()
        else:
            self.choice.setCurrentIndex(index)

    def _show_choice(self) -> None:
        info = self.info
        self.title.setText(f"<b>{info.title}</b>")
        self.source.setText(f"<i>Source</i>: {info.source}")
        self.shows.setText(info.shows)
        self.shows.setVisible(bool(info.shows))
        meaning = info.sizes_meaning
        is_short = len(meaning) <= SHORT_MEANING_CHARS
        self.sizes_label.setText(f"Sizes ({meaning})" if is_short else "Sizes")
        self.sizes_meaning.setText("" if is_short else meaning[:1].upper() + meaning[1:])
        self.sizes_meaning.setVisible(not is_short)
        tip = (f"{meaning[:1].upper()}{meaning[1:]}: numbers separated by commas or spaces. "
               f"Default: {sizes_text(info.default_sizes)}; quick: "
               f"{sizes_text(info.quick_sizes)}")
        self.sizes.setToolTip(tip)
        self.sizes_label.setToolTip(tip)
        self.sizes.setPlaceholderText(meaning)
        self._fill_sizes("default")
        self.use_scene.setVisible(info.takes_scene)
        self.use_scene.setToolTip(
            "Run on the meshes, poses and deformers of bodies A and B instead of the "
            "experiment's own scene" if info.takes_scene else "")
        self.message.setText("")
        self.save_note.setText("")
        self._show_result(self.results.get(info.name))

    def _fill_sizes(self, which: str) -> None:
        info = self.info
        self.sizes.setText(sizes_text(info.quick_sizes if which == "quick" else
                                      info.default_sizes))
        self.sizes_error.hide()

    # -- run --------------------------------------------------------------------------------
    def run(self) -> bool:
        """Run (Ctrl+Return): check the sizes, then ask the controller to run. False when the
        sizes are bad (the message is under the field) or nothing started."""
        if self.model.experiment_running is not None:
            return False
        try:
            sizes = sizes_from_text(self.sizes.text(), self.info.default_sizes)
        except ValueError as exc:
            self.sizes_error.setText(str(exc))
            self.sizes_error.show()
            return False
        self.sizes_error.hide()
        use_scene = self.info.takes_scene and self.use_scene.isChecked()
        return self.controller.experiments.run_experiment_named(self.name, sizes, use_scene)

    def cancel(self) -> None:
        """Cancel (Esc while running): the run stops at its next step; the figure stays."""
        if self.model.experiment_running is not None:
            self.progress_label.setText("Cancelling…")
            self.controller.experiments.cancel_experiment()

    def _on_started(self, name: str) -> None:
        if name != self.name:
            self.select(name)
        self._started = time.perf_counter()
        self._last_progress = (0, 0, "")
        self.message.setText("")
        self.save_note.setText("")
        self.run_button.setEnabled(False)
        self.choice.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setRange(0, 0)  # busy until the first report says how many steps
        self.progress.show()
        self._show_progress()
        self._elapsed_timer.start()

    def _on_progress(self, done: int, total: int, what: str) -> None:
        self._last_progress = (done, total, what)
        if total > 0:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
        self._show_progress()

    def _show_progress(self) -> None:
        done, total, what = self._last_progress
        self.progress_label.setText(progress_words(done, total, what,
                                                   time.perf_counter() - self._started))

    def _on_finished(self, result, error) -> None:
        self._elapsed_timer.stop()
        self.progress.setRange(0, 1)
        self.progress.reset()
        self.progress.hide()
        self.progress_label.setText("")
        self.run_button.setEnabled(True)
        self.choice.setEnabled(True)
        self.cancel_button.setEnabled(False)
        if result is not None:
            self.results[result.name] = result
            if result.name == self.name:
                self._show_result(result)
            self.message.setStyleSheet("")
            self.message.setText(f"Done in {result.seconds:.1f} s")
        elif isinstance(error, JobCancelled):
            self.message.setStyleSheet("")
            self.message.setText("Cancelled: the figure of the last run stays.")
        elif error is not None:
            self.message.setStyleSheet(ERROR_STYLE)
            text = str(error).strip().splitlines()[0] if str(error).strip() else ""
            self.message.setText(f"{self.info.title} failed: {text or type(error).__name__}")

    # -- figure -----------------------------------------------------------------------------
    @property
    def result(self):
        """The chosen experiment's last result (None before its first run)."""
        return self.results.get(self.name)

    def _show_result(self, result) -> None:
        self.figure.clear()
        if result is None:
            self.figure.text(0.5, 0.5, f"Not run yet: press Run ({RUN_KEY})", ha="center",
                             va="center", fontsize=11, color="#555555")
            self.reading.setText("")
        else:
            result.draw(self.figure)
            self.reading.setText(result.reading)
        self.canvas.fit_to_figure()
        for button in (self.save_figure_button, self.save_data_button, self.save_all_button):
            button.setEnabled(result is not None)
        self.canvas.draw_idle()

    # -- saving -----------------------------------------------------------------------------
    def _note(self, text: str, is_error: bool = False) -> None:
        self.save_note.setStyleSheet(ERROR_STYLE if is_error else "")
        self.save_note.setText(text)

    def _start_dir(self) -> Path:
        return self._last_dir or Path.home()

    def _remember_dir(self, path: Path) -> None:
        self._last_dir = Path(path)  # the next Save starts in the folder of the last one

    def save_figure_as(self, path: str | None = None) -> Path | None:
        """Save figure…: the chosen experiment's figure as PNG or SVG (by the suffix)."""
        result = self.result
        if result is None:
            return None
        if path is None:
            path = ask_figure_path(self, "Save the figure", self._start_dir() /
                                   f"{result.name}.png")
            if not path:
                return None
        try:
            # The command line's picture, not the dock's: the same whatever the dock's size.
            written = save_figure(self.controller.experiments.experiment_figure(result), path)
        except FigureSaveError as exc:
            self._note(f"Not saved: {exc}", is_error=True)
            return None
        self._remember_dir(written.parent)
        self._note(f"Saved {written}")
        return written

    def save_data_as(self, path: str | None = None) -> Path | None:
        """Save data…: the numbers behind the figure as CSV."""
        result = self.result
        if result is None:
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Save the data", str(
                self._start_dir() / f"{result.name}.csv"), CSV_FILTER)
            if not path:
                return None
        target = Path(path)
        if not target.suffix:
            target = target.with_suffix(".csv")
        try:
            written = self.controller.experiments.save_experiment_data(result, target)
        except (OSError, ValueError) as exc:
            self._note(f"Not saved: {target}: {getattr(exc, 'strerror', None) or exc}",
                       is_error=True)
            return None
        self._remember_dir(written.parent)
        self._note(f"Saved {written}")
        return written

    def save_all_to(self, folder: str | None = None) -> dict | None:
        """Save all to folder…: figure (PNG and SVG) and data (CSV) into one folder."""
        result = self.result
        if result is None:
            return None
        if folder is None:
            folder = QFileDialog.getExistingDirectory(self, "Save figure and data to folder",
                                                      str(self._start_dir()))
            if not folder:
                return None
        try:
            written = self.controller.experiments.save_experiment_outputs(result, folder)
        except (OSError, ValueError) as exc:
            self._note(f"Not saved: {folder}: {getattr(exc, 'strerror', None) or exc}",
                       is_error=True)
            return None
        self._remember_dir(Path(folder))
        self._note("Saved " + ", ".join(Path(p).name for p in written.values())
                   + f" in {folder}")
        return written
