"""PLY (ascii, binary_little_endian, binary_big_endian): ``vertex`` x y z, ``face`` lists.

Face indices must be whole numbers: a list declared ``float`` is accepted only when every
index is integral (a truncating cast would silently move corners), and list counts must be
non-negative. Every error names the file.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from core.errors import CorruptMeshFileError, NoTrianglesError
from core.io.common import (
    check_int,
    integral_indices,
    parse_floats,
    polys_from_lists,
    strip_bom,
)

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


def parse_ply(file: Path, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(points (n, 3) float64, offsets (f + 1,) int64, corners (c,) int64)`` of a PLY."""
    data = strip_bom(data)
    if not data.startswith(b"ply"):
        raise CorruptMeshFileError(file, "does not start with 'ply'")
    match = re.search(rb"end_header[ \t]*\r?\n", data)
    if match is None:
        raise CorruptMeshFileError(file, "no 'end_header' line")
    fmt, elements = _parse_header(file, data[: match.start()].decode("latin-1"))
    body = data[match.end() :]
    if fmt == "ascii":
        values = _read_ascii(file, body, elements)
    else:
        values = _read_binary(file, body, elements, "<" if "little" in fmt else ">")
    vertex = values.get("vertex")
    if vertex is None or not all(isinstance(vertex.get(k), np.ndarray) for k in "xyz"):
        raise CorruptMeshFileError(file, "no 'vertex' element with scalar x, y, z")
    points = np.stack([vertex["x"], vertex["y"], vertex["z"]], axis=1).astype(np.float64)
    face = values.get("face", {})
    key = next((k for k in _PLY_FACE_LISTS if isinstance(face.get(k), tuple)), None)
    if key is None:
        n_edges = len(next(iter(values.get("edge", {}).values()), ()))
        raise NoTrianglesError(file, f"no faces ({len(points)} vertices, {n_edges} edges)")
    offsets, corners = face[key]
    return points, offsets, integral_indices(file, corners, "PLY face")


def _parse_header(file: Path, header: str) -> tuple[str, list[_PlyElement]]:
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
                count = check_int(file, parts[2].encode("latin-1"), f"element {parts[1]!r}")
                if count < 0:
                    raise ValueError
                elements.append(_PlyElement(parts[1], count))
            elif parts[0] == "property" and parts[1] == "list":
                if _PLY_TYPES[parts[2]][0] == "f":
                    raise ValueError  # a list length must be an integer type
                elements[-1].props.append((parts[4], _PLY_TYPES[parts[3]], _PLY_TYPES[parts[2]]))
            elif parts[0] == "property":
                elements[-1].props.append((parts[2], _PLY_TYPES[parts[1]], None))
            else:
                raise ValueError
        except (IndexError, KeyError, ValueError):
            shown = line.strip()[:60]
            raise CorruptMeshFileError(file, f"bad PLY header line {shown!r}") from None
    for el in elements:
        names = [p[0] for p in el.props]
        twice = next((n for n in names if names.count(n) > 1), None)
        if twice is not None:
            raise CorruptMeshFileError(
                file, f"PLY element {el.name[:40]!r} declares property {twice[:40]!r} twice"
            )
    if fmt not in ("ascii", "binary_little_endian", "binary_big_endian"):
        raise CorruptMeshFileError(file, f"unknown PLY format {str(fmt)[:40]!r}")
    return fmt, elements


def _read_ascii(file: Path, body: bytes, elements: list[_PlyElement]) -> dict:
    """Values of every element: scalars as ``(count,)`` arrays, lists as (offsets, items)."""
    tokens = body.split()
    pos = 0
    values: dict[str, dict] = {}
    for el in elements:
        what = f"element {el.name!r}"
        if not el.has_lists:
            n = el.count * len(el.props)
            if pos + n > len(tokens):
                raise _truncated(file, el)
            table = parse_floats(file, tokens[pos : pos + n], what).reshape(el.count, -1)
            pos += n
            values[el.name] = {p[0]: table[:, i] for i, p in enumerate(el.props)}
            continue
        columns: dict[str, list] = {p[0]: [] for p in el.props}
        for _ in range(el.count):
            for name, code, count_code in el.props:
                if pos >= len(tokens):
                    raise _truncated(file, el)
                if count_code is None:
                    columns[name].append(parse_floats(file, [tokens[pos]], what)[0])
                    pos += 1
                    continue
                k = check_int(file, tokens[pos], f"{what} list length")
                if k < 0:
                    raise CorruptMeshFileError(file, f"{what}: negative list length {k}")
                if pos + 1 + k > len(tokens):
                    raise _truncated(file, el)
                items = tokens[pos + 1 : pos + 1 + k]
                if code[0] == "f":
                    floats = parse_floats(file, items, what)
                    columns[name].append(integral_indices(file, floats, what).tolist())
                else:
                    columns[name].append([check_int(file, t, what) for t in items])
                pos += 1 + k
        values[el.name] = {
            p[0]: (polys_from_lists(columns[p[0]]) if p[2] else np.array(columns[p[0]]))
            for p in el.props
        }
    return values


def _truncated(file: Path, el: _PlyElement) -> CorruptMeshFileError:
    return CorruptMeshFileError(file, f"truncated: the file ends inside element {el.name!r}")


def _read_binary(file: Path, body: bytes, elements: list[_PlyElement], order: str) -> dict:
    """Binary elements; list elements take a vectorised path when every list has one length."""
    pos = 0
    values: dict[str, dict] = {}
    for el in elements:
        if el.count == 0:
            values[el.name] = {
                p[0]: polys_from_lists([]) if p[2] else np.zeros(0) for p in el.props
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
            if k <= 0 or k * np.dtype(code).itemsize > len(body):
                break  # empty or corrupt; the record-by-record reader reports where it ends
            list_lengths[name] = k
            fields.append((name + "#n", order + count_code))
            fields.append((name, order + code, (k,)))
            at += np.dtype(count_code).itemsize + k * np.dtype(code).itemsize
        else:
            record = np.dtype(fields)
            end = pos + record.itemsize * el.count
            if record.itemsize > 0 and end <= len(body):
                table = np.frombuffer(body, record, el.count, pos)
                if all(np.all(table[n + "#n"] == k) for n, k in list_lengths.items()):
                    values[el.name] = {}
                    for name, _code, count_code in el.props:
                        column = table[name]
                        if count_code is not None:
                            k = list_lengths[name]
                            offsets = np.arange(0, k * el.count + 1, k, dtype=np.int64)
                            column = (offsets, column.reshape(-1))
                        values[el.name][name] = column
                    pos = end
                    continue
        if not el.has_lists:
            raise _truncated(file, el)
        values[el.name], pos = _read_binary_records(file, body, el, order, pos)
    return values


def _read_binary_records(
    file: Path, body: bytes, el: _PlyElement, order: str, pos: int
) -> tuple[dict, int]:
    """Record-by-record reading of an element whose lists have varying lengths."""
    columns: dict[str, list] = {p[0]: [] for p in el.props}
    steps = [
        (name, np.dtype(order + code), None if cc is None else np.dtype(order + cc))
        for name, code, cc in el.props
    ]
    for _ in range(el.count):
        for name, dtype, count_dtype in steps:
            size = dtype.itemsize if count_dtype is None else count_dtype.itemsize
            if pos + size > len(body):
                raise _truncated(file, el)
            if count_dtype is None:
                columns[name].append(np.frombuffer(body, dtype, 1, pos)[0])
                pos += size
                continue
            k = int(np.frombuffer(body, count_dtype, 1, pos)[0])
            pos += size
            if k < 0:
                raise CorruptMeshFileError(
                    file, f"element {el.name!r}: negative list length {k}"
                )
            if pos + k * dtype.itemsize > len(body):
                raise _truncated(file, el)
            columns[name].append(np.frombuffer(body, dtype, k, pos))
            pos += k * dtype.itemsize
    result = {}
    for name, _code, count_code in el.props:
        column = columns[name]
        if count_code is None:
            result[name] = np.array(column)
            continue
        sizes = np.fromiter((len(c) for c in column), dtype=np.int64, count=len(column))
        offsets = np.zeros(len(column) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        items = np.concatenate(column) if column else np.zeros(0, dtype=np.int64)
        result[name] = (offsets, items)
    return result, pos
