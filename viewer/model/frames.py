"""The frame on display and where it comes from: the live frame, a failed one, the recording
and its cursor, playback and time, the phase times, and the results computed beside frames."""

from __future__ import annotations

from PyQt6.QtCore import QObject, pyqtSignal

from viewer.state.pipeline import FrameFailure
from viewer.state.side_results import MAX_KEPT_SIDE_RESULTS
from viewer.state.status import ViewTimings
from viewer.state.timing import TimingHistory


class FramesModel(QObject):
    """Frames, the recording and the clock. Setters emit a signal only on a change.

    ``frame`` is what every view draws: the live frame when ``cursor`` is None, else the
    recorded one, so the level slider, the Stats dock, the inspector and the overlays follow
    the timeline with no change of theirs.
    """

    frame_ready = pyqtSignal(object)  # core Frame
    frame_failed = pyqtSignal(object)  # FrameFailure, or None once a frame is shown again
    view_timings_changed = pyqtSignal(object)
    time_changed = pyqtSignal(float)
    playing_changed = pyqtSignal(bool)
    recording_changed = pyqtSignal()  # frames were recorded, dropped, cleared or opened
    cursor_changed = pyqtSignal(object)  # int (a recorded frame shown) or None (live)
    playback_changed = pyqtSignal(int)  # +1 playing the recording forward, -1 back, 0 stopped
    side_changed = pyqtSignal(object)  # the newest SideResult (distance, inside test) or None
    slow_frame_changed = pyqtSignal(str)  # why the shown frame was slow, "" when it was not

    def __init__(self, parent=None):
        super().__init__(parent)
        self.frame = None
        # The last live frame that failed or was cancelled while ``frame`` stays on screen;
        # None once a live frame is delivered (or the scene changes).
        self.frame_failure: FrameFailure | None = None
        self.view_timings = ViewTimings()
        self.t: float = 0.0
        self.is_playing: bool = False
        self.fps: float = 0.0
        self.timing_history = TimingHistory()  # phase times of the last second, for medians
        # The recording (a core ``Recording``, opaque here: the controller owns and fills it)
        # and the position shown from it.
        self.recording = None
        self.cursor: int | None = None
        self.live_frame = None
        self.is_recording: bool = True  # append every live frame delivered
        self.playback: int = 0  # +1 / -1 while the recording plays, 0 when it does not
        self.playback_speed: float = 1.0
        self._live_history = self.timing_history
        # The newest distance and inside test computed beside the frames of this scene
        # (viewer.state.side_results.SideResult), and the recent ones by frame number, so that a
        # recorded frame finds its own (at most side_results.MAX_KEPT_SIDE_RESULTS).
        self.side = None
        self.side_by_frame: dict[int, object] = {}
        self.slow_frame: str = ""

    def forget_scene(self) -> None:
        """Drop every frame of the old scene and its timings (no signal:
        ``ViewerModel.set_scene`` emits what changed, in one place)."""
        self.frame = None
        self.live_frame = None
        self.frame_failure = None
        self.cursor = None
        self.timing_history = self._live_history
        self.side, self.side_by_frame = None, {}
        self.slow_frame = ""
        self.timing_history.clear()

    def set_frame(self, frame, now: float | None = None) -> None:
        """A live frame was computed: show it, unless a recorded frame is shown (then it is
        kept for :meth:`set_cursor` ``(None)``). Its phase times join the running medians
        (``now``: the clock in seconds, default ``time.perf_counter()``)."""
        self.live_frame = frame
        had_failure = frame is not None and self.frame_failure is not None
        if frame is not None:
            self._live_history.add(frame.timings, now)
            self.frame_failure = None  # cleared before the views redraw for the new frame
        if self.cursor is None:
            self.frame = frame
            self.frame_ready.emit(frame)
        if had_failure:
            self.frame_failed.emit(None)

    def set_side(self, side) -> None:
        """The newest distance and inside test computed beside the frames
        (:class:`viewer.state.side_results.SideResult`, or None to forget them)."""
        self.side = side
        if side is None:
            self.side_by_frame = {}
        else:
            self.side_by_frame[side.frame_index] = side
            while len(self.side_by_frame) > MAX_KEPT_SIDE_RESULTS:
                del self.side_by_frame[next(iter(self.side_by_frame))]
        self.side_changed.emit(side)

    def replace_live_frame(self, frame) -> None:
        """The live frame again, with more of its results (its side results merged in): shown
        anew if it is on screen. Its phase times are not counted a second time."""
        is_shown = self.cursor is None and self.frame is self.live_frame
        old = self.live_frame.timings if self.live_frame is not None else {}
        self._live_history.add({k: v for k, v in frame.timings.items() if k not in old})
        self.live_frame = frame
        if is_shown:
            self.frame = frame
            self.frame_ready.emit(frame)

    def set_slow_frame(self, words: str) -> None:
        """Why the shown frame took longer than the frame budget ("" when it did not)."""
        if words != self.slow_frame:
            self.slow_frame = words
            self.slow_frame_changed.emit(words)

    def set_frame_failure(self, failure: FrameFailure | None) -> None:
        """A live frame failed or was cancelled (None: the mark is taken away); the frame
        shown stays, and every view says it is an older one."""
        self.frame_failure = failure
        self.frame_failed.emit(failure)

    # -- recording --------------------------------------------------------------------------
    def set_recording(self, recording) -> None:
        """Hold ``recording`` (a core ``Recording`` or None) and show the live frame."""
        self.recording = recording
        self.set_cursor(None)
        self.recording_changed.emit()

    def set_cursor(self, position: int | None) -> None:
        """Show recorded frame ``position`` (0 = the oldest held) or, with None, the live one.

        The Stats dock's phase times then are the recorded frame's own: a history of that
        one frame replaces the live medians until the view goes live again.
        """
        if position is None:
            if self.cursor is None:
                return
            self.cursor = None
            self.frame = self.live_frame
            self.timing_history = self._live_history
        else:
            n = len(self.recording) if self.recording is not None else 0
            if not 0 <= position < n:
                raise IndexError(f"recorded frame {position}: the recording holds {n} frames")
            if position == self.cursor:
                return
            self.cursor = int(position)
            self.frame = self.recording[self.cursor]
            self.timing_history = TimingHistory()
            self.timing_history.add(self.frame.timings)
        self.cursor_changed.emit(self.cursor)
        self.frame_ready.emit(self.frame)

    def set_playback(self, direction: int) -> None:
        """+1 / -1: the recording plays forward / backward; 0: it stops."""
        if direction != self.playback:
            self.playback = direction
            self.playback_changed.emit(direction)

    def set_playback_speed(self, speed: float) -> None:
        self.playback_speed = float(speed)

    def set_view_timings(self, timings: ViewTimings, now: float | None = None) -> None:
        self.view_timings = timings
        self.timing_history.add({"overlay": timings.overlay, "render": timings.render}, now)
        self.view_timings_changed.emit(timings)

    def set_time(self, t: float) -> None:
        self.t = float(t)
        self.time_changed.emit(self.t)

    def set_playing(self, is_playing: bool) -> None:
        if is_playing != self.is_playing:
            self.is_playing = is_playing
            self.playing_changed.emit(is_playing)

    # -- what the frame shows ---------------------------------------------------------------
    def shown_result(self):
        """The collision result on display (:meth:`core.pipeline.Frame.shown_result` of the
        frame); None without a frame."""
        return self.frame.shown_result() if self.frame is not None else None

    def n_levels(self) -> int:
        """Levels of the last frame's traversal trace (0 when there is none)."""
        result = self.shown_result()
        if result is None or result.trace is None:
            return 0
        return int(result.trace.n_levels)
