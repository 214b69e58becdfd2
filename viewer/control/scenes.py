"""Built-in teaching scenes into the model: their meshes, deformers, poses and parameter."""

from __future__ import annotations

import numpy as np

from core.errors import BVHLabError
from core.io import load_mesh
from core.mesh import TriMesh
from viewer.control.deformers import deformer_fields
from viewer.control.files import fit_vertices, mesh_notes, new_body_key
from viewer.control.worker import Tag
from viewer.render.culling import may_cull_back_faces
from viewer.render.decimation import DISPLAY_MAX_TRIANGLES, prepare_display_copy
from viewer.scenes import ASSETS_DIR, SCENES, BodySpec, SceneSpec, default_color
from viewer.state.bodies import Body


def mesh_for_body_spec(spec: BodySpec) -> TriMesh:
    """The rest mesh of a scene's body: an asset file or a generated shape, fitted to
    ``spec.fit_size`` when the scene asks for a size."""
    if isinstance(spec.shape, str):
        mesh = load_mesh(ASSETS_DIR / spec.shape)
    else:
        vertices, faces = spec.shape()
        mesh = TriMesh.from_arrays(vertices, faces, name=spec.name)
    if spec.fit_size is not None:
        mesh = mesh.with_vertices(fit_vertices(mesh.vertices, spec.fit_size))
    return mesh


def prepare_scene_meshes(control, spec: SceneSpec) -> list[tuple[TriMesh, list[str]]]:
    """The rest meshes of a scene's bodies with everything drawing them needs made ahead of
    time (a worker lane's job; no Qt, no rendering): the decimated drawing copy of a big mesh
    and whether its back faces may be culled, both cached by the mesh's faces.

    On the 278k-triangle subdivided bunny these took seconds of the GUI thread when the
    window drew the new scene (``decimate_pro`` 1.25 s, ``may_cull_back_faces`` 0.5-0.9 s
    per body, measured under load).

    Parameters
    ----------
    control : viewer.control.worker.JobControl
    spec : SceneSpec

    Returns
    -------
    list of (TriMesh, list of str)
        One per body of ``spec``, in order: the rest mesh and its notes
        (:func:`viewer.control.files.mesh_notes`, whose edge counts take a while on big
        meshes too).
    """
    meshes = []
    for i, body_spec in enumerate(spec.bodies):
        control.check()
        control.progress(i, len(spec.bodies), f"Loading scene {spec.title}: {body_spec.name}…")
        mesh = mesh_for_body_spec(body_spec)
        if mesh.n_faces > DISPLAY_MAX_TRIANGLES:
            control.progress(i, len(spec.bodies),
                             f"Loading scene {spec.title}: making a lighter copy of "
                             f"{body_spec.name} ({mesh.n_faces:,} triangles) for drawing…")
            prepare_display_copy(mesh)
        may_cull_back_faces(mesh)
        meshes.append((mesh, mesh_notes(mesh)))
    return meshes


def _scene_bodies(spec: SceneSpec, meshes) -> list[Body]:
    """The bodies of ``spec`` from :func:`prepare_scene_meshes`' ``(mesh, notes)``."""
    bodies = []
    for i, (body_spec, (mesh, notes)) in enumerate(zip(spec.bodies, meshes)):
        params = {}
        if body_spec.deformer is not None:
            params = {f.name: f.default for f in deformer_fields(body_spec.deformer)}
            params.update(body_spec.deformer_params)
        bodies.append(Body(new_body_key(body_spec.name), body_spec.name, mesh, mesh,
                           np.array(body_spec.pose, dtype=np.float64), default_color(i),
                           True, body_spec.deformer, params, notes))
    return bodies


class _Inline:
    """The :class:`~viewer.control.worker.JobControl` of a scene prepared on the calling
    thread: nothing to report, never cancelled."""

    def check(self) -> None:
        pass

    def progress(self, *_args) -> None:
        pass


class SceneLoading:
    """The controller's scene job: ``load_scene``, ``swap_to_b`` and the scene's parameter.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    workers : viewer.control.worker.Workers
        Its "scene" lane prepares a built-in scene's meshes off the GUI thread.
    frames : viewer.control.frames.FrameRunning
        Its ``request_frame``, ``new_pipeline``, ``discard_frames_in_flight`` and
        ``is_threaded`` (inline frames load scenes inline too).
    forget_strokes : callable
        The sculpt job's ``forget_strokes``.
    """

    def __init__(self, model, workers, frames, forget_strokes) -> None:
        self.model = model
        self._frames = frames
        self._forget_strokes = forget_strokes  # the sculpt job's
        model.scene_param_changed.connect(self._on_scene_param)
        # Coalescing: of the scenes asked for while one is prepared, only the newest waits.
        self._scene_lane = workers.lane("scene", coalesce=True)
        self._scene_request = 0  # bumped by every scene change: an older preparation is dropped

    @property
    def is_scene_loading(self) -> bool:
        """A built-in scene is being prepared off the GUI thread (the old one still shown)."""
        return self._scene_lane.is_busy

    def load_scene(self, key: str, wait: bool | None = None) -> bool:
        """Replace the scene by built-in scene ``key``. On failure the scene stays as it was.

        The meshes and their drawing copies are prepared on the "scene" worker lane (the
        window keeps showing the old scene meanwhile, and a newer request replaces an older
        one still pending), unless ``wait``.

        Parameters
        ----------
        key : str
        wait : bool, optional
            Prepare on the calling thread and replace the scene before returning; default:
            when the controller runs frames inline (``is_threaded`` False: the benchmark, the
            command-line tools).

        Returns
        -------
        bool
            True if the scene was loaded (``wait``) or its preparation started; a failure
            found later is a message (``model.error``).
        """
        spec: SceneSpec = SCENES[key]
        self._scene_request += 1
        request = self._scene_request
        if wait if wait is not None else not self._frames.is_threaded:
            try:
                meshes = prepare_scene_meshes(_Inline(), spec)
            except (BVHLabError, OSError, ValueError) as exc:
                self.model.error.emit("Cannot load scene", f"Scene '{spec.title}': {exc}")
                return False
            self._apply_scene(key, meshes)
            return True
        self._scene_lane.cancel()  # an older scene still prepared is not wanted any more
        self._scene_lane.submit(
            prepare_scene_meshes, spec, tag=Tag("scene", inputs=(key,)),
            on_result=lambda meshes, _job: self._on_scene_prepared(request, key, meshes, None),
            on_error=lambda error, _job: self._on_scene_prepared(request, key, None, error),
            on_progress=lambda _done, _total, text, _job: (
                self.model.set_loading(text) if request == self._scene_request else None))
        return True

    def _on_scene_prepared(self, request: int, key: str, meshes, error) -> None:
        if request != self._scene_request:
            return  # a newer scene (or a file, a session) was asked for since
        if self.model.loading:
            self.model.set_loading("")
        if error is not None:
            spec = SCENES[key]
            self.model.error.emit("Cannot load scene", f"Scene '{spec.title}': {error}")
            return
        self._apply_scene(key, meshes)

    def _apply_scene(self, key: str, meshes) -> None:
        spec: SceneSpec = SCENES[key]
        self.model.is_self_collision = spec.self_collision
        self.replace_scene(_scene_bodies(spec, meshes), key, spec.title, spec.description,
                            spec.param)
        if spec.param is not None:
            self._on_scene_param(spec.param.default)
        self.model.set_playing(spec.playing)
        self._frames.request_frame()

    def replace_scene(self, bodies, key, title, description, param,
                      param_value: float | None = None) -> None:
        """Put ``bodies`` in the model as a new scene at time 0, with fresh trees and no undo
        history (frames still running belong to the old scene and are dropped; so is a built-in
        scene still being prepared)."""
        self._scene_request += 1
        self._frames.new_pipeline()
        self._forget_strokes()
        self.model.set_time(0.0)
        self.model.set_scene(bodies, key, title, description, param, param_value)

    def swap_to_b(self, index: int) -> None:
        """Make body ``index`` the second tested body (B), swapping it with the current B."""
        bodies = list(self.model.bodies)
        if index < 0 or index >= len(bodies) or index == 1 or len(bodies) < 2:
            return
        bodies[1], bodies[index] = bodies[index], bodies[1]
        for i, body in enumerate(bodies[:2]):
            body.color = default_color(i)
        self._frames.discard_frames_in_flight()
        self.model.set_scene(bodies, self.model.scene_key, self.model.scene_title,
                             self.model.scene_description, self.model.scene_param)
        self._frames.request_frame()

    def _on_scene_param(self, value: float) -> None:
        param = self.model.scene_param
        if param is None or param.body_index >= len(self.model.bodies):
            return
        body = self.model.bodies[param.body_index]
        vertices = param.apply(np.asarray(body.original.vertices), float(value))
        self.model.set_rest(param.body_index, body.original.with_vertices(vertices))
