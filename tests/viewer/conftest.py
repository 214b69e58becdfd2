"""Fixtures for the viewer tests: a real window under Xvfb (pytest-xvfb) driven by qtbot."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from PyQt6.QtCore import QEvent, QPointF, QSettings, Qt
from PyQt6.QtGui import QMouseEvent
from PyQt6.QtWidgets import QApplication


@pytest.fixture(scope="session", autouse=True)
def one_qt_application(qapp):
    """The QApplication of the whole session, made before any test runs: the offscreen
    exports make a plain QCoreApplication when none exists, and a window test after them in
    the same process aborted building its first widget (lesson video, then timeline)."""
    return qapp


@pytest.fixture
def settings(tmp_path):
    """A scratch QSettings file, so tests never read or write the user's settings."""
    return QSettings(str(tmp_path / "bvh-lab.ini"), QSettings.Format.IniFormat)


def wait_scene(qtbot, window, timeout=60_000):
    """Wait until a built-in scene asked for (prepared on a worker lane) is in the model."""
    qtbot.waitUntil(lambda: not window.controller.scenes.is_scene_loading, timeout=timeout)


def settle(qtbot, window, timeout=60_000):
    """Wait until the scene asked for is loaded, the controller has no frame running or
    pending, a frame was computed and its redraw done."""
    qtbot.waitUntil(
        lambda: (not window.controller.scenes.is_scene_loading
                 and not window.controller.frames.is_busy
                 and window.model.frame is not None and not window.is_redraw_pending),
        timeout=timeout,
    )
    QApplication.processEvents()


@pytest.fixture
def make_window(qtbot, settings):
    """``make_window(scene="two-spheres") -> MainWindow``, shown, with its first frame.

    qtbot closes the windows at the end of the test, before the fixtures are torn down:
    :func:`automatic_gc_after_a_window` then collects their cyclic garbage on the GUI thread."""
    from viewer.app import build_window

    def make(scene: str = "two-spheres", window_settings=None):
        window = build_window(scene=scene, settings=window_settings or settings)
        qtbot.addWidget(window)
        # Every status-bar message, in order: a loaded machine draws slowly, and the "Drawing
        # frame 1 is slow" line can replace the message a test looks for before it looks
        # (a full run lost "local coordinates" that way). Tests read it with status_said.
        window.status_history = []
        window.statusBar().messageChanged.connect(window.status_history.append)
        window.resize(1100, 750)
        window.show()
        qtbot.waitExposed(window)
        wait_scene(qtbot, window)  # the scene's own play state comes with it
        window.model.set_playing(False)
        # The scene's own default view and first redraw are on screen: the window is
        # sized before it is shown, and the scene comes after (its camera reset sees the
        # final canvas).
        settle(qtbot, window)
        return window

    return make


@pytest.fixture(autouse=True)
def automatic_gc_after_a_window():
    """After a test that built a window (which turns Python's automatic collector off, see
    :mod:`viewer.qt.window.gui_thread_gc`): its cyclic garbage collected here, on the GUI
    thread, and the automatic collector on again for the tests without a window."""
    yield
    if not gc.isenabled():
        from viewer.qt.window import gui_thread_gc

        QApplication.processEvents()
        gc.collect()
        gui_thread_gc.restore_automatic_collection()


@pytest.fixture
def window(make_window):
    """The window on the two-spheres scene."""
    return make_window()


def status_said(window, text: str) -> str:
    """The latest status-bar message since the window was made that contains ``text``
    ("" when none did)."""
    return next((m for m in reversed(window.status_history) if text in m), "")


def qt_point(window, world_point) -> QPointF:
    """Widget coordinates (logical pixels) of a world point on the canvas."""
    x, y, _ = window.renderer.world_to_display(np.asarray(world_point, dtype=float))
    ratio = window.plotter.devicePixelRatioF()
    height = window.plotter.ren_win.GetSize()[1]
    return QPointF(x / ratio, (height - 1 - y) / ratio)


def send_mouse(widget, kind, pos: QPointF, button=Qt.MouseButton.LeftButton,
               buttons=Qt.MouseButton.LeftButton, modifiers=Qt.KeyboardModifier.NoModifier):
    """Deliver one mouse event to ``widget`` (through its event filters)."""
    event = QMouseEvent(kind, pos, widget.mapToGlobal(pos), button, buttons, modifiers)
    QApplication.sendEvent(widget, event)


def click(widget, pos: QPointF) -> None:
    """Press and release the left button at ``pos``."""
    send_mouse(widget, QEvent.Type.MouseButtonPress, pos)
    send_mouse(widget, QEvent.Type.MouseButtonRelease, pos, buttons=Qt.MouseButton.NoButton)


def drag(widget, start: QPointF, end: QPointF, n_steps: int = 8,
         button=Qt.MouseButton.LeftButton):
    """Press at ``start``, move in ``n_steps`` to ``end``, release."""
    send_mouse(widget, QEvent.Type.MouseButtonPress, start, button, button)
    for i in range(1, n_steps + 1):
        pos = start + (end - start) * (i / n_steps)
        send_mouse(widget, QEvent.Type.MouseMove, pos, Qt.MouseButton.NoButton, button)
    send_mouse(widget, QEvent.Type.MouseButtonRelease, end, button, Qt.MouseButton.NoButton)


def red_mask(image: np.ndarray) -> np.ndarray:
    """``(h, w) bool``: pixels of the crossing-contact red (Okabe-Ito vermillion, the only
    colour this close to it the viewer draws)."""
    from viewer.render.overlays import KIND_COLORS, KIND_CROSSING

    rgb = image[..., :3].astype(int)
    diff = np.abs(rgb - np.array(KIND_COLORS[KIND_CROSSING]))
    return (diff[..., 0] <= 14) & (diff[..., 1] <= 18) & (diff[..., 2] <= 14)


@pytest.fixture(autouse=True)
def state_home(tmp_path, monkeypatch):
    """A scratch ``$XDG_STATE_HOME`` for every test: the autosave, its running mark and a
    crashed run's session never touch the user's, and no window ever finds another test's
    session to offer (subprocesses inherit it)."""
    path = tmp_path / "state-home"
    monkeypatch.setenv("XDG_STATE_HOME", str(path))
    return path
