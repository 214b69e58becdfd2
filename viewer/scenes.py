"""Built-in teaching scenes, one registry.

A scene is a description, not live state: each body says where its triangles come from (a
generated shape or a shipped asset), its world pose, its colour and its deformer. The
controller turns a :class:`SceneSpec` into meshes; nothing here calls the core.

Generated shapes use pyvista's sources (``Sphere``, ``ParametricTorus``, ``Plane``) so the
scenes need no files; shipped meshes live in ``assets/``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ASSETS_DIR = Path(__file__).resolve().parents[1] / "assets"
"""Where shipped meshes live (``assets/`` at the repository root)."""

COLOR_A = "#7fa7d9"
"""Mesh colour of body A (blue): the tree of A is drawn in the same hue, darker."""
COLOR_B = "#9ccc7a"
"""Mesh colour of body B (green). Neither colour is red: red is reserved for contacts."""
COLOR_OTHER = "#c8c8c8"
"""Colour of any third or later body (they are drawn but not tested)."""


def default_color(index: int) -> str:
    """Mesh colour of the ``index``-th body."""
    return (COLOR_A, COLOR_B)[index] if index < 2 else COLOR_OTHER


ShapeFn = Callable[[], tuple[np.ndarray, np.ndarray]]
"""A generator of ``(vertices (n, 3) float64, faces (m, 3) int64)``."""


def _poly_to_arrays(poly) -> tuple[np.ndarray, np.ndarray]:
    """Vertices ``(n, 3) float64`` and faces ``(m, 3) int64`` of a triangulated pyvista mesh."""
    tri = poly.triangulate().clean()
    faces = np.asarray(tri.faces).reshape(-1, 4)[:, 1:]
    return np.asarray(tri.points, dtype=np.float64), faces.astype(np.int64)


def sphere(radius: float = 1.0, resolution: int = 32) -> ShapeFn:
    """A UV sphere of about ``2 * resolution**2`` triangles centred at the origin."""

    def make():
        import pyvista as pv

        return _poly_to_arrays(
            pv.Sphere(radius=radius, theta_resolution=resolution, phi_resolution=resolution)
        )

    return make


def torus(ring_radius: float = 1.0, tube_radius: float = 0.3, resolution: int = 48) -> ShapeFn:
    """A torus around the local z axis."""

    def make():
        import pyvista as pv

        return _poly_to_arrays(
            pv.ParametricTorus(
                ringradius=ring_radius,
                crosssectionradius=tube_radius,
                u_res=resolution,
                v_res=max(12, resolution // 2),
                w_res=1,
            )
        )

    return make


def sheet(size: float = 3.0, resolution: int = 64) -> ShapeFn:
    """A square sheet in the local xy plane of ``2 * resolution**2`` triangles (a cloth)."""

    def make():
        import pyvista as pv

        return _poly_to_arrays(
            pv.Plane(i_size=size, j_size=size, i_resolution=resolution, j_resolution=resolution)
        )

    return make


def tube(length: float = 4.0, radius: float = 1.0, n_around: int = 48,
         n_along: int = 96) -> ShapeFn:
    """A closed tube along the local x axis: a cylinder wall of ``2 * n_around * n_along``
    triangles and two fan caps, centred at the origin, outward wound."""

    def make():
        angles = np.linspace(0.0, 2.0 * np.pi, n_around, endpoint=False)
        xs = np.linspace(-0.5 * length, 0.5 * length, n_along + 1)
        ring = np.stack([np.zeros(n_around), radius * np.cos(angles),
                         radius * np.sin(angles)], axis=1)
        wall = np.repeat(ring[None], n_along + 1, axis=0)
        wall[:, :, 0] = xs[:, None]
        vertices = np.concatenate([wall.reshape(-1, 3),
                                   [[xs[0], 0.0, 0.0], [xs[-1], 0.0, 0.0]]])
        i = np.arange(n_along)[:, None] * n_around
        j = np.arange(n_around)[None, :]
        a, b = i + j, i + (j + 1) % n_around
        c, d = a + n_around, b + n_around
        quads = np.stack([a, b, c, d], axis=-1).reshape(-1, 4)
        faces = [quads[:, [0, 1, 3]], quads[:, [0, 3, 2]]]
        start, end = len(vertices) - 2, len(vertices) - 1
        last = n_along * n_around
        faces.append(np.stack([np.full(n_around, start), (j[0] + 1) % n_around, j[0]], axis=1))
        faces.append(np.stack([np.full(n_around, end), last + j[0],
                               last + (j[0] + 1) % n_around], axis=1))
        return vertices, np.concatenate(faces).astype(np.int64)

    return make


def hollow_ball(outer: float = 1.0, inner: float = 0.9, resolution: int = 32) -> ShapeFn:
    """One closed mesh with two walls: a sphere of radius ``outer`` and, inside it, a sphere
    of radius ``inner`` wound inward (a thick hollow shell)."""

    def make():
        v_out, f_out = sphere(outer, resolution)()
        v_in, f_in = sphere(inner, resolution)()
        return (np.concatenate([v_out, v_in]),
                np.concatenate([f_out, f_in[:, ::-1] + v_out.shape[0]]))

    return make


def pose_matrix(translation=(0.0, 0.0, 0.0), axis=(0.0, 0.0, 1.0), angle_deg: float = 0.0):
    """A ``(4, 4) float64`` rigid transform: rotate about ``axis`` then translate (Rodrigues)."""
    a = np.asarray(axis, dtype=np.float64)
    a = a / np.linalg.norm(a)
    k = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    angle = np.deg2rad(angle_deg)
    m = np.eye(4)
    m[:3, :3] = np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * (k @ k)
    m[:3, 3] = translation
    return m


@dataclass(frozen=True)
class BodySpec:
    """One body of a scene.

    Attributes
    ----------
    name : str
    shape : ShapeFn or str
        A generator, or the file name of a shipped asset in ``assets/``.
    pose : (4, 4) float64
        World pose.
    fit_size : float or None
        If set, the rest mesh is centred on its box centre and scaled so that its longest
        side is ``fit_size`` (shipped meshes come in very different units).
    deformer : str or None
        Key in ``core.deform.DEFORMERS``.
    deformer_params : dict
        Overrides of the deformer's defaults.
    """

    name: str
    shape: ShapeFn | str
    pose: np.ndarray = field(default_factory=lambda: np.eye(4))
    fit_size: float | None = None
    deformer: str | None = None
    deformer_params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class SceneParam:
    """A scene-specific slider (e.g. the gap between two concentric spheres).

    Attributes
    ----------
    label : str
    lo, hi, default : float
    body_index : int
        The body whose rest vertices the slider changes.
    apply : Callable[[ndarray, float], ndarray]
        ``apply(base_vertices (n, 3) float64, value) -> (n, 3) float64``; same faces, so
        the tree is refitted, not rebuilt.
    n_stops : int or None
        Slider positions from ``lo`` to ``hi`` (None: a fine linear slider).
    is_log : bool
        The stops are spaced evenly in ``log10(value)`` (``lo`` must be > 0).
    is_distance : bool
        The value is the minimum distance between bodies A and B: the scene shows the
        distance the frame measured next to the value asked for, and the volume tests it
        costs.
    """

    label: str
    lo: float
    hi: float
    default: float
    body_index: int
    apply: Callable[[np.ndarray, float], np.ndarray]
    n_stops: int | None = None
    is_log: bool = False
    is_distance: bool = False

    def stops(self) -> np.ndarray:
        """``(n_stops,) float64`` slider values, ``lo`` first (empty without stops)."""
        if self.n_stops is None:
            return np.empty(0)
        if self.is_log:
            return np.logspace(np.log10(self.lo), np.log10(self.hi), self.n_stops)
        return np.linspace(self.lo, self.hi, self.n_stops)


@dataclass(frozen=True)
class SceneSpec:
    """A built-in scene.

    Attributes
    ----------
    key : str
    title : str
    description : str
        Two sentences for the student: what to look at.
    bodies : tuple of BodySpec
        Bodies 0 and 1 are the pair that is tested (A and B).
    param : SceneParam or None
    playing : bool
        Start with the deformers running.
    self_collision : bool
        Test the first body against itself (a one-body scene: its self-traversal is what
        the level slider and overlays show).
    """

    key: str
    title: str
    description: str
    bodies: tuple[BodySpec, ...]
    param: SceneParam | None = None
    playing: bool = False
    self_collision: bool = False


class ConcentricGap:
    """Scale the outer of two tessellated spheres about their common centre so that the two
    surfaces are exactly ``gap`` apart.

    Both tessellations are convex polyhedra, the inner one inside the outer one. The
    distance from the inner polyhedron to the outer surface is
    ``min_f (s h_f - max_v n_f . v)`` over the outer faces ``f`` (unit outward normal
    ``n_f``, plane offset ``h_f`` at scale 1, ``s`` the scale) and the inner vertices ``v``:
    a linear function of a point is least at a vertex, and the distance from an inside point
    to a convex surface is its least distance to a face plane. So the scale that makes it
    ``gap`` is ``max_f (gap + max_v n_f . v) / h_f``. Scaling the radius by ``1 + gap`` (as
    this scene once did) left the facets of the outer sphere closer than ``gap`` to the
    vertices of the inner one: below a gap of about 0.0045 the two faceted spheres crossed.

    Parameters
    ----------
    inner, outer : ShapeFn
        The two spheres, centred at the origin; ``outer`` is the body the slider scales.
    """

    def __init__(self, inner: ShapeFn, outer: ShapeFn):
        self.inner, self.outer = inner, outer
        self._tables: tuple[np.ndarray, np.ndarray] | None = None

    def tables(self) -> tuple[np.ndarray, np.ndarray]:
        """``(h (m,) float64, support (m,) float64)``: each outer face's plane offset at
        scale 1 and the inner sphere's farthest extent along that face's normal."""
        if self._tables is None:
            inner_vertices, _ = self.inner()
            vertices, faces = self.outer()
            corners = vertices[faces]  # (m, 3, 3)
            normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
            lengths = np.linalg.norm(normals, axis=1)
            keep = lengths > 0  # a degenerate pole triangle has no plane
            normals = normals[keep] / lengths[keep, None]
            offsets = np.einsum("ij,ij->i", normals, corners[keep, 0])
            normals *= np.sign(offsets)[:, None]  # outward: the centre is inside
            offsets = np.abs(offsets)
            support = (inner_vertices @ normals.T).max(axis=0)
            self._tables = (offsets, support)
        return self._tables

    def scale_for(self, gap: float) -> float:
        """Scale of the outer sphere at which the surfaces are ``gap`` apart."""
        offsets, support = self.tables()
        return float(np.max((float(gap) + support) / offsets))

    def __call__(self, base: np.ndarray, gap: float) -> np.ndarray:
        return np.asarray(base, dtype=np.float64) * self.scale_for(gap)


SCENES: dict[str, SceneSpec] = {}
"""Every built-in scene by key, in menu order."""


def _register(spec: SceneSpec) -> None:
    SCENES[spec.key] = spec


_register(
    SceneSpec(
        "two-spheres",
        "Two spheres overlapping",
        "Two spheres overlap in a lens. Move the level slider: the overlapping boxes close in "
        "on the ring where the surfaces cross.",
        (
            BodySpec("sphere A", sphere(1.0, 32), pose_matrix((-0.7, 0.0, 0.0))),
            BodySpec("sphere B", sphere(1.0, 28), pose_matrix((0.7, 0.1, 0.0))),
        ),
    )
)
_register(
    SceneSpec(
        "bunny-teapot",
        "Bunny vs teapot",
        "Two scanned meshes of very different triangle sizes. Big teapot triangles meet "
        "many small bunny triangles in each leaf pair.",
        (
            BodySpec("bunny", "stanford-bunny.obj", pose_matrix((-0.5, 0.0, 0.0)), fit_size=2.0),
            BodySpec(
                "teapot", "teapot.obj", pose_matrix((0.9, -0.2, 0.1), (0, 1, 0), 30.0),
                fit_size=2.0,
            ),
        ),
    )
)
_register(
    SceneSpec(
        "spot-twist-torus",
        "Spot twisted through a torus",
        "The cow is twisted every frame and its tree refitted, while the torus stays still. "
        "Watch the drift value grow with the twist.",
        (
            BodySpec(
                "spot", "spot.obj", pose_matrix((0.0, 0.0, 0.0)), fit_size=2.0,
                deformer="twist",
            ),
            BodySpec(
                "torus", torus(0.9, 0.25, 64), pose_matrix((0.0, 0.1, 0.2))
            ),
        ),
        playing=True,
    )
)
_register(
    SceneSpec(
        "cloth-sphere",
        "Cloth waving over a sphere",
        "A sheet waves over a ball. Many thin, flat boxes: the travelling wave makes the "
        "refitted boxes of the sheet overlap the ball's boxes in a moving band.",
        (
            BodySpec(
                "cloth", sheet(3.0, 64), pose_matrix((0.0, 0.85, 0.0), (1, 0, 0), -90.0),
                deformer="wave", deformer_params={"amplitude": 0.06},
            ),
            BodySpec("ball", sphere(0.9, 32)),
        ),
        playing=True,
    )
)
GAP_MIN, GAP_MAX = 1e-4, 1e-1
"""Range of the concentric spheres' gap: three decades, down to where nearly every box of
one sphere overlaps boxes of the other."""

_INNER_SPHERE, _OUTER_SPHERE = sphere(1.0, 40), sphere(1.0, 36)

_register(
    SceneSpec(
        "concentric-spheres",
        "Parallel close proximity",
        "Two concentric spheres that never touch: the slider sets the true gap between the "
        "surfaces, from 0.1 down to 0.0001. The smaller the gap, the more boxes overlap and "
        "the more volume tests it takes to prove there is no contact: the worst case of a "
        "bounding-volume test.",
        (
            BodySpec("inner sphere", _INNER_SPHERE),
            BodySpec("outer sphere", _OUTER_SPHERE),
        ),
        param=SceneParam("gap", GAP_MIN, GAP_MAX, 1e-2, 1,
                         ConcentricGap(_INNER_SPHERE, _OUTER_SPHERE), n_stops=31, is_log=True,
                         is_distance=True),
    )
)
_register(
    SceneSpec(
        "linked-tori",
        "Interlinked tori",
        "Two rings that pass through each other without touching: many boxes overlap, but "
        "no triangle does. Drag one ring to make them touch.",
        (
            BodySpec("torus A", torus(1.0, 0.3, 64), pose_matrix((0, 0, 0), (1, 0, 0), 90)),
            BodySpec("torus B", torus(1.0, 0.3, 64), pose_matrix((1.0, 0.0, 0.0))),
        ),
    )
)
_register(
    SceneSpec(
        "bunny-bunny",
        "Bunny vs bunny (69k each, benchmark)",
        "Two full-resolution bunnies, one waving. The workload of the speed target: refit "
        "and traverse about 139k nodes per tree every frame.",
        (
            BodySpec("bunny A", "stanford-bunny.obj", fit_size=2.0),
            BodySpec(
                "bunny B", "stanford-bunny.obj", pose_matrix((0.6, 0.2, 0.0), (0, 1, 0), 40.0),
                fit_size=2.0, deformer="wave",
            ),
        ),
        playing=True,
    )
)

_register(
    SceneSpec(
        "folding-tube",
        "A tube folding into itself (self-collision)",
        "One thick tube is bent back and forth. Once the bend is tighter than the tube is thick, "
        "its inner wall folds through itself: the red triangles are the tube meeting itself, "
        "and the orange boxes are pairs of boxes of the same tree.",
        (
            BodySpec(
                "tube", tube(4.0, 1.0, 40, 80), deformer="bend",
                deformer_params={"amplitude": 2.0 * np.pi, "speed": 0.25},
            ),
        ),
        playing=True,
        self_collision=True,
    )
)

_register(
    SceneSpec(
        "rippling-shell",
        "A hollow ball rippling through itself (self-collision)",
        "One mesh with two walls, a ball inside a slightly larger ball. Ripples run up both "
        "walls out of step, so bands of the inner wall pass through the outer one: the red "
        "rings are the mesh crossing itself.",
        (
            BodySpec(
                "hollow ball", hollow_ball(1.0, 0.9, 32), deformer="radial_wave",
                deformer_params={"amplitude": 0.15, "z_frequency": 2.0, "speed": 0.3},
            ),
        ),
        playing=True,
        self_collision=True,
    )
)

DEFAULT_SCENE = "two-spheres"
"""The scene the window opens on."""
