"""Recording > Replay with other settings: a short recording replayed with oriented boxes
gives identical contacts in every frame, one table row per frame and a plot; a difference is
flagged in red with a warning box."""

from __future__ import annotations

from dataclasses import replace

from PyQt6.QtWidgets import QApplication, QMessageBox

from tests.viewer.helpers import N_STEPS, record_approach
from viewer.qt.dialogs.replay import DIFFER_STYLE, IDENTICAL_STYLE, percent_change


def run_replay(qtbot, dialog) -> None:
    assert dialog.run()
    qtbot.waitUntil(lambda: dialog.report is not None
                    and not dialog.controller.recorder.is_job_running, timeout=120_000)
    QApplication.processEvents()


def test_replay_with_obb_shows_identical_contacts_and_one_row_per_frame(qtbot, window):
    record_approach(qtbot, window)
    n = N_STEPS + 1
    window.recording_actions["replay"].trigger()
    dialog = window.recording_menu.replay_dialog
    assert dialog.isVisible() and dialog.run_button.isEnabled()
    assert dialog.bv.currentData() == window.model.pipeline.bv
    dialog.bv.setCurrentIndex(dialog.bv.findData("obb"))
    assert "oriented" in dialog.bv.currentText().lower()
    run_replay(qtbot, dialog)
    report = dialog.report
    assert len(report.rows) == n and report.all_identical
    assert dialog.verdict.text().endswith(f"contacts identical in all {n} frames")
    assert dialog.verdict.styleSheet() == IDENTICAL_STYLE
    assert dialog.table.rowCount() == n
    recording = window.model.recording
    for r in range(n):
        row = report.rows[r]
        assert dialog.table.item(r, 0).text() == str(recording[r].index)
        assert dialog.table.item(r, 1).text() == (f"{row.recorded_bv_tests:,} → "
                                                  f"{row.bv_tests:,}")
        assert row.recorded_bv_tests == recording[r].result.counters.n_bv_tests
        assert dialog.table.item(r, 5).text() == "identical"
    # Oriented boxes fit the spheres differently: some frame tests another number of pairs.
    assert any(row.bv_tests != row.recorded_bv_tests for row in report.rows)
    tests_axes, times_axes = dialog.figure.axes
    assert len(tests_axes.lines) == 2 and len(times_axes.lines) == 2
    assert list(tests_axes.lines[1].get_ydata()) == [row.bv_tests for row in report.rows]


def test_a_difference_in_contacts_is_flagged_loudly(qtbot, window):
    record_approach(qtbot, window)
    dialog = window.recording_menu.open_replay_dialog()
    run_replay(qtbot, dialog)
    report = dialog.report
    rows = list(report.rows)
    rows[1] = replace(rows[1], contacts_identical=False)
    rows[3] = replace(rows[3], contacts_identical=False)
    differing = replace(report, rows=rows)
    assert not differing.all_identical
    dialog.show_report(differing, None)
    text = f"contacts differ in frames {rows[1].frame}, {rows[3].frame}"
    assert dialog.verdict.text().endswith(text)
    assert dialog.verdict.styleSheet() == DIFFER_STYLE
    assert "bold" in DIFFER_STYLE
    assert dialog.table.item(1, 5).text() == "DIFFER"
    assert dialog.table.item(1, 5).font().bold()
    box = dialog._warning
    assert isinstance(box, QMessageBox) and box.isVisible() and text in box.text()


def test_words():
    assert percent_change(200, 150) == "-25.0 %"
    assert percent_change(10, 10) == "0 %"
    assert percent_change(0, 3) == "new"
