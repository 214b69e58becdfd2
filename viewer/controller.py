"""The one viewer module that calls the core.

It turns the model's bodies into ``BodyInput`` values, runs ``FramePipeline.step`` in a worker
thread (the numba kernels release the GIL, so Qt keeps painting), and hands finished frames
back to the model on the GUI thread. At most one frame is in flight: requests that arrive
meanwhile collapse into one "run again with the latest state" flag, so stale frames are
dropped rather than queued and the display never lags behind a backlog.
"""

from __future__ import annotations

import itertools
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from PyQt6.QtCore import QObject, QTimer, pyqtSignal

from core.bv import ObbFit
from core.bvh import SplitRule
from core.collide import DescendRule
from core.containment import edge_stats
from core.deform import DEFORMERS, BrushHistory, brush_pull
from core.errors import BVHLabError, MeshError
from core.io import load_mesh
from core.mesh import TriMesh
from core.pipeline import BodyInput, FramePipeline, PipelineSettings, UpdateMode
from core.pose import Pose
from core.warmup import warm_up
from viewer.choices import NO_PARTITION
from viewer.model import Body, UpdateChoice, ViewerModel
from viewer.render.scene import DISPLAY_MAX_TRIANGLES, prepare_display_copy
from viewer.scenes import ASSETS_DIR, SCENES, BodySpec, SceneSpec, default_color

_kernels_ready = False


def _ensure_kernels() -> None:
    """Load (or compile) every numba kernel once per process, before the first frame.

    Otherwise the first frame of a scene pays for loading the kernels from the on-disk cache
    (measured: 0.6-0.9 s "refit" on a 4k-triangle torus) and the Stats dock shows that number
    for a static scene until something moves.
    """
    global _kernels_ready
    if not _kernels_ready:
        warm_up(verbose=False)
        _kernels_ready = True

MAX_TRIANGLES = 5_000_000
"""Largest mesh File > Open accepts. A tree of 5M triangles holds 10M nodes (about 1 GB of
boxes and indices with the trace arrays), near what a 24 GiB machine runs beside the app."""

WARN_TRIANGLES = 500_000
"""Above this a warning says the frame rate will drop: the 15 frames-per-second target is set
for two 69k-triangle bunnies, and refit, traversal and drawing grow with the triangle count."""

MAX_FILE_BYTES = 2 * 2**30
"""Largest mesh file read (2 GiB): the parsers hold the whole file in memory."""

PLAY_INTERVAL_MS = 15
"""Animation tick. Each tick asks for a frame; ticks while a frame is running coalesce."""

FPS_SMOOTHING = 0.2
"""Weight of the newest frame in the exponential average of the frame rate."""

_keys = itertools.count()


def _new_key(name: str) -> str:
    return f"{name}#{next(_keys)}"


def fit_vertices(vertices: np.ndarray, size: float) -> np.ndarray:
    """Centre ``(n, 3) float64`` vertices on their box centre and scale the longest side to
    ``size``."""
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    extent = float((hi - lo).max())
    scale = size / extent if extent > 0 else 1.0
    return (vertices - 0.5 * (lo + hi)) * scale


def mesh_notes(mesh: TriMesh) -> list[str]:
    """What a student should know about a mesh as loaded, one sentence each: degenerate
    triangles kept, open boundaries or non-manifold edges, polygons split into triangles.

    They stay listed with the body (Scene and Stats docks); a status-bar message alone was
    overwritten by the next one within a second."""
    notes = []
    if mesh.n_degenerate:
        notes.append(f"{mesh.n_degenerate:,} degenerate (zero-area) triangles kept: they never "
                     "count as contacts")
    edges = edge_stats(mesh)
    if edges.n_boundary_edges:
        notes.append(f"open: {edges.n_boundary_edges:,} boundary edges, so whether another "
                     "mesh is inside it is undefined")
    if edges.n_nonmanifold_edges:
        notes.append(f"{edges.n_nonmanifold_edges:,} non-manifold edges (shared by three "
                     "triangles or more)")
    source = np.asarray(mesh.source_face_ids)
    n_source = int(np.unique(source).size) if source.size else 0
    if n_source and n_source < mesh.n_faces:
        per_face = np.bincount(source - source.min())
        n_polygons = int(np.count_nonzero(per_face > 1))
        notes.append(f"{n_polygons:,} polygons of the file split into triangles "
                     f"({n_source:,} faces became {mesh.n_faces:,} triangles)")
    return notes


def deformer_fields(name: str) -> list:
    """Slider specs of a deformer: the core's ``ParamSpec`` list for ``DEFORMERS[name]``."""
    return list(DEFORMERS[name].params())


def deformer_names() -> list[tuple[str, str]]:
    """``(key, label)`` of every registered deformer."""
    return [(key, getattr(cls, "label", key) or key) for key, cls in DEFORMERS.items()]


def deformer_description(name: str) -> str:
    return getattr(DEFORMERS[name], "description", "")


class _Relay(QObject):
    """Carries a finished frame from the worker thread to the GUI thread (queued signal)."""

    done = pyqtSignal(object, int, object, float)  # frame, generation, error, wall seconds
    loaded = pyqtSignal(object, object, object, bool)  # paths, meshes, error, replace_scene
    progress = pyqtSignal(str)  # what the file loader is doing


class Controller(QObject):
    """Runs the core for the viewer.

    Parameters
    ----------
    model : ViewerModel
    is_threaded : bool
        Run frames in a worker thread (the app); False runs them inline (benchmark).
    """

    def __init__(self, model: ViewerModel, is_threaded: bool = True, parent=None):
        super().__init__(parent)
        self.model = model
        self.is_threaded = is_threaded
        self.pipe = FramePipeline(self._settings())
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="frame")
        self._relay = _Relay()
        self._relay.done.connect(self._on_done)
        self._relay.loaded.connect(self._on_loaded)
        self._relay.progress.connect(self.model.set_loading)
        self._loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="load")
        self.last_load_note = ""
        self._generation = 0
        self._is_busy = False
        self._is_pending = False
        self._histories: dict[str, BrushHistory] = {}
        self._last_done = None
        self.n_dropped = 0
        self.n_frames = 0
        self._play_timer = QTimer(self)
        self._play_timer.setInterval(PLAY_INTERVAL_MS)
        self._play_timer.timeout.connect(self._tick)
        self._play_clock = None
        model.body_changed.connect(lambda _i: self.request_frame())
        model.pipeline_changed.connect(lambda _p: self.request_frame())
        model.playing_changed.connect(self._on_playing)
        model.scene_param_changed.connect(self._on_scene_param)

    # -- settings ---------------------------------------------------------------------------
    def _settings(self) -> PipelineSettings:
        choice = self.model.pipeline
        update = {
            UpdateChoice.REFIT: UpdateMode.REFIT,
            UpdateChoice.REBUILD: UpdateMode.REBUILD,
            UpdateChoice.AUTO: UpdateMode.AUTO,
        }[choice.update]
        return PipelineSettings(
            split=SplitRule[choice.split],
            update=update,
            drift_threshold=float(choice.drift_threshold),
            descend=DescendRule[choice.descend],
            trace=True,
            bv=choice.bv,
            obb_fit=ObbFit[choice.obb_fit],
            margin=float(choice.margin),
            self_collision=self.model.is_self_collision,
            containment=True,
            partition=None if choice.partition == NO_PARTITION else choice.partition,
            distance=True,
        )

    @staticmethod
    def split_rules() -> list[str]:
        return [r.name for r in SplitRule]

    @staticmethod
    def descend_rules() -> list[str]:
        return [r.name for r in DescendRule]

    # -- scenes and files -------------------------------------------------------------------
    def _mesh_for(self, spec: BodySpec) -> TriMesh:
        if isinstance(spec.shape, str):
            mesh = load_mesh(ASSETS_DIR / spec.shape)
        else:
            vertices, faces = spec.shape()
            mesh = TriMesh.from_arrays(vertices, faces, name=spec.name)
        if spec.fit_size is not None:
            mesh = mesh.with_vertices(fit_vertices(mesh.vertices, spec.fit_size))
        return mesh

    def load_scene(self, key: str) -> bool:
        """Replace the scene by built-in scene ``key``. On failure the scene stays as it was.

        Returns
        -------
        bool
            True if the scene was loaded.
        """
        spec: SceneSpec = SCENES[key]
        try:
            bodies = []
            for i, body_spec in enumerate(spec.bodies):
                mesh = self._mesh_for(body_spec)
                params = {}
                if body_spec.deformer is not None:
                    params = {f.name: f.default for f in deformer_fields(body_spec.deformer)}
                    params.update(body_spec.deformer_params)
                bodies.append(Body(_new_key(body_spec.name), body_spec.name, mesh, mesh,
                                   np.array(body_spec.pose, dtype=np.float64), default_color(i),
                                   True, body_spec.deformer, params, mesh_notes(mesh)))
        except (BVHLabError, OSError, ValueError) as exc:
            self.model.error.emit("Cannot load scene", f"Scene '{spec.title}': {exc}")
            return False
        self.model.is_self_collision = spec.self_collision
        self._replace_scene(bodies, key, spec.title, spec.description, spec.param)
        if spec.param is not None:
            self._on_scene_param(spec.param.default)
        self.model.set_playing(spec.playing)
        self.request_frame()
        return True

    def _replace_scene(self, bodies, key, title, description, param) -> None:
        self._generation += 1
        self._histories.clear()
        self.pipe = FramePipeline(self._settings())
        self.model.set_time(0.0)
        self.model.set_scene(bodies, key, title, description, param)

    @staticmethod
    def read_files(paths) -> tuple[list, str | None]:
        """Read mesh files (any thread: no Qt, no model).

        Returns
        -------
        meshes : list of TriMesh
            Empty when one file failed.
        error : str or None
            "file name: reason" of the first file that could not be used.
        """
        meshes = []
        for path in paths:
            name = Path(path).name
            try:
                size = Path(path).stat().st_size if Path(path).is_file() else 0
                if size > MAX_FILE_BYTES:
                    return [], (f"{name}: the file is {size / 2**20:,.0f} MiB; BVH Lab opens "
                                f"mesh files of up to {MAX_FILE_BYTES / 2**20:,.0f} MiB")
                mesh = load_mesh(path)
            except (MeshError, BVHLabError, OSError, ValueError) as exc:
                reason = str(getattr(exc, "reason", exc))
                # The counted errors already start with the file's path: name it once.
                reason = reason.removeprefix(f"{path}: ").removeprefix(f"{Path(path)}: ")
                return [], f"{name}: {reason}"
            if mesh.n_faces > MAX_TRIANGLES:
                return [], (f"{name}: {mesh.n_faces:,} triangles; BVH Lab opens meshes of up "
                            f"to {MAX_TRIANGLES:,} triangles")
            meshes.append(mesh)
        return meshes, None

    def load_files(self, paths, replace_scene: bool = True) -> bool:
        """Load mesh files; as a new scene, or added to the current one (scaled to fit).

        Every file is read before anything changes: if one fails, a message names it and the
        scene stays exactly as it was. Reads on the calling thread (see
        :meth:`load_files_async` for the window's File > Open).
        """
        meshes, error = self.read_files(paths)
        return self._apply_loaded(list(paths), meshes, error, replace_scene)

    def load_files_async(self, paths, replace_scene: bool = True) -> None:
        """Read mesh files in a worker thread, then replace or extend the scene on the GUI
        thread. ``model.loading_changed`` carries a progress text while the files are read
        (and "" when done); the first frame, which builds the trees, already runs off the GUI
        thread."""
        paths = list(paths)
        names = ", ".join(Path(p).name for p in paths)
        self.model.set_loading(f"Reading {names}…")

        def work():
            meshes, error = self.read_files(paths)
            if error is None and any(m.n_faces > DISPLAY_MAX_TRIANGLES for m in meshes):
                self._relay.progress.emit(f"Reading {names}: done. Making a lighter copy for "
                                          "drawing…")
                for mesh in meshes:
                    prepare_display_copy(mesh)
            self._relay.loaded.emit(paths, meshes, error, replace_scene)

        self._loader.submit(work)

    def _on_loaded(self, paths, meshes, error, replace_scene) -> None:
        self.model.set_loading("")
        self._apply_loaded(paths, meshes, error, replace_scene)

    def _apply_loaded(self, paths, meshes, error, replace_scene: bool) -> bool:
        if error is not None:
            self.model.error.emit("Cannot open mesh", error)
            return False
        start = 0 if replace_scene else len(self.model.bodies)
        bodies = []
        for i, mesh in enumerate(meshes):
            if not replace_scene:
                mesh = mesh.with_vertices(fit_vertices(mesh.vertices, 2.0))
            name = mesh.name or Path(paths[i]).stem
            bodies.append(Body(_new_key(name), name, mesh, mesh, np.eye(4),
                               default_color(start + i), notes=mesh_notes(mesh)))
        if replace_scene:
            self.model.is_self_collision = False
            names = ", ".join(b.name for b in bodies)
            self._replace_scene(bodies, None, names, "Meshes opened from files.", None)
            self.model.set_playing(False)
        else:
            self._generation += 1
            for body in bodies:
                self.model.add_body(body)
        n_tris = sum(b.rest.n_faces for b in bodies)
        text = f"Opened {len(bodies)} mesh(es), {n_tris:,} triangles"
        n_degenerate = sum(b.rest.n_degenerate for b in bodies)
        if n_degenerate:
            text += (f"; {n_degenerate:,} degenerate (zero-area) triangles kept: they never "
                     "count as contacts")
        if any(b.notes for b in bodies):
            text += " (notes: ⚠ in the Scene dock)"
        self.model.message.emit(text)
        self.last_load_note = text
        big = [b for b in bodies if b.rest.n_faces > WARN_TRIANGLES]
        if big:
            self.model.error.emit(
                "Large mesh",
                f"{', '.join(f'{b.name} has {b.rest.n_faces:,}' for b in big)} triangles. "
                f"Above {WARN_TRIANGLES:,} triangles the first tree build takes seconds and "
                "the frame rate drops well below 15 frames per second; big meshes are drawn "
                f"decimated. The limit is {MAX_TRIANGLES:,} triangles per mesh.")
        self.request_frame()
        return True

    def swap_to_b(self, index: int) -> None:
        """Make body ``index`` the second tested body (B), swapping it with the current B."""
        bodies = list(self.model.bodies)
        if index < 0 or index >= len(bodies) or index == 1 or len(bodies) < 2:
            return
        bodies[1], bodies[index] = bodies[index], bodies[1]
        for i, body in enumerate(bodies[:2]):
            body.color = default_color(i)
        self._generation += 1
        self.model.set_scene(bodies, self.model.scene_key, self.model.scene_title,
                             self.model.scene_description, self.model.scene_param)
        self.request_frame()

    def _on_scene_param(self, value: float) -> None:
        param = self.model.scene_param
        if param is None or param.body_index >= len(self.model.bodies):
            return
        body = self.model.bodies[param.body_index]
        vertices = param.apply(np.asarray(body.original.vertices), float(value))
        self.model.set_rest(param.body_index, body.original.with_vertices(vertices))

    # -- poses ------------------------------------------------------------------------------
    def translate_body(self, index: int, delta_world) -> None:
        pose = np.array(self.model.bodies[index].pose)
        pose[:3, 3] += np.asarray(delta_world, dtype=np.float64)
        self.model.set_pose(index, pose)

    def rotate_body(self, index: int, axis_world, angle_rad: float, center_world) -> None:
        """Rotate body ``index`` about a world axis through ``center_world``."""
        spin = Pose.from_axis_angle(axis_world, angle_rad)
        c = np.asarray(center_world, dtype=np.float64)
        about = Pose(np.eye(3), c).compose(spin).compose(Pose(np.eye(3), -c))
        pose = about.compose(Pose.from_matrix(self.model.bodies[index].pose))
        self.model.set_pose(index, pose.as_matrix())

    def centroid_world(self, index: int) -> np.ndarray:
        """World position of the centre of body ``index``'s rest box, ``(3,) float64``."""
        body = self.model.bodies[index]
        lo, hi = body.rest.bounds
        return Pose.from_matrix(body.pose).apply(0.5 * (lo + hi))

    def body_size(self, index: int) -> float:
        lo, hi = self.model.bodies[index].rest.bounds
        return float((hi - lo).max())

    # -- sculpt -----------------------------------------------------------------------------
    def begin_stroke(self, index: int) -> None:
        body = self.model.bodies[index]
        self._histories.setdefault(body.key, BrushHistory()).push(body.rest.vertices)

    def sculpt(self, index: int, center_world, drag_world) -> None:
        """Pull the rest vertices of body ``index`` near ``center_world`` along ``drag_world``.

        The brush radius is ``model.brush_radius`` times the body's size.
        """
        body = self.model.bodies[index]
        inv = Pose.from_matrix(body.pose).inverse()
        center = inv.apply(np.asarray(center_world, dtype=np.float64))
        drag = inv.apply_vectors(np.asarray(drag_world, dtype=np.float64))
        radius = self.model.brush_radius * self.body_size(index)
        vertices = brush_pull(body.rest.vertices, center, drag, radius,
                              self.model.brush_strength)
        self.model.set_rest(index, body.rest.with_vertices(vertices))

    def undo_stroke(self, index: int | None = None) -> bool:
        """Undo the last stroke on body ``index`` (default: the selected body, else any)."""
        candidates = [index] if index is not None else (
            [self.model.selected] if self.model.selected >= 0 else
            range(len(self.model.bodies)))
        for i in candidates:
            body = self.model.bodies[i]
            history = self._histories.get(body.key)
            if history is not None and len(history):
                self.model.set_rest(i, body.rest.with_vertices(history.undo()))
                self.model.message.emit(f"Undid a stroke on {body.name}")
                return True
        self.model.message.emit("Nothing to undo")
        return False

    def reset_rest(self, index: int) -> None:
        body = self.model.bodies[index]
        self._histories.pop(body.key, None)
        self.model.set_rest(index, body.original)

    # -- frames -----------------------------------------------------------------------------
    def _inputs(self) -> list[BodyInput]:
        inputs = []
        for body in self.model.bodies:
            deformer = None
            if body.deformer is not None:
                deformer = DEFORMERS[body.deformer](**body.deformer_params)
            inputs.append(BodyInput(body.key, body.rest, Pose.from_matrix(body.pose), deformer))
        return inputs

    def request_frame(self) -> None:
        """Ask for a frame with the current state; coalesces while one is running."""
        if not self.model.bodies:
            return
        if not self.is_threaded:
            self.step_sync()
            return
        if self._is_busy:
            if self._is_pending:
                self.n_dropped += 1
            self._is_pending = True
            return
        self._start()

    def _start(self) -> None:
        self._is_busy = True
        self._is_pending = False
        self.pipe.settings = self._settings()
        inputs, t, generation = self._inputs(), self.model.t, self._generation
        self._executor.submit(self._run, inputs, t, generation)

    def _run(self, inputs, t, generation) -> None:
        start = time.perf_counter()
        try:
            _ensure_kernels()
            frame = self.pipe.step(inputs, t)
            error = None
        except Exception as exc:  # noqa: BLE001 - any failure becomes a message, not a crash
            frame, error = None, exc
        self._relay.done.emit(frame, generation, error, time.perf_counter() - start)

    def _on_done(self, frame, generation, error, _seconds) -> None:
        self._is_busy = False
        if error is not None:
            self.model.set_playing(False)
            self.model.error.emit("Frame failed", f"{type(error).__name__}: {error}")
        elif generation == self._generation:
            self._deliver(frame)
        if self._is_pending and self.model.bodies:
            self._start()

    def _deliver(self, frame) -> None:
        now = time.perf_counter()
        if self._last_done is not None:
            rate = 1.0 / max(now - self._last_done, 1e-6)
            self.model.fps = rate if self.model.fps == 0 else (
                FPS_SMOOTHING * rate + (1 - FPS_SMOOTHING) * self.model.fps)
        self._last_done = now
        self.n_frames += 1
        self.model.set_frame(frame)

    def step_sync(self):
        """Run one frame inline and deliver it; returns the Frame."""
        self.pipe.settings = self._settings()
        _ensure_kernels()
        frame = self.pipe.step(self._inputs(), self.model.t)
        self._deliver(frame)
        return frame

    @property
    def is_busy(self) -> bool:
        return self._is_busy or self._is_pending

    # -- animation --------------------------------------------------------------------------
    def _on_playing(self, is_playing: bool) -> None:
        if is_playing:
            self._play_clock = time.perf_counter()
            self._play_timer.start()
        else:
            self._play_timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.model.set_time(self.model.t + (now - self._play_clock))
        self._play_clock = now
        self.request_frame()

    def step_time(self, dt: float) -> None:
        """Advance the animation clock by ``dt`` seconds (may be negative) and run a frame."""
        self.model.set_time(max(0.0, self.model.t + dt))
        self.request_frame()

    def shutdown(self) -> None:
        self._play_timer.stop()
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._loader.shutdown(wait=True, cancel_futures=True)
