"""Issue 15's frame-rate targets: bunny x bunny deforming, drawn at two window sizes.

Each size runs ``python -m viewer --benchmark bunny-bunny --size WxH`` in a child process
under its own virtual X server (``xvfb-run -a``: a free display number, so two runs never
share one), the way the window draws: software OpenGL, every default overlay on. The child's
frame rate is 1 / median whole frame (core, overlay update and render). A size that could
not be measured (no Xvfb, the child failed) is a MISS with the reason, like
:mod:`benchmarks.targets`.

To change a target, change :data:`FRAME_RATE_TARGETS` only.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

from benchmarks.conditions import Conditions

SCENE = "bunny-bunny"
N_FRAMES = 60
"""Timed frames per size (after the benchmark's 10 untimed ones)."""
CHILD_TIMEOUT_S = 900.0
"""A child that has not finished by then is stopped (a cold kernel cache compiles for about
two minutes on two cores; ``make bench`` warms it first)."""


@dataclass(frozen=True)
class FrameRateSpec:
    """One frame-rate target.

    Attributes
    ----------
    width, height : int
        Window size in pixels.
    min_fps : float
        PASS iff the measured frames per second is at least this.
    """

    width: int
    height: int
    min_fps: float

    @property
    def size(self) -> str:
        return f"{self.width}x{self.height}"


FRAME_RATE_TARGETS: tuple[FrameRateSpec, ...] = (
    FrameRateSpec(1280, 800, 30.0),
    FrameRateSpec(1920, 1080, 20.0),
)


@dataclass(frozen=True)
class FrameRateOutcome:
    """A frame-rate target and what this run measured.

    Attributes
    ----------
    spec : FrameRateSpec
    fps : float or None
        None when it could not be measured; ``reason`` says why.
    reason : str
    median_ms : dict
        Median milliseconds of the phases the line names (``core total``, ``overlay
        update``, ``render``), when measured.
    conditions : Conditions or None
        The load around the child's run and its timed frames.
    """

    spec: FrameRateSpec
    fps: float | None
    reason: str = ""
    median_ms: dict | None = None
    conditions: Conditions | None = None

    @property
    def verdict(self) -> str:
        return "PASS" if self.fps is not None and self.fps >= self.spec.min_fps else "MISS"

    @property
    def title(self) -> str:
        return f"frame rate {self.spec.size}"

    def line(self) -> str:
        """``frame rate 1280x800: 24.1 fps (target >= 30) MISS; core 8.0, overlays 3.1,
        render 29.0 ms``."""
        measured = f"{self.fps:.1f} fps" if self.fps is not None else self.reason
        line = f"{self.title}: {measured} (target >= {self.spec.min_fps:g}) {self.verdict}"
        ms = self.median_ms or {}
        if all(k in ms for k in ("core total", "overlay update", "render")):
            line += (f"; core {ms['core total']:.1f}, overlays {ms['overlay update']:.1f}, "
                     f"render {ms['render']:.1f} ms")
        if self.conditions is not None:
            line += f"; {self.conditions.words()}"
        return line

    def as_json(self) -> dict:
        return {"target": self.title, "limit_fps": self.spec.min_fps, "fps": self.fps,
                "verdict": self.verdict, "reason": self.reason, "median_ms": self.median_ms,
                "conditions": self.conditions.as_json() if self.conditions else None}


def outcome_from_json(entry: dict) -> FrameRateOutcome:
    """Inverse of :meth:`FrameRateOutcome.as_json` (``python -m benchmarks --show``)."""
    width, height = (int(x) for x in entry["target"].split()[-1].split("x"))
    return FrameRateOutcome(FrameRateSpec(width, height, float(entry["limit_fps"])),
                            entry["fps"], entry.get("reason", ""), entry.get("median_ms"),
                            Conditions.from_json(entry.get("conditions")))


_ROW = re.compile(r"^(?P<label>[a-z/ ]+?)\s+(?P<value>\d+(?:\.\d+)?)$")


def parse_phase_table(text: str) -> dict[str, float]:
    """The rows of ``viewer.bench.frame_rate.format_frame_phase_table``: ``{label: number}``.

    Phase rows are median milliseconds (``"render": 29.0``); the last row is
    ``"frames/second"``. Other lines (the heading, notes) are ignored.
    """
    rows = {}
    for line in text.splitlines():
        match = _ROW.match(line.strip())
        if match:
            rows[match["label"].strip()] = float(match["value"])
    return rows


def xvfb_command(spec: FrameRateSpec) -> list[str] | None:
    """``xvfb-run`` with a free display and a screen holding the window; None without it."""
    xvfb_run = shutil.which("xvfb-run")
    if xvfb_run is None or shutil.which("Xvfb") is None:
        return None
    return [xvfb_run, "-a", "-s", f"-screen 0 {spec.width}x{spec.height}x24"]


def benchmark_command(spec: FrameRateSpec, n_frames: int = N_FRAMES) -> list[str]:
    return [sys.executable, "-m", "viewer", "--benchmark", SCENE, "--frames", str(n_frames),
            "--size", spec.size]


def measure(spec: FrameRateSpec, n_frames: int = N_FRAMES, run=subprocess.run,
            xvfb=xvfb_command) -> FrameRateOutcome:
    """Run the viewer benchmark at ``spec``'s size in a child under its own Xvfb.

    ``run`` and ``xvfb`` are :func:`subprocess.run` and :func:`xvfb_command` (replaceable
    to test the outcomes without a display).
    """
    prefix = xvfb(spec)
    if prefix is None:
        return FrameRateOutcome(spec, None, "not measured: no Xvfb (xvfb-run and Xvfb, "
                                            "package xvfb)")
    conditions = Conditions(n_frames, unit="frames")
    try:
        with conditions:
            done = run([*prefix, *benchmark_command(spec, n_frames)], capture_output=True,
                       text=True, timeout=CHILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return FrameRateOutcome(spec, None, f"not measured: no result in {CHILD_TIMEOUT_S:.0f} s")
    rows = parse_phase_table(done.stdout)
    if done.returncode != 0 or "frames/second" not in rows:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return FrameRateOutcome(spec, None, f"not measured: the viewer benchmark failed "
                                            f"(exit {done.returncode}: {last})")
    return FrameRateOutcome(spec, rows["frames/second"], median_ms={
        k: rows[k] for k in ("core total", "overlay update", "render") if k in rows},
        conditions=conditions)


def measure_all(log=None) -> list[FrameRateOutcome]:
    """Every target of :data:`FRAME_RATE_TARGETS`, one child each."""
    out = []
    for spec in FRAME_RATE_TARGETS:
        if log is not None:
            log(f"frame rate: {SCENE} at {spec.size} under Xvfb ({N_FRAMES} frames)")
        out.append(measure(spec))
    return out


def render(outcomes: list[FrameRateOutcome]) -> str:
    """The frame-rate lines of ``make bench``."""
    n_pass = sum(o.verdict == "PASS" for o in outcomes)
    head = (f"frame-rate targets ({n_pass} of {len(outcomes)} PASS; {SCENE} deforming, "
            "every default overlay on, software OpenGL under Xvfb):")
    warnings = [o.conditions.warning(o.title) for o in outcomes if o.conditions is not None]
    return "\n".join([head, *(o.line() for o in outcomes), *filter(None, warnings)])
