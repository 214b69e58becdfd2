"""The interactive PASS/MISS lines of make bench, from made-up child lines (nothing timed)."""

from __future__ import annotations

import subprocess

from benchmarks import interactive
from benchmarks.interactive import (
    BIG_BUNNY,
    BUNNY_1280,
    BUNNY_1920,
    INTERACTIVE_TARGETS,
    Measured,
    RunResult,
    parse_line,
    render,
    verdict,
)


def _result(run, *samples, reason=""):
    return RunResult(run, [Measured(*s) for s in samples], reason, 1.2, 1.4)


def test_the_targets_of_issue_25():
    assert [(t.run, t.metric, t.limit) for t in INTERACTIVE_TARGETS] == [
        (BUNNY_1280, "fps", 30.0), (BUNNY_1280, "core_ratio", 1.3), (BUNNY_1920, "fps", 20.0),
        (BIG_BUNNY, "block_ms", 100.0)]
    assert BIG_BUNNY.scene == "big-bunny" and BIG_BUNNY.every_analysis


def test_parse_line_reads_the_viewer_line():
    text = ("note: analyses on: heat_map\n"
            "interactive bunny-bunny 1280x800: 24.3 fps, longest GUI block 61 ms, "
            "core 12.1 ms (benchmark 10.4 ms)\n")
    assert parse_line(text) == Measured(24.3, 61.0, 12.1, 10.4)
    assert parse_line("error: no display") is None


def test_fps_is_the_median_of_the_runs_with_load_and_repeat_count():
    fps, ratio, _big_fps, _block = INTERACTIVE_TARGETS
    result = _result(BUNNY_1280, (31.0, 40, 10.0, 9.0), (29.0, 50, 12.0, 9.0),
                     (33.0, 45, 11.0, 10.0))
    line, is_pass = verdict(fps, result)
    assert is_pass
    assert line == ("interactive bunny-bunny 1280x800: 31.0 fps (target >= 30 fps) PASS; "
                    "median of 3 runs, load 1.2->1.4")
    line, is_pass = verdict(ratio, result)  # median core 11.0 over median benchmark 9.0
    assert is_pass
    assert line == ("interactive bunny-bunny 1280x800: core in the window 1.22x its "
                    "--benchmark time (11.0 vs 9.0 ms) (target <= 1.3x) PASS; median of 3 "
                    "runs, load 1.2->1.4")
    slow = _result(BUNNY_1280, (31.0, 40, 14.0, 10.0))
    line, is_pass = verdict(ratio, slow)
    assert not is_pass and "1.40x" in line and line.endswith("MISS; 1 run, load 1.2->1.4")


def test_block_is_the_longest_of_the_runs():
    block = INTERACTIVE_TARGETS[3]
    line, is_pass = verdict(block, _result(BIG_BUNNY, (3.0, 80, 60.0, 55.0),
                                           (3.1, 140, 61.0, 55.0)))
    assert not is_pass
    assert line == ("interactive big-bunny 1280x800, every analysis on: longest GUI block "
                    "140 ms (target <= 100 ms) MISS; longest of 2 runs, load 1.2->1.4")
    line, is_pass = verdict(block, _result(BIG_BUNNY, (3.0, 80, 60.0, 55.0)))
    assert is_pass and line.endswith("PASS; 1 run, load 1.2->1.4")


def test_not_measured_is_a_miss_saying_why():
    line, is_pass = verdict(INTERACTIVE_TARGETS[2],
                            _result(BUNNY_1920, reason="not measured: no display and no Xvfb"))
    assert not is_pass
    assert line == ("interactive bunny-bunny 1920x1080: not measured: no display and no Xvfb "
                    "(target >= 20 fps) MISS; 0 runs, load 1.2->1.4")


def test_render_counts_the_passes():
    text = render({BUNNY_1280: _result(BUNNY_1280, (31.0, 40, 10.0, 9.0)),
                   BUNNY_1920: _result(BUNNY_1920, (19.0, 40, 10.0, 9.0))})
    lines = text.splitlines()
    assert lines[0].startswith("interactive targets (2 of 4 PASS;")
    assert [line.split(";")[0].rsplit(" ", 1)[-1] for line in lines[1:]] == [
        "PASS", "PASS", "MISS", "MISS"]
    assert "not run" in lines[4]
    assert len(lines) == 5  # loads of 1.2 and 1.4: no warning


def test_render_warns_for_a_run_measured_above_load_one_and_a_half():
    busy = RunResult(BUNNY_1920, [Measured(19.0, 40, 10.0, 9.0)], "", 1.2, 2.3)
    lines = render({BUNNY_1920: busy}).splitlines()
    assert lines[-1] == ("warning: interactive bunny-bunny 1920x1080 was measured at load 2.3 "
                         "(above 1.5): rerun on an idle machine before reporting a PASS")


def test_measure_runs_the_viewer_line_under_xvfb_when_there_is_no_display(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(interactive.shutil, "which", lambda name: f"/usr/bin/{name}")
    calls = []

    def spawn(command, **_kwargs):
        calls.append(command)
        return subprocess.CompletedProcess(
            command, 0, "interactive big-bunny 1280x800: 3.0 fps, longest GUI block 90 ms, "
                        "core 60.0 ms (benchmark 55.0 ms)\n", "")

    loads = iter([(1.5, 0, 0), (1.7, 0, 0)])
    result = interactive.measure(BIG_BUNNY, 2, spawn=spawn, loadavg=lambda: next(loads))
    assert len(result.samples) == 2 and (result.load_start, result.load_end) == (1.5, 1.7)
    assert calls[0][:4] == ["/usr/bin/xvfb-run", "-a", "-s", "-screen 0 1920x1080x24"]
    assert calls[0][-7:] == ["viewer.bench.interactive", "big-bunny", "--size",
                             "1280x800", "--frames", "60", "--every-analysis"]


def test_a_failed_child_is_a_miss_with_its_last_words(monkeypatch):
    monkeypatch.setenv("DISPLAY", ":99")

    def spawn(command, **_kwargs):
        return subprocess.CompletedProcess(command, 1, "", "error: scene x: no frame\n")

    result = interactive.measure(BUNNY_1280, 3, spawn=spawn, loadavg=lambda: (0.5, 0, 0))
    assert result.samples == []
    line, is_pass = verdict(INTERACTIVE_TARGETS[0], result)
    assert not is_pass
    assert "the interactive benchmark failed (exit 1: error: scene x: no frame)" in line


def test_other_processes_load_is_the_machines_busy_time_less_the_childrens():
    from benchmarks.conditions import other_processes_load

    assert other_processes_load((100.0, 10.0), (103.0, 12.0), 2.0) == 0.5
    assert other_processes_load((100.0, 10.0), (101.0, 12.0), 2.0) == 0.0  # never below 0
    assert other_processes_load(None, (1.0, 1.0), 2.0) is None


def test_cpu_counters_read_the_cpu_line_without_idle_and_iowait(tmp_path):
    import os

    from benchmarks.conditions import cpu_counters

    stat = tmp_path / "stat"
    stat.write_text("cpu  100 20 50 9000 400 3 7 2 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n")
    busy, children = cpu_counters(str(stat))
    assert busy == (100 + 20 + 50 + 3 + 7 + 2) / os.sysconf("SC_CLK_TCK")
    assert children >= 0.0
    assert cpu_counters(str(tmp_path / "missing")) is None


def test_the_line_names_the_other_processes_and_only_their_load_is_warned_about():
    result = RunResult(BUNNY_1280, [Measured(31.0, 40, 10.0, 9.0)], "", 1.0, 2.3, 0.04)
    line, is_pass = verdict(INTERACTIVE_TARGETS[0], result)
    assert is_pass and line.endswith("1 run, load 1.0->2.3 (other processes 0.04 cores)")
    # Load 2.3 from the window's own threads: no warning while the others stayed idle.
    assert "warning" not in render({BUNNY_1280: result})
    busy = RunResult(BUNNY_1280, [Measured(31.0, 40, 10.0, 9.0)], "", 1.0, 2.3, 0.9)
    assert render({BUNNY_1280: busy}).splitlines()[-1] == (
        "warning: during interactive bunny-bunny 1280x800 other processes used 0.9 cores "
        "(above 0.5): rerun on an idle machine before reporting a PASS")


def test_measure_reads_the_cpu_counters_around_the_repeats(monkeypatch):
    monkeypatch.setenv("DISPLAY", ":99")

    def spawn(command, **_kwargs):
        return subprocess.CompletedProcess(
            command, 0, "interactive bunny-bunny 1280x800: 30.0 fps, longest GUI block 40 "
                        "ms, core 10.0 ms (benchmark 9.0 ms)\n", "")

    counters = iter([(50.0, 5.0), (70.0, 23.0)])  # 20 s busy, 18 s of it the children's
    clock = iter([0.0, 10.0])
    result = interactive.measure(BUNNY_1280, 2, spawn=spawn, loadavg=lambda: (0.5, 0, 0),
                                 counters=lambda: next(counters), clock=lambda: next(clock))
    assert len(result.samples) == 2 and result.other_load == 0.2
