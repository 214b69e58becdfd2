"""Analyses beside the frames take at most their share of the time while playing
(:class:`viewer.control.pacing.PlayingPace`), and run at once when paused."""

from __future__ import annotations

import contextlib

import pytest

from viewer.control.pacing import PLAYING_SHARE, PlayingPace


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def make_pace(qapp, **kwargs):
    clock = FakeClock()
    retries = []
    pace = PlayingPace(lambda: retries.append(clock.now), clock=clock, **kwargs)
    return pace, clock, retries


def test_the_next_run_waits_for_its_share_of_the_time_while_playing(qapp):
    pace, clock, _retries = make_pace(qapp, share=0.25)
    assert not pace.must_wait(True)  # nothing ran yet
    pace.start()
    clock.now += 0.5
    pace.finish()
    assert pace.seconds == pytest.approx(0.5)
    # 0.5 s of work at a quarter of the time: the next start 2 s after the last one.
    assert pace.wait_s() == pytest.approx(1.5)
    assert pace.must_wait(True)
    assert pace.timer.isActive()
    assert pace.timer.interval() == 1501  # ms, rounded up
    clock.now += 1.5
    assert not pace.must_wait(True)
    pace.stop()


def test_paused_a_run_starts_at_once(qapp):
    pace, clock, _retries = make_pace(qapp)
    pace.start()
    pace.finish(3.0)
    assert pace.wait_s() > 0
    assert not pace.must_wait(False)
    assert not pace.timer.isActive()


def test_a_run_still_going_counts_as_long_as_it_has_gone(qapp):
    busy = [True]
    pace, clock, _retries = make_pace(qapp, is_busy=lambda: busy[0])
    pace.start()
    clock.now += 1.0
    # A second of work so far, not finished: 1 / share - 1 s more before the next start.
    assert pace.wait_s() == pytest.approx(1.0 / PLAYING_SHARE - 1.0)
    busy[0] = False  # its result never came (a cancelled job): the last finished run counts
    assert pace.wait_s() < 0


def test_a_least_interval_holds_for_quick_runs(qapp):
    pace, clock, _retries = make_pace(qapp, min_interval_s=1.0)
    pace.start()
    pace.finish(0.01)
    clock.now += 0.5
    assert pace.wait_s() == pytest.approx(0.5)


def test_one_timer_however_often_asked_and_it_asks_again(qtbot, qapp):
    pace, clock, retries = make_pace(qapp, share=1.0)
    pace.start()
    pace.finish(0.05)
    for _ in range(5):
        assert pace.must_wait(True)
    qtbot.waitUntil(lambda: len(retries) == 1, timeout=2_000)
    qtbot.wait(100)
    assert len(retries) == 1


@pytest.mark.parametrize("share", [0.0, -0.5, 1.5])
def test_a_share_outside_0_to_1_is_refused(qapp, share):
    with pytest.raises(ValueError, match="share must be in"):
        PlayingPace(lambda: None, share=share)


def test_while_playing_the_ghost_waits_for_its_pace_and_builds_when_paused(qtbot, window):
    from tests.viewer.conftest import settle

    model, analysis = window.model, window.controller.analysis
    model.set_display(show_ghost=True)
    qtbot.waitUntil(lambda: analysis.ghost_view() is not None, timeout=60_000)
    settle(qtbot, window)
    built = analysis.ghost_view().frame
    with _playing_a_frame_after_a_long_run(qtbot, window, analysis.ghost_pace, built):
        assert not analysis.is_ghost_building
        assert analysis.ghost_view().frame is built  # the older ghost, marked with its frame
        assert analysis.ghost_pace.timer.isActive()
    # Paused: the shown frame's ghost is built at once.
    qtbot.waitUntil(lambda: analysis.ghost_view().frame is model.frame, timeout=60_000)
    assert not analysis.ghost_pace.timer.isActive()


def test_while_playing_the_heat_counted_beside_the_frames_waits_for_its_pace(qtbot, window):
    from tests.viewer.conftest import settle

    model, analysis = window.model, window.controller.analysis
    model.set_display(heat_map="work")
    settle(qtbot, window)
    frame = model.frame
    # As if counting took 50 ms (past the inline limit: counted on the heat lane).
    model.set_analysis_cost("heat", 50.0, frame.index)
    with _playing_a_frame_after_a_long_run(qtbot, window, analysis.heat_pace, frame):
        heat, note = analysis.heat_for(model.frame)
        assert heat is None or "from frame" in note
        assert analysis.heat_pace.timer.isActive()
        assert not analysis._heat_lane.is_busy
    # Paused: the shown frame's heat is counted at once.
    qtbot.waitUntil(lambda: analysis.heat_for(model.frame)[0] is not None
                    and "from frame" not in analysis.heat_for(model.frame)[1],
                    timeout=60_000)


@contextlib.contextmanager
def _playing_a_frame_after_a_long_run(qtbot, window, pace, shown):
    """As if ``pace``'s last run had just started and taken 2 s: play until a frame newer
    than ``shown`` is delivered; paused again on leaving."""
    pace.start()
    pace.finish(2.0)
    window.model.is_playing = True
    try:
        window.controller.frames.request_frame()
        qtbot.waitUntil(lambda: window.model.frame is not shown, timeout=60_000)
        yield
    finally:
        window.model.set_playing(False)
