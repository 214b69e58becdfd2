"""Wavefront OBJ: ``v`` and ``f`` records; ``v/vt/vn`` corners; negative indices are relative.

Numbers follow the OBJ grammar (:data:`core.io.common.FLOAT_TOKEN`), not Python's: ``1_0``,
``nan`` or ``inf`` are errors, not 10, NaN or infinity. Material libraries and every other
record are ignored; nothing the file names is ever opened.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from core.errors import CorruptMeshFileError, NoTrianglesError
from core.io.common import (
    FLOAT_TOKEN,
    check_int,
    parse_floats,
    parse_ints,
    strip_bom,
)


def parse_obj(file: Path, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(points (n, 3) float64, offsets (f + 1,) int64, corners (c,) int64)`` of an OBJ."""
    text = strip_bom(data).replace(b"\\\r\n", b" ").replace(b"\\\n", b" ")
    coord_tokens: list[bytes] = []
    vertex_lines: list[int] = []
    corner_tokens: list[bytes] = []
    face_sizes: list[int] = []
    face_lines: list[int] = []
    face_n_vertices: list[int] = []
    n_lines = n_point_records = 0
    for line_no, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        key = parts[0]
        if key == b"v":
            if len(parts) < 4:
                raise CorruptMeshFileError(file, f"line {line_no}: a vertex needs 3 coordinates")
            coord_tokens += parts[1:4]
            vertex_lines.append(line_no)
        elif key == b"f":
            if len(parts) < 4:
                raise CorruptMeshFileError(
                    file, f"line {line_no}: a face needs at least 3 vertices, got {len(parts) - 1}"
                )
            corner_tokens += [p.split(b"/", 1)[0] for p in parts[1:]]
            face_sizes.append(len(parts) - 1)
            face_lines.append(line_no)
            face_n_vertices.append(len(vertex_lines))
        elif key == b"l":
            n_lines += 1
        elif key == b"p":
            n_point_records += 1
    if not vertex_lines:
        raise NoTrianglesError(file, "no vertices")
    points = _coordinates(file, coord_tokens, vertex_lines)
    if not face_sizes:
        raise NoTrianglesError(
            file,
            f"no faces ({len(points)} vertices, {n_lines} line records, "
            f"{n_point_records} point records)",
        )
    sizes = np.array(face_sizes, dtype=np.int64)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    ids = _corner_ids(file, corner_tokens, offsets, face_lines)
    # OBJ counts from 1; negative numbers count back from the last vertex read so far;
    # 0 is invalid and maps to -1 so the range check reports it.
    n_before = np.repeat(np.array(face_n_vertices, dtype=np.int64), sizes)
    corners = np.where(ids > 0, ids - 1, np.where(ids < 0, n_before + ids, -1))
    return points, offsets, corners


def _coordinates(file: Path, tokens: list[bytes], vertex_lines: list[int]) -> np.ndarray:
    try:
        return parse_floats(file, tokens, "a vertex coordinate").reshape(-1, 3)
    except CorruptMeshFileError:
        first = next(i for i, t in enumerate(tokens) if not FLOAT_TOKEN.fullmatch(t))
        parse_floats(file, [tokens[first]], f"line {vertex_lines[first // 3]}: vertex coordinate")
        raise


def _corner_ids(
    file: Path, tokens: list[bytes], offsets: np.ndarray, face_lines: list[int]
) -> np.ndarray:
    try:
        return parse_ints(file, tokens, "face corner")
    except CorruptMeshFileError:
        # Name the line of the first bad corner.
        for face_id, line_no in enumerate(face_lines):
            for t in tokens[offsets[face_id] : offsets[face_id + 1]]:
                check_int(file, t, f"line {line_no}: face corner")
        raise
