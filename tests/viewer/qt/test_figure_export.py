"""Save figure: one helper writes every figure of the app as PNG or SVG (the Experiments
window's and the drift plot's)."""

from __future__ import annotations

import pytest

from viewer.qt.figure_export import FigureSaveError, figure_path


def test_figure_path_takes_the_suffix_from_the_filter():
    assert figure_path("/x/plot", "SVG drawing (*.svg)").name == "plot.svg"
    assert figure_path("/x/plot", "").name == "plot.png"
    assert figure_path("/x/plot.SVG", "PNG image (*.png)").name == "plot.SVG"
    with pytest.raises(FigureSaveError, match="plot.pdf"):
        figure_path("/x/plot.pdf")


def test_drift_plot_saves_png_and_svg(qtbot, window, tmp_path):
    for _ in range(3):
        window.controller.animation.step_time(1 / 30)
        qtbot.waitUntil(lambda: not window.controller.frames.is_busy, timeout=60_000)
    dialog = window.recording_menu.open_drift_dialog()
    shown_label = dialog.axes.get_xlabel()
    saved_labels = []
    dialog.figure.canvas.mpl_connect(  # what the saved picture holds, read as it is drawn
        "draw_event", lambda _e: saved_labels.append(
            (dialog.axes.get_xlabel(), dialog.figure.get_suptitle())))
    png = dialog.save_figure_as(str(tmp_path / "drift.png"))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # On a slide: no "click to show it", and a title naming the scene.
    assert saved_labels and saved_labels[0] == ("recorded frame",
                                                "SAH drift and frame time: Two spheres "
                                                "overlapping (update: refit)")
    assert dialog.axes.get_xlabel() == shown_label and dialog.figure.get_suptitle() == ""
    svg = dialog.save_figure_as(str(tmp_path / "drift.svg"))
    assert "<svg" in svg.read_text()[:400]
    assert str(svg) in dialog.save_note.text()
    assert dialog.save_figure_as(str(tmp_path / "missing" / "drift.png")) is None
    assert "Not saved" in dialog.save_note.text()
    dialog.close()
