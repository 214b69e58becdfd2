"""Small meshes made in code for the core tests (no file reading, no pyvista)."""

import numpy as np

from core.mesh import TriMesh
from core.shapes import uv_sphere


def sphere_mesh(n: int, radius: float = 1.0, name: str = "sphere") -> TriMesh:
    """A closed UV sphere with ``n`` rings and ``2n`` segments: ``4n(n-1)`` triangles
    (:func:`core.shapes.uv_sphere`).

    The faces are in the order the tests were written for, segment by segment within each
    band (the top and bottom fans interleaved, then each ring's two triangles of a quad
    side by side), so face ids named in their assertions stay those of the same triangles.
    """
    mesh = uv_sphere(n, radius, name)
    # uv_sphere lists the faces band by band as (2, segments) blocks: (top fan, bottom fan),
    # then (first, second triangle of each quad) for every ring; this interleaves each block.
    faces = mesh.faces.reshape(-1, 2, 2 * n, 3).transpose(0, 2, 1, 3).reshape(-1, 3)
    return TriMesh.from_arrays(mesh.vertices, faces, name)


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


def closest_point_on_triangle(x, a, b, c):
    """Closest point of triangle abc to x (Ericson, Real-Time Collision Detection, 5.1.5);
    a zero-area triangle is handled as its three edges."""
    n = np.cross(b - a, c - a)
    if np.dot(n, n) == 0.0:
        best = None
        for s0, s1 in ((a, b), (b, c), (c, a)):
            d = s1 - s0
            dd = float(d @ d)
            t = 0.0 if dd == 0.0 else min(max(float((x - s0) @ d) / dd, 0.0), 1.0)
            y = s0 + t * d
            if best is None or np.linalg.norm(x - y) < np.linalg.norm(x - best):
                best = y
        return best
    ab, ac, ap = b - a, c - a, x - a
    d1, d2 = ab @ ap, ac @ ap
    if d1 <= 0 and d2 <= 0:
        return a
    bp = x - b
    d3, d4 = ab @ bp, ac @ bp
    if d3 >= 0 and d4 <= d3:
        return b
    vc = d1 * d4 - d3 * d2
    if vc <= 0 and d1 >= 0 and d3 <= 0:
        return a + d1 / (d1 - d3) * ab
    cp = x - c
    d5, d6 = ab @ cp, ac @ cp
    if d6 >= 0 and d5 <= d6:
        return c
    vb = d5 * d2 - d1 * d6
    if vb <= 0 and d2 >= 0 and d6 <= 0:
        return a + d2 / (d2 - d6) * ac
    va = d3 * d6 - d5 * d4
    if va <= 0 and (d4 - d3) >= 0 and (d5 - d6) >= 0:
        return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b)
    denom = 1.0 / (va + vb + vc)
    return a + ab * (vb * denom) + ac * (vc * denom)
