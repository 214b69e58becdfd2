"""Words and layout of the window at 1280x800: the scene switch asks about the recording,
the Export mesh dialog's proposed name follows the body, the status bar's words fit, the F1
help fits the screen, the heat map's colour-bar title clears its ticks."""

from __future__ import annotations

from pathlib import Path

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QMessageBox

from tests.viewer.conftest import settle, wait_scene
from viewer.qt.dialogs import scene_switch
from viewer.qt.panels.scene import SCENE_OCTREE_ENTRY


def _record_frames(qtbot, window, n: int = 3) -> None:
    for _ in range(n):
        window.controller.animation.step_time(1 / 30)
        qtbot.waitUntil(lambda: not window.controller.frames.is_busy, timeout=60_000)
    assert len(window.model.recording) >= scene_switch.ASK_FROM_FRAMES


def test_the_switch_question_offers_save_discard_cancel(qtbot, window):
    box = scene_switch.recording_question(window, 42, "Two spheres")
    qtbot.addWidget(box)
    texts = {box.button(b).text() for b in (QMessageBox.StandardButton.Save,
                                            QMessageBox.StandardButton.Discard,
                                            QMessageBox.StandardButton.Cancel)}
    assert "Save…" in texts and len(texts) == 3
    assert "42 frames" in box.text() and "Two spheres" in box.text()
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)


@pytest.mark.parametrize("answer", ["cancel", "discard", "save"])
def test_switching_scenes_asks_before_the_recording_goes(qtbot, window, monkeypatch, tmp_path,
                                                         answer):
    """A switch dropped every recorded frame without a word: now cancel keeps scene and
    recording, discard switches, save writes the frames first and then switches."""
    _record_frames(qtbot, window)
    recording = window.model.recording
    n = len(recording)
    asked = []
    monkeypatch.setattr(scene_switch, "ask_about_recording",
                        lambda _w, frames, title: asked.append((frames, title)) or answer)
    saved = tmp_path / "kept.bvhrec"
    monkeypatch.setattr(window.recording_menu, "_ask_recording_path",
                        lambda *_a, **_k: str(saved))
    before = window.model.scene_key
    panel = window.docks["scene_dock"].panel
    role = Qt.ItemDataRole.UserRole
    row = next(i for i in range(panel.scene_list.count())
               if panel.scene_list.item(i).data(role) not in (before, SCENE_OCTREE_ENTRY))
    title = window.model.scene_title
    panel._on_scene_clicked(panel.scene_list.item(row))
    assert asked == [(n, title)]
    if answer == "cancel":
        wait_scene(qtbot, window)
        assert window.model.scene_key == before
        assert window.model.recording is recording and len(recording) == n
        return
    wait_scene(qtbot, window)
    settle(qtbot, window)
    assert window.model.scene_key != before
    if answer == "save":
        qtbot.waitUntil(lambda: saved.exists() and window.controller.recorder._job is None,
                        timeout=60_000)
        from core.recording.fileformat import open_recording

        assert len(open_recording(saved)) == n  # the old scene's frames, all of them


def test_no_question_without_a_recording_worth_keeping(qtbot, window, monkeypatch):
    window.controller.recorder.clear_recording()
    monkeypatch.setattr(scene_switch, "ask_about_recording",
                        lambda *_a: pytest.fail("asked without a recording"))
    assert scene_switch.may_leave_recording(window)


def test_the_export_name_follows_the_chosen_body(qtbot, window, tmp_path):
    window.settings.setValue("last_export_dir", str(tmp_path))
    window.model.set_selected(0)
    dialog = window.session_menu.ask_export_mesh()
    names = [b.name for b in window.model.bodies]
    assert Path(dialog.path_edit.text()).name == f"{names[0]}.obj"
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData(".ply"))
    dialog.body_combo.setCurrentIndex(1)
    assert Path(dialog.path_edit.text()) == tmp_path / f"{names[1]}.ply"
    dialog.path_edit.setText(str(tmp_path / "mine.ply"))  # the user's own name stays
    dialog.body_combo.setCurrentIndex(0)
    assert Path(dialog.path_edit.text()).name == "mine.ply"
    dialog.reject()


def test_the_help_fits_a_1280x800_screen_and_scrolls(qtbot, window):
    from viewer.qt.menus.help import HelpDialog

    window.show_help()
    dialog = window._help_box
    assert isinstance(dialog, HelpDialog)
    free = window.screen().availableGeometry()
    assert dialog.height() <= free.height() and dialog.width() <= free.width()
    assert "How to read this view" in dialog.text() and "contact again" in dialog.text()
    dialog.accept()


def test_the_help_is_capped_by_a_small_screen(qtbot, window, monkeypatch):
    from PyQt6.QtCore import QRect

    from viewer.qt.menus.help import HelpDialog

    class Small:
        def availableGeometry(self):
            return QRect(0, 0, 1280, 770)  # 1280x800 less a panel

    monkeypatch.setattr(type(window), "screen", lambda _self: Small())
    dialog = HelpDialog(window)
    qtbot.addWidget(dialog)
    assert dialog.height() <= 770
    bar = dialog.browser.verticalScrollBar()
    dialog.show()
    qtbot.waitExposed(dialog)
    assert bar.maximum() > 0  # the rest scrolls inside


def test_the_status_bar_message_fits_at_1280x800(qtbot, window):
    """"Scene: Two spheres over" was all that showed of the scene's message: the phase times
    and the recording took the bar. They are capped (elided, whole in the tooltip) and the
    message is shorter."""
    window.resize(1280, 800)
    settle(qtbot, window)
    # A loaded machine may draw this frame in over 50 ms, and the "Drawing frame 0 is slow"
    # line then replaces the first frame's message (a full run failed so): this test is
    # about the message's width, not the renderer's speed.
    window._slow_notice.check = lambda *args: ("", False)
    window._has_frame = False
    window._on_frame(window.model.frame)  # the first frame's message
    bar = window.statusBar()
    message = bar.currentMessage()
    assert message.startswith(window.model.scene_title) and "F1" in message
    qtbot.waitUntil(lambda: bar.width() >= 1200, timeout=10_000)
    line = window.status_line
    permanent = [w for w in (line.frame_state_label, line.recording_label, line.timing_label,
                             line.fps_label) if w.isVisible()]
    used = sum(w.width() for w in permanent) + 12 * len(permanent)
    assert bar.width() - used >= bar.fontMetrics().horizontalAdvance(message) + 16
    timing = line.timing_label
    assert "traverse" in timing.text()  # the whole text stays the label's text
    if timing.is_elided():
        assert timing.shown_text().endswith("…") and timing.text() in timing.toolTip()


def test_a_recontact_is_marked_contact_again_on_the_timeline(qtbot, window):
    """Every re-contact was labelled "first contact": the slider's legend and marker style
    name the second kind, drawn hollow."""
    from viewer.qt.window.timeline import MARKER_STYLES, Marker

    slider = window.timeline.slider
    assert "▽ contact again" in slider.toolTip() and "▼ first contact" in slider.toolTip()
    again, first = MARKER_STYLES["CONTACT_AGAIN"], MARKER_STYLES["FIRST_CONTACT"]
    assert again.is_hollow and not first.is_hollow and again.rgb == first.rgb
    slider.setRange(0, 9)
    slider.set_markers([Marker(2, "FIRST_CONTACT", "first contact: 3 triangle pairs"),
                        Marker(7, "CONTACT_AGAIN", "contact again: 2 triangle pairs")])
    image = slider.grab().toImage()
    y = 1 + 9 // 2 + 1
    centre = image.pixelColor(round(slider.x_of(7)), y)
    filled = image.pixelColor(round(slider.x_of(2)), y)
    assert (centre.red(), centre.green(), centre.blue()) == (255, 255, 255)  # hollow
    assert abs(filled.red() - 213) < 30 and filled.blue() < 60


def test_the_compare_view_fits_a_1280x800_screen(qtbot, window, monkeypatch):
    """It opened at 1500x820, and its four pictures (360 px each) held it 1,480 px wide."""
    from PyQt6.QtCore import QRect

    from viewer.qt.dialogs.compare import CompareDialog

    class Small:
        def availableGeometry(self):
            return QRect(0, 0, 1280, 770)

    monkeypatch.setattr(type(window), "screen", lambda _self: Small())
    dialog = CompareDialog(window.model, window)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.run()
    qtbot.waitUntil(lambda: bool(dialog.picture_labels) and not dialog.is_running,
                    timeout=180_000)
    qtbot.wait(50)
    assert dialog.width() <= 1280 and dialog.height() <= 770
    assert sum(label.pixmap().width() for label in dialog.picture_labels) <= dialog.width()
