"""Octree over the objects of a scene, by their oriented boxes (Zhou et al. 2009).

Zhou, Xu, Xu, "Collision detection in virtual scenes based on octree and OBB" (2009): each object
has an OBB fixed in its own frame and moved by its pose; the scene octree stores each object in
the smallest node that contains its OBB; a moving object starts its search the next frame from
last frame's node, moving up until the node contains the OBB again, then down while a child does;
node boxes are tested against the OBB (OBB-AABB), then objects against objects (OBB-OBB, the
15-axis separating axis test of Gottschalk, Lin & Manocha 1996), then optionally triangles
(:func:`core.contacts`).

Why searching from the start node finds every overlapping pair: an object is stored in the
smallest node whose *open* box holds its inflated world box (the root holds everything), so two
objects stored in nodes of which neither is an ancestor of the other lie in disjoint open boxes
and cannot overlap. Object ``i`` therefore only meets objects stored in the ancestors of its
node (tested without any box test: they contain ``i``) and in its node's subtree (descended with
OBB-AABB tests). Searching from the root tests, in addition, every sibling along the path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.mesh import TriMesh
from core.pose import Pose
from core.settings import DEFAULT_TOLERANCES, Tolerances

__all__ = [
    "SceneOBBs",
    "SceneOctree",
    "SceneOctreeParams",
    "SceneQueryRecord",
    "brute_force_obb_pairs",
    "demo_scene",
    "obb_aabb_overlap",
    "obb_from_vertices",
    "obb_overlap",
    "triangle_contacts",
]


def obb_from_vertices(vertices: np.ndarray):
    """OBB from the covariance of the vertices (RAPID's simplest fit).

    Parameters
    ----------
    vertices : (n, 3) float64

    Returns
    -------
    center : (3,) float64
    axes : (3, 3) float64
        Columns are the box axes (eigenvectors of the covariance), a rotation.
    half : (3,) float64
        Half extents along the axes.
    """
    mean = vertices.mean(axis=0)
    cov = np.cov((vertices - mean).T)
    _, axes = np.linalg.eigh(cov)
    if np.linalg.det(axes) < 0:
        axes[:, 0] = -axes[:, 0]
    proj = (vertices - mean) @ axes
    lo, hi = proj.min(axis=0), proj.max(axis=0)
    return mean + axes @ (0.5 * (lo + hi)), axes, 0.5 * (hi - lo)


@dataclass(frozen=True, eq=False)
class SceneOBBs:
    """World OBBs of a scene's objects.

    Attributes
    ----------
    center : (n, 3) float64
    axes : (n, 3, 3) float64
        Columns are each box's axes.
    half : (n, 3) float64
    """

    center: np.ndarray
    axes: np.ndarray
    half: np.ndarray

    @classmethod
    def from_local(cls, local_center, local_axes, half, poses: list[Pose]) -> SceneOBBs:
        """Move object-frame boxes ``(n, 3)``, ``(n, 3, 3)``, ``(n, 3)`` by their poses."""
        rot = np.stack([p.rotation for p in poses])
        trans = np.stack([p.translation for p in poses])
        scale = np.array([p.scale for p in poses])
        # x = s R c + t: the centre moves and the half extents grow by s; the axes only turn.
        center = scale[:, None] * np.einsum("nij,nj->ni", rot, local_center) + trans
        half = scale[:, None] * np.asarray(half, dtype=np.float64)
        return cls(center, rot @ local_axes, half)

    def aabbs(self, margin: float = 0.0):
        """World boxes of the OBBs, inflated by ``margin``: ``(n, 3) float64`` twice."""
        ext = np.einsum("nij,nj->ni", np.abs(self.axes), self.half) + margin
        return self.center - ext, self.center + ext


def _sat(c1, a1, h1, c2, a2, h2, margin):
    """15-axis separating axis test; True when no axis separates by more than ``margin``."""
    r = a1.T @ a2  # B's axes in A's frame
    t = a1.T @ (c2 - c1)
    abs_r = np.abs(r)
    for i in range(3):  # A's face axes
        if abs(t[i]) > h1[i] + abs_r[i] @ h2 + margin:
            return False
    for j in range(3):  # B's face axes
        if abs(t @ r[:, j]) > abs_r[:, j] @ h1 + h2[j] + margin:
            return False
    for i in range(3):  # edge x edge, axis a1_i x a2_j (length = sin of the angle)
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        for j in range(3):
            j1, j2 = (j + 1) % 3, (j + 2) % 3
            length = np.sqrt(max(0.0, 1.0 - r[i, j] ** 2))
            if length == 0.0:
                continue  # parallel edges: covered by the face axes
            dist = abs(t[i2] * r[i1, j] - t[i1] * r[i2, j])
            ra = h1[i1] * abs_r[i2, j] + h1[i2] * abs_r[i1, j]
            rb = h2[j1] * abs_r[i, j2] + h2[j2] * abs_r[i, j1]
            if dist > ra + rb + margin * length:
                return False
    return True


def obb_overlap(obbs: SceneOBBs, i: int, j: int, margin: float = 0.0) -> bool:
    """OBB-OBB test of objects ``i`` and ``j`` (15 axes)."""
    return _sat(obbs.center[i], obbs.axes[i], obbs.half[i],
                obbs.center[j], obbs.axes[j], obbs.half[j], margin)  # fmt: skip


def obb_aabb_overlap(obbs: SceneOBBs, i: int, bmin, bmax, margin: float = 0.0) -> bool:
    """OBB of object ``i`` against an axis-aligned box ``(3,)``, ``(3,)`` (15 axes)."""
    bmin, bmax = np.asarray(bmin), np.asarray(bmax)
    return _sat(0.5 * (bmin + bmax), np.eye(3), 0.5 * (bmax - bmin),
                obbs.center[i], obbs.axes[i], obbs.half[i], margin)  # fmt: skip


def brute_force_obb_pairs(obbs: SceneOBBs, margin: float = 0.0) -> np.ndarray:
    """All overlapping object pairs ``(k, 2) int32`` (i < j), lexicographic."""
    n = obbs.center.shape[0]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if obb_overlap(obbs, i, j, margin)]
    return np.array(pairs, dtype=np.int32).reshape(-1, 2)


@dataclass(frozen=True)
class SceneOctreeParams:
    """Scene octree settings.

    Attributes
    ----------
    max_depth : int
    capacity : int
        A node whose box meets more than this many objects is split.
    root_scale : float
        The root cube is the scene's bounds scaled by this about their centre, so that objects
        can move a little without leaving it (outside, they are stored at the root).
    """

    max_depth: int = 5
    capacity: int = 4
    root_scale: float = 1.25


@dataclass(frozen=True, eq=False)
class SceneQueryRecord:
    """What one frame's search visited, for drawing and counting.

    Attributes
    ----------
    pairs : (k, 2) int32
        Objects whose OBBs overlap (i < j), lexicographic.
    start_node : (n,) int64
        Each object's node (smallest node containing its OBB).
    n_locate_steps : (n,) int64
        Up and down moves to find it from last frame's node.
    visited_nodes : list of (v,) int64
        Per object, the nodes whose box it was tested against or whose objects it was tested
        against.
    tested_objects : list of (u,) int64
        Per object, the objects it ran the OBB-OBB test with.
    n_node_tests : int
        OBB-AABB tests.
    n_obb_tests : int
        OBB-OBB tests.
    """

    pairs: np.ndarray
    start_node: np.ndarray
    n_locate_steps: np.ndarray
    visited_nodes: list = field(default_factory=list)
    tested_objects: list = field(default_factory=list)
    n_node_tests: int = 0
    n_obb_tests: int = 0

    @property
    def n_visited_nodes(self) -> int:
        return int(sum(v.shape[0] for v in self.visited_nodes))


class SceneOctree:
    """A static octree over a scene's extent; objects move through it.

    Attributes
    ----------
    bmin, bmax : (k, 3) float64
        Node boxes; node 0 is the root.
    parent : (k,) int64
        -1 at the root.
    first_child : (k,) int64
        Children are ``first_child .. first_child + 7``; -1 for leaves.
    depth : (k,) int64
    margin : float
        Box inflation (``Tolerances.box_rel`` times the scene size).
    """

    def __init__(self, obbs: SceneOBBs, params: SceneOctreeParams | None = None,
                 tol: Tolerances = DEFAULT_TOLERANCES):  # fmt: skip
        params = params or SceneOctreeParams()
        lo, hi = obbs.aabbs()
        lo, hi = lo.min(axis=0), hi.max(axis=0)
        centre = 0.5 * (lo + hi)
        half = 0.5 * params.root_scale * float(np.max(hi - lo))
        self.margin = tol.box_rel * (float(np.max(np.abs(centre))) + half)
        bmin, bmax, parent, first, depth = [centre - half], [centre + half], [-1], [-1], [0]
        olo, ohi = obbs.aabbs(self.margin)
        todo = [0]
        while todo:
            node = todo.pop()
            meets = np.all(olo <= bmax[node], axis=1) & np.all(ohi >= bmin[node], axis=1)
            if depth[node] >= params.max_depth or int(meets.sum()) <= params.capacity:
                continue
            first[node] = len(bmin)
            mid = 0.5 * (bmin[node] + bmax[node])
            for c in range(8):
                bits = np.array([c & 1, c >> 1 & 1, c >> 2 & 1], dtype=bool)
                bmin.append(np.where(bits, mid, bmin[node]))
                bmax.append(np.where(bits, bmax[node], mid))
                parent.append(node)
                first.append(-1)
                depth.append(depth[node] + 1)
                todo.append(len(bmin) - 1)
        self.bmin, self.bmax = np.array(bmin), np.array(bmax)
        self.parent, self.first_child = np.array(parent), np.array(first)
        self.depth = np.array(depth)

    @property
    def n_nodes(self) -> int:
        return int(self.bmin.shape[0])

    def _holds(self, node: int, lo, hi) -> bool:
        # open box: see the module text for why containment must be strict
        if node == 0:
            return True
        return bool(np.all(lo > self.bmin[node]) and np.all(hi < self.bmax[node]))

    def locate(self, lo, hi, start: int = 0) -> tuple[int, int]:
        """Smallest node holding the box ``[lo, hi]``, searched from ``start``.

        Returns
        -------
        node : int
        n_steps : int
            Moves up plus moves down.
        """
        node, steps = start, 0
        while not self._holds(node, lo, hi):
            node = int(self.parent[node])
            steps += 1
        while self.first_child[node] >= 0:
            f = int(self.first_child[node])
            for c in range(f, f + 8):
                if self._holds(c, lo, hi):
                    node = c
                    steps += 1
                    break
            else:
                break
        return node, steps

    def query(self, obbs: SceneOBBs, previous: np.ndarray | None = None,
              from_root: bool = False) -> SceneQueryRecord:  # fmt: skip
        """Overlapping object pairs of one frame.

        Parameters
        ----------
        obbs : SceneOBBs
            This frame's world OBBs.
        previous : (n,) int64, optional
            Last frame's nodes (:attr:`SceneQueryRecord.start_node`); None starts at the root.
        from_root : bool
            Search every object from the root with OBB-AABB tests (the baseline to compare).

        Returns
        -------
        SceneQueryRecord
        """
        n = obbs.center.shape[0]
        lo, hi = obbs.aabbs(2.0 * self.margin)
        start = np.zeros(n, dtype=np.int64)
        steps = np.zeros(n, dtype=np.int64)
        for i in range(n):
            s = 0 if previous is None else int(previous[i])
            start[i], steps[i] = self.locate(lo[i], hi[i], s)
        order = np.argsort(start, kind="stable")
        stored_at = {}
        for i in order:
            stored_at.setdefault(int(start[i]), []).append(int(i))
        found = set()
        visited_all, tested_all = [], []
        n_node_tests = n_obb_tests = 0
        for i in range(n):
            visited, tested = [], []
            if from_root:
                stack = [0]
            else:
                node = int(self.parent[start[i]])
                while node >= 0:  # ancestors hold i: their objects only
                    visited.append(node)
                    tested.extend(stored_at.get(node, ()))
                    node = int(self.parent[node])
                stack = [int(start[i])]
            while stack:
                node = stack.pop()
                visited.append(node)
                if node != start[i] and node != 0:
                    n_node_tests += 1
                    if not obb_aabb_overlap(obbs, i, self.bmin[node], self.bmax[node],
                                            2.0 * self.margin):  # fmt: skip
                        continue
                tested.extend(stored_at.get(node, ()))
                f = int(self.first_child[node])
                if f >= 0:
                    stack.extend(range(f, f + 8))
            tested = [j for j in tested if j != i]
            for j in tested:
                n_obb_tests += 1
                if obb_overlap(obbs, i, j, self.margin):
                    found.add((min(i, j), max(i, j)))
            visited_all.append(np.array(visited, dtype=np.int64))
            tested_all.append(np.array(tested, dtype=np.int64))
        pairs = np.array(sorted(found), dtype=np.int32).reshape(-1, 2)
        return SceneQueryRecord(pairs, start, steps, visited_all, tested_all, n_node_tests,
                                n_obb_tests)  # fmt: skip


def triangle_contacts(meshes: list[TriMesh], poses: list[Pose], pairs: np.ndarray) -> dict:
    """Triangle-level contacts (:func:`core.contacts`) of the object pairs whose OBBs overlap.

    Returns
    -------
    dict
        ``(i, j) -> CollisionResult`` for every pair with at least one contact.
    """
    from core import contacts

    out = {}
    for i, j in pairs:
        res = contacts(meshes[i], meshes[j], poses[i], poses[j])
        if res.in_contact:
            out[(int(i), int(j))] = res
    return out


def demo_scene(n_objects: int = 60, seed: int = 0, extent: float = 10.0):
    """A built-in scene: ``n_objects`` ellipsoids and boxes (small meshes) at random poses.

    Returns
    -------
    meshes : list of TriMesh
    poses : list of Pose
    """
    from core.shapes import uv_sphere

    rng = np.random.default_rng(seed)
    ball = uv_sphere(6)
    cube_v = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    cube_f = np.array([
        [0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
        [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3],
    ])  # fmt: skip
    cube = TriMesh.from_arrays(cube_v, cube_f, "box")
    meshes, poses = [], []
    for k in range(n_objects):
        base = ball if k % 2 == 0 else cube
        scale = rng.uniform(0.2, 1.0, 3)
        meshes.append(TriMesh.from_arrays(base.vertices * scale, base.faces, f"{base.name}{k}"))
        axis = rng.normal(size=3)
        poses.append(Pose.from_axis_angle(axis, rng.uniform(0, np.pi), rng.uniform(0, extent, 3)))
    return meshes, poses


def local_obbs(meshes: list[TriMesh]):
    """Object-frame OBBs of meshes: ``(n, 3)``, ``(n, 3, 3)``, ``(n, 3)`` float64."""
    fits = [obb_from_vertices(m.vertices) for m in meshes]
    return (np.stack([f[0] for f in fits]), np.stack([f[1] for f in fits]),
            np.stack([f[2] for f in fits]))  # fmt: skip
