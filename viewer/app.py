"""Assemble model, controller and window; run the Qt event loop."""

from __future__ import annotations

import signal
import sys

from PyQt6.QtCore import QSettings, QTimer
from PyQt6.QtWidgets import QApplication

from viewer.control.autosave import AutosaveState
from viewer.controller import Controller
from viewer.model import ViewerModel
from viewer.qt.main_window import MainWindow
from viewer.qt.window import error_guard, gui_thread_gc
from viewer.start_time import first_frame_line, seconds_since_start


def build_window(paths=(), scene: str | None = None, settings: QSettings | None = None,
                 is_threaded: bool = True, state_dir=None) -> MainWindow:
    """Create the window with its model and controller and load the first scene.

    Parameters
    ----------
    paths : sequence of str
        Mesh files to open as the scene; if one cannot be read the error is shown and the
        last (or default) built-in scene is loaded instead.
    scene : str, optional
        Key of a built-in scene; default: the last one used.
    settings : QSettings, optional
    is_threaded : bool
        Run the core in a worker thread (False runs frames inline, for tests).
    state_dir : path, optional
        Where the autosave and the running mark live; default ``$XDG_STATE_HOME/bvh-lab``.
        If the last run there stopped unexpectedly, the window offers its session.
    """
    # Cyclic garbage (Qt and VTK wrappers among it) is freed on the GUI thread, never on a
    # worker lane (viewer.qt.window.gui_thread_gc).
    gui_thread_gc.collect_on_gui_thread()
    model = ViewerModel()
    controller = Controller(model, is_threaded=is_threaded)
    window = MainWindow(model, controller, settings)
    is_loaded = bool(paths) and controller.files.load_files(list(paths), replace_scene=True)
    if not is_loaded:
        controller.scenes.load_scene(scene or window.last_scene())
    crashed = controller.session.start_autosave(AutosaveState(state_dir))
    if crashed is not None:
        window.session_menu.offer_restore_later(crashed)
    return window


def report_first_frame(window: MainWindow, stream=None) -> None:
    """Write ``first frame after X.X s`` (seconds since the process started) to ``stream``
    (default standard error) once, when the window's first frame is on screen."""

    def write() -> None:
        print(first_frame_line(seconds_since_start()), file=stream or sys.stderr, flush=True)

    window.first_frame_drawn.connect(write)


def quit_on_sigterm(app: QApplication, window: MainWindow) -> None:
    """Close the window (a clean quit: its autosave lock and temporary files go) on SIGTERM.

    Python runs a signal handler only between bytecodes, and Qt's event loop runs none while
    idle, so a timer wakes the interpreter twice a second to let it.
    """
    signal.signal(signal.SIGTERM, lambda *_args: window.close() or app.quit())
    timer = QTimer(window)
    timer.timeout.connect(lambda: None)
    timer.start(500)


def run(paths=(), scene: str | None = None, lesson: str | None = None) -> int:
    """Open the window (on ``lesson``'s first step if one is given: a built-in lesson's name
    or a lesson file) and run until it is closed; returns the exit status."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("BVH Lab")
    app.setOrganizationName("bvh-lab")
    window = build_window(paths, scene)
    error_guard.install(window, window.error_log)  # an escaped exception no longer aborts
    quit_on_sigterm(app, window)
    report_first_frame(window)
    window.show()
    if lesson is not None:
        window.controller.lessons.open_lesson(lesson)  # a bad one: a message, the window stays
    return app.exec()
