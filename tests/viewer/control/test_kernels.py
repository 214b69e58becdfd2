"""A first start (no compiled kernels): the first frame comes while the kernels compile in the
background, the status bar shows the compile's progress, a choice whose kernels are not
compiled yet says so, and a killed app leaves no compiler running (issue 15, cold start)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from PyQt6.QtWidgets import QLabel

from core.jit import interpreted
from tests.viewer.conftest import settle, status_said
from viewer.control.kernels import steps_for_choice
from viewer.state.pipeline import PipelineChoice
from viewer.state.status import KernelStatus

ROOT = Path(__file__).resolve().parents[3]
LINE = re.compile(r"^first frame after (\d+\.\d) s$")


def _warmup_processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every ``core warmup`` process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if "-m core warmup" in cmd:
            found[int(entry.name)] = (ppid, cmd)
    return found


def _descendants(root: int) -> dict[int, str]:
    procs = _warmup_processes()
    family, grown = {root}, True
    while grown:
        grown = False
        for pid, (ppid, _cmd) in procs.items():
            if ppid in family and pid not in family:
                family.add(pid)
                grown = True
    return {pid: procs[pid][1] for pid in family if pid in procs}


def test_a_cold_start_draws_the_first_frame_while_the_kernels_compile(qtbot, tmp_path):
    """The real entry point with an empty kernel cache: the line comes while the background
    compile still runs; killing the app ends the compile and its workers."""
    err_path = tmp_path / "stderr.txt"
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"),
               NUMBA_CACHE_DIR=str(tmp_path / "empty-cache"))
    with open(err_path, "w") as err:
        app = subprocess.Popen([sys.executable, "-m", "viewer", "--scene", "two-spheres"],
                               cwd=ROOT, env=env, stderr=err, stdout=subprocess.DEVNULL)
    try:
        def said_it() -> bool:
            assert app.poll() is None, err_path.read_text()[-3000:]
            return "first frame after" in err_path.read_text()

        qtbot.waitUntil(said_it, timeout=180_000)
        compiling = _descendants(app.pid)
        # The coordinator and its two workers were still compiling when the frame came.
        assert any(cmd.endswith("--nice 5") for cmd in compiling.values()), compiling
        assert sum("--worker" in cmd for cmd in compiling.values()) >= 1, compiling
        assert not (tmp_path / "empty-cache" / "warm-up-complete").exists()
    finally:
        app.send_signal(signal.SIGKILL)
        app.wait()
    lines = [x for x in err_path.read_text().splitlines() if x.startswith("first frame")]
    assert len(lines) == 1 and LINE.match(lines[0]), lines
    # The kernel ends the compile with the app (PR_SET_PDEATHSIG), and its workers with it.
    for _ in range(100):
        if not any(pid in _warmup_processes() for pid in compiling):
            break
        time.sleep(0.1)
    assert not any(pid in _warmup_processes() for pid in compiling), compiling


def test_the_status_bar_shows_the_compile_and_the_choice_waiting_for_it(make_window, qtbot):
    window = make_window(scene="two-spheres")
    settle(qtbot, window)
    bar = window.kernel_status.bar
    assert bar.isHidden()  # a warm cache: nothing compiles
    model = window.model
    model.set_kernels(KernelStatus(n_done=0, n_steps=21, is_compiling=True))
    assert not bar.isHidden() and bar.format() == "Compiling kernels 0 of 21"
    model.set_kernels(KernelStatus(n_done=5, n_steps=21, keys_done=frozenset(
        {"triangle-tests", "trees", "frame", "traversal", "bv-aabb"}), is_compiling=True))
    assert bar.format() == "Compiling kernels 5 of 21"
    assert (bar.value(), bar.maximum()) == (5, 21)
    note = window.findChild(QLabel, "compile_note")
    assert note.isHidden()  # the default choice's kernels are compiled
    model.set_pipeline(bv="obb")
    assert not note.isHidden()
    assert "Not compiled yet:</b> the oriented box (OBB) kernels (compiling kernels 5 of 21" in (
        note.text())
    message = window.statusBar().currentMessage()
    assert message.startswith("Not compiled yet: the oriented box (OBB) kernels (compiling "
                              "kernels 5 of 21)."), message
    model.set_kernels(KernelStatus(n_done=6, n_steps=21, keys_done=frozenset(
        {"triangle-tests", "trees", "frame", "traversal", "bv-aabb", "bv-obb"}), is_compiling=True))
    assert window.statusBar().currentMessage() == (
        "Compiled: the oriented box (OBB) kernels. Frames run at full speed now.")
    assert note.isHidden()
    model.set_kernels(KernelStatus(n_done=21, n_steps=21, is_compiling=False, seconds=128.4))
    assert bar.isHidden()
    assert window.statusBar().currentMessage().startswith("Kernels compiled in 128 s")


def test_the_background_compile_runs_reports_and_ends(make_window, qtbot):
    """The real background process on the suite's warm cache: every step is reported, the
    kernels stop running as Python at the end and the frame is computed again."""
    window = make_window(scene="two-spheres")
    settle(qtbot, window)
    seen = []
    window.model.kernels_changed.connect(lambda status: seen.append(status))
    n_frames = window.controller.frames.n_frames
    window.controller.kernels.start_kernel_compile()
    assert interpreted.is_interpreting()
    qtbot.waitUntil(lambda: seen and not seen[-1].is_compiling, timeout=300_000)
    assert seen[-1].error == ""
    assert seen[-1].n_done == seen[-1].n_steps > 10
    assert [s.n_done for s in seen[:-1]] == list(range(0, seen[-1].n_steps + 1))
    assert not interpreted.is_interpreting()
    settle(qtbot, window)
    assert window.controller.frames.n_frames > n_frames
    assert status_said(window, "Kernels compiled in ").startswith("Kernels compiled in ")


def test_each_choice_names_the_kernels_it_waits_for():
    from core.jit.warmup import step_keys

    first = (("triangle-tests", "trees", "frame"), "the first frame's kernels")
    assert steps_for_choice(PipelineChoice()) == [first]
    needs = steps_for_choice(PipelineChoice(bv="kdop14", partition="grid", split="SAH",
                                            margin=0.1))
    assert [keys for keys, _ in needs] == [first[0], ("splits",), ("bv-kdop14",),
                                           ("partition-grid",), ("near",)]
    assert dict(needs)[("partition-grid",)] == "the uniform grid kernels"
    # Every key named is a step the warm-up runs.
    assert {key for keys, _ in needs for key in keys} <= set(step_keys())
