"""The Experiments window: run, cancel, bad sizes, failures and saving, driven through the
real dock and menu."""

from __future__ import annotations

import pytest
from PyQt6.QtGui import QKeySequence

from viewer.qt.menus.experiments import FIGURE_WIDTH_PX, WINDOW_KEY
from viewer.qt.panels.experiments import progress_words, sizes_from_text

RUN_TIMEOUT_MS = 240_000  # a cold numba cache compiles the kernels first


def _open_on(window, name):
    window.experiments_menu.experiment_actions[name].trigger()
    dock = window.docks["experiments_dock"]
    assert dock.isVisible()
    panel = dock.panel
    assert panel.name == name
    return panel


def _run_quick(qtbot, window, panel, sizes: str | None = None):
    """Run with the experiment's quick sizes (or ``sizes``, smaller still, where the test is
    about the window rather than the figure)."""
    panel.quick_button.click()
    if sizes is not None:
        panel.sizes.setText(sizes)
    assert window.experiments_menu.run_action.shortcut().toString() == "Ctrl+Return"
    window.experiments_menu.run_action.trigger()
    assert window.model.experiment_running == panel.name
    qtbot.waitUntil(lambda: window.model.experiment_running is None, timeout=RUN_TIMEOUT_MS)
    return panel.result


def test_sizes_from_text_reads_numbers_and_names_the_bad_one():
    assert sizes_from_text("200, 800 3200", (100,)) == (200, 800, 3200)
    assert sizes_from_text("20k, 1.5M", (100,)) == (20_000, 1_500_000)
    assert sizes_from_text("  ", (100, 400)) == (100, 400)
    for text, words in (("200, x", "'x' is not a number"), ("200 -3", "'-3' must be a positive"),
                        ("2.5", "'2.5' must be a whole number"), ("inf", "'inf' must be")):
        with pytest.raises(ValueError, match=words):
            sizes_from_text(text, (100,))
    assert progress_words(3, 12, "aabb at gap 0.001", 4.25) == "3 of 12: aabb at gap 0.001 (4.2 s)"


def test_quick_pcp_from_the_menu_draws_log_log_axes_and_the_reading(qtbot, window):
    assert window.experiments_menu.window_action.shortcut() == QKeySequence(WINDOW_KEY)
    for name, action in window.experiments_menu.experiment_actions.items():
        # Title words in the menu, never the bare registry key.
        assert action.text().rstrip("…").lower() != name and " " in action.text()
    panel = _open_on(window, "pcp")
    dock = window.docks["experiments_dock"]
    # Out of the 400 px tab column into a window of its own, wide enough for the figure; the
    # column keeps the tab it showed.
    assert dock.isFloating() and dock.width() >= FIGURE_WIDTH_PX
    qtbot.waitUntil(lambda: window.docks["levels_dock"].isVisible())
    assert "Gottschalk" in panel.source.text()
    result = _run_quick(qtbot, window, panel)
    assert result is not None, panel.message.text()
    assert result.name == "pcp"
    axes = [ax for ax in panel.figure.axes if ax.lines]
    assert axes, "the figure has no plotted lines"
    ax = axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert "gap" in ax.get_xlabel().lower()
    assert "volume tests" in axes[0].get_ylabel().lower()
    assert len(ax.lines) >= 3  # one line per bounding-volume kind at least
    legends = list(panel.figure.legends) + [a.get_legend() for a in axes if a.get_legend()]
    legend_words = " ".join(t.get_text() for lg in legends for t in lg.get_texts()).lower()
    assert "slope" in legend_words and "obb" in legend_words
    assert panel.reading.text() == result.reading and len(result.reading) > 40
    assert panel.progress.value() == panel.progress.minimum() - 1  # reset
    assert panel.save_figure_button.isEnabled()


def test_cancel_keeps_the_previous_figure_and_resets_the_progress(qtbot, window):
    panel = _open_on(window, "pcp")
    first = _run_quick(qtbot, window, panel, "1000")
    assert first is not None, panel.message.text()
    first_lines = [line for ax in panel.figure.axes for line in ax.lines]
    reports = []
    window.model.experiment_progress.connect(lambda d, t, w: reports.append((d, t, w)))
    panel._fill_sizes("default")
    assert panel.run()
    menu = window.experiments_menu
    # While running, Esc belongs to Cancel (and is taken from Clear selection).
    assert menu.cancel_action.isEnabled()
    assert menu.cancel_action.shortcut().toString() == "Esc"
    assert window.clear_selection_action.shortcut().isEmpty()
    qtbot.waitUntil(lambda: bool(reports) and reports[-1][1] > 0, timeout=RUN_TIMEOUT_MS)
    assert panel.progress.maximum() == reports[-1][1]
    assert " of " in panel.progress_label.text()
    menu.cancel_action.trigger()
    qtbot.waitUntil(lambda: window.model.experiment_running is None, timeout=30_000)
    assert "Cancelled" in panel.message.text()
    assert panel.progress.value() == panel.progress.minimum() - 1
    assert panel.progress_label.text() == ""
    assert panel.result is first
    assert [line for ax in panel.figure.axes for line in ax.lines] == first_lines
    assert window.clear_selection_action.shortcut().toString() == "Esc"
    assert not menu.cancel_action.isEnabled()


def test_bad_sizes_show_a_message_under_the_field_and_run_nothing(qtbot, window):
    panel = _open_on(window, "pcp")
    started = []
    window.model.experiment_started.connect(started.append)
    panel.sizes.setText("200, -3")
    window.experiments_menu.run_action.trigger()
    assert panel.sizes_error.isVisibleTo(panel)
    assert "'-3'" in panel.sizes_error.text() and "\n" not in panel.sizes_error.text()
    assert started == [] and window.model.experiment_running is None
    panel.sizes.setText("two hundred")
    assert not panel.run()
    assert "not a number" in panel.sizes_error.text()
    assert started == []


def test_a_failing_run_shows_one_red_line_and_the_app_stays(qtbot, window):
    panel = _open_on(window, "pcp")
    panel.sizes.setText("3")  # too few triangles for a sphere: the run itself refuses
    assert panel.run()
    qtbot.waitUntil(lambda: window.model.experiment_running is None, timeout=RUN_TIMEOUT_MS)
    text = panel.message.text()
    assert "failed" in text and "\n" not in text
    assert "B00020" in panel.message.styleSheet()
    assert panel.result is None and panel.run_button.isEnabled()
    window.controller.frames.step_sync()  # the app still runs frames
    assert window.model.frame is not None


def test_save_figure_png_and_svg_and_data_csv(qtbot, window, tmp_path):
    panel = _open_on(window, "pcp")
    result = _run_quick(qtbot, window, panel, "1000")
    assert result is not None, panel.message.text()
    png = panel.save_figure_as(str(tmp_path / "pcp-figure.png"))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = panel.save_figure_as(str(tmp_path / "pcp-figure.svg"))
    head = svg.read_text()[:400]
    assert head.startswith("<?xml") and "<svg" in head
    data = panel.save_data_as(str(tmp_path / "pcp-data"))
    assert data.suffix == ".csv"
    lines = data.read_text().splitlines()
    assert lines[0].startswith("# ")
    header = next(line for line in lines if not line.startswith("#"))
    assert header.split(",") == [c.name for c in result.columns]
    assert len(lines) - lines.index(header) - 1 == len(result.rows)
    written = panel.save_all_to(str(tmp_path / "all"))
    assert {p.suffix for p in written.values()} == {".png", ".svg", ".csv"}
    assert all(p.exists() for p in written.values())
    assert str(tmp_path / "all") in panel.save_note.text()
    assert panel.save_figure_as(str(tmp_path / "pcp.jpg")) is None
    assert "png or .svg" in panel.save_note.text()


def test_the_current_scene_is_bodies_a_and_b_as_posed_and_deformed(qtbot, make_window):
    window = make_window("spot-twist-torus")
    bodies = window.model.bodies
    scene = window.controller.experiments.current_experiment_scene()
    assert scene.mesh_a is bodies[0].rest and scene.mesh_b is bodies[1].rest
    assert scene.pose_a.as_matrix() == pytest.approx(bodies[0].pose)
    assert scene.pose_b.as_matrix() == pytest.approx(bodies[1].pose)
    deformed = [i for i, b in enumerate(bodies[:2]) if b.deformer is not None]
    assert deformed, "the scene twists a body"
    for i, deformer in enumerate((scene.deformer_a, scene.deformer_b)):
        assert (deformer is not None) == (i in deformed)
        if deformer is not None:
            moved = deformer(bodies[i].rest.vertices, 0.5)
            assert moved.shape == bodies[i].rest.vertices.shape
    assert scene.title == "spot twisted through a torus"  # put mid-sentence by the figures


def test_a_scene_with_one_body_cannot_be_used_and_says_so(qtbot, make_window):
    window = make_window("folding-tube")
    panel = window.experiments_menu.open_window()
    scene_names = [n for n, info in panel.catalogue.items() if info.takes_scene]
    if not scene_names:
        pytest.skip("no registered experiment runs on a given scene")
    panel.select(scene_names[0])
    assert panel.use_scene.isVisibleTo(panel)
    panel.use_scene.setChecked(True)
    panel.quick_button.click()
    assert not panel.run()
    assert "fewer than two bodies" in panel.message.text()
    assert "B00020" in panel.message.styleSheet()
    panel.select("pcp")
    assert not panel.use_scene.isVisibleTo(panel)  # pcp builds its own spheres


def test_closing_the_window_cancels_a_running_experiment(qtbot, window):
    panel = _open_on(window, "pcp")
    panel._fill_sizes("default")
    assert panel.run()
    thread = window.controller.experiments._experiment_lane.thread
    progress = window.controller.experiments._experiment_progress
    assert thread is not None and thread.daemon  # never holds the process open
    window.close()
    assert progress.is_cancelled
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=60_000)


def test_use_the_current_scene_runs_the_experiment_on_it(qtbot, window):
    panel = _open_on(window, "splits")
    assert panel.use_scene.isVisibleTo(panel)
    panel.use_scene.setChecked(True)
    result = _run_quick(qtbot, window, panel)
    assert result is not None, panel.message.text()
    assert "two spheres overlapping" in result.caption
    assert "two spheres overlapping" in panel.figure.get_suptitle()
