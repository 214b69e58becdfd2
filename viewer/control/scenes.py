"""Built-in teaching scenes into the model: their meshes, deformers, poses and parameter."""

from __future__ import annotations

import numpy as np

from core.errors import BVHLabError
from core.io import load_mesh
from core.mesh import TriMesh
from viewer.control.deformers import deformer_fields
from viewer.control.files import fit_vertices, mesh_notes, new_body_key
from viewer.model import Body
from viewer.scenes import ASSETS_DIR, SCENES, BodySpec, SceneSpec, default_color


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


class SceneLoading:
    """The controller's scene job: ``load_scene``, ``swap_to_b`` and the scene's parameter.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    frames : viewer.control.frames.FrameRunning
        Its ``request_frame``, ``new_pipeline`` and ``discard_frames_in_flight``.
    forget_strokes : callable
        The sculpt job's ``forget_strokes``.
    """

    def __init__(self, model, frames, forget_strokes) -> None:
        self.model = model
        self._frames = frames
        self._forget_strokes = forget_strokes  # the sculpt job's
        model.scene_param_changed.connect(self._on_scene_param)

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
                mesh = mesh_for_body_spec(body_spec)
                params = {}
                if body_spec.deformer is not None:
                    params = {f.name: f.default for f in deformer_fields(body_spec.deformer)}
                    params.update(body_spec.deformer_params)
                bodies.append(Body(new_body_key(body_spec.name), body_spec.name, mesh, mesh,
                                   np.array(body_spec.pose, dtype=np.float64), default_color(i),
                                   True, body_spec.deformer, params, mesh_notes(mesh)))
        except (BVHLabError, OSError, ValueError) as exc:
            self.model.error.emit("Cannot load scene", f"Scene '{spec.title}': {exc}")
            return False
        self.model.is_self_collision = spec.self_collision
        self.replace_scene(bodies, key, spec.title, spec.description, spec.param)
        if spec.param is not None:
            self._on_scene_param(spec.param.default)
        self.model.set_playing(spec.playing)
        self._frames.request_frame()
        return True

    def replace_scene(self, bodies, key, title, description, param,
                      param_value: float | None = None) -> None:
        """Put ``bodies`` in the model as a new scene at time 0, with fresh trees and no undo
        history (frames still running belong to the old scene and are dropped)."""
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
