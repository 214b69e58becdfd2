"""The Stats dock's cost model: T = Nu·Cu + Nbv·Cbv + Np·Cp for the shown frame, its counts
the frame's own, unit costs measured in the background once per kind."""

from __future__ import annotations

import pytest

from core.costmodel import frame_counts

MEASURE_TIMEOUT_MS = 120_000


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
        window.model.set_cost_view(dataclasses.replace(slow))
        assert PLAYING_NOTE in panel.cost_total.text()
        window.model.set_cost_view(dataclasses.replace(  # a frame the model predicts well
            view, measured_ms=view.prediction.total_ms))
        assert PLAYING_NOTE not in panel.cost_total.text()
    finally:
        window.model.is_playing = False
