"""The shared widgets of the save dialogs: the format combo, the File row, Browse…."""

from __future__ import annotations

from PyQt6.QtWidgets import QFileDialog, QLineEdit, QPushButton

from viewer.qt.menus.export import VIDEO_FORMATS, VideoDialog
from viewer.qt.menus.session import EXPORT_FORMATS, ExportMeshDialog
from viewer.qt.widgets import (
    browse_save_path,
    cancellable_progress,
    dialog_buttons,
    file_row,
    format_combo,
    show_kept,
)


def _answer(monkeypatch, path: str, picked: str) -> list:
    asked = []

    def answer(parent, title, start, filters, chosen):
        asked.append((title, start, filters, chosen))
        return path, picked

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(answer))
    return asked


def test_format_combo_shows_the_words_and_keeps_the_suffix(qtbot):
    combo = format_combo(EXPORT_FORMATS, "why")
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "OBJ, text, exact float64 coordinates", "PLY, binary little-endian, exact float64 "
        "coordinates", "STL, binary, float32 coordinates rounded"]
    assert [combo.itemData(i) for i in range(combo.count())] == [".obj", ".ply", ".stl"]
    assert combo.toolTip() == "why"


def test_file_row_browse_button_calls_back(qtbot):
    calls = []
    edit = QLineEdit("a.obj")
    row = file_row(edit, lambda: calls.append(1), "Choose the file")
    qtbot.addWidget(row)
    button = row.findChild(QPushButton)
    assert button.text() == "Browse…" and button.toolTip() == "Choose the file"
    button.click()
    assert calls == [1]


def test_browse_adds_the_picked_filters_suffix(qtbot, monkeypatch, tmp_path):
    dialog = VideoDialog("Video", str(tmp_path / "a.mp4"), (640, 480))
    qtbot.addWidget(dialog)
    asked = _answer(monkeypatch, str(tmp_path / "b"), VIDEO_FORMATS[1][1])
    dialog._browse()
    assert asked == [("Video", str(tmp_path / "a.mp4"),
                      ";;".join(words for _, words in VIDEO_FORMATS), VIDEO_FORMATS[0][1])]
    assert dialog.path_edit.text() == str(tmp_path / "b.gif")
    assert dialog.format_combo.currentData() == ".gif"  # the suffix chose the format


def test_browse_keeps_a_known_suffix_and_falls_back_to_the_first(qtbot, monkeypatch,
                                                                   tmp_path):
    dialog = ExportMeshDialog([], -1, str(tmp_path))
    qtbot.addWidget(dialog)
    _answer(monkeypatch, str(tmp_path / "c.stl"), EXPORT_FORMATS[0][1])
    dialog._browse()
    assert dialog.path_edit.text() == str(tmp_path / "c.stl")
    _answer(monkeypatch, str(tmp_path / "d"), "All files (*)")
    dialog._browse()
    assert dialog.path_edit.text() == str(tmp_path / "d.obj")


def test_browse_cancelled_leaves_the_path(qtbot, monkeypatch, tmp_path):
    dialog = ExportMeshDialog([], -1, str(tmp_path))
    qtbot.addWidget(dialog)
    before = dialog.path_edit.text()
    _answer(monkeypatch, "", "")
    browse_save_path(dialog, dialog.path_edit, dialog.format_combo, EXPORT_FORMATS)
    assert dialog.path_edit.text() == before


def test_dialog_buttons_accept_and_reject(qtbot):
    from PyQt6.QtWidgets import QDialog, QDialogButtonBox

    dialog = QDialog()
    qtbot.addWidget(dialog)
    buttons = dialog_buttons(dialog, QDialogButtonBox.StandardButton.Save)
    assert buttons.standardButtons() == (QDialogButtonBox.StandardButton.Save
                                         | QDialogButtonBox.StandardButton.Cancel)
    dialog.open()
    buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert dialog.result() == QDialog.DialogCode.Accepted
    dialog.open()
    buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    assert dialog.result() == QDialog.DialogCode.Rejected


def test_cancellable_progress_stays_open_and_calls_back(qtbot):
    calls = []
    dialog = cancellable_progress(None, lambda: calls.append("cancel"))
    qtbot.addWidget(dialog)
    assert dialog.minimumDuration() == 0
    assert not dialog.autoClose() and not dialog.autoReset()
    dialog.show()
    next(b for b in dialog.findChildren(QPushButton) if b.text() == "Cancel").click()
    assert calls == ["cancel"]


def test_show_kept_makes_the_window_once(qtbot):
    from types import SimpleNamespace

    from PyQt6.QtWidgets import QDialog

    owner, made = SimpleNamespace(), []

    def make():
        made.append(QDialog())
        qtbot.addWidget(made[-1])
        return made[-1]

    first = show_kept(owner, "dialog", make)
    assert first.isVisible() and owner.dialog is first
    first.hide()
    assert show_kept(owner, "dialog", make) is first and first.isVisible()
    assert len(made) == 1
