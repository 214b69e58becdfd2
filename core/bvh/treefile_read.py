"""Reading a tree file: its bytes decoded (JSON or npz) into a dict of keys, then checked
(:mod:`core.bvh.treefile_keys`, :mod:`core.bvh.treefile_nodes`) into an
:class:`~core.bvh.treefile.ImportedTree`.

The schema is in :mod:`core.bvh.treefile`. Every refusal is a one-line
:class:`~core.bvh.treefile.TreeFileError` naming the file: not a regular file, past the size
limit, not JSON (or a key twice, or a number past :data:`~core.bvh.treefile.MAX_INT_DIGITS`
digits), not an npz archive this reader accepts (a member twice, encrypted, compressed other
than by deflate, an ``.npy`` header past :data:`~core.bvh.treefile.MAX_NPY_HEADER_BYTES`).
"""

from __future__ import annotations

import io
import json
import os
import re
import time
import zipfile
import zlib
from pathlib import Path

from core.bvh.treefile import (
    MAX_INT_DIGITS,
    MAX_NPY_HEADER_BYTES,
    ImportedTree,
    TreeFileError,
    _suffix,
    max_tree_bytes,
)
from core.bvh.treefile_keys import _check_keys, _Keys
from core.bvh.treefile_nodes import tree_from_file
from core.errors import MeshFileError
from core.files.container import ContainerLimitError, read_array
from core.io.common import MAX_FILE_BYTES, check_regular_file, read_regular_file
from core.mesh import TriMesh

# ---- reading: bytes to a dict of keys --------------------------------------------------------


def _size(n: int) -> str:
    """``"1,048,577 bytes"``, or ``"12.5 MiB"`` from 10 MiB on."""
    return f"{n / 2**20:,.1f} MiB" if n >= 10 * 2**20 else f"{n:,} bytes"


def _file_bytes(path: Path, max_bytes: int, why: str = "") -> bytes:
    check_regular_file(path, max_bytes, "tree file", TreeFileError,
                       lambda size: f"too large: {_size(size)}; the limit is "
                                    f"{_size(max_bytes)}{why}")  # fmt: skip
    try:
        return read_regular_file(path, max_bytes)
    except MeshFileError as exc:
        raise TreeFileError(path, exc.reason) from None


class _DuplicateKey(Exception):
    """A JSON object naming one key twice (raised by :func:`_unique_keys`)."""


class _LongInteger(Exception):
    """A JSON number with more than :data:`MAX_INT_DIGITS` digits."""


def _unique_keys(pairs: list) -> dict:
    """``object_pairs_hook``: a JSON object, refused if it names a key twice (json keeps
    the last silently, so which value the writer meant cannot be told)."""
    keys = dict(pairs)
    if len(keys) != len(pairs):
        seen = set()
        for name, _value in pairs:
            if name in seen:
                raise _DuplicateKey(name)
            seen.add(name)
    return keys


def _whole_number(text: str) -> int:
    """``parse_int``: a JSON integer, refused past :data:`MAX_INT_DIGITS` digits."""
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _LongInteger(text)
    return int(text)


def _key_before(text: str, at: int) -> str | None:
    """The name of the last JSON key before character ``at`` (the key a value belongs to:
    the schema's values hold no objects)."""
    found = None
    for match in re.finditer(r'"((?:[^"\\\n]|\\.){0,80})"\s*:', text[:at]):
        found = match.group(1)
    return found


def _json_keys(path: Path, data: bytes) -> dict:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TreeFileError(path, "not JSON (not UTF-8 text)") from None
    try:
        keys = json.loads(text, object_pairs_hook=_unique_keys, parse_int=_whole_number)
    except json.JSONDecodeError as exc:
        raise TreeFileError(path, f"not JSON ({exc.msg} at line {exc.lineno} column "
                                  f"{exc.colno})") from None  # fmt: skip
    except RecursionError:
        raise TreeFileError(path, "not JSON this reader accepts (nested too deeply)") from None
    except _DuplicateKey as exc:
        raise TreeFileError(path, f"key {str(exc.args[0])[:80]!r} is given twice (which "
                                  f"value is meant cannot be told)") from None  # fmt: skip
    except (_LongInteger, ValueError) as exc:
        # ValueError: Python's own limit on the digits of an int (a long number in a place
        # parse_int does not see, e.g. an exponent).
        match = re.search(rf"-?\d{{{MAX_INT_DIGITS + 1},}}", text)
        at = match.start() if match else 0
        digits = len(match.group(0).lstrip("-")) if match else 0
        key = _key_before(text, at) if match else None
        where = f" in {key!r}" if key is not None else ""
        line = text.count("\n", 0, at) + 1
        raise TreeFileError(path, f"a number of {digits:,} digits{where} (line {line}; at "
                                  f"most {MAX_INT_DIGITS} digits)" if match else
                                  f"not JSON this reader accepts ({exc})") from None  # fmt: skip
    if not isinstance(keys, dict):
        raise TreeFileError(path, f"not a tree file (the JSON is a {type(keys).__name__}, "
                                  f"not an object)")  # fmt: skip
    return keys


_ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


def _npy_header_bytes(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> int:
    """The length of a ``.npy`` member's header, read from its first bytes (0 if they are
    not an ``.npy`` magic: :func:`core.files.container.read_array` names that)."""
    with archive.open(info) as stream:
        head = stream.read(12)
    if len(head) < 10 or head[:6] != b"\x93NUMPY":
        return 0
    if head[6] == 1:
        return 10 + int.from_bytes(head[8:10], "little")
    return 12 + int.from_bytes(head[8:12], "little") if len(head) == 12 else 0


def _npz_keys(path: Path, data: bytes, max_bytes: int) -> dict:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, EOFError):
        raise TreeFileError(path, "not an npz archive (not a zip file)") from None
    with archive:
        members = archive.infolist()
        names = set()
        for info in members:
            name = info.filename
            if name in names:
                raise TreeFileError(path, f"member {name[:80]!r} is in the archive twice (which "
                                          f"one is meant cannot be told)")  # fmt: skip
            names.add(name)
            if info.flag_bits & 0x1:
                raise TreeFileError(path, f"member {name[:80]!r} is encrypted (tree files are "
                                          f"never encrypted)")  # fmt: skip
            if info.compress_type not in _ZIP_METHODS:
                raise TreeFileError(path, f"member {name[:80]!r} uses compression method "
                                          f"{info.compress_type} (an npz uses stored or "
                                          f"deflate only)")  # fmt: skip
        unpacked = sum(m.file_size for m in members)
        if unpacked > max_bytes:
            raise TreeFileError(path, f"too large: its arrays unpack to {_size(unpacked)}; "
                                      f"the limit is {_size(max_bytes)}")  # fmt: skip
        keys = {}
        for info in members:
            if not info.filename.endswith(".npy"):
                continue
            name = info.filename[: -len(".npy")]
            try:
                header = _npy_header_bytes(archive, info)
                if header > MAX_NPY_HEADER_BYTES:
                    raise TreeFileError(path, f"array {name[:80]!r}: its .npy header is "
                                              f"{header:,} bytes (at most "
                                              f"{MAX_NPY_HEADER_BYTES:,})")  # fmt: skip
                keys[name] = read_array(archive, info.filename)
            except TreeFileError:
                raise
            except (EOFError, zipfile.BadZipFile, zlib.error) as exc:
                raise TreeFileError(path, f"array {name[:80]!r}: damaged ({exc})") from None
            except (ValueError, SyntaxError, ContainerLimitError) as exc:  # caps: not ValueErrors
                # SyntaxError: a header NumPy cannot parse as a Python literal.
                text = str(exc).strip().splitlines()[0] if str(exc).strip() else "bad header"
                raise TreeFileError(path, f"array {name[:80]!r}: {text}") from None
    if not keys:
        raise TreeFileError(path, "not an npz archive of a tree (it holds no .npy arrays)")
    return keys


def read_tree(path, mesh: TriMesh, max_bytes: int = MAX_FILE_BYTES,
              encoding: str | None = None) -> ImportedTree:  # fmt: skip
    """Read a tree file (``.json`` or ``.npz``) built over ``mesh``'s faces.

    Parameters
    ----------
    path : str or os.PathLike
    mesh : TriMesh
        The mesh the tree was built on (its face count must match ``triangles``).
    max_bytes : int
        Largest file read (default :data:`core.io.common.MAX_FILE_BYTES`, 2 GiB); for an
        ``.npz`` also the most its arrays may unpack to. The mesh sets a lower limit
        (:func:`max_tree_bytes`: 1 MiB + 2 KiB a triangle).
    encoding : {"json", "npz"}, optional
        Read as this encoding whatever the suffix (:func:`core.bvh.tree_formats.
        read_any_tree` chooses it from the file's first bytes); default: by the suffix.

    Returns
    -------
    ImportedTree

    Raises
    ------
    TreeFileError
        One line naming the file and what is wrong (control characters escaped), with the
        file's node id where a node is at fault: not a regular file, too large, not JSON, a
        key given twice, a number of more than 30 digits, not an npz archive, an archive
        member twice, encrypted or compressed other than by deflate, an ``.npy`` header past
        4 KiB, pickled arrays, a missing key, another format version (exactly the int 1), a
        wrong type or shape (every element of a JSON list checked: no ``true``, ``null`` or
        strings among numbers), more nodes than a binary tree over the triangles has, a node
        count that does not match, a child id out of range, a node with one child, a node
        reached twice (a cycle or a shared child: that node and its parents), unreachable
        nodes, a leaf range outside ``order``, ``order`` not a permutation, two leaves
        holding the same triangle (both leaves and their ranges), a triangle in no leaf (the
        triangle, its place in ``order`` and the leaves whose ranges end before and start
        after it), a triangle count other than the mesh's, bounds that are NaN or infinite.
    """
    t0 = time.perf_counter()
    if not isinstance(mesh, TriMesh):
        raise TypeError(f"mesh must be a TriMesh, got {type(mesh).__name__}")
    path = Path(os.fspath(path))
    suffix = _suffix(path) if encoding is None else f".{encoding}"
    limit = min(int(max_bytes), max_tree_bytes(mesh.n_faces))
    why = (f" (1 MiB + 2 KiB a triangle of the mesh's {mesh.n_faces:,})"
           if limit < int(max_bytes) else "")  # fmt: skip
    data = _file_bytes(path, limit, why)
    if suffix == ".json":
        keys = _Keys(path, _json_keys(path, data), is_json=True)
    else:
        keys = _Keys(path, _npz_keys(path, data, limit), is_json=False)
    del data

    f = _check_keys(keys, mesh)
    tree, file_of = tree_from_file(path, mesh, f, t0)
    return ImportedTree(tree=tree, file_ids=file_of, path=path,
                        source=f"file {path.name}, {f.k:,} nodes", split=f.split)  # fmt: skip

