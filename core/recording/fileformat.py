"""The ``.bvhrec`` file: a compressed NumPy archive of every array once, plus a JSON manifest.

Layout (a zip that ``numpy.load`` opens like any ``np.savez_compressed`` file):

* ``a0.npy``, ``a1.npy`` ...: every distinct array of every frame, stored once (frames that
  share a mesh's faces or an unchanged tree share the member);
* ``manifest.json``: ``format`` ("bvh-lab recording"), ``version`` (1), ``app_version``,
  ``n_frames``, ``max_megabytes``, ``max_frames`` and ``frames``, one entry per frame with
  its ``body_keys``, ``update``, ``user_events`` and ``frame``, the JSON tree of the
  :class:`core.pipeline.Frame` (see :mod:`core.recording.codec`).

Reading never unpickles and never trusts a size it has not checked: every array's header is
compared with the bytes the member holds before anything is allocated. The container (zip,
atomic write, damage as one line) is :mod:`core.container`, shared with session files.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np

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
from core.pipeline import UpdateMode
from core.recording.codec import CodecError, FrameDecoder, FrameEncoder
from core.recording.events import USER_EVENT_KINDS, EventKind
from core.recording.store import MEGABYTE, Recording

FORMAT_NAME = "bvh-lab recording"
FORMAT_VERSION = 1
SUFFIX = ".bvhrec"

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
        One line naming the file: missing, not a zip, not a recording, another format
        version, damaged (CRC, truncated, a member missing, an array of the wrong shape),
        empty.
    RecordingCancelled
    """
    return open_container(path, lambda archive, file: _read(archive, file, progress, cancel),
                          RecordingFileError, "recording")


def _read(archive: zipfile.ZipFile, path: Path, progress, cancel) -> Recording:
    names = set(archive.namelist())
    manifest = read_manifest(archive, path, FORMAT_NAME, FORMAT_VERSION, RecordingFileError,
                             "recording")
    frames = manifest.get("frames")
    if not isinstance(frames, list) or manifest.get("n_frames") != len(frames):
        raise RecordingFileError(f"{path}: damaged file (the frame list does not match "
                                 f"n_frames)")  # fmt: skip
    if not frames:
        raise RecordingFileError(f"{path}: the recording is empty (no frames)")

    loaded: dict[str, np.ndarray] = {}

    def load_array(name: str) -> np.ndarray:
        if name not in loaded:
            member = name + ".npy"
            if member not in names:
                raise KeyError(name)
            try:
                loaded[name] = read_array(archive, member)
            except ValueError as exc:
                raise CodecError(f"array member {member}: {exc}") from None
        return loaded[name]

    decoder = FrameDecoder(load_array)
    # Caps wide enough for every frame while reading; the file's own caps are put back after
    # (raised to what the frames hold: a view saved as an array of its own counts apart).
    recording = Recording(max_megabytes=1e12, max_frames=len(frames))
    for i, entry in enumerate(frames):
        if cancel is not None and cancel():
            raise RecordingCancelled(f"opening {path} was cancelled")
        where = f"frame {i}"
        try:
            if not isinstance(entry, dict):
                raise CodecError(f"{where}: not an object")
            frame = decoder.decode(entry.get("frame"), where)
            update = UpdateMode[entry.get("update")]
            told = tuple(EventKind[k] for k in entry.get("user_events", []))
            if any(k not in USER_EVENT_KINDS for k in told):
                raise CodecError(f"{where}: user_events holds an event the app does not tell")
            keys = entry.get("body_keys")
            if not isinstance(keys, list):
                raise CodecError(f"{where}: body_keys must be a list")
            recording.append(frame, keys, update, told)
        except CodecError as exc:
            raise RecordingFileError(f"{path}: damaged file ({exc})") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordingFileError(f"{path}: damaged file ({where}: {exc})") from None
        if progress is not None:
            progress(i + 1, len(frames))
    try:
        saved_mb = float(manifest.get("max_megabytes", 512.0))
        saved_frames = int(manifest.get("max_frames", 3000))
    except (TypeError, ValueError):
        saved_mb, saved_frames = 512.0, 3000
    if not (saved_mb > 0 and np.isfinite(saved_mb)):
        saved_mb = 512.0
    recording.set_limits(max(saved_mb, (recording.nbytes + 1) / MEGABYTE * (1 + 1e-9)),
                         max(saved_frames, len(recording)))
    return recording
