"""File > Open on every hostile file of the loader's catalogue: the window lives on.

The files are the ones ``tests/core/io/test_hostile_files.py`` checks through ``load_mesh``
and the CLI (built by ``tests/hostile/meshes.py``). Here each is picked in the real File > Open
action (the file dialog answered by a stub of ``QFileDialog.getOpenFileNames``), read in the
controller's worker thread, and must end in the warning box naming the file, with the scene
(bodies, frame, actors on the canvas) exactly as before. The VTP files among them aborted
the whole app inside VTK before VTK reads moved to a child process.
"""

from __future__ import annotations

from PyQt6.QtWidgets import QFileDialog

from tests.hostile.meshes import CATALOGUE
from tests.viewer.conftest import settle, status_said


def _pick(monkeypatch, path) -> None:
    monkeypatch.setattr(
        QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: ([str(path)], ""))
    )


def test_file_open_on_every_hostile_file_keeps_the_window_and_the_scene(
    qtbot, window, tmp_path, monkeypatch
):
    bodies = list(window.model.bodies)
    frame = window.model.frame
    n_actors = len(window.plotter.renderer.actors)
    cases = [c for c in CATALOGUE if not c.must_load]
    assert len(cases) >= 25
    for n, case in enumerate(cases):
        folder = tmp_path / f"{n}"
        folder.mkdir()
        path = case.write(folder)
        _pick(monkeypatch, path)
        window.last_error = None
        window.open_action.trigger()  # File > Open mesh (add to scene)
        qtbot.waitUntil(
            lambda: window.last_error is not None and window.model.loading == "",
            timeout=60_000,
        )
        title, text = window.last_error
        assert title == "Cannot open mesh", case.name
        assert text.startswith(f"{path.name}: "), (case.name, text)
        assert "\n" not in text and "Traceback" not in text, (case.name, text)
        assert window._error_box.isVisible() and window._error_box.text() == text
        assert status_said(window, path.name)
        assert window.isVisible()
        assert window.model.bodies == bodies, case.name
        assert window.model.frame is frame, case.name
        assert len(window.plotter.renderer.actors) == n_actors, case.name
        window._error_box.close()
    # Still a working app: a good file opens afterwards and is drawn.
    good = next(c for c in CATALOGUE if c.name == "stl_binary_solid_header_trailing_bytes")
    _pick(monkeypatch, good.write(tmp_path))
    window.last_error = None
    window.open_action.trigger()
    qtbot.waitUntil(lambda: len(window.model.bodies) == len(bodies) + 1, timeout=60_000)
    settle(qtbot, window)
    assert window.model.bodies[-1].rest.n_faces == 2
    assert window.last_error is None
