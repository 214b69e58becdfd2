"""``python -m viewer --benchmark SCENE --interactive``: the one line it prints (run for a few
frames in the real window under pytest-xvfb; no timing is asserted), its heartbeat, and the
one-line errors without a display or with a bad option."""

from __future__ import annotations

import re

import pytest

from benchmarks.interactive import LINE
from viewer.__main__ import main
from viewer.bench import interactive as ib

INTERFACE = re.compile(
    r"^interactive two-spheres 1280x800: \d+\.\d fps, longest GUI block \d+ ms, "
    r"core \d+\.\d ms \(benchmark \d+\.\d ms\)$")
"""The line as issue 25 names it: ``interactive SCENE WxH: X fps, longest GUI block Y ms,
core Z ms (benchmark W ms)``."""


def test_the_window_played_a_few_frames_prints_the_interface_line(qapp):
    report = ib.run_interactive("two-spheres", n_frames=3, n_warmup=2, benchmark_frames=2)
    line = ib.format_interactive_line(report)
    assert INTERFACE.match(line), line
    assert LINE.match(line), line  # what make bench parses
    assert report["frames"] == 3 and report["fps"] > 0 and report["n_heartbeats"] >= 1
    assert report["core_ms"] > 0 and report["benchmark_core_ms"] > 0


def test_every_analysis_switches_on_the_heat_map_and_the_ghost():
    from viewer.model import ViewerModel

    model = ViewerModel()
    names = ib.switch_on_every_analysis(model)
    assert model.display.heat_map == "work" and model.display.show_ghost
    assert {"heat_map", "show_ghost"} <= set(names)
    assert not model.is_self_collision  # a choice that changes the workload stays off


@pytest.mark.parametrize("env", [{}, {"QT_QPA_PLATFORM": "offscreen"}])
def test_without_a_display_one_line_and_a_nonzero_exit(monkeypatch, capsys, env):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["--benchmark", "two-spheres", "--interactive", "--frames", "3"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("error: --interactive needs a display: ")


@pytest.mark.parametrize(("argv", "words"), [
    (["--interactive"], "--interactive and --every-analysis need --benchmark SCENE"),
    (["--benchmark", "two-spheres", "--interactive", "--size", "big"], "--size 'big'"),
    (["--benchmark", "two-spheres", "--every-analysis"], "--every-analysis needs --interactive"),
])
def test_bad_options_are_one_line_naming_the_option(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and words in err


def test_heartbeat_block_is_the_longest_gap_minus_the_period(qapp):
    times = iter([0.0, 0.010, 0.020, 0.270, 0.280, 0.290])
    beat = ib.Heartbeat(period_ms=10, clock=lambda: next(times))
    beat.start()  # 0.0
    for _ in range(4):
        beat.tick()  # 0.010, 0.020, 0.270 (250 ms gap), 0.280
    longest = beat.stop()  # one last tick at 0.290
    assert longest == pytest.approx(0.240)
    assert beat.n_ticks == 5


def test_benchmark_only_scene_is_loadable_only_while_registered():
    from viewer.scenes import SCENES

    assert "big-bunny" not in SCENES  # not in the menu, nor in the tests over every scene
    with ib.benchmark_scene("big-bunny"):
        assert SCENES["big-bunny"].bodies[0].deformer is not None
    assert "big-bunny" not in SCENES
