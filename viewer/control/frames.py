"""Frames: ``FramePipeline.step`` on the worker's frame lane, finished frames handed to the
model; the distance and inside test beside them on their own lane.

The numba kernels release the GIL, so Qt keeps painting while a frame runs. At most one frame
is in flight: requests that arrive meanwhile collapse into one "run again with the latest
state" flag, so stale frames are dropped rather than queued and the display never lags behind
a backlog. Frames are pipelined: when another frame is wanted, it starts before the finished
one is delivered and drawn, so the core computes frame N+1 while frame N is drawn.

The frame holds only what the frame needs: the core runs it with the frame options
``distance`` and ``containment`` off (``PipelineSettings.frame``), and with ``self_collision``
only in a one-mesh scene, where it is the frame's query. When A and B do not touch and the
Pipeline dock asks for them, the minimum distance and the inside test, and self-collision when
it is chosen in a scene of two or more bodies, run on the finished frame's own meshes, trees
and poses (a snapshot: the next frame's refit makes new arrays and never writes these) on a
coalescing lane: one at a time, always the newest frame, whatever they cost (1,588 ms +
1,006 ms a frame on nefertiti × ogre did not slow the frames down). The model keeps the
newest
(:class:`viewer.state.side_results.SideResult`); one of another scene or other choices is dropped.
"""

from __future__ import annotations

import functools
import time
from concurrent.futures import CancelledError

import numpy as np
from PyQt6.QtCore import QTimer

from core.bv import ObbFit
from core.bvh import SplitRule
from core.collide import DescendRule
from core.deform import DEFORMERS
from core.errors import BVHLabError
from core.jit import interpreted
from core.jit.warmup import FIRST_FRAME_STEPS, is_cache_complete, warm_in_process, warm_up
from core.pipeline import (
    BodyInput,
    FramePipeline,
    PipelineSettings,
    UpdateMode,
    frame_analyses,
)
from core.pose import Pose
from core.recording import Recording
from core.request import CollisionRequest, FrameOptions
from viewer.control.frame_budget import slow_frame_words
from viewer.control.frame_watch import FrameWatch
from viewer.control.worker import BESIDE_FRAME_NICE, Budget, Tag
from viewer.render.prepared_overlays import prepare_overlays
from viewer.state.pipeline import FrameFailure, UpdateChoice
from viewer.state.side_results import SideResult, carries_side_results, merged_frame
from viewer.words.choices import NO_PARTITION

FPS_SMOOTHING = 0.2
"""Weight of the newest frame in the exponential average of the frame rate."""

_kernels_ready = False


def _ensure_kernels() -> None:
    """Load (or compile) the first frame's numba kernels once per process, before it.

    Otherwise the first frame of a scene pays for loading the kernels from the on-disk cache
    (measured: 0.6-0.9 s "refit" on a 4k-triangle torus) and the Stats dock shows that number
    for a static scene until something moves.

    While a first start compiles in the background (:mod:`viewer.control.kernels`), kernels
    run as Python or load as they are compiled, and nothing waits here.
    """
    global _kernels_ready
    if _kernels_ready or interpreted.is_interpreting():
        return
    if not is_cache_complete():
        warm_up(verbose=False)
    # Only the first frame's kernels: loading all of them took longer than a first start's
    # interpreted first frame (5.2 s against 5.7 s to the first frame, measured under load);
    # the others load on first use, in milliseconds each.
    warm_in_process(FIRST_FRAME_STEPS)
    _kernels_ready = True


def _run_frame(control, pipe, inputs, t, query_control):
    """The frame job: one ``FramePipeline.step`` (on the frame lane's thread)."""
    del control  # the frame's cancel is the FrameWatch's query control
    _ensure_kernels()
    frame = pipe.step(inputs, t, query_control)
    for tree, was_built in zip(frame.trees, frame.rebuilt):
        if was_built:
            # The recording and the level views read the derived arrays (parent, depth, the
            # level lists): derived here, on the frame's lane, once per built tree, and shared
            # by the trees refitted from it (core.bvh.tree.Tree.replaced). Read first on the
            # GUI thread they took 18-25 ms each on big-bunny's 560k-node tree.
            tree.level_start  # noqa: B018 - read for its side effect
    return frame


def _run_frame_and_overlays(control, pipe, inputs, t, query_control, request):
    """The frame job: :func:`_run_frame`, then the frame's overlays built for the view
    choices ``request`` (:mod:`viewer.render.prepared_overlays`; None builds none), off the
    GUI thread and outside the frame's core timings. Returns ``(frame, PreparedOverlays or
    None)``."""
    frame = _run_frame(control, pipe, inputs, t, query_control)
    try:
        prepared = prepare_overlays(frame, request)
    except Exception:  # noqa: BLE001 - the window builds them itself, and reports any error
        prepared = None
    return frame, prepared


def side_results(control, frame, is_distance: bool, is_containment: bool,
                 is_self: bool = False):
    """The side job: the minimum distance and the inside test of ``frame``'s bodies A and B
    (when they do not touch), and each body against itself (``is_self``), on the frame's own
    meshes, trees and poses (:func:`core.pipeline.frame_analyses`, the call the frame makes).

    Returns
    -------
    (DistanceResult or None, PairContainment or None, list or None, dict[str, float])
        The results chosen, and the seconds each took (``"distance"``, ``"containment"``,
        ``"self"``).
    """
    options = FrameOptions(self_collision=is_self, containment=is_containment,
                           distance=is_distance)
    return frame_analyses(frame.meshes, frame.trees, frame.poses, frame.result, frame.request,
                          options, control.query_control if control is not None else None,
                          control.check if control is not None else None)


SIDE_WHAT = "distance, inside test and self-collision"
"""What a side job's tag says it computes."""

SIDE_SECONDS = 30.0
"""The time budget of one frame's distance and inside test: checked between the two (neither
core query can stop midway); past it the inside test is not started and the failure names the
budget. Nefertiti against ogre took 1.6 s + 1.0 s (issue 25), so 30 s means a runaway."""

RECORDING_COPY_MEGABYTES = 1e9
"""The memory cap of a recording copied to be saved with its side results: it shares the
recorded frames' arrays, so it holds all of them (the recording's own caps already apply)."""


def recording_with_side_results(recording: Recording, side_by_frame: dict) -> Recording:
    """``recording`` as it is saved: a frame that ran without its distance and inside test (they
    ran beside it) carries the side result kept for its frame number, so the file has them with
    the frame they were computed on. ``recording`` itself when no frame needs one; else a copy
    that shares the frames' arrays.

    Parameters
    ----------
    recording : core.recording.Recording
    side_by_frame : dict[int, SideResult]
        The side results kept for this scene's frames (``ViewerModel.side_by_frame``).
    """
    def side_of(frame):
        if carries_side_results(frame):
            return None
        return side_by_frame.get(int(frame.index))

    n = len(recording)
    if not any(side_of(recording[i]) is not None for i in range(n)):
        return recording
    copy = Recording(RECORDING_COPY_MEGABYTES, max(1, n))
    for i in range(n):
        frame = recording[i]
        side = side_of(frame)
        copy.append(frame if side is None else merged_frame(frame, side), recording.body_keys(i),
                    recording.update_mode(i), user_events=recording.user_events(i))
    return copy


def needs_side(frame, inputs: tuple) -> bool:
    """Whether ``frame`` gets a side job (``inputs`` as :meth:`FrameRunning.side_inputs`):
    it has bodies A and B, and self-collision is chosen, or the distance or the inside test
    is and A and B do not touch."""
    is_distance, is_containment, is_self = inputs
    if frame is None or len(frame.meshes) < 2:
        return False
    is_apart = frame.result is not None and not frame.result.in_contact
    return bool(is_self or ((is_distance or is_containment) and is_apart))


def failure_text(error: BaseException) -> str:
    """A failed frame's error in one line: a budget or a cancel says what stopped (not a bare
    "MemoryError"); anything else its class and message."""
    if isinstance(error, BVHLabError):
        what = getattr(error, "operation", "")
        text = f"{what} failed: {error}" if what else str(error)
        return text[:1].upper() + text[1:]
    return f"{type(error).__name__}: {error}"


class FrameRunning:
    """The controller's frame job: ``request_frame`` (threaded, coalescing, pipelined) and
    ``step_sync``; and the side results (distance, inside test) of the frames delivered.

    Holds the pipeline (``pipe``) and the frame counters (``n_frames``, ``n_dropped``,
    ``n_side_dropped``).

    Parameters
    ----------
    model : viewer.model.ViewerModel
    workers : viewer.control.worker.Workers
        The controller's workers; the job takes its lane(s) from them.
    is_threaded : bool
        False: everything runs inline (the benchmark, scripts).
    record : callable
        ``record(frame)``, called for every frame delivered (the recording job's
        ``record_frame``).
    """

    def __init__(self, model, workers, is_threaded: bool, record) -> None:
        self.model = model
        self.is_threaded = is_threaded
        self._record = record  # the recording job's record_frame
        self.pipe = FramePipeline(self.next_settings())
        self._frame_lane = workers.lane("frame")
        self._side_lane = workers.lane("side", coalesce=True, nice=BESIDE_FRAME_NICE)
        self._is_frames_shut = False
        self._generation = 0
        self._is_busy = False
        self._is_pending = False
        self._last_done = None
        self.n_dropped = 0
        self.n_frames = 0
        self.n_side_dropped = 0  # side results of another scene or other choices
        self._poses: dict[str, tuple[bytes, Pose]] = {}  # body key -> (matrix bytes, Pose)
        # A window sets it: the view choices the frame lane builds each frame's overlays
        # for (viewer.render.prepared_overlays); None, or returning None: none built.
        self.overlay_request = None
        self.prepared_overlays = None  # of the last frame delivered
        self._frame_watch = FrameWatch(self.model, lambda: self.pipe.settings.request.pair_budget)
        # A finished frame comes as the worker's queued signal, which Qt handles ahead of the
        # timers that came due meanwhile: right after a render, its delivery (the docks, the
        # recording, the overlays: 15-30 ms on big-bunny) made one GUI block with that render
        # (90-115 ms while sculpting big-bunny with every analysis on). Delivered from a
        # zero-interval timer, it waits behind them.
        self._waiting = None  # (generation, frame, prepared overlays) to deliver
        self._delivery_timer = QTimer(singleShot=True, interval=0)
        self._delivery_timer.timeout.connect(self._deliver_waiting)
        self.model.body_changed.connect(lambda _i: self.request_frame())
        self.model.pipeline_changed.connect(self._on_pipeline_for_frames)

    # -- settings ---------------------------------------------------------------------------
    def next_settings(self) -> PipelineSettings:
        """The core's settings for the next frame: only what the frame needs (the distance
        and the inside test run beside it, :meth:`_start_side`)."""
        choice = self.model.pipeline
        update = {
            UpdateChoice.REFIT: UpdateMode.REFIT,
            UpdateChoice.REBUILD: UpdateMode.REBUILD,
            UpdateChoice.AUTO: UpdateMode.AUTO,
        }[choice.update]
        request = CollisionRequest(
            split=SplitRule[choice.split],
            descend=DescendRule[choice.descend],
            trace=True,
            bv=choice.bv,
            obb_fit=ObbFit[choice.obb_fit],
            margin=float(choice.margin),
            partition=None if choice.partition == NO_PARTITION else choice.partition,
        )
        # Self-collision is the frame's query in a one-mesh scene; with two or more bodies it
        # is an analysis and runs beside the frame (side_inputs).
        is_one_body = len(self.model.bodies) < 2
        frame = FrameOptions(self_collision=self.model.is_self_collision and is_one_body,
                             containment=False, distance=False)
        return PipelineSettings(request, update, float(choice.drift_threshold),
                                bool(self.model.validate_after_refit), frame=frame)

    def side_inputs(self) -> tuple[bool, bool, bool]:
        """``(distance chosen, inside test chosen, self-collision beside the frame)``: what a
        side result is computed with (self-collision runs beside the frame when it is chosen
        in a scene of two or more bodies)."""
        choice = self.model.pipeline
        is_self_beside = bool(choice.self_collision) and len(self.model.bodies) >= 2
        return bool(choice.distance), bool(choice.containment), is_self_beside

    def _on_pipeline_for_frames(self, _choice) -> None:
        side = self.model.side
        if side is not None and side.inputs != self.side_inputs():
            self.model.set_side(None)  # computed with other choices: never shown again
        self.request_frame()

    @staticmethod
    def split_rules() -> list[str]:
        return [r.name for r in SplitRule]

    @staticmethod
    def descend_rules() -> list[str]:
        return [r.name for r in DescendRule]

    # -- which frames count -----------------------------------------------------------------
    def discard_frames_in_flight(self) -> None:
        """The bodies changed identity (added, swapped): a frame still running is dropped,
        and so is a side result still running."""
        self._generation += 1

    def new_pipeline(self) -> None:
        """A new scene: drop the frame in flight and build every tree afresh."""
        self.discard_frames_in_flight()
        self._poses.clear()
        self.pipe = FramePipeline(self.next_settings())
        # Frame numbers start again: a side result kept by number would name another frame.
        self.model.set_side(None)

    # -- frames -----------------------------------------------------------------------------
    def _inputs(self) -> list[BodyInput]:
        inputs = []
        for body in self.model.bodies:
            deformer = None
            if body.deformer is not None:
                deformer = DEFORMERS[body.deformer](**body.deformer_params)
            inputs.append(BodyInput(body.key, body.rest, self._pose_of(body), deformer))
        return inputs

    def _pose_of(self, body) -> Pose:
        """``body``'s pose, checked once per matrix: a body that stands still keeps its
        checked :class:`Pose` (the rotation checks took 0.3 ms of the GUI thread a frame on
        bunny-bunny, in front of the next frame's start)."""
        matrix = np.ascontiguousarray(body.pose, dtype=np.float64).tobytes()
        kept = self._poses.get(body.key)
        if kept is None or kept[0] != matrix:
            kept = self._poses[body.key] = (matrix, Pose.from_matrix(body.pose))
        return kept[1]

    def request_frame(self) -> None:
        """Ask for a frame with the current state; coalesces while one is running."""
        if not self.model.bodies:
            return
        if not self.is_threaded:
            self.step_sync()
            return
        if self._is_frames_shut:
            return
        if self._is_busy:
            if self._is_pending:
                self.n_dropped += 1
            self._is_pending = True
            return
        self._start()

    def _start(self) -> None:
        self._is_busy = True
        self._is_pending = False
        self.pipe.settings = self.next_settings()
        tag = Tag("frame", self.pipe.next_index, self._generation)
        # No request (no window, or one that would not draw them): nothing is prepared.
        request = self.overlay_request() if self.overlay_request is not None else None
        self._frame_lane.submit(_run_frame_and_overlays, self.pipe, self._inputs(),
                                self.model.t, self._frame_watch.start(), request, tag=tag,
                                on_result=lambda result, job: self._on_frame_done(
                                    result[0], job, result[1]),
                                on_error=self._on_frame_failed)

    def cancel_frame(self) -> bool:
        """Stop the frame in flight at its traversal's next level; whether one was running."""
        return self._frame_watch.cancel()

    def _start_pending(self) -> None:
        if self._is_pending and self.model.bodies and not self._is_frames_shut:
            self._start()

    def _on_frame_done(self, frame, job, prepared=None) -> None:
        """``prepared``: the frame's overlays built on its lane, or None."""
        self._is_busy = False
        self._frame_watch.stop()
        # Pipelined: the next frame the clock (or an edit) asked for starts before this one
        # is drawn, so the core works while the GUI thread draws.
        self._start_pending()
        if job.tag.generation != self._generation:
            return
        self._deliver_waiting()  # an older one still waiting goes first
        self._waiting = (job.tag.generation, frame, prepared)
        if job.is_inline:
            self._deliver_waiting()  # no event loop to wait for (inline, scripts)
        else:
            self._delivery_timer.start()

    def _deliver_waiting(self) -> None:
        """Deliver the finished frame waiting for its turn (:meth:`_on_frame_done`), unless
        the scene or the pipeline changed since it started."""
        self._delivery_timer.stop()
        waiting, self._waiting = self._waiting, None
        if waiting is None or self._is_frames_shut:
            return
        generation, frame, prepared = waiting
        if generation == self._generation:
            self.prepared_overlays = prepared
            self._deliver(frame)

    def _on_frame_failed(self, error, job) -> None:
        self._is_busy = False
        self._frame_watch.stop()
        self.model.set_playing(False)
        text = failure_text(error)
        if job.tag.generation == self._generation:
            self._mark_failed(error, text)
        self.model.error.emit("Frame failed", text)
        self._start_pending()

    def _mark_failed(self, error: BaseException, text: str) -> None:
        """Mark the failed (or cancelled) frame on screen: the view keeps the last good frame
        and says so (:class:`viewer.state.pipeline.FrameFailure`). A failed step leaves the
        pipeline's frame counter as it was, so ``next_index`` is the failed frame's number."""
        is_cancelled = (isinstance(error, CancelledError)
                        or type(error).__name__.endswith("Cancelled"))
        reason = "" if is_cancelled else text
        self.model.set_frame_failure(FrameFailure(self.pipe.next_index, reason.splitlines()[0]
                                                  if reason else "", is_cancelled))

    def _deliver(self, frame) -> None:
        now = time.perf_counter()
        if self._last_done is not None:
            rate = 1.0 / max(now - self._last_done, 1e-6)
            self.model.fps = rate if self.model.fps == 0 else (
                FPS_SMOOTHING * rate + (1 - FPS_SMOOTHING) * self.model.fps)
        self._last_done = now
        self.n_frames += 1
        self._record(frame)
        if "self" in frame.timings:
            self.model.set_analysis_cost("self", 1e3 * frame.timings["self"], frame.index)
        self._say_if_slow(frame)
        self.model.set_frame(frame)
        self._start_side(frame)

    def _say_if_slow(self, frame) -> None:
        """Put why ``frame`` passed the frame budget in the model (Stats dock) and the status
        bar; the words come from its own phase times."""
        words = slow_frame_words(frame, self.pipe.settings.update.value)
        reason = words.split("): ", 1)[-1]
        if words and reason != self.model.slow_frame.split("): ", 1)[-1]:
            # Once per reason: every slow frame's own words are in the Stats dock.
            self.model.message.emit(words)
        self.model.set_slow_frame(words)

    # -- beside the frame: distance and inside test -----------------------------------------
    def _start_side(self, frame) -> None:
        """Run the chosen distance and inside test of ``frame`` on the side lane (coalescing:
        the one waiting is replaced by the newest frame's)."""
        inputs = self.side_inputs()
        if self._is_frames_shut or not needs_side(frame, inputs):
            return
        if carries_side_results(frame):
            return  # computed already (step_sync merged them in)
        tag = Tag(SIDE_WHAT, frame.index, self._generation, inputs)
        self._side_lane.submit(side_results, frame, *inputs, tag=tag,
                               on_result=functools.partial(self._on_side_done, frame),
                               on_error=self._on_side_failed,
                               budget=Budget(seconds=SIDE_SECONDS))

    def _side_result(self, frame, result, tag: Tag) -> SideResult | None:
        """The side result of ``frame``, or None (counted) when it was computed for another
        scene or with other choices than the current ones."""
        if tag.generation != self._generation or tag.inputs != self.side_inputs():
            self.n_side_dropped += 1
            return None
        distance, containment, self_results, seconds = result
        return SideResult(int(frame.index), tag.generation, tag.inputs, distance, containment,
                          dict(seconds), self_results)

    def _on_side_done(self, frame, result, job) -> None:
        side = self._side_result(frame, result, job.tag)
        if side is None:
            return
        for key, seconds in side.seconds.items():
            self.model.set_analysis_cost(key, 1e3 * seconds, side.frame_index)
        self.model.set_side(side)
        if self.model.live_frame is frame and not self.model.is_playing:
            # Still the newest frame: it reads as if it had computed them itself.
            self.model.replace_live_frame(merged_frame(frame, side))

    def _on_side_failed(self, error, job) -> None:
        if job.tag.generation == self._generation:
            self.model.error.emit("Minimum distance / inside test / self-collision",
                                  failure_text(error))

    def step_sync(self):
        """Run one frame inline and deliver it, its side results merged in; returns the
        Frame."""
        self.pipe.settings = self.next_settings()
        _ensure_kernels()
        frame = self.pipe.step(self._inputs(), self.model.t)
        inputs = self.side_inputs()
        if needs_side(frame, inputs):
            tag = Tag(SIDE_WHAT, frame.index, self._generation, inputs)
            side = self._side_result(frame, side_results(None, frame, *inputs), tag)
            if side is not None:  # always: the same scene and choices, nothing ran between
                for key, seconds in side.seconds.items():
                    self.model.set_analysis_cost(key, 1e3 * seconds, side.frame_index)
                self.model.set_side(side)
                frame = merged_frame(frame, side)
        self._deliver(frame)
        return frame

    @property
    def is_busy(self) -> bool:
        """A frame is running or wanted, or the side results of the last one are running."""
        return self._is_busy or self._is_pending or self._side_lane.is_busy

    @property
    def is_frame_running(self) -> bool:
        """A frame is being computed now (with the inputs of when it started), or finished
        and waiting for its delivery's turn."""
        return self._is_busy or self._waiting is not None

    def shutdown(self) -> None:
        # A frame finishing during the shutdown still delivers its result (queued signal): it
        # must not start the frame asked for meanwhile. Quitting while playing raised
        # "cannot schedule new futures after shutdown" in a slot, and PyQt aborted the app,
        # so the next start offered to restore a crashed session.
        self._is_frames_shut = True
        self._frame_lane.cancel()
        self._side_lane.cancel()
        # The lane drops the cancelled frame's result after the shutdown, so its done handler,
        # which stops the watch, never runs: stop it here, or its timer keeps asking the
        # closed window's job dialog to show the frame's progress (and keeps the window alive).
        self._frame_watch.stop()
        self._delivery_timer.stop()
        self._waiting = None
