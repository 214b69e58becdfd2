"""Helpers every experiment shares: scenes (concentric spheres, two bunnies), the log-log
slope fit, number words and the figure caption."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np

from core.experiments.base import ExperimentScene
from core.mesh import TriMesh
from core.pose import Pose

#: The shipped meshes (``assets/`` beside the packages).
ASSETS_DIR = Path(__file__).resolve().parents[2] / "assets"

#: Width of the figures, inches: readable on a slide at 150 dpi (1500 px).
FIGURE_WIDTH = 10.0


def sphere_rings(n_triangles: int) -> int:
    """Rings of the latitude-longitude sphere
    (:func:`core.shapes.uv_sphere`) with the triangle count nearest
    ``n_triangles``: ``n`` rings have ``4 n (n - 1)`` triangles."""
    if n_triangles < 16:
        raise ValueError(f"a sphere needs at least 16 triangles, got {n_triangles}")
    return max(3, round((1.0 + math.sqrt(1.0 + n_triangles)) / 2.0))


def sphere_mesh(n_triangles: int, radius: float = 1.0, name: str = "sphere") -> TriMesh:
    """A closed latitude-longitude sphere of about ``n_triangles`` triangles (at least 16),
    centred at the origin, faces outwards."""
    from core.shapes import uv_sphere

    return uv_sphere(sphere_rings(n_triangles), radius, name)


def facet_offsets(mesh: TriMesh) -> np.ndarray:
    """Distance from the centre (the origin) to each face's plane, ``(m,) float64``."""
    corners = mesh.vertices[mesh.faces]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normals /= np.linalg.norm(normals, axis=1)[:, None]
    return np.abs(np.einsum("ij,ij->i", normals, corners[:, 0]))


def concentric_spheres(n_triangles: int, gap: float) -> tuple[TriMesh, TriMesh]:
    """Two concentric spheres of the same tessellation whose surfaces are ``gap`` apart.

    The outer one is the inner one scaled by ``s = 1 + gap / min_f h_f`` (``h_f`` the
    distance of face ``f``'s plane from the centre): each outer facet is parallel to its
    inner twin at distance ``(s - 1) h_f >= gap``, and since the inner polyhedron's extent
    along a face's normal is that face's own plane, no inner point comes nearer: the surfaces
    are exactly ``gap`` apart, in parallel close proximity everywhere.

    Returns
    -------
    (TriMesh, TriMesh)
        Inner (vertex radius 1) and outer sphere.
    """
    inner = sphere_mesh(n_triangles, 1.0, "inner sphere")
    scale = 1.0 + float(gap) / float(facet_offsets(inner).min())
    outer = inner.with_vertices(inner.vertices * scale)
    return inner, outer


def bunny_mesh() -> TriMesh:
    """The Stanford bunny from ``assets/``, centred on its box and 2 long (as the viewer's
    bunny scenes)."""
    from core.io import load_mesh

    mesh = load_mesh(ASSETS_DIR / "stanford-bunny.obj", name="bunny")
    lo, hi = mesh.bounds
    centred = (mesh.vertices - 0.5 * (lo + hi)) * (2.0 / float(np.max(hi - lo)))
    return mesh.with_vertices(centred)


def bunny_pair_scene() -> ExperimentScene:
    """Two overlapping bunnies, B moved by (0.6, 0.2, 0) and turned 40 degrees about y (the
    viewer's bunny-against-bunny scene)."""
    bunny = bunny_mesh()
    pose_b = Pose.from_axis_angle((0.0, 1.0, 0.0), math.radians(40.0), (0.6, 0.2, 0.0))
    return ExperimentScene(bunny, Pose(), bunny, pose_b, title="two overlapping bunnies")


def loglog_slope(x, y) -> float:
    """Least-squares slope of ``log y`` against ``log x`` (NaN with fewer than two points)."""
    x = np.log(np.asarray(x, dtype=np.float64))
    y = np.log(np.asarray(y, dtype=np.float64))
    if x.shape[0] < 2:
        return float("nan")
    return float(np.polyfit(x, y, 1)[0])


def gap_words(gap: float) -> str:
    """``1e-3`` for a power of ten, else three significant digits."""
    exponent = math.log10(gap)
    if abs(exponent - round(exponent)) < 1e-9:
        return f"1e{round(exponent)}"
    return f"{gap:.3g}"


def put_caption(fig, caption: str, bottom: float = 0.22) -> None:
    """Write ``caption`` under the axes of ``fig`` (wrapped to the figure's width), leaving
    ``bottom`` of the figure's height for it, so a PNG put on a slide carries its source."""
    width_chars = int(fig.get_figwidth() * 12)  # about 12 characters an inch at 9 pt
    fig.text(0.02, 0.015, textwrap.fill(caption, width_chars), ha="left", va="bottom",
             fontsize=9, color="#333333")  # fmt: skip
    fig.subplots_adjust(bottom=bottom)
