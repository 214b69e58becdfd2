"""Meshes made in code: a UV sphere, a mesh decimated to a triangle count, a mesh fitted to a
size. The experiments, the scene-octree demo and the tests build their shapes here.

Every function returns a :class:`core.mesh.TriMesh` and reads no file.
"""

from __future__ import annotations

import numpy as np

from core.mesh import TriMesh

__all__ = ["decimate_by_clustering", "fit_unit", "uv_sphere"]


def uv_sphere(n_rings: int, radius: float = 1.0, name: str = "sphere") -> TriMesh:
    """Closed UV sphere with ``n_rings`` rings and ``2 n_rings`` segments, ``4 n (n - 1)``
    triangles (23 -> 2024, 32 -> 3968, 45 -> 7920)."""
    rings, segs = n_rings, 2 * n_rings
    theta = np.linspace(0.0, np.pi, rings + 1)[1:-1]
    phi = np.linspace(0.0, 2 * np.pi, segs, endpoint=False)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    ring = np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], -1).reshape(-1, 3)
    v = np.concatenate([[[0.0, 0.0, 1.0]], ring, [[0.0, 0.0, -1.0]]]) * radius
    bottom = v.shape[0] - 1
    s = np.arange(segs)
    s1 = (s + 1) % segs
    last = 1 + (rings - 2) * segs
    faces = [
        np.stack([np.zeros(segs, int), 1 + s, 1 + s1], 1),
        np.stack([np.full(segs, bottom), last + s1, last + s], 1),
    ]
    for r in range(rings - 2):
        a, b = 1 + r * segs, 1 + (r + 1) * segs
        faces.append(np.stack([a + s, b + s, b + s1], 1))
        faces.append(np.stack([a + s, b + s1, a + s1], 1))
    return TriMesh.from_arrays(v, np.concatenate(faces), name)


def _cluster(mesh: TriMesh, n_cells: int):
    v = mesh.vertices
    lo, hi = v.min(axis=0), v.max(axis=0)
    cell = float(np.max(hi - lo)) / n_cells
    ijk = np.floor((v - lo) / cell).astype(np.int64)
    key = ijk[:, 0] + (n_cells + 1) * (ijk[:, 1] + (n_cells + 1) * ijk[:, 2])
    uniq, rep = np.unique(key, return_inverse=True)
    rep = rep.reshape(-1)
    sums = np.zeros((uniq.shape[0], 3))
    np.add.at(sums, rep, v)
    centres = sums / np.bincount(rep)[:, None]
    f = rep[mesh.faces]
    keep = (f[:, 0] != f[:, 1]) & (f[:, 1] != f[:, 2]) & (f[:, 2] != f[:, 0])
    f = f[keep]
    f = f[np.unique(np.sort(f, axis=1), axis=0, return_index=True)[1]]
    return centres, f


def decimate_by_clustering(mesh: TriMesh, target_faces: int) -> TriMesh:
    """Vertex-clustering decimation (Rossignac & Borrel 1993) to about ``target_faces``.

    Vertices are merged per cubic cell (to their mean), collapsed and duplicate faces dropped;
    the number of cells is searched by bisection for the face count nearest the target.
    """
    lo_n, hi_n = 2, 512
    best = None
    while lo_n <= hi_n:
        mid = (lo_n + hi_n) // 2
        v, f = _cluster(mesh, mid)
        if best is None or abs(f.shape[0] - target_faces) < abs(best[1].shape[0] - target_faces):
            best = (v, f)
        if f.shape[0] < target_faces:
            lo_n = mid + 1
        else:
            hi_n = mid - 1
    v, f = best
    used = np.unique(f)
    remap = np.full(v.shape[0], -1, dtype=np.int64)
    remap[used] = np.arange(used.shape[0])
    return TriMesh.from_arrays(v[used], remap[f], f"{mesh.name}-{f.shape[0]}")


def fit_unit(mesh: TriMesh) -> TriMesh:
    """The mesh centred at the origin with its longest side 2 (Yu et al.'s pairs are scaled
    to one size so that the surfaces cut each other)."""
    lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    return mesh.with_vertices((mesh.vertices - 0.5 * (lo + hi)) * (2.0 / float(np.max(hi - lo))))
