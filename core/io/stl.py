"""STL, binary (80-byte header, triangle count, 50 bytes per triangle) or ASCII (``solid``).

Which of the two a file is: ASCII when it starts with ``solid`` and holds no NUL byte in its
first kilobyte (text never does; a binary file's count field has a zero high byte for fewer
than 16.7M triangles, and its header is usually zero-padded). Many exporters write ``solid``
at the start of binary headers too, so the word alone decides nothing.

Binary files may carry bytes after the last triangle: VTK's ``vtkSTLReader``, Assimp and
numpy-stl all read the declared triangles and ignore the rest, and some CAD exporters pad
files that way, so they are accepted here too. A file shorter than the count declares is
truncated and refused.

ASCII keywords are matched in any case (``SOLID``, ``FACET NORMAL`` and ``VERTEX`` from some
exporters), and every facet must have exactly three vertex lines.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from core.errors import CorruptMeshFileError, NoTrianglesError
from core.io.common import parse_floats, soup, strip_bom

_STL_BINARY = np.dtype([("normal", "<f4", (3,)), ("corners", "<f4", (3, 3)), ("attr", "<u2")])
_HEADER_BYTES = 84
_TEXT_PROBE_BYTES = 1024

_FACET = re.compile(
    rb"facet\s+normal\s+\S+\s+\S+\s+\S+\s+outer\s+loop\s+"
    rb"vertex\s+(\S+)\s+(\S+)\s+(\S+)\s+vertex\s+(\S+)\s+(\S+)\s+(\S+)\s+"
    rb"vertex\s+(\S+)\s+(\S+)\s+(\S+)\s+endloop\s+endfacet(?=\s|$)"
)
_FACET_START = re.compile(rb"(?<![a-z])facet\s")
_VERTEX = re.compile(rb"(?<![a-z])vertex\s")


def parse_stl(file: Path, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(points (3m, 3) float64, offsets, corners)``: a triangle soup, corners 3i..3i+2."""
    text = strip_bom(data)
    is_text = text.lstrip()[:5].lower() == b"solid" and b"\0" not in text[:_TEXT_PROBE_BYTES]
    if is_text:
        return _parse_ascii(file, text)
    if len(data) < _HEADER_BYTES:
        raise CorruptMeshFileError(file, f"too short for a binary STL ({len(data)} bytes)")
    n_declared = int(np.frombuffer(data, "<u4", 1, 80)[0])
    needed = _HEADER_BYTES + _STL_BINARY.itemsize * n_declared
    if len(data) < needed:
        raise CorruptMeshFileError(
            file,
            f"truncated binary STL: declares {n_declared} triangles ({needed} bytes), "
            f"the file has {len(data)} bytes",
        )
    if n_declared == 0:
        raise NoTrianglesError(file, "the STL file declares 0 triangles")
    records = np.frombuffer(data, _STL_BINARY, n_declared, _HEADER_BYTES)
    return soup(records["corners"].reshape(-1, 3).astype(np.float64))


def _parse_ascii(file: Path, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    text = data.lower()
    end = text.rfind(b"endsolid")
    if end < 0:
        raise CorruptMeshFileError(file, "truncated ASCII STL: no 'endsolid' line")
    body = text[:end]
    facets = _FACET.findall(body)
    n_starts = len(_FACET_START.findall(body))
    if len(facets) != n_starts or len(_VERTEX.findall(body)) != 3 * n_starts:
        raise CorruptMeshFileError(file, _first_bad_facet(body))
    if not facets:
        raise NoTrianglesError(file, "the STL file has no facets")
    coords = [t for facet in facets for t in facet]
    return soup(parse_floats(file, coords, "an STL vertex coordinate").reshape(-1, 3))


def _first_bad_facet(body: bytes) -> str:
    """Where the first facet that is not ``facet normal .. outer loop, 3 vertices ..`` is."""
    starts = [m.start() for m in _FACET_START.finditer(body)] + [len(body)]
    for facet_no, (start, stop) in enumerate(zip(starts[:-1], starts[1:])):
        chunk = body[start:stop]
        if _FACET.match(chunk) and not chunk[_FACET.match(chunk).end() :].strip():
            continue
        line = body.count(b"\n", 0, start) + 1
        n_vertices = len(_VERTEX.findall(chunk))
        if n_vertices != 3:
            return f"line {line}: facet {facet_no} has {n_vertices} vertex lines (needs 3)"
        return f"line {line}: facet {facet_no} is not 'facet normal .. endfacet'"
    return "ASCII STL text outside 'facet .. endfacet' blocks"
