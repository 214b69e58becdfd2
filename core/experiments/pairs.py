"""The default scenes of the ``splits``, ``refit`` and ``partitions`` experiments.

Every body is scaled so that its longest side is 2 and posed so that the surfaces cut each
other: a query without contact would end at the roots and measure nothing.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

from core.experiments.base import ExperimentScene
from core.experiments.common import ASSETS_DIR, bunny_pair_scene, sphere_mesh
from core.mesh import TriMesh
from core.partition.compare import YU_POSE, yu_teapot
from core.pose import Pose
from core.shapes import decimate_by_clustering

SPHERE_POSE_B = Pose.from_axis_angle((1.0, 2.0, 3.0), 0.6, (1.0, 0.3, 0.2))
"""B's pose against a unit sphere at the origin: its centre one radius away, turned so that
no triangle of B lines up with one of A."""


BUNNY_TRIANGLES = 69451
"""Triangles of the shipped Stanford bunny."""

SIZED_SCENE_MEANING = ("triangles per body: two overlapping Stanford bunnies (decimated below "
                       "69,451), two spheres above")
"""What a size means to the experiments that run on :func:`sized_scene`."""


@lru_cache(maxsize=1)
def _bunny_scene() -> ExperimentScene:
    return bunny_pair_scene()


def bunnies() -> ExperimentScene:
    """Two overlapping bunnies (69,451 triangles each), as the viewer's "Bunny vs bunny";
    read from ``assets/`` once per process."""
    return _bunny_scene()


def sized_scene(n_triangles: int) -> ExperimentScene:
    """Two bodies of about ``n_triangles`` triangles each, cutting each other: the bunnies of
    :func:`bunnies` (decimated by vertex clustering below 69,451 triangles), or two spheres
    above that count, which the bunny does not have.

    Raises
    ------
    ValueError
        Fewer than 16 triangles (naming the size).
    """
    n = int(n_triangles)
    if n < 16:
        raise ValueError(f"a size is triangles per body, at least 16, got {n}")
    if n > BUNNY_TRIANGLES:
        return sphere_pair_scene(n)
    full = bunnies()
    if n == BUNNY_TRIANGLES:
        return full
    mesh = decimate_by_clustering(full.mesh_a, n)
    return dataclasses.replace(full, mesh_a=mesh, mesh_b=mesh,
                               title=f"two bunnies decimated to {mesh.n_faces:,} triangles "
                                     f"each")  # fmt: skip


def sphere_pair_scene(n_triangles: int) -> ExperimentScene:
    """Two unit spheres of about ``n_triangles`` triangles each, cutting each other."""
    mesh = sphere_mesh(n_triangles)
    return ExperimentScene(mesh, Pose(), mesh, SPHERE_POSE_B,
                           title="two spheres cutting each other")  # fmt: skip


@lru_cache(maxsize=1)
def paper_teapot() -> TriMesh:
    """Yu et al.'s small body: the shipped teapot decimated to about 530 triangles
    (:func:`core.partition.compare.yu_teapot`)."""
    from core.io import load_mesh

    return yu_teapot(load_mesh(ASSETS_DIR / "teapot.obj"))


def teapot_sphere_scene(n_triangles: int) -> ExperimentScene:
    """The paper's shape: the ~530-triangle teapot against a sphere of about ``n_triangles``
    triangles, posed as in ``benchmarks.yu2018``."""
    return ExperimentScene(paper_teapot(), Pose(), sphere_mesh(n_triangles), YU_POSE,
                           title="a 530-triangle teapot against spheres")  # fmt: skip


def sentence_case(words: str) -> str:
    """``words`` with its first letter capitalised, to open a caption with a scene's title."""
    return words[:1].upper() + words[1:]


def scenes_title(titles) -> str:
    """One title for the scenes of a run: their titles, each once, joined by "; "."""
    return "; ".join(dict.fromkeys(titles))


def size_labels(rows: list[dict]) -> dict[int, str]:
    """Legend words for each size of a run's rows (keyed by ``"triangles"``): the triangle
    count, and the scene's title when the sizes ran on different scenes (bunnies below
    69,451 triangles, spheres above)."""
    scene_of = {r["triangles"]: r["scene"] for r in rows}
    is_mixed = len(set(scene_of.values())) > 1
    return {n: f"{n:,} triangles" + (f": {scene}" if is_mixed else "")
            for n, scene in scene_of.items()}  # fmt: skip
