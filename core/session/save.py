"""Writing a :class:`core.session.model.Session` to a ``.bvhsession`` file: its manifest
(plain JSON) and its arrays (each body's mesh) in the zip container, atomically."""

from __future__ import annotations

import enum
import json
import os
import time
from pathlib import Path

import numpy as np

from core.files.container import Cancel, Progress, app_version, write_container
from core.session.model import (
    FORMAT_NAME,
    FORMAT_VERSION,
    MAX_BODIES,
    Session,
    SessionCancelled,
    SessionFileError,
)


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
