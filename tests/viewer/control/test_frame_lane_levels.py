"""The frame job derives a newly built tree's levels on the frame's lane, so that reading them
on the GUI thread (the recording, the level views) costs nothing, for that frame's tree and
for every tree refitted from it."""

from __future__ import annotations

import threading

import numpy as np

import core.bvh.tree as tree_module
from core.pipeline import BodyInput, FramePipeline
from core.pose import Pose
from tests.core.meshgen import sphere_mesh
from viewer.control.frames import _run_frame


def flatten(rest, t):
    out = rest.copy()
    out[:, 2] *= 1.0 - 0.3 * t
    return out


def test_the_frame_lane_derives_each_built_trees_levels_once_and_refits_share_them(
        monkeypatch):  # fmt: skip
    derived = []  # (thread, nodes) of each derivation
    real = tree_module.derive_arrays
    monkeypatch.setattr(tree_module, "derive_arrays", lambda first, count: (
        derived.append((threading.current_thread().name, first.shape[0]))
        or real(first, count)))
    bodies = [BodyInput("a", sphere_mesh(12), Pose(), flatten),
              BodyInput("b", sphere_mesh(8, radius=0.5), Pose(np.eye(3), (1.2, 0.0, 0.0)))]
    pipe = FramePipeline()
    lane = []
    job = threading.Thread(name="lane-frame",
                           target=lambda: lane.append(_run_frame(None, pipe, bodies, 0.0, None)))
    job.start()
    job.join()
    first = lane[0]
    assert first.rebuilt == [True, True]
    sizes = [tree.n_nodes for tree in first.trees]

    def of_these_trees():  # the first frame job may also load kernels on tiny trees of its own
        return [d for d in derived if d[1] in sizes]

    assert of_these_trees() == [("lane-frame", n) for n in sizes]
    second = pipe.step(bodies, 0.5)  # A refitted from its built tree, B kept as it was
    assert second.rebuilt == [False, False] and second.trees[0] is not first.trees[0]
    for tree in (*first.trees, *second.trees):  # what the GUI thread reads
        assert tree.level_start[-1] == tree.n_nodes
    assert of_these_trees() == [("lane-frame", n) for n in sizes]  # none again, on any thread
