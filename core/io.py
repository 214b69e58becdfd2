"""Load triangle meshes from files: OBJ, STL, PLY, OFF, VTK (legacy) and VTP.

Every loader returns a :class:`core.mesh.TriMesh` whose triangles are in the file's own face
order: a polygon with k corners becomes k - 2 fan triangles ``(c0, cj, cj+1)`` that share one
``source_face_ids`` entry, so contact pairs can be reported in the file's numbering.

OBJ, STL, PLY and OFF are read by the small parsers below, VTK and VTP by pyvista's readers
(imported inside the function: the core never imports pyvista at module import time). The
plain-text and PLY parsers are our own because the VTK readers measured unsafe or lossy on
these formats (VTK 9.7, pyvista 0.49):

* a truncated binary PLY file crashes the process (segmentation fault in ``vtkPLYReader``);
* a truncated ASCII PLY file and a truncated ASCII STL file are read without any error
  (the STL one as 10,593 garbage triangles from a 1,680-triangle file);
* ``vtkOBJReader`` gives every face corner its own point when the file has texture
  coordinates (Spot: 17,568 points instead of the file's 2,930 vertices).

Parsing only reads numbers: a mesh file never executes code, and OBJ material libraries or
other referenced files are never opened. Problems raise subclasses of
:class:`core.errors.MeshFileError` (or the counted vertex and face errors of
:mod:`core.errors`, prefixed with the file name) whose message is one line that names the
file and the reason. Degenerate triangles are kept (see :attr:`TriMesh.n_degenerate`).
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import numpy as np

from core.errors import (
    CorruptMeshFileError,
    FaceIndexError,
    MeshError,
    MeshFileError,
    NonFiniteVertexError,
    NoTrianglesError,
    UnsupportedMeshFormatError,
)
from core.mesh import TriMesh

SUPPORTED_EXTENSIONS: tuple[str, ...] = (".obj", ".off", ".ply", ".stl", ".vtk", ".vtp")
"""File extensions :func:`load_mesh` reads (compared case-insensitively)."""


def load_mesh(path: str | os.PathLike, name: str | None = None) -> TriMesh:
    """Read a triangle mesh from a file.

    Parameters
    ----------
    path : str or PathLike
        An ``.obj``, ``.off``, ``.ply``, ``.stl``, ``.vtk`` or ``.vtp`` file.
    name : str, optional
        The mesh's label; defaults to the file name without its extension.

    Returns
    -------
    TriMesh
        ``vertices (n, 3) float64``, ``faces (m, 3) int32`` in file face order (fan
        triangulated), ``source_face_ids (m,) int64`` the index of each triangle's face in
        the file. STL files store every triangle's corners separately; corners with exactly
        equal coordinates are merged into one vertex (first occurrence order).

    Raises
    ------
    MeshFileError
        Missing file, a directory, or a file that cannot be opened.
    UnsupportedMeshFormatError
        The extension is not in :data:`SUPPORTED_EXTENSIONS`.
    CorruptMeshFileError
        Empty, truncated, or not following its format.
    NoTrianglesError
        Only points or lines, or no polygons at all.
    NonFiniteVertexError
        NaN or infinite coordinates (``count`` vertices, the first at ``first_index``).
    FaceIndexError
        Faces referring to vertices that do not exist (``count`` faces, the first at
        ``first_index`` in the file's face numbering).
    """
    file = Path(path)
    if not file.exists():
        raise MeshFileError(file, "no such file")
    if file.is_dir():
        raise MeshFileError(file, "is a directory, not a mesh file")
    ext = file.suffix.lower()
    if ext not in SUPPORTED_EXTENSIONS:
        raise UnsupportedMeshFormatError(
            file,
            f"unsupported file type {ext or '(no extension)'!r}; "
            f"supported: {', '.join(SUPPORTED_EXTENSIONS)}",
        )
    label = file.stem if name is None else name
    if ext in (".vtk", ".vtp"):
        points, offsets, corners, weld = *_read_vtk(file), False
    else:
        try:
            data = file.read_bytes()
        except OSError as exc:
            raise MeshFileError(file, f"cannot be read ({exc.strerror or exc})") from None
        if not data.strip():
            raise CorruptMeshFileError(file, "the file is empty")
        reader = {".obj": _parse_obj, ".off": _parse_off, ".ply": _parse_ply, ".stl": _parse_stl}
        points, offsets, corners = reader[ext](file, data)
        weld = ext == ".stl"
    return _assemble(file, label, points, offsets, corners, weld=weld)


# ---------------------------------------------------------------------------------------------
# From polygons to a TriMesh
# ---------------------------------------------------------------------------------------------


def _assemble(
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
        raise _with_file(
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
        raise _with_file(
            NonFiniteVertexError(
                bad_ids.size, bad_ids[0], f"vertex {bad_ids[0]} is {points[bad_ids[0]].tolist()}"
            ),
            file,
        )
    faces, source_face_ids = fan_triangulate(offsets, corners)
    if weld:
        points, faces = _weld(points, faces)
    try:
        return TriMesh.from_arrays(points, faces, name=name, source_face_ids=source_face_ids)
    except MeshError as exc:
        raise _with_file(exc, file) from None


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


def _weld(points: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge exactly equal points, keeping first-occurrence order; remap faces."""
    _, first_ids, inverse = np.unique(points, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first_ids, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return points[first_ids[order]], rank[inverse.reshape(-1)][faces]


def _with_file(exc: MeshError, file: Path) -> MeshError:
    """Put the file name in front of a counted mesh error's message, keeping its class."""
    exc.path = str(file)
    exc.args = (f"{file}: {exc}",)
    return exc


def _polys_from_lists(polys: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets (f + 1,) int64, corners (c,) int64)`` from Python lists of corner ids."""
    sizes = np.fromiter((len(p) for p in polys), dtype=np.int64, count=len(polys))
    offsets = np.zeros(len(polys) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    corners = np.fromiter((c for p in polys for c in p), dtype=np.int64, count=int(offsets[-1]))
    return offsets, corners


# ---------------------------------------------------------------------------------------------
# OBJ
# ---------------------------------------------------------------------------------------------


def _parse_obj(file: Path, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Wavefront OBJ: ``v`` and ``f`` records; ``v/vt/vn`` corners; negative = relative."""
    # latin-1 maps every byte, so a stray non-UTF-8 comment never stops a load.
    text = data.decode("latin-1").replace("\\\r\n", " ").replace("\\\n", " ")
    coords: list[list[str]] = []
    polys: list[list[int]] = []
    n_lines = n_point_records = 0
    for line_no, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        key = parts[0]
        if key == "v":
            if len(parts) < 4:
                raise CorruptMeshFileError(file, f"line {line_no}: a vertex needs 3 coordinates")
            coords.append(parts[1:4])
        elif key == "f":
            n_v = len(coords)
            try:
                ids = [int(p.split("/", 1)[0]) for p in parts[1:]]
            except ValueError:
                raise CorruptMeshFileError(
                    file, f"line {line_no}: face corners are not vertex numbers"
                ) from None
            if len(ids) < 3:
                raise CorruptMeshFileError(
                    file, f"line {line_no}: a face needs at least 3 vertices, got {len(ids)}"
                )
            # OBJ counts from 1; negative numbers count back from the last vertex read so far;
            # 0 is invalid and maps to -1 so the range check reports it.
            polys.append([i - 1 if i > 0 else (n_v + i if i < 0 else -1) for i in ids])
        elif key == "l":
            n_lines += 1
        elif key == "p":
            n_point_records += 1
    if not coords:
        raise NoTrianglesError(file, "no vertices")
    try:
        points = np.array(coords, dtype=np.float64)
    except ValueError:
        raise CorruptMeshFileError(file, "a vertex coordinate is not a number") from None
    if not polys:
        raise NoTrianglesError(
            file,
            f"no faces ({len(points)} vertices, {n_lines} line records, "
            f"{n_point_records} point records)",
        )
    return (points, *_polys_from_lists(polys))


# ---------------------------------------------------------------------------------------------
# OFF
# ---------------------------------------------------------------------------------------------

_OFF_HEADER = re.compile(r"^(ST)?C?N?OFF$")


def _parse_off(file: Path, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Object File Format (ASCII): ``OFF``, counts, vertex lines, ``k i1 .. ik`` face lines.

    The ``C``, ``N`` and ``ST`` variants carry extra numbers per vertex after x, y, z and
    colours after a face's indices; both are ignored.
    """
    text = data.decode("latin-1")
    lines = [ln.split("#", 1)[0].split() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines:
        raise CorruptMeshFileError(file, "the file is empty")
    header = lines[0][0]
    if header.endswith("OFF") and ("BINARY" in lines[0][1:] or not _OFF_HEADER.match(header)):
        raise UnsupportedMeshFormatError(
            file, f"OFF variant {' '.join(lines[0][:2])!r} is not supported (3-D ASCII only)"
        )
    if not _OFF_HEADER.match(header):
        raise CorruptMeshFileError(file, f"does not start with an OFF header (got {header!r})")
    counts = lines[0][1:] or (lines[1] if len(lines) > 1 else [])
    body = lines[1:] if lines[0][1:] else lines[2:]
    try:
        n_vertices, n_faces = int(counts[0]), int(counts[1])
    except (IndexError, ValueError):
        raise CorruptMeshFileError(file, "missing vertex and face counts after OFF") from None
    if n_vertices < 0 or n_faces < 0:
        raise CorruptMeshFileError(file, "negative vertex or face count")
    if len(body) < n_vertices + n_faces:
        raise CorruptMeshFileError(
            file,
            f"truncated: header declares {n_vertices} vertices and {n_faces} faces, "
            f"the file has {len(body)} data lines",
        )
    try:
        vertex_lines = body[:n_vertices]
        if any(len(ln) < 3 for ln in vertex_lines):
            raise ValueError
        points = np.array([ln[:3] for ln in vertex_lines], dtype=np.float64).reshape(-1, 3)
    except ValueError:
        raise CorruptMeshFileError(file, "a vertex line does not hold 3 numbers") from None
    polys = []
    for face_no, ln in enumerate(body[n_vertices : n_vertices + n_faces]):
        try:
            k = int(ln[0])
            ids = [int(t) for t in ln[1 : 1 + k]]
        except ValueError:
            raise CorruptMeshFileError(file, f"face {face_no} is not a list of numbers") from None
        if len(ids) != k:
            raise CorruptMeshFileError(file, f"face {face_no} declares {k} corners, has {len(ids)}")
        polys.append(ids)
    if n_faces == 0:
        raise NoTrianglesError(file, f"no faces ({n_vertices} vertices only)")
    return (points, *_polys_from_lists(polys))


# ---------------------------------------------------------------------------------------------
# STL
# ---------------------------------------------------------------------------------------------

_STL_BINARY = np.dtype([("normal", "<f4", (3,)), ("corners", "<f4", (3, 3)), ("attr", "<u2")])
_STL_VERTEX = re.compile(rb"vertex\s+(\S+)\s+(\S+)\s+(\S+)")


def _parse_stl(file: Path, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """STL, binary (80-byte header, count, 50 bytes per triangle) or ASCII (``solid``)."""
    n_declared = int(np.frombuffer(data, "<u4", 1, 80)[0]) if len(data) >= 84 else -1
    is_binary = n_declared >= 0 and len(data) == 84 + _STL_BINARY.itemsize * n_declared
    if not is_binary and data.lstrip()[:5].lower() == b"solid":
        return _parse_stl_ascii(file, data)
    if n_declared < 0:
        raise CorruptMeshFileError(file, f"too short for a binary STL ({len(data)} bytes)")
    needed = 84 + _STL_BINARY.itemsize * n_declared
    if len(data) < needed:
        raise CorruptMeshFileError(
            file,
            f"truncated binary STL: declares {n_declared} triangles ({needed} bytes), "
            f"the file has {len(data)} bytes",
        )
    if n_declared == 0:
        raise NoTrianglesError(file, "the STL file declares 0 triangles")
    records = np.frombuffer(data, _STL_BINARY, n_declared, 84)
    points = records["corners"].reshape(-1, 3).astype(np.float64)
    return _soup(points)


def _parse_stl_ascii(file: Path, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n_facets = data.count(b"endfacet")
    if b"endsolid" not in data:
        raise CorruptMeshFileError(file, "truncated ASCII STL: no 'endsolid' line")
    triples = _STL_VERTEX.findall(data)
    if len(triples) != 3 * n_facets:
        raise CorruptMeshFileError(
            file, f"ASCII STL has {len(triples)} vertex lines for {n_facets} facets (needs 3 each)"
        )
    if n_facets == 0:
        raise NoTrianglesError(file, "the STL file has no facets")
    try:
        points = np.array(triples, dtype=np.float64)
    except ValueError:
        raise CorruptMeshFileError(file, "an STL vertex coordinate is not a number") from None
    return _soup(points)


def _soup(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Triangle soup: corners ``3i, 3i+1, 3i+2`` make triangle ``i``."""
    n_tris = len(points) // 3
    offsets = np.arange(0, 3 * n_tris + 1, 3, dtype=np.int64)
    return points, offsets, np.arange(3 * n_tris, dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# PLY
# ---------------------------------------------------------------------------------------------

_PLY_TYPES = {
    "char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1",
    "short": "i2", "int16": "i2", "ushort": "u2", "uint16": "u2",
    "int": "i4", "int32": "i4", "uint": "u4", "uint32": "u4",
    "float": "f4", "float32": "f4", "double": "f8", "float64": "f8",
}  # fmt: skip
_PLY_FACE_LISTS = ("vertex_indices", "vertex_index")


class _PlyElement:
    """One ``element`` block of a PLY header: its name, count and properties.

    ``props`` holds ``(name, dtype_code, count_dtype_code_or_None)``; a list property has a
    count type, a scalar property has ``None``.
    """

    def __init__(self, name: str, count: int):
        self.name = name
        self.count = count
        self.props: list[tuple[str, str, str | None]] = []

    @property
    def has_lists(self) -> bool:
        return any(p[2] is not None for p in self.props)


def _parse_ply(file: Path, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """PLY (ascii, binary_little_endian, binary_big_endian): ``vertex`` x y z, ``face`` lists."""
    if not data.startswith(b"ply"):
        raise CorruptMeshFileError(file, "does not start with 'ply'")
    match = re.search(rb"end_header[ \t]*\r?\n", data)
    if match is None:
        raise CorruptMeshFileError(file, "no 'end_header' line")
    fmt, elements = _parse_ply_header(file, data[: match.start()].decode("latin-1"))
    body = data[match.end() :]
    if fmt == "ascii":
        values = _read_ply_ascii(file, body, elements)
    else:
        values = _read_ply_binary(file, body, elements, "<" if "little" in fmt else ">")
    vertex = values.get("vertex")
    if vertex is None or not all(k in vertex for k in "xyz"):
        raise CorruptMeshFileError(file, "no 'vertex' element with x, y, z")
    points = np.stack([vertex["x"], vertex["y"], vertex["z"]], axis=1).astype(np.float64)
    face = values.get("face", {})
    key = next((k for k in _PLY_FACE_LISTS if k in face), None)
    if key is None:
        n_edges = len(next(iter(values.get("edge", {}).values()), ()))
        raise NoTrianglesError(file, f"no faces ({len(points)} vertices, {n_edges} edges)")
    offsets, corners = face[key]
    return points, offsets, corners


def _parse_ply_header(file: Path, header: str) -> tuple[str, list[_PlyElement]]:
    fmt = None
    elements: list[_PlyElement] = []
    for line in header.splitlines()[1:]:
        parts = line.split()
        if not parts or parts[0] in ("comment", "obj_info"):
            continue
        try:
            if parts[0] == "format":
                fmt = parts[1]
            elif parts[0] == "element":
                elements.append(_PlyElement(parts[1], int(parts[2])))
            elif parts[0] == "property" and parts[1] == "list":
                elements[-1].props.append((parts[4], _PLY_TYPES[parts[3]], _PLY_TYPES[parts[2]]))
            elif parts[0] == "property":
                elements[-1].props.append((parts[2], _PLY_TYPES[parts[1]], None))
            else:
                raise ValueError
        except (IndexError, KeyError, ValueError):
            raise CorruptMeshFileError(file, f"bad PLY header line {line.strip()!r}") from None
    if fmt not in ("ascii", "binary_little_endian", "binary_big_endian"):
        raise CorruptMeshFileError(file, f"unknown PLY format {fmt!r}")
    return fmt, elements


def _read_ply_ascii(file: Path, body: bytes, elements: list[_PlyElement]) -> dict:
    """Values of every element: scalars as ``(count,)`` arrays, lists as (offsets, items)."""
    tokens = body.split()
    pos = 0
    values: dict[str, dict] = {}
    try:
        for el in elements:
            if not el.has_lists:
                n = el.count * len(el.props)
                if pos + n > len(tokens):
                    raise IndexError
                table = np.array(tokens[pos : pos + n], dtype=np.float64).reshape(el.count, -1)
                pos += n
                values[el.name] = {p[0]: table[:, i] for i, p in enumerate(el.props)}
                continue
            columns: dict[str, list] = {p[0]: [] for p in el.props}
            for _ in range(el.count):
                for name, _code, count_code in el.props:
                    if count_code is None:
                        columns[name].append(float(tokens[pos]))
                        pos += 1
                    else:
                        k = int(tokens[pos])
                        if pos + 1 + k > len(tokens):
                            raise IndexError
                        columns[name].append([int(t) for t in tokens[pos + 1 : pos + 1 + k]])
                        pos += 1 + k
            values[el.name] = {
                p[0]: (_polys_from_lists(columns[p[0]]) if p[2] else np.array(columns[p[0]]))
                for p in el.props
            }
    except IndexError:
        raise CorruptMeshFileError(
            file, f"truncated: the file ends inside element {el.name!r}"
        ) from None
    except ValueError:
        raise CorruptMeshFileError(
            file, f"a value of element {el.name!r} is not a number"
        ) from None
    return values


def _read_ply_binary(file: Path, body: bytes, elements: list[_PlyElement], order: str) -> dict:
    """Binary elements; list elements take a vectorised path when every list has one length."""
    pos = 0
    values: dict[str, dict] = {}
    for el in elements:
        if el.count == 0:
            values[el.name] = {
                p[0]: _polys_from_lists([]) if p[2] else np.zeros(0) for p in el.props
            }
            continue
        # Fixed-width record: scalars as they are; lists with the length of the first record's
        # list (most face lists are all triangles), checked against every record below.
        fields, list_lengths, at = [], {}, pos
        for name, code, count_code in el.props:
            if count_code is None:
                fields.append((name, order + code))
                at += np.dtype(code).itemsize
                continue
            if at + np.dtype(count_code).itemsize > len(body):
                break
            k = int(np.frombuffer(body, order + count_code, 1, at)[0])
            if k * np.dtype(code).itemsize > len(body):
                break  # a corrupt count; the record-by-record reader reports where it ends
            list_lengths[name] = k
            fields.append((name + "#n", order + count_code))
            fields.append((name, order + code, (k,)))
            at += np.dtype(count_code).itemsize + k * np.dtype(code).itemsize
        else:
            record = np.dtype(fields)
            end = pos + record.itemsize * el.count
            if end <= len(body):
                table = np.frombuffer(body, record, el.count, pos)
                if all(np.all(table[n + "#n"] == k) for n, k in list_lengths.items()):
                    values[el.name] = {}
                    for name, _code, count_code in el.props:
                        column = table[name]
                        if count_code is not None:
                            k = list_lengths[name]
                            offsets = np.arange(0, k * el.count + 1, k, dtype=np.int64)
                            column = (offsets, column.reshape(-1).astype(np.int64))
                        values[el.name][name] = column
                    pos = end
                    continue
        if not el.has_lists:
            raise CorruptMeshFileError(file, f"truncated: the file ends inside element {el.name!r}")
        values[el.name], pos = _read_ply_binary_records(file, body, el, order, pos)
    return values


def _read_ply_binary_records(
    file: Path, body: bytes, el: _PlyElement, order: str, pos: int
) -> tuple[dict, int]:
    """Record-by-record reading of an element whose lists have varying lengths."""
    columns: dict[str, list] = {p[0]: [] for p in el.props}
    steps = [
        (name, np.dtype(order + code), None if cc is None else np.dtype(order + cc))
        for name, code, cc in el.props
    ]
    try:
        for _ in range(el.count):
            for name, dtype, count_dtype in steps:
                if count_dtype is None:
                    columns[name].append(np.frombuffer(body, dtype, 1, pos)[0])
                    pos += dtype.itemsize
                else:
                    k = int(np.frombuffer(body, count_dtype, 1, pos)[0])
                    pos += count_dtype.itemsize
                    columns[name].append(np.frombuffer(body, dtype, k, pos).tolist())
                    pos += k * dtype.itemsize
    except ValueError:
        # np.frombuffer raises ValueError when the buffer is shorter than asked for.
        raise CorruptMeshFileError(
            file, f"truncated: the file ends inside element {el.name!r}"
        ) from None
    result = {
        p[0]: (_polys_from_lists(columns[p[0]]) if p[2] else np.array(columns[p[0]]))
        for p in el.props
    }
    return result, pos


# ---------------------------------------------------------------------------------------------
# VTK legacy and VTP, through pyvista
# ---------------------------------------------------------------------------------------------

# VTK cell types that are surface polygons (vtkCellType.h); other cells are ignored.
_VTK_TRIANGLE, _VTK_POLYGON, _VTK_QUAD = 5, 7, 9


def _read_vtk(file: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points and polygons of a ``.vtk`` or ``.vtp`` file (polygons, then triangle strips)."""
    import pyvista as pv
    from vtkmodules.util.numpy_support import vtk_to_numpy

    try:
        with open(file, "rb") as stream:
            head = stream.read(64)
    except OSError as exc:
        raise MeshFileError(file, f"cannot be read ({exc.strerror or exc})") from None
    if not head.strip():
        raise CorruptMeshFileError(file, "the file is empty")
    # VTK reports bad files on its own error stream and often still returns an empty or
    # partial dataset: catch those reports instead of printing them, and treat any as corrupt.
    with (
        warnings.catch_warnings(),
        pv.vtk_verbosity("off"),
        pv.VtkErrorCatcher(raise_errors=False, send_to_logging=False) as catcher,
    ):
        warnings.simplefilter("ignore")
        try:
            algorithm = pv.get_reader(str(file)).reader
            algorithm.Update()
        except Exception as exc:  # VTK's Python layer may raise from an observer
            raise CorruptMeshFileError(file, f"VTK cannot read it ({_first_line(exc)})") from None
    # The legacy reader reports a short binary block only as a generic warning whose text
    # says "Error reading binary data!" (VTK 9.7), so the text counts as much as the kind.
    errors = [e for e in catcher.events if e.kind == "ERROR" or "error" in e.alert.lower()]
    if errors:
        raise CorruptMeshFileError(file, f"VTK cannot read it ({_first_line(errors[0].alert)})")
    dataset = pv.wrap(algorithm.GetOutputDataObject(0))
    if dataset is None or dataset.n_points == 0:
        raise CorruptMeshFileError(file, "no points (empty or not a VTK file)")
    points = np.asarray(dataset.points, dtype=np.float64)
    if isinstance(dataset, pv.PolyData):
        polys = dataset.GetPolys()
        offsets = vtk_to_numpy(polys.GetOffsetsArray()).astype(np.int64)
        corners = vtk_to_numpy(polys.GetConnectivityArray()).astype(np.int64)
        if dataset.GetNumberOfStrips():
            offsets, corners = _append_strips(offsets, corners, dataset.GetStrips(), vtk_to_numpy)
        if len(offsets) <= 1:
            raise NoTrianglesError(
                file,
                f"no polygons ({dataset.n_points} points, {dataset.GetNumberOfLines()} lines, "
                f"{dataset.GetNumberOfVerts()} vertex cells)",
            )
        return points, offsets, corners
    if isinstance(dataset, pv.UnstructuredGrid):
        cells = dataset.GetCells()
        offsets = vtk_to_numpy(cells.GetOffsetsArray()).astype(np.int64)
        corners = vtk_to_numpy(cells.GetConnectivityArray()).astype(np.int64)
        is_surface = np.isin(dataset.celltypes, (_VTK_TRIANGLE, _VTK_POLYGON, _VTK_QUAD))
        if not is_surface.any():
            raise NoTrianglesError(file, f"no polygon cells among {dataset.n_cells} cells")
        keep_ids = np.flatnonzero(is_surface)
        sizes = offsets[keep_ids + 1] - offsets[keep_ids]
        new_offsets = np.zeros(len(keep_ids) + 1, dtype=np.int64)
        np.cumsum(sizes, out=new_offsets[1:])
        gather = np.repeat(offsets[keep_ids], sizes) + (
            np.arange(new_offsets[-1]) - np.repeat(new_offsets[:-1], sizes)
        )
        return points, new_offsets, corners[gather]
    raise NoTrianglesError(file, f"holds a {type(dataset).__name__}, not a surface mesh")


def _append_strips(offsets, corners, strips, vtk_to_numpy) -> tuple[np.ndarray, np.ndarray]:
    """Add triangle strips as 3-corner polygons, alternating winding to keep orientation."""
    strip_offsets = vtk_to_numpy(strips.GetOffsetsArray()).astype(np.int64)
    strip_corners = vtk_to_numpy(strips.GetConnectivityArray()).astype(np.int64)
    tris = []
    for s in range(len(strip_offsets) - 1):
        ids = strip_corners[strip_offsets[s] : strip_offsets[s + 1]]
        for i in range(len(ids) - 2):
            a, b, c = ids[i], ids[i + 1], ids[i + 2]
            tris.append((b, a, c) if i % 2 else (a, b, c))
    # Each strip triangle becomes its own face, numbered after all polygons.
    tri_corners = np.asarray(tris, dtype=np.int64).reshape(-1)
    tri_offsets = offsets[-1] + np.arange(3, 3 * len(tris) + 1, 3, dtype=np.int64)
    return np.concatenate([offsets, tri_offsets]), np.concatenate([corners, tri_corners])


def _first_line(message: BaseException | str) -> str:
    """The last non-empty line of a VTK message (the earlier ones name source files)."""
    lines = [ln.strip() for ln in str(message).splitlines() if ln.strip()]
    return lines[-1] if lines else type(message).__name__
