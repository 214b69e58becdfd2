"""``python -m viewer`` writes ``first frame after X.X s`` to stderr once, when the first frame
of the scene (overlays included) is on screen (issue 15, cold start)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.viewer.conftest import settle

LINE = re.compile(r"^first frame after (\d+\.\d) s$")


def first_frame_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("first frame")]


def test_the_line_comes_once_after_the_first_frame_is_drawn(qtbot, settings, capfd):
    from viewer.app import build_window, report_first_frame

    window = build_window(scene="two-spheres", settings=settings)
    qtbot.addWidget(window)
    report_first_frame(window)
    settle(qtbot, window)
    # Computed but not yet on screen (the window was never shown): nothing is said yet.
    assert first_frame_lines(capfd.readouterr().err) == []

    window.show()
    qtbot.waitExposed(window)
    window.redraw()
    err = capfd.readouterr().err
    assert len(first_frame_lines(err)) == 1, err
    (line,) = first_frame_lines(err)
    match = LINE.match(line)
    assert match is not None, line
    assert float(match.group(1)) >= 0.0
    assert window.renderer is not None and window.model.frame is not None

    # Later frames, a level change and another scene's first frame say nothing more.
    window.model.set_playing(False)
    window.redraw()
    window.controller.scenes.load_scene("bunny-teapot")
    settle(qtbot, window)
    window.redraw()
    assert first_frame_lines(capfd.readouterr().err) == []


def test_python_m_viewer_writes_the_line(qtbot, tmp_path):
    """The real entry point under the test's virtual display, on a scratch settings folder."""
    root = Path(__file__).resolve().parents[3]
    err_path = tmp_path / "stderr.txt"
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    with open(err_path, "w") as err:
        app = subprocess.Popen([sys.executable, "-m", "viewer", "--scene", "two-spheres"],
                               cwd=root, env=env, stderr=err, stdout=subprocess.DEVNULL)
    try:
        def said_it() -> bool:
            assert app.poll() is None, err_path.read_text()
            return bool(first_frame_lines(err_path.read_text()))

        qtbot.waitUntil(said_it, timeout=180_000)
        qtbot.wait(1500)  # more frames are drawn meanwhile (the scene plays)
    finally:
        app.kill()
        app.wait()
    lines = first_frame_lines(err_path.read_text())
    assert len(lines) == 1, lines
    assert LINE.match(lines[0]), lines[0]
