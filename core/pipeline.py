"""The per-frame sequence, headless: deform -> refit or rebuild -> traverse -> contacts.

The viewer's controller calls :meth:`FramePipeline.step` once per frame from a worker thread
(every kernel releases the GIL); benchmarks and soak tests call the same method, so what is
measured is what the user sees.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from core.bv.obb_fit import ObbFit
from core.bvh.build import build_tree
from core.bvh.quality import tree_drift
from core.bvh.refit import leaf_nodes, refit_tree, same_topology
from core.bvh.tree import SplitRule, Tree
from core.checks import instance, integer, real_number
from core.collide.bvquery import collide_bv
from core.collide.query import CollisionResult, collide
from core.collide.selfcollide import self_collide
from core.collide.tandem import DescendRule
from core.containment import PairContainment, pair_containment
from core.mesh import TriMesh
from core.pose import Pose
from core.settings import DEFAULT_TOLERANCES, Tolerances


class UpdateMode(enum.Enum):
    """How a deformed mesh's tree is brought up to date each frame.

    REFIT
        Keep the topology, recompute the boxes bottom-up (van den Bergen 1997: about ten
        times cheaper than a rebuild and good while the deformation is moderate).
    REBUILD
        Build a new tree every frame.
    AUTO
        Refit, and rebuild when the tree's SAH drift passes ``drift_threshold``.
    """

    REFIT = "refit"
    REBUILD = "rebuild"
    AUTO = "auto"


@dataclass(frozen=True)
class PipelineSettings:
    """Choices for every frame.

    Attributes
    ----------
    split : SplitRule
    leaf_size : int
    update : UpdateMode
    drift_threshold : float
        AUTO rebuilds when ``SAH now / SAH at build - 1`` exceeds this (0.25: a quarter more
        expected box tests than a fresh tree).
    descend : DescendRule
    trace : bool
        Record the per-level trace (the viewer needs it; benchmarks can turn it off).
    tol : Tolerances
    self_collision : bool
        Also test every body against itself (:func:`core.collide.selfcollide.self_collide`)
        and fill ``Frame.self_results``.
    containment : bool
        When bodies 0 and 1 do not touch, decide whether one is inside the other
        (:func:`core.containment.pair_containment`) and fill ``Frame.containment``. One
        winding-number sum over the outer mesh's triangles, plus an edge count for
        closedness: a few milliseconds at 70k triangles, and only on frames without contacts.
    bv : str
        Key of :data:`core.bv.BV_KINDS` the traversal tests. ``"aabb"`` traverses the tree's
        own refitted boxes; any other kind fits its volumes on the same topology each frame
        (:func:`core.collide.bvquery.collide_bv`; timed as ``"fit"``).
    obb_fit : ObbFit
        How the ``"obb"`` kind chooses each box's axes (:class:`core.bv.ObbFit`).
    margin : float
        Near-contact distance ``D >= 0`` of the pair query: ``Frame.result.near_pairs`` lists
        the triangle pairs that do not touch but are at most ``D`` apart. 0 (default): exact
        contacts only.
    """

    split: SplitRule = SplitRule.MIDPOINT
    leaf_size: int = 1
    update: UpdateMode = UpdateMode.REFIT
    drift_threshold: float = 0.25
    descend: DescendRule = DescendRule.LARGER_VOLUME
    trace: bool = True
    tol: Tolerances = DEFAULT_TOLERANCES
    self_collision: bool = False
    containment: bool = False
    bv: str = "aabb"
    obb_fit: ObbFit = ObbFit.SURFACE
    margin: float = 0.0

    def __post_init__(self):
        from core.bv import BV_KINDS

        for name, cls in (("split", SplitRule), ("update", UpdateMode),
                          ("descend", DescendRule), ("obb_fit", ObbFit),
                          ("tol", Tolerances)):  # fmt: skip
            instance(getattr(self, name), name, cls)
        integer(self.leaf_size, "leaf_size", minimum=1)
        threshold = real_number(self.drift_threshold, "drift_threshold")
        if not (np.isfinite(threshold) and threshold >= 0.0):
            raise ValueError(f"drift_threshold must be a finite number >= 0, got {threshold}")
        for name in ("trace", "self_collision", "containment"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TypeError(f"{name} must be a bool, got {type(getattr(self, name)).__name__}")
        if self.bv not in BV_KINDS:
            raise ValueError(f"bv must be one of {', '.join(BV_KINDS)}, got {self.bv!r}")


Deformer = Callable[[np.ndarray, float], np.ndarray]


@dataclass(frozen=True, eq=False)
class BodyInput:
    """One body as the caller sees it this frame.

    Attributes
    ----------
    key : str
        Stable identity: trees are cached per key.
    mesh : TriMesh
        Rest mesh (after any sculpting); a new faces array means a new topology.
    pose : Pose
    deformer : callable or None
        ``deformer(rest_vertices (n, 3) float64, t) -> (n, 3) float64``, pure.
    """

    key: str
    mesh: TriMesh
    pose: Pose = field(default_factory=Pose)
    deformer: Deformer | None = None

    def __post_init__(self):
        instance(self.key, "key", str)
        instance(self.mesh, "mesh", TriMesh)
        instance(self.pose, "pose", Pose)
        if self.deformer is not None and not callable(self.deformer):
            what = type(self.deformer).__name__
            raise TypeError(f"deformer must be callable or None, got {what}")


@dataclass(frozen=True, eq=False)
class Frame:
    """Everything one frame computed.

    Attributes
    ----------
    index : int
    t : float
    meshes : list of TriMesh
        Deformed meshes, local coordinates.
    poses : list of Pose
    trees : list of Tree
    drift : list of float
        SAH drift of each tree against its last build.
    rebuilt : list of bool
        Whether the tree was built this frame (first frame, new topology, REBUILD, AUTO).
    result : CollisionResult or None
        Bodies 0 and 1; None with fewer than two bodies.
    timings : dict[str, float]
        Seconds: ``deform``, ``update``, ``traverse``, ``tritri``, ``total``; with self-collision
        also ``self`` (inside ``total``, not inside ``traverse`` or ``tritri``); with a non-AABB
        ``PipelineSettings.bv`` also ``fit`` (inside ``total``).
    self_results : list of CollisionResult or None
        One per body, the body against itself (pairs ``i < j`` into its own faces), when
        ``PipelineSettings.self_collision`` is on; else None.
    containment : PairContainment or None
        Bodies 0 and 1 ("A", "B") when ``PipelineSettings.containment`` is on, there are two
        bodies and they have no contact; else None.
    """

    index: int
    t: float
    meshes: list
    poses: list
    trees: list
    drift: list
    rebuilt: list
    result: CollisionResult | None
    timings: dict
    self_results: list | None = None
    containment: PairContainment | None = None


@dataclass
class _Cached:
    built: Tree
    current: Tree
    leaves: np.ndarray
    settings_key: tuple
    fitted_to: np.ndarray  # the vertex array ``current`` was fitted to
    drift: float = 0.0


class FramePipeline:
    """Runs frames and keeps each body's tree between them.

    Parameters
    ----------
    settings : PipelineSettings
        May be replaced between steps; a change of split rule or leaf size rebuilds.
    """

    def __init__(self, settings: PipelineSettings | None = None):
        instance(settings, "settings", PipelineSettings, optional=True)
        self.settings = settings if settings is not None else PipelineSettings()
        self._cache: dict[str, _Cached] = {}
        self._index = 0

    def forget(self, key: str | None = None) -> None:
        """Drop the cached tree of one body, or of all bodies."""
        if key is None:
            self._cache.clear()
        else:
            self._cache.pop(key, None)

    def _update_tree(self, key: str, mesh: TriMesh) -> tuple[Tree, float, bool]:
        s = self.settings
        settings_key = (s.split, s.leaf_size)
        cached = self._cache.get(key)
        must_build = (
            cached is None
            or cached.settings_key != settings_key
            or not same_topology(cached.built, mesh)
            or s.update is UpdateMode.REBUILD
        )
        if not must_build:
            if mesh.vertices is cached.fitted_to:
                # Vertices are read-only, so the same array means the same boxes: a body
                # that is only moved (or not at all) costs nothing here. Measured on W3 at
                # 500k triangles: 47 ms a frame with B refitted every frame, 33 ms without.
                return cached.current, cached.drift, False
            current = refit_tree(cached.built, mesh, cached.leaves)
            drift = tree_drift(cached.built, current)
            if s.update is UpdateMode.AUTO and drift > s.drift_threshold:
                must_build = True
            else:
                cached.current = current
                cached.fitted_to = mesh.vertices
                cached.drift = drift
                return current, drift, False
        tree = build_tree(mesh, s.split, s.leaf_size)
        self._cache[key] = _Cached(tree, tree, leaf_nodes(tree), settings_key, mesh.vertices)
        return tree, 0.0, True

    def step(self, bodies: Sequence[BodyInput], t: float = 0.0) -> Frame:
        """Run one frame.

        Parameters
        ----------
        bodies : sequence of BodyInput
        t : float
            Time in seconds passed to the deformers.

        Returns
        -------
        Frame
        """
        for i, body in enumerate(bodies):
            instance(body, f"bodies[{i}]", BodyInput)
        t = real_number(t, "t")
        if not np.isfinite(t):
            raise ValueError(f"t must be finite, got {t}")
        t_start = time.perf_counter()
        meshes = []
        for body in bodies:
            if body.deformer is None:
                meshes.append(body.mesh)
            else:
                meshes.append(body.mesh.with_vertices(body.deformer(body.mesh.vertices, t)))
        t_deform = time.perf_counter()

        trees, drifts, rebuilt = [], [], []
        for body, mesh in zip(bodies, meshes):
            tree, drift, was_built = self._update_tree(body.key, mesh)
            trees.append(tree)
            drifts.append(drift)
            rebuilt.append(was_built)
        live = {b.key for b in bodies}
        for key in list(self._cache):
            if key not in live:
                del self._cache[key]
        t_update = time.perf_counter()

        result = None
        if len(bodies) >= 2:
            s = self.settings
            if s.bv == "aabb":
                result = collide(
                    meshes[0], trees[0], meshes[1], trees[1], bodies[0].pose, bodies[1].pose,
                    descend=s.descend, trace=s.trace, tol=s.tol, margin=s.margin,
                )  # fmt: skip
            else:
                result = collide_bv(
                    meshes[0], trees[0], meshes[1], trees[1], bodies[0].pose, bodies[1].pose,
                    bv=s.bv, descend=s.descend, trace=s.trace, tol=s.tol, obb_fit=s.obb_fit,
                    margin=s.margin,
                )  # fmt: skip
        t_pair = time.perf_counter()

        containment = None
        s = self.settings
        if s.containment and result is not None and not result.in_contact:
            containment = pair_containment(meshes[0], meshes[1], bodies[0].pose, bodies[1].pose,
                                           result)
        self_results = None
        if s.self_collision:
            self_results = [
                self_collide(mesh, tree, trace=s.trace, tol=s.tol, pose=body.pose,
                             descend=s.descend)
                for body, mesh, tree in zip(bodies, meshes, trees)
            ]
        t_end = time.perf_counter()

        timings = {
            "deform": t_deform - t_start,
            "update": t_update - t_deform,
            "traverse": result.timings["traverse"] if result else 0.0,
            "tritri": result.timings["tritri"] if result else 0.0,
            "total": t_end - t_start,
        }
        if self_results is not None:
            timings["self"] = t_end - t_pair
        if result is not None and "fit" in result.timings:
            timings["fit"] = result.timings["fit"]
        frame = Frame(
            index=self._index,
            t=float(t),
            meshes=meshes,
            poses=[b.pose for b in bodies],
            trees=trees,
            drift=drifts,
            rebuilt=rebuilt,
            result=result,
            timings=timings,
            self_results=self_results,
            containment=containment,
        )
        self._index += 1
        return frame
