"""The ``.bvhsession`` file: a whole scene as the user left it, to be opened again.

The same container as a recording (:mod:`core.container`: a zip that ``numpy.load`` opens,
one ``.npy`` member per array, ``manifest.json``), with its own manifest, format
``"bvh-lab session"`` version 1. The arrays are each body's mesh (rest vertices after
sculpting, faces, the source face ids and, when they differ, the vertices as loaded); the
manifest holds everything else as plain JSON: the scene, the poses, colours, visibility,
deformers and their settings, the time, the pipeline and display choices, the traversal level,
the mode and the camera (see the README's "Sessions").

Reading never unpickles and checks everything before it is used: every array's dtype and
shape, finite coordinates within :data:`core.mesh.MAX_ABS_COORDINATE`, face indices in range,
poses that are a rotation, a positive scale and a translation, deformers and their settings
against the registry, and every choice of the pipeline against the core's enums and
registries. Declared sizes are compared with limits before anything is decompressed. Any
problem is one :class:`SessionFileError` line naming the file.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import os
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.bv import BV_KINDS, ObbFit
from core.bvh import SplitRule
from core.collide import DescendRule
from core.container import (
    MANIFEST,
    Cancel,
    Progress,
    app_version,
    open_container,
    read_array,
    read_manifest,
    write_container,
)
from core.deform import DEFORMERS
from core.errors import BVHLabError
from core.mesh import MAX_ABS_COORDINATE, TriMesh
from core.partition import PARTITION_KINDS
from core.pipeline import UpdateMode
from core.pose import Pose

FORMAT_NAME = "bvh-lab session"
FORMAT_VERSION = 1
SUFFIX = ".bvhsession"

MAX_MANIFEST_BYTES = 16 * 2**20
"""Largest ``manifest.json`` read (16 MiB). A session's manifest holds no mesh data: a few
kilobytes for tens of bodies; a bigger one is refused before it is decompressed."""

MAX_ARRAY_BYTES = 4 * 2**30
"""Largest total of the arrays a session may declare (4 GiB): two 5-million-triangle meshes
(the app's limit per mesh) with their loaded copies hold about 1.2 GB."""

NO_PARTITION = "none"

PIPELINE_CHOICES = {
    "update": tuple(m.name for m in UpdateMode),
    "split": tuple(m.name for m in SplitRule),
    "descend": tuple(m.name for m in DescendRule),
    "bv": tuple(BV_KINDS),
    "partition": (NO_PARTITION, *PARTITION_KINDS),
    "obb_fit": tuple(m.name for m in ObbFit),
}
"""The pipeline choices a session names, and the values each may take."""


class SessionFileError(ValueError):
    """A session file that cannot be written or read, in one line naming the file."""


class SessionCancelled(Exception):
    """The caller's ``cancel()`` said stop; nothing was written."""


@dataclass(frozen=True)
class SessionBody:
    """One body of a session.

    Attributes
    ----------
    name : str
    rest : TriMesh
        The rest mesh after sculpting (local coordinates).
    original : TriMesh
        The mesh as loaded ("reset to rest" and a scene's parameter start from it); the same
        object as ``rest`` when the two have the same vertices.
    pose : (4, 4) float64
        ``x_world = pose @ [x, 1]``.
    color : str
    is_visible : bool
    deformer : str or None
        Key of ``core.deform.DEFORMERS``.
    deformer_params : dict
        The deformer's field values (enum fields as their members).
    is_sculpted : bool
        Whether brush strokes changed ``rest`` (told in the crash-restore question).
    """

    name: str
    rest: TriMesh
    original: TriMesh
    pose: np.ndarray
    color: str = "#0072b2"
    is_visible: bool = True
    deformer: str | None = None
    deformer_params: dict = field(default_factory=dict)
    is_sculpted: bool = False


@dataclass(frozen=True)
class CameraState:
    """Where the camera is: position, focal point, view-up, angle or parallel scale.

    Attributes
    ----------
    position, focal_point, view_up : (3,) tuple of float
    view_angle : float
        Vertical view angle in degrees (perspective projection).
    is_parallel : bool
        Parallel projection instead of perspective.
    parallel_scale : float
        Half the height of the view in world units (parallel projection).
    """

    position: tuple
    focal_point: tuple
    view_up: tuple
    view_angle: float = 30.0
    is_parallel: bool = False
    parallel_scale: float = 1.0


@dataclass(frozen=True)
class Session:
    """Everything a ``.bvhsession`` file holds.

    Attributes
    ----------
    bodies : tuple of SessionBody
    scene_key : str or None
        The built-in scene's key, None for meshes opened from files.
    scene_title, scene_description : str
    scene_param_value : float
        The scene's slider value (e.g. the gap of "Parallel close proximity").
    is_self_collision : bool
    t : float
        Animation time in seconds.
    is_playing : bool
    pipeline : dict
        The pipeline choices by name: ``update``, ``split``, ``descend``, ``bv``,
        ``partition``, ``obb_fit`` (names from :data:`PIPELINE_CHOICES`), ``margin`` and
        ``drift_threshold`` (numbers), and any further plain value the viewer keeps.
    display : dict
        Plain values (booleans, numbers, strings) of the viewer's display choices.
    level : int or None
        The traversal level shown (None: all levels).
    mode : str
        ``"camera"``, ``"move"`` or ``"sculpt"``.
    selected : int
        The selected body, -1 for none.
    camera : CameraState or None
    saved_at : float
        When the file was written (seconds since the epoch).
    """

    bodies: tuple
    scene_key: str | None = None
    scene_title: str = ""
    scene_description: str = ""
    scene_param_value: float = 0.0
    is_self_collision: bool = False
    t: float = 0.0
    is_playing: bool = False
    pipeline: dict = field(default_factory=dict)
    display: dict = field(default_factory=dict)
    level: int | None = None
    mode: str = "camera"
    selected: int = -1
    camera: CameraState | None = None
    saved_at: float = 0.0


MODES = ("camera", "move", "sculpt")


@dataclass(frozen=True)
class SessionSummary:
    """What a session holds, in brief, read from its manifest alone (the crash question).

    Attributes
    ----------
    scene_title : str
    n_bodies : int
    n_sculpted : int
        Bodies with brush strokes.
    saved_at : float
        Seconds since the epoch.
    """

    scene_title: str
    n_bodies: int
    n_sculpted: int
    saved_at: float


# ---- writing --------------------------------------------------------------------------------


def _plain(value):
    """A deformer or display value as JSON: enums by value, numpy numbers as Python ones."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"{type(value).__name__} cannot be saved in a session")


def session_manifest(session: Session) -> tuple[dict, dict]:
    """The manifest of ``session`` and its arrays (member name -> array)."""
    arrays: dict[str, np.ndarray] = {}
    names: dict[int, str] = {}

    def member(array: np.ndarray) -> str:
        name = names.get(id(array))
        if name is None:
            name = names[id(array)] = f"a{len(arrays)}"
            arrays[name] = array
        return name

    bodies = []
    for body in session.bodies:
        original = body.original
        is_same = original is body.rest or original.vertices is body.rest.vertices or (
            np.array_equal(original.vertices, body.rest.vertices))
        bodies.append({
            "name": body.name,
            "vertices": member(body.rest.vertices),
            "faces": member(body.rest.faces),
            "source_face_ids": member(body.rest.source_face_ids),
            "original_vertices": None if is_same else member(original.vertices),
            "pose": np.asarray(body.pose, dtype=np.float64).tolist(),
            "color": str(body.color),
            "visible": bool(body.is_visible),
            "deformer": body.deformer,
            "deformer_params": {k: _plain(v) for k, v in body.deformer_params.items()},
            "sculpted": bool(body.is_sculpted),
        })
    camera = None
    if session.camera is not None:
        c = session.camera
        camera = {"position": [float(x) for x in c.position],
                  "focal_point": [float(x) for x in c.focal_point],
                  "view_up": [float(x) for x in c.view_up], "view_angle": float(c.view_angle),
                  "parallel_projection": bool(c.is_parallel),
                  "parallel_scale": float(c.parallel_scale)}
    manifest = {
        "format": FORMAT_NAME, "version": FORMAT_VERSION, "app_version": app_version(),
        "saved_at": float(session.saved_at or time.time()),
        "scene": {"key": session.scene_key, "title": session.scene_title,
                  "description": session.scene_description,
                  "param_value": float(session.scene_param_value),
                  "self_collision": bool(session.is_self_collision)},
        "t": float(session.t), "playing": bool(session.is_playing),
        "bodies": bodies,
        "pipeline": {k: _plain(v) for k, v in session.pipeline.items()},
        "display": {k: _plain(v) for k, v in session.display.items()},
        "level": session.level, "mode": session.mode, "selected": int(session.selected),
        "camera": camera,
    }  # fmt: skip
    return manifest, arrays


def save_session(session: Session, path, progress: Progress | None = None,
                 cancel: Cancel | None = None) -> Path:  # fmt: skip
    """Write ``session`` to ``path`` (a ``.bvhsession`` file), atomically.

    Parameters
    ----------
    session : Session
    path : str or os.PathLike
    progress : callable, optional
        ``progress(done, total)`` after each array.
    cancel : callable, optional
        ``cancel() -> bool``, asked between arrays; True stops with
        :class:`SessionCancelled` and leaves an existing file as it was.

    Raises
    ------
    SessionFileError
        No bodies, a value that is not plain data, or the file cannot be written.
    SessionCancelled
    """
    path = Path(os.fspath(path))
    if not session.bodies:
        raise SessionFileError(f"{path}: the scene has no bodies, nothing to save")
    try:
        manifest, arrays = session_manifest(session)
        text = json.dumps(manifest, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise SessionFileError(f"{path}: {exc}") from None
    write_container(path, arrays, text, SessionFileError, SessionCancelled, progress, cancel)
    if progress is not None:
        progress(len(arrays) + 1, len(arrays) + 1)
    return path


# ---- reading --------------------------------------------------------------------------------


class _Damaged(Exception):
    """Internal: what is wrong with the manifest or an array, without the file name."""


def _manifest(archive: zipfile.ZipFile, path: Path) -> dict:
    try:
        info = archive.getinfo(MANIFEST)
    except KeyError:
        info = None
    if info is not None and info.file_size > MAX_MANIFEST_BYTES:
        raise SessionFileError(f"{path}: damaged file ({MANIFEST} declares "
                               f"{info.file_size / 2**20:,.0f} MiB; a session's holds at most "
                               f"{MAX_MANIFEST_BYTES / 2**20:,.0f} MiB)")  # fmt: skip
    return read_manifest(archive, path, FORMAT_NAME, FORMAT_VERSION, SessionFileError,
                         "session")


def peek_session(path) -> SessionSummary:
    """What the session at ``path`` holds, from its manifest alone (no array is read).

    Raises
    ------
    SessionFileError
    """

    def read(archive, file):
        manifest = _manifest(archive, file)
        bodies = manifest.get("bodies")
        if not isinstance(bodies, list):
            raise SessionFileError(f"{file}: damaged file (bodies must be a list)")
        scene = manifest.get("scene") if isinstance(manifest.get("scene"), dict) else {}
        saved_at = manifest.get("saved_at")
        return SessionSummary(str(scene.get("title") or ""), len(bodies),
                              sum(1 for b in bodies if isinstance(b, dict) and b.get("sculpted")),
                              float(saved_at) if isinstance(saved_at, (int, float)) else 0.0)

    return open_container(path, read, SessionFileError, "session")


def open_session(path, progress: Progress | None = None) -> Session:
    """Read and check a ``.bvhsession`` file.

    Parameters
    ----------
    path : str or os.PathLike
    progress : callable, optional
        ``progress(done, total)`` after each body.

    Returns
    -------
    Session

    Raises
    ------
    SessionFileError
        One line naming the file: missing, not a zip, not a session, another version,
        damaged (truncated, CRC, a member missing, a wrong dtype or shape, coordinates that
        are not finite, faces out of range, a pose that is not rigid, an unknown deformer or
        choice), too large.
    """
    return open_container(path, lambda archive, file: _read_session(archive, file, progress),
                          SessionFileError, "session")


def _read_session(archive: zipfile.ZipFile, path: Path, progress) -> Session:
    manifest = _manifest(archive, path)
    names = set(archive.namelist())
    declared = sum(info.file_size for info in archive.infolist() if info.filename != MANIFEST)
    if declared > MAX_ARRAY_BYTES:
        raise SessionFileError(f"{path}: too large (its arrays declare "
                               f"{declared / 2**30:,.1f} GiB; a session holds at most "
                               f"{MAX_ARRAY_BYTES / 2**30:,.0f} GiB)")  # fmt: skip
    loaded: dict[str, np.ndarray] = {}

    def load(name, where: str) -> np.ndarray:
        if not isinstance(name, str):
            raise _Damaged(f"{where} must name an array member")
        if name not in loaded:
            member = name + ".npy"
            if member not in names:
                raise _Damaged(f"{where}: array member {member} is missing")
            try:
                loaded[name] = read_array(archive, member)
            except ValueError as exc:
                raise _Damaged(f"array member {member}: {exc}") from None
        return loaded[name]

    try:
        return _session(manifest, load, progress)
    except _Damaged as exc:
        raise SessionFileError(f"{path}: damaged file ({exc})") from None


def _get(mapping: dict, key: str, kinds, where: str, default=dataclasses.MISSING):
    if key not in mapping:
        if default is dataclasses.MISSING:
            raise _Damaged(f"{where} has no {key!r}")
        return default
    value = mapping[key]
    if kinds is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kinds) or (kinds is not bool and isinstance(value, bool)):
        raise _Damaged(f"{where}.{key} has the wrong type ({type(value).__name__})")
    if isinstance(value, float) and not math.isfinite(value):
        raise _Damaged(f"{where}.{key} is not finite")
    return value


def _array(load, name, where, dtype: str, shape: tuple) -> np.ndarray:
    array = load(name, where)
    if array.dtype != np.dtype(dtype) or array.ndim != len(shape) or any(
            want is not None and got != want for got, want in zip(array.shape, shape)):
        want = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ")"
        raise _Damaged(f"{where} must be {dtype} of shape {want}, got {array.dtype} of "
                       f"shape {array.shape}")  # fmt: skip
    return array


def _vector(values, where: str) -> tuple:
    if not isinstance(values, list) or len(values) != 3 or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
            for x in values):
        raise _Damaged(f"{where} must be three finite numbers")
    return tuple(float(x) for x in values)


def _session(manifest: dict, load, progress) -> Session:
    scene = _get(manifest, "scene", dict, "manifest")
    key = _get(scene, "key", (str, type(None)), "scene")
    entries = _get(manifest, "bodies", list, "manifest")
    if not entries:
        raise _Damaged("the session holds no bodies")
    bodies = []
    for i, entry in enumerate(entries):
        bodies.append(_body(entry, load, f"body {i}"))
        if progress is not None:
            progress(i + 1, len(entries))
    pipeline = dict(_get(manifest, "pipeline", dict, "manifest"))
    for name, allowed in PIPELINE_CHOICES.items():
        value = _get(pipeline, name, str, "pipeline")
        if value not in allowed:
            raise _Damaged(f"pipeline.{name} is {value[:40]!r}; known: {', '.join(allowed)}")
    for name, lowest in (("margin", 0.0), ("drift_threshold", None)):
        value = _get(pipeline, name, float, "pipeline")
        if lowest is not None and value < lowest or lowest is None and not value > 0:
            raise _Damaged(f"pipeline.{name} is {value!r}, out of range")
        pipeline[name] = value
    display = _get(manifest, "display", dict, "manifest")
    for name, value in display.items():
        if not isinstance(value, (bool, int, float, str)) or (
                isinstance(value, float) and not math.isfinite(value)):
            raise _Damaged(f"display.{name} must be a plain finite value")
    level = _get(manifest, "level", (int, type(None)), "manifest")
    if isinstance(level, bool) or level is not None and not 0 <= level <= 10_000:
        raise _Damaged(f"level {level!r} is out of range")
    mode = _get(manifest, "mode", str, "manifest")
    if mode not in MODES:
        raise _Damaged(f"mode is {mode[:40]!r}; known: {', '.join(MODES)}")
    selected = _get(manifest, "selected", int, "manifest", -1)
    if not -1 <= selected < len(bodies):
        selected = -1
    camera = manifest.get("camera")
    if camera is not None:
        if not isinstance(camera, dict):
            raise _Damaged("camera must be an object")
        camera = CameraState(
            _vector(camera.get("position"), "camera.position"),
            _vector(camera.get("focal_point"), "camera.focal_point"),
            _vector(camera.get("view_up"), "camera.view_up"),
            _get(camera, "view_angle", float, "camera"),
            _get(camera, "parallel_projection", bool, "camera"),
            _get(camera, "parallel_scale", float, "camera"))
    t = _get(manifest, "t", float, "manifest")
    return Session(
        bodies=tuple(bodies), scene_key=key,
        scene_title=_get(scene, "title", str, "scene"),
        scene_description=_get(scene, "description", str, "scene", ""),
        scene_param_value=_get(scene, "param_value", float, "scene", 0.0),
        is_self_collision=_get(scene, "self_collision", bool, "scene", False),
        t=t, is_playing=_get(manifest, "playing", bool, "manifest", False),
        pipeline=pipeline, display=dict(display), level=level, mode=mode, selected=selected,
        camera=camera, saved_at=_get(manifest, "saved_at", float, "manifest", 0.0))


def _body(entry, load, where: str) -> SessionBody:
    if not isinstance(entry, dict):
        raise _Damaged(f"{where} is not an object")
    name = _get(entry, "name", str, where)
    vertices = _array(load, entry.get("vertices"), f"{where}.vertices", "float64", (None, 3))
    faces = _array(load, entry.get("faces"), f"{where}.faces", "int32", (None, 3))
    source = _array(load, entry.get("source_face_ids"), f"{where}.source_face_ids", "int64",
                    (faces.shape[0],))
    try:
        rest = _mesh(vertices, faces, source, name, f"{where}.vertices")
        original = rest
        if entry.get("original_vertices") is not None:
            loaded = _array(load, entry["original_vertices"], f"{where}.original_vertices",
                            "float64", vertices.shape)
            original = _mesh(loaded, rest.faces, rest.source_face_ids, name,
                             f"{where}.original_vertices")
        pose = np.asarray(entry.get("pose"), dtype=np.float64)
        Pose.from_matrix(pose)
    except (TypeError, ValueError, BVHLabError) as exc:
        raise _Damaged(f"{where}: {str(exc).splitlines()[0]}") from None
    deformer = _get(entry, "deformer", (str, type(None)), where, None)
    params = _get(entry, "deformer_params", dict, where, {})
    if deformer is not None:
        if deformer not in DEFORMERS:
            raise _Damaged(f"{where}: unknown deformer {deformer[:40]!r}; known: "
                           f"{', '.join(DEFORMERS)}")  # fmt: skip
        try:
            made = DEFORMERS[deformer](**params)
        except (TypeError, ValueError) as exc:
            raise _Damaged(f"{where}: deformer {deformer}: {exc}") from None
        params = {f.name: getattr(made, f.name) for f in dataclasses.fields(made)}
    return SessionBody(name, rest, original, pose, _get(entry, "color", str, where, "#0072b2"),
                       _get(entry, "visible", bool, where, True), deformer, params,
                       _get(entry, "sculpted", bool, where, False))


def _mesh(vertices, faces, source, name, where) -> TriMesh:
    if not np.isfinite(vertices).all():
        first = int(np.flatnonzero(~np.isfinite(vertices).all(axis=1))[0])
        raise _Damaged(f"{where} has a coordinate that is not finite (vertex {first})")
    if vertices.size and float(np.abs(vertices).max()) > MAX_ABS_COORDINATE:
        raise _Damaged(f"{where} has a coordinate beyond 2^240")
    return TriMesh(vertices, faces, source, name)
