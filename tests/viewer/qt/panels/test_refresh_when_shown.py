"""Docks that cannot be seen are not refreshed on each frame while playing (they catch up
when shown or paused), docks on screen at most ten times a second while playing (the
status bar's times and recording summary and the timeline too), and the per-frame tables
rewrite their items in place."""

from __future__ import annotations

import time

from PyQt6.QtWidgets import QApplication

from tests.viewer.conftest import settle
from viewer.qt.panels.common import PLAYING_REFRESH_S


def _panel(window, name):
    return window.docks[name].panel


def _frames(window, n):
    """``n`` frames delivered as the controller delivers them (the animation timer stays
    off: the model says it plays, so the panels behave as while playing)."""
    for _ in range(n):
        window.model.frame_ready.emit(window.model.frame)


def test_a_hidden_dock_is_not_refreshed_while_playing_and_catches_up_when_shown(window, qtbot):
    window.docks["levels_dock"].raise_()
    QApplication.processEvents()
    for name in ("stats_dock", "outliner_dock"):
        panel = _panel(window, name)
        spy = panel.frame_refresh
        assert not spy.is_seen()  # behind the Levels tab
        before = spy.n_refreshes
        window.model.is_playing = True  # no signal: no animation timer, no frame of its own
        _frames(window, 3)
        assert spy.n_refreshes == before and spy.is_waiting
        window.docks[name].raise_()
        qtbot.waitUntil(lambda s=spy: s.is_seen())
        assert spy.n_refreshes == before + 1 and not spy.is_waiting  # once, the newest frame
        _frames(window, 2)  # shown, within the interval: the newest waits for its end
        assert spy.n_refreshes == before + 1 and spy.is_waiting
        qtbot.waitUntil(lambda s=spy: not s.is_waiting, timeout=5_000)
        assert spy.n_refreshes == before + 2  # two frames, one refresh: the newest
        time.sleep(PLAYING_REFRESH_S)
        _frames(window, 1)  # an interval after the last refresh: at once
        assert spy.n_refreshes == before + 3 and not spy.is_waiting
        window.model.is_playing = False
        window.docks["levels_dock"].raise_()
        QApplication.processEvents()


def test_the_stats_dock_behind_a_tab_skips_each_redraws_times_while_playing(window):
    window.docks["levels_dock"].raise_()
    QApplication.processEvents()
    spy = _panel(window, "stats_dock").timings_refresh
    before = spy.n_refreshes
    window.model.is_playing = True
    try:
        for _ in range(3):
            window.redraw()  # each redraw reports its overlay and render times
        assert spy.n_refreshes == before and spy.is_waiting
    finally:
        window.model.set_playing(False)
    assert spy.n_refreshes == before + 1 and not spy.is_waiting  # caught up once, paused


def test_while_playing_the_status_bar_and_timeline_follow_at_most_ten_times_a_second(window):
    timing_label = window.status_line.timing_label
    timings, recording = window._timings_refresh, window._recording_refresh
    timeline = window.timeline.recording_refresh
    window.model.is_playing = True
    try:
        time.sleep(PLAYING_REFRESH_S)
        spies = (timings, recording, timeline)
        before = [spy.n_refreshes for spy in spies]
        for _ in range(3):
            window.redraw()  # shows the frame's times in the status bar
            window.model.recording_changed.emit()
        # The first of each at once, the two after it wait for the interval's end.
        assert [spy.n_refreshes for spy in spies] == [n + 1 for n in before]
        assert all(spy.is_waiting for spy in spies)
        text = timing_label.text()
        assert text.startswith("contacts ")
    finally:
        window.model.set_playing(False)
    assert not any(spy.is_waiting for spy in spies)
    assert timing_label.text().startswith("contacts ")


def test_paused_a_hidden_dock_is_refreshed_at_once(window):
    window.docks["levels_dock"].raise_()
    QApplication.processEvents()
    panel = _panel(window, "stats_dock")
    assert not panel.frame_refresh.is_seen() and not window.model.is_playing
    before = panel.frame_refresh.n_refreshes
    _frames(window, 2)
    assert panel.frame_refresh.n_refreshes == before + 2


def test_pausing_refreshes_the_docks_skipped_while_playing(window):
    window.docks["levels_dock"].raise_()
    QApplication.processEvents()
    panel = _panel(window, "stats_dock")
    window.model.set_playing(True)
    window.model.frame_ready.emit(window.model.frame)
    assert panel.frame_refresh.is_waiting
    before = panel.frame_refresh.n_refreshes
    window.model.set_playing(False)
    assert panel.frame_refresh.n_refreshes == before + 1 and not panel.frame_refresh.is_waiting


def test_stats_tables_keep_their_items_from_frame_to_frame(window, qtbot):
    window.docks["stats_dock"].raise_()
    panel = _panel(window, "stats_dock")
    qtbot.waitUntil(panel.frame_refresh.is_seen)
    window.controller.animation.step_time(1 / 30)
    settle(qtbot, window)
    tables = [t for t in (panel.table, panel.cost_table) if t.rowCount()]
    assert panel.table in tables
    items = {id(t): [t.item(r, c) for r in range(t.rowCount()) for c in range(t.columnCount())]
             for t in tables}
    window.controller.animation.step_time(1 / 30)
    settle(qtbot, window)
    for table in tables:
        now = [table.item(r, c) for r in range(table.rowCount())
               for c in range(table.columnCount())]
        assert len(now) == len(items[id(table)])
        assert all(a is b for a, b in zip(now, items[id(table)]))  # the same objects


def test_quality_worst_nodes_keep_their_items_when_measured_again(window, qtbot):
    dock = window.docks["quality_dock"]
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: window.model.quality is not None
                    and window.model.quality.frame is window.model.frame, timeout=120_000)
    panel = dock.panel
    table = panel.worst
    before = [table.item(r, c) for r in range(table.rowCount())
              for c in range(table.columnCount())]
    assert before and all(item is not None for item in before)
    panel.traversal_cost.setValue(2.5)  # the same tree measured again
    qtbot.waitUntil(lambda: window.model.quality.quality.constants.traversal == 2.5,
                    timeout=60_000)
    QApplication.processEvents()
    after = [table.item(r, c) for r in range(table.rowCount())
             for c in range(table.columnCount())]
    assert len(after) == len(before)
    assert {id(item) for item in after} == {id(item) for item in before}  # the same objects
