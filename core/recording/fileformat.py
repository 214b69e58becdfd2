"""The ``.bvhrec`` file: a compressed NumPy archive of every array once, plus a JSON manifest.

Layout (a zip that ``numpy.load`` opens like any ``np.savez_compressed`` file):

* ``a0.npy``, ``a1.npy`` ...: every distinct array of every frame, stored once (frames that
  share a mesh's faces or an unchanged tree share the member);
* ``manifest.json``: ``format`` ("bvh-lab recording"), ``version`` (2; 1 is read too,
  :data:`OLDEST_VERSION`), ``app_version``,
  ``n_frames``, ``max_megabytes``, ``max_frames`` and ``frames``, one entry per frame with
  its ``body_keys``, ``update``, ``user_events`` and ``frame``, the JSON tree of the
  :class:`core.pipeline.Frame` (see :mod:`core.recording.codec`).

Reading never unpickles and never trusts a size it has not checked: every array's header is
compared with the bytes the member holds before anything is allocated. The container (zip,
atomic write, damage as one line) is :mod:`core.files.container`, shared with session files.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np

from core.files.container import (
    MANIFEST,
    Cancel,
    Progress,
    app_version,
    open_container,
    printable,
    read_array,
    read_manifest,
    write_container,
)
from core.pipeline import Frame, UpdateMode
from core.recording.codec import CodecError, FrameDecoder, FrameEncoder
from core.recording.events import USER_EVENT_KINDS, EventKind
from core.recording.schema import MAX_BODIES, SchemaError, finite, list_of, positive_count, text
from core.recording.store import MEGABYTE, Recording

FORMAT_NAME = "bvh-lab recording"
FORMAT_VERSION = 2
"""Version 2 (issue 29) stores a frame's ``FrameOptions`` (``self_collision``,
``containment``, ``distance``) as the frame's own ``frame_options`` object; version 1 kept
them as three keys of its ``CollisionRequest``."""

OLDEST_VERSION = 1
"""Oldest version still read: a version-1 request's three frame-option keys become the frame's
``frame_options`` (:class:`core.recording.codec.FrameDecoder`). To be dropped with a version
that changes the layout again."""
SUFFIX = ".bvhrec"

MAX_FRAMES = 10_000
"""Most frames a recording file holds (5.5 minutes at 30 Hz; the app keeps 3000 by default).
Checked on ``n_frames`` before any frame is read, and on saving (the manifest's own caps,
:data:`core.files.container.MAX_MANIFEST_BYTES`, can stop a save of fewer frames first)."""

_ENTRY_KEYS = {"body_keys", "update", "user_events", "frame"}

__all__ = ["MANIFEST", "RecordingCancelled", "RecordingFileError", "open_recording",
           "save_recording"]


class RecordingFileError(ValueError):
    """A recording file that cannot be written or read, in one line naming the file."""


class RecordingCancelled(Exception):
    """The caller's ``cancel()`` said stop; nothing was written (or nothing was opened)."""


def save_recording(recording: Recording, path, progress: Progress | None = None,
                   cancel: Cancel | None = None) -> Path:  # fmt: skip
    """Write ``recording`` to ``path`` (a ``.bvhrec`` file).

    The file is written beside ``path`` under a temporary name and renamed at the end, so a
    failure or a cancel leaves an existing file as it was.

    Parameters
    ----------
    recording : Recording
    path : str or os.PathLike
    progress : callable, optional
        ``progress(done, total)`` after each array (and once at the end).
    cancel : callable, optional
        ``cancel() -> bool``, asked between arrays; True stops with
        :class:`RecordingCancelled`.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    RecordingFileError
        Empty recording, a frame that cannot be encoded, or the file cannot be written.
    RecordingCancelled
    """
    if not isinstance(recording, Recording):
        raise TypeError(f"recording must be a Recording, got {type(recording).__name__}")
    path = Path(os.fspath(path))
    if len(recording) == 0:
        raise RecordingFileError(f"{path}: the recording is empty, nothing to save")
    if len(recording) > MAX_FRAMES:
        raise RecordingFileError(f"{path}: {len(recording):,} frames are too many to save (a "
                                 f"recording file holds at most {MAX_FRAMES:,})")  # fmt: skip
    encoder = FrameEncoder()
    try:
        frames = [{"body_keys": list(recording.body_keys(i)),
                   "update": recording.update_mode(i).name,
                   "user_events": [k.name for k in recording.user_events(i)],
                   "frame": encoder.encode(recording[i])} for i in range(len(recording))]
    except CodecError as exc:
        raise RecordingFileError(f"{path}: {exc}") from None
    manifest = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "app_version": app_version(),
                "n_frames": len(recording), "max_megabytes": recording.max_megabytes,
                "max_frames": recording.max_frames, "frames": frames}
    text = json.dumps(manifest, allow_nan=False, separators=(",", ":"))
    total = len(encoder.arrays) + 1
    write_container(path, encoder.arrays, text, RecordingFileError, RecordingCancelled,
                    progress, cancel)
    if progress is not None:
        progress(total, total)
    return path


def open_recording(path, progress: Progress | None = None,
                   cancel: Cancel | None = None) -> Recording:  # fmt: skip
    """Read a ``.bvhrec`` file back into a :class:`Recording`.

    Parameters
    ----------
    path : str or os.PathLike
    progress : callable, optional
        ``progress(done, total)`` after each frame.
    cancel : callable, optional
        ``cancel() -> bool``, asked between frames; True stops with
        :class:`RecordingCancelled`.

    Returns
    -------
    Recording
        With the caps saved in the file (raised if the frames need more).

    Raises
    ------
    RecordingFileError
        One line naming the file (control characters escaped): missing, not a zip, not a
        recording, another format version (``version`` must be the integer 1 or 2), damaged (CRC,
        truncated, a member missing, an array of the wrong shape, any value against
        :mod:`core.recording.schema`), empty, past a cap (:data:`MAX_FRAMES`, the container's
        caps in :mod:`core.files.container`, :data:`core.recording.schema.MAX_BODIES`).
    RecordingCancelled
    """
    return open_container(path, lambda archive, file: _read(archive, file, progress, cancel),
                          RecordingFileError, "recording")


def _check_manifest(manifest: dict) -> list:
    """The frame list, after the manifest's own keys are checked (SchemaError: words after
    the key)."""
    n_frames = manifest.get("n_frames")
    try:
        positive_count(n_frames)
    except SchemaError as exc:
        raise SchemaError(f"n_frames {exc}") from None
    if n_frames > MAX_FRAMES:
        raise SchemaError(f"n_frames is {n_frames:,} (a recording holds at most "
                          f"{MAX_FRAMES:,} frames)")  # fmt: skip
    frames = manifest.get("frames")
    if not isinstance(frames, list) or n_frames != len(frames):
        raise SchemaError("the frame list does not match n_frames")
    for key, check in (("max_megabytes", finite), ("max_frames", positive_count)):
        if key in manifest:
            try:
                check(manifest[key])
            except SchemaError as exc:
                raise SchemaError(f"{key} {exc}") from None
    if "max_megabytes" in manifest and not manifest["max_megabytes"] > 0:
        raise SchemaError(f"max_megabytes must be > 0, got {manifest['max_megabytes']}")
    return frames


def _entry_facts(entry, where: str):
    """Body keys, update mode and user events of one frame entry (SchemaError if bad)."""
    if not isinstance(entry, dict):
        raise SchemaError("is not an object")
    odd = sorted(set(entry) - _ENTRY_KEYS)
    if odd or "frame" not in entry or "body_keys" not in entry or "update" not in entry:
        raise SchemaError(f"must hold {', '.join(sorted(_ENTRY_KEYS))}")
    keys = entry["body_keys"]
    try:
        list_of(text, MAX_BODIES)(keys)
    except SchemaError as exc:
        raise SchemaError(f"body_keys {exc}") from None
    update = entry["update"]
    if not isinstance(update, str) or update not in UpdateMode.__members__:
        raise SchemaError(f"update must be one of {', '.join(UpdateMode.__members__)}")
    told = entry.get("user_events", [])
    allowed = [k.name for k in USER_EVENT_KINDS]
    if not isinstance(told, list) or len(told) > len(allowed) or any(
            not isinstance(k, str) or k not in allowed for k in told):
        raise SchemaError(f"user_events must list events the app tells ({', '.join(allowed)})")
    return keys, UpdateMode[update], tuple(EventKind[k] for k in told)


def _read(archive: zipfile.ZipFile, path: Path, progress, cancel) -> Recording:
    name = printable(str(path))
    names = set(archive.namelist())
    manifest = read_manifest(archive, path, FORMAT_NAME, FORMAT_VERSION, RecordingFileError,
                             "recording", oldest=OLDEST_VERSION)
    if not manifest.get("frames") and manifest.get("n_frames") == 0:
        raise RecordingFileError(f"{name}: the recording is empty (no frames)")
    try:
        frames = _check_manifest(manifest)
    except SchemaError as exc:
        raise RecordingFileError(f"{name}: damaged file ({printable(str(exc))})") from None

    loaded: dict[str, np.ndarray] = {}

    def load_array(member_name: str) -> np.ndarray:
        if member_name not in loaded:
            member = member_name + ".npy"
            if member not in names:
                raise KeyError(member_name)
            try:
                loaded[member_name] = read_array(archive, member)
            except ValueError as exc:
                raise CodecError(f"array member {member!r}: {exc}") from None
        return loaded[member_name]

    decoder = FrameDecoder(load_array, request_holds_frame_options=manifest["version"] == 1)
    # Caps wide enough for every frame while reading; the file's own caps are put back after
    # (raised to what the frames hold: a view saved as an array of its own counts apart).
    recording = Recording(max_megabytes=1e12, max_frames=len(frames))
    for i, entry in enumerate(frames):
        if cancel is not None and cancel():
            raise RecordingCancelled(f"opening {name} was cancelled")
        where = f"frame {i}"
        try:
            keys, update, told = _entry_facts(entry, where)
            frame = decoder.decode(entry["frame"], where)
            if not isinstance(frame, Frame):
                raise CodecError(f"{where}: not a Frame")
            recording.append(frame, keys, update, told)
        except SchemaError as exc:
            raise RecordingFileError(f"{name}: damaged file ({where} "
                                     f"{printable(str(exc))})") from None  # fmt: skip
        except CodecError as exc:
            raise RecordingFileError(f"{name}: damaged file ({printable(str(exc))})") from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise RecordingFileError(f"{name}: damaged file ({where}: "
                                     f"{printable(str(exc))})") from None  # fmt: skip
        if progress is not None:
            progress(i + 1, len(frames))
    saved_mb = float(manifest.get("max_megabytes", 512.0))
    saved_frames = int(manifest.get("max_frames", 3000))
    recording.set_limits(max(saved_mb, (recording.nbytes + 1) / MEGABYTE * (1 + 1e-9)),
                         max(saved_frames, len(recording)))
    return recording
