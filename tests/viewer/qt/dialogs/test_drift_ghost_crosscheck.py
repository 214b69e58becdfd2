"""Drift made visible (the plot over a recording, the ghost of a fresh tree) and the
cross-engine check, driven through the window's menus."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6.QtCore import QPoint, Qt
from PyQt6.QtWidgets import QApplication

from core.bvh.build import build_tree
from core.bvh.quality import sah_cost
from tests.viewer.conftest import settle
from viewer.qt.main_window import CROSSCHECK_KEY, DRIFT_KEY
from viewer.state.pipeline import UpdateChoice


def _deform_frames(qtbot, window, n: int) -> None:
    for _ in range(n):
        window.controller.animation.step_time(1 / 10)
        settle(qtbot, window)


def test_ghost_draws_a_fresh_tree_and_both_sah(qtbot, make_window):
    window = make_window("spot-twist-torus")
    _deform_frames(qtbot, window, 4)  # twisted: the refitted tree of the cow has drifted
    window.model.set_level(4)
    window.ghost_action.trigger()  # G
    assert window.model.display.show_ghost
    assert window.docks["levels_dock"].panel.ghost_check.isChecked()
    qtbot.waitUntil(lambda: window.controller.analysis.ghost_view() is not None, timeout=60_000)
    QApplication.processEvents()
    frame = window.model.frame
    ghost = window.controller.analysis.ghost_view()
    fresh = [build_tree(m, t.split, t.leaf_size) for m, t in zip(frame.meshes, frame.trees)]
    for tree, built in zip(ghost.trees, fresh):
        assert np.array_equal(tree.bmin, built.bmin) and np.array_equal(tree.count, built.count)
    n_boxes = sum(len(t.nodes_at_depth(min(4, t.max_depth))) for t in fresh)
    # AABB volumes: 12 edges a box, each drawn as 4 dashes.
    assert window.renderer.cell_count("ghost") == 12 * 4 * n_boxes
    refit = [sah_cost(t.bmin, t.bmax, t.count) for t in frame.trees]
    built = [sah_cost(t.bmin, t.bmax, t.count) for t in fresh]
    assert refit[0] > built[0], "a twisted cow's refitted tree costs more than a fresh one"
    texts = window.renderer.legend_texts
    assert "ghost (grey dashes): boxes of a fresh tree" in texts
    assert (f"SAH refitted / fresh: A {refit[0]:.1f} / {built[0]:.1f}, "
            f"B {refit[1]:.1f} / {built[1]:.1f}") in texts
    window.ghost_action.trigger()
    assert window.renderer.cell_count("ghost") == 0
    assert not any(t.startswith("ghost") for t in window.renderer.legend_texts)


def test_drift_plot_marks_rebuilds_and_scrubs_on_click(qtbot, make_window):
    window = make_window("spot-twist-torus")
    window.model.set_pipeline(update=UpdateChoice.AUTO, drift_threshold=0.02)
    settle(qtbot, window)
    _deform_frames(qtbot, window, 8)
    recording = window.model.recording
    assert window.recording_actions["drift"].shortcut().toString() == DRIFT_KEY
    window.recording_actions["drift"].trigger()
    dialog = window.recording_menu.drift_dialog
    qtbot.waitExposed(dialog)
    series = dialog.series
    n = len(recording)
    assert series["time_ms"].shape == (n,)
    for b in (0, 1):
        assert np.array_equal(series["drift"][b], [recording[i].drift[b] for i in range(n)])
    assert np.allclose(series["time_ms"], [1e3 * recording[i].timings["total"]
                                           for i in range(n)])
    rebuilds = [e.position for e in recording.events() if e.kind.name == "REBUILD"]
    assert rebuilds, "a low threshold makes AUTO rebuild the twisting cow's tree"
    assert series["events"].tolist() == rebuilds
    assert set(rebuilds) <= set(series["rebuilt"][0].tolist())
    # Each automatic rebuild is a vertical line on the plot (besides the cursor).
    xs = {round(line.get_xdata()[0]) for line in dialog.axes.lines
          if line.get_linestyle() == ":"}
    assert xs == set(rebuilds)
    assert dialog.cursor_line.get_xdata()[0] == n - 1  # live: the newest frame
    # Frames recorded while it is open are added (after the throttle's delay).
    _deform_frames(qtbot, window, 2)
    n = len(recording)
    qtbot.waitUntil(lambda: dialog.series["time_ms"].shape[0] == n, timeout=5_000)
    assert dialog.cursor_line.get_xdata()[0] == n - 1
    # A click on the plot at frame 2 shows recorded frame 2, and the cursor follows.
    x, y = dialog.axes.transData.transform((2.0, 0.0))
    height = dialog.canvas.height()
    ratio = dialog.canvas.devicePixelRatioF()
    point = QPoint(int(round(x / ratio)), int(round(height - y / ratio)) - 5)
    qtbot.mouseClick(dialog.canvas, Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: window.model.cursor == 2, timeout=5_000)
    assert dialog.cursor_line.get_xdata()[0] == 2
    assert window.model.frame is recording[2]


def test_cross_check_identical_in_green(qtbot, window):
    pytest.importorskip("fcl")
    action = window.crosscheck_action
    assert action.isEnabled() and action.text() == "Cross-check this frame with python-fcl…"
    assert action.shortcut().toString() == CROSSCHECK_KEY
    action.trigger()
    dialog = window.crosscheck_dialog
    qtbot.waitUntil(lambda: dialog.check is not None, timeout=120_000)
    n = window.model.frame.result.counters.n_contacts
    assert n > 0
    assert dialog.verdict.text().startswith(
        f"frame {window.model.frame.index}, A: BVH Lab's AABB tree (midpoint split), "
        f"B: BVH Lab's AABB tree (midpoint split): identical ({n:,} triangle pairs)")
    assert "#009E73" in dialog.verdict.styleSheet()
    assert not dialog.table.isVisible()
    assert window.renderer.cell_count("crosscheck") == 0


def test_cross_check_differences_listed_in_red_and_drawn(qtbot, make_window, tmp_path):
    pytest.importorskip("coal")
    # One floor triangle and a spike whose corner is 1e-12 above it: apart, but closer than
    # coal's GJK tolerance, so coal reports the pair and BVH Lab does not.
    floor = tmp_path / "floor.obj"
    floor.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    spike = tmp_path / "spike.obj"
    spike.write_text("v 0.25 0.25 1e-12\nv 0.3 0.25 1\nv 0.25 0.3 1\nf 1 2 3\n")
    window = make_window()
    assert window.controller.files.load_files([str(floor), str(spike)])
    settle(qtbot, window)
    from viewer.qt.dialogs.crosscheck import CrossCheckDialog

    dialog = CrossCheckDialog(window.model, window.controller, window)
    qtbot.addWidget(dialog)
    assert dialog.run(engine="coal")
    qtbot.waitUntil(lambda: dialog.check is not None, timeout=60_000)
    assert dialog.verdict.text().startswith(
        f"frame {window.model.frame.index}, A: BVH Lab's AABB tree (midpoint split), "
        "B: BVH Lab's AABB tree (midpoint split): differs: 1 pair only coal reports "
        "(0 pairs agreed)")
    assert "#D55E00" in dialog.verdict.styleSheet()
    cells = [dialog.table.item(0, c).text() for c in range(3)]
    assert cells == ["0, 0", "coal only", "1e-12 apart"]
    QApplication.processEvents()
    # Both triangles of the pair outlined: 3 lines each.
    assert window.renderer.cell_count("crosscheck") == 6
    assert "triangles of pairs only one engine reports" in window.renderer.legend_texts


def test_without_fcl_or_coal_the_cross_check_says_what_to_install(monkeypatch, make_window):
    import importlib

    from core.lab.crosscheck import INSTALL_HINT

    real_import = importlib.import_module

    def no_engines(name, *args, **kwargs):
        if name in ("fcl", "coal"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(importlib, "import_module", no_engines)
    window = make_window()
    action = window.crosscheck_action
    assert not action.isEnabled()
    assert action.toolTip() == INSTALL_HINT
    assert "pip install python-fcl" in INSTALL_HINT


def test_the_newest_finished_ghost_is_drawn_marked_with_its_frame(qtbot, window, monkeypatch):
    # A build that ends after the frame moved on (a big mesh while a deformer plays): each
    # build waits for its gate here.
    import threading

    from viewer.control import analysis

    gates = [threading.Event(), threading.Event()]
    calls = []
    build = analysis.fresh_ghost

    def slow_ghost(frame):
        gate = gates[min(len(calls), len(gates) - 1)]
        calls.append(frame)
        gate.wait(120)
        return build(frame)

    monkeypatch.setattr(analysis, "fresh_ghost", slow_ghost)
    try:
        window.model.set_level(2)
        first = window.model.frame
        window.ghost_action.trigger()
        qtbot.waitUntil(lambda: len(calls) == 1, timeout=10_000)
        window.controller.poses.translate_body(1, (0.1, 0.0, 0.0))  # the next frame
        settle(qtbot, window)
        shown = window.model.frame
        assert shown is not first
        gates[0].set()  # frame 'first''s ghost ends now, after the frame moved on
        qtbot.waitUntil(lambda: window.controller.analysis.ghost_view() is not None, timeout=60_000)
        QApplication.processEvents()
        window.redraw()
        ghost = window.controller.analysis.ghost_view()
        assert ghost.frame is first
        n_boxes = sum(len(t.nodes_at_depth(min(2, t.max_depth))) for t in ghost.trees)
        assert window.renderer.cell_count("ghost") == 12 * 4 * n_boxes
        texts = window.renderer.legend_texts
        assert (f"ghost (grey dashes): fresh tree of frame {first.index}, frame {shown.index} "
                "shown") in texts
        assert f"frame {first.index} {ghost.sah_text()}" in texts
        # Drawn where frame 'first''s B stood (B moved since): its boxes end 0.1 left.
        b_boxes = ghost.trees[1].bmax[ghost.trees[1].nodes_at_depth(0)]
        then = first.poses[1].as_matrix()
        assert window.renderer.polys["ghost"].bounds[1] == pytest.approx(
            float((b_boxes @ then[:3, :3].T + then[:3, 3])[:, 0].max()), abs=1e-9)
        # The shown frame's own ghost, once built, is drawn unmarked.
        gates[1].set()
        qtbot.waitUntil(lambda: window.controller.analysis.ghost_view().frame is shown,
                        timeout=60_000)
        QApplication.processEvents()
        window.redraw()
        assert "ghost (grey dashes): boxes of a fresh tree" in window.renderer.legend_texts
        assert not any("fresh tree of frame" in t for t in window.renderer.legend_texts)
    finally:
        for gate in gates:
            gate.set()
