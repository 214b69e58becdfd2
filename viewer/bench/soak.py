"""``python -m viewer --soak N [--scene KEY]``: a long headless session, checked for leaks.

Runs a deforming built-in scene for N frames through the same :class:`Controller` and
:class:`SceneRenderer` as the window (an off-screen plotter, one frame at a time), and samples
after a warm-up and at the end:

* resident memory (``/proc/self/statm``, the second field times the page size);
* the VTK scene graph: actors in the renderer, their mappers' PolyData inputs, the points and
  cells those hold, the props of the renderer, and the live Python objects (``gc``);
* the median frame time over the first and the last window of frames.

The run passes when memory grows by at most :data:`MAX_MEMORY_GROWTH` after the warm-up and
no count grows.
"""

from __future__ import annotations

import gc
import os
import statistics
import time
from dataclasses import dataclass, field

MAX_MEMORY_GROWTH = 0.05
"""Largest accepted relative growth of resident memory between warm-up and end."""

FRAME_DT = 1.0 / 30.0
"""Animation time between frames (a 30 Hz clock)."""

DEFAULT_SCENE = "cloth-sphere"
"""A small scene that deforms every frame and always has contacts."""


def rss_bytes() -> int:
    """Resident memory of this process in bytes (Linux ``/proc/self/statm``)."""
    with open("/proc/self/statm") as statm:
        resident_pages = int(statm.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE")


def vtk_counts(plotter) -> dict[str, int]:
    """Counts of the objects a leaking render loop would accumulate."""
    renderer = plotter.renderer
    actors = renderer.GetActors()
    actors.InitTraversal()
    inputs = set()
    n_points = n_cells = 0
    for _ in range(actors.GetNumberOfItems()):
        actor = actors.GetNextActor()
        mapper = actor.GetMapper()
        data = mapper.GetInput() if mapper is not None else None
        if data is not None and id(data) not in inputs:
            inputs.add(id(data))
            n_points += data.GetNumberOfPoints()
            n_cells += data.GetNumberOfCells()
    return {
        "actors": int(renderer.GetActors().GetNumberOfItems()),
        "props": int(renderer.GetViewProps().GetNumberOfItems()),
        "polydata": len(inputs),
        "pyvista_actors": len(plotter.actors),
        "python_objects": len(gc.get_objects()),
        "mesh_points": int(n_points),
    }


# Counts that must not change at all between warm-up and end. Python objects and drawn points
# vary a little with the frame (contacts come and go): they are reported, and checked for
# growth beyond a small slack instead.
_EXACT_COUNTS = ("actors", "props", "polydata", "pyvista_actors")
_OBJECT_SLACK = 0.02


@dataclass
class SoakReport:
    """What a soak run measured.

    Attributes
    ----------
    scene : str
    frames, warmup : int
    rss_warm, rss_end : int
        Resident bytes after the warm-up frames and at the end.
    counts_warm, counts_end : dict[str, int]
        :func:`vtk_counts` at the same two moments.
    frame_ms_start, frame_ms_end : float
        Median whole-frame time of the first and the last ``window`` timed frames.
    seconds : float
        Wall time of the run.
    problems : list of str
        Empty when the run passed.
    """

    scene: str
    frames: int
    warmup: int
    rss_warm: int = 0
    rss_end: int = 0
    counts_warm: dict = field(default_factory=dict)
    counts_end: dict = field(default_factory=dict)
    frame_ms_start: float = 0.0
    frame_ms_end: float = 0.0
    seconds: float = 0.0
    contacts: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    @property
    def memory_growth(self) -> float:
        return self.rss_end / self.rss_warm - 1.0 if self.rss_warm else 0.0

    @property
    def is_ok(self) -> bool:
        return not self.problems


SOAK_RECORDING_MB = 16.0
"""The recording's cap during a soak: full after the warm-up of any built-in scene (a
cloth-sphere frame holds about 1 MB)."""
SOAK_RECORDING_FRAMES = 30


def run_soak(scene: str = DEFAULT_SCENE, n_frames: int = 10_000, n_warmup: int = 100,
             window: int = 100, window_size=(640, 400)) -> SoakReport:
    """Run ``scene`` for ``n_warmup + n_frames`` frames and check memory and counts.

    Parameters
    ----------
    scene : str
        Key of a built-in scene (with a deformer, so every frame refits and redraws).
    n_frames : int
        Frames after the warm-up.
    n_warmup : int
        Frames before the first sample (caches, JIT, VTK buffers reach their size).
    window : int
        Frames in each of the two frame-time medians.
    """
    import pyvista as pv
    from PyQt6.QtCore import QCoreApplication

    app = QCoreApplication.instance() or QCoreApplication([])  # noqa: F841 - timers need it

    from viewer.controller import Controller
    from viewer.model import ViewerModel
    from viewer.render import SceneRenderer
    from viewer.render.scene import set_default_view

    report = SoakReport(scene, n_frames, n_warmup)
    model = ViewerModel()
    controller = Controller(model, is_threaded=False)
    plotter = pv.Plotter(off_screen=True, window_size=list(window_size))
    renderer = SceneRenderer(plotter)
    model.scene_changed.connect(
        lambda: renderer.set_bodies(model.bodies, model.scene_title, model.display.mesh_opacity))
    if not controller.scenes.load_scene(scene):
        raise SystemExit(f"cannot load scene {scene!r}")
    model.set_playing(False)
    # The app records every frame up to its memory cap (512 MB by default): by design that
    # grows until the cap. A small cap fills during the warm-up, so the soak still runs the
    # recording's ring (oldest frames dropped) and any growth after it is a leak.
    controller.recorder.set_recording_limits(SOAK_RECORDING_MB, SOAK_RECORDING_FRAMES)
    set_default_view(plotter)
    plotter.show(auto_close=False, interactive=False)
    times: list[float] = []
    start_run = time.perf_counter()
    window = max(1, min(window, n_frames // 2 or 1))
    for i in range(n_warmup + n_frames):
        if i == n_warmup:
            gc.collect()
            report.rss_warm = rss_bytes()
            report.counts_warm = vtk_counts(plotter)
        model.set_time(i * FRAME_DT)
        start = time.perf_counter()
        frame = controller.frames.step_sync()
        renderer.update_frame(frame, model.display, model.level)
        plotter.render()
        if i >= n_warmup:
            times.append(time.perf_counter() - start)
            result = frame.shown_result()
            if i == n_warmup or i == n_warmup + n_frames - 1:
                report.contacts.append(result.n_contacts if result is not None else 0)
    gc.collect()
    report.rss_end = rss_bytes()
    report.counts_end = vtk_counts(plotter)
    report.seconds = time.perf_counter() - start_run
    report.frame_ms_start = 1e3 * statistics.median(times[:window])
    report.frame_ms_end = 1e3 * statistics.median(times[-window:])
    plotter.close()
    controller.shutdown()

    if report.memory_growth > MAX_MEMORY_GROWTH:
        report.problems.append(
            f"resident memory grew {100 * report.memory_growth:.1f} % after warm-up "
            f"(limit {100 * MAX_MEMORY_GROWTH:.0f} %)")
    for key in _EXACT_COUNTS:
        if report.counts_end[key] != report.counts_warm[key]:
            report.problems.append(
                f"{key}: {report.counts_warm[key]} after warm-up, {report.counts_end[key]} "
                "at the end")
    warm_objects = report.counts_warm["python_objects"]
    if report.counts_end["python_objects"] > warm_objects * (1 + _OBJECT_SLACK):
        report.problems.append(
            f"python objects grew from {warm_objects:,} to "
            f"{report.counts_end['python_objects']:,}")
    return report


def format_soak(report: SoakReport) -> str:
    """The soak's numbers for the terminal, ending with PASS or FAIL."""
    mib = 1 << 20
    lines = [
        f"soak {report.scene}: {report.frames:,} frames after {report.warmup} warm-up, "
        f"{report.seconds:.1f} s",
        f"resident memory: {report.rss_warm / mib:.1f} MiB after warm-up, "
        f"{report.rss_end / mib:.1f} MiB at the end ({100 * report.memory_growth:+.2f} %)",
        f"frame time (median of {min(100, report.frames)}): {report.frame_ms_start:.2f} ms "
        f"at the start, {report.frame_ms_end:.2f} ms at the end",
        f"contacts at start / end: {report.contacts}",
        f"{'count':<16}{'warm-up':>12}{'end':>12}",
    ]
    for key in report.counts_warm:
        lines.append(f"{key:<16}{report.counts_warm[key]:>12,}{report.counts_end[key]:>12,}")
    lines.extend(f"problem: {p}" for p in report.problems)
    lines.append("PASS" if report.is_ok else "FAIL")
    return "\n".join(lines)
