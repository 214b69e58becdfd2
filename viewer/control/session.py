"""Nothing lost: export a body's mesh, save and open sessions, autosave, crash restore.

A session (:mod:`core.session`) is the whole scene as the user left it. Saving reads the
model on the GUI thread (meshes are read-only arrays, so the snapshot shares them) and
writes on a worker lane; opening reads and checks the file on a worker lane and changes
the scene only when every part of it is valid, so a bad file leaves the scene as it was.

The autosave writes the session to the state directory (:mod:`viewer.control.autosave`)
:data:`AUTOSAVE_QUIET_MS` after the last change (a pose, a sculpt stroke, a deformer, a choice,
the scene), at most :data:`AUTOSAVE_MAX_WAIT_MS` after the first unsaved one while changes keep
coming, and never twice within :data:`AUTOSAVE_MIN_GAP_S`.
"""

from __future__ import annotations

import dataclasses
import enum
import time
from pathlib import Path

import numpy as np
from PyQt6.QtCore import QTimer

from core.deform import DEFORMERS
from core.errors import MeshFileError
from core.io.write import write_mesh
from core.pose import Pose
from core.session import (
    CameraState,
    Session,
    SessionBody,
    SessionCancelled,
    SessionFileError,
    open_session,
    save_session,
)
from viewer.control.autosave import AutosaveState, CrashedSession
from viewer.control.files import mesh_notes, new_body_key
from viewer.control.recording import JobCancelled, report_open_failure
from viewer.control.worker import Tag
from viewer.scenes import SCENES
from viewer.state.bodies import Body
from viewer.state.display import CameraView, Display, Mode
from viewer.state.pipeline import PipelineChoice, UpdateChoice

AUTOSAVE_QUIET_MS = 3000
"""The autosave waits this long after the last change: a sculpt stroke or a drag sends
dozens of changes a second, and one file after the gesture is what a restore needs."""

AUTOSAVE_MAX_WAIT_MS = 8000
"""While changes keep coming (a long drag), the autosave still runs this long after the
first unsaved change."""

AUTOSAVE_MIN_GAP_S = 1.0
"""Never two autosaves within this many seconds (a big scene takes a while to compress)."""

COORDINATES = ("world", "local")
"""Export mesh: in world coordinates (as drawn, the pose applied) or the body's own."""


def _plain_fields(value) -> dict:
    """A frozen dataclass's fields as plain values (enums by name)."""
    return {f.name: (getattr(value, f.name).name if isinstance(getattr(value, f.name),
                                                                 enum.Enum)
                     else getattr(value, f.name)) for f in dataclasses.fields(value)}


def camera_state(view: CameraView) -> CameraState:
    """The session file's camera record of the model's ``view``.

    The two records hold the same fields under the same names: ``viewer.state`` imports no
    core (the ``state-plain`` import rule), so the viewer keeps its own and converts here, in
    one place, for both directions."""
    return CameraState(**dataclasses.asdict(view))


def camera_view(state: CameraState) -> CameraView:
    """The model's camera record of a session's ``state`` (its vectors as tuples)."""
    values = dataclasses.asdict(state)
    for name in ("position", "focal_point", "view_up"):
        values[name] = tuple(values[name])
    return CameraView(**values)


def _choices_from(cls, saved: dict, what: str, enums: dict):
    """``cls`` (PipelineChoice or Display) from a session's plain values, each checked
    against the type of the field's default. Raises ValueError naming the field."""
    defaults = cls()
    fields = {f.name for f in dataclasses.fields(cls)}  # not hasattr: "__class__" is no field
    values = {}
    for name, value in saved.items():
        if name not in fields:
            raise ValueError(f"{what} has no choice {name[:40]!r}")
        default = getattr(defaults, name)
        if name in enums:
            if value not in enums[name].__members__:
                raise ValueError(f"{what}.{name} is {str(value)[:40]!r}")
            value = enums[name][value]
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError(f"{what}.{name} must be true or false")
        elif isinstance(default, (int, float)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{what}.{name} must be a number")
            if isinstance(default, int) and value != int(value):
                raise ValueError(f"{what}.{name} must be a whole number")
            value = type(default)(value)
        elif not isinstance(value, type(default)):
            raise ValueError(f"{what}.{name} has the wrong type")
        values[name] = value
    return dataclasses.replace(defaults, **values)


def session_choices(session: Session, path=None) -> tuple[PipelineChoice, Display]:
    """The pipeline and display choices of ``session`` as the model holds them, checked
    against the model's fields (names, types) and the scene's slider range.

    Raises
    ------
    SessionFileError
        One line naming ``path`` (or "session") and the value.
    """
    where = str(path) if path is not None else "session"
    try:
        pipeline = _choices_from(PipelineChoice, session.pipeline, "pipeline",
                                 {"update": UpdateChoice})
        display = _choices_from(Display, session.display, "display", {})
        spec = SCENES.get(session.scene_key) if session.scene_key is not None else None
        param = spec.param if spec is not None else None
        if param is not None and not param.lo <= session.scene_param_value <= param.hi:
            raise ValueError(f"scene.param_value {session.scene_param_value:g} is outside the "
                             f"{param.label} slider ({param.lo:g} to {param.hi:g})")
    except ValueError as exc:
        raise SessionFileError(f"{where}: damaged file ({exc})") from None
    return pipeline, display


def open_checked_session(path, progress=None) -> Session:
    """:func:`core.session.open_session`, then :func:`session_choices`: everything the
    window will apply is checked here, off the GUI thread. Raises SessionFileError."""
    session = open_session(path, progress=progress)
    session_choices(session, path)
    return session


def current_vertices(body: Body, t: float, coordinates: str = "world") -> np.ndarray:
    """The vertices of ``body`` as drawn at time ``t``: its rest shape after sculpting, its
    deformer applied, in world (its pose applied) or local coordinates; ``(n, 3) float64``."""
    vertices = np.asarray(body.rest.vertices)
    if body.deformer is not None:
        vertices = DEFORMERS[body.deformer](**body.deformer_params)(vertices, t)
    if coordinates == "world":
        vertices = Pose.from_matrix(body.pose).apply(vertices)
    return vertices


class SessionKeeping:
    """The controller's session job: ``export_mesh``, ``save_session``, ``open_session``,
    ``session_snapshot`` and the autosave (``start_autosave``).

    Parameters
    ----------
    model : viewer.model.ViewerModel
    workers : viewer.control.worker.Workers
        The controller's workers; the job takes its lane(s) from them.
    recording : viewer.control.recording.FrameRecording
        Its ``start_job`` (one background job at a time with progress and Cancel) and
        ``stop_playback``.
    sculpting : viewer.control.sculpt.Sculpting
        Its ``n_strokes`` (a session says which bodies were sculpted).
    replace_scene, request_frame : callable
        The scene job's ``replace_scene`` and the frame job's ``request_frame``.
    parent : QObject
        The autosave timer's parent (the controller).
    """

    def __init__(self, model, workers, recording, sculpting, replace_scene,
                 request_frame, parent) -> None:
        self.model = model
        self._recording = recording
        self._sculpting = sculpting
        self._replace_scene = replace_scene  # the scene job's
        self._request_frame = request_frame  # the frame job's
        self.session_path: Path | None = None  # the file of Save session (Ctrl+Alt+S)
        self.autosave_state: AutosaveState | None = None
        self.n_autosaves = 0
        self.last_autosave_error: str | None = None
        # One autosave at a time, on a lane of its own (it never waits behind a long save).
        self._autosave_lane = workers.lane("autosave")
        self._autosave_timer = QTimer(parent)
        self._autosave_timer.setSingleShot(True)
        self._autosave_timer.timeout.connect(self._autosave_now)
        self._first_unsaved = None  # perf_counter of the first change not yet saved
        self._last_autosave = -1e9
        self._is_autosaving = False
        model = self.model
        for signal in (model.scene_changed, model.body_changed, model.pipeline_changed,
                       model.display_changed, model.scene_param_changed, model.level_changed,
                       model.mode_changed):
            signal.connect(lambda *_args: self._changed_for_autosave())

    # -- export -----------------------------------------------------------------------------
    def export_mesh(self, index: int, path, coordinates: str = "world") -> bool:
        """Write body ``index``'s current triangles (deformed now, sculpted) to ``path``
        (``.obj``, ``.ply`` or ``.stl``) in the job thread; ``coordinates`` is ``"world"``
        (the pose applied, as drawn) or ``"local"``."""
        path = Path(path)
        if not 0 <= index < len(self.model.bodies):
            self.model.error.emit("Export mesh", "Select a body first (click it, or pick it "
                                  "in the Scene dock)")
            return False
        if coordinates not in COORDINATES:
            self.model.error.emit("Export mesh", f"coordinates must be one of "
                                  f"{', '.join(COORDINATES)}, not {coordinates!r}")
            return False
        body, t = self.model.bodies[index], self.model.t

        def work(progress, _cancel):
            vertices = current_vertices(body, t, coordinates)
            progress(1, 2)
            write_mesh(path, vertices, body.rest.faces, body.name)
            progress(2, 2)
            return body.rest.n_faces

        def done(n_faces, error):
            if error is None:
                self.model.message.emit(f"Exported {body.name} ({n_faces:,} triangles, "
                                        f"{coordinates} coordinates) to {path}")
            elif isinstance(error, MeshFileError):
                self.model.error.emit("Cannot export mesh", str(error))
            elif not isinstance(error, JobCancelled):
                self.model.error.emit("Cannot export mesh", f"{path}: {error}")

        return self._recording.start_job(f"Exporting {path.name}", work, done)

    # -- snapshot ---------------------------------------------------------------------------
    def session_snapshot(self) -> Session:
        """The session as it is now (GUI thread; shares the read-only mesh arrays)."""
        model = self.model
        bodies = []
        for body in model.bodies:
            bodies.append(SessionBody(
                body.name, body.rest, body.original, np.array(body.pose, dtype=np.float64),
                body.color, body.is_visible, body.deformer, dict(body.deformer_params),
                is_sculpted=self._sculpting.n_strokes(body.key) > 0))
        view = model.read_camera()
        camera = None if view is None else camera_state(view)
        return Session(
            bodies=tuple(bodies), scene_key=model.scene_key, scene_title=model.scene_title,
            scene_description=model.scene_description,
            scene_param_value=float(model.scene_param_value),
            is_self_collision=model.is_self_collision, t=model.t, is_playing=model.is_playing,
            pipeline=_plain_fields(model.pipeline), display=_plain_fields(model.display),
            level=model.level, mode=model.mode.value, selected=model.selected, camera=camera,
            saved_at=time.time())

    # -- save and open ----------------------------------------------------------------------
    def save_session(self, path) -> bool:
        """Write the session to ``path`` (a ``.bvhsession`` file) in the job thread."""
        path = Path(path)
        if not self.model.bodies:
            self.model.error.emit("Save session", "The scene is empty: nothing to save")
            return False
        session = self.session_snapshot()

        def done(_result, error):
            if error is None:
                self.session_path = path
                self.model.message.emit(f"Saved the session ({len(session.bodies)} bodies) "
                                        f"to {path}")
            elif isinstance(error, SessionFileError):
                self.model.error.emit("Cannot save session", str(error))
            elif isinstance(error, (JobCancelled, SessionCancelled)):
                self.model.message.emit(f"Saving {path.name} cancelled; the file is as it was")
            else:
                self.model.error.emit("Cannot save session", f"{path}: {error}")

        return self._recording.start_job(
            f"Saving {path.name}", lambda progress, cancel: save_session(
                session, path, progress=progress, cancel=cancel), done)

    def open_session(self, path) -> bool:
        """Read a session in the job thread, then restore it. A bad file gives one message
        naming it and the scene stays as it was."""
        path = Path(path)

        def done(session, error):
            if report_open_failure(self.model, "Cannot open session", path, error,
                                   SessionFileError, f"Opening {path.name} cancelled"):
                self.apply_session(session, path)

        def work(progress, cancel):
            session = open_checked_session(path, progress=progress)
            if cancel():  # read, but the user no longer wants it
                raise JobCancelled()
            return session

        return self._recording.start_job(f"Opening {path.name}", work, done)

    def apply_session(self, session: Session, path=None) -> bool:
        """Make ``session`` the scene: bodies, choices, level, mode, time and camera.

        Everything is checked before the scene changes; on a problem one message names the
        file and the scene stays as it was.
        """
        where = str(path) if path is not None else "session"
        try:
            pipeline, display = session_choices(session, path)
        except SessionFileError as exc:
            self.model.error.emit("Cannot open session", str(exc))
            return False
        spec = SCENES.get(session.scene_key) if session.scene_key is not None else None
        key = session.scene_key if spec is not None else None
        param = spec.param if spec is not None else None
        bodies = [Body(new_body_key(b.name), b.name, b.rest, b.original,
                       np.array(b.pose, dtype=np.float64), b.color, b.is_visible, b.deformer,
                       dict(b.deformer_params), mesh_notes(b.rest)) for b in session.bodies]
        model = self.model
        model.set_playing(False)
        self._recording.stop_playback()
        model.set_pipeline(**{f.name: getattr(pipeline, f.name)
                              for f in dataclasses.fields(pipeline)})
        # After the pipeline: a session saved before the pipeline held it names it here only.
        model.is_self_collision = session.is_self_collision
        model.set_display(**{f.name: getattr(display, f.name)
                             for f in dataclasses.fields(display)})
        self._replace_scene(bodies, key, session.scene_title, session.scene_description,
                            param, param_value=session.scene_param_value)
        model.set_time(session.t)
        model.set_level(session.level)
        model.set_mode(Mode(session.mode))
        model.set_selected(session.selected if session.selected < len(bodies) else -1)
        if session.camera is not None:
            model.restore_camera(camera_view(session.camera))
        is_crashed = (path is not None and self.autosave_state is not None
                      and Path(path) == self.autosave_state.crashed_path)
        self.session_path = Path(path) if path is not None and not is_crashed else None
        if is_crashed:
            self.autosave_state.restored_crashed()
        model.set_playing(session.is_playing)
        self._request_frame()
        n_sculpted = sum(1 for b in session.bodies if b.is_sculpted)
        model.message.emit(f"Opened the session {Path(where).name}: {len(bodies)} bodies"
                           + (f", {n_sculpted} sculpted" if n_sculpted else ""))
        return True

    # -- autosave ---------------------------------------------------------------------------
    def start_autosave(self, state: AutosaveState) -> CrashedSession | None:
        """Claim the state directory and autosave there from now on; return what a run that
        stopped unexpectedly left (None if nothing, or if another window holds the lock)."""
        self.autosave_state = state
        crashed = state.take()
        if state.problem is not None:
            self.model.message.emit(state.problem)
        return crashed

    def _changed_for_autosave(self) -> None:
        if self.autosave_state is None or not self.autosave_state.has_lock:
            return
        now = time.perf_counter()
        if self._first_unsaved is None:
            self._first_unsaved = now
        left = AUTOSAVE_MAX_WAIT_MS - (now - self._first_unsaved) * 1000
        self._autosave_timer.start(int(max(0, min(AUTOSAVE_QUIET_MS, left))))

    def _autosave_now(self) -> None:
        state = self.autosave_state
        if state is None or not state.has_lock or not self.model.bodies:
            return
        since = time.perf_counter() - self._last_autosave
        if self._is_autosaving or since < AUTOSAVE_MIN_GAP_S:
            wait = max(AUTOSAVE_MIN_GAP_S - since, 0.2)
            self._autosave_timer.start(int(wait * 1000))
            return
        session = self.session_snapshot()
        self._first_unsaved = None
        self._last_autosave = time.perf_counter()
        self._is_autosaving = True
        path = state.autosave_path

        self._autosave_lane.submit(
            lambda _control: save_session(session, path), tag=Tag("autosave"),
            on_result=lambda _result, _job: self._on_autosaved(None),
            on_error=lambda error, _job: self._on_autosaved(error))  # reported, never raised

    def _on_autosaved(self, error) -> None:
        self._is_autosaving = False
        if error is None:
            self.n_autosaves += 1
            self.last_autosave_error = None
        else:
            text = str(error)
            if text != self.last_autosave_error:  # said once, not every few seconds
                self.model.message.emit(f"Autosave failed: {text}")
            self.last_autosave_error = text

    def discard_crashed_session(self) -> None:
        """The user chose Discard: the crashed run's session is deleted."""
        if self.autosave_state is not None:
            self.autosave_state.discard_crashed()

    def shutdown(self) -> None:
        """A clean quit: no further autosave, the one running finishes, the lock goes."""
        self._autosave_timer.stop()
        self._autosave_lane.shutdown(wait=True)  # the save takes no cancel: it completes
        if self.autosave_state is not None:
            self.autosave_state.release()
