"""Frames: ``FramePipeline.step`` in a worker thread, finished frames handed to the model.

The numba kernels release the GIL, so Qt keeps painting while a frame runs. At most one frame
is in flight: requests that arrive meanwhile collapse into one "run again with the latest
state" flag, so stale frames are dropped rather than queued and the display never lags behind
a backlog.
"""

from __future__ import annotations

import time
from concurrent.futures import CancelledError, ThreadPoolExecutor

from PyQt6.QtCore import QObject, pyqtSignal

from core import interpreted
from core.bv import ObbFit
from core.bvh import SplitRule
from core.collide import DescendRule
from core.deform import DEFORMERS
from core.errors import BVHLabError
from core.pipeline import BodyInput, FramePipeline, PipelineSettings, UpdateMode
from core.pose import Pose
from core.warmup import FIRST_FRAME_STEPS, is_cache_complete, warm_in_process, warm_up
from viewer.choices import NO_PARTITION
from viewer.control.frame_watch import FrameWatch
from viewer.model import FrameFailure, UpdateChoice

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


class _FrameRelay(QObject):
    """Carries a finished frame from the worker thread to the GUI thread (queued signal)."""

    done = pyqtSignal(object, int, object, float)  # frame, generation, error, wall seconds


def failure_text(error: BaseException) -> str:
    """A failed frame's error in one line: a budget or a cancel says what stopped (not a bare
    "MemoryError"); anything else its class and message."""
    if isinstance(error, BVHLabError):
        what = getattr(error, "operation", "")
        text = f"{what} failed: {error}" if what else str(error)
        return text[:1].upper() + text[1:]
    return f"{type(error).__name__}: {error}"


class FrameRunning:
    """The controller's frame job: ``request_frame`` (threaded, coalescing) and ``step_sync``.

    Holds the pipeline (``pipe``) and the frame counters (``n_frames``, ``n_dropped``). Uses
    the host's ``model``.
    """

    def _init_frame_running(self, is_threaded: bool) -> None:
        self.is_threaded = is_threaded
        self.pipe = FramePipeline(self._settings())
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="frame")
        self._is_frames_shut = False
        self._relay = _FrameRelay()
        self._relay.done.connect(self._on_done)
        self._generation = 0
        self._is_busy = False
        self._is_pending = False
        self._last_done = None
        self.n_dropped = 0
        self.n_frames = 0
        self._frame_watch = FrameWatch(self.model, lambda: self.pipe.settings.pair_budget)
        self.model.body_changed.connect(lambda _i: self.request_frame())
        self.model.pipeline_changed.connect(lambda _p: self.request_frame())

    # -- settings ---------------------------------------------------------------------------
    def _settings(self) -> PipelineSettings:
        choice = self.model.pipeline
        update = {
            UpdateChoice.REFIT: UpdateMode.REFIT,
            UpdateChoice.REBUILD: UpdateMode.REBUILD,
            UpdateChoice.AUTO: UpdateMode.AUTO,
        }[choice.update]
        return PipelineSettings(
            split=SplitRule[choice.split],
            update=update,
            drift_threshold=float(choice.drift_threshold),
            descend=DescendRule[choice.descend],
            trace=True,
            bv=choice.bv,
            obb_fit=ObbFit[choice.obb_fit],
            margin=float(choice.margin),
            self_collision=self.model.is_self_collision,
            containment=True,
            partition=None if choice.partition == NO_PARTITION else choice.partition,
            distance=True,
            validate_after_refit=bool(self.model.validate_after_refit),
        )

    @staticmethod
    def split_rules() -> list[str]:
        return [r.name for r in SplitRule]

    @staticmethod
    def descend_rules() -> list[str]:
        return [r.name for r in DescendRule]

    # -- which frames count -----------------------------------------------------------------
    def _discard_frames_in_flight(self) -> None:
        """The bodies changed identity (added, swapped): a frame still running is dropped."""
        self._generation += 1

    def _new_pipeline(self) -> None:
        """A new scene: drop the frame in flight and build every tree afresh."""
        self._discard_frames_in_flight()
        self.pipe = FramePipeline(self._settings())

    # -- frames -----------------------------------------------------------------------------
    def _inputs(self) -> list[BodyInput]:
        inputs = []
        for body in self.model.bodies:
            deformer = None
            if body.deformer is not None:
                deformer = DEFORMERS[body.deformer](**body.deformer_params)
            inputs.append(BodyInput(body.key, body.rest, Pose.from_matrix(body.pose), deformer))
        return inputs

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
        self.pipe.settings = self._settings()
        inputs, t, generation = self._inputs(), self.model.t, self._generation
        self._executor.submit(self._run, inputs, t, generation, self._frame_watch.start())

    def _run(self, inputs, t, generation, control) -> None:
        start = time.perf_counter()
        try:
            _ensure_kernels()
            frame = self.pipe.step(inputs, t, control)
            error = None
        except Exception as exc:  # noqa: BLE001 - any failure becomes a message, not a crash
            # Without its traceback the error keeps no frame of the failed query alive, so
            # the memory of its arrays goes back now.
            frame, error = None, exc.with_traceback(None)
        self._relay.done.emit(frame, generation, error, time.perf_counter() - start)

    def cancel_frame(self) -> bool:
        """Stop the frame in flight at its traversal's next level; whether one was running."""
        return self._frame_watch.cancel()

    def _on_done(self, frame, generation, error, _seconds) -> None:
        self._is_busy = False
        self._frame_watch.stop()
        if error is not None:
            self.model.set_playing(False)
            text = failure_text(error)
            if generation == self._generation:
                self._mark_failed(error, text)
            self.model.error.emit("Frame failed", text)
        elif generation == self._generation:
            self._deliver(frame)
        if self._is_pending and self.model.bodies and not self._is_frames_shut:
            self._start()

    def _mark_failed(self, error: BaseException, text: str) -> None:
        """Mark the failed (or cancelled) frame on screen: the view keeps the last good frame
        and says so (:class:`viewer.model.FrameFailure`). A failed step leaves the pipeline's
        frame counter as it was, so ``next_index`` is the failed frame's number."""
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
        self._record_frame(frame)
        self.model.set_frame(frame)

    def step_sync(self):
        """Run one frame inline and deliver it; returns the Frame."""
        self.pipe.settings = self._settings()
        _ensure_kernels()
        frame = self.pipe.step(self._inputs(), self.model.t)
        self._deliver(frame)
        return frame

    @property
    def is_busy(self) -> bool:
        return self._is_busy or self._is_pending

    @property
    def is_frame_running(self) -> bool:
        """A frame is being computed now (with the inputs of when it started)."""
        return self._is_busy

    def _shutdown_frame_running(self) -> None:
        # A frame finishing during the shutdown still delivers its result (queued signal): it
        # must not start the frame asked for meanwhile. Quitting while playing raised
        # "cannot schedule new futures after shutdown" in a slot, and PyQt aborted the app,
        # so the next start offered to restore a crashed session.
        self._is_frames_shut = True
        self._executor.shutdown(wait=True, cancel_futures=True)
