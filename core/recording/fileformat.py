"""The ``.bvhrec`` file: a compressed NumPy archive of every array once, plus a JSON manifest.

Layout (a zip that ``numpy.load`` opens like any ``np.savez_compressed`` file):

* ``a0.npy``, ``a1.npy`` ...: every distinct array of every frame, stored once (frames that
  share a mesh's faces or an unchanged tree share the member);
* ``manifest.json``: ``format`` ("bvh-lab recording"), ``version`` (1), ``app_version``,
  ``n_frames``, ``max_megabytes``, ``max_frames`` and ``frames``, one entry per frame with
  its ``body_keys``, ``update``, ``user_events`` and ``frame``, the JSON tree of the
  :class:`core.pipeline.Frame` (see :mod:`core.recording.codec`).

Reading never unpickles and never trusts a size it has not checked: every array's header is
compared with the bytes the member holds before anything is allocated.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from core.pipeline import UpdateMode
from core.recording.codec import CodecError, FrameDecoder, FrameEncoder
from core.recording.events import USER_EVENT_KINDS, EventKind
from core.recording.store import MEGABYTE, Recording

FORMAT_NAME = "bvh-lab recording"
FORMAT_VERSION = 1
SUFFIX = ".bvhrec"
MANIFEST = "manifest.json"

Progress = Callable[[int, int], None]
Cancel = Callable[[], bool]


class RecordingFileError(ValueError):
    """A recording file that cannot be written or read, in one line naming the file."""


class RecordingCancelled(Exception):
    """The caller's ``cancel()`` said stop; nothing was written (or nothing was opened)."""


def _app_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bvh-lab")
    except PackageNotFoundError:
        return "unknown"


def _read_umask() -> int:
    """The process's file-creation mask (reading it means setting it, so set it back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once at import: ``os.umask`` is process-wide, and saving runs in a worker thread.
_UMASK = _read_umask()


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
    manifest = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "app_version": _app_version(),
                "n_frames": len(recording), "max_megabytes": recording.max_megabytes,
                "max_frames": recording.max_frames, "frames": frames}
    text = json.dumps(manifest, allow_nan=False, separators=(",", ":"))
    total = len(encoder.arrays) + 1
    temp = None
    try:
        fd, temp = tempfile.mkstemp(prefix=path.name + ".", suffix=".part", dir=path.parent)
        with os.fdopen(fd, "wb") as raw, zipfile.ZipFile(
                raw, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
            for done, (name, array) in enumerate(encoder.arrays.items()):
                if cancel is not None and cancel():
                    raise RecordingCancelled(f"saving {path} was cancelled")
                with archive.open(name + ".npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)
                if progress is not None:
                    progress(done + 1, total)
            archive.writestr(MANIFEST, text)
        # mkstemp creates the file readable by its owner only; a saved recording gets the
        # permissions any new file of the user gets (0o666 less the umask).
        os.chmod(temp, 0o666 & ~_UMASK)
        os.replace(temp, path)
        temp = None
    except OSError as exc:
        raise RecordingFileError(f"{path}: cannot write: {exc.strerror or exc}") from None
    finally:
        if temp is not None:
            Path(temp).unlink(missing_ok=True)
    if progress is not None:
        progress(total, total)
    return path


def _read_array(archive: zipfile.ZipFile, member: str) -> np.ndarray:
    """One ``.npy`` member as a read-only array, its header checked against its size."""
    data = archive.read(member)  # checks the CRC
    stream = io.BytesIO(data)
    version = np.lib.format.read_magic(stream)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
    elif version in ((2, 0), (3, 0)):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
    else:
        raise ValueError(f"unknown .npy version {version}")
    if dtype.hasobject:
        raise ValueError("holds Python objects (refused: a recording holds numbers only)")
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    offset = stream.tell()
    if count * dtype.itemsize != len(data) - offset:
        raise ValueError(f"declares shape {shape} but holds {len(data) - offset} bytes")
    array = np.frombuffer(data, dtype=dtype, count=count, offset=offset)
    return array.reshape(shape, order="F" if fortran else "C")  # read-only: over bytes


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
    path = Path(os.fspath(path))
    if not path.is_file():
        why = "no such file" if not path.exists() else "not a regular file"
        raise RecordingFileError(f"{path}: {why}")
    try:
        with zipfile.ZipFile(path) as archive:
            return _read(archive, path, progress, cancel)
    except zipfile.BadZipFile as exc:
        if "CRC" in str(exc) or "Bad magic" in str(exc) or "Truncated" in str(exc):
            raise RecordingFileError(f"{path}: damaged file ({exc})") from None
        if _starts_like_a_zip(path):
            # A zip's directory is at its end: a cut-off archive still starts with a member.
            raise RecordingFileError(f"{path}: damaged file (truncated: the archive's "
                                     f"directory at its end is missing)") from None
        raise RecordingFileError(f"{path}: not a recording (not a zip archive)") from None
    except (zlib.error, EOFError) as exc:
        raise RecordingFileError(f"{path}: damaged file ({exc or 'truncated'})") from None
    except MemoryError:
        raise RecordingFileError(f"{path}: too large to open in this machine's memory") from None
    except RecursionError:
        raise RecordingFileError(f"{path}: damaged file ({MANIFEST} nests too deeply)") from None
    except OSError as exc:
        raise RecordingFileError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _starts_like_a_zip(path: Path) -> bool:
    try:
        with open(path, "rb") as stream:
            return stream.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def _read(archive: zipfile.ZipFile, path: Path, progress, cancel) -> Recording:
    names = set(archive.namelist())
    if MANIFEST not in names:
        raise RecordingFileError(f"{path}: not a recording (no {MANIFEST} in the archive)")
    try:
        manifest = json.loads(archive.read(MANIFEST).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecordingFileError(f"{path}: damaged file ({MANIFEST} is not valid JSON: "
                                 f"{str(exc).splitlines()[0]})") from None  # fmt: skip
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise RecordingFileError(f"{path}: not a recording ({MANIFEST} does not name the "
                                 f"{FORMAT_NAME!r} format)")  # fmt: skip
    version = manifest.get("version")
    if version != FORMAT_VERSION:
        made_by = manifest.get("app_version", "an unknown version")
        raise RecordingFileError(f"{path}: made by format version {version} (bvh-lab "
                                 f"{made_by}); this app reads version {FORMAT_VERSION}")
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
                loaded[name] = _read_array(archive, member)
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
