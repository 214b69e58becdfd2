"""The default pairs of bodies of the ``splits``, ``refit`` and ``partitions`` experiments.

Every pair is scaled so that each body's longest side is 2 and posed so that the surfaces
cut each other: a query with no contact would end at the roots and measure nothing.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

from core.mesh import TriMesh
from core.partition.compare import fit_unit, sphere_with_triangles
from core.pose import Pose

ASSETS = Path(__file__).resolve().parent.parent.parent / "assets"
"""The shipped meshes."""

BUNNY_POSE_B = Pose.from_axis_angle((0.0, 1.0, 0.0), math.radians(40.0), (0.6, 0.2, 0.0))
"""B's pose in the viewer's "Bunny vs bunny" scene: shifted along x and turned 40 degrees."""

SPHERE_POSE_B = Pose.from_axis_angle((1.0, 2.0, 3.0), 0.6, (1.0, 0.3, 0.2))
"""B's pose against a unit sphere at the origin: half a radius deep, turned so that no
triangle of B lines up with one of A."""


@lru_cache(maxsize=1)
def bunny() -> TriMesh:
    """The Stanford bunny (69,451 triangles), centred, longest side 2."""
    from core.io import load_mesh

    return fit_unit(load_mesh(ASSETS / "stanford-bunny.obj"))


@lru_cache(maxsize=1)
def teapot() -> TriMesh:
    """The Utah teapot as shipped (not decimated)."""
    from core.io import load_mesh

    return load_mesh(ASSETS / "teapot.obj")


def sphere_of(n_triangles: int) -> TriMesh:
    """A unit UV sphere with about ``n_triangles`` triangles (see
    :func:`core.partition.compare.sphere_with_triangles`)."""
    return sphere_with_triangles(n_triangles)


def bunny_pair() -> tuple[TriMesh, Pose, TriMesh, Pose]:
    """Two bunnies overlapping as in the viewer's "Bunny vs bunny" scene: ``(mesh_a, pose_a,
    mesh_b, pose_b)``."""
    mesh = bunny()
    return mesh, Pose.identity(), mesh, BUNNY_POSE_B


def sphere_pair(n_triangles: int) -> tuple[TriMesh, Pose, TriMesh, Pose]:
    """Two unit spheres of about ``n_triangles`` triangles each, cutting each other."""
    mesh = sphere_of(n_triangles)
    return mesh, Pose.identity(), mesh, SPHERE_POSE_B
