"""The Stats dock's cost model: T = Nu·Cu + Nbv·Cbv + Np·Cp for the shown frame, its counts
the frame's own, unit costs measured in the background once per kind."""

from __future__ import annotations

import pytest

from core.lab.costmodel import frame_counts

MEASURE_TIMEOUT_MS = 120_000


@pytest.fixture(autouse=True)
def unit_costs_not_yet_measured():
    """Each test starts as the first window of a process: no kind's unit costs measured."""
    from viewer.control import costs

    costs._MEASURED_IN_THIS_PROCESS.clear()


def _cells(panel):
    table = panel.cost_table
    return [[table.item(r, c).text() for c in range(table.columnCount())]
            for r in range(table.rowCount())]


def _wait_for_prediction(qtbot, window):
    qtbot.waitUntil(lambda: window.model.cost_view is not None
                    and window.model.cost_view.prediction is not None
                    and window.model.cost_view.frame is window.model.frame,
                    timeout=MEASURE_TIMEOUT_MS)


def test_cost_table_counts_are_the_frames_and_shares_add_to_100(qtbot, window):
    panel = window.docks["stats_dock"].panel
    _wait_for_prediction(qtbot, window)
    frame = window.model.frame
    rows = _cells(panel)
    assert [r[0] for r in rows] == ["volume updates", "volume tests", "triangle tests"]
    counts = [int(r[1].replace(",", "")) for r in rows]
    assert counts == list(frame_counts(frame))
    assert counts[1] > 0  # two touching spheres: the traversal tested volumes
    shares = [float(r[4].rstrip(" %")) for r in rows]
    assert sum(shares) == pytest.approx(100.0, abs=0.15)
    view = window.model.cost_view
    assert f"{view.prediction.total_ms:.3f} ms" in panel.cost_total.text()
    assert f"{view.measured_ms:.3f} ms" in panel.cost_total.text()
    assert "boxes" in panel.cost_title.text()


def test_a_new_kind_is_measured_in_the_background_then_shown(qtbot, window):
    _wait_for_prediction(qtbot, window)
    views = []
    window.model.cost_model_changed.connect(views.append)
    window.model.set_pipeline(bv="sphere")
    qtbot.waitUntil(lambda: bool(views) and views[-1] is not None
                    and views[-1].prediction is not None and "sphere" in views[-1].kind_label,
                    timeout=MEASURE_TIMEOUT_MS)
    waiting = [v for v in views if v is not None and v.prediction is None]
    assert waiting and waiting[0].status.startswith("Measuring unit costs of spheres")
    panel = window.docks["stats_dock"].panel
    counts = [int(r[1].replace(",", "")) for r in _cells(panel)]
    assert counts == list(frame_counts(window.model.frame))
    # Kept for the session: going back to boxes needs no second measurement.
    before = len(views)
    window.model.set_pipeline(bv=window.model.pipeline.__class__().bv)
    qtbot.waitUntil(lambda: len(views) > before and "boxes" in views[-1].kind_label,
                    timeout=60_000)
    assert all(v.prediction is not None for v in views[before:] if "boxes" in v.kind_label)


def test_a_second_window_reuses_the_unit_costs_the_first_measured(qtbot, window, make_window):
    _wait_for_prediction(qtbot, window)
    first = window.controller.costs.unit_costs_of("aabb")
    views = []
    second = make_window()
    second.model.cost_model_changed.connect(views.append)
    assert second.controller.costs.unit_costs_of("aabb") is first
    second.controller.frames.request_frame()
    qtbot.waitUntil(lambda: bool(views) and views[-1] is not None
                    and views[-1].frame is second.model.frame, timeout=60_000)
    # Never "Measuring unit costs of boxes…": the machine's costs were known already.
    assert all(v.prediction is not None for v in views if v is not None)
    assert second.model.cost_view.prediction is not None


def test_a_recorded_frame_shows_its_own_cost_model(qtbot, window):
    _wait_for_prediction(qtbot, window)
    for _ in range(3):
        window.controller.animation.step_time(1 / 30)
        qtbot.waitUntil(lambda: not window.controller.frames.is_busy, timeout=60_000)
    assert len(window.model.recording) >= 2
    window.controller.recorder.scrub_to(0)
    recorded = window.model.frame
    assert recorded is not window.model.live_frame
    _wait_for_prediction(qtbot, window)
    panel = window.docks["stats_dock"].panel
    counts = [int(r[1].replace(",", "")) for r in _cells(panel)]
    assert counts == list(frame_counts(recorded))


def test_a_slow_frame_while_playing_says_drawing_shares_the_cores(qtbot, window):
    import dataclasses

    from viewer.qt.panels.stats import PLAYING_NOTE

    _wait_for_prediction(qtbot, window)
    panel = window.docks["stats_dock"].panel
    # While playing, a dock behind another tab is not refreshed (issue 25): the Stats tab up.
    window.docks["stats_dock"].raise_()
    qtbot.waitUntil(panel.cost_refresh.is_seen)
    view = window.model.cost_view
    slow = dataclasses.replace(view, measured_ms=10 * view.prediction.total_ms)
    window.model.set_cost_view(slow)
    assert PLAYING_NOTE not in panel.cost_total.text()  # paused: only the ratio
    window.model.is_playing = True  # as the animation sets it, without running frames
    try:
        # A dock on screen refreshes at most ten times a second while playing: each view is
        # read once its refresh has run.
        window.model.set_cost_view(dataclasses.replace(slow))
        qtbot.waitUntil(lambda: not panel.cost_refresh.is_waiting, timeout=5_000)
        assert PLAYING_NOTE in panel.cost_total.text()
        window.model.set_cost_view(dataclasses.replace(  # a frame the model predicts well
            view, measured_ms=view.prediction.total_ms))
        qtbot.waitUntil(lambda: not panel.cost_refresh.is_waiting, timeout=5_000)
        assert PLAYING_NOTE not in panel.cost_total.text()
    finally:
        window.model.is_playing = False


def _frame(refitted, rebuilt, timings, n_nodes=(101, 99), n_bv=500, n_tri=40):
    from types import SimpleNamespace

    counters = SimpleNamespace(n_bv_tests=n_bv, n_tri_tests=n_tri)
    return SimpleNamespace(
        trees=[SimpleNamespace(n_nodes=n) for n in n_nodes], refitted=list(refitted),
        rebuilt=list(rebuilt), result=SimpleNamespace(counters=counters), self_results=None,
        timings=dict(timings))


def test_measured_and_predicted_cover_the_same_phases():
    """With OBB the dock said measured / predicted = 102: the fit of unchanged trees was
    timed but no term of the model counts it. Now it is left out of the measured time and
    named; a refitted frame counts its update and fit on both sides."""
    from viewer.control.costs import measured_ms, modelled_counts

    timings = {"update": 0.00001, "fit": 0.050, "traverse": 0.0002, "tritri": 0.0003}
    rigid = _frame([False, False], [False, False], timings)
    ms, note, phases = measured_ms(rigid)
    assert modelled_counts(rigid)[0] == 0
    assert ms == pytest.approx(0.5)
    assert phases == "traversal and triangle tests"
    assert "volume fit (50.00 ms) of trees not refitted this frame" in note

    deformed = _frame([True, False], [False, False], timings)
    ms, note, phases = measured_ms(deformed)
    assert modelled_counts(deformed)[0] == 101
    assert ms == pytest.approx(50.51) and note == ""
    assert phases == "volume updates and fit, traversal and triangle tests"

    built = _frame([True, False], [False, True], {**timings, "update": 0.2})
    ms, note, phases = measured_ms(built)
    assert modelled_counts(built)[0] == 0  # the build is no update: neither side counts it
    assert ms == pytest.approx(0.5) and "a tree was built" in note and "fit" in note


def test_the_dock_says_which_phases_both_sides_cover(qtbot, window):
    _wait_for_prediction(qtbot, window)
    panel = window.docks["stats_dock"].panel
    view = window.model.cost_view
    assert f"both cover the {view.measured_phases} of this frame" in panel.cost_total.text()


def test_the_first_frame_of_a_kind_says_it_loaded_the_kernels(qtbot, window):
    """The first OBB frame measured 99 ms of traversal and triangle tests against 0.9 ms in
    the next (its kernels were loaded in it): the dock says so for that frame only."""
    _wait_for_prediction(qtbot, window)
    window.model.set_pipeline(bv="sphere")
    qtbot.waitUntil(lambda: window.model.cost_view is not None
                    and window.model.cost_view.prediction is not None
                    and "sphere" in window.model.cost_view.kind_label, timeout=MEASURE_TIMEOUT_MS)
    first = window.model.cost_view
    panel = window.docks["stats_dock"].panel
    assert "first frame with spheres this session" in first.measured_note
    assert "first frame with spheres" in panel.cost_total.text()
    window.controller.animation.step_time(1 / 30)
    qtbot.waitUntil(lambda: window.model.cost_view is not None
                    and window.model.cost_view.frame is not first.frame
                    and window.model.cost_view.prediction is not None, timeout=60_000)
    assert "first frame" not in window.model.cost_view.measured_note
