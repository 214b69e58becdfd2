"""Kernels run as Python while the kernel cache is cold (``core.jit.interpreted``): the same frame,
nothing compiled, and kernels load from the cache as the background compile saves them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]

# A frame with the app's extras on (trace, containment, distance), one body deforming, on
# two spheres of ~800 triangles that cross: computed in a process with an empty kernel cache.
FRAME_SCRIPT = r"""
import dataclasses, json, sys
import numpy as np
from core.jit import interpreted
from core.deform import DEFORMERS
from core.experiments.common import sphere_mesh
from core.pipeline import BodyInput, FramePipeline, PipelineSettings
from core.pose import Pose
from core.request import CollisionRequest, FrameOptions

def run():
    a = sphere_mesh(800, 1.0, "a")
    b = sphere_mesh(800, 1.0, "b")
    body_a = BodyInput("a", a, deformer=DEFORMERS["radial_wave"]())
    pipe = FramePipeline(PipelineSettings(CollisionRequest(trace=True),
                                          frame=FrameOptions(containment=True, distance=True)))
    out = []
    # Crossing, crossing after a refit, then apart (the distance query runs).
    for t, x in ((0.0, 0.9), (0.3, 0.9), (0.6, 2.6)):
        pose_b = Pose.from_axis_angle((1, 2, 3), 0.4, (x, 0.2, 0.0))
        frame = pipe.step([body_a, BodyInput("b", b, pose_b)], t)
        out.append({"pairs": np.asarray(frame.result.pairs).tolist(),
                    "counters": dataclasses.asdict(frame.result.counters),
                    "distance": None if frame.distance is None else float(frame.distance.distance)})
    return out

if sys.argv[1] == "interpreted":
    interpreted.start()
frames = run()
import numba.core.registry as reg
compiled = []
for mod in list(sys.modules.values()):
    if getattr(mod, "__name__", "").startswith("core."):
        for name, obj in vars(mod).items():
            if isinstance(obj, reg.CPUDispatcher) and obj.overloads:
                compiled.append(f"{mod.__name__}.{name}")
print(json.dumps({"frames": frames, "compiled": sorted(set(compiled)),
                  "counts": interpreted.counts()}))
"""


def _run(mode: str, cache: Path) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    done = subprocess.run([sys.executable, "-c", FRAME_SCRIPT, mode], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_an_interpreted_frame_equals_the_compiled_one_and_compiles_nothing(tmp_path):
    interpreted_run = _run("interpreted", tmp_path / "empty-cache")
    assert interpreted_run["compiled"] == [], interpreted_run["compiled"][:10]
    assert interpreted_run["counts"]["interpreted"] > 100
    assert not any((tmp_path / "empty-cache").rglob("*.nbi")), "nothing may be saved"
    compiled_run = _run("compiled", Path(os.environ.get("NUMBA_CACHE_DIR", tmp_path / "c2")))
    assert compiled_run["compiled"], "the reference run must use machine code"
    for got, want in zip(interpreted_run["frames"], compiled_run["frames"]):
        assert sorted(map(tuple, got["pairs"])) == sorted(map(tuple, want["pairs"]))
        assert got["counters"] == want["counters"]
        assert got["distance"] == want["distance"]
    assert [len(f["pairs"]) > 0 for f in compiled_run["frames"]] == [True, True, False]
    assert compiled_run["frames"][2]["distance"] > 0.0


# A kernel with no machine code runs as Python; once another process has saved its machine
# code, note_cache_grew() makes the next call load it.
LOAD_SCRIPT = r"""
import subprocess, sys, json
import numpy as np
from core.jit import interpreted
from core.collide import tritri

interpreted.start()
first = tritri._sgn(-2.5)
before = len(tritri._sgn.overloads)
subprocess.run([sys.executable, "-c", "from core.collide import tritri; tritri._sgn(1.5)"],
               check=True)
still = len(tritri._sgn.overloads)  # the cache is looked at once per report, not per call
interpreted.note_cache_grew()
second = tritri._sgn(-2.5)
print(json.dumps({"first": first, "second": second, "before": before, "still": still,
                  "after": len(tritri._sgn.overloads), "counts": interpreted.counts()}))
"""


def test_a_kernel_saved_by_another_process_is_loaded_after_a_report(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", LOAD_SCRIPT], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["first"] == got["second"] == -1
    assert got["before"] == 0 and got["still"] == 0
    assert got["after"] == 1
    assert got["counts"]["loaded"] == 1


def test_stop_restores_compiling_on_first_call():
    from core.collide import tritri
    from core.jit import interpreted

    interpreted.start()
    interpreted.stop()
    assert not interpreted.is_interpreting()
    assert tritri._sgn(np.float64(3.0)) == 1
    assert tritri._sgn.overloads


EVERY_STEP_SCRIPT = r"""
from core.jit import interpreted, warmup
interpreted.start()
for key in warmup.step_keys():
    warmup.run_step(key)
print(interpreted.counts()["interpreted"])
"""


def test_every_choice_runs_interpreted_on_an_empty_cache(tmp_path):
    """What a user can pick while the first start compiles (every kind, split, partition,
    distance, quality) runs as Python: each warm-up step, nothing compiled."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", EVERY_STEP_SCRIPT], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert int(done.stdout.split()[-1]) > 10_000
    assert not any((tmp_path / "cache").rglob("*.nbi"))
