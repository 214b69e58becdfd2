"""A frame is a record: it carries everything the viewer draws, so it can be stored and drawn
later without running the core; the Stats dock lists every phase the frame ran."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.viewer.conftest import settle
from viewer.render.overlays import build_overlays
from viewer.state.display import Display

LEVEL = 3

# Run in a fresh interpreter: unpickle the frames, draw them off-screen with the viewer's
# render code, and report what was drawn and which numba kernels ran (a kernel that runs is
# compiled or loaded from the cache, which gives its dispatcher a signature).
REDRAW = """
import json, pickle, sys
import numpy as np
import pyvista as pv
from viewer.state.display import Display
from viewer.render.overlays import build_overlays

with open(sys.argv[1], "rb") as f:
    frames = pickle.load(f)
drawn = []
for frame in frames:
    out = build_overlays(frame, Display(show_culled=True), int(sys.argv[2]))
    plotter = pv.Plotter(off_screen=True, window_size=(320, 240))
    for mesh, pose in zip(frame.meshes, frame.poses):
        plotter.add_mesh(pv.PolyData(pose.apply(mesh.vertices)), color="white")
    for name, poly in out.polys.items():
        if poly.n_points:
            plotter.add_mesh(poly, color="red", name=name)
    image = plotter.screenshot(return_img=True)
    plotter.close()
    drawn.append({"cells": {k: int(v.n_cells) for k, v in out.polys.items()},
                  "notes": out.notes, "lit": int(np.count_nonzero(image.sum(axis=2)))})
from numba.core.registry import CPUDispatcher
kernels = {f"{m.__name__}.{k}": v for m in list(sys.modules.values()) if m is not None
           for k, v in list(vars(m).items()) if isinstance(v, CPUDispatcher)}
ran = sorted(name for name, v in kernels.items() if v.signatures)
print(json.dumps({"drawn": drawn, "kernels_seen": len(kernels), "kernels_run": ran}))
"""


@pytest.fixture(scope="module")
def frames():
    """Two frames of the two-spheres scene with every extra on: touching (obb volumes, a BSP
    partition, self-collision) and apart (distance, containment)."""
    from core.pipeline import DEFAULT_REQUEST, BodyInput, FramePipeline, PipelineSettings
    from core.pose import Pose
    from core.request import FrameOptions
    from tests.core.meshgen import sphere_mesh

    a, b = sphere_mesh(12), sphere_mesh(10, radius=0.6)
    settings = PipelineSettings(DEFAULT_REQUEST.replace(bv="obb", partition="bsp"),
                                frame=FrameOptions(distance=True, containment=True,
                                                   self_collision=True))
    pipe = FramePipeline(settings)
    touching = pipe.step([BodyInput("a", a), BodyInput("b", b, Pose(translation=(1.2, 0, 0)))])
    apart = pipe.step([BodyInput("a", a), BodyInput("b", b, Pose(translation=(3.0, 0, 0)))])
    assert touching.result.n_contacts > 0 and touching.partition.cells.shape[0] > 0
    assert apart.distance is not None and apart.containment is not None
    return [touching, apart]


def test_a_stored_frame_is_drawn_the_same_without_running_the_core(frames, tmp_path):
    path = tmp_path / "frames.pickle"
    path.write_bytes(pickle.dumps(frames))
    env = dict(os.environ)
    # An empty kernel cache: a kernel that ran would have to be compiled or loaded, and its
    # dispatcher would list a signature.
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "empty-cache")
    env["XDG_CACHE_HOME"] = str(tmp_path / "empty-xdg")
    # matplotlib keeps its font list under XDG_CACHE_HOME too: an empty one rebuilt it, most
    # of this test's 12 s.
    import matplotlib

    env["MPLCONFIGDIR"] = matplotlib.get_cachedir()
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", REDRAW, str(path), str(LEVEL)], cwd=root, env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    # The classes of the record import their core modules (so kernels are defined), yet
    # none of them ran.
    assert report["kernels_seen"] > 0 and report["kernels_run"] == []
    for frame, drawn in zip(frames, report["drawn"]):
        here = build_overlays(frame, Display(show_culled=True), LEVEL)
        assert drawn["cells"] == {k: int(v.n_cells) for k, v in here.polys.items()}
        assert drawn["notes"] == here.notes
        assert drawn["lit"] > 0
    touching, apart = report["drawn"]
    # OBB volumes (12 lines a box), partition cells and planes, contacts; then the distance.
    assert touching["cells"]["tree_a"] == 12 * frames[0].trees[0].nodes_at_depth(LEVEL).shape[0]
    assert touching["cells"]["partition_cells"] == 12 * frames[0].partition.cells.shape[0]
    assert touching["cells"]["partition_planes"] > 0
    assert apart["cells"]["distance"] == 3  # one line and two end points
    assert any(note.startswith("no contact: apart") for note in apart["notes"])


def _phase_words(stats) -> list[str]:
    text = stats.phases.text().split(": ", 1)[1]
    return [part.rsplit(" ", 2)[0] for part in text.split(", ")]


def test_stats_lists_every_phase_that_ran(qtbot, make_window):
    window = make_window("two-spheres")
    stats = window.docks["stats_dock"].panel
    base = ["refit / rebuild", "traverse", "triangle tests", "core frame", "overlay update",
            "render"]
    assert window.model.frame.result.n_contacts > 0
    assert [w for w in _phase_words(stats) if w != "deform"] == base

    window.model.set_pipeline(partition="grid")
    settle(qtbot, window)
    window.redraw()
    assert "partition" in window.model.frame.timings
    words = _phase_words(stats)
    assert "spatial partition" in words
    assert words.index("triangle tests") < words.index("spatial partition") < words.index(
        "core frame")
    assert "minimum distance" not in words and "inside test" not in words

    window.model.set_pipeline(partition="none")
    pose = np.array(window.model.bodies[1].pose)
    pose[0, 3] += 2.5
    window.model.set_pose(1, pose)
    settle(qtbot, window)
    window.redraw()
    frame = window.model.frame
    assert frame.result.n_contacts == 0 and frame.distance is not None
    words = _phase_words(stats)
    assert "spatial partition" not in words
    assert words[-5:] == ["minimum distance", "inside test", "core frame", "overlay update",
                          "render"]
    ms = 1e3 * frame.timings["distance"]
    assert f"minimum distance {ms:.2f}" in stats.phases.text()
