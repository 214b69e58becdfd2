"""Recording > Save / Open: a saved recording reopens with the same frames drawn the same way;
a damaged file gives one message naming it and the scene stays as it was."""

from __future__ import annotations

from PyQt6.QtWidgets import QPushButton

from tests.viewer.conftest import settle
from tests.viewer.helpers import answer_file_dialog, record_approach, wait_recorder_job


def drawn_counts(window, position: int) -> tuple[int, int, int]:
    window.controller.recorder.scrub_to(position)
    r = window.renderer
    return (r.cell_count("contact_segments"), r.cell_count("contact_tris"),
            r.cell_count("overlap"))


def test_save_then_open_shows_the_same_frames_drawn_the_same(qtbot, window, tmp_path):
    record_approach(qtbot, window)
    n = len(window.model.recording)
    before = [drawn_counts(window, i) for i in range(n)]
    assert any(count[0] > 0 for count in before)
    path = tmp_path / "approach.bvhrec"
    assert window.recording_menu.save_recording_as(str(path))
    assert window.progress_dialogs.job is not None  # the progress dialog with Cancel
    assert window.progress_dialogs.job.labelText().startswith("Saving approach.bvhrec")
    wait_recorder_job(qtbot, window)
    assert path.is_file() and path.stat().st_size > 0
    assert window.last_error is None

    window.controller.scenes.load_scene("bunny-teapot")  # something else in between
    settle(qtbot, window)
    assert window.recording_menu.open_recording_file(str(path))
    wait_recorder_job(qtbot, window)
    assert window.last_error is None
    model = window.model
    assert model.scene_title == "Recording approach"
    assert len(model.recording) == n
    assert model.cursor == 0
    assert [b.name for b in model.bodies] == ["sphere A", "sphere B"]
    assert window.renderer.title.GetText(2) == "Recording approach"
    after = [drawn_counts(window, i) for i in range(n)]
    assert after == before
    assert window.timeline.label.text() == f"frame {n} of {n} (recorded)"
    assert [m.kind for m in window.timeline.slider.markers].count("FIRST_CONTACT") == 1


def _assert_scene_unchanged(window, title, names, n_recorded):
    assert window.model.scene_title == title
    assert [b.name for b in window.model.bodies] == names
    assert len(window.model.recording) == n_recorded


def test_opening_a_damaged_file_names_it_and_leaves_the_scene(qtbot, window, tmp_path):
    record_approach(qtbot, window)
    path = tmp_path / "good.bvhrec"
    window.recording_menu.save_recording_as(str(path))
    wait_recorder_job(qtbot, window)
    title, names = window.model.scene_title, [b.name for b in window.model.bodies]
    n = len(window.model.recording)

    truncated = tmp_path / "truncated.bvhrec"
    truncated.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    garbage = tmp_path / "garbage.bvhrec"
    garbage.write_bytes(b"this is not a recording\n" * 40)
    for bad in (truncated, garbage, tmp_path / "missing.bvhrec"):
        window.last_error = None
        window.recording_menu.open_recording_file(str(bad))
        wait_recorder_job(qtbot, window)
        assert window.last_error is not None, bad
        title_shown, text = window.last_error
        assert title_shown == "Cannot open recording"
        assert bad.name in text and "\n" not in text
        assert window._error_box.isVisible() and bad.name in window._error_box.text()
        _assert_scene_unchanged(window, title, names, n)
        assert window.model.cursor is None


def test_saving_an_empty_recording_says_so(qtbot, window, tmp_path):
    window.controller.recorder.clear_recording()
    window.model.is_recording = False
    settle(qtbot, window)
    assert not window.recording_menu.save_recording_as(str(tmp_path / "empty.bvhrec"))
    assert "Nothing is recorded yet" in window.last_error[1]
    assert not (tmp_path / "empty.bvhrec").exists()


def test_cancel_in_the_progress_dialog_stops_saving_and_writes_nothing(
        qtbot, window, tmp_path, monkeypatch):  # fmt: skip
    import threading

    import viewer.control.recording as recording_control

    record_approach(qtbot, window)
    messages = []
    window.model.message.connect(messages.append)
    # Cancel pressed as soon as the dialog shows. The saving thread waits at its first
    # progress report until the click has landed: five small frames are written faster
    # than the GUI thread handles the queued progress signal (the full run once saved them
    # all before the click).
    clicked = threading.Event()
    real_save = recording_control.save_recording

    def save_waiting_for_the_click(recording, path, progress=None, cancel=None):
        def progress_then_wait(done, total):
            progress(done, total)
            clicked.wait(timeout=30)
        return real_save(recording, path, progress=progress_then_wait, cancel=cancel)

    monkeypatch.setattr(recording_control, "save_recording", save_waiting_for_the_click)

    def click_cancel(_words, done, total):
        # start_job itself emits (words, 0, 0) on the GUI thread before the job is queued; a
        # click then cancels nothing, and the saving thread would never wait for it (the run
        # that saved all five frames). Only the saving thread's reports carry a total.
        if total == 0:
            return
        window.progress_dialogs.job.findChild(QPushButton).click()
        clicked.set()

    window.model.job_progress.connect(click_cancel)
    path = tmp_path / "cancelled.bvhrec"
    assert window.recording_menu.save_recording_as(str(path))
    wait_recorder_job(qtbot, window)
    assert "Saving cancelled.bvhrec cancelled" in messages
    assert not path.exists()
    assert window.last_error is None
    assert not window.progress_dialogs.job.isVisible()


GUI_CLASSES = ("truncated", "zip-bomb", "encrypted-member", "unknown-compression",
               "duplicate-manifest", "huge-npy-header", "version-float", "million-frames",
               "index-bool", "drift-nan", "counters-negative", "contact-kinds-out-of-enum",
               "partition-depth-huge", "control-characters")  # fmt: skip
"""One hostile recording per class of damage of ``tests/hostile/recordings.py``."""


def test_recording_open_menu_refuses_every_hostile_class_and_the_app_lives(
        qtbot, window, tmp_path, monkeypatch):  # fmt: skip

    from tests.hostile.recordings import catalogue, good_recording

    good = good_recording(tmp_path / "good.bvhrec")
    cases = {case.name: case for case in catalogue()}
    title, names = window.model.scene_title, [b.name for b in window.model.bodies]
    n, frame = len(window.model.recording), window.model.frame
    for name in GUI_CLASSES:
        path = cases[name].write(good, tmp_path)
        answer_file_dialog(monkeypatch, path)
        window.last_error = None
        window.recording_actions["open"].trigger()  # Recording > Open recording…
        wait_recorder_job(qtbot, window)
        qtbot.waitUntil(lambda: window.last_error is not None, timeout=60_000)
        title_shown, text = window.last_error
        assert title_shown == "Cannot open recording", name
        assert path.name in text and "\n" not in text and text.isprintable(), (name, text)
        assert window.isVisible()
        _assert_scene_unchanged(window, title, names, n)
        assert window.model.frame is frame, name
        window._error_box.close()


def test_the_save_dialogs_propose_the_scene_add_the_suffix_and_remember_the_folder(
        qtbot, window, tmp_path, monkeypatch):  # fmt: skip
    """Recording > Save recording… and File > Save session… share one file question: the
    proposed name is the scene's, a name typed without a suffix gets the format's, and the
    folder chosen is where the next question starts."""
    from PyQt6.QtWidgets import QFileDialog

    asked = []

    def answer(_parent, _title, proposed, _filter, *_rest):
        asked.append(proposed)
        return str(tmp_path / "typed"), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(answer))
    scene = window.model.scene_key
    for ask, suffix, key in (
            (window.recording_menu._ask_recording_path, ".bvhrec", "last_recording_dir"),
            (window.session_menu._ask_session_path, ".bvhsession", "last_session_dir")):
        assert ask("Save", is_save=True) == str(tmp_path / f"typed{suffix}")
        assert asked[-1].endswith(f"{scene}{suffix}")
        assert window.settings.value(key) == str(tmp_path)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: ("", "")))
    assert window.recording_menu._ask_recording_path("Save", is_save=True) == ""
