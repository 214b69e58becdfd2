"""The benchmark meshes and poses: pyvista spheres of about N triangles.

All workloads use a unit sphere (radius 1, centre at the origin), so the W3 wave
``r = 1 + 0.05 sin(4 pi z - 2 pi f / 50)`` is a relative ripple of 5 %.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.mesh import TriMesh
from core.pose import Pose

SIZES: dict[str, int] = {"10k": 10_000, "100k": 100_000, "500k": 500_000}

# W1: B = A rotated 0.6 rad about (1, 2, 3), then moved by (0.5, 0, 0).
W1_AXIS = (1.0, 2.0, 3.0)
W1_ANGLE_RAD = 0.6
W1_TRANSLATION = (0.5, 0.0, 0.0)

# W2: B = A scaled by 1 + eps about the centre.
W2_EPS = (1.0, 0.1, 0.01, 0.001)

# W3: frames of the radial wave (one full period at 50 frames).
W3_N_FRAMES = 50


@dataclass(frozen=True)
class SphereCase:
    """A sphere mesh and the resolutions that made it.

    Attributes
    ----------
    label : str
        Size label, e.g. ``"100k"``.
    mesh : TriMesh
        ``n_faces`` close to the target.
    theta_resolution, phi_resolution : int
    """

    label: str
    mesh: TriMesh
    theta_resolution: int
    phi_resolution: int

    @property
    def n_tris(self) -> int:
        return self.mesh.n_faces


def sphere_resolutions(n_target: int) -> tuple[int, int]:
    """Theta and phi resolutions of ``pyvista.Sphere`` giving about ``n_target`` triangles.

    ``pyvista.Sphere`` has ``2 theta (phi - 2)`` triangles. Cells are close to square at the
    equator when ``theta ~ 2 (phi - 1)`` (theta spans 2 pi, phi spans pi), so the search
    keeps that ratio within 25 % and takes the count closest to the target.

    Returns
    -------
    (int, int)
    """
    best = None
    for phi in range(4, 4096):
        theta = round(n_target / (2 * (phi - 2)))
        if theta < 3:
            break
        aspect = theta / (2 * (phi - 1))
        if not 0.8 <= aspect <= 1.25:
            continue
        key = (abs(2 * theta * (phi - 2) - n_target), abs(aspect - 1.0))
        if best is None or key < best[0]:
            best = (key, theta, phi)
    if best is None:
        raise ValueError(f"no sphere resolution for {n_target} triangles")
    return best[1], best[2]


def sphere_case(label: str, n_target: int) -> SphereCase:
    """The unit sphere of about ``n_target`` triangles as a :class:`TriMesh`."""
    import pyvista as pv

    theta, phi = sphere_resolutions(n_target)
    poly = pv.Sphere(radius=1.0, theta_resolution=theta, phi_resolution=phi)
    # pyvista faces are a padded cell array: (3, i, j, k) per triangle.
    faces = np.asarray(poly.faces).reshape(-1, 4)[:, 1:]
    vertices = np.asarray(poly.points, dtype=np.float64)
    mesh = TriMesh.from_arrays(vertices, faces, name=f"sphere-{label}")
    return SphereCase(label, mesh, theta, phi)


def w1_pose() -> Pose:
    """World pose of B in W1 (A stays at the identity)."""
    return Pose.from_axis_angle(W1_AXIS, W1_ANGLE_RAD, W1_TRANSLATION)


def scaled_about_centre(mesh: TriMesh, factor: float) -> TriMesh:
    """A copy of ``mesh`` scaled by ``factor`` about its bounding-box centre (W2's B)."""
    lo, hi = mesh.bounds
    centre = 0.5 * (lo + hi)
    return TriMesh.from_arrays(
        centre + factor * (mesh.vertices - centre), mesh.faces, name=f"{mesh.name}x{factor:g}"
    )
