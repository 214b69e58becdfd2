"""What keeps the GUI thread free: one render per event-loop turn however many results ask
for one, drawn in two turns (overlays, then render) with timers let in between, built-in
scenes prepared on a worker lane (the newest asked for wins), and the ghost saying when the
box cap leaves boxes out."""

from __future__ import annotations

import threading
import time

from PyQt6.QtCore import QElapsedTimer, QTimer
from PyQt6.QtWidgets import QApplication

from tests.viewer.conftest import settle, wait_scene
from viewer.control import scenes


def test_a_frame_and_an_analysis_arriving_together_render_once(qtbot, window):
    model = window.model
    # Playing (the state only: no clock, so no other frame comes): results stream in.
    model.is_playing = True
    before = window.plotter.n_renders
    # A frame, the ghost and a side result finishing in the same turn of the event loop.
    model.frame_ready.emit(model.frame)
    model.analysis_changed.emit()
    model.side_changed.emit(model.side)
    qtbot.waitUntil(lambda: not window.is_redraw_pending, timeout=10_000)
    QApplication.processEvents()
    assert window.plotter.n_renders == before + 1
    model.is_playing = False


def test_a_requested_redraw_copies_the_overlays_and_renders_in_two_turns(qtbot, window):
    """Timers that came due while the overlays were copied run before the render (the
    heartbeat of the interactive benchmark, a drag's events), and a redraw asked for during
    the render waits behind them too."""
    model = window.model
    model.is_playing = True
    try:
        order = []
        window.renderer.update_frame = _logged(window.renderer.update_frame, order, "overlays")
        window.plotter.render = _logged(window.plotter.render, order, "render")
        slow_overlays = window.renderer.update_frame

        def overlays_taking_30_ms(*args, **kwargs):
            deadline = time.perf_counter() + 0.03
            result = slow_overlays(*args, **kwargs)
            while time.perf_counter() < deadline:
                pass
            return result

        window.renderer.update_frame = overlays_taking_30_ms
        due = QTimer(singleShot=True, interval=5, timeout=lambda: order.append("timer"))
        due.start()
        clock = QElapsedTimer()
        clock.start()
        window.request_redraw()
        while clock.elapsed() < 2:  # the timer is due before the redraw's turn comes
            pass
        qtbot.waitUntil(lambda: not window.is_redraw_pending, timeout=10_000)
        assert order == ["overlays", "timer", "render"]

        # A newer frame asks for a redraw, then the render of the older one runs long: the
        # newer frame's overlays wait behind a timer that came due during that render.
        order.clear()
        render = window.plotter.render

        def long_render(*args, **kwargs):
            window.request_redraw()
            due.start(1)
            deadline = time.perf_counter() + 0.03
            while time.perf_counter() < deadline:
                pass
            return render(*args, **kwargs)

        window.plotter.render = long_render
        window.request_redraw()
        qtbot.waitUntil(lambda: order.count("render") >= 1, timeout=10_000)
        window.plotter.render = render
        qtbot.waitUntil(lambda: not window.is_redraw_pending, timeout=10_000)
        assert order[:4] == ["overlays", "render", "timer", "overlays"]
    finally:
        model.is_playing = False


def test_a_finished_frame_is_delivered_after_the_timers_that_came_due(qtbot, window):
    """The frame lane's result is a queued signal, which Qt handled ahead of due timers: a
    frame finishing during a render was delivered right after it, in one GUI block."""
    order = []
    model = window.model
    set_frame = model.set_frame

    def delivered(frame, *args, **kwargs):
        order.append("delivered")
        return set_frame(frame, *args, **kwargs)

    model.set_frame = delivered
    try:
        frames = window.controller.frames
        due = QTimer(singleShot=True, interval=1, timeout=lambda: order.append("timer"))
        frames.request_frame()
        due.start()
        # The GUI thread busy (a render): the frame finishes on its lane meanwhile, and the
        # timer comes due.
        deadline = time.perf_counter() + 0.5
        while time.perf_counter() < deadline:
            pass
        qtbot.waitUntil(lambda: "delivered" in order, timeout=10_000)
        assert order[:2] == ["timer", "delivered"]
        assert not frames.is_frame_running
    finally:
        model.set_frame = set_frame


def test_a_paused_change_puts_the_overlays_in_place_and_renders_in_the_next_turn(qtbot,
                                                                                 window):
    model = window.model
    assert not model.is_playing
    model.set_level(6)  # a level with culled pairs
    settle(qtbot, window)
    before = window.plotter.n_renders
    model.set_display(show_culled=True)
    # The handler returned with the overlays in place, the render still to come.
    assert window.renderer.cell_count("culled") > 0
    assert window.is_redraw_pending and window.plotter.n_renders == before
    qtbot.waitUntil(lambda: not window.is_redraw_pending, timeout=10_000)
    assert window.plotter.n_renders == before + 1
    # An export grabs what is drawn: finish_redraw renders a waiting one at once.
    model.set_display(show_culled=False)
    window.finish_redraw()
    assert not window.is_redraw_pending and window.plotter.n_renders == before + 2


def _logged(fn, order, name):
    def logged(*args, **kwargs):
        order.append(name)
        return fn(*args, **kwargs)
    return logged


def test_a_direct_redraw_draws_a_pending_request(qtbot, window):
    before = window.plotter.n_renders
    window.request_redraw()
    window.request_redraw()
    window.redraw()  # a screenshot's or a user change's redraw: the request is drawn by it
    assert not window.is_redraw_pending
    QApplication.processEvents()
    assert window.plotter.n_renders == before + 1


def test_scenes_load_off_the_gui_thread_and_the_newest_wins(qtbot, window, monkeypatch):
    model, controller = window.model, window.controller
    prepare = scenes.prepare_scene_meshes
    gate = threading.Event()
    runs = []  # (scene title, thread) of each preparation that started

    def held(control, spec):
        runs.append((spec.title, threading.current_thread()))
        if len(runs) == 1:
            gate.wait(60)  # the first scene is still being prepared when the next is asked
        return prepare(control, spec)

    monkeypatch.setattr(scenes, "prepare_scene_meshes", held)
    shown = []
    model.scene_changed.connect(lambda: shown.append(model.scene_key))
    assert controller.scenes.load_scene("linked-tori")
    qtbot.waitUntil(lambda: len(runs) == 1, timeout=10_000)
    # The old scene stays until the new one is ready.
    assert model.scene_key == "two-spheres" and controller.scenes.is_scene_loading
    assert controller.scenes.load_scene("concentric-spheres")
    gate.set()
    wait_scene(qtbot, window)
    settle(qtbot, window)
    assert model.scene_key == "concentric-spheres"
    assert shown == ["concentric-spheres"]  # the older request never replaced the scene
    assert runs and all(thread is not threading.main_thread() for _title, thread in runs)
    assert window.model.frame is not None and len(window.model.frame.meshes) == 2


def test_a_file_opened_meanwhile_wins_over_a_pending_scene(qtbot, window, monkeypatch,
                                                           tmp_path):
    model, controller = window.model, window.controller
    prepare = scenes.prepare_scene_meshes
    gate = threading.Event()

    def held(control, spec):
        gate.wait(60)
        return prepare(control, spec)

    monkeypatch.setattr(scenes, "prepare_scene_meshes", held)
    path = tmp_path / "tetra.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n")
    assert controller.scenes.load_scene("linked-tori")
    assert controller.files.load_files([str(path), str(path)])
    gate.set()
    wait_scene(qtbot, window)
    settle(qtbot, window)
    assert model.scene_key is None and model.scene_title == "tetra, tetra"


def test_the_ghost_says_how_many_boxes_the_cap_left_out(qtbot, window):
    model = window.model
    model.set_level(None)  # every level: the trees' whole node lists
    model.set_display(box_cap=3)
    window.ghost_action.trigger()  # G
    qtbot.waitUntil(lambda: window.controller.analysis.ghost_view() is not None, timeout=60_000)
    settle(qtbot, window)
    window.redraw()
    ghost = window.controller.analysis.ghost_view()
    total = sum(len(tree.level_nodes) for tree in ghost.trees[:2])
    assert total > 6
    assert (f"drawing 6 of {total:,} ghost boxes (the box cap; pick a level to see the rest)"
            in window.renderer.legend_texts)
    # Past the box cap, the drawing budget: every level with the ghost's dashes is planned
    # past it, and the ghost keeps as many boxes per tree as the trees' layers.
    model.set_display(box_cap=100_000)
    window.redraw()
    kept = window.renderer.last_overlays.plan.tree_kept
    assert kept is not None
    drawn = sum(min(kept, len(tree.level_nodes)) for tree in ghost.trees[:2])
    budget_ms = round(1e3 * window.renderer.render_budget_s)
    assert (f"drawing {drawn:,} of {total:,} ghost boxes (drawing budget {budget_ms} ms)"
            in window.renderer.legend_texts)
    # A drawing budget this view cannot reach: only the box cap could leave boxes out.
    window.renderer.render_budget_s = 10.0
    window.redraw()
    assert not any(text.startswith("drawing") for text in window.renderer.legend_texts)


def test_a_histogram_is_drawn_again_only_when_its_counts_change(qtbot):
    import numpy as np

    from viewer.qt.panels.quality import HistogramCanvas

    chart = HistogramCanvas("depths", "depth", "nodes")
    qtbot.addWidget(chart)
    chart.show_counts(np.array([1, 2, 4]))
    n = chart.n_draws
    chart.show_counts(np.array([1, 2, 4]))  # a refit: the same tree shape
    assert chart.n_draws == n
    chart.show_counts(np.array([1, 2, 4, 8]))
    assert chart.n_draws == n + 1 and list(chart.counts) == [1, 2, 4, 8]
