"""The per-frame sequence, headless: deform -> refit or rebuild -> traverse -> contacts, then
the extras the request asks for (partition, distance, containment, self-collision).

The viewer's controller calls :meth:`FramePipeline.step` once per frame from a worker thread
(every kernel releases the GIL); benchmarks and soak tests call the same method, so what is
measured is what the user sees. The :class:`Frame` it returns is everything the viewer
draws, with one timing per phase: the viewer only turns it into geometry.
"""

from __future__ import annotations

import dataclasses
import enum
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from core.bvh.build import build_tree
from core.bvh.quality import tree_drift
from core.bvh.refit import leaf_nodes, refit_tree, same_topology
from core.bvh.tree import Tree
from core.bvh.validate import ValidationReport, validate_tree
from core.checks import instance, real_number
from core.collide.budget import QueryControl, tree_name
from core.collide.dispatch import partition_query, tree_query
from core.collide.query import CollisionResult
from core.collide.selfcollide import self_collide
from core.containment import PairContainment, pair_containment
from core.deform import base as deform_base
from core.distance import DistanceResult, min_distance
from core.errors import TopologyChangedError
from core.frame_volumes import FrameVolumes, fitted_volumes
from core.mesh import TriMesh
from core.pose import Pose
from core.request import DISTANCE_BV, CollisionRequest, FrameOptions


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


@dataclass(frozen=True, init=False)
class PipelineSettings:
    """Choices for every frame: the query's request, the frame's other analyses, and how
    deformed trees are updated.

    The query's choices are the request's and are read there (``settings.request.bv``); a
    changed choice is a changed request: ``PipelineSettings(request.replace(bv="obb"))``.
    The analyses beyond the query are the frame options' (``settings.frame.distance``).

    Attributes
    ----------
    request : CollisionRequest
        The pair query of every frame. Default: :data:`DEFAULT_REQUEST` (trace on: the
        viewer draws it). Its ``split`` and ``leaf_size`` build the trees; a change of either
        rebuilds them. A ``partition`` runs beside the trees (``Frame.partition``).
    frame : FrameOptions
        The analyses beyond the pair query (default: none): ``distance`` and
        ``containment`` run when A and B do not touch; ``self_collision`` tests every body
        against itself.
    update : UpdateMode
    drift_threshold : float
        AUTO rebuilds when ``SAH now / SAH at build - 1`` exceeds this (0.25: a quarter more
        expected box tests than a fresh tree).
    validate_after_refit : bool
        A debug setting (default False): check every tree the frame refits or builds with
        :func:`core.bvh.validate.validate_tree` (``Frame.validation``, phase ``validate``).
    """

    request: CollisionRequest
    frame: FrameOptions
    update: UpdateMode
    drift_threshold: float
    validate_after_refit: bool

    def __init__(self, request: CollisionRequest | None = None,
                 update: UpdateMode = UpdateMode.REFIT, drift_threshold: float = 0.25,
                 validate_after_refit: bool = False,
                 frame: FrameOptions | None = None):  # fmt: skip
        instance(request, "request", CollisionRequest, optional=True)
        instance(frame, "frame", FrameOptions, optional=True)
        base = request if request is not None else DEFAULT_REQUEST
        instance(update, "update", UpdateMode)
        threshold = real_number(drift_threshold, "drift_threshold")
        if not (np.isfinite(threshold) and threshold >= 0.0):
            raise ValueError(f"drift_threshold must be a finite number >= 0, got {threshold}")
        instance(validate_after_refit, "validate_after_refit", bool)
        object.__setattr__(self, "request", base)
        object.__setattr__(self, "frame", frame if frame is not None else FrameOptions())
        object.__setattr__(self, "update", update)
        object.__setattr__(self, "drift_threshold", threshold)
        object.__setattr__(self, "validate_after_refit", validate_after_refit)


DEFAULT_REQUEST = CollisionRequest(trace=True)
"""The frame pipeline's request unless told otherwise: the AABB tree with its trace."""


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
        Seconds of every phase that ran, each once: ``deform``, ``update``, ``traverse``,
        ``tritri``, ``total`` always; ``fit`` for a kind other than the tree's own boxes;
        ``partition``, ``distance``, ``containment``, ``self`` when they ran. All are inside
        ``total``; none is inside another.
    self_results : list of CollisionResult or None
        One per body, the body against itself (pairs ``i < j`` into its own faces), when the
        frame options' ``self_collision`` is on; else None.
    containment : PairContainment or None
        Bodies 0 and 1 ("A", "B") when the frame options' ``containment`` is on, there are two
        bodies and they have no contact; else None.
    volumes : FrameVolumes or None
        The kind the traversal tested and both trees' volume rows, the very fit it used
        (None with fewer than two bodies).
    partition : CollisionResult or None
        The request's spatial partition run on bodies 0 and 1 (its cells and candidate
        counts), when it names one.
    distance : DistanceResult or None
        Minimum distance and closest points of bodies 0 and 1 (bounded with
        :data:`core.request.DISTANCE_BV` volumes), when the frame options' ``distance`` is
        on and they have no contact.
    request : CollisionRequest or None
        The request the frame ran with.
    validation : list of ValidationReport or None
        With ``PipelineSettings.validate_after_refit``: one report per body, the invariants
        of its tree in this frame's vertices (a tree not refitted or built this frame keeps
        the report it had); else None.
    refitted : list of bool or None
        Whether each body's tree was refitted this frame (its volumes updated, topology
        kept): the ``Nu`` of the cost model (:func:`core.lab.costmodel.frame_counts`). False for
        a tree built this frame or kept as it was. None in frames recorded before it existed.
    tree_sources : list of (str or None) or None
        Per body, where its tree came from: the label of a tree pinned with
        :meth:`FramePipeline.pin_tree` (``"tree from mine.json"``), or None for the tree the
        pipeline built from its settings. None in frames recorded before it existed.
    frame_options : FrameOptions or None
        The frame options the frame ran with (``PipelineSettings.frame``); None for a
        frame not made by the pipeline.

    A frame holds plain data only (numpy arrays, dataclasses of them, numbers, strings), so
    it can be stored (pickled) and drawn later without running the core.
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
    volumes: FrameVolumes | None = None
    partition: CollisionResult | None = None
    distance: DistanceResult | None = None
    request: CollisionRequest | None = None
    validation: list | None = None
    refitted: list | None = None
    tree_sources: list | None = None
    frame_options: FrameOptions | None = None

    def tree_words(self, body: int) -> str:
        """Which tree body ``body`` (0 = A) used, for people: the pinned tree's label
        (``"tree from mine.json"``) or ``"BVH Lab's AABB tree (midpoint split)"``.

        Every tree BVH Lab builds is an AABB tree (the other kinds are fitted to its
        topology, see :class:`core.frame_volumes.FrameVolumes`); its split rule is the
        tree's own. A frame recorded before ``tree_sources`` existed says "tree not recorded"
        when it cannot tell.
        """
        sources = self.tree_sources
        if sources is not None and body < len(sources) and sources[body]:
            return str(sources[body])
        tree = self.trees[body]
        split = getattr(tree, "split", None)
        rule = f" ({split.name.lower()} split)" if split is not None else ""
        if sources is None:
            return f"AABB tree{rule}, its source not recorded"
        return f"BVH Lab's AABB tree{rule}"

    def shown_result(self) -> CollisionResult | None:
        """The collision result a view of this frame shows: the one rule for the overlays,
        the level slider, the Stats dock, the caption, the status line, the outliner, the
        inspector and the frame tables.

        Bodies 0 and 1 (``result``) when there are two; the first body against itself
        (``self_results[0]``) when the frame has self-collision results and no pair result;
        else None.
        """
        if self.result is not None:
            return self.result
        if self.self_results:
            return self.self_results[0]
        return None


@dataclass
class _Cached:
    built: Tree
    current: Tree
    leaves: np.ndarray
    settings_key: tuple
    fitted_to: np.ndarray  # the vertex array ``current`` was fitted to
    drift: float = 0.0
    report: ValidationReport | None = None  # of ``current``, when validation is on


@dataclass(frozen=True, eq=False)
class _Pin:
    """A tree fixed for one body: its topology until unpinned, its boxes while the body's
    vertices equal ``vertices``."""

    tree: Tree
    vertices: np.ndarray  # (n, 3) float64, the vertices it was pinned with
    label: str  # what frames say the body's tree is ("tree from mine.json")
    file_ids: np.ndarray | None = None  # (k,) int64: a tree read from a file names its nodes


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
        self._pinned: dict[str, _Pin] = {}
        # Each deformed body's rest vertices (the array object) and their box, which every
        # deformer scales by: six reductions a frame otherwise (see _deformed_mesh).
        self._rest_boxes: dict[str, tuple[np.ndarray, deform_base.RestBox]] = {}
        self._index = 0

    def forget(self, key: str | None = None) -> None:
        """Drop the cached tree of one body, or of all bodies (a pinned tree stays pinned)."""
        if key is None:
            self._cache.clear()
        else:
            self._cache.pop(key, None)

    @property
    def next_index(self) -> int:
        """The index the next frame :meth:`step` returns will have (a failed step keeps it)."""
        return self._index

    def pin_tree(self, key: str, tree, mesh: TriMesh, label: str | None = None) -> None:
        """Make ``tree`` the tree of body ``key`` until :meth:`unpin`.

        A pinned tree is never rebuilt: not by AUTO or REBUILD, not by a change of split rule
        or leaf size. While the body's vertices equal ``mesh``'s its boxes are used exactly as
        given (a tree read from a file runs the query with the file's own boxes, broken ones
        included); when they change, the boxes are refitted to them, topology kept. The pin
        outlives frames without the body and :meth:`forget`; only :meth:`unpin` ends it.

        Parameters
        ----------
        key : str
            The body's :attr:`BodyInput.key`.
        tree : Tree or core.bvh.treefile.ImportedTree
        mesh : TriMesh
            The body's mesh the boxes belong to; its faces become the tree's.
        label : str, optional
            What frames call this tree (``Frame.tree_sources``, ``Frame.tree_words``).
            Default: ``"tree from NAME"`` with the file's name for a tree read from a file,
            else ``"pinned tree"``.

        Raises
        ------
        ValueError
            If ``mesh`` has another number of faces than the tree has triangles (naming
            the key).
        """
        from core.bv.registry import give_volumes
        from core.bvh.treefile import ImportedTree

        instance(key, "key", str)
        instance(mesh, "mesh", TriMesh)
        instance(label, "label", str, optional=True)
        file_ids = None
        volumes = {}
        if isinstance(tree, ImportedTree):
            label = label or f"tree from {tree.path.name}"
            tree, file_ids, volumes = tree.tree, tree.file_ids, tree.volumes
        label = label or "pinned tree"
        instance(tree, "tree", Tree)
        n_tree = int(tree.prim_ids.shape[0])
        if mesh.n_faces != n_tree:
            raise ValueError(f"cannot pin a tree over {n_tree:,} triangles to body {key!r}: "
                             f"its mesh has {mesh.n_faces:,} faces")  # fmt: skip
        if tree.faces is not mesh.faces:
            tree = dataclasses.replace(tree, faces=mesh.faces)
        # The file's own volumes (coal's oriented boxes) are the tree's while the body keeps
        # the vertices they were read for; moved vertices get volumes fitted again.
        give_volumes(tree, mesh.vertices, volumes)
        self._pinned[key] = _Pin(tree, mesh.vertices, label, file_ids)
        self._cache.pop(key, None)

    def unpin(self, key: str) -> bool:
        """Let body ``key``'s tree be built from the settings again; whether it was pinned."""
        self._cache.pop(key, None)
        return self._pinned.pop(key, None) is not None

    @property
    def pinned_keys(self) -> tuple[str, ...]:
        """Keys of the bodies whose tree is pinned."""
        return tuple(self._pinned)

    def _update_pinned(self, key: str, pin: _Pin, mesh: TriMesh) -> tuple[Tree, float, bool]:
        if not same_topology(pin.tree, mesh):
            raise TopologyChangedError(
                f"body {key!r} has a pinned tree over {pin.tree.faces.shape[0]:,} faces, but "
                f"its mesh now has {mesh.n_faces:,} different faces; unpin it first")
        cached = self._cache.get(key)
        first_use = cached is None or cached.built is not pin.tree
        if first_use:
            cached = _Cached(pin.tree, pin.tree, leaf_nodes(pin.tree), ("pinned",), pin.vertices)
            self._cache[key] = cached
        if mesh.vertices is cached.fitted_to:
            return cached.current, cached.drift, first_use
        if mesh.vertices.shape == pin.vertices.shape and np.array_equal(mesh.vertices,
                                                                        pin.vertices):
            current, drift = pin.tree, 0.0  # the given boxes, exactly as they are
        else:
            current = refit_tree(pin.tree, mesh, cached.leaves)
            drift = tree_drift(pin.tree, current)
        cached.current, cached.fitted_to, cached.drift = current, mesh.vertices, drift
        return current, drift, first_use

    def _update_tree(self, key: str, mesh: TriMesh, pin: _Pin | None) -> tuple[Tree, float, bool]:
        if pin is not None:
            return self._update_pinned(key, pin, mesh)
        s = self.settings
        settings_key = (s.request.split, s.request.leaf_size)
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
        tree = build_tree(mesh, s.request.split, s.request.leaf_size)
        self._cache[key] = _Cached(tree, tree, leaf_nodes(tree), settings_key, mesh.vertices)
        return tree, 0.0, True

    def _deformed_mesh(self, body: BodyInput, t: float) -> TriMesh:
        """``body``'s mesh moved by its deformer at time ``t``.

        A :class:`core.deform.base.Deformer` gets its rest box from the cache (kept while the
        body's rest vertices are the same array object; they are read-only) and its output, a
        new array by contract, is kept without a copy. Both spare the frame's worker thread
        releases of the interpreter lock, each of which lets the GUI thread run first: in the
        window (bunny x bunny, 1280x800) the deform phase went from 2.6 to 0.9 ms, the whole
        frame from 12.9 to 8.1 ms (medians of 229 frames). Any other callable is called as
        given and its output copied.
        """
        rest = body.mesh.vertices
        if not isinstance(body.deformer, deform_base.Deformer):
            return body.mesh.with_vertices(body.deformer(rest, t))
        cached = self._rest_boxes.get(body.key)
        if cached is None or cached[0] is not rest:
            cached = self._rest_boxes[body.key] = (rest, deform_base.rest_box(rest))
        return body.mesh.with_vertices(body.deformer(rest, t, cached[1]), is_fresh=True)

    def step(self, bodies: Sequence[BodyInput], t: float = 0.0,
             control: QueryControl | None = None) -> Frame:  # fmt: skip
        """Run one frame.

        Parameters
        ----------
        bodies : sequence of BodyInput
        t : float
            Time in seconds passed to the deformers.
        control : QueryControl, optional
            Cancel flag and progress of the frame's traversals
            (:class:`core.collide.budget.QueryControl`): a cancel stops the running one at
            its next level.

        Returns
        -------
        Frame

        Raises
        ------
        PairBudgetError
            A traversal passed the request's ``pair_budget`` (one line naming the tree).
        QueryCancelled
        """
        for i, body in enumerate(bodies):
            instance(body, f"bodies[{i}]", BodyInput)
        t = real_number(t, "t")
        if not np.isfinite(t):
            raise ValueError(f"t must be finite, got {t}")
        t_start = time.perf_counter()
        meshes = [body.mesh if body.deformer is None else self._deformed_mesh(body, t)
                  for body in bodies]  # fmt: skip
        t_deform = time.perf_counter()

        trees, drifts, rebuilt, refitted, sources = [], [], [], [], []
        for body, mesh in zip(bodies, meshes):
            cached = self._cache.get(body.key)
            before = cached.current if cached is not None else None
            # Read once: the frame names the very pin its tree came from, even if the caller
            # pins or unpins from another thread meanwhile.
            pin = self._pinned.get(body.key)
            sources.append(None if pin is None else pin.label)
            tree, drift, was_built = self._update_tree(body.key, mesh, pin)
            trees.append(tree)
            drifts.append(drift)
            rebuilt.append(was_built)
            # A tree kept as it was is the very object of the last frame; a refit is new.
            refitted.append(not was_built and before is not None and tree is not before)
        live = {b.key for b in bodies}
        for per_body in (self._cache, self._rest_boxes):
            for key in list(per_body):
                if key not in live:
                    del per_body[key]
        t_update = time.perf_counter()

        request = self.settings.request
        options = self.settings.frame
        timings = {"deform": t_deform - t_start, "update": t_update - t_deform}
        validation = None
        if self.settings.validate_after_refit:
            validation = [self._validation(body.key, tree, mesh)
                          for body, tree, mesh in zip(bodies, trees, meshes)]  # fmt: skip
            timings["validate"] = time.perf_counter() - t_update
        result = volumes = partition = None
        is_pair = len(bodies) >= 2
        if len(bodies) == 1:
            # One body (self-collision): the tree's own boxes, which its self-traversal tests.
            volumes = fitted_volumes(trees, meshes, request.bv, request.obb_fit.name)
        label = _kind_label(request.bv)
        names = [tree_name(tree, _body_letter(i), label) for i, tree in enumerate(trees)]
        if is_pair:
            poses = (bodies[0].pose, bodies[1].pose)
            result = tree_query(request, meshes[0], trees[0], meshes[1], trees[1], *poses,
                                control=control, names=(names[0], names[1]))  # fmt: skip
            timings.update(result.timings)
            t0 = time.perf_counter()
            # A cache hit for a fitted kind (the traversal just fitted them): no re-fit.
            volumes = fitted_volumes(trees, meshes, request.bv, request.obb_fit.name)
            if "fit" in timings:
                timings["fit"] += time.perf_counter() - t0
            if request.partition is not None:
                t0 = time.perf_counter()
                partition = partition_query(request.replace(margin=0.0), meshes[0], meshes[1],
                                            *poses)  # fmt: skip
                timings["partition"] = time.perf_counter() - t0
        distance, containment, self_results, seconds = frame_analyses(
            meshes, trees, [b.pose for b in bodies], result, request, options, control)
        timings.update(seconds)
        timings.setdefault("traverse", 0.0)
        timings.setdefault("tritri", 0.0)
        timings["total"] = time.perf_counter() - t_start
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
            volumes=volumes,
            partition=partition,
            distance=distance,
            request=request,
            validation=validation,
            refitted=refitted,
            tree_sources=sources,
            frame_options=options,
        )
        self._index += 1
        return frame

    def _validation(self, key: str, tree: Tree, mesh: TriMesh) -> ValidationReport:
        """The report of ``tree`` in ``mesh``'s vertices, checked once per tree object."""
        cached = self._cache.get(key)
        if cached is not None and cached.report is not None and cached.current is tree:
            return cached.report
        # A tree read from a file (pinned; a refit keeps its topology) is named by its ids.
        pin = self._pinned.get(key)
        report = validate_tree(tree, mesh.vertices,
                               file_ids=pin.file_ids if pin is not None else None)
        if cached is not None and cached.current is tree:
            cached.report = report
        return report


def frame_analyses(meshes: Sequence[TriMesh], trees: Sequence[Tree], poses: Sequence[Pose],
                   result: CollisionResult | None, request: CollisionRequest,
                   options: FrameOptions, control: QueryControl | None = None,
                   between: Callable[[], None] | None = None) -> tuple:
    """A frame's analyses beyond its pair query, as ``options`` asks: the minimum distance
    and the inside test of bodies 0 and 1 when ``result`` says they do not touch, and each
    body's triangles against its own. The frame pipeline runs them inside a frame; the viewer
    runs the same call beside one, on a finished frame's meshes, trees and poses.

    Parameters
    ----------
    meshes, trees, poses : sequences of equal length
        A frame's meshes, their trees, and the bodies' poses.
    result : CollisionResult or None
        The query of bodies 0 and 1 (None: one body, no distance or inside test).
    request : CollisionRequest
        Self-collision runs with its trace, tolerance, descent rule and pair budget, on the
        trees' own boxes (``tree_name``'s default kind).
    options : FrameOptions
    control : QueryControl, optional
        Cancel and time budget of the self-collision queries.
    between : callable, optional
        Called before the inside test and before self-collision (a job's budget check).

    Returns
    -------
    (DistanceResult or None, PairContainment or None, list of CollisionResult or None, dict)
        The results asked for (self-collision: one per body), and the seconds each took
        (``"distance"``, ``"containment"``, ``"self"``).
    """
    distance = containment = self_results = None
    seconds = {}
    is_apart = result is not None and not result.in_contact
    if options.distance and is_apart:
        t0 = time.perf_counter()
        distance = min_distance(meshes[0], trees[0], meshes[1], trees[1], poses[0], poses[1],
                                bv=DISTANCE_BV)  # fmt: skip
        seconds["distance"] = time.perf_counter() - t0
    if between is not None:
        between()
    if options.containment and is_apart:
        t0 = time.perf_counter()
        containment = pair_containment(meshes[0], meshes[1], poses[0], poses[1], result)
        seconds["containment"] = time.perf_counter() - t0
    if options.self_collision:
        if between is not None:
            between()
        t0 = time.perf_counter()
        self_results = [
            self_collide(mesh, tree, trace=request.trace, tol=request.tol, pose=pose,
                         descend=request.descend, pair_budget=request.pair_budget,
                         control=control, name=tree_name(tree, _body_letter(i)))
            for i, (mesh, tree, pose) in enumerate(zip(meshes, trees, poses))]
        seconds["self"] = time.perf_counter() - t0
    return distance, containment, self_results, seconds


def _body_letter(index: int) -> str:
    """Body 0 is "A", 1 "B", ... as the viewer and the messages name them."""
    return chr(ord("A") + index) if index < 26 else str(index)


def _kind_label(bv: str) -> str:
    from core.bv import BV_KINDS

    return BV_KINDS[bv].label
