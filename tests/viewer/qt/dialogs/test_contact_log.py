"""File > Open contact log… in the window: the log's frames on the timeline with a marker at
each disagreeing frame, the per-frame result and the shown frame's pairs with their exact
gaps in the dialog, the disagreeing triangles outlined; a bad log leaves the scene alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
from PyQt6.QtWidgets import QApplication

from tests.viewer.conftest import settle
from viewer.qt.window.timeline import MARKER_SIZE_PX, MARKER_STYLES
from viewer.words.actions import ACTIONS_BY_ID

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "contact-log"
LOG = "two-spheres-fcl.jsonl"


def _copy_example(tmp_path) -> Path:
    for item in EXAMPLE.iterdir():
        if item.suffix in (".obj", ".npy", ".jsonl"):
            shutil.copy(item, tmp_path / item.name)
    return tmp_path / LOG


def _edited_log(tmp_path):
    """The shipped log with the first pair of frame 2 removed and a pair of far-apart
    triangles added to frame 4. Returns ``(path, removed, added)``."""
    path = _copy_example(tmp_path)
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    removed = records[3]["pairs"].pop(0)  # line 1 is the header: frame 2 is record 3
    records[3].pop("distances", None)  # one per pair: they no longer line up
    added = [0, 0]  # the two spheres' first triangles: on their far sides
    assert added not in records[5]["pairs"]
    records[5]["pairs"].append(added)
    records[5].pop("distances", None)
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path, removed, added


def _open(qtbot, window, path):
    job = window.controller.contact_log
    assert window.contact_log_menu.open_contact_log(str(path))
    qtbot.waitUntil(lambda: not window.controller.recorder.is_job_running, timeout=120_000)
    settle(qtbot, window)
    return job


def _cells(table, row):
    return [table.item(row, c).text() for c in range(table.columnCount())]


def test_the_action_is_one_row_with_a_key():
    row = ACTIONS_BY_ID["file.open_contact_log"]
    assert row.menu == "&File" and row.shortcut == "Ctrl+Shift+C"
    assert row.handler == "contact_log_menu.open_contact_log"


def test_a_log_with_one_pair_removed_and_one_added_is_marked_listed_and_outlined(
        qtbot, window, tmp_path):
    path, removed, added = _edited_log(tmp_path)
    job = _open(qtbot, window, path)
    audit = job.audit
    assert window.last_error is None, window.last_error
    assert audit is not None and [audit.audits[k].frame for k in audit.disagreeing] == [2, 4]
    model = window.model
    assert model.scene_title == "Contact log two-spheres-fcl"
    assert len(model.recording) == 6

    # Timeline: one marker per disagreeing frame, drawn where the slider puts that frame.
    slider = window.timeline.slider
    marks = [m for m in slider.markers if m.kind == "ENGINE_DISAGREES"]
    assert [m.position for m in marks] == [2, 4]
    assert marks[0].text.startswith("python-fcl") and "1 missed" in marks[0].text
    image = slider.grab().toImage()
    ratio = image.devicePixelRatio()
    y = 1 + MARKER_SIZE_PX / 2 + 1
    for mark in marks:
        colour = image.pixelColor(round(slider.x_of(mark.position) * ratio), round(y * ratio))
        assert MARKER_STYLES["ENGINE_DISAGREES"].rgb == (0, 0, 0)
        assert max(colour.red(), colour.green(), colour.blue()) < 90, colour.name()
    between = image.pixelColor(round(slider.x_of(3) * ratio), round(y * ratio))
    assert min(between.red(), between.green(), between.blue()) > 150  # no mark on frame 3

    # The first disagreeing frame is shown: the dialog lists every frame and its pairs.
    dialog = window.contact_log_menu.dialog
    assert dialog is not None and dialog.isVisible()
    assert model.cursor == 2
    assert dialog.frames.rowCount() == 6
    assert _cells(dialog.frames, 2)[4:] == ["0", "1", "differs"]
    assert _cells(dialog.frames, 4)[4:] == ["1", "0", "differs"]
    assert _cells(dialog.frames, 0)[6] == "agrees"
    assert dialog.pairs.rowCount() == 1
    assert _cells(dialog.pairs, 0)[:3] == [f"({removed[0]}, {removed[1]})",
                                           "missed it; it touches", "0 (touching or crossing)"]
    assert dialog.shown.text().startswith("Shown: log frame 2 (line 4)")
    # One triangle of A and one of B outlined, three edges each.
    assert window.renderer.cell_count("crosscheck") == 6
    # Framed: the camera looks at the two triangles (the missed contact is inside the ring).
    assert dialog.frame_button.isEnabled()
    lo, hi = job.pairs_bounds()
    dialog.frame_button.click()
    settle(qtbot, window)
    focal = np.asarray(window.model.read_camera().focal_point)
    np.testing.assert_allclose(focal, 0.5 * (lo + hi), atol=1e-9)

    # Another disagreeing frame: its poses are the log's; the added pair is apart.
    dialog._on_frame_row(4, 0)
    settle(qtbot, window)
    assert model.cursor == 4
    record = json.loads(path.read_text().splitlines()[5])
    np.testing.assert_allclose(model.frame.poses[1].as_matrix().ravel(), record["pose_b"])
    cells = _cells(dialog.pairs, 0)
    assert cells[0] == f"({added[0]}, {added[1]})"
    assert cells[1] == "reports it; it does not touch"
    assert cells[2].endswith(" apart") and float(cells[2].split()[0]) > 0.1
    window.redraw()
    assert window.renderer.cell_count("crosscheck") == 6

    # Frame 3 gives A's deformed vertices in a file: the view draws them.
    dialog._on_frame_row(3, 0)
    settle(qtbot, window)
    grown = np.load(path.parent / "sphere-a-frame3.npy")
    np.testing.assert_allclose(model.frame.meshes[0].vertices, grown)
    np.testing.assert_allclose(window.renderer.mesh_polys[0].points, grown)

    # An agreeing frame: nothing outlined, no pair listed.
    dialog._on_frame_row(0, 0)
    settle(qtbot, window)
    window.redraw()
    assert dialog.pairs.rowCount() == 0
    assert window.renderer.cell_count("crosscheck") == 0
    assert not dialog.frame_button.isEnabled() and job.pairs_bounds() is None

    # Another scene: the markers go; the dialog says its result is stale.
    window.controller.scenes.load_scene("two-spheres")
    settle(qtbot, window)
    assert not [m for m in slider.markers if m.kind == "ENGINE_DISAGREES"]
    assert job.audit is None
    assert "No contact log open" in dialog.summary.text()


def test_a_bad_log_names_the_file_and_line_and_leaves_the_scene(qtbot, window, tmp_path):
    path = _copy_example(tmp_path)
    lines = path.read_text().splitlines()
    lines[2] = lines[2][:40]  # line 3 cut short: not JSON
    path.write_text("\n".join(lines) + "\n")
    title_before, frame_before = window.model.scene_title, window.model.frame
    _open(qtbot, window, path)
    QApplication.processEvents()
    title, text = window.last_error
    assert title == "Cannot open contact log"
    assert f"{path} line 3: not JSON" in text and "\n" not in text
    assert window.model.scene_title == title_before
    assert window.model.frame is frame_before
    assert window.controller.contact_log.audit is None
    assert not [m for m in window.timeline.slider.markers if m.kind == "ENGINE_DISAGREES"]


def test_cancel_stops_the_check_and_leaves_the_scene(qtbot, window, tmp_path):
    path, _removed, _added = _edited_log(tmp_path)
    title_before, frame_before = window.model.scene_title, window.model.frame
    messages = []
    window.model.message.connect(messages.append)
    assert window.contact_log_menu.open_contact_log(str(path))
    window.controller.recorder.cancel_job()  # the job stops at its next frame
    qtbot.waitUntil(lambda: not window.controller.recorder.is_job_running, timeout=120_000)
    QApplication.processEvents()
    assert f"Opening contact log {path.name} cancelled" in messages
    assert window.controller.contact_log.audit is None
    assert window.model.scene_title == title_before and window.model.frame is frame_before


def test_the_event_keys_stop_at_each_disagreeing_frame(qtbot, window, tmp_path):
    path, _removed, _added = _edited_log(tmp_path)
    _open(qtbot, window, path)
    recorder, model = window.controller.recorder, window.model

    def visited(start, direction):
        recorder.scrub_to(start)
        seen = []
        while True:
            before = model.cursor
            recorder.jump_to_event(direction)
            if model.cursor == before:
                return seen
            seen.append(model.cursor)

    own = {e.position for e in model.recording.events()}
    forward = visited(0, +1)
    assert forward == sorted((own | {2, 4}) - {0})
    backward = visited(5, -1)
    assert backward == sorted((own | {2, 4}) - {5}, reverse=True)
