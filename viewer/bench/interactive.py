"""``python -m viewer --benchmark SCENE --interactive [--size WxH] [--frames N]``: the real
window, playing.

Opens the main window as ``python -m viewer`` does (under the display it is given, e.g.
``xvfb-run -s "-screen 0 1920x1080x24"``), loads SCENE, plays it with its deformers through
the controller's own animation timer and the Qt event loop, and after a warm-up measures N
delivered frames. One line comes out::

    interactive bunny-bunny 1280x800: 24.3 fps, longest GUI block 61 ms, core 12.1 ms
    (benchmark 10.4 ms)

(on one line): frames delivered (drawn) per second over the measured frames; the longest
time the GUI thread did not answer a heartbeat timer (:class:`Heartbeat`: the interval
between two ticks minus the timer's period); the median core time of the measured frames;
and the median core time of the off-screen ``--benchmark`` (:func:`viewer.bench.frame_rate.
run_benchmark`) of the same scene and size, run in the same process right after.

The module uses only the window, controller and model API that the app has had since issue
24 (``viewer.app.build_window``, ``model.set_playing``, ``model.frame_ready``,
``frame.timings``), and guards anything newer, so that it can be copied into an older
checkout (with ``viewer/bench/__init__.py``) to measure the "before" numbers: ``python -m
viewer.bench.interactive SCENE [--size WxH] [--frames N] [--every-analysis]`` runs it there.

Benchmark-only scenes (:data:`BENCHMARK_SCENES`, e.g. ``big-bunny``) are not in the menu or
the tests: they are registered in ``viewer.scenes.SCENES`` only while a benchmark runs.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_SIZE = (1280, 800)
"""Window size of ``--interactive`` without ``--size``."""
DEFAULT_FRAMES = 300
"""Measured frames of ``--interactive`` without ``--frames``."""
N_WARMUP = 30
"""Frames delivered before the measurement starts (first renders, kernel cache loads)."""
HEARTBEAT_MS = 10
"""Period of the GUI thread's heartbeat timer."""
STALL_S = 180.0
"""No frame delivered for this long (warm-up included): the run stops with an error (a cold
kernel cache compiles for about two minutes on two cores)."""

LINE_FORMAT = ("interactive {scene} {width}x{height}: {fps:.1f} fps, longest GUI block "
               "{block_ms:.0f} ms, core {core_ms:.1f} ms (benchmark {benchmark_ms:.1f} ms)")
"""The one line ``--interactive`` prints (an interface: ``make bench`` parses it)."""


class InteractiveBenchmarkError(Exception):
    """The benchmark could not run (no display, a scene that does not load, no frames)."""


# -- benchmark-only scenes ----------------------------------------------------------------

def subdivided_asset(name: str, n_subdivisions: int = 1):
    """A shape function (``viewer.scenes.ShapeFn``): the shipped asset ``name`` with every
    triangle split into four ``n_subdivisions`` times (the same surface, 4**n times the
    triangles).

    Returns
    -------
    callable
        ``make() -> (vertices (n, 3) float64, faces (m, 3) int64)``.
    """
    import numpy as np

    def make():
        import pyvista as pv

        from viewer.scenes import ASSETS_DIR

        poly = pv.read(str(ASSETS_DIR / name)).triangulate().clean()
        poly = poly.subdivide(n_subdivisions, subfilter="linear")
        faces = np.asarray(poly.faces).reshape(-1, 4)[:, 1:]
        return np.asarray(poly.points, dtype=np.float64), faces.astype(np.int64)

    return make


def _benchmark_scenes() -> dict:
    from viewer.scenes import BodySpec, SceneSpec, pose_matrix

    big_bunny = SceneSpec(
        "big-bunny",
        "Big bunny (278k, subdivided once) vs bunny (benchmark)",
        "The bunny with every triangle split in four, waving, against the bunny: the big-mesh "
        "workload of issue 25 (no frame may block the window).",
        (
            BodySpec("big bunny", subdivided_asset("stanford-bunny.obj", 1), fit_size=2.0,
                     deformer="wave"),
            BodySpec("bunny", "stanford-bunny.obj", pose_matrix((0.6, 0.2, 0.0), (0, 1, 0), 40.0),
                     fit_size=2.0),
        ),
        playing=True,
    )
    return {big_bunny.key: big_bunny}


BENCHMARK_SCENES: tuple[str, ...] = ("big-bunny",)
"""Scenes only the benchmarks open (:func:`benchmark_scene`); not in ``SCENES``."""


@contextlib.contextmanager
def benchmark_scene(key: str):
    """Make scene ``key`` loadable by the controller while the block runs: a benchmark-only
    scene is put in ``viewer.scenes.SCENES`` and taken out afterwards; a built-in one is
    left as it is."""
    from viewer.scenes import SCENES

    added = key not in SCENES and key in BENCHMARK_SCENES
    if added:
        SCENES[key] = _benchmark_scenes()[key]
    try:
        yield
    finally:
        if added:
            SCENES.pop(key, None)


# -- measuring ----------------------------------------------------------------------------

def display_problem() -> str:
    """Why no window can be shown here ("" when one can): Linux needs ``DISPLAY`` or
    ``WAYLAND_DISPLAY``, and Qt's ``offscreen``/``minimal`` platforms draw nowhere."""
    platform = os.environ.get("QT_QPA_PLATFORM", "").split(":")[0].strip().lower()
    if platform in ("offscreen", "minimal", "vnc"):
        return f"QT_QPA_PLATFORM={platform} shows no window"
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY")
                                                 or os.environ.get("WAYLAND_DISPLAY")):
        return "no display (DISPLAY and WAYLAND_DISPLAY are not set)"
    return ""


class Heartbeat:
    """A timer on the GUI thread ticking every ``period_ms``; the longest block is the
    longest interval between two ticks minus the period (what the user waited on a frozen
    window, to within a period).

    Parameters
    ----------
    period_ms : int
    clock : callable
        Seconds (``time.perf_counter``; replaceable in tests).
    """

    def __init__(self, period_ms: int = HEARTBEAT_MS, clock=time.perf_counter):
        from PyQt6.QtCore import Qt, QTimer

        self.period_s = period_ms / 1000.0
        self.clock = clock
        self.longest_block_s = 0.0
        self.n_ticks = 0
        self._last: float | None = None
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(period_ms)
        self._timer.timeout.connect(self.tick)

    def start(self) -> None:
        self.longest_block_s, self.n_ticks = 0.0, 0
        self._last = self.clock()
        self._timer.start()

    def tick(self) -> None:
        now = self.clock()
        if self._last is not None:
            self.longest_block_s = max(self.longest_block_s, now - self._last - self.period_s)
        self._last = now
        self.n_ticks += 1

    def stop(self) -> float:
        """Stop; the longest block in seconds, counting the time since the last tick."""
        if self._timer.isActive():
            self.tick()
        self._timer.stop()
        return self.longest_block_s


def switch_on_every_analysis(model) -> list[str]:
    """Turn on every optional analysis the model offers: the heat map (work), the ghost
    tree, and every on/off choice of the pipeline (distance, containment, ... where the app
    has them; not self-collision, which changes the workload). Returns their names."""
    names = []
    display_changes = {}
    if hasattr(model.display, "heat_map"):
        display_changes["heat_map"] = "work"
    if hasattr(model.display, "show_ghost"):
        display_changes["show_ghost"] = True
    if display_changes:
        model.set_display(**display_changes)
        names += list(display_changes)
    pipeline = getattr(model, "pipeline", None)
    if dataclasses.is_dataclass(pipeline):
        for field in dataclasses.fields(pipeline):
            if (isinstance(getattr(pipeline, field.name), bool)
                    and field.name != "self_collision"):
                model.set_pipeline(**{field.name: True})
                names.append(field.name)
    return names


def _core_ms(frame, phases) -> float:
    timings = frame.timings if frame is not None else {}
    return 1e3 * sum(timings.get(k, 0.0) for k in phases)


def _build_window(scene: str, settings, state_dir):
    import inspect

    from viewer.app import build_window

    accepted = inspect.signature(build_window).parameters
    kwargs = {"scene": scene, "settings": settings}
    if "state_dir" in accepted:
        kwargs["state_dir"] = state_dir
    return build_window(**kwargs)


def _let_background_work_finish(window, timeout_s: float) -> None:
    """Switch the analyses off and wait (events running) until no frame or ghost is being
    computed, so that closing the window finds no job in flight: in the app of issue 24, a
    ghost finishing after the shutdown asked for the next one and aborted the process."""
    from PyQt6.QtWidgets import QApplication

    model, controller = window.model, window.controller
    if getattr(model.display, "show_ghost", False):
        model.set_display(show_ghost=False)
    # The frame and analysis jobs (issue 25), or the controller itself in an older checkout.
    frames = getattr(controller, "frames", controller)
    analysis = getattr(controller, "analysis", controller)
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline and (
            getattr(frames, "is_busy", False)
            or getattr(analysis, "is_ghost_building", False)):
        QApplication.processEvents()
        time.sleep(0.01)


def run_interactive(scene: str, n_frames: int = DEFAULT_FRAMES, size=DEFAULT_SIZE,
                    n_warmup: int = N_WARMUP, every_analysis: bool = False,
                    benchmark_frames: int | None = None, stall_s: float = STALL_S) -> dict:
    """Play ``scene`` in the main window and measure ``n_frames`` delivered frames.

    Parameters
    ----------
    scene : str
        A key of ``viewer.scenes.SCENES`` or of :data:`BENCHMARK_SCENES`.
    n_frames : int
        Frames measured after ``n_warmup`` delivered ones.
    size : (int, int)
        Main window width and height in pixels.
    every_analysis : bool
        Switch on every optional analysis first (:func:`switch_on_every_analysis`).
    benchmark_frames : int, optional
        Frames of the off-screen benchmark run after it (default ``n_frames``).

    Returns
    -------
    dict
        ``{"scene", "size" (w, h), "window" (w, h) as shown, "frames", "fps",
        "longest_block_ms", "core_ms", "benchmark_core_ms", "analyses", "n_heartbeats"}``.

    Raises
    ------
    InteractiveBenchmarkError
        No display, a scene that does not load, a failed frame, or no frame for ``stall_s``.
    """
    problem = display_problem()
    if problem:
        raise InteractiveBenchmarkError(f"--interactive needs a display: {problem}; run it "
                                        "in a desktop session or under xvfb-run")
    if n_frames < 1:
        raise InteractiveBenchmarkError(f"--frames {n_frames}: at least 1")
    from PyQt6.QtCore import QEventLoop, QSettings, QTimer
    from PyQt6.QtWidgets import QApplication

    try:
        from viewer.bench.frame_rate import CORE_PHASES, run_benchmark
    except ModuleNotFoundError:  # an older checkout: the module before viewer/bench/ existed
        from viewer.benchmark import CORE_PHASES, run_benchmark

    n_warmup = max(1, n_warmup)
    app = QApplication.instance() or QApplication(sys.argv[:1])  # noqa: F841
    with benchmark_scene(scene), tempfile.TemporaryDirectory(prefix="bvh-lab-bench-") as tmp:
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        window = _build_window(scene, settings, Path(tmp) / "state")
        model = window.model
        # The window prepares a built-in scene on a worker lane (big meshes take seconds):
        # the measured run starts once it is in.
        deadline = time.perf_counter() + stall_s
        scenes = getattr(window.controller, "scenes", window.controller)  # older: one object
        while (getattr(scenes, "is_scene_loading", False)
               and time.perf_counter() < deadline):
            QApplication.processEvents()
            time.sleep(0.01)
        if model.scene_key != scene or not model.bodies:
            window.close()
            raise InteractiveBenchmarkError(f"scene {scene!r} did not load")
        analyses = switch_on_every_analysis(model) if every_analysis else []
        window.resize(*size)
        window.show()
        heartbeat = Heartbeat()
        loop = QEventLoop()
        state = {"n": 0, "core": [], "start": None, "end": None, "error": "",
                 "last": time.perf_counter()}

        def on_frame(frame) -> None:
            if frame is None or state["end"] is not None:
                return
            now = time.perf_counter()
            state["last"] = now
            state["n"] += 1
            if state["n"] == n_warmup:
                state["start"] = now
                heartbeat.start()
            elif state["n"] > n_warmup:
                state["core"].append(_core_ms(frame, CORE_PHASES))
                if len(state["core"]) == n_frames:
                    state["end"] = now
                    heartbeat.stop()
                    model.set_playing(False)
                    loop.quit()

        def on_error(title, text="") -> None:
            state["error"] = f"{title}: {str(text).splitlines()[0] if text else ''}"
            loop.quit()

        def watch() -> None:
            if time.perf_counter() - state["last"] > stall_s:
                state["error"] = f"no frame for {stall_s:.0f} s"
                loop.quit()
            elif not model.is_playing:
                model.set_playing(True)  # e.g. a scene that does not start playing

        model.frame_ready.connect(on_frame)
        model.error.connect(on_error)
        watchdog = QTimer()
        watchdog.timeout.connect(watch)
        watchdog.start(1000)
        model.set_playing(True)
        loop.exec()
        watchdog.stop()
        heartbeat.stop()
        model.set_playing(False)
        shown = (window.width(), window.height())
        _let_background_work_finish(window, stall_s)
        with contextlib.suppress(TypeError):
            model.frame_ready.disconnect(on_frame)
        window.close()
        window.deleteLater()
        QApplication.processEvents()
        # The closed window's reference cycles go now, not in the next run's measurement: in
        # one process that had built 14 windows, a generation-2 collection of 79,600 of their
        # objects took 166 ms in the middle of a run. One window switching scenes 18 times
        # keeps 81-87k tracked objects and collected in at most 20 ms.
        gc.collect()
        if state["error"]:
            raise InteractiveBenchmarkError(f"scene {scene}: {state['error']}")
        fps = n_frames / max(state["end"] - state["start"], 1e-9)
        offscreen = run_benchmark(scene, benchmark_frames or n_frames, window_size=tuple(size))
    return {
        "scene": scene, "size": tuple(size), "window": shown, "frames": n_frames,
        "fps": fps, "longest_block_ms": 1e3 * heartbeat.longest_block_s,
        "core_ms": statistics.median(state["core"]),
        "benchmark_core_ms": offscreen["core_ms"], "analyses": analyses,
        "n_heartbeats": heartbeat.n_ticks,
    }


def format_interactive_line(report: dict) -> str:
    """The one line of ``--interactive`` (:data:`LINE_FORMAT`)."""
    width, height = report["size"]
    return LINE_FORMAT.format(scene=report["scene"], width=width, height=height,
                              fps=report["fps"], block_ms=report["longest_block_ms"],
                              core_ms=report["core_ms"],
                              benchmark_ms=report["benchmark_core_ms"])


def parse_window_size(text: str) -> tuple[int, int]:
    """``"WxH"`` -> ``(w, h)``; InteractiveBenchmarkError naming ``--size``."""
    try:
        width, height = (int(part) for part in str(text).lower().split("x"))
    except ValueError:
        raise InteractiveBenchmarkError(f"--size {text!r}: write WIDTHxHEIGHT, e.g. 1280x800"
                                        ) from None
    if not (320 <= width <= 7680 and 240 <= height <= 4320):
        raise InteractiveBenchmarkError(f"--size {text}: from 320x240 to 7680x4320 pixels")
    return width, height


def main_interactive(scene: str, size_text: str | None = None, n_frames: int | None = None,
                     every_analysis: bool = False) -> int:
    """Run and print the line; 0 measured, 1 could not run (one line on stderr), 2 a bad
    option."""
    try:
        size = parse_window_size(size_text) if size_text is not None else DEFAULT_SIZE
    except InteractiveBenchmarkError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 2
    try:
        report = run_interactive(scene, n_frames or DEFAULT_FRAMES, size,
                                 every_analysis=every_analysis)
    except InteractiveBenchmarkError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 1
    if report["window"] != report["size"]:
        print(f"note: the window was {report['window'][0]}x{report['window'][1]}, not the "
              "size asked for (a screen too small?)", file=sys.stderr, flush=True)
    if report["analyses"]:
        print(f"note: analyses on: {', '.join(report['analyses'])}", file=sys.stderr,
              flush=True)
    print(format_interactive_line(report), flush=True)
    return 0


def main(argv=None) -> int:
    """``python -m viewer.bench.interactive SCENE [--size WxH] [--frames N]
    [--every-analysis]`` (the same as ``python -m viewer --benchmark SCENE --interactive``,
    for a checkout whose command line does not have it)."""
    parser = argparse.ArgumentParser(prog="python -m viewer.bench.interactive")
    parser.add_argument("scene")
    parser.add_argument("--size", metavar="WxH")
    parser.add_argument("--frames", type=int)
    parser.add_argument("--every-analysis", action="store_true")
    args = parser.parse_args(argv)
    return main_interactive(args.scene, args.size, args.frames, args.every_analysis)


if __name__ == "__main__":
    sys.exit(main())
