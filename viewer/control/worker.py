"""One way to run work off the GUI thread: lanes of jobs with progress, cancel and a budget.

In the manner of napari's ``create_worker``, adapted to this app. A :class:`Workers` owns named
:class:`Lane` s; a lane runs one job at a time on its own thread, in the order they were
submitted, or (``coalesce=True``) only the newest of the jobs that arrived while one ran (the
replaced ones are counted in :attr:`Lane.n_dropped`). A job is a plain function whose first
argument is a :class:`JobControl`: it reports progress, asks whether it was cancelled, and
checks its :class:`Budget`. Its result, its error and its progress reach the callbacks on the
GUI thread (a queued Qt signal), each with the :class:`Job` handle, whose :class:`Tag` says what
the inputs were, so a caller can mark a late result ("from frame N") or drop a stale one.

Exceptions never escape a job: they go to ``on_error`` (or to the ``Workers``' fallback)
without their traceback, so the memory a failed job's frames held goes back at once. A result
that arrives after :meth:`Workers.shutdown` is dropped, and later submits are refused quietly.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass

from PyQt6.QtCore import QObject, pyqtSignal

from core.collide.budget import QueryControl
from core.errors import BVHLabError, QueryCancelled

MAX_WAITING = 64
"""Jobs a lane that does not coalesce keeps waiting behind the running one; a submit past it
is refused with :class:`LaneFull` (to ``on_error``), so a runaway caller cannot grow the queue
without bound."""


BESIDE_FRAME_NICE = 10
"""Niceness of the lanes whose work runs beside the frames (distance and inside test, heat,
ghost, cross-check, stepper, inspection): on this 2-core machine the software renderer's two
threads and the frame's core already want both cores, and at equal priority a ghost build or a
minimum distance took half a core from the render that the GUI thread waits for (big-bunny
with every analysis on, interactive benchmark: see ``docs/benchmarks.md``)."""


GIL_SWITCH_INTERVAL_S = 0.001
"""Longest hold of the interpreter lock while another thread waits for it, once lanes run
(``sys.setswitchinterval``; Python's default is 5 ms). A frame's core comes back from each
compiled kernel needing the lock, and while the GUI thread builds the overlays in Python it
waited up to the whole interval for it. Bunny x bunny at 1280x800, four alternating runs of
the interactive benchmark: the core took 7.5-7.7 ms in the window at 1 ms against 7.9-8.3 ms
at 5 ms, and the window drew 40.5-41.4 against 38.7-39.9 frames a second."""


def lower_thread_priority(nice: int) -> bool:
    """Make the calling thread ``nice`` steps less urgent than the process (Linux, where a
    thread has its own niceness; raising it needs no privilege). Whether it was done."""
    if nice <= 0 or not sys.platform.startswith("linux"):
        return False
    with contextlib.suppress(OSError):
        current = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(19, current + nice))
        return True
    return False


class JobCancelled(QueryCancelled):
    """A job stopped at a :meth:`JobControl.check` after it was cancelled.

    A :class:`core.errors.QueryCancelled`, so code that reports a cancelled core query reports
    a cancelled job the same way.
    """


class JobBudgetExceeded(BVHLabError):
    """A job passed its :class:`Budget` (time or memory); the message is one line naming the
    job and the limit.

    Attributes
    ----------
    what : str
        The job (its tag's ``what``).
    limit : str
        Which limit, in words ("2 s", "1,000,000 bytes").
    """

    def __init__(self, what: str, limit: str, detail: str):
        self.what = what
        self.limit = limit
        self.operation = what
        super().__init__(f"{what}: {detail} (its budget is {limit}); stopped")


class LaneFull(BVHLabError):
    """A submit to a lane that already has :data:`MAX_WAITING` jobs waiting."""


@dataclass(frozen=True)
class Tag:
    """What a result was computed on: shown with a late result, used to drop a stale one.

    Attributes
    ----------
    what : str
        The job in words ("frame", "distance", "ghost", "cross-check", "quality", ...).
    frame_index : int or None
        The frame number the inputs came from (None: the inputs are not a frame).
    generation : int
        The scene's identity (adding, removing or swapping bodies bumps it).
    inputs : tuple
        A hashable summary of the settings the job used.
    """

    what: str
    frame_index: int | None = None
    generation: int = 0
    inputs: tuple = ()

    def is_stale(self, current: Tag) -> bool:
        """Whether a result with this tag no longer describes ``current`` (another scene or
        other settings). A different frame is not stale, only late: see :meth:`late_text`."""
        return self.generation != current.generation or self.inputs != current.inputs

    def late_text(self, current_frame: int | None) -> str:
        """``"from frame N"`` when the inputs came from a frame other than ``current_frame``,
        else ``""`` (the result is current)."""
        if self.frame_index is None or self.frame_index == current_frame:
            return ""
        return f"from frame {self.frame_index}"


@dataclass(frozen=True)
class Budget:
    """A job's limits, checked cooperatively.

    Attributes
    ----------
    seconds : float or None
        Wall time since the job started; :meth:`JobControl.check` raises
        :class:`JobBudgetExceeded` past it.
    max_bytes : int or None
        Total the job may :meth:`JobControl.reserve` before it allocates.
    """

    seconds: float | None = None
    max_bytes: int | None = None


class JobControl:
    """What a running job sees of its handle: passed as the job function's first argument.

    Attributes
    ----------
    query_control : core.collide.budget.QueryControl
        Wired to this job's cancel, for core queries that take one (``control=``).
    reserved : int
        Bytes reserved so far.
    """

    def __init__(self, job: Job, emit_progress):
        self._job = job
        self._emit_progress = emit_progress
        self.query_control = QueryControl()
        self.reserved = 0

    def progress(self, done: int, total: int | None = None, text: str = "") -> None:
        """Report progress; ``on_progress(done, total, text, job)`` runs on the GUI thread."""
        self._emit_progress(self._job, int(done), None if total is None else int(total),
                            str(text))  # fmt: skip

    def is_cancelled(self) -> bool:
        return self._job.is_cancelled

    def check(self) -> None:
        """Raise :class:`JobCancelled` if the job was cancelled, :class:`JobBudgetExceeded` if
        it ran past its time budget."""
        job = self._job
        if job.is_cancelled:
            raise JobCancelled(f"{job.tag.what} was cancelled")
        seconds = job.budget.seconds
        if seconds is not None:
            elapsed = time.perf_counter() - job.started
            if elapsed > seconds:
                raise JobBudgetExceeded(job.tag.what, f"{seconds:g} s",
                                        f"ran for {elapsed:.1f} s")

    def reserve(self, n_bytes: int) -> None:
        """Count ``n_bytes`` the job is about to allocate; raise :class:`JobBudgetExceeded`
        (before the allocation) if the total passes the byte budget."""
        total = self.reserved + int(n_bytes)
        limit = self._job.budget.max_bytes
        if limit is not None and total > limit:
            raise JobBudgetExceeded(self._job.tag.what, f"{limit:,} bytes",
                                    f"needs {total:,} bytes")
        self.reserved = total


class Job:
    """The handle of one submitted job.

    Attributes
    ----------
    tag : Tag
    budget : Budget
    started : float
        ``time.perf_counter()`` when it started running (0.0 until then).
    seconds : float or None
        How long it ran, once it finished.
    is_refused : bool
        The submit came after the shutdown (or to a full lane): the job never runs.
    is_inline : bool
        It ran on the thread that submitted it.
    """

    def __init__(self, lane: Lane, fn, args, tag: Tag, on_result, on_error, on_progress,
                 budget: Budget):
        self.lane = lane
        self.tag = tag
        self.budget = budget
        self.started = 0.0
        self.seconds: float | None = None
        self.is_refused = False
        self.is_inline = False
        self._fn, self._args = fn, args
        self._on_result, self._on_error, self._on_progress = on_result, on_error, on_progress
        self._cancelled = threading.Event()
        self._is_running = False
        self._is_done = False
        self._expired = False
        self.control = JobControl(self, lane.workers._emit_progress)

    def cancel(self) -> None:
        """Ask the job to stop at its next :meth:`JobControl.check` (or its core query at its
        next level); a job still waiting is dropped."""
        self._cancelled.set()
        self.control.query_control.cancel()
        self.lane._forget_waiting(self)

    @property
    def is_cancelled(self) -> bool:
        return self._cancelled.is_set()

    @property
    def is_running(self) -> bool:
        """Running on its lane now (not waiting, not finished)."""
        return self._is_running

    @property
    def is_done(self) -> bool:
        """Finished and its callback ran (or it was dropped or refused)."""
        return self._is_done

    def _run(self):
        """Run the function on the calling thread: ``(result, error)``, the error with no
        traceback.

        With a time budget, a deadline timer cancels the job's core query when the time is
        up (core queries stop at their next level; :meth:`JobControl.check` raises between
        phases), and the cancel is reported as :class:`JobBudgetExceeded`, not as a cancel.
        """
        self.started = time.perf_counter()
        self._is_running = True
        fn, args = self._fn, self._args
        self._fn = self._args = None  # the inputs' memory goes back when the job ends
        deadline = self._arm_deadline()
        try:
            result, error = fn(self.control, *args), None
        except Exception as exc:  # noqa: BLE001 - a job's failure is reported, never raised
            result, error = None, _without_traceback(self._budget_error(exc))
        finally:
            del fn, args
            if deadline is not None:
                deadline.cancel()
            self.seconds = time.perf_counter() - self.started
        return result, error

    def _arm_deadline(self) -> threading.Timer | None:
        seconds = self.budget.seconds
        if seconds is None:
            return None
        timer = threading.Timer(seconds, self._expire)
        timer.daemon = True
        timer.start()
        return timer

    def _expire(self) -> None:
        """The deadline timer: the time budget is spent (the user did not cancel)."""
        self._expired = True
        self.control.query_control.cancel()

    def _budget_error(self, exc: Exception) -> Exception:
        """A cancel caused by the deadline, as the budget error it is."""
        if (self._expired and not self.is_cancelled and isinstance(exc, QueryCancelled)
                and not isinstance(exc, JobBudgetExceeded)):
            elapsed = time.perf_counter() - self.started
            return JobBudgetExceeded(self.tag.what, f"{self.budget.seconds:g} s",
                                     f"ran for {elapsed:.1f} s")
        return exc


def _without_traceback(exc: BaseException) -> BaseException:
    """``exc`` (and the exceptions chained to it) with no traceback, so no frame of the failed
    job, and no array it held, stays alive across threads."""
    seen = set()
    current = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        current.__traceback__ = None
        current = current.__cause__ or current.__context__
    return exc


class Lane:
    """One worker thread that runs one job at a time.

    Attributes
    ----------
    name : str
    coalesce : bool
        True: while a job runs, a newer submit replaces the one waiting (at most one waits).
    n_dropped : int
        Waiting jobs replaced by newer ones (coalescing lanes only).
    last_tag : Tag or None
        The tag of the newest result delivered.
    wait_on_shutdown : bool
        :meth:`Workers.shutdown` waits for this lane's running job (False: a job nobody needs
        once the window closes, such as a measurement, is cancelled and left to end alone on
        its daemon thread).
    shutdown_timeout : float or None
        At most this many seconds waited for (None: until the job stops).
    nice : int
        The lane's thread runs this many niceness steps below the GUI thread
        (:func:`lower_thread_priority`; 0: the same priority).
    """

    def __init__(self, workers: Workers, name: str, coalesce: bool, wait_on_shutdown: bool,
                 shutdown_timeout: float | None, nice: int = 0):
        self.workers = workers
        self.name = name
        self.nice = int(nice)
        self.coalesce = coalesce
        self.wait_on_shutdown = wait_on_shutdown
        self.shutdown_timeout = shutdown_timeout
        self.n_dropped = 0
        self.last_tag: Tag | None = None
        self._lock = threading.Condition()
        self._waiting: deque[Job] = deque()
        self._running: Job | None = None
        self._undelivered = 0  # jobs taken by the thread whose callbacks have not run yet
        self._thread: threading.Thread | None = None
        self._is_stopping = False

    # -- submitting -------------------------------------------------------------------------
    def submit(self, fn, *args, tag: Tag, on_result, on_error=None, on_progress=None,
               budget: Budget | None = None, inline: bool | None = None) -> Job:
        """Run ``fn(control, *args)`` on this lane.

        Parameters
        ----------
        fn : callable
            ``fn(control: JobControl, *args) -> result``.
        tag : Tag
        on_result : callable
            ``on_result(result, job)``, on the GUI thread.
        on_error : callable, optional
            ``on_error(exc, job)``, on the GUI thread; without it the ``Workers``' fallback
            reports the error.
        on_progress : callable, optional
            ``on_progress(done, total, text, job)``, on the GUI thread.
        budget : Budget, optional
        inline : bool, optional
            Run at once on the calling thread, the callbacks before this returns (a job too
            small to be worth a thread); default the ``Workers``' :attr:`~Workers.inline`.

        Returns
        -------
        Job
            Its handle; ``is_refused`` when the workers were shut down (nothing runs).
        """
        job = Job(self, fn, args, tag, on_result, on_error, on_progress, budget or Budget())
        if self.workers.is_shut or self._is_stopping:
            job.is_refused = job._is_done = True
            return job
        if self.workers.inline if inline is None else inline:
            job.is_inline = True
            self.workers._finish(job, *job._run())
            return job
        with self._lock:
            if self.coalesce:
                while self._waiting:
                    self._waiting.popleft()._is_done = True
                    self._undelivered -= 1
                    self.n_dropped += 1
            elif len(self._waiting) >= MAX_WAITING:
                job.is_refused = job._is_done = True
                error = LaneFull(f"{tag.what}: more than {MAX_WAITING} jobs are waiting on the "
                                 f"{self.name} lane; this one was refused")
                self.workers._emit_done(job, None, error)
                return job
            self._waiting.append(job)
            self._undelivered += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=f"lane-{self.name}",
                                                daemon=True)
                self._thread.start()
            self._lock.notify()
        return job

    def _forget_waiting(self, job: Job) -> None:
        with self._lock:
            if job in self._waiting:
                self._waiting.remove(job)
                self._undelivered -= 1
                job._is_done = True

    # -- the lane's thread ------------------------------------------------------------------
    def _loop(self) -> None:
        lower_thread_priority(self.nice)
        while True:
            with self._lock:
                while not self._waiting and not self._is_stopping:
                    self._lock.wait()
                if self._is_stopping:
                    return
                job = self._running = self._waiting.popleft()
            result, error = job._run()
            with self._lock:
                self._running = None
                job._is_running = False
            self.workers._emit_done(job, result, error)
            del job, result, error

    # -- state ------------------------------------------------------------------------------
    @property
    def is_busy(self) -> bool:
        """A job is running, waiting, or finished with its callback not yet run."""
        return self._undelivered > 0

    @property
    def thread(self) -> threading.Thread | None:
        """The lane's (daemon) thread, once a job was submitted."""
        return self._thread

    @property
    def running(self) -> Job | None:
        """The job running now, if any."""
        return self._running

    def cancel(self) -> bool:
        """Cancel the running job and drop the waiting ones; whether there was any."""
        with self._lock:
            dropped = list(self._waiting)
            self._waiting.clear()
            self._undelivered -= len(dropped)
            running = self._running
        for job in dropped:
            job._cancelled.set()
            job._is_done = True
        if running is not None:
            running._cancelled.set()
            running.control.query_control.cancel()
        return running is not None or bool(dropped)

    def shutdown(self, wait: bool = True) -> None:
        """Stop this lane alone (before the others, when a job must end first): cancel its
        jobs, wait (``wait``, at most :attr:`shutdown_timeout`) for the running one, refuse
        later submits. A result already on its way is still delivered."""
        thread = self._stop()
        if wait and thread is not None and thread is not threading.current_thread():
            thread.join(self.shutdown_timeout)

    def _stop(self) -> threading.Thread | None:
        self.cancel()
        with self._lock:
            self._is_stopping = True
            self._lock.notify_all()
        return self._thread


class Workers(QObject):
    """The lanes of one controller (or one dialog's controller).

    Parameters
    ----------
    inline : bool
        Run every job at once on the calling thread, its callbacks before ``submit`` returns
        (the benchmark, and tests that want no threads).
    on_unhandled : callable, optional
        ``on_unhandled(exc, job)`` on the GUI thread for a failed job with no ``on_error``;
        without it the error's line goes to stderr.

    Attributes
    ----------
    is_shut : bool
        :meth:`shutdown` was called: submits are refused, late results dropped.
    """

    _done = pyqtSignal(object, object, object)  # Job, result, error (queued to the GUI thread)
    _progressed = pyqtSignal(object, object, object, object)  # Job, done, total, text

    def __init__(self, inline: bool = False, on_unhandled=None, parent=None):
        super().__init__(parent)
        self.inline = inline
        self.on_unhandled = on_unhandled
        self.is_shut = False
        if not inline and sys.getswitchinterval() > GIL_SWITCH_INTERVAL_S:
            # Process-wide, set where the worker threads come in (a shorter one is kept).
            sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
        self._lanes: dict[str, Lane] = {}
        self._done.connect(self._finish)
        self._progressed.connect(self._progress)

    def lane(self, name: str, coalesce: bool = False, wait_on_shutdown: bool = True,
             shutdown_timeout: float | None = None, nice: int = 0) -> Lane:
        """The lane called ``name``, created on first use (its options are taken then)."""
        lane = self._lanes.get(name)
        if lane is None:
            lane = self._lanes[name] = Lane(self, name, coalesce, wait_on_shutdown,
                                            shutdown_timeout, nice)
        return lane

    @property
    def lanes(self) -> dict[str, Lane]:
        return dict(self._lanes)

    @property
    def is_busy(self) -> bool:
        return any(lane.is_busy for lane in self._lanes.values())

    def shutdown(self, wait: bool = True) -> None:
        """Cancel every job, drop the waiting ones, and (``wait``) wait for the running ones to
        stop. Later submits are refused quietly and results that arrive later are dropped."""
        self.is_shut = True
        threads = [(lane, lane._stop()) for lane in self._lanes.values()]
        if wait:
            for lane, thread in threads:
                if (thread is not None and lane.wait_on_shutdown
                        and thread is not threading.current_thread()):
                    thread.join(lane.shutdown_timeout)

    # -- crossing to the GUI thread -----------------------------------------------------------
    def _emit_progress(self, job: Job, done, total, text) -> None:
        if job._on_progress is None or self.is_shut:
            return
        if job.is_inline:
            job._on_progress(done, total, text, job)
        else:
            self._progressed.emit(job, done, total, text)

    def _emit_done(self, job: Job, result, error) -> None:
        self._done.emit(job, result, error)

    def _progress(self, job: Job, done, total, text) -> None:
        if self.is_shut or job._is_done:
            return
        job._on_progress(done, total, text, job)

    def _finish(self, job: Job, result, error) -> None:
        """On the GUI thread: hand a finished job's result or error to its callbacks."""
        lane = job.lane
        if not job.is_refused and not job.is_inline:
            with lane._lock:
                lane._undelivered -= 1
        job._is_done = True
        job._is_running = False
        if self.is_shut:
            return
        on_result, on_error = job._on_result, job._on_error
        job._on_result = job._on_error = job._on_progress = None
        if error is None:
            lane.last_tag = job.tag
            on_result(result, job)
        elif on_error is not None:
            on_error(error, job)
        elif self.on_unhandled is not None:
            self.on_unhandled(error, job)
        else:
            print(f"{job.tag.what} failed: {type(error).__name__}: {error}", file=sys.stderr,
                  flush=True)
