"""The Pipeline dock's near-contact margin: typed into the spin box, it reaches the frame and
the Stats dock lists the near pairs; at 0 only exact contacts are reported."""

from __future__ import annotations

from PyQt6.QtCore import Qt

from tests.viewer.conftest import settle


def _type_margin(qtbot, window, panel, text: str, margin: float) -> None:
    """Type ``text`` into the margin box and press Enter; wait for a frame computed with it."""
    panel.margin.selectAll()
    qtbot.keyClicks(panel.margin, text)
    qtbot.keyClick(panel.margin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.model.pipeline.margin == margin, timeout=5_000)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.model.frame.result.margin == margin, timeout=60_000)


def test_margin_spin_box_reports_near_pairs(qtbot, make_window):
    window = make_window("concentric-spheres")  # never touching: a gap of 0.05 by default
    panel = window.docks["pipeline_dock"].panel
    stats = window.docks["stats_dock"].panel
    assert panel.margin.value() == 0.0
    assert panel.margin.text() == "0 (exact contact only)"
    assert "Near-contact margin" in panel.margin.toolTip()
    assert window.model.frame.result.near_pairs.shape == (0, 2)
    assert "near pairs" not in stats.relation.text()

    _type_margin(qtbot, window, panel, "0.1", 0.1)
    result = window.model.frame.result
    assert result.n_contacts == 0
    assert len(result.near_pairs) > 100
    assert (result.near_distances <= 0.1).all()
    text = stats.relation.text()
    assert f"{len(result.near_pairs):,} near pairs (not touching, at most 0.1 apart)" in text

    _type_margin(qtbot, window, panel, "0", 0.0)
    assert window.model.frame.result.near_pairs.shape == (0, 2)
    assert "near pairs" not in stats.relation.text()


def test_typing_a_margin_applies_it_once_on_enter(qtbot, make_window):
    # Each margin recomputes the frame: "0.012" typed key by key must not run 0.01 first.
    window = make_window("concentric-spheres")
    panel = window.docks["pipeline_dock"].panel
    margins = []
    window.model.pipeline_changed.connect(lambda p: margins.append(p.margin))
    panel.margin.selectAll()
    qtbot.keyClicks(panel.margin, "0.012")
    assert margins == [] and window.model.pipeline.margin == 0.0
    qtbot.keyClick(panel.margin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: margins == [0.012], timeout=5_000)
