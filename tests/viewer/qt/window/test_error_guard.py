"""The last line of defence: an exception escaping a slot or a worker is shown, logged, survived.

Without it PyQt6 aborts the whole app (SIGABRT) on the first exception that escapes a slot.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading

import pytest
from PyQt6.QtWidgets import QApplication, QPlainTextEdit

from tests.viewer.conftest import settle
from viewer.control.error_log import ErrorLog, one_line, operation
from viewer.qt.window import error_guard

# pytest-qt swaps in its own excepthook around each test; these tests need the app's own.
pytestmark = pytest.mark.qt_no_exception_capture


def test_one_line_names_the_operation_and_the_file():
    with pytest.raises(ValueError) as caught, operation("Opening recording", "/x/talk.bvhrec"):
        raise ValueError("frame 3: pose is not finite\nsecond line")
    assert one_line(caught.value) == (
        "Opening recording talk.bvhrec failed: frame 3: pose is not finite")


def test_one_line_escapes_control_characters_and_names_a_bare_type():
    assert one_line(KeyError("\x1b]0;title\x07")) == (
        "An operation failed: KeyError: '\\x1b]0;title\\x07'")


def test_log_rotates_past_its_limit(tmp_path):
    log = ErrorLog(tmp_path / "errors.log", max_bytes=2_000)
    for i in range(40):
        try:
            raise RuntimeError(f"failure {i}")
        except RuntimeError as exc:
            log.write(exc, "in a test")
    assert (tmp_path / "errors.log.1").exists()
    assert (tmp_path / "errors.log").stat().st_size < 4_000
    assert "failure 39" in log.tail()


def test_a_log_that_cannot_be_written_is_reported_not_raised(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    log = ErrorLog(blocker / "errors.log")
    log.write(RuntimeError("x"), "in a test")
    assert "cannot write the error log" in log.last_write_error


def test_exception_in_a_slot_and_in_a_worker_keeps_the_window(window, qtbot, tmp_path,
                                                              monkeypatch):
    log = ErrorLog(tmp_path / "errors.log")
    guard = error_guard.install(window, log)
    try:
        actors_before = sorted(window.plotter.renderer.actors)
        frame_before = window.model.frame

        def broken(*_args, **_kwargs):
            raise RuntimeError("scene table damaged")

        monkeypatch.setattr(window.controller.scenes, "load_scene", broken)
        scenes_menu = next(a.menu() for a in window.menuBar().actions()[0].menu().actions()
                           if a.menu() is not None and "scenes" in a.text())
        scenes_menu.actions()[1].trigger()  # a real menu action whose slot raises
        qtbot.waitUntil(lambda: len(guard.lines) == 1)
        assert window.last_error is not None
        assert "scene table damaged" in window.last_error[1]
        assert "Help > Error log" in window.last_error[1]

        def worker():
            raise ValueError("worker lost its input")

        thread = threading.Thread(target=worker, name="test-worker")
        thread.start()
        thread.join()
        qtbot.waitUntil(lambda: len(guard.lines) == 2)
        assert "worker lost its input" in window.last_error[1]
        text = log.tail()
        assert "Traceback" in text and "scene table damaged" in text
        assert "in the worker thread test-worker" in text
        # the scene is as it was and the window still works
        assert window.model.frame is frame_before
        assert sorted(window.plotter.renderer.actors) == actors_before
        window.model.set_playing(True)
        QApplication.processEvents()
        window.model.set_playing(False)
        settle(qtbot, window)
        window.show_error_log()
        text_view = window._error_log_dialog.findChild(QPlainTextEdit, "error_log_text")
        assert "worker lost its input" in text_view.toPlainText()
    finally:
        guard.uninstall()


def test_the_app_survives_an_escaped_exception(tmp_path):
    """The real ``viewer.app.run``: a slot raises, the event loop goes on, the app quits cleanly."""
    script = textwrap.dedent("""
        import sys
        from PyQt6.QtCore import QTimer
        from PyQt6.QtWidgets import QApplication, QPlainTextEdit
        from viewer import app as viewer_app

        qapp = QApplication(sys.argv[:1])

        def broken_slot():
            raise RuntimeError("escaped from a slot")

        def finish():
            print("still alive", flush=True)
            qapp.quit()

        # Both fire once run() has built the window and entered the event loop: the slot
        # raises, then a later event still runs.
        QTimer.singleShot(100, broken_slot)
        QTimer.singleShot(400, finish)
        sys.exit(viewer_app.run(scene="two-spheres"))
    """)
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state"), QT_API="pyqt6")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "still alive" in done.stdout
    assert "escaped from a slot" in done.stderr
    log = tmp_path / "state" / "bvh-lab" / "errors.log"
    assert "RuntimeError: escaped from a slot" in log.read_text()


def test_sigterm_is_a_clean_quit(tmp_path):
    """SIGTERM closes the window as a quit does: the autosave lock goes, no crash is offered."""
    script = textwrap.dedent("""
        import os, signal, sys
        from PyQt6.QtCore import QTimer
        from PyQt6.QtWidgets import QApplication
        from viewer import app as viewer_app

        qapp = QApplication(sys.argv[:1])
        QTimer.singleShot(200, lambda: os.kill(os.getpid(), signal.SIGTERM))
        sys.exit(viewer_app.run(scene="two-spheres"))
    """)
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state"), QT_API="pyqt6")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    state = tmp_path / "state" / "bvh-lab"
    assert state.is_dir() and not (state / "running.lock").exists()
