"""File > Export: a video of recorded frames and of playing, the 3-D view as a web page that
opens offline, the frame's data as CSV and JSON; Cancel and failed writes leave no file."""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import re
import zipfile

import numpy as np
import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QApplication, QPushButton

from core.lab.tables import COLUMNS, CONTACT_KIND_WORDS, TABLE_NAMES
from tests.viewer.conftest import settle, status_said
from viewer.render.webpage import remote_urls


@pytest.fixture
def small_window(window, qtbot):
    """The two-spheres window made small (the videos stay small and quick)."""
    window.resize(640, 480)
    QApplication.processEvents()
    window.redraw()
    return window


@pytest.fixture
def out(tmp_path):
    """An empty folder for the exported files (tmp_path also holds the settings)."""
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def record_frames(qtbot, window, n: int = 3) -> None:
    """A recording of ``n`` frames, B moving towards A by 0.3 each."""
    controller = window.controller
    controller.poses.translate_body(1, (0.9, 0.0, 0.0))
    settle(qtbot, window)
    controller.recorder.clear_recording()
    settle(qtbot, window)
    qtbot.waitUntil(lambda: len(window.model.recording) == 1, timeout=30_000)
    for _ in range(n - 1):
        controller.poses.translate_body(1, (-0.3, 0.0, 0.0))
        settle(qtbot, window)
    qtbot.waitUntil(lambda: len(window.model.recording) == n, timeout=30_000)


def wait_export(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.controller.exporter.is_exporting, timeout=60_000)
    QApplication.processEvents()


def read_video(path) -> np.ndarray:
    """``(n, h, w, 3) uint8`` frames of an MP4 or GIF."""
    if path.suffix == ".gif":
        import imageio.v3 as iio

        return iio.imread(path, index=None)[..., :3]
    import imageio_ffmpeg

    reader = imageio_ffmpeg.read_frames(str(path))
    width, height = next(reader)["size"]
    return np.stack([np.frombuffer(b, np.uint8).reshape(height, width, 3) for b in reader])


# -- video --------------------------------------------------------------------------------
def test_export_menu_has_its_actions_and_keys(small_window):
    menu = small_window.export_menu
    keys = {action.text(): action.shortcut().toString() for action in menu.menu.actions()
            if not action.isSeparator()}
    assert keys == {"&Video of recorded frames…": "Ctrl+Shift+M",
                    "&Record video while playing": "Ctrl+Shift+V",
                    "3-D view as &web page (HTML)…": "Ctrl+Shift+W",
                    "&Frame data (CSV and JSON)…": "Ctrl+Shift+F"}
    assert all(action.toolTip() for action in menu.menu.actions() if not action.isSeparator())


def test_the_export_keys_are_taken_by_no_other_action(small_window):
    # Two actions with one key make Qt run neither ("ambiguous shortcut").
    from PyQt6.QtGui import QAction

    owners = {}
    for action in small_window.findChildren(QAction):
        for key in action.shortcuts():
            owners.setdefault(key.toString(), set()).add(action.text())
    for key in ("Ctrl+Shift+M", "Ctrl+Shift+V", "Ctrl+Shift+W", "Ctrl+Shift+F"):
        assert len(owners[key]) == 1, (key, owners[key])


@pytest.mark.parametrize("suffix", [".mp4", ".gif"])
def test_video_of_three_recorded_frames_as_drawn(qtbot, small_window, out, suffix):
    window = small_window
    record_frames(qtbot, window)
    path = out / f"approach{suffix}"
    assert window.export_menu.export_recorded_video(str(path), (0, 2), fps=10, size=(160, 120))
    wait_export(qtbot, window)
    video = read_video(path)
    assert video.shape == (3, 120, 160, 3)
    # B comes closer frame by frame: the three pictures differ.
    assert np.abs(video[0].astype(int) - video[2].astype(int)).mean() > 1.0
    assert window.model.cursor is None  # back to live, as before the export
    assert sorted(p.name for p in out.iterdir()) == [path.name]
    assert window.settings.value("export/last_video_dir") == str(out)


def test_cancel_leaves_no_partial_video_and_the_app_goes_on(qtbot, small_window, out):
    window = small_window
    record_frames(qtbot, window)
    folder = out
    path = folder / "approach.mp4"
    assert window.export_menu.export_recorded_video(str(path), (0, 2), fps=10)
    cancel_button = window.export_menu.progress.findChild(QPushButton)
    assert cancel_button.text() == "Cancel"
    qtbot.mouseClick(cancel_button, Qt.MouseButton.LeftButton)
    wait_export(qtbot, window)
    assert list(folder.iterdir()) == []
    assert status_said(window, "cancelled")
    # The window still works: the next export runs.
    assert window.export_menu.export_recorded_video(str(path), (1, 2), fps=10, size=(64, 48))
    wait_export(qtbot, window)
    assert read_video(path).shape[0] == 2


def test_a_bad_video_path_is_one_line_naming_it(qtbot, small_window, out):
    window = small_window
    record_frames(qtbot, window, 2)
    assert not window.export_menu.export_recorded_video(str(out / "clip.avi"))
    title, text = window.last_error
    assert "clip.avi" in text and ".mp4 or .gif" in text and "\n" not in text
    assert not window.controller.exporter.is_exporting


def test_record_video_while_playing_grabs_each_drawn_frame(qtbot, small_window, out):
    window = small_window
    menu = window.export_menu
    path = out / "playing.mp4"
    assert menu.start_recording_video(str(path), fps=20, size=(160, 120))
    assert menu.record_action.isChecked()
    window.model.set_playing(True)
    qtbot.waitUntil(lambda: menu.n_grabbed >= 3, timeout=60_000)
    window.model.set_playing(False)
    settle(qtbot, window)
    n = menu.n_grabbed
    assert menu.recording_label.isVisible()
    assert menu.recording_label.text() == f"● REC video {n:,} frames"
    window.redraw()  # drawn while paused: not grabbed
    assert menu.n_grabbed == n
    menu.record_action.trigger()  # off: the video is finished
    wait_export(qtbot, window)
    assert not menu.record_action.isChecked() and not menu.recording_label.isVisible()
    assert read_video(path).shape == (n, 120, 160, 3)


# -- web page -----------------------------------------------------------------------------
def page_scene(page: str) -> dict:
    """The vtk.js scene embedded in an exported page."""
    data = base64.b64decode(re.search(r'const base64Str = "([^"]+)"', page).group(1))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return json.loads(archive.read("index.json"))


def test_web_page_holds_the_scene_and_loads_nothing_remote(qtbot, small_window, out):
    window = small_window
    path = out / "view.html"
    assert window.export_menu.ask_web_page(str(path))
    wait_export(qtbot, window)
    page = path.read_text(encoding="utf-8")
    assert "<title>BVH Lab: Two spheres overlapping</title>" in page
    # The canvas's 2-D texts are HTML over the 3-D view: every legend entry with its colour,
    # and the note saying the level.
    for text, color in window.renderer.canvas_legend.entries:
        assert f'<span style="background:{color}"></span>{html.escape(text)}</div>' in page
    assert html.escape(window.step_note()) in page and "traversal level" in window.step_note()
    # The viewer draws into the page's .content box, not over the whole <body> (where it
    # hid the texts under its canvas in Chromium).
    assert page.count('<div class="content"></div>') == 1
    assert page.index('<div class="content"></div>') < page.index("bvhlab-legend\">")
    assert remote_urls(page) == []
    for loading in (r"""(src|href)\s*=\s*["'`]?https?:""", r"""url\(\s*["']?https?:""",
                    r"""fetch\(\s*["'`]https?:""", r"""import\s*\(?\s*["'`]https?:""",
                    r"""setAttribute\(\s*["'](src|href)["']\s*,\s*["'`]https?:"""):
        assert re.search(loading, page) is None, loading
    # Every actor drawn (meshes, volumes at this level, pairs, contacts, segments) is in the
    # page with all its points.
    scene = page_scene(page)
    n_points = sorted(len(base64.b64decode(entry["content"])) // 24
                      for entry in scene["hashes"].values() if entry["vtk"] == "vtkPoints")
    drawn = sorted(actor.GetMapper().GetInput().GetNumberOfPoints()
                   for actor in window.plotter.renderer.actors.values()
                   if actor.GetVisibility() and hasattr(actor, "GetMapper")
                   and actor.GetMapper() is not None and actor.GetMapper().GetInput() is not None
                   and actor.GetMapper().GetInput().GetNumberOfPoints() > 0)
    assert len(drawn) >= 4  # two meshes, their volumes, the contacts at least
    assert n_points == drawn
    assert window.settings.value("export/last_web_dir") == str(out)


def test_a_failed_web_page_write_is_one_line_naming_the_file(qtbot, small_window, out):
    window = small_window
    (out / "view.html").mkdir()  # a folder where the page must go: the rename fails
    assert window.export_menu.ask_web_page(str(out / "view.html"))
    wait_export(qtbot, window)
    title, text = window.last_error
    assert title == "Cannot write web page"
    assert "view.html" in text and "\n" not in text
    assert sorted(p.name for p in out.iterdir()) == ["view.html"]  # no temporary file left
    window.redraw()  # the app goes on


def test_web_page_to_a_missing_folder_names_it(small_window, out):
    window = small_window
    assert not window.export_menu.ask_web_page(str(out / "gone" / "view.html"))
    assert "does not exist" in window.last_error[1] and "gone" in window.last_error[1]


# -- frame data ---------------------------------------------------------------------------
def read_csv(path) -> tuple[list[str], list[list[str]]]:
    with open(path, newline="", encoding="utf-8") as stream:
        rows = list(csv.reader(stream))
    return rows[0], rows[1:]


def check_frame_data(folder, stem, frame) -> dict:
    result = frame.result
    counters = result.counters
    header, rows = read_csv(folder / f"{stem}-counters.csv")
    assert tuple(header) == COLUMNS["counters"]
    values = {name: value for name, value, _unit, _words in rows}
    for name in ("n_bv_tests", "n_bv_overlaps", "n_leaf_pairs", "n_tri_tests", "n_contacts"):
        assert int(values[name]) == getattr(counters, name)
    header, rows = read_csv(folder / f"{stem}-contacts.csv")
    assert tuple(header) == COLUMNS["contacts"]
    assert len(rows) == counters.n_contacts == len(result.pairs)
    assert [[int(r[0]), int(r[1])] for r in rows] == result.pairs.tolist()
    np.testing.assert_array_equal(
        np.array([[float(v) for v in r[3:]] for r in rows]).reshape(-1, 6),
        result.segments.reshape(-1, 6))
    header, rows = read_csv(folder / f"{stem}-trace.csv")
    trace = result.trace
    assert len(rows) == int(trace.level_start[-1]) == counters.n_bv_tests
    assert sum(r[3] == "overlap" for r in rows) == counters.n_bv_overlaps
    header, rows = read_csv(folder / f"{stem}-levels.csv")
    assert [int(r[1]) for r in rows] == trace.tested_per_level.tolist()
    document = json.loads((folder / f"{stem}.json").read_text(encoding="utf-8"))
    assert document["counters"]["n_contacts"] == counters.n_contacts
    assert len(document["contacts"]) == counters.n_contacts
    assert len(document["trace"]["node_a"]) == counters.n_bv_tests
    assert document["frame"]["index"] == frame.index
    return document


def test_frame_data_equals_the_frames_counters_and_contacts(qtbot, small_window, out):
    window = small_window
    frame = window.model.frame
    assert frame.result.counters.n_contacts > 0  # the two spheres overlap
    assert window.export_menu.ask_frame_data(str(out / "spheres.json"))
    wait_export(qtbot, window)
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(["spheres.json"] + [f"spheres-{t}.csv" for t in TABLE_NAMES])
    document = check_frame_data(out, "spheres", frame)
    assert document["frame"]["recorded_index"] is None
    assert document["bodies"] == [b.name for b in window.model.bodies]
    assert {c["kind"] for c in document["contacts"]} <= set(CONTACT_KIND_WORDS.values())


def test_frame_data_of_a_recorded_frame(qtbot, small_window, out):
    window = small_window
    record_frames(qtbot, window)
    window.controller.recorder.scrub_to(2)
    frame = window.model.frame
    assert frame is window.model.recording[2] and frame.result.counters.n_contacts > 0
    assert window.export_menu.ask_frame_data(str(out / "recorded.json"))
    wait_export(qtbot, window)
    document = check_frame_data(out, "recorded", frame)
    assert document["frame"]["recorded_index"] == 2


def test_a_failed_frame_data_write_names_the_file(qtbot, small_window, out):
    window = small_window
    (out / "x-trace.csv").mkdir()  # a folder where a file must go: the rename fails
    assert window.export_menu.ask_frame_data(str(out / "x.json"))
    wait_export(qtbot, window)
    title, text = window.last_error
    assert "x-trace.csv" in text and "\n" not in text
    assert not any(p.name.endswith(".part") for p in out.iterdir())
    window.redraw()  # the app goes on


def test_contact_kind_words_match_the_core():
    from core.collide.tritri import ContactKind

    assert CONTACT_KIND_WORDS == {ContactKind.CROSSING.value: "crossing",
                                  ContactKind.TOUCHING.value: "touching",
                                  ContactKind.COPLANAR.value: "coplanar"}


def test_the_video_dialogs_format_and_suffix_follow_each_other(qtbot, tmp_path):
    from viewer.qt.menus.export import VideoDialog

    dialog = VideoDialog("Video", str(tmp_path / "talk.gif"), (640, 480))
    qtbot.addWidget(dialog)
    assert dialog.format_combo.currentData() == ".gif"  # the proposed file's suffix
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData(".mp4"))
    assert dialog.path_edit.text() == str(tmp_path / "talk.mp4")
    dialog.path_edit.setText(str(tmp_path / "loop.gif"))
    assert dialog.format_combo.currentData() == ".gif"
    assert dialog.path_edit.text() == str(tmp_path / "loop.gif")  # not echoed back
