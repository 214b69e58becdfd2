"""The ``.bvhsession`` file: a whole scene as the user left it, to be opened again.

The same container as a recording (:mod:`core.files.container`: a zip that ``numpy.load`` opens,
one ``.npy`` member per array, ``manifest.json``), with its own manifest, format
``"bvh-lab session"`` version 1. The arrays are each body's mesh (rest vertices after
sculpting, faces, the source face ids and, when they differ, the vertices as loaded); the
manifest holds everything else as plain JSON: the scene, the poses, colours, visibility,
deformers and their settings, the time, the pipeline and display choices, the traversal level,
the mode and the camera (see docs/app.md, "Sessions", and docs/file-formats.md).

Reading never unpickles and checks everything before it is used: every array's dtype and
shape, finite coordinates within :data:`core.mesh.MAX_ABS_COORDINATE`, face indices in range,
poses that are a rotation, a positive scale and a translation, deformers and their settings
against the registry, and every choice of the pipeline against the core's enums and
registries. Declared sizes are compared with limits before anything is decompressed. Any
problem is one :class:`SessionFileError` line naming the file.

The manifest is checked against a schema before anything reaches the caller: every value's
type (``version`` the exact integer 1, not ``1.0`` or ``true``; a number is never a bool or a
string), finiteness and range (the ``MAX_...`` constants below, listed in docs/file-formats.md's
"Sessions"): at most :data:`MAX_BODIES` bodies, poses with a bounded scale and translation,
``#rrggbb`` colours, deformer settings within the registry's slider ranges, cameras that look
somewhere, margins and opacities the app's controls can set, and text of bounded length.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import os
import re
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.bv import BV_KINDS, ObbFit
from core.bvh import SplitRule
from core.collide import DescendRule
from core.deform import DEFORMERS
from core.errors import BVHLabError
from core.files.container import (
    MANIFEST,
    Cancel,
    Progress,
    app_version,
    open_container,
    read_array,
    read_manifest,
    write_container,
)
from core.mesh import MAX_ABS_COORDINATE, TriMesh
from core.partition import PARTITION_KINDS
from core.pipeline import UpdateMode
from core.pose import Pose
from core.text import printable

FORMAT_NAME = "bvh-lab session"
FORMAT_VERSION = 1
SUFFIX = ".bvhsession"

MAX_MANIFEST_BYTES = 16 * 2**20
"""Largest ``manifest.json`` read (16 MiB). A session's manifest holds no mesh data: a few
kilobytes for tens of bodies; a bigger one is refused before it is decompressed."""

MAX_ARRAY_BYTES = 4 * 2**30
"""Largest total of the arrays a session may declare (4 GiB): two 5-million-triangle meshes
(the app's limit per mesh) with their loaded copies hold about 1.2 GB."""

MAX_BODIES = 64
"""Most bodies in a session. Each body is a tree refitted every frame, a row in the Scene
dock and its own actors on the canvas; the built-in scenes have two or three. 10,000 tiny
bodies in a 15 kB file froze the window for minutes."""

MAX_TEXT_CHARS = 4000
"""Longest text value (a name, a title, a description, a colour, a choice)."""

MAX_MARGIN = 10.0
"""Largest near-contact margin (the Pipeline dock's range is 0 to 10)."""

MAX_DRIFT_THRESHOLD = 5.0
"""Largest drift threshold of the auto update (the Pipeline dock's range is 0 to 5)."""

MAX_SAVED_AT = 1e11
"""Latest save time a session may claim (seconds since 1970: the year 5138)."""

MAX_ABS_TIME = 1e6
"""Largest animation time in seconds (11 days of play)."""

MAX_ABS_CAMERA = 1e9
"""Largest camera coordinate and parallel scale (world units)."""

POSE_SCALES = (1e-6, 1e6)
"""Smallest and largest uniform scale of a body's pose."""

MAX_ABS_TRANSLATION = 1e9
"""Largest translation of a body's pose (world units)."""

VIEW_ANGLES = (1.0, 170.0)
"""Range of the camera's view angle in degrees (as a lesson's camera)."""

DISPLAY_RANGES = {"mesh_opacity": (0.0, 1.0), "box_cap": (0, 1_000_000)}
"""Display values with a range: the meshes' opacity, the boxes drawn per overlay."""

DISPLAY_WORDS = {"heat_map": ("off", "work", "visits", "sah")}
"""Display values that are one of a few words (``viewer.render.heat.HEAT_MODES``)."""

_COLOR = re.compile(r"#[0-9a-fA-F]{6}")

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
    """A session file that cannot be written or read, in one line naming the file.

    Control characters in the message (from the file or its name) are escapes."""

    def __init__(self, message: str = "") -> None:
        super().__init__(printable(str(message)))


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
        No bodies or more than :data:`MAX_BODIES`, a value that is not plain data, or the
        file cannot be written.
    SessionCancelled
    """
    path = Path(os.fspath(path))
    if not session.bodies:
        raise SessionFileError(f"{path}: the scene has no bodies, nothing to save")
    if len(session.bodies) > MAX_BODIES:  # it could not be opened again
        raise SessionFileError(f"{path}: the scene has {len(session.bodies)} bodies; a session "
                               f"holds at most {MAX_BODIES}")
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
    try:
        manifest = read_manifest(archive, path, FORMAT_NAME, FORMAT_VERSION, SessionFileError,
                                 "session")
    except SessionFileError:
        raise
    except ValueError as exc:  # an integer of more digits than Python converts (4300)
        reason = str(exc).split(";")[0].strip()
        raise SessionFileError(f"{path}: damaged file ({MANIFEST}: {reason})") from None
    version = manifest.get("version")
    if type(version) is not int:  # 1.0 and true equal 1 in Python, and are not version 1
        raise SessionFileError(f"{path}: damaged file (version is {_quoted(version)}, not the "
                               f"whole number {FORMAT_VERSION})")
    return manifest


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
        if len(bodies) > MAX_BODIES:
            raise SessionFileError(f"{file}: {len(bodies):,} bodies; a session holds at most "
                                   f"{MAX_BODIES}")
        scene = manifest.get("scene") if isinstance(manifest.get("scene"), dict) else {}
        title = scene.get("title")
        saved_at = manifest.get("saved_at")
        if not (isinstance(saved_at, float) and 0 <= saved_at <= MAX_SAVED_AT):
            saved_at = 0.0
        return SessionSummary(title[:200] if isinstance(title, str) else "", len(bodies),
                              sum(1 for b in bodies if isinstance(b, dict) and b.get("sculpted")
                                  is True), saved_at)

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
        try:
            value = float(value)
        except OverflowError:
            raise _Damaged(f"{where}.{key} is beyond the range of a float") from None
    if not isinstance(value, kinds) or (kinds is not bool and isinstance(value, bool)):
        raise _Damaged(f"{where}.{key} has the wrong type ({type(value).__name__})")
    if isinstance(value, float) and not math.isfinite(value):
        raise _Damaged(f"{where}.{key} is not finite")
    if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
        raise _Damaged(f"{where}.{key} is {len(value):,} characters long; at most "
                       f"{MAX_TEXT_CHARS:,}")
    return value


def _in_range(value, lo, hi, what: str):
    """``value`` if ``lo <= value <= hi``, else :class:`_Damaged` naming ``what``."""
    if not lo <= value <= hi:
        raise _Damaged(f"{what} is {_quoted(value)}, outside {lo:g} to {hi:g}")
    return value


def _quoted(value) -> str:
    """A value of the file for a message: escaped, at most 40 characters."""
    if isinstance(value, (list, dict)) and len(value) > 8:
        return f"a {type(value).__name__} of {len(value):,} items"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return f"a {len(str(abs(value)))}-digit number"
    try:
        text = printable(repr(value[:40] if isinstance(value, str) else value))
    except (RecursionError, ValueError):
        return f"a nested {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


def _plain_value(value) -> bool:
    """A bool, a finite number or a short string: what ``pipeline`` and ``display`` hold."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int):
        return abs(value) <= 2**53
    return isinstance(value, str) and len(value) <= MAX_TEXT_CHARS


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
            isinstance(x, (int, float)) and not isinstance(x, bool) and _plain_value(x)
            and abs(x) <= MAX_ABS_CAMERA for x in values):
        raise _Damaged(f"{where} must be three finite numbers within {MAX_ABS_CAMERA:g}")
    return tuple(float(x) for x in values)


def _session(manifest: dict, load, progress) -> Session:
    scene = _get(manifest, "scene", dict, "manifest")
    key = _get(scene, "key", (str, type(None)), "scene")
    entries = _get(manifest, "bodies", list, "manifest")
    if not entries:
        raise _Damaged("the session holds no bodies")
    if len(entries) > MAX_BODIES:
        raise _Damaged(f"{len(entries):,} bodies; a session holds at most {MAX_BODIES}")
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
    for name, highest in (("margin", MAX_MARGIN), ("drift_threshold", MAX_DRIFT_THRESHOLD)):
        value = _get(pipeline, name, float, "pipeline")
        if not 0.0 <= value <= highest:
            raise _Damaged(f"pipeline.{name} is {value!r}, out of range (0 to {highest:g})")
        pipeline[name] = value
    for name, value in pipeline.items():
        if not _plain_value(value):
            raise _Damaged(f"pipeline.{printable(name[:40])} must be a plain finite value")
    display = _get(manifest, "display", dict, "manifest")
    for name, value in display.items():
        if not _plain_value(value):
            raise _Damaged(f"display.{printable(name[:40])} must be a plain finite value")
        if name in DISPLAY_RANGES:
            if isinstance(value, (bool, str)):
                raise _Damaged(f"display.{name} must be a number")
            _in_range(value, *DISPLAY_RANGES[name], f"display.{name}")
        if name in DISPLAY_WORDS and value not in DISPLAY_WORDS[name]:
            raise _Damaged(f"display.{name} is {_quoted(value)}; known: "
                           f"{', '.join(DISPLAY_WORDS[name])}")
    level = _get(manifest, "level", (int, type(None)), "manifest")
    if isinstance(level, bool) or level is not None and not 0 <= level <= 10_000:
        raise _Damaged(f"level {level!r} is out of range")
    mode = _get(manifest, "mode", str, "manifest")
    if mode not in MODES:
        raise _Damaged(f"mode is {mode[:40]!r}; known: {', '.join(MODES)}")
    selected = _get(manifest, "selected", int, "manifest", -1)
    if not -1 <= selected < len(bodies):
        raise _Damaged(f"selected is {_quoted(selected)}; the session has {len(bodies)} bodies")
    camera = manifest.get("camera")
    if camera is not None:
        camera = _camera(camera)
    t = _in_range(_get(manifest, "t", float, "manifest"), -MAX_ABS_TIME, MAX_ABS_TIME, "t")
    return Session(
        bodies=tuple(bodies), scene_key=key,
        scene_title=_get(scene, "title", str, "scene"),
        scene_description=_get(scene, "description", str, "scene", ""),
        scene_param_value=_in_range(_get(scene, "param_value", float, "scene", 0.0),
                                    -MAX_ABS_CAMERA, MAX_ABS_CAMERA, "scene.param_value"),
        is_self_collision=_get(scene, "self_collision", bool, "scene", False),
        t=t, is_playing=_get(manifest, "playing", bool, "manifest", False),
        pipeline=pipeline, display=dict(display), level=level, mode=mode, selected=selected,
        camera=camera, saved_at=_in_range(_get(manifest, "saved_at", float, "manifest", 0.0),
                                          0.0, MAX_SAVED_AT, "saved_at"))


def _camera(camera) -> CameraState:
    if not isinstance(camera, dict):
        raise _Damaged("camera must be an object")
    position = _vector(camera.get("position"), "camera.position")
    focal = _vector(camera.get("focal_point"), "camera.focal_point")
    up = _vector(camera.get("view_up"), "camera.view_up")
    if position == focal:
        raise _Damaged("camera.position is its focal point: it looks nowhere")
    if not any(up):
        raise _Damaged("camera.view_up is the zero vector")
    return CameraState(
        position, focal, up,
        _in_range(_get(camera, "view_angle", float, "camera"), *VIEW_ANGLES,
                  "camera.view_angle"),
        _get(camera, "parallel_projection", bool, "camera"),
        _in_range(_get(camera, "parallel_scale", float, "camera"), 1e-9, MAX_ABS_CAMERA,
                  "camera.parallel_scale"))


def _body(entry, load, where: str) -> SessionBody:
    if not isinstance(entry, dict):
        raise _Damaged(f"{where} is not an object")
    name = _get(entry, "name", str, where)
    color = _get(entry, "color", str, where, "#0072b2")
    if not _COLOR.fullmatch(color):
        raise _Damaged(f"{where}.color is {_quoted(color)}, not a colour #rrggbb")
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
        checked = Pose.from_matrix(pose)
    except (TypeError, ValueError, OverflowError, BVHLabError) as exc:
        raise _Damaged(f"{where}: {str(exc).splitlines()[0][:200]}") from None
    _in_range(checked.scale, *POSE_SCALES, f"{where}.pose's scale")
    _in_range(float(np.abs(checked.translation).max()), 0.0, MAX_ABS_TRANSLATION,
              f"{where}.pose's translation")
    deformer = _get(entry, "deformer", (str, type(None)), where, None)
    params = _get(entry, "deformer_params", dict, where, {})
    if deformer is not None:
        if deformer not in DEFORMERS:
            raise _Damaged(f"{where}: unknown deformer {deformer[:40]!r}; known: "
                           f"{', '.join(DEFORMERS)}")  # fmt: skip
        _deformer_ranges(DEFORMERS[deformer], params, f"{where}: deformer {deformer}")
        try:
            made = DEFORMERS[deformer](**params)
        except (TypeError, ValueError, OverflowError) as exc:
            raise _Damaged(f"{where}: deformer {deformer}: {str(exc)[:200]}") from None
        params = {f.name: getattr(made, f.name) for f in dataclasses.fields(made)}
    elif params:
        raise _Damaged(f"{where} has deformer settings but no deformer")
    return SessionBody(name, rest, original, pose, color,
                       _get(entry, "visible", bool, where, True), deformer, params,
                       _get(entry, "sculpted", bool, where, False))


def _deformer_ranges(cls, params: dict, where: str) -> None:
    """Each numeric setting a JSON number within its slider's range (``Deformer.params()``);
    enum settings are checked by the deformer itself."""
    known = [spec.name for spec in cls.params()]
    for name in params:
        if name not in known:
            raise _Damaged(f"{where}: unknown setting {_quoted(name)}; known: {', '.join(known)}")
    for spec in cls.params():
        if spec.name not in params or spec.choices:
            continue
        value = params[spec.name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _plain_value(
                value):
            raise _Damaged(f"{where}: {spec.name} is {_quoted(value)}, not a finite number")
        if spec.min is not None and spec.max is not None:
            _in_range(value, spec.min, spec.max, f"{where}: {spec.name}")


def _mesh(vertices, faces, source, name, where) -> TriMesh:
    if not np.isfinite(vertices).all():
        first = int(np.flatnonzero(~np.isfinite(vertices).all(axis=1))[0])
        raise _Damaged(f"{where} has a coordinate that is not finite (vertex {first})")
    if vertices.size and float(np.abs(vertices).max()) > MAX_ABS_COORDINATE:
        raise _Damaged(f"{where} has a coordinate beyond 2^240")
    return TriMesh(vertices, faces, source, name)
