"""What every format reader shares: file checks, the size limit, number grammars, assembly.

A reader gets the file's bytes only after :func:`read_regular_file` has made sure the path is
a regular file (not a FIFO, device or directory, which could block or never end) no larger
than the size limit, and reads at most that many bytes. Readers return
``(points, offsets, corners)``; :func:`assemble` checks them and builds the
:class:`~core.mesh.TriMesh`. Every problem raises a :class:`~core.errors.MeshFileError`
subclass (or a counted vertex or face error with the file name in front) whose message is
one line.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

import numpy as np

from core.errors import (
    CorruptMeshFileError,
    FaceIndexError,
    MeshError,
    MeshFileError,
    NonFiniteVertexError,
    NoTrianglesError,
)
from core.mesh import MAX_ABS_COORDINATE, TriMesh

MAX_FILE_BYTES = 2 * 2**30
"""Largest file :func:`~core.io.load_mesh` reads by default (2 GiB); ``max_bytes=`` overrides.

The text parsers hold the file and its tokens in memory (about 10x the file size for OBJ), so
2 GiB is near what a 24 GiB machine reads beside the app. Checked with ``os.stat`` before
opening and enforced while reading, so a file that grows (or ``/dev/zero`` behind a link,
refused anyway as not a regular file) never reads past it."""

# The coordinate bound is the engine's, one constant for the loader and the queries: see
# core.mesh.MAX_ABS_COORDINATE (products of coordinates overflow near 2**256; measured wrong
# from 2**256 for min_distance and 2**260 for contacts on a sphere scaled with its pose).

UTF8_BOM = b"\xef\xbb\xbf"

_READ_CHUNK = 1 << 24

# Numbers as OBJ, OFF, PLY (ASCII) and STL files write them: optional sign, digits with an
# optional fraction ("1.", ".5" allowed), optional exponent. C's printf writes NaN and
# infinity as "nan" and "inf", so those words pass the grammar and the loader then refuses
# them as non-finite vertices, by count and index. Python's float() and numpy also take
# "1_0" (as 10) and surrounding whitespace, which no mesh format allows.
FLOAT_TOKEN = re.compile(
    rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?i:nan|inf(?:inity)?)"
)
INT_TOKEN = re.compile(rb"[+-]?\d+")
_FLOATS = re.compile(rb"(?:%s)(?: (?:%s))*" % (FLOAT_TOKEN.pattern, FLOAT_TOKEN.pattern))
_INTS = re.compile(rb"(?:%s)(?: (?:%s))*" % (INT_TOKEN.pattern, INT_TOKEN.pattern))

# Face indices and counts beyond this are refused before any conversion: int64 holds 19
# digits, and no file can hold 10**18 vertices.
MAX_INT_DIGITS = 18


def check_regular_file(file: Path, max_bytes: int, what: str = "mesh file",
                       error: Callable[[Path, str], Exception] = MeshFileError,
                       too_large: Callable[[int], str] | None = None) -> int:  # fmt: skip
    """Refuse anything that is not a regular file of at most ``max_bytes``; return its size.

    ``os.stat`` follows symbolic links, so a link to ``/dev/zero`` or a FIFO is judged by
    what it points to. Nothing is opened here: opening a FIFO for reading blocks until a
    writer appears.

    Parameters
    ----------
    file : Path
    max_bytes : int
    what : str
        What the file should be, for the messages (``"mesh file"``, ``"tree file"``).
    error : callable
        The error raised, made as ``error(file, reason)``: :class:`MeshFileError`, or the
        tree files' error.
    too_large : callable, optional
        ``size -> reason`` for a file over ``max_bytes`` (default: load_mesh's words).
    """
    try:
        info = os.stat(file)
    except FileNotFoundError:
        raise error(file, "no such file") from None
    except OSError as exc:
        raise error(file, f"cannot be read ({exc.strerror or exc})") from None
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise error(file, f"is a directory, not a {what}")
    if not stat.S_ISREG(mode):
        raise error(file, f"is a {_file_kind(mode)}, not a regular {what}")
    if info.st_size > max_bytes:
        reason = too_large(info.st_size) if too_large else _too_large(info.st_size, max_bytes)
        raise error(file, reason)
    return info.st_size


def read_regular_file(file: Path, max_bytes: int, head: int | None = None) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``, read with that bound.

    With ``head``, only the first ``head`` bytes are read (the file is still checked).

    The file is opened with ``O_NONBLOCK`` and checked again with ``fstat`` on the open
    descriptor: if the path was swapped for a FIFO or device between the ``stat`` and the
    ``open``, the open returns at once and the check refuses it.
    """
    check_regular_file(file, max_bytes)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(file, flags)
    except OSError as exc:
        raise MeshFileError(file, f"cannot be read ({exc.strerror or exc})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise MeshFileError(file, "changed into a non-regular file while being opened")
        chunks, total = [], 0
        want = max_bytes + 1 if head is None else min(head, max_bytes + 1)
        while total < want:
            try:
                chunk = os.read(fd, min(_READ_CHUNK, want - total))
            except OSError as exc:
                raise MeshFileError(file, f"cannot be read ({exc.strerror or exc})") from None
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise MeshFileError(file, _too_large(total, max_bytes, "at least "))
    finally:
        os.close(fd)
    return b"".join(chunks)


def _file_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def _too_large(size: int, max_bytes: int, prefix: str = "") -> str:
    return (
        f"the file is {prefix}{size / 2**20:,.1f} MiB; the limit is "
        f"{max_bytes / 2**20:,.1f} MiB (load_mesh's max_bytes)"
    )


def strip_bom(data: bytes) -> bytes:
    """``data`` without a leading UTF-8 byte order mark (Windows editors write one)."""
    return data[len(UTF8_BOM) :] if data.startswith(UTF8_BOM) else data


# ---------------------------------------------------------------------------------------------
# Numbers


def parse_floats(file: Path, tokens: list[bytes], what: str) -> np.ndarray:
    """Tokens that must all be decimal numbers, as ``(len(tokens),) float64``.

    The grammar check runs once over the joined tokens (one C-level regex match); only when
    it fails are the tokens walked to name the first bad one.
    """
    if tokens and not _FLOATS.fullmatch(b" ".join(tokens)):
        bad = next(t for t in tokens if not FLOAT_TOKEN.fullmatch(t))
        raise CorruptMeshFileError(file, f"{what}: {_show(bad)} is not a number")
    return np.array(tokens, dtype=np.float64) if tokens else np.zeros(0)


def parse_ints(file: Path, tokens: list[bytes], what: str) -> np.ndarray:
    """Tokens that must all be integers of at most 18 digits, as ``(len(tokens),) int64``."""
    joined = b" ".join(tokens)
    too_long = any(len(t) > MAX_INT_DIGITS for t in tokens)
    if tokens and (too_long or not _INTS.fullmatch(joined)):
        for t in tokens:
            check_int(file, t, what)
    return np.array(tokens, dtype=np.int64) if tokens else np.zeros(0, dtype=np.int64)


def check_int(file: Path, token: bytes, what: str) -> int:
    """One integer token, or a one-line error saying why it is not one."""
    if not INT_TOKEN.fullmatch(token):
        if FLOAT_TOKEN.fullmatch(token):
            raise CorruptMeshFileError(file, f"{what}: {_show(token)} is not a whole number")
        raise CorruptMeshFileError(file, f"{what}: {_show(token)} is not a number")
    if len(token.lstrip(b"+-")) > MAX_INT_DIGITS:
        raise CorruptMeshFileError(
            file, f"{what}: {_show(token)} is too large (more than {MAX_INT_DIGITS} digits)"
        )
    return int(token)


def _show(token: bytes, limit: int = 24) -> str:
    """A token for a message: printable, quoted, shortened."""
    text = token.decode("latin-1")
    text = "".join(c if c.isprintable() else "?" for c in text)
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def integral_indices(file: Path, values: np.ndarray, what: str) -> np.ndarray:
    """Float-typed indices (a PLY list declared ``float``) as int64, if all are whole numbers."""
    if np.issubdtype(values.dtype, np.integer):
        return values.astype(np.int64, copy=False)
    finite = np.isfinite(values)
    whole = finite & (np.floor(values) == values) & (np.abs(values) < 2.0**62)
    if not whole.all():
        first = int(np.flatnonzero(~whole)[0])
        raise CorruptMeshFileError(
            file, f"{what}: vertex index {float(values[first])!r} is not a whole number"
        )
    return values.astype(np.int64)


# ---------------------------------------------------------------------------------------------
# From polygons to a TriMesh


def assemble(
    file: Path,
    name: str,
    points: np.ndarray,
    offsets: np.ndarray,
    corners: np.ndarray,
    *,
    weld: bool,
) -> TriMesh:
    """Check polygons, fan-triangulate them and build the mesh.

    Parameters
    ----------
    points : (n, 3) float64
    offsets : (f + 1,) int64
        Polygon ``i`` has corners ``corners[offsets[i]:offsets[i + 1]]``.
    corners : (offsets[-1],) int64
        Vertex indices, 0-based.
    weld : bool
        Merge vertices with exactly equal coordinates (STL triangle soup).
    """
    n_polys = len(offsets) - 1
    if n_polys == 0:
        raise NoTrianglesError(file, f"no faces ({len(points)} points only)")
    sizes = np.diff(offsets)
    small_ids = np.flatnonzero(sizes < 3)
    if small_ids.size:
        raise CorruptMeshFileError(
            file,
            f"{small_ids.size} faces have fewer than 3 corners; first is face {small_ids[0]}",
        )
    is_bad = (corners < 0) | (corners >= len(points))
    if is_bad.any():
        bad_face_ids = np.unique(np.searchsorted(offsets, np.flatnonzero(is_bad), side="right") - 1)
        first = int(bad_face_ids[0])
        corner_ids = corners[offsets[first] : offsets[first + 1]].tolist()
        raise with_file(
            FaceIndexError(
                bad_face_ids.size,
                first,
                f"face {first} uses vertices {corner_ids} (0-based), the file has "
                f"{len(points)} vertices",
            ),
            file,
        )
    is_bad_point = ~np.isfinite(points).all(axis=1)
    if is_bad_point.any():
        bad_ids = np.flatnonzero(is_bad_point)
        raise with_file(
            NonFiniteVertexError(
                bad_ids.size, bad_ids[0], f"vertex {bad_ids[0]} is {points[bad_ids[0]].tolist()}"
            ),
            file,
        )
    is_huge = (np.abs(points) > MAX_ABS_COORDINATE).any(axis=1)
    if is_huge.any():
        bad_ids = np.flatnonzero(is_huge)
        raise CorruptMeshFileError(
            file,
            f"{bad_ids.size} vertices have coordinates beyond +-2**240 (about 1.8e72), where "
            f"products of coordinates overflow; first is vertex {bad_ids[0]} "
            f"{points[bad_ids[0]].tolist()}",
        )
    faces, source_face_ids = fan_triangulate(offsets, corners)
    if weld:
        points, faces = weld_points(points, faces)
    try:
        return TriMesh.from_arrays(points, faces, name=name, source_face_ids=source_face_ids)
    except MeshError as exc:
        raise with_file(exc, file) from None


def fan_triangulate(offsets: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split polygons into fan triangles ``(c0, cj, cj+1)``, in polygon order.

    Parameters
    ----------
    offsets : (f + 1,) int64
        Polygon ``i`` has corners ``corners[offsets[i]:offsets[i + 1]]``; at least 3 each.
    corners : (offsets[-1],) int64

    Returns
    -------
    faces : (m, 3) int64
        ``m = sum(k_i - 2)``; polygon ``i`` gives triangles in corner order.
    source_face_ids : (m,) int64
        The polygon each triangle came from.
    """
    sizes = np.diff(offsets)
    n_tris = sizes - 2
    source_face_ids = np.repeat(np.arange(len(sizes), dtype=np.int64), n_tris)
    if np.all(sizes == 3):
        return corners.reshape(-1, 3).astype(np.int64, copy=False), source_face_ids
    starts = np.repeat(offsets[:-1], n_tris)
    first_tri = np.cumsum(n_tris) - n_tris
    j = np.arange(len(source_face_ids), dtype=np.int64) - np.repeat(first_tri, n_tris) + 1
    faces = np.stack([corners[starts], corners[starts + j], corners[starts + j + 1]], axis=1)
    return faces, source_face_ids


def weld_points(points: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge exactly equal points, keeping first-occurrence order; remap faces."""
    _, first_ids, inverse = np.unique(points, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first_ids, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return points[first_ids[order]], rank[inverse.reshape(-1)][faces]


def with_file(exc: MeshError, file: Path) -> MeshError:
    """Put the file name in front of a counted mesh error's message, keeping its class."""
    exc.path = str(file)
    exc.args = (f"{file}: {exc}",)
    return exc


def polys_from_lists(polys: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets (f + 1,) int64, corners (c,) int64)`` from Python lists of corner ids.

    Every id must fit in int64 (the parsers check digits before converting).
    """
    sizes = np.fromiter((len(p) for p in polys), dtype=np.int64, count=len(polys))
    offsets = np.zeros(len(polys) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    corners = np.fromiter((c for p in polys for c in p), dtype=np.int64, count=int(offsets[-1]))
    return offsets, corners


def soup(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Triangle soup: corners ``3i, 3i+1, 3i+2`` make triangle ``i``."""
    n_tris = len(points) // 3
    offsets = np.arange(0, 3 * n_tris + 1, 3, dtype=np.int64)
    return points, offsets, np.arange(3 * n_tris, dtype=np.int64)
