"""The frame-rate PASS/MISS lines of make bench, from made-up child outputs (nothing timed)."""

from __future__ import annotations

import subprocess

from benchmarks import frame_rate
from benchmarks.frame_rate import FrameRateOutcome, FrameRateSpec
from viewer.bench.frame_rate import format_frame_phase_table

SMALL, LARGE = frame_rate.FRAME_RATE_TARGETS


def _report(frame_ms: float, render_ms: float) -> dict:
    """A viewer benchmark report with made-up medians."""
    median = {"deform": 0.5, "update": 2.0, "fit": 0.0, "traverse": 3.0, "tritri": 2.5,
              "core": 8.0, "overlay": 3.1, "render": render_ms, "frame": frame_ms}
    return {"scene": "bunny-bunny", "bv": "aabb", "split": "midpoint", "frames": 60,
            "triangles": [69451, 69451], "threads": 2, "median_ms": median,
            "fps": 1e3 / frame_ms, "contacts": 1234, "window": (1280, 800),
            "notes": ["Bunny A: drawn with 20,000 of 69,451 triangles (display only; "
                      "collision uses all)"]}


def _child(stdout: str, returncode: int = 0, stderr: str = ""):
    calls = []

    def run(command, **kwargs):
        calls.append(command)
        return subprocess.CompletedProcess(command, returncode, stdout, stderr)

    return run, calls


def test_targets_are_30_fps_at_1280x800_and_20_at_1920x1080():
    assert (SMALL.size, SMALL.min_fps) == ("1280x800", 30.0)
    assert (LARGE.size, LARGE.min_fps) == ("1920x1080", 20.0)


def test_lines_say_fps_target_and_verdict():
    miss = FrameRateOutcome(SMALL, 24.14, median_ms={"core total": 8.0, "overlay update": 3.1,
                                                     "render": 29.04})
    assert miss.line() == ("frame rate 1280x800: 24.1 fps (target >= 30) MISS; core 8.0, "
                           "overlays 3.1, render 29.0 ms")
    assert FrameRateOutcome(LARGE, 20.0).line() == (
        "frame rate 1920x1080: 20.0 fps (target >= 20) PASS")
    assert FrameRateOutcome(SMALL, 29.96).verdict == "MISS"
    text = frame_rate.render([miss, FrameRateOutcome(LARGE, 21.5)])
    assert text.splitlines()[0].startswith("frame-rate targets (1 of 2 PASS; bunny-bunny")
    assert text.splitlines()[2] == "frame rate 1920x1080: 21.5 fps (target >= 20) PASS"


def test_the_viewer_benchmark_table_is_read_back():
    rows = frame_rate.parse_phase_table(format_frame_phase_table(_report(28.5, 17.25)))
    assert rows["frames/second"] == 35.1
    assert rows["render"] == 17.25
    assert rows["core total"] == 8.0
    assert rows["overlay update"] == 3.1
    assert "scene bunny-bunny (aabb, midpoint split): 60 frames" not in rows


def test_measure_runs_the_viewer_benchmark_at_the_size_under_its_own_xvfb(monkeypatch):
    monkeypatch.setattr(frame_rate.shutil, "which", lambda name: f"/usr/bin/{name}")
    run, calls = _child(format_frame_phase_table(_report(40.0, 25.0)))
    out = frame_rate.measure(LARGE, run=run)
    command = calls[0]
    # -a: a free display number, so two runs at once never share one.
    assert command[:4] == ["/usr/bin/xvfb-run", "-a", "-s", "-screen 0 1920x1080x24"]
    assert command[-8:] == ["-m", "viewer", "--benchmark", "bunny-bunny", "--frames", "60",
                            "--size", "1920x1080"]
    # Then the load around the child's run and its frames (benchmarks.conditions).
    assert out.line() == ("frame rate 1920x1080: 25.0 fps (target >= 20) PASS; core 8.0, "
                          f"overlays 3.1, render 25.0 ms; {out.conditions.words()}")
    assert out.conditions.words().endswith(", 60 frames")


def test_without_xvfb_the_line_is_a_miss_that_says_why(monkeypatch):
    monkeypatch.setattr(frame_rate.shutil, "which",
                        lambda name: None if name == "Xvfb" else f"/usr/bin/{name}")
    run, calls = _child("")
    out = frame_rate.measure(SMALL, run=run)
    assert calls == []
    assert out.line() == ("frame rate 1280x800: not measured: no Xvfb (xvfb-run and Xvfb, "
                          "package xvfb) (target >= 30) MISS")


def test_a_failed_child_is_a_miss_with_its_last_error_line():
    run, _calls = _child("", returncode=1, stderr="Traceback ...\nRuntimeError: no GLX\n")
    out = frame_rate.measure(SMALL, run=run, xvfb=lambda _spec: ["xvfb-run", "-a"])
    assert out.fps is None and out.verdict == "MISS"
    assert "exit 1: RuntimeError: no GLX" in out.line()


def test_a_saved_outcome_reads_back_the_same():
    out = FrameRateOutcome(FrameRateSpec(1920, 1080, 20.0), 18.25, median_ms={
        "core total": 9.0, "overlay update": 3.0, "render": 40.0})
    assert frame_rate.outcome_from_json(out.as_json()).line() == out.line()
    missing = FrameRateOutcome(SMALL, None, "not measured: no Xvfb")
    assert frame_rate.outcome_from_json(missing.as_json()).line() == missing.line()


def test_viewer_benchmark_size_option_rejects_a_bad_size_in_one_line(capsys):
    from viewer.__main__ import main

    assert main(["--benchmark", "bunny-bunny", "--size", "wide"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "error: --size 'wide': write WIDTHxHEIGHT, e.g. 1280x720"
