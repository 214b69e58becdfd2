"""Small meshes made in code for the core tests (no file reading, no pyvista)."""

import numpy as np

from core.mesh import TriMesh


def sphere_mesh(n: int, radius: float = 1.0, name: str = "sphere") -> TriMesh:
    """A closed UV sphere with ``n`` rings and ``2n`` segments: ``4n(n-1)`` triangles."""
    rings, segs = n, 2 * n
    theta = np.linspace(0.0, np.pi, rings + 1)[1:-1]
    phi = np.linspace(0.0, 2 * np.pi, segs, endpoint=False)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    ring_pts = np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], -1)
    ring_pts = ring_pts.reshape(-1, 3)
    v = np.concatenate([[[0, 0, 1]], ring_pts, [[0, 0, -1]]]) * radius
    top, bottom = 0, len(v) - 1
    faces = []

    def idx(r, s):
        return 1 + r * segs + (s % segs)

    for s in range(segs):
        faces.append([top, idx(0, s), idx(0, s + 1)])
        faces.append([bottom, idx(rings - 2, s + 1), idx(rings - 2, s)])
    for r in range(rings - 2):
        for s in range(segs):
            faces.append([idx(r, s), idx(r + 1, s), idx(r + 1, s + 1)])
            faces.append([idx(r, s), idx(r + 1, s + 1), idx(r, s + 1)])
    return TriMesh.from_arrays(v, np.array(faces), name)


def triangle_soup(
    n: int, seed: int = 0, size: float = 0.08, clustered: bool = False, name: str = "soup"
) -> TriMesh:
    """``n`` independent random triangles in the unit cube (each its own three vertices)."""
    rng = np.random.default_rng(seed)
    if clustered:
        centres = np.concatenate(
            [rng.normal(0.2, 0.03, (n // 2, 3)), rng.uniform(0, 1, (n - n // 2, 3))]
        )
    else:
        centres = rng.uniform(0, 1, (n, 3))
    corners = centres[:, None, :] + rng.uniform(-size, size, (n, 3, 3))
    return TriMesh.from_arrays(corners.reshape(-1, 3), np.arange(3 * n).reshape(n, 3), name)
