"""The many-objects scene of Zhou et al. 2009, headless: objects moving on paths through a
static octree, one octree query per frame started from last frame's nodes.

Calls the core (``core.partition.scene_octree``) and imports no Qt; the window is
``viewer.qt.dialogs.scene_octree``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.partition.scene_octree import (
    SceneOBBs,
    SceneOctree,
    SceneOctreeParams,
    SceneQueryRecord,
    demo_scene,
    local_obbs,
)
from core.pose import Pose

N_OBJECTS = 60
"""Objects in the scene (the issue asks for at least 50)."""

PATH_RADIUS = (0.4, 1.5)
"""Range of the radii of the objects' circular paths, in scene units (the scene is a
10-unit cube): far enough that objects change octree nodes, near enough to stay inside."""

PATH_SPEED = (0.3, 0.9)
"""Range of angular speeds on the paths, radians per second."""


@dataclass(frozen=True, eq=False)
class OctreeDemoFrame:
    """One frame of the demo.

    Attributes
    ----------
    t : float
    poses : list of Pose
    record : SceneQueryRecord
        The search started from last frame's nodes.
    n_root_node_tests : int
        OBB-AABB tests the same search costs when every object starts at the root (the
        baseline the paper improves on).
    focus : int
        The object whose search is shown.
    """

    t: float
    poses: list
    record: SceneQueryRecord
    n_root_node_tests: int
    focus: int

    @property
    def visited_nodes(self) -> np.ndarray:
        """``(v,) int64`` nodes the focus object's search visited."""
        return np.unique(self.record.visited_nodes[self.focus])

    @property
    def tested_objects(self) -> np.ndarray:
        """``(u,) int64`` objects the focus object ran the OBB-OBB test with."""
        return np.unique(self.record.tested_objects[self.focus])

    @property
    def overlapping_objects(self) -> np.ndarray:
        """``(w,) int64`` objects in at least one overlapping OBB pair."""
        return np.unique(self.record.pairs)


class SceneOctreeDemo:
    """Objects of :func:`core.partition.scene_octree.demo_scene` moving on circles.

    Parameters
    ----------
    n_objects : int
    seed : int
    params : SceneOctreeParams, optional
    """

    def __init__(self, n_objects: int = N_OBJECTS, seed: int = 0,
                 params: SceneOctreeParams | None = None):
        self.meshes, self.base_poses = demo_scene(n_objects, seed)
        self.local = local_obbs(self.meshes)
        rng = np.random.default_rng(seed + 1)
        self.radius = rng.uniform(*PATH_RADIUS, n_objects)
        self.speed = rng.uniform(*PATH_SPEED, n_objects) * rng.choice([-1.0, 1.0], n_objects)
        self.phase = rng.uniform(0.0, 2.0 * np.pi, n_objects)
        axes = rng.normal(size=(n_objects, 3))
        self.path_u = axes / np.linalg.norm(axes, axis=1, keepdims=True)
        helper = np.where(np.abs(self.path_u[:, :1]) < 0.9, [[1.0, 0, 0]], [[0, 1.0, 0]])
        v = np.cross(self.path_u, helper)
        self.path_v = v / np.linalg.norm(v, axis=1, keepdims=True)
        self.octree = SceneOctree(self.obbs(self.poses_at(0.0)), params)
        self.previous: np.ndarray | None = None
        self.focus = 0

    @property
    def n_objects(self) -> int:
        return len(self.meshes)

    def poses_at(self, t: float) -> list[Pose]:
        """Each object's pose at time ``t``: its base pose moved along its circle."""
        angle = self.phase + self.speed * t
        offset = self.radius[:, None] * (np.cos(angle)[:, None] * self.path_u
                                         + np.sin(angle)[:, None] * self.path_v)  # fmt: skip
        return [Pose(p.rotation, p.translation + offset[i] - self.radius[i] * (
            np.cos(self.phase[i]) * self.path_u[i] + np.sin(self.phase[i]) * self.path_v[i]),
            p.scale) for i, p in enumerate(self.base_poses)]  # fmt: skip

    def obbs(self, poses: list[Pose]) -> SceneOBBs:
        return SceneOBBs.from_local(*self.local, poses)

    def step(self, t: float) -> OctreeDemoFrame:
        """Move every object to time ``t`` and run the frame's octree query."""
        poses = self.poses_at(t)
        obbs = self.obbs(poses)
        record = self.octree.query(obbs, self.previous)
        baseline = self.octree.query(obbs, None, from_root=True)
        self.previous = record.start_node
        return OctreeDemoFrame(float(t), poses, record, baseline.n_node_tests, self.focus)
