"""Reading a ``.bvhsession`` file: :func:`peek_session` (the manifest alone) and
:func:`open_session`, which checks every value of the manifest against the schema and every
array's dtype, shape and range before a :class:`core.session.model.Session` is made.

Any problem is one :class:`core.session.model.SessionFileError` line naming the file."""

from __future__ import annotations

import dataclasses
import math
import re
import zipfile
from pathlib import Path

import numpy as np

from core.deform import DEFORMERS
from core.errors import BVHLabError
from core.files.container import (
    MANIFEST,
    Progress,
    open_container,
    read_array,
    read_manifest,
)
from core.mesh import MAX_ABS_COORDINATE, TriMesh
from core.pose import Pose
from core.session.model import (
    DISPLAY_RANGES,
    DISPLAY_WORDS,
    FORMAT_NAME,
    FORMAT_VERSION,
    MAX_ABS_CAMERA,
    MAX_ABS_TIME,
    MAX_ABS_TRANSLATION,
    MAX_ARRAY_BYTES,
    MAX_BODIES,
    MAX_DRIFT_THRESHOLD,
    MAX_MANIFEST_BYTES,
    MAX_MARGIN,
    MAX_SAVED_AT,
    MAX_TEXT_CHARS,
    MODES,
    PIPELINE_CHOICES,
    POSE_SCALES,
    VIEW_ANGLES,
    CameraState,
    Session,
    SessionBody,
    SessionFileError,
    SessionSummary,
)
from core.text import printable

_COLOR = re.compile(r"#[0-9a-fA-F]{6}")


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
