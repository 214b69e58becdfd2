"""Issue 25's targets in the real window: ``python -m benchmarks.interactive`` (``make bench``).

Each run is a child ``python -m viewer.bench.interactive SCENE --size WxH --frames N``
(what ``python -m viewer --benchmark SCENE --interactive`` runs: the main window, playing,
with the real event loop),
under the caller's display, or under its own virtual X server (``xvfb-run -a``, software
OpenGL) when there is none or ``--xvfb`` asks for it. Every run is repeated; a target's value
is the median of the repeats, except the longest GUI block, which is the longest of them (no
frame may block the window). Each line ends with PASS or MISS, the repeat count, the
1-minute load average before and after the runs and the cores other processes used meanwhile
(the window's own threads raise the load average by themselves: a run is flagged for rerun
when the others used more than half a core); a target that could not be measured is a MISS
that says why.

To change a target, change :data:`INTERACTIVE_TARGETS` only.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from benchmarks.conditions import (
    cpu_counters,
    high_load_warning,
    other_load_warning,
    other_processes_load,
)

CHILD_TIMEOUT_S = 1200.0
"""A child that has not printed its line by then is stopped."""
DEFAULT_REPEATS = 3
"""Runs of each window configuration."""


@dataclass(frozen=True)
class WindowRun:
    """One configuration of the window to measure.

    Attributes
    ----------
    scene : str
    width, height : int
    frames : int
        Measured frames per run.
    every_analysis : bool
        Switch on every optional analysis (``--every-analysis``).
    """

    scene: str
    width: int
    height: int
    frames: int = 300
    every_analysis: bool = False

    @property
    def label(self) -> str:
        words = f"{self.scene} {self.width}x{self.height}"
        return words + (", every analysis on" if self.every_analysis else "")


@dataclass(frozen=True)
class InteractiveTarget:
    """A target on one window configuration.

    Attributes
    ----------
    run : WindowRun
    metric : str
        ``"fps"`` (at least ``limit``), ``"core_ratio"`` (core in the window over core in
        the off-screen benchmark, at most ``limit``) or ``"block_ms"`` (longest GUI block,
        at most ``limit``).
    limit : float
    """

    run: WindowRun
    metric: str
    limit: float


BUNNY_1280 = WindowRun("bunny-bunny", 1280, 800)
BUNNY_1920 = WindowRun("bunny-bunny", 1920, 1080)
BIG_BUNNY = WindowRun("big-bunny", 1280, 800, frames=60, every_analysis=True)

INTERACTIVE_TARGETS: tuple[InteractiveTarget, ...] = (
    InteractiveTarget(BUNNY_1280, "fps", 30.0),
    InteractiveTarget(BUNNY_1280, "core_ratio", 1.3),
    InteractiveTarget(BUNNY_1920, "fps", 20.0),
    InteractiveTarget(BIG_BUNNY, "block_ms", 100.0),
)
"""Issue 25, item 3: bunny x bunny deforming at 1280x800 at least 30 frames a second in the
window, its core there within 1.3x of its ``--benchmark`` time, 1920x1080 at least 20; the
big bunny (278k triangles) with a deformer and every analysis on: no GUI block over 100 ms."""


@dataclass(frozen=True)
class Measured:
    """One child's line, parsed."""

    fps: float
    block_ms: float
    core_ms: float
    benchmark_ms: float


@dataclass
class RunResult:
    """The repeats of one :class:`WindowRun`.

    Attributes
    ----------
    run : WindowRun
    samples : list of Measured
    reason : str
        Why it could not be measured ("" when every repeat ran).
    load_start, load_end : float
        1-minute load average before the first and after the last repeat. The window keeps
        both cores busy itself, so these rise with its own work.
    other_load : float
        Cores that other processes kept busy during the repeats, on average (NaN when
        unknown): what says whether the machine was otherwise idle.
    """

    run: WindowRun
    samples: list = field(default_factory=list)
    reason: str = ""
    load_start: float = float("nan")
    load_end: float = float("nan")
    other_load: float = float("nan")


LINE = re.compile(
    r"^interactive (?P<scene>\S+) (?P<width>\d+)x(?P<height>\d+): (?P<fps>[\d.]+) fps, "
    r"longest GUI block (?P<block>[\d.]+) ms, core (?P<core>[\d.]+) ms "
    r"\(benchmark (?P<bench>[\d.]+) ms\)$")
"""The line of ``python -m viewer --benchmark SCENE --interactive``."""


def parse_line(text: str) -> Measured | None:
    """The last ``interactive ...`` line of ``text``, or None."""
    for line in reversed(text.splitlines()):
        match = LINE.match(line.strip())
        if match:
            return Measured(float(match["fps"]), float(match["block"]), float(match["core"]),
                            float(match["bench"]))
    return None


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def display_prefix(run: WindowRun, force_xvfb: bool = False) -> list[str] | None:
    """``[]`` to use the caller's display; ``xvfb-run`` with a free display number and a
    screen that holds the window; None when neither is available."""
    if has_display() and not force_xvfb:
        return []
    xvfb_run = shutil.which("xvfb-run")
    if xvfb_run is None or shutil.which("Xvfb") is None:
        return None
    width, height = max(run.width, 1920), max(run.height, 1080)
    return [xvfb_run, "-a", "-s", f"-screen 0 {width}x{height}x24"]


def child_command(run: WindowRun) -> list[str]:
    """``python -m viewer.bench.interactive SCENE --size WxH --frames N``: the same run
    as ``python -m viewer --benchmark SCENE --interactive``, through the module alone, so
    that an older checkout with that one file copied in measures the "before" numbers."""
    command = [sys.executable, "-m", "viewer.bench.interactive", run.scene,
               "--size", f"{run.width}x{run.height}", "--frames", str(run.frames)]
    return command + (["--every-analysis"] if run.every_analysis else [])


def measure(run: WindowRun, repeats: int = DEFAULT_REPEATS, force_xvfb: bool = False,
            spawn=subprocess.run, loadavg=os.getloadavg, counters=cpu_counters,
            clock=time.perf_counter) -> RunResult:
    """Run ``run`` ``repeats`` times, each in a child (``spawn`` is :func:`subprocess.run`,
    ``loadavg`` :func:`os.getloadavg`, ``counters``
    :func:`benchmarks.conditions.cpu_counters`; replaceable in tests)."""
    result = RunResult(run, load_start=loadavg()[0])
    before, start = counters(), clock()
    prefix = display_prefix(run, force_xvfb)
    if prefix is None:
        result.reason = "not measured: no display and no Xvfb (xvfb-run and Xvfb, package xvfb)"
    for _ in range(repeats if prefix is not None else 0):
        try:
            done = spawn([*prefix, *child_command(run)], capture_output=True, text=True,
                         timeout=CHILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            result.reason = f"not measured: no result in {CHILD_TIMEOUT_S:.0f} s"
            break
        measured = parse_line(done.stdout) if done.returncode == 0 else None
        if measured is None:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            result.reason = (f"not measured: the interactive benchmark failed "
                             f"(exit {done.returncode}: {last})")
            break
        result.samples.append(measured)
    result.load_end = loadavg()[0]
    other = other_processes_load(before, counters(), clock() - start)
    result.other_load = float("nan") if other is None else other
    return result


def _value(target: InteractiveTarget, samples: list) -> tuple[float, str]:
    """The target's value over the repeats and its words."""
    if target.metric == "fps":
        fps = statistics.median(s.fps for s in samples)
        return fps, f"{fps:.1f} fps"
    if target.metric == "core_ratio":
        core = statistics.median(s.core_ms for s in samples)
        bench = statistics.median(s.benchmark_ms for s in samples)
        ratio = core / bench if bench > 0 else float("inf")
        return ratio, (f"core in the window {ratio:.2f}x its --benchmark time ({core:.1f} vs "
                       f"{bench:.1f} ms)")
    if target.metric == "block_ms":
        block = max(s.block_ms for s in samples)
        return block, f"longest GUI block {block:.0f} ms"
    raise ValueError(f"unknown metric {target.metric!r}")


def verdict(target: InteractiveTarget, result: RunResult) -> tuple[str, bool]:
    """``("interactive bunny-bunny 1280x800: 31.2 fps (target >= 30) PASS; median of 3
    runs, load 1.1->1.3", True)``; a MISS with the reason when it was not measured."""
    op, unit = {"fps": (">=", " fps"), "core_ratio": ("<=", "x"), "block_ms": ("<=", " ms")}[
        target.metric]
    head = f"interactive {target.run.label}: "
    goal = f"(target {op} {target.limit:g}{unit})"
    load = f"load {result.load_start:.1f}->{result.load_end:.1f}"
    if not math.isnan(result.other_load):
        load += f" (other processes {result.other_load:.2f} cores)"
    if not result.samples:
        return f"{head}{result.reason or 'not measured'} {goal} MISS; 0 runs, {load}", False
    value, words = _value(target, result.samples)
    is_pass = value >= target.limit if op == ">=" else value <= target.limit
    n = len(result.samples)
    how = (f"longest of {n} runs" if target.metric == "block_ms" else f"median of {n} runs")
    if n == 1:
        how = "1 run"
    partial = f" ({result.reason})" if result.reason else ""
    return (f"{head}{words} {goal} {'PASS' if is_pass else 'MISS'}; {how}{partial}, {load}",
            is_pass)


def render(results: dict) -> str:
    """Every target of :data:`INTERACTIVE_TARGETS`, one line each, under a heading with
    the PASS count. ``results`` maps a :class:`WindowRun` to its :class:`RunResult`."""
    verdicts = [verdict(t, results.get(t.run, RunResult(t.run, reason="not run")))
                for t in INTERACTIVE_TARGETS]
    n_pass = sum(is_pass for _line, is_pass in verdicts)
    head = (f"interactive targets ({n_pass} of {len(verdicts)} PASS; the main window playing, "
            "real event loop):")
    warnings = []
    for run, result in results.items():
        what = f"interactive {run.label}"
        if not math.isnan(result.other_load):
            # The window's own threads raise the load average: judge by the others' CPU.
            warning = other_load_warning(what, result.other_load)
        else:
            loads = [x for x in (result.load_start, result.load_end) if not math.isnan(x)]
            warning = high_load_warning(what, max(loads, default=None))
        if warning is not None:
            warnings.append(warning)
    return "\n".join([head, *(line for line, _is_pass in verdicts), *warnings])


def measure_all(repeats: int = DEFAULT_REPEATS, force_xvfb: bool = False,
                log: Callable[[str], None] | None = None) -> dict:
    """Every distinct :class:`WindowRun` of the targets, ``repeats`` children each."""
    results = {}
    for target in INTERACTIVE_TARGETS:
        if target.run in results:
            continue
        if log is not None:
            log(f"interactive: {target.run.label}, {target.run.frames} frames, "
                f"{repeats} runs")
        results[target.run] = measure(target.run, repeats, force_xvfb)
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.interactive",
                                     description="Issue 25's targets in the real window.")
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS,
                        help=f"runs of each window configuration (default {DEFAULT_REPEATS})")
    parser.add_argument("--xvfb", action="store_true",
                        help="run under xvfb-run even when a display is set")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    results = measure_all(args.repeats, args.xvfb,
                          lambda text: print(text, file=sys.stderr, flush=True))
    print(render(results), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
