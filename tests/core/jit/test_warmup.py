"""The warm-up as ordered steps handed to worker processes, with progress lines the app reads
(``python -m core warmup --progress``), and the stamp of a complete warm-up."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.jit import numba_cache, warmup

ROOT = Path(__file__).resolve().parents[3]


def test_progress_lines_read_back():
    line = warmup.progress_line(3, 24, "bv-obb", "oriented box (OBB) volumes")
    assert line == "compiled 3 of 24 [bv-obb] oriented box (OBB) volumes"
    assert warmup.parse_progress(line + "\n") == (3, 24, "bv-obb", "oriented box (OBB) volumes")
    assert warmup.parse_progress("numba kernels ready in 3.0 s") is None
    assert warmup.parse_progress("compiled x of 24 [a] b") is None


def test_steps_cover_every_kind_and_partition_and_start_with_the_first_frame():
    from core.bv import BV_KINDS
    from core.partition import PARTITION_KINDS

    keys = warmup.step_keys()
    assert keys[:3] == warmup.FIRST_FRAME_STEPS == ("triangle-tests", "trees", "frame")
    assert len(set(keys)) == len(keys)
    assert {f"bv-{name}" for name in BV_KINDS} <= set(keys)
    assert {f"partition-{name}" for name in PARTITION_KINDS} <= set(keys)


def test_a_worker_answers_each_step_and_stops_at_a_bad_one():
    out = io.StringIO()
    status = warmup.run_worker(["trees\n", "\n", "near\n", "no-such-step\n", "quality\n"], out)
    assert status == 1
    assert out.getvalue().splitlines() == [
        "done trees", "done near", "failed no-such-step: KeyError: 'no-such-step'"]


def test_run_step_names_a_bad_key():
    with pytest.raises(ValueError,
                       match="warm-up step must be one of triangle-tests, trees, .*got 'nope'"):
        warmup.run_step("nope")


def test_the_warm_up_reports_every_step_once_in_order_and_leaves_the_stamp(tmp_path):
    """On the suite's warm cache the workers load rather than compile; the protocol is the
    same. A copy of the cache keeps the stamp test apart from the suite's own cache."""
    import shutil

    cache = tmp_path / "cache"
    shutil.copytree(os.environ["NUMBA_CACHE_DIR"], cache,
                    ignore=shutil.ignore_patterns(numba_cache.COMPLETE_NAME, "*.lock"))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    done = subprocess.run([sys.executable, "-m", "core", "warmup", "--progress", "--jobs", "2"],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    parsed = [warmup.parse_progress(line) for line in lines[:-1]]
    m = len(warmup.step_keys())
    assert [p[:2] for p in parsed] == [(n, m) for n in range(1, m + 1)]
    assert sorted(p[2] for p in parsed) == sorted(warmup.step_keys())
    assert lines[-1].startswith("numba kernels ready in ")
    assert (cache / numba_cache.COMPLETE_NAME).is_file()


def test_bad_options_are_one_line(tmp_path):
    for args, words in ((["--nice", "25"], "--nice must be from 0 to 19, got 25"),
                        (["--jobs", "0"], "--jobs must be at least 1, got 0")):
        done = subprocess.run([sys.executable, "-m", "core", "warmup", *args], cwd=ROOT,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 2
        assert done.stderr.strip().splitlines() == [f"error: {words}"]


# --- what the steps reach: the kernels a big input or a later choice would otherwise compile --


def _calls(monkeypatch, module, name):
    """Replace ``module.name`` by a wrapper counting its calls; returns the list of calls."""
    original = getattr(module, name)
    calls = []

    def spy(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


def test_the_traversal_step_reaches_the_walks_below_the_split(monkeypatch):
    """Big meshes hand the frontier to two threads (the fast mode's depth-first walk of
    volumes, the recorded level loop from given pairs): the tiny meshes of the step must get
    there too, or the first big query compiles the walk (a test compiled it for 22 s)."""
    import core.collide.traversal_driver as driver

    split = driver.SPLIT_FRONTIER
    walks = _calls(monkeypatch, driver, "traverse_depth_first")
    warmup.run_step("traversal")
    assert walks, "the depth-first walk was never run"
    assert driver.SPLIT_FRONTIER == split, "the step puts the split back"


def test_the_trees_step_refits_on_two_threads_and_by_levels(monkeypatch):
    """A tree of 20,000 nodes or more refits its two halves on two threads, and a tree whose
    children come before their parents (a tree file may order it so) refits level by level."""
    import core.bvh.refit as refit

    halves = _calls(monkeypatch, refit, "_refit_halves")
    levels = _calls(monkeypatch, refit, "_refit_internal")
    warmup.run_step("trees")
    assert halves and levels


@pytest.mark.parametrize("kind, module, kernel", [
    ("octree", "core.partition.octree", "axis_masks"),
    ("kdtree", "core.partition.kdtree", "_median_splits"),
    ("bsp", "core.partition.bsp", "_choose_planes"),
])
def test_a_partition_step_splits_cells(monkeypatch, kind, module, kernel):
    """The step's meshes (16 triangles) fit in one cell of the default capacity: the step
    must split anyway, or the first real partition compiles its split kernels."""
    import importlib

    splits = _calls(monkeypatch, importlib.import_module(module), kernel)
    warmup.run_step(f"partition-{kind}")
    assert splits


def test_the_deformers_step_runs_every_deformer_and_the_brush(monkeypatch):
    import core.deform.brush as brush
    from core.deform import DEFORMERS
    from core.deform.base import Deformer

    ran = []
    call = Deformer.__call__

    def spy(self, *args, **kwargs):
        ran.append(type(self))
        return call(self, *args, **kwargs)

    monkeypatch.setattr(Deformer, "__call__", spy)
    pulls = _calls(monkeypatch, brush, "_pull")
    weights = _calls(monkeypatch, brush, "_weights")
    warmup.run_step("deformers")
    assert set(ran) == set(DEFORMERS.values())
    assert pulls and weights


def test_worker_steps_and_in_process_steps_keep_both_threads_on_a_busy_machine(monkeypatch):
    # The warm-up's own workers keep the cores busy. A worker that then chose one thread did
    # not compile the two-thread variants (the triangle pairs' parallel screen, the
    # two-thread refit), and every test worker and the app's first big frame compiled them.
    import time

    import numba

    from core.jit import busy_cores

    monkeypatch.delenv(busy_cores.KEEP_THREADS_ENV, raising=False)
    monkeypatch.setattr(busy_cores, "_last", {"at": time.monotonic() + 1e9, "busy": 99})
    with busy_cores.threads_for_free_cores() as threads:
        assert threads == 1  # the machine looks busy: a query would run on one thread
    seen = []

    def probe(*_inputs):
        with busy_cores.threads_for_free_cores() as threads:
            seen.append(threads)

    steps = {"probe": warmup.WarmStep("probe", "records the threads a kernel gets", probe)}
    monkeypatch.setattr(warmup, "_steps_by_key", lambda: steps)
    out = io.StringIO()
    assert warmup.run_worker(["probe\n"], out) == 0 and out.getvalue() == "done probe\n"
    warmup.warm_in_process(("probe",))
    assert seen == [numba.get_num_threads()] * 2
    assert busy_cores.KEEP_THREADS_ENV not in os.environ  # given back after the steps
