"""The animation clock: while playing, a timer advances the model's time and asks for frames."""

from __future__ import annotations

import time

from PyQt6.QtCore import QTimer

PLAY_INTERVAL_MS = 15
"""Animation tick. Each tick asks for a frame; ticks while a frame is running coalesce."""


class Animation:
    """The controller's animation job: play/pause (``model.playing_changed``) and
    ``step_time``.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    request_frame : callable
        The frame job's ``request_frame``.
    parent : QObject
        The timer's parent (the controller).
    """

    def __init__(self, model, request_frame, parent) -> None:
        self.model = model
        self._request_frame = request_frame
        self._play_timer = QTimer(parent)
        self._play_timer.setInterval(PLAY_INTERVAL_MS)
        self._play_timer.timeout.connect(self._tick)
        self._play_clock = None
        self.model.playing_changed.connect(self._on_playing)

    def _on_playing(self, is_playing: bool) -> None:
        if is_playing:
            self._play_clock = time.perf_counter()
            self._play_timer.start()
        else:
            self._play_timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.model.set_time(self.model.t + (now - self._play_clock))
        self._play_clock = now
        self._request_frame()

    def step_time(self, dt: float) -> None:
        """Advance the animation clock by ``dt`` seconds (may be negative) and run a frame."""
        self.model.set_time(max(0.0, self.model.t + dt))
        self._request_frame()

    def shutdown(self) -> None:
        self._play_timer.stop()
