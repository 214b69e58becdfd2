"""The hostile lesson catalogue (``tests/hostile/lessons.py``) through the Python API, the
command line and Lessons > Open: each file is one printable line naming it, exit status 2
on the command line, and the window and its scene as they were."""

from __future__ import annotations

import os
import resource

import numpy as np
import pytest

from tests.cli_batch import run_batch
from tests.hostile import one_per_kind
from tests.hostile.lessons import cases
from tests.viewer.helpers import answer_file_dialog
from viewer.control.files import FileLoading
from viewer.lessons import LessonError, load_lesson

CASES = list(cases())
MEMORY_LIMIT = 1536 * 2**20
"""Address space of the command line's process (1.5 GiB): a lesson read whole, or a hold
exported forever, ends in a MemoryError or the time-out instead of filling the machine."""


def test_the_catalogue_covers_every_class():
    assert len(CASES) >= 15
    assert {c.kind for c in CASES} >= {"size", "nesting", "digits", "count", "meshes",
                                      "escape", "type"}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_hostile_lesson_is_one_line_through_the_api(case, tmp_path):
    path = case.write(tmp_path)
    with pytest.raises(LessonError) as info:
        load_lesson(str(path))
    message = str(info.value)
    assert case.words in message, message
    assert message.isprintable() and len(message) < 1000, message


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """``python -m viewer --lesson FILE --export OUT.mp4`` on every case, in one child process
    limited to :data:`MEMORY_LIMIT` (:func:`tests.cli_batch.run_batch`):
    ``{name: (out, Ran)}``."""
    folder = tmp_path_factory.mktemp("hostile-lessons")
    argvs, outs = [], {}
    for case in CASES:
        (folder / case.name).mkdir()
        path = case.write(folder / case.name)
        outs[case.name] = folder / case.name / "out.mp4"
        argvs.append(["--lesson", str(path), "--export", str(outs[case.name])])
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    # The time-out only turns a hang into a failure; the files fail in a few seconds.
    ran = run_batch("viewer", argvs, seconds=30, env=env, preexec_fn=_limit_memory)
    return {c.name: (outs[c.name], done) for c, done in zip(CASES, ran)}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_hostile_lesson_exits_2_in_one_line_on_the_command_line(case, exported):
    out, done = exported[case.name]
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    line = done.stderr.rstrip("\n")
    assert line.isprintable() and case.words in line, line
    assert not out.exists()


def test_a_mesh_named_twice_is_read_once(tmp_path, monkeypatch):
    (tmp_path / "m.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    read = []
    import viewer.control.files as files

    real = files.load_mesh
    monkeypatch.setattr(files, "load_mesh", lambda path: read.append(path) or real(path))
    meshes, error = FileLoading.read_files([str(tmp_path / "m.obj")] * 16)
    assert error is None and len(meshes) == 16 and len(read) == 1
    assert all(m is meshes[0] for m in meshes)


def test_progress_lines_escape_a_lessons_text(tmp_path, monkeypatch, capsys):
    """Belt and braces: whatever text reaches the progress lines is printed escaped."""
    import viewer.offscreen.lesson_video as lesson_video

    def fake_render(lesson, writer, size, fps, say, on_frame=None):
        say("step 1 of 1: \x1b]0;pwned\x07\x00")
        writer.append(np.zeros((size[1], size[0], 3), dtype=np.uint8))
        return 1

    monkeypatch.setattr(lesson_video, "_render", fake_render)
    lesson = tmp_path / "ok.toml"
    lesson.write_text('[[step]]\ncaption = "a"\nscene = "two-spheres"\n')
    lesson_video.export_lesson(lesson, tmp_path / "out.gif", (64, 64), 4.0)
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x00" not in err and "\\x1b]0;pwned\\x07\\x00" in err


# ---- Lessons > Open ---------------------------------------------------------------------


def test_lessons_open_on_one_hostile_file_of_each_class_keeps_the_window(
        qtbot, window, tmp_path, monkeypatch):
    bodies, frame = list(window.model.bodies), window.model.frame
    for n, case in enumerate(one_per_kind(CASES)):
        folder = tmp_path / f"{n}"
        folder.mkdir()
        path = case.write(folder)
        answer_file_dialog(monkeypatch, path)
        window.last_error = None
        window.lesson_menu.open_action.trigger()
        qtbot.waitUntil(lambda: window.last_error is not None, timeout=60_000)
        title, text = window.last_error
        assert title == "Cannot open lesson", case.name
        assert case.words in text and text.isprintable(), (case.name, text)
        assert text.startswith(path.name) or text.startswith(str(path)), (case.name, text)
        assert window.isVisible() and window.controller.lessons.lesson is None
        assert window.model.bodies == bodies and window.model.frame is frame, case.name
        window._error_box.close()
