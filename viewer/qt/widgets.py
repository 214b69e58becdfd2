"""Small reusable widgets."""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtWidgets import (
    QComboBox,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressDialog,
    QPushButton,
    QSlider,
    QWidget,
)

SLIDER_STEPS = 1000
"""Integer resolution of a float slider."""


def add_choices(combo: QComboBox, choices) -> None:
    """Append ``(data, label, tooltip)`` triples to ``combo``: the label shown, the data kept,
    the tooltip on the item."""
    for data, label, tooltip in choices:
        combo.addItem(label, data)
        combo.setItemData(combo.count() - 1, tooltip, Qt.ItemDataRole.ToolTipRole)


def pipeline_combo(model, field: str, choices) -> QComboBox:
    """A combo of ``(data, label, tooltip)`` choices that writes its data to the model's
    pipeline setting ``field`` when the user picks an item."""
    combo = QComboBox()
    add_choices(combo, choices)
    combo.currentIndexChanged.connect(
        lambda _i: model.set_pipeline(**{field: combo.currentData()}))
    return combo


def _slider_and_label(owner: QWidget, label_width: int) -> tuple[QSlider, QLabel]:
    """A horizontal slider with its value printed to its right, laid out in ``owner``."""
    slider = QSlider(Qt.Orientation.Horizontal)
    label = QLabel()
    label.setMinimumWidth(label_width)
    label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    layout = QHBoxLayout(owner)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(slider, 1)
    layout.addWidget(label)
    return slider, label


class FloatSlider(QWidget):
    """A horizontal slider over ``[lo, hi]`` with its value printed next to it.

    Parameters
    ----------
    lo, hi, value : float
    decimals : int
    is_integer : bool
        Integer values (step 1) instead of ``SLIDER_STEPS`` steps.
    """

    value_changed = pyqtSignal(float)

    def __init__(self, lo: float, hi: float, value: float, decimals: int = 2,
                 is_integer: bool = False, parent=None):
        super().__init__(parent)
        self.lo, self.hi = float(lo), float(hi)
        self.decimals = decimals
        self.is_integer = is_integer
        self.slider, self.label = _slider_and_label(self, label_width=48)
        self.slider.setRange(0, int(hi - lo) if is_integer else SLIDER_STEPS)
        self.set_value(value)
        self.slider.valueChanged.connect(self._on_slider)

    def _to_value(self, position: int) -> float:
        if self.is_integer:
            return self.lo + position
        return self.lo + (self.hi - self.lo) * position / SLIDER_STEPS

    def _to_position(self, value: float) -> int:
        if self.is_integer:
            return int(round(value - self.lo))
        span = self.hi - self.lo
        return int(round((value - self.lo) / span * SLIDER_STEPS)) if span > 0 else 0

    def value(self) -> float:
        return self._to_value(self.slider.value())

    def set_value(self, value: float) -> None:
        """Move the slider without emitting ``value_changed``."""
        self.slider.blockSignals(True)
        self.slider.setValue(self._to_position(value))
        self.slider.blockSignals(False)
        self._show(self.value())

    def _show(self, value: float) -> None:
        self.label.setText(f"{int(value)}" if self.is_integer else f"{value:.{self.decimals}f}")

    def _on_slider(self, position: int) -> None:
        value = self._to_value(position)
        self._show(value)
        self.value_changed.emit(value)


class StopSlider(QWidget):
    """A horizontal slider over a fixed list of values (e.g. logarithmic stops), the value
    printed next to it.

    Parameters
    ----------
    values : (k,) float64
        The stops, in slider order.
    value : float
        Starts at the stop nearest this value.
    fmt : str
        Format of the printed value (``format(value, fmt)``).
    """

    value_changed = pyqtSignal(float)

    def __init__(self, values, value: float, fmt: str = ".3g", parent=None):
        super().__init__(parent)
        self.values = [float(v) for v in values]
        self.fmt = fmt
        self.slider, self.label = _slider_and_label(self, label_width=56)
        self.slider.setRange(0, len(self.values) - 1)
        self.slider.setPageStep(1)
        self.set_value(value)
        self.slider.valueChanged.connect(self._on_slider)

    def value(self) -> float:
        return self.values[self.slider.value()]

    def set_value(self, value: float) -> None:
        """Move to the stop nearest ``value`` without emitting ``value_changed``."""
        nearest = min(range(len(self.values)), key=lambda i: abs(self.values[i] - value))
        self.slider.blockSignals(True)
        self.slider.setValue(nearest)
        self.slider.blockSignals(False)
        self.label.setText(format(self.value(), self.fmt))

    def _on_slider(self, position: int) -> None:
        self.label.setText(format(self.values[position], self.fmt))
        self.value_changed.emit(self.values[position])


def link_format_and_suffix(combo: QComboBox, path_edit, default_stem: str) -> None:
    """Keep a file dialog's format choice and its path's suffix in step, both ways.

    ``combo`` holds each format's suffix (".mp4", ".obj", ...) as item data. Choosing a format
    changes the path's suffix (``default_stem`` names an empty path); typing a path whose
    suffix is a known format chooses that format, without echoing back into the path.
    """

    def suffix_from_format() -> None:
        path = Path(path_edit.text() or default_stem)
        suffix = combo.currentData()
        if path.suffix.lower() != suffix:
            path_edit.setText(str(path.with_suffix(suffix)))

    def format_from_suffix(text: str) -> None:
        index = combo.findData(Path(text).suffix.lower())
        if index >= 0 and index != combo.currentIndex():
            combo.blockSignals(True)
            combo.setCurrentIndex(index)
            combo.blockSignals(False)

    combo.currentIndexChanged.connect(suffix_from_format)
    path_edit.textChanged.connect(format_from_suffix)
    format_from_suffix(path_edit.text())


def format_combo(formats, tooltip: str) -> QComboBox:
    """A combo of file formats for :func:`link_format_and_suffix`: ``formats`` holds
    ``(suffix, filter)`` pairs such as ``(".gif", "GIF animation (*.gif)")``; each item shows
    the filter's words before ``" (*"`` and keeps the suffix as its data."""
    combo = QComboBox()
    for suffix, words in formats:
        combo.addItem(words.split(" (*")[0], suffix)
    combo.setToolTip(tooltip)
    return combo


def file_row(path_edit, on_browse, browse_tooltip: str = "") -> QWidget:
    """A dialog's "File" row: ``path_edit`` stretched, and a Browse… button calling
    ``on_browse`` to its right."""
    row = QWidget()
    line = QHBoxLayout(row)
    line.setContentsMargins(0, 0, 0, 0)
    browse = QPushButton("Browse…")
    if browse_tooltip:
        browse.setToolTip(browse_tooltip)
    browse.clicked.connect(on_browse)
    line.addWidget(path_edit, 1)
    line.addWidget(browse)
    return row


def browse_save_path(dialog, path_edit, combo, formats) -> None:
    """Browse… of a save dialog with a format choice: the system's file dialog (titled as
    ``dialog``) starts at ``path_edit``'s path with ``combo``'s format's filter chosen; a name
    picked without a known suffix gets the suffix of the filter picked (the first format's
    when none matches). ``formats`` holds ``(suffix, filter)`` pairs in ``combo``'s order.
    Cancelling leaves the path as it was."""
    chosen = formats[max(combo.currentIndex(), 0)][1]
    path, picked = QFileDialog.getSaveFileName(dialog, dialog.windowTitle(), path_edit.text(),
                                               ";;".join(words for _, words in formats), chosen)
    if path:
        if Path(path).suffix.lower() not in {suffix for suffix, _ in formats}:
            path += next((suffix for suffix, words in formats if words == picked),
                         formats[0][0])
        path_edit.setText(path)


def ask_file_path(window, title: str, folder_key: str, file_filter: str, suffix: str,
                  default_stem: str, is_save: bool) -> str:
    """Ask for a file to save or open, starting in the folder remembered under ``folder_key``
    of ``window.settings`` (the home folder at first) and remembering the chosen one.

    Saving proposes ``<scene or default_stem><suffix>`` and adds ``suffix`` to a name typed
    without one. Returns "" when cancelled.
    """
    start = window.settings.value(folder_key, str(Path.home()))
    if is_save:
        name = f"{window.model.scene_key or default_stem}{suffix}"
        path, _ = QFileDialog.getSaveFileName(window, title, str(Path(start) / name),
                                              file_filter)
        if path and not Path(path).suffix:
            path += suffix
    else:
        path, _ = QFileDialog.getOpenFileName(window, title, start, file_filter)
    if path:
        window.settings.setValue(folder_key, str(Path(path).parent))
    return path


def dialog_buttons(dialog, accept_button: QDialogButtonBox.StandardButton) -> QDialogButtonBox:
    """``accept_button`` (Ok, Save, ...) and Cancel, answering ``dialog``'s accept and
    reject; the caller lays the box out."""
    buttons = QDialogButtonBox(accept_button | QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons


def cancellable_progress(parent, on_cancel) -> QProgressDialog:
    """A progress dialog with Cancel (calling ``on_cancel``), shown at once and kept open at
    100 % (a job hides it itself), for a long job that the caller updates."""
    dialog = QProgressDialog("", "Cancel", 0, 0, parent)
    dialog.setMinimumDuration(0)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    dialog.canceled.connect(on_cancel)
    return dialog


def show_kept(owner, attribute: str, make):
    """A window that is made once and kept between openings: ``owner``'s ``attribute``
    (made by ``make()`` the first time, when it is None or missing), shown and raised in
    front. Returns it."""
    window = getattr(owner, attribute, None)
    if window is None:
        window = make()
        setattr(owner, attribute, window)
    window.show()
    window.raise_()
    return window
