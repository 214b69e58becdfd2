"""Object File Format (ASCII): ``OFF``, counts, vertex lines, ``k i1 .. ik`` face lines.

The ``C``, ``N`` and ``ST`` variants carry extra numbers per vertex after x, y, z and colours
after a face's indices; both are ignored.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from core.errors import CorruptMeshFileError, NoTrianglesError, UnsupportedMeshFormatError
from core.io.common import check_int, parse_floats, parse_ints, strip_bom

_OFF_HEADER = re.compile(rb"^(ST)?C?N?OFF$")


def parse_off(file: Path, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(points (n, 3) float64, offsets (f + 1,) int64, corners (c,) int64)`` of an OFF."""
    lines = [ln.split(b"#", 1)[0].split() for ln in strip_bom(data).splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines:
        raise CorruptMeshFileError(file, "the file is empty")
    header = lines[0][0]
    if header.endswith(b"OFF") and (b"BINARY" in lines[0][1:] or not _OFF_HEADER.match(header)):
        variant = b" ".join(lines[0][:2]).decode("latin-1")
        raise UnsupportedMeshFormatError(
            file, f"OFF variant {variant!r} is not supported (3-D ASCII only)"
        )
    if not _OFF_HEADER.match(header):
        shown = header[:24].decode("latin-1")
        raise CorruptMeshFileError(file, f"does not start with an OFF header (got {shown!r})")
    counts = lines[0][1:] or (lines[1] if len(lines) > 1 else [])
    body = lines[1:] if lines[0][1:] else lines[2:]
    if len(counts) < 2:
        raise CorruptMeshFileError(file, "missing vertex and face counts after OFF")
    n_vertices = check_int(file, counts[0], "vertex count")
    n_faces = check_int(file, counts[1], "face count")
    if n_vertices < 0 or n_faces < 0:
        raise CorruptMeshFileError(file, "negative vertex or face count")
    if len(body) < n_vertices + n_faces:
        raise CorruptMeshFileError(
            file,
            f"truncated: header declares {n_vertices} vertices and {n_faces} faces, "
            f"the file has {len(body)} data lines",
        )
    vertex_lines = body[:n_vertices]
    short = next((i for i, ln in enumerate(vertex_lines) if len(ln) < 3), None)
    if short is not None:
        raise CorruptMeshFileError(file, f"vertex {short} does not hold 3 numbers")
    coords = [t for ln in vertex_lines for t in ln[:3]]
    points = parse_floats(file, coords, "a vertex coordinate").reshape(-1, 3)
    if n_faces == 0:
        raise NoTrianglesError(file, f"no faces ({n_vertices} vertices only)")
    sizes = np.zeros(n_faces, dtype=np.int64)
    corner_tokens: list[bytes] = []
    for face_no, ln in enumerate(body[n_vertices : n_vertices + n_faces]):
        k = check_int(file, ln[0], f"face {face_no} corner count")
        if k < 0 or len(ln) - 1 < k:
            raise CorruptMeshFileError(
                file, f"face {face_no} declares {k} corners, has {len(ln) - 1}"
            )
        sizes[face_no] = k
        corner_tokens += ln[1 : 1 + k]
    offsets = np.zeros(n_faces + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    try:
        corners = parse_ints(file, corner_tokens, "a face corner")
    except CorruptMeshFileError:
        for face_no in range(n_faces):
            for t in corner_tokens[offsets[face_no] : offsets[face_no + 1]]:
                check_int(file, t, f"face {face_no} corner")
        raise
    return points, offsets, corners
