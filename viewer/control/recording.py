"""Every live frame kept in a recording; scrubbing, playing it back, saving, opening, replaying.

The recording (``core.recording.Recording``) is a ring bounded in megabytes and frames; the
model holds it as an opaque object and shows ``model.frame``, which is the recorded frame at
``model.cursor`` while the timeline is scrubbed. Saving, opening and replaying run on a worker
lane; the model's ``job_progress`` / ``job_finished`` signals drive the window's progress
dialog and its Cancel button calls :meth:`FrameRecording.cancel_job`.
"""

from __future__ import annotations

import time
from pathlib import Path

from PyQt6.QtCore import QTimer

from core.bvh import SplitRule
from core.collide import DescendRule
from core.pipeline import PipelineSettings, UpdateMode
from core.recording import (
    EventKind,
    Recording,
    RecordingCancelled,
    RecordingFileError,
    open_recording,
    replay,
    save_recording,
)
from viewer.control.files import mesh_notes, new_body_key
from viewer.control.frames import recording_with_side_results
from viewer.control.worker import JobCancelled, Tag
from viewer.scenes import default_color
from viewer.state.bodies import Body

PLAYBACK_FPS = 30.0
"""Recorded frames shown per second at speed 1x. Frames are recorded as fast as the pipeline
delivers them (15-60 per second depending on the meshes), so the recording carries no single
rate; 30 per second is what the live animation aims at for the built-in scenes."""

PLAYBACK_TICK_MS = 33
"""Timer interval of playback; each tick advances by speed x elapsed time x PLAYBACK_FPS."""

PLAYBACK_SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)
"""The speeds the timeline offers."""

DEFAULT_MAX_MEGABYTES = 512.0
"""Default cap of the recording in MB (the core's default)."""

DEFAULT_MAX_FRAMES = 3000
"""Default cap of the recording in frames (the core's default: 100 s at 30 frames/s)."""

UPDATE_WORDS = {UpdateMode.REFIT: "refit", UpdateMode.REBUILD: "rebuild", UpdateMode.AUTO: "auto"}


__all__ = ["FrameRecording", "JobCancelled"]  # JobCancelled: a background job's Cancel


def report_open_failure(model, title: str, path: Path, error, file_errors,
                        cancelled_words: str) -> bool:
    """Say how opening ``path`` on the job thread ended, unless it worked: cancelled (the
    message ``cancelled_words``), a file the reader refused (``file_errors``, whose own
    line names the file) or any other failure (named after ``path``), both under
    ``title``. Returns True when ``error`` is None: the caller shows what was opened."""
    # start_job turns the reader's RecordingCancelled into JobCancelled; both are a Cancel.
    if isinstance(error, (JobCancelled, RecordingCancelled)):
        model.message.emit(cancelled_words)
    elif isinstance(error, file_errors):
        model.error.emit(title, str(error))
    elif error is not None:
        model.error.emit(title, f"{path}: {error}")
    return error is None


class FrameRecording:
    """The controller's recording job: ``scrub_to``, ``step_recorded``, ``play_recording``,
    ``go_live``, ``save_recording``, ``open_recording``, ``replay_with``.

    ``record_frame`` is called by the frame job for every live frame delivered.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    workers : viewer.control.worker.Workers
        The controller's workers; the job takes its lane(s) from them.
    frames : viewer.control.frames.FrameRunning
        Its pipeline, ``next_settings``, ``new_pipeline``, ``request_frame``, ``cancel_frame``.
    forget_strokes : callable
        The sculpt job's ``forget_strokes`` (an opened recording is a new scene).
    parent : QObject
        The playback timer's parent (the controller).
    other_markers : callable, optional
        ``other_markers() -> [(position, words), ...]``: markers on the timeline that are not
        the recording's own events (a contact log's disagreeing frames); the Event keys stop
        at them too.
    """

    def __init__(self, model, workers, frames, forget_strokes, parent,
                 other_markers=lambda: []) -> None:  # fmt: skip
        self.model = model
        self._frames = frames
        self._forget_strokes = forget_strokes  # the sculpt job's
        self._other_markers = other_markers
        self.recording_limits = (DEFAULT_MAX_MEGABYTES, DEFAULT_MAX_FRAMES)
        self.recording = Recording(*self.recording_limits)
        self._pending_events: list = []
        self._n_frames_before_events = 0  # frames still to come before the marked one
        # Save, open, replay (and the session and lesson jobs): one at a time, with the
        # window's progress dialog.
        self._job_lane = workers.lane("recording")
        self._job_words = ""
        self._job_on_done = None  # what the job's end calls (start_job's on_done)
        self._job = None  # the job running, until its result is handled
        self._playback_timer = QTimer(parent)
        self._playback_timer.setInterval(PLAYBACK_TICK_MS)
        self._playback_timer.timeout.connect(self._playback_tick)
        self._playback_clock = 0.0
        self._playback_carry = 0.0
        self.model.set_recording(self.recording)
        self.model.scene_changed.connect(self._on_scene_for_recording)
        # Another bounding volume or rule is seen on the live frame: a recorded one keeps its own.
        self.model.pipeline_changed.connect(lambda _p: self.go_live_before_editing())

    # -- recording live frames --------------------------------------------------------------
    def record_frame(self, frame) -> None:
        """Append a live frame (called for every frame delivered) unless recording is off or
        a save or replay is reading the recording."""
        if not self.model.is_recording or self.is_job_running or frame is None:
            return
        n_dropped = self.recording.n_dropped
        if self._n_frames_before_events:
            # Started before the drag or stroke ended: not yet the shape the user left.
            self._n_frames_before_events -= 1
            events = []
        else:
            events, self._pending_events = self._pending_events, []
        try:
            self.recording.append(frame, [b.key for b in self.model.bodies],
                                  self._frames.pipe.settings.update, user_events=events)
        except (TypeError, ValueError) as exc:
            # A frame of bodies that changed meanwhile (one added while it ran): shown, not
            # kept; an exception here would end the app (PyQt aborts on one in a slot).
            self.model.message.emit(f"Frame {frame.index} not recorded: {exc}")
            return
        shift = self.recording.n_dropped - n_dropped
        if self.model.cursor is not None and shift:
            # The oldest frames were dropped: the shown frame's position moved down with them.
            position = self.model.cursor - shift
            if position < 0:
                self.model.set_cursor(0)
            else:
                self.model.cursor = position
                self.model.cursor_changed.emit(position)
        self.model.recording_changed.emit()

    def _mark_user_event(self, kind) -> None:
        """Mark the next recorded frame with ``kind`` (a drag or a stroke ended) and ask for
        that frame, so the marker sits on the shape the user left."""
        self._pending_events.append(kind)
        self._n_frames_before_events = 1 if self._frames.is_frame_running else 0
        self._frames.request_frame()

    def mark_grabbed(self) -> None:
        """A drag of a body ended: a "body moved" marker on the timeline."""
        self._mark_user_event(EventKind.GRABBED)

    def mark_sculpted(self) -> None:
        """A sculpt stroke ended: a "body sculpted" marker on the timeline."""
        self._mark_user_event(EventKind.SCULPTED)

    def set_recording_enabled(self, is_on: bool) -> None:
        """Record Frames on or off (off: live frames are shown but not kept)."""
        self.model.is_recording = bool(is_on)
        self.model.message.emit("Recording every frame" if is_on else
                                "Frames are no longer recorded")

    def clear_recording(self) -> None:
        """Forget every recorded frame and show the live one."""
        self.stop_playback()
        self.recording.clear()
        self._pending_events = []
        self._n_frames_before_events = 0
        self.model.set_recording(self.recording)
        self._frames.request_frame()

    def set_recording_limits(self, max_megabytes: float, max_frames: int) -> bool:
        """Cap the recording; the oldest frames above a cap are dropped. False (and an error
        message naming the bad limit) when a limit is refused."""
        try:
            self.recording.set_limits(max_megabytes, max_frames)
            self.recording_limits = (float(max_megabytes), int(max_frames))
        except (TypeError, ValueError) as exc:
            self.model.error.emit("Memory limit", str(exc))
            return False
        if self.model.cursor is not None and self.model.cursor >= len(self.recording):
            self.model.set_cursor(len(self.recording) - 1 if len(self.recording) else None)
        self.model.recording_changed.emit()
        return True

    def _on_scene_for_recording(self) -> None:
        """A new scene: the old scene's frames go (a recording is one scene's). A new
        recording, not the old one cleared: a save started just before the switch (the window
        asks) goes on writing the old one's frames."""
        self.stop_playback()
        self._pending_events = []
        self._n_frames_before_events = 0
        if len(self.recording):
            self.recording = Recording(*self.recording_limits)
            self.model.set_recording(self.recording)
        self.model.recording_changed.emit()

    # -- scrubbing --------------------------------------------------------------------------
    def scrub_to(self, position: int) -> None:
        """Show recorded frame ``position`` (clamped to the frames held); the live animation
        pauses."""
        n = len(self.recording)
        if n == 0:
            return
        self.model.set_playing(False)
        self.model.set_cursor(min(max(int(position), 0), n - 1))

    def step_recorded(self, delta: int) -> None:
        """One recorded frame back (-1) or forward (+1); from live, -1 shows the newest."""
        self.stop_playback()
        if self.model.cursor is None:
            if delta < 0:
                self.scrub_to(len(self.recording) - 1)
            return
        self.scrub_to(self.model.cursor + delta)

    def jump_to_event(self, direction: int) -> None:
        """Show the next (+1) or previous (-1) marker's frame: the recording's events and the
        other markers on the timeline (a contact log's disagreeing frames)."""
        self.stop_playback()
        n = len(self.recording)
        if n == 0:
            return
        here = self.model.cursor if self.model.cursor is not None else n
        others = [position for position, _words in self._other_markers() if 0 <= position < n]
        if direction > 0:
            own = self.recording.next_event(here) if here < n else None
            found = min([p for p in (own, *others) if p is not None and p > here], default=None)
        else:
            own = self.recording.previous_event(here) if here > 0 else None
            found = max([p for p in (own, *others) if p is not None and p < here], default=None)
        if found is None:
            self.model.message.emit("No further event in that direction")
            return
        self.scrub_to(found)

    def go_live(self) -> None:
        """Back to the live frame: playback stops and the next frame is computed."""
        self.stop_playback()
        if self.model.cursor is not None:
            self.model.set_cursor(None)
            self._frames.request_frame()

    def go_live_before_editing(self) -> None:
        """A drag or a stroke while a recorded frame is shown edits the live scene."""
        if self.model.cursor is not None:
            self.go_live()

    # -- playback ---------------------------------------------------------------------------
    def play_recording(self, speed: float = 1.0, reverse: bool = False) -> None:
        """Play the recording at ``speed`` x :data:`PLAYBACK_FPS`, backwards with ``reverse``;
        from live or from an end it starts at the other end."""
        n = len(self.recording)
        if n == 0:
            self.model.message.emit("Nothing recorded yet")
            return
        self.model.set_playback_speed(speed)
        cursor = self.model.cursor
        if reverse and (cursor is None or cursor == 0):
            self.scrub_to(n - 1)
        elif not reverse and (cursor is None or cursor == n - 1):
            self.scrub_to(0)
        else:
            self.model.set_playing(False)
        self._playback_clock = time.perf_counter()
        self._playback_carry = 0.0
        self.model.set_playback(-1 if reverse else +1)
        self._playback_timer.start()

    def stop_playback(self) -> None:
        self._playback_timer.stop()
        self.model.set_playback(0)

    def _playback_tick(self) -> None:
        now = time.perf_counter()
        self._playback_carry += (now - self._playback_clock) * PLAYBACK_FPS * \
            self.model.playback_speed
        self._playback_clock = now
        n_steps = int(self._playback_carry)
        if n_steps == 0 or self.model.cursor is None:
            return
        self._playback_carry -= n_steps
        target = self.model.cursor + self.model.playback * n_steps
        last = len(self.recording) - 1
        self.model.set_cursor(min(max(target, 0), last))
        if target <= 0 or target >= last:
            self.stop_playback()

    # -- background jobs --------------------------------------------------------------------
    @property
    def is_job_running(self) -> bool:
        return self._job is not None

    def cancel_job(self) -> None:
        """Cancel pressed: the job stops at its next check (a long frame shown in the same
        dialog, at its traversal's next level)."""
        job = self._job
        if job is not None:
            job.cancel()
            if job.is_done:
                # Dropped while it still waited for the lane: no callback will come, and the
                # job would block every later one ("Wait: ... is still running").
                self._finish_job(self._job_words, None,
                                 JobCancelled(f"{self._job_words} was cancelled"),
                                 self._job_on_done)
        self._frames.cancel_frame()

    def start_job(self, words: str, work, on_done) -> bool:
        """Run ``work(progress, cancel)`` in the job thread, then ``on_done(result, error)``
        on the GUI thread. False if another job is running."""
        if self._job is not None:
            self.model.message.emit(f"Wait: {self._job_words} is still running")
            return False
        self._job_words = words
        self._job_on_done = on_done
        self.model.job_progress.emit(words, 0, 0)

        def run(control):
            try:
                # Cancel pressed after the last check: the work is done, and kept.
                return work(lambda done, total: control.progress(done, total),
                            control.is_cancelled)
            except RecordingCancelled:
                raise JobCancelled(f"{words} was cancelled") from None

        self._job = self._job_lane.submit(
            run, tag=Tag(words),
            on_result=lambda result, _job: self._finish_job(words, result, None, on_done),
            # any failure becomes a message
            on_error=lambda error, _job: self._finish_job(words, None, error, on_done),
            on_progress=lambda done, total, _text, _job: self.model.job_progress.emit(
                words, done, total or 0))
        return True

    def _finish_job(self, words, result, error, on_done) -> None:
        self._job = None
        self.model.job_finished.emit(words)
        on_done(result, error)

    # -- files ------------------------------------------------------------------------------
    def save_recording(self, path) -> bool:
        """Write the recording to ``path`` (a ``.bvhrec`` file) in the job thread."""
        if len(self.recording) == 0:
            self.model.error.emit("Save recording", "Nothing is recorded yet: play the scene "
                                  "or move a body first")
            return False
        self.stop_playback()
        path = Path(path)
        # The distance and inside test ran beside the frames: saved with the frame they were
        # computed on.
        recording = recording_with_side_results(self.recording, self.model.side_by_frame)

        def done(_result, error):
            if isinstance(error, JobCancelled):
                self.model.message.emit(f"Saving {path.name} cancelled")
            elif error is not None:
                self.model.error.emit("Cannot save recording", f"{path}: {error}")
            else:
                self.model.message.emit(f"Saved {len(recording)} frames to {path}")

        return self.start_job(f"Saving {path.name}", lambda progress, cancel: save_recording(
            recording, path, progress=progress, cancel=cancel), done)

    def open_recording(self, path) -> bool:
        """Read a recording in the job thread; then its frames are shown (the bodies rebuilt
        from its newest frame's meshes, the scene titled "Recording NAME"). A bad file gives
        one message naming it and the scene stays as it was."""
        path = Path(path)
        self.stop_playback()

        def done(recording, error):
            if report_open_failure(self.model, "Cannot open recording", path, error,
                                   RecordingFileError, f"Opening {path.name} cancelled"):
                self._show_opened(recording, path)

        return self.start_job(f"Opening {path.name}", lambda progress, cancel: open_recording(
            path, progress=progress, cancel=cancel), done)

    def show_recording(self, recording, path, title: str | None = None,
                       notes: str | None = None) -> None:
        """Show ``recording``, made elsewhere (a contact log's frames), as an opened one:
        its bodies become the scene, titled ``title``, and its first frame is shown."""
        self.stop_playback()
        self._show_opened(recording, Path(path), title, notes)

    def _show_opened(self, recording, path: Path, title: str | None = None,
                     notes: str | None = None) -> None:
        if len(recording) == 0:
            self.model.error.emit("Cannot open recording", f"{path}: it holds no frame")
            return
        last = recording[len(recording) - 1]
        bodies = []
        for i, (key, mesh, pose) in enumerate(zip(recording.body_keys(len(recording) - 1),
                                                  last.meshes, last.poses)):
            name = key.split("#")[0] or f"body {i + 1}"
            bodies.append(Body(new_body_key(name), name, mesh, mesh, pose.as_matrix(),
                               default_color(i), True, None, {}, mesh_notes(mesh)))
        self.model.set_playing(False)
        self.model.is_self_collision = last.result is None and bool(last.self_results)
        self._frames.new_pipeline()
        self._forget_strokes()
        self.model.set_time(last.t)
        # set_scene clears the old scene's recording (scene_changed); the opened one follows.
        self.model.set_scene(bodies, None, title or f"Recording {path.stem}",
                             notes or f"{len(recording)} recorded frames read from {path}")
        # The user's caps, raised if needed so that no frame of the file is dropped.
        max_megabytes, max_frames = self.recording_limits
        recording.set_limits(max(max_megabytes, 2 * recording.nbytes / 1e6),
                             max(max_frames, len(recording)))
        self.recording = recording
        self.model.set_recording(recording)
        self.model.set_cursor(0)
        self.model.message.emit(f"Opened {path.name}: {recording.summary()}")

    # -- replay -----------------------------------------------------------------------------
    def replay_with(self, on_report, bv: str | None = None, split: str | None = None,
                    update: str | None = None, descend: str | None = None) -> bool:
        """Run the recorded vertex states again with other settings in the job thread, then
        ``on_report(report, error)`` on the GUI thread (a ``core.recording.ReplayReport``;
        error None, or the exception). None keeps the app's current choice.

        Parameters
        ----------
        on_report : callable
        bv : str, optional
            Key of a bounding-volume kind.
        split, descend : str, optional
            Names of ``SplitRule`` / ``DescendRule`` members.
        update : str, optional
            ``"refit"``, ``"rebuild"`` or ``"auto"``.
        """
        if len(self.recording) == 0:
            on_report(None, ValueError("nothing is recorded yet"))
            return False
        self.stop_playback()
        self.model.set_playing(False)
        current = self._frames.next_settings()
        changes = {}
        if bv is not None:
            changes["bv"] = bv
        if split is not None:
            changes["split"] = SplitRule[split]
        if descend is not None:
            changes["descend"] = DescendRule[descend]
        mode = current.update if update is None else {
            words: mode for mode, words in UPDATE_WORDS.items()}[update]
        settings = PipelineSettings(current.request.replace(**changes), mode,
                                    current.drift_threshold, frame=current.frame)
        recording = self.recording
        return self.start_job("Replaying the recording", lambda progress, cancel: replay(
            recording, settings, progress=progress, cancel=cancel), on_report)

    def shutdown(self) -> None:
        # The job is cancelled and waited for with the controller's workers.
        self._playback_timer.stop()
