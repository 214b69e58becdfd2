"""The one worker mechanism (viewer.control.worker): lanes, coalescing, cancel, budgets."""

from __future__ import annotations

import os
import sys
import threading

import pytest
from PyQt6.QtCore import QCoreApplication

from viewer.control.worker import (
    BESIDE_FRAME_NICE,
    GIL_SWITCH_INTERVAL_S,
    Budget,
    JobBudgetExceeded,
    JobCancelled,
    Tag,
    Workers,
)

WAIT = 30_000  # ms; only a bound on a hang, never a verdict


@pytest.fixture
def workers(qtbot):
    made = Workers()
    yield made
    made.shutdown()


class Collect:
    """Records the callbacks and the thread they ran on."""

    def __init__(self):
        self.results, self.errors, self.progress, self.threads = [], [], [], []

    def on_result(self, result, job):
        self.threads.append(threading.current_thread())
        self.results.append((result, job.tag))

    def on_error(self, error, job):
        self.threads.append(threading.current_thread())
        self.errors.append((error, job.tag))

    def on_progress(self, done, total, text, job):
        self.progress.append((done, total, text))


def test_result_reaches_on_result_on_gui_thread_with_its_tag(qtbot, workers):
    seen = Collect()
    ran_on = []

    def job(control, x):
        ran_on.append(threading.current_thread())
        control.progress(1, 2, "half")
        return x * 2

    tag = Tag("distance", frame_index=7, generation=3, inputs=("aabb",))
    lane = workers.lane("analysis")
    handle = lane.submit(job, 21, tag=tag, on_result=seen.on_result,
                         on_progress=seen.on_progress)
    qtbot.waitUntil(lambda: bool(seen.results), timeout=WAIT)
    assert seen.results == [(42, tag)]
    assert seen.progress == [(1, 2, "half")]
    assert ran_on[0] is not threading.main_thread()
    assert seen.threads == [threading.main_thread()]
    assert lane.last_tag == tag and not lane.is_busy
    assert handle.is_done and handle.seconds is not None


def test_coalescing_lane_runs_the_newest_waiting_job_and_counts_the_dropped(qtbot, workers):
    seen = Collect()
    started, release = threading.Event(), threading.Event()

    def blocker(_control):
        started.set()
        release.wait()
        return "first"

    lane = workers.lane("frames", coalesce=True)
    lane.submit(blocker, tag=Tag("frame", 1), on_result=seen.on_result)
    assert started.wait(WAIT / 1000)
    lane.submit(lambda _c: "second", tag=Tag("frame", 2), on_result=seen.on_result)
    lane.submit(lambda _c: "third", tag=Tag("frame", 3), on_result=seen.on_result)
    assert lane.n_dropped == 1 and lane.is_busy
    release.set()
    qtbot.waitUntil(lambda: not lane.is_busy, timeout=WAIT)
    assert [r for r, _t in seen.results] == ["first", "third"]
    assert lane.last_tag == Tag("frame", 3)


def test_plain_lane_runs_every_job_in_order(qtbot, workers):
    seen = Collect()
    lane = workers.lane("files")
    for i in range(5):
        lane.submit(lambda _c, i=i: i, tag=Tag("file"), on_result=seen.on_result)
    qtbot.waitUntil(lambda: not lane.is_busy, timeout=WAIT)
    assert [r for r, _t in seen.results] == [0, 1, 2, 3, 4]
    assert lane.n_dropped == 0


def test_cancel_stops_a_job_at_its_next_check(qtbot, workers):
    seen = Collect()
    started, cancelled = threading.Event(), threading.Event()
    n_checks_after_cancel = []

    def job(control):
        started.set()
        cancelled.wait()
        assert control.query_control.is_cancelled  # a core query would stop too
        n_checks_after_cancel.append(1)
        control.check()
        return "not reached"

    lane = workers.lane("ghost")
    handle = lane.submit(job, tag=Tag("ghost"), on_result=seen.on_result,
                         on_error=seen.on_error)
    assert started.wait(WAIT / 1000)
    assert lane.cancel() is True
    assert handle.is_cancelled
    cancelled.set()
    qtbot.waitUntil(lambda: bool(seen.errors), timeout=WAIT)
    assert seen.results == []
    assert isinstance(seen.errors[0][0], JobCancelled)
    assert n_checks_after_cancel == [1]


def test_cancelling_a_waiting_job_drops_it(qtbot, workers):
    seen = Collect()
    started, release = threading.Event(), threading.Event()

    def blocker(_control):
        started.set()
        release.wait()
        return "running"

    lane = workers.lane("export")
    lane.submit(blocker, tag=Tag("export"), on_result=seen.on_result)
    assert started.wait(WAIT / 1000)
    waiting = lane.submit(lambda _c: "waiting", tag=Tag("export"), on_result=seen.on_result)
    waiting.cancel()
    release.set()
    qtbot.waitUntil(lambda: not lane.is_busy, timeout=WAIT)
    assert [r for r, _t in seen.results] == ["running"]


def test_time_budget_raises_the_named_error(qtbot, workers):
    seen = Collect()

    def job(control):
        control._job.started -= 5.0  # as if the job had run for 5 s: no real waiting
        control.check()
        return "not reached"

    lane = workers.lane("quality")
    lane.submit(job, tag=Tag("quality"), on_result=seen.on_result, on_error=seen.on_error,
                budget=Budget(seconds=2.0))
    qtbot.waitUntil(lambda: bool(seen.errors), timeout=WAIT)
    error = seen.errors[0][0]
    assert isinstance(error, JobBudgetExceeded)
    text = str(error)
    assert "\n" not in text and "quality" in text and "2 s" in text


def test_byte_budget_raises_the_named_error(qtbot, workers):
    seen = Collect()

    def job(control):
        control.reserve(600)
        control.reserve(600)  # 1,200 bytes > 1,000
        return "not reached"

    workers.lane("cross-check").submit(job, tag=Tag("cross-check"), on_result=seen.on_result,
                                       on_error=seen.on_error, budget=Budget(max_bytes=1000))
    qtbot.waitUntil(lambda: bool(seen.errors), timeout=WAIT)
    error = seen.errors[0][0]
    assert isinstance(error, JobBudgetExceeded)
    text = str(error)
    assert "\n" not in text and "cross-check" in text and "1,000 bytes" in text


def test_the_deadline_stops_a_core_query_and_names_the_time_budget(qtbot, workers):
    """A core query checks only its cancel flag: the deadline raises it, and the stop is
    reported as the budget it is, not as a cancel."""
    seen = Collect()

    def job(control):
        done = threading.Event()
        while not control.query_control.is_cancelled:  # as a core query between levels
            done.wait(0.005)
        control.query_control.check_cancelled("the distance query")
        return "not reached"

    workers.lane("side").submit(job, tag=Tag("distance"), on_result=seen.on_result,
                                on_error=seen.on_error, budget=Budget(seconds=0.05))
    qtbot.waitUntil(lambda: bool(seen.errors), timeout=WAIT)
    error = seen.errors[0][0]
    assert isinstance(error, JobBudgetExceeded) and not seen.results
    assert "distance" in str(error) and "0.05 s" in str(error)


def test_a_user_cancel_under_a_time_budget_stays_a_cancel(qtbot, workers):
    seen = Collect()
    started = threading.Event()

    def job(control):
        started.set()
        while not control.query_control.is_cancelled:
            threading.Event().wait(0.005)
        control.query_control.check_cancelled("the query")

    lane = workers.lane("side")
    handle = lane.submit(job, tag=Tag("distance"), on_result=seen.on_result,
                         on_error=seen.on_error, budget=Budget(seconds=60.0))
    assert started.wait(WAIT / 1000)
    handle.cancel()
    qtbot.waitUntil(lambda: bool(seen.errors), timeout=WAIT)
    error = seen.errors[0][0]
    assert not isinstance(error, JobBudgetExceeded)
    assert "cancelled" in str(error)


def test_a_finished_job_under_a_time_budget_keeps_its_result(qtbot, workers):
    seen = Collect()
    workers.lane("side").submit(lambda control: 7, tag=Tag("distance"),
                                on_result=seen.on_result, on_error=seen.on_error,
                                budget=Budget(seconds=60.0))
    qtbot.waitUntil(lambda: bool(seen.results), timeout=WAIT)
    assert seen.results[0][0] == 7 and not seen.errors


def test_an_exception_goes_to_on_error_without_its_traceback(qtbot, workers):
    seen = Collect()

    def job(_control):
        raise ValueError("bad input")

    workers.lane("session").submit(job, tag=Tag("session"), on_result=seen.on_result,
                                   on_error=seen.on_error)
    qtbot.waitUntil(lambda: bool(seen.errors), timeout=WAIT)
    error, tag = seen.errors[0]
    assert isinstance(error, ValueError) and str(error) == "bad input"
    assert error.__traceback__ is None
    assert tag == Tag("session") and seen.threads == [threading.main_thread()]


def test_an_error_with_no_on_error_goes_to_the_fallback(qtbot):
    caught = []
    made = Workers(on_unhandled=lambda exc, job: caught.append((str(exc), job.tag.what)))
    made.lane("x").submit(lambda _c: 1 / 0, tag=Tag("experiment"), on_result=print)
    qtbot.waitUntil(lambda: bool(caught), timeout=WAIT)
    made.shutdown()
    assert caught == [("division by zero", "experiment")]


def test_inline_mode_calls_back_before_submit_returns(qtbot):
    made = Workers(inline=True)
    seen = Collect()
    ran_on = []

    def job(control, x):
        ran_on.append(threading.current_thread())
        control.progress(3, 4)
        return x + 1

    handle = made.lane("frames", coalesce=True).submit(
        job, 1, tag=Tag("frame", 0), on_result=seen.on_result, on_progress=seen.on_progress)
    assert seen.results == [(2, Tag("frame", 0))]
    assert seen.progress == [(3, 4, "")]
    assert ran_on == [threading.main_thread()]
    assert handle.is_done and not made.lanes["frames"].is_busy
    made.lane("frames").submit(lambda _c: 1 / 0, tag=Tag("frame", 1), on_result=seen.on_result,
                               on_error=seen.on_error)
    assert isinstance(seen.errors[0][0], ZeroDivisionError)


def test_shutdown_refuses_later_submits_quietly_and_drops_late_results(qtbot):
    made = Workers()
    seen = Collect()
    started, release = threading.Event(), threading.Event()

    def job(_control):
        started.set()
        release.wait()
        return "late"

    lane = made.lane("autosave")
    lane.submit(job, tag=Tag("autosave"), on_result=seen.on_result, on_error=seen.on_error)
    assert started.wait(WAIT / 1000)
    release.set()  # the job ends (ignoring its cancel) and emits its result...
    made.shutdown(wait=True)  # ...which is still queued for the GUI thread here
    refused = lane.submit(lambda _c: "after", tag=Tag("autosave"), on_result=seen.on_result,
                          on_error=seen.on_error)
    assert refused.is_refused
    QCoreApplication.processEvents()  # the queued result arrives now: it must be dropped
    assert seen.results == [] and seen.errors == []
    assert not lane.is_busy


def test_tag_says_when_a_result_is_late_or_stale():
    tag = Tag("distance", frame_index=4, generation=1, inputs=("aabb",))
    assert tag.late_text(4) == ""
    assert tag.late_text(6) == "from frame 4"
    assert not tag.is_stale(Tag("distance", 6, 1, ("aabb",)))
    assert tag.is_stale(Tag("distance", 6, 2, ("aabb",)))
    assert tag.is_stale(Tag("distance", 6, 1, ("obb",)))


def test_a_lane_stopped_alone_lets_its_running_job_finish_and_refuses_later_ones(qtbot,
                                                                                   workers):
    seen = Collect()
    started, release = threading.Event(), threading.Event()
    finished = []

    def job(_control):  # takes no cancel, like a save that must complete
        started.set()
        release.wait()
        finished.append(True)
        return "saved"

    lane = workers.lane("autosave")
    lane.submit(job, tag=Tag("autosave"), on_result=seen.on_result)
    assert started.wait(WAIT / 1000)
    release.set()
    lane.shutdown(wait=True)
    assert finished == [True]  # waited for
    assert lane.submit(lambda _c: 1, tag=Tag("autosave"), on_result=seen.on_result).is_refused
    qtbot.waitUntil(lambda: bool(seen.results), timeout=WAIT)  # still delivered
    assert seen.results == [("saved", Tag("autosave"))]
    other = workers.lane("files")
    other.submit(lambda _c: "other", tag=Tag("file"), on_result=seen.on_result)
    qtbot.waitUntil(lambda: len(seen.results) == 2, timeout=WAIT)  # the others go on


def test_a_job_may_run_inline_on_a_threaded_lane(qtbot, workers):
    seen = Collect()
    handle = workers.lane("inspect").submit(lambda _c: 5, tag=Tag("invariant check"),
                                            on_result=seen.on_result, inline=True)
    assert handle.is_inline and seen.results == [(5, Tag("invariant check"))]
    assert not workers.lane("inspect").is_busy


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own niceness is "
                    "a Linux notion")
def test_a_lane_beside_the_frames_runs_below_the_gui_threads_priority(qtbot, workers):
    seen = Collect()

    def niceness(control):
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    own = os.getpriority(os.PRIO_PROCESS, 0)
    workers.lane("beside", nice=BESIDE_FRAME_NICE).submit(
        niceness, tag=Tag("beside"), on_result=seen.on_result)
    workers.lane("frame").submit(niceness, tag=Tag("frame"), on_result=seen.on_result)
    qtbot.waitUntil(lambda: len(seen.results) == 2, timeout=WAIT)
    by_lane = {tag.what: value for value, tag in seen.results}
    assert by_lane == {"beside": min(19, own + BESIDE_FRAME_NICE), "frame": own}
    assert os.getpriority(os.PRIO_PROCESS, 0) == own  # the GUI thread keeps its own


def test_the_controllers_analysis_lanes_run_beside_the_frames_and_the_frame_lane_does_not():
    from tests.viewer.helpers import windowless_controller

    _model, controller = windowless_controller(is_threaded=True)
    lanes = controller.workers.lanes
    assert lanes["frame"].nice == 0
    for name in ("side", "heat", "ghost", "cross-check"):
        assert lanes[name].nice == BESIDE_FRAME_NICE, name
    controller.shutdown()


def test_threaded_workers_shorten_the_interpreters_switch_interval_and_keep_a_shorter_one(qtbot):
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        Workers(inline=True).shutdown()
        assert sys.getswitchinterval() == pytest.approx(0.005, abs=1e-6)  # no thread, no change
        Workers().shutdown()
        assert sys.getswitchinterval() == pytest.approx(GIL_SWITCH_INTERVAL_S, abs=1e-6)
        sys.setswitchinterval(0.0002)
        shorter = sys.getswitchinterval()  # as the interpreter keeps it (whole microseconds)
        Workers().shutdown()
        assert sys.getswitchinterval() == shorter
    finally:
        sys.setswitchinterval(before)
