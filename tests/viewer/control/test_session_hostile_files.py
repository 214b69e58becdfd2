"""The hostile session catalogue (``tests/hostile/sessions.py``) through the Python API and
File > Open session: each file is one printable line naming it, and the window and its
scene stay as they were. (Sessions have no command line.)"""

from __future__ import annotations

import dataclasses

import pytest
from PyQt6.QtWidgets import QApplication

from core.session import MAX_BODIES, SessionFileError, peek_session, save_session
from tests.hostile import one_per_kind
from tests.hostile.sessions import cases, good_session
from tests.viewer.helpers import answer_file_dialog
from viewer.control.session import open_checked_session

CASES = list(cases())


def test_the_catalogue_covers_every_class():
    assert len(CASES) >= 15
    assert {c.kind for c in CASES} >= {"version", "count", "digits", "camera", "range", "type",
                                      "body", "nesting", "escape"}


def test_the_good_session_opens(tmp_path):
    session = open_checked_session(good_session(tmp_path))
    assert len(session.bodies) == 2 and session.bodies[0].deformer == "twist"


def test_a_scene_of_more_bodies_than_a_session_holds_is_not_saved(tmp_path):
    session = open_checked_session(good_session(tmp_path))
    crowd = dataclasses.replace(session, bodies=session.bodies * (MAX_BODIES // 2 + 1))
    with pytest.raises(SessionFileError, match=f"the scene has {MAX_BODIES + 2} bodies; a "
                       f"session holds at most {MAX_BODIES}"):
        save_session(crowd, tmp_path / "crowd.bvhsession")
    assert not (tmp_path / "crowd.bvhsession").exists()
    fits = dataclasses.replace(session, bodies=session.bodies * (MAX_BODIES // 2))
    assert len(open_checked_session(save_session(fits, tmp_path / "64.bvhsession")).bodies
               ) == MAX_BODIES


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_hostile_session_is_one_line_through_the_api(case, tmp_path):
    path = case.write(tmp_path)
    with pytest.raises(SessionFileError) as info:
        open_checked_session(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    assert case.words in message, message
    assert message.isprintable() and len(message) < 1000, message
    # The crash-restore question reads the manifest alone: a summary or the same error class.
    try:
        summary = peek_session(path)
    except SessionFileError as exc:
        assert str(exc).isprintable()
    else:
        assert 0 <= summary.n_bodies <= 64 and len(summary.scene_title) <= 200


def test_file_open_session_on_one_hostile_file_of_each_class_keeps_the_window(
        qtbot, window, tmp_path, monkeypatch):
    model = window.model
    bodies, frame, pipeline, display = (list(model.bodies), model.frame, model.pipeline,
                                        model.display)
    for n, case in enumerate(one_per_kind(CASES)):
        folder = tmp_path / f"{n}"
        folder.mkdir()
        path = case.write(folder)
        answer_file_dialog(monkeypatch, path)
        window.last_error = None
        window.session_menu.open_action.trigger()  # File > Open session
        qtbot.waitUntil(lambda: window.last_error is not None
                        and not window.controller.recorder.is_job_running, timeout=60_000)
        QApplication.processEvents()
        title, text = window.last_error
        assert title == "Cannot open session", case.name
        assert text.startswith(str(path)) and case.words in text, (case.name, text)
        assert text.isprintable(), text
        assert window.isVisible()
        assert (model.bodies, model.frame, model.pipeline, model.display) == (
            bodies, frame, pipeline, display), case.name
        window._error_box.close()
