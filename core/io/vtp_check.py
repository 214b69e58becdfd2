"""A validating pre-parse of VTK XML PolyData (``.vtp``) files, before VTK sees them.

VTK's XML reader trusts the declared sizes: a ``NumberOfPoints`` of 10**12 makes it allocate
12 TB and abort, a block header declaring 2 GB or an appended section cut short gives it
whatever bytes follow (VTK 9.7 returned 4 vertices at 7e22 instead of an error), and a corrupt
zlib block aborts it. This module reads only the XML tags and the binary block headers and
checks, for every ``DataArray``:

* its ``format`` (``ascii``, ``binary``, ``appended``), ``type`` and ``NumberOfComponents``;
* that its block (raw or base64, with the file's ``header_type``) lies inside the data the
  file holds, header words included;
* for compressed blocks (zlib, LZMA), that every block inflates to the size its header
  declares (LZ4, not in Python's standard library, gets only the size checks);
* for the points, that the array holds exactly ``3 * NumberOfPoints`` values;

and that every ``Piece`` count is a plain integer no larger than the data could describe.
Anything it cannot check is left to VTK, which runs in a child process anyway
(:mod:`core.io.vtkfile`).
"""

from __future__ import annotations

import base64
import binascii
import lzma
import re
import zlib
from pathlib import Path

import numpy as np

from core.errors import CorruptMeshFileError

_TAG = re.compile(rb"<(/?)(VTKFile|Piece|Points|DataArray|AppendedData)\b([^>]*?)(/?)>")
_ATTR = re.compile(rb"([A-Za-z_]\w*)\s*=\s*\"([^\"]*)\"")
_COUNTS = ("NumberOfPoints", "NumberOfVerts", "NumberOfLines", "NumberOfStrips", "NumberOfPolys")
_TYPES = {
    "Int8": 1, "UInt8": 1, "Int16": 2, "UInt16": 2, "Int32": 4, "UInt32": 4,
    "Int64": 8, "UInt64": 8, "Float32": 4, "Float64": 8,
}  # fmt: skip
_COMPRESSORS = {
    "": None,
    "vtkZLibDataCompressor": "zlib",
    "vtkLZMADataCompressor": "lzma",
    "vtkLZ4DataCompressor": "lz4",
}
_MAX_COUNT_DIGITS = 15


class _Bad(Exception):
    """A reason; :func:`check_vtp` adds the file name."""


def check_vtp(file: Path, data: bytes) -> int:
    """Check a VTP file's declared sizes against its data; return the data's byte count.

    Parameters
    ----------
    file : Path
        For messages.
    data : bytes
        The whole file.

    Returns
    -------
    int
        Uncompressed bytes of all data arrays (what VTK will hold in memory).

    Raises
    ------
    CorruptMeshFileError
        A declared size that the data does not back, or a malformed block.
    """
    try:
        return _check(data)
    except _Bad as exc:
        raise CorruptMeshFileError(file, f"malformed VTP: {exc}") from None


def _attrs(raw: bytes) -> dict[str, str]:
    return {k.decode("latin-1"): v.decode("latin-1") for k, v in _ATTR.findall(raw)}


def _check(data: bytes) -> int:
    appended_at = data.find(b"<AppendedData")
    head = data if appended_at < 0 else data[:appended_at]
    tags = list(_TAG.finditer(head))
    root = next((t for t in tags if t.group(2) == b"VTKFile" and not t.group(1)), None)
    if root is None:
        raise _Bad("no <VTKFile> element")
    root_attrs = _attrs(root.group(3))
    if root_attrs.get("type") != "PolyData":
        raise _Bad(f"type is {root_attrs.get('type', '(none)')[:40]!r}, not 'PolyData'")
    header_type = root_attrs.get("header_type", "UInt32")
    if header_type not in ("UInt32", "UInt64"):
        raise _Bad(f"header_type {header_type[:40]!r} is not UInt32 or UInt64")
    order = ">" if root_attrs.get("byte_order") == "BigEndian" else "<"
    header = np.dtype(order + ("u4" if header_type == "UInt32" else "u8"))
    compressor_name = root_attrs.get("compressor", "")
    if compressor_name not in _COMPRESSORS:
        raise _Bad(f"unknown compressor {compressor_name[:40]!r}")
    codec = _COMPRESSORS[compressor_name]
    appended = _appended_section(data, appended_at)
    blocks = _Blocks(appended, header, codec)

    total = 0
    pieces: list[dict[str, int]] = []
    in_points = False
    for tag in tags:
        closing, name, raw, _self_closing = tag.groups()
        if name == b"Piece" and not closing:
            attrs = _attrs(raw)
            pieces.append({k: _count(attrs.get(k, "0"), k) for k in _COUNTS})
        elif name == b"Points":
            in_points = not closing
        elif name == b"DataArray" and not closing:
            attrs = _attrs(raw)
            nbytes = _array_bytes(attrs, head, tag.end(), blocks, header, codec)
            total += nbytes
            if in_points and pieces:
                _check_points(attrs, nbytes, pieces[-1]["NumberOfPoints"])
    for piece in pieces:
        for key, count in piece.items():
            # Each point needs 3 values and each cell an entry in an offsets array: at least
            # one byte of data each, so a count beyond the data's size cannot be true.
            if count > total:
                raise _Bad(f"{key}={count} but the arrays hold only {total} bytes")
    return total


def _count(text: str, key: str) -> int:
    if not text.isdigit() or len(text) > _MAX_COUNT_DIGITS:
        raise _Bad(f"{key}={text[:40]!r} is not a whole number of a sane size")
    return int(text)


def _appended_section(data: bytes, appended_at: int) -> tuple[bytes, bool] | None:
    """``(payload after '_', is_base64)`` of the ``<AppendedData>`` element, or None."""
    if appended_at < 0:
        return None
    tag_end = data.find(b">", appended_at)
    underscore = data.find(b"_", tag_end)
    if tag_end < 0 or underscore < 0:
        raise _Bad("<AppendedData> has no '_' marking the start of the data")
    encoding = _attrs(data[appended_at:tag_end]).get("encoding", "raw")
    if encoding not in ("raw", "base64"):
        raise _Bad(f"unknown AppendedData encoding {encoding[:40]!r}")
    payload = data[underscore + 1 :]
    close = payload.rfind(b"</AppendedData>")
    if close < 0:
        raise _Bad("truncated: the appended data has no closing </AppendedData>")
    payload = payload[:close]
    if encoding == "base64":
        payload = payload.rstrip()
    return payload, encoding == "base64"


def _array_bytes(attrs, head: bytes, content_at: int, blocks, header, codec) -> int:
    """Uncompressed bytes of one DataArray (its value count times item size for ascii)."""
    name = attrs.get("Name", "(unnamed)")[:40]
    type_name = attrs.get("type", "")
    if type_name not in _TYPES and type_name != "String":
        raise _Bad(f"DataArray {name!r} has unknown type {type_name[:40]!r}")
    components = attrs.get("NumberOfComponents", "1")
    _count(components, f"DataArray {name!r} NumberOfComponents")
    fmt = attrs.get("format", "ascii")
    if fmt == "ascii":
        end = head.find(b"<", content_at)
        return len(head[content_at : end if end >= 0 else len(head)].split())
    if fmt == "binary":
        end = head.find(b"<", content_at)
        text = b"".join(head[content_at : end if end >= 0 else len(head)].split())
        return _Blocks((text, True), header, codec).size_at(0, name)
    if fmt == "appended":
        if blocks.payload is None:
            raise _Bad(f"DataArray {name!r} is appended but the file has no <AppendedData>")
        return blocks.size_at(_count(attrs.get("offset", ""), f"{name!r} offset"), name)
    raise _Bad(f"DataArray {name!r} has unknown format {fmt[:40]!r}")


def _check_points(attrs, nbytes: int, n_points: int) -> None:
    fmt = attrs.get("format", "ascii")
    item = 1 if fmt == "ascii" else _TYPES.get(attrs.get("type", ""), 1)
    components = int(attrs.get("NumberOfComponents", "1"))
    expected = n_points * components * item
    if nbytes != expected:
        what = "values" if fmt == "ascii" else "bytes"
        raise _Bad(
            f"the Points array holds {nbytes} {what}, NumberOfPoints={n_points} needs {expected}"
        )


class _Blocks:
    """Binary blocks of one encoding: raw bytes or base64 text, with VTK's block headers."""

    def __init__(self, payload, header: np.dtype, codec: str | None):
        self.payload, self.is_base64 = payload if payload is not None else (None, False)
        self.header = header
        self.codec = codec

    def _unit(self, at: int, n_bytes: int, name: str) -> tuple[bytes, int]:
        """``n_bytes`` decoded from position ``at``, and the position after them."""
        if not self.is_base64:
            chunk = self.payload[at : at + n_bytes]
            if len(chunk) < n_bytes:
                raise _Bad(f"truncated: DataArray {name!r} needs {n_bytes} bytes at {at}")
            return chunk, at + n_bytes
        n_chars = -(-n_bytes // 3) * 4
        text = self.payload[at : at + n_chars]
        if len(text) < n_chars:
            raise _Bad(f"truncated: DataArray {name!r} needs {n_chars} base64 characters")
        try:
            return base64.b64decode(text, validate=True)[:n_bytes], at + n_chars
        except (binascii.Error, ValueError):
            raise _Bad(f"DataArray {name!r} is not valid base64") from None

    def _words(self, chunk: bytes) -> list[int]:
        return np.frombuffer(chunk, self.header).astype(np.int64).tolist()

    def size_at(self, at: int, name: str) -> int:
        """Uncompressed bytes of the block at ``at``, after checking it against the data."""
        size = self.header.itemsize
        if at > len(self.payload):
            raise _Bad(f"DataArray {name!r} offset {at} is past the end of the data")
        if self.codec is None:
            (n_bytes,) = self._words(self._unit(at, size, name)[0][:size])
            if n_bytes > len(self.payload):
                raise _Bad(f"DataArray {name!r} declares {n_bytes} bytes, more than the file")
            if not self.is_base64:
                self._unit(at + size, n_bytes, name)
            else:
                self._unit(at, size + n_bytes, name)
            return n_bytes
        n_blocks, block_size, last_size = self._words(self._unit(at, 3 * size, name)[0])
        if n_blocks * size > len(self.payload) or block_size > 2**32 or last_size > block_size:
            raise _Bad(f"DataArray {name!r} has an impossible compression header")
        words, data_at = self._unit(at, (3 + n_blocks) * size, name)
        compressed = self._words(words)[3:]
        if sum(compressed) > len(self.payload):
            raise _Bad(f"DataArray {name!r} declares more compressed bytes than the file has")
        stream, _ = self._unit(data_at, sum(compressed), name)
        sizes = [block_size] * n_blocks
        if n_blocks and last_size:
            sizes[-1] = last_size
        start = 0
        for i, (c, expected) in enumerate(zip(compressed, sizes)):
            self._inflate(stream[start : start + c], expected, name, i)
            start += c
        return sum(sizes)

    def _inflate(self, chunk: bytes, expected: int, name: str, block: int) -> None:
        if self.codec == "lz4":
            return
        try:
            if self.codec == "zlib":
                inflater = zlib.decompressobj()
                out = inflater.decompress(chunk, expected + 1)
            else:
                out = lzma.LZMADecompressor().decompress(chunk, expected + 1)
        except (zlib.error, lzma.LZMAError):
            raise _Bad(f"DataArray {name!r} block {block} is corrupt compressed data") from None
        if len(out) != expected:
            raise _Bad(
                f"DataArray {name!r} block {block} inflates to {len(out)} bytes, "
                f"its header declares {expected}"
            )
