"""``python -m viewer --benchmark SCENE --frames N``: the whole frame, off-screen.

Runs a built-in scene with its deformers for N frames through the same controller and render
layer as the window (one frame at a time, no event loop), and reports the median of each
phase: the core's (deform, refit/rebuild, traverse, triangle tests) and the viewer's (overlay
update, render). The frame rate is 1 / median of the whole frame.
"""

from __future__ import annotations

import statistics
import time

from viewer.state.display import DEFAULT_LEVEL
from viewer.words.kinds import has_fit_choice

CORE_PHASES = ("deform", "update", "fit", "traverse", "tritri")
"""Core phases; ``fit`` (volumes of a kind other than the tree's AABBs) is 0 for ``aabb``."""
FRAME_DT = 1.0 / 30.0
"""Animation time between benchmark frames (a 30 Hz clock)."""


def run_benchmark(scene: str, n_frames: int = 60, n_warmup: int = 10, update: str = "refit",
                  level: int | None = DEFAULT_LEVEL, window_size=(1280, 800),
                  is_full_resolution: bool = False, bv: str = "aabb", obb_fit: str = "SURFACE",
                  split: str = "MIDPOINT") -> dict:
    """Run ``scene`` for ``n_frames`` frames after ``n_warmup`` untimed ones.

    ``bv``, ``obb_fit`` and ``split`` are the Pipeline dock's choices (a ``core.bv.BV_KINDS``
    key, an ``ObbFit`` and a ``SplitRule`` name).

    Returns
    -------
    dict
        ``{"scene", "frames", "triangles", "median_ms": {phase: ms}, "core_ms", "frame_ms",
        "fps", "contacts"}``.
    """
    import numba
    import pyvista as pv
    from PyQt6.QtCore import QCoreApplication

    # The controller's timers need an application object, even without an event loop.
    app = QCoreApplication.instance() or QCoreApplication([])  # noqa: F841

    from viewer.controller import Controller
    from viewer.model import ViewerModel
    from viewer.render import SceneRenderer
    from viewer.render.scene import set_default_view
    from viewer.state.pipeline import UpdateChoice

    model = ViewerModel()
    controller = Controller(model, is_threaded=False)
    model.set_pipeline(update=UpdateChoice(update), bv=bv, obb_fit=obb_fit, split=split)
    plotter = pv.Plotter(off_screen=True, window_size=list(window_size))
    renderer = SceneRenderer(plotter)
    model.scene_changed.connect(
        lambda: renderer.set_bodies(model.bodies, model.scene_title, model.display.mesh_opacity,
                                    is_full_resolution))
    if not controller.scenes.load_scene(scene):
        raise SystemExit(f"cannot load scene {scene!r}")
    model.set_playing(False)
    model.set_level(level)
    set_default_view(plotter)
    plotter.show(auto_close=False, interactive=False)
    samples: dict[str, list[float]] = {k: [] for k in (*CORE_PHASES, "overlay", "render",
                                                       "core", "frame")}
    contacts = []
    for i in range(n_warmup + n_frames):
        model.set_time(i * FRAME_DT)
        start = time.perf_counter()
        frame = controller.frames.step_sync()
        overlay_s = renderer.update_frame(frame, model.display, model.level)
        t_render = time.perf_counter()
        plotter.render()
        end = time.perf_counter()
        if i < n_warmup:
            continue
        for key in CORE_PHASES:
            samples[key].append(frame.timings.get(key, 0.0))
        samples["core"].append(sum(frame.timings.get(k, 0.0) for k in CORE_PHASES))
        samples["overlay"].append(overlay_s)
        samples["render"].append(end - t_render)
        samples["frame"].append(end - start)
        contacts.append(frame.result.counters.n_contacts if frame.result is not None else 0)
    plotter.close()
    controller.shutdown()
    median_ms = {k: 1e3 * statistics.median(v) for k, v in samples.items()}
    return {
        "scene": scene,
        "bv": f"{bv} ({obb_fit.lower()} fit)" if has_fit_choice(bv) else bv,
        "split": split.lower(),
        "frames": n_frames,
        "triangles": [b.rest.n_faces for b in model.bodies],
        "threads": numba.get_num_threads(),
        "median_ms": median_ms,
        "core_ms": median_ms["core"],
        "frame_ms": median_ms["frame"],
        "fps": 1e3 / median_ms["frame"],
        "contacts": int(statistics.median(contacts)) if contacts else 0,
        "window": tuple(window_size),
        "notes": list(renderer.display_notes),
    }


def format_frame_phase_table(report: dict) -> str:
    """The viewer benchmark's report as a table of median milliseconds per frame phase."""
    labels = {"deform": "deform", "update": "refit/rebuild", "fit": "volume fit",
              "traverse": "traverse",
              "tritri": "triangle tests", "core": "core total", "overlay": "overlay update",
              "render": "render", "frame": "whole frame"}
    lines = [
        f"scene {report['scene']} ({report['bv']}, {report['split']} split): "
        f"{report['frames']} frames, triangles "
        f"{' + '.join(f'{n:,}' for n in report['triangles'])}, numba threads "
        f"{report['threads']}, median contacts {report['contacts']:,}, window "
        f"{report['window'][0]}x{report['window'][1]}",
        *report["notes"],
        f"{'phase':<16}{'median ms':>10}",
    ]
    for key, label in labels.items():
        lines.append(f"{label:<16}{report['median_ms'][key]:>10.2f}")
    lines.append(f"{'frames/second':<16}{report['fps']:>10.1f}")
    return "\n".join(lines)
