"""A bounding-volume tree in a file: ours written out, another engine's read in.

One schema (version 1), two encodings chosen by the file's suffix: ``.json`` (text, one node's
bounds per line, easy to read and to edit by hand) and ``.npz`` (a NumPy archive of plain
arrays, read without unpickling). The keys:

``format``
    ``"bvh-lab-tree"``.
``version``
    ``1``.
``triangles`` (m), ``nodes`` (k)
    Counts; ``triangles`` must be the mesh's face count.
``bounds``
    ``(k, 6)`` numbers: each node's axis-aligned box, ``min x, min y, min z, max x, max y,
    max z``, in the mesh's own (local) coordinates.
``order``
    ``(m,)`` integers: the triangle (face) ids in the tree's order, a permutation of
    ``0..m-1``; leaves name ranges of it.
one of two layouts
    **children**: ``children`` ``(k, 2)`` node ids, ``[-1, -1]`` for a leaf, and for every
    node ``start`` and ``count`` ``(k,)``: a leaf's triangles are
    ``order[start : start + count]`` (``count >= 1``); internal nodes have ``count`` 0 and
    any ``start``. **flat** (the layout BVH Lab uses): ``first`` and ``count`` ``(k,)``; a
    node with ``count`` 0 has its children at ``first`` and ``first + 1``, a leaf owns
    ``order[first : first + count]``.
``split``, ``leaf_size`` (optional)
    How the tree was built, when BVH Lab wrote it.

Node ids in a file are arbitrary: children need not follow their parents, and the root is
the one node that is nobody's child. Only binary trees are read: a node with one child is an
error naming it. Reading renumbers the nodes into BVH Lab's layout (children adjacent and
after their parent; ids kept as they are when the file already has that layout, so a tree we
wrote reads back identical) and keeps each node's id in the file, so errors and the viewer
can name the file's ids. Boxes are kept exactly as the file gives them: boxes that do not
enclose their children or triangles are not a reading error; :func:`core.bvh.validate.
validate_tree` lists them.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import os
import re
import stat
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.bvh.quality import sah_cost, volume_sum
from core.bvh.tree import BuildStats, SplitRule, Tree
from core.bvh.treefile_walk import breadth_first, cycle_from, peel, subtree_runs
from core.errors import BVHLabError, MeshFileError
from core.files.container import ContainerLimitError, read_array
from core.files.safe_write import replace_file
from core.io.common import MAX_FILE_BYTES, read_regular_file
from core.jit.kernel_args import frozen
from core.mesh import TriMesh
from core.text import printable

FORMAT_NAME = "bvh-lab-tree"
FORMAT_VERSION = 1
SUFFIXES = (".json", ".npz")


BYTES_PER_TRIANGLE = 2048
"""A tree file over ``m`` triangles may be at most ``BASE_BYTES + BYTES_PER_TRIANGLE * m``
bytes, and an ``.npz``'s arrays may unpack to at most as much: the tree holds fewer than
``2 m`` nodes, and a node takes about 120 bytes of JSON as BVH Lab writes it (80 in an
``.npz`` of int64 and float64), so this leaves room for any layout and indentation while a
file cannot make the reader take memory out of proportion to the mesh."""

BASE_BYTES = 2**20
"""See :data:`BYTES_PER_TRIANGLE`."""

MAX_NPY_HEADER_BYTES = 4096
"""Most bytes of an ``.npy`` member's header in an ``.npz`` tree (NumPy writes 128)."""

MAX_INT_DIGITS = 30
"""Most digits of a whole number in a JSON tree file (an int64 has 19): longer ones are
refused before Python converts them (its own limit, 4,300 digits, raises deep inside the
JSON parser without naming the file)."""


class TreeFileError(BVHLabError, ValueError):
    """A tree file that cannot be read or written: one line naming the file and the reason."""

    def __init__(self, path, reason: str):
        self.path = str(path)
        self.reason = reason
        # The file's name and its text (a key, a format name) may hold control characters:
        # escaped, so the message stays one line and changes no terminal.
        super().__init__(printable(f"{self.path}: {reason}"))


@dataclass(frozen=True, eq=False)
class ImportedTree:
    """A tree read from a file, in BVH Lab's layout, with the file's own node ids.

    Attributes
    ----------
    tree : Tree
        Renumbered topology over the mesh's faces, with the file's boxes exactly as read.
        Its ``stats`` are computed from its arrays (``build_seconds`` is the time reading and
        renumbering took). ``tree.split`` is the rule the file names, else ``MIDPOINT`` as a
        placeholder: ``split`` below says whether it is known.
    file_ids : (k,) int64
        ``file_ids[node]`` is the id node ``node`` has in the file.
    path : pathlib.Path
    source : str
        For people: ``"file foo.json, 2,047 nodes"``.
    split : SplitRule or None
        The split rule the file names (trees BVH Lab wrote), or None: built by another engine
        with its own rule. The SplitRule enum gains no "imported" member on purpose: every
        member is a rule the builder can run.
    volumes : dict of str to (k, w) float64
        The file's own bounding volumes, by the name of the kind of :mod:`core.bv` whose row
        layout they are in (``"obb"``, ``"rss"``), in our node order, read-only: an engine's
        tree file (coal) brings its own oriented volumes, used as they are by the query,
        the drawing, the quality measures and the checks
        (:func:`core.bv.registry.give_volumes`). Empty for a file of boxes only. The first
        key is the kind drawn and tested by default.
    volume_note : str
        For people: which of the file's volumes are used, e.g. "coal OBBRSS: the OBB part
        is drawn and tested (--bv rss, or RSS volumes in the app, uses the RSS part)"; ""
        for our own files.
    """

    tree: Tree
    file_ids: np.ndarray
    path: Path
    source: str
    split: SplitRule | None = None
    volumes: dict = dataclasses.field(default_factory=dict)
    volume_note: str = ""

    def file_id(self, node: int) -> int:
        """The file's id of our node ``node`` (what tables, captions, JSON and errors show
        for a tree read from a file)."""
        return int(self.file_ids[int(node)])

    def __post_init__(self):
        # The tree names its file wherever it goes (pinned, refitted), so a query's budget
        # error can say which tree overlaps too much.
        if not self.tree.origin:
            origin = f"tree from {Path(self.path).name}"
            object.__setattr__(self, "tree", dataclasses.replace(self.tree, origin=origin))

    def node_of(self, file_id: int) -> int:
        """Our node id of the file's node ``file_id`` (ValueError if the file has none)."""
        hits = np.flatnonzero(self.file_ids == int(file_id))
        if hits.size == 0:
            raise ValueError(f"{self.path}: the file has no node {file_id}")
        return int(hits[0])


# ---- writing --------------------------------------------------------------------------------


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise TreeFileError(path, f"unknown tree file type {path.suffix or '(none)'!r}; use "
                                  f"{' or '.join(SUFFIXES)}")  # fmt: skip
    return suffix


def tree_arrays(tree: Tree) -> dict:
    """The schema's keys for ``tree`` in the flat layout (what :func:`write_tree` stores).

    Returns
    -------
    dict
        ``format``, ``version``, ``triangles``, ``nodes``, ``split``, ``leaf_size`` (str and
        int) and ``bounds`` ``(k, 6) float64``, ``first``, ``count`` ``(k,) int32``, ``order``
        ``(m,) int32``.
    """
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "triangles": int(tree.prim_ids.shape[0]),
        "nodes": int(tree.n_nodes),
        "split": tree.split.name.lower(),
        "leaf_size": int(tree.leaf_size),
        "bounds": np.concatenate([tree.bmin, tree.bmax], axis=1),
        "first": np.asarray(tree.first, dtype=np.int32),
        "count": np.asarray(tree.count, dtype=np.int32),
        "order": np.asarray(tree.prim_ids, dtype=np.int32),
    }


def _json_text(keys: dict) -> str:
    """The JSON file: one node's bounds per line, so one node can be found and edited."""
    lines = ["{"]
    for name in ("format", "version", "triangles", "nodes", "split", "leaf_size"):
        lines.append(f"  {json.dumps(name)}: {json.dumps(keys[name])},")
    # Floats are written as repr, which reads back exactly. One dumps call for all rows, then
    # a line break between rows (1M nodes: 6.4 s of CPU against 8.2 s with a call per row;
    # the rest is the repr of 6M floats).
    rows = json.dumps(keys["bounds"].tolist(), allow_nan=False)[1:-1]
    lines.append('  "bounds": [')
    lines.append("    " + rows.replace("], [", "],\n    ["))
    lines.append("  ],")
    for name in ("first", "count"):
        lines.append(f"  {json.dumps(name)}: {json.dumps(keys[name].tolist())},")
    lines.append(f'  "order": {json.dumps(keys["order"].tolist())}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_tree(path, tree) -> Path:
    """Write ``tree`` (a :class:`Tree` or an :class:`ImportedTree`) to ``path``.

    The suffix chooses the encoding (``.json`` or ``.npz``); the flat layout is written with
    node ids as in the tree. The file is written under a temporary name beside ``path`` and
    renamed at the end, so a failure leaves an existing file as it was.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    TreeFileError
        Unknown suffix, a box that is not a finite number, or the file cannot be written.
    """
    if isinstance(tree, ImportedTree):
        tree = tree.tree
    if not isinstance(tree, Tree):
        raise TypeError(f"tree must be a Tree or an ImportedTree, got {type(tree).__name__}")
    path = Path(os.fspath(path))
    suffix = _suffix(path)
    keys = tree_arrays(tree)
    if not np.isfinite(keys["bounds"]).all():
        node = int(np.flatnonzero(~np.isfinite(keys["bounds"]).all(axis=1))[0])
        raise TreeFileError(path, f"cannot write: node {node}'s box is not a finite number")
    def write(out) -> None:
        if suffix == ".json":
            out.write(_json_text(keys).encode("utf-8"))
        else:
            np.savez_compressed(out, **{name: np.asarray(value)
                                        for name, value in keys.items()})  # fmt: skip

    try:
        replace_file(path, write)
    except OSError as exc:
        raise TreeFileError(path, f"cannot write: {exc.strerror or exc}") from None
    return path


# ---- reading: bytes to a dict of keys --------------------------------------------------------


def _size(n: int) -> str:
    """``"1,048,577 bytes"``, or ``"12.5 MiB"`` from 10 MiB on."""
    return f"{n / 2**20:,.1f} MiB" if n >= 10 * 2**20 else f"{n:,} bytes"


def _file_bytes(path: Path, max_bytes: int, why: str = "") -> bytes:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise TreeFileError(path, "no such file") from None
    except OSError as exc:
        raise TreeFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(info.st_mode):
        raise TreeFileError(path, "is a directory, not a tree file")
    if not stat.S_ISREG(info.st_mode):
        raise TreeFileError(path, "is not a regular file (a pipe, device or socket)")
    if info.st_size > max_bytes:
        raise TreeFileError(path, f"too large: {_size(info.st_size)}; the limit is "
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


# ---- reading: checking the keys ---------------------------------------------------------------


class _Keys:
    """The file's keys, each taken out with its type and shape checked (one-line errors)."""

    def __init__(self, path: Path, keys: dict, is_json: bool):
        self.path = path
        self.keys = keys
        self.is_json = is_json

    def fail(self, reason: str):
        raise TreeFileError(self.path, reason)

    def has(self, name: str) -> bool:
        return name in self.keys

    def raw(self, name: str):
        if name not in self.keys:
            self.fail(f"missing key {name!r}")
        return self.keys[name]

    def scalar(self, name: str, kind: str):
        """A number (``kind`` "int") or string (``kind`` "str")."""
        value = self.raw(name)
        if isinstance(value, np.ndarray):
            if value.shape != ():
                self.fail(f"{name!r} must be a single value, got an array of shape "
                          f"{value.shape}")  # fmt: skip
            value = value.item()
        if kind == "int" and type(value) is not int:  # a bool is an int: refused
            self.fail(f"{name!r} must be a whole number, got {_value_text(value)}")
        if kind == "str" and not isinstance(value, str):
            self.fail(f"{name!r} must be a string, got {_value_text(value)}")
        if kind == "str" and len(value) > 200:
            self.fail(f"{name!r} is {len(value):,} characters long (at most 200)")
        return value

    def array(self, name: str, kind: str, shape: tuple) -> np.ndarray:
        """An array of integers (``kind`` "int": int64) or numbers ("float": float64) of
        ``shape`` (an int or None per axis)."""
        value = self.raw(name)
        if not isinstance(value, np.ndarray):
            value = self._json_array(name, value, kind, shape)
        want = "iu" if kind == "int" else "iuf"
        if value.dtype.kind not in want:
            what = "integers" if kind == "int" else "numbers"
            self.fail(f"{name!r} must hold {what}, got {_dtype_text(value, self.is_json)}")
        if value.ndim != len(shape) or any(want is not None and got != want
                                           for got, want in zip(value.shape, shape)):
            self.fail(f"{name!r} must have shape {_shape_text(shape)}, got {value.shape}")
        if kind == "int":
            if value.dtype.kind == "u" and value.size and int(value.max()) > 2**62:
                self.fail(f"{name!r} holds an id too large ({int(value.max())})")
            return value.astype(np.int64)
        return value.astype(np.float64)


    def _json_array(self, name: str, value, kind: str, shape: tuple) -> np.ndarray:
        """A JSON value as an array, its nesting and the type of every element checked
        first (NumPy would take ``true`` for 1 and an integer past int64 for an object).

        Each check runs over the whole list at C speed (``set(map(type, ...))``): a
        million-node tree costs a fraction of a second."""
        if len(shape) == 2:
            if not isinstance(value, list) or not set(map(type, value)) <= {list}:
                self.fail(f"{name!r} must be a list of lists (shape {_shape_text(shape)})")
            widths = set(map(len, value))
            if len(widths) > 1:
                self.fail(f"{name!r} must be an array of shape {_shape_text(shape)} (rows of "
                          f"unequal length: {', '.join(map(str, sorted(widths)[:4]))})")
            items = itertools.chain.from_iterable(value)
        else:
            if not isinstance(value, list):
                self.fail(f"{name!r} must be a list (shape {_shape_text(shape)}), got "
                          f"{_json_type_text(type(value))}")  # fmt: skip
            items = value
        allowed = {int} if kind == "int" else {int, float}
        wrong = set(map(type, items)) - allowed
        if wrong:
            what = "whole numbers" if kind == "int" else "numbers"
            got = ", ".join(sorted(_json_type_text(t) for t in wrong))
            self.fail(f"{name!r} must hold {what}, got {got}")
        try:
            return np.array(value, dtype=np.int64 if kind == "int" else np.float64)
        except OverflowError:
            self.fail(f"{name!r} holds a number too large (an id past int64, or a bound past "
                      f"the largest float)")  # fmt: skip


def _value_text(value) -> str:
    """A value from the file as printed in a message: its repr, cut to 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _json_type_text(kind: type) -> str:
    return {bool: "true/false", str: "strings", type(None): "null", float:
            "numbers with fractions", list: "lists (nested too deeply)", dict: "objects",
            int: "whole numbers"}.get(kind, kind.__name__)  # fmt: skip


def _shape_text(shape: tuple) -> str:
    names = iter(("k", "m", "n"))
    return "(" + ", ".join(str(s) if s is not None else next(names) for s in shape) + ")"


def _dtype_text(value: np.ndarray, is_json: bool) -> str:
    if not is_json:
        return f"dtype {value.dtype}"
    return {"b": "true/false", "U": "strings", "O": "mixed values or null",
            "f": "numbers with fractions"}.get(value.dtype.kind, str(value.dtype))  # fmt: skip


@dataclass
class _FileTree:
    """The file's tree in the children layout, file ids, checked."""

    m: int
    k: int
    bounds: np.ndarray  # (k, 6) float64
    children: np.ndarray  # (k, 2) int64, -1 for leaves
    start: np.ndarray  # (k,) int64
    count: np.ndarray  # (k,) int64
    order: np.ndarray  # (m,) int64
    split: SplitRule | None
    leaf_size: int | None


def _check_keys(keys: _Keys, mesh: TriMesh) -> _FileTree:
    if not keys.has("format"):
        keys.fail(f"not a BVH Lab tree file (no 'format' key; expected {FORMAT_NAME!r})")
    fmt = keys.scalar("format", "str")
    if fmt != FORMAT_NAME:
        keys.fail(f"not a BVH Lab tree file (its 'format' is {fmt!r}, not {FORMAT_NAME!r})")
    version = keys.raw("version")
    if isinstance(version, np.ndarray) and version.shape == ():
        version = version.item()  # an npz's scalar: a Python int, float, bool or str
    # Exactly the int 1: not 1.0, not true (a bool is an int in Python), not "1".
    if type(version) is not int:
        keys.fail(f"'version' must be the whole number {FORMAT_VERSION}, got "
                  f"{_value_text(version)}")  # fmt: skip
    if version != FORMAT_VERSION:
        keys.fail(f"format version {version}; this app reads version {FORMAT_VERSION}")
    m = keys.scalar("triangles", "int")
    k = keys.scalar("nodes", "int")
    if k < 1:
        keys.fail(f"'nodes' must be at least 1, got {k}")
    if m != mesh.n_faces:
        named = f"the mesh {mesh.name}" if mesh.name else "the mesh"
        keys.fail(f"the tree is over {m:,} triangles but {named} has {mesh.n_faces:,}")
    bounds = keys.array("bounds", "float", (None, 6))
    if bounds.shape[0] != k:
        keys.fail(f"node count mismatch: 'nodes' is {k:,} but 'bounds' has {bounds.shape[0]:,} "
                  f"rows")  # fmt: skip
    if k > 2 * m - 1:
        # Every leaf holds a triangle and every internal node two children.
        keys.fail(f"'nodes' is {k:,}, but a binary tree over {m:,} triangles has at most "
                  f"{max(2 * m - 1, 1):,}")  # fmt: skip
    order = keys.array("order", "int", (None,))
    if order.shape[0] != m:
        keys.fail(f"'order' has {order.shape[0]:,} entries, not one per triangle ({m:,})")

    if keys.has("children") and keys.has("first"):
        keys.fail("has both 'children' and 'first': give one layout")
    if keys.has("children"):
        children = keys.array("children", "int", (k, 2))
        start = keys.array("start", "int", (k,))
        count = keys.array("count", "int", (k,))
    elif keys.has("first"):
        first = keys.array("first", "int", (k,))
        count = keys.array("count", "int", (k,))
        is_leaf = count > 0
        children = np.where(is_leaf[:, None], -1, first[:, None] + np.array([0, 1]))
        # The flat layout's children are at first, first + 1: name a bad ``first`` as such.
        bad = ~is_leaf & ((first < 0) | (first + 1 >= k))
        if bad.any():
            node = int(np.flatnonzero(bad)[0])
            keys.fail(f"node {node}: children {int(first[node])}, {int(first[node]) + 1} are "
                      f"not node ids (0..{k - 1})")  # fmt: skip
        start = np.where(is_leaf, first, 0)
    else:
        keys.fail("missing key 'children' (or 'first' for the flat layout)")

    split = leaf_size = None
    if keys.has("split"):
        name = keys.scalar("split", "str")
        if name.upper() not in SplitRule.__members__:
            keys.fail(f"'split' {name!r} is not a split rule "
                      f"({', '.join(r.name.lower() for r in SplitRule)})")  # fmt: skip
        split = SplitRule[name.upper()]
    if keys.has("leaf_size"):
        leaf_size = keys.scalar("leaf_size", "int")
        if not 1 <= leaf_size < 2**31:  # the builder's setting, an int32
            keys.fail(f"'leaf_size' must be from 1 to {2**31 - 1:,}, got {leaf_size:,}")
    return _FileTree(m, k, bounds, children, start, count, order, split, leaf_size)


def _check_nodes(f: _FileTree, fail) -> None:
    """Bounds are numbers, children name nodes, binary only, leaf ranges inside ``order``."""
    bad = ~np.isfinite(f.bounds).all(axis=1)
    if bad.any():
        node = int(np.flatnonzero(bad)[0])
        others = int(bad.sum()) - 1
        fail(f"node {node}: bounds hold NaN or infinity"
             + (f" (and {others:,} other node{_s(others)})" if others else ""))
    out = ((f.children < -1) | (f.children >= f.k)).any(axis=1)
    if out.any():
        node = int(np.flatnonzero(out)[0])
        child = int(f.children[node][(f.children[node] < -1) | (f.children[node] >= f.k)][0])
        fail(f"node {node}: child {child} is not a node id (0..{f.k - 1}, or -1 for none)")
    n_children = (f.children >= 0).sum(axis=1)
    odd = n_children == 1
    if odd.any():
        node = int(np.flatnonzero(odd)[0])
        fail(f"node {node} has 1 child; only binary trees are read (0 or 2 children a node)")
    twice = (n_children == 2) & (f.children[:, 0] == f.children[:, 1])
    if twice.any():
        node = int(np.flatnonzero(twice)[0])
        fail(f"node {node} names node {int(f.children[node, 0])} as both its children "
             f"(a node reached twice)")  # fmt: skip
    is_leaf = n_children == 0
    inner_range = ~is_leaf & (f.count != 0)
    if inner_range.any():
        node = int(np.flatnonzero(inner_range)[0])
        fail(f"node {node} has children and a triangle range (count {int(f.count[node])})")
    empty = is_leaf & (f.count <= 0)
    if empty.any():
        node = int(np.flatnonzero(empty)[0])
        fail(f"node {node} is a leaf with no triangles (count {int(f.count[node])})")
    past = is_leaf & ((f.start < 0) | (f.start + f.count > f.m))
    if past.any():
        node = int(np.flatnonzero(past)[0])
        fail(f"node {node}: leaf range {int(f.start[node])}+{int(f.count[node])} is outside "
             f"'order' (0..{f.m})")  # fmt: skip
    _check_permutation(f.order, f.m, "'order' is not a permutation of the triangle ids", fail)


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _check_permutation(ids: np.ndarray, m: int, what: str, fail) -> None:
    outside = (ids < 0) | (ids >= m)
    if outside.any():
        fail(f"{what}: {int(ids[outside][0])} is not a triangle id (0..{m - 1})")
    seen = np.bincount(ids, minlength=m)
    if (seen != 1).any():
        repeated = np.flatnonzero(seen > 1)
        missing = np.flatnonzero(seen == 0)
        fail(f"{what}: {repeated.size:,} id{_s(repeated.size)} repeated (first "
             f"{int(repeated[0])}), {missing.size:,} missing (first {int(missing[0])})")


def _root(f: _FileTree, fail) -> int:
    """The one node that is nobody's child; a node named as a child twice (a shared child or
    a cycle) is named first, with its parents, since it is what leaves another node without
    a parent or the tree without a root."""
    times_child = _times_child(f)
    twice = np.flatnonzero(times_child > 1)
    roots = np.flatnonzero(times_child == 0)
    if twice.size or roots.size == 0:
        cycle = _find_cycle(f, times_child)
        if cycle is not None:
            fail(_cycle_text(f, *cycle))
        fail(_shared_text(f, int(twice[0]), int(twice.size)))
    if roots.size > 1:
        listed = ", ".join(str(int(r)) for r in roots[:4]) + (" ..." if roots.size > 4 else "")
        fail(f"{roots.size:,} nodes are nobody's child ({listed}): a tree has one root, and "
             f"from it the others are unreachable")  # fmt: skip
    return int(roots[0])


def _times_child(f: _FileTree) -> np.ndarray:
    """``(k,) int64``: how many nodes name each node as a child."""
    return np.bincount(f.children[f.children >= 0], minlength=f.k)


def _find_cycle(f: _FileTree, times_child: np.ndarray) -> tuple[int, int] | None:
    """A node on a cycle and the node under it that names it as a child, or None.

    Peels the nodes no remaining node names as a child, parents first (one pass over the
    nodes, :func:`core.bvh.treefile_walk.peel`); what is left lies on a cycle or under one.
    Going up from a node left, through parents also left, comes back to a node already met:
    that node is on a cycle. Of the cycle's nodes, the one also named by a node outside the
    cycle (where the walk from the root enters it) is returned, else the one with the
    largest box.
    """
    peeled, _steps = peel(f.children, times_child)
    if peeled.all():
        return None
    parent = np.full(f.k, -1, dtype=np.int64)
    inner = np.flatnonzero(~peeled & (f.children[:, 0] >= 0))
    parent[f.children[inner, 0]] = inner
    parent[f.children[inner, 1]] = inner
    cycle = cycle_from(parent, int(np.flatnonzero(~peeled)[0]))
    entered = cycle[times_child[cycle] > 1]
    if entered.size:
        top = int(entered.min())
    else:
        # A cycle nobody outside names (through the root): the node the hand edit most
        # likely pointed back to is the one with the largest box.
        size = (f.bounds[cycle, 3:] - f.bounds[cycle, :3]).sum(axis=1)
        top = int(cycle[np.argmax(size)])
    return top, int(parent[top])


def _parents(f: _FileTree, node: int) -> np.ndarray:
    """``(j,) int64``: the file ids of the nodes that name ``node`` as a child, ascending."""
    return np.flatnonzero((f.children == node).any(axis=1))


def _named(parents: np.ndarray) -> str:
    """``"nodes 1 and 3"`` (or ``"node 6"``)."""
    if parents.size == 1:
        return f"node {int(parents[0])}"
    return "nodes " + " and ".join(str(int(p)) for p in parents[:2]) + (
        f" (and {parents.size - 2:,} more)" if parents.size > 2 else "")  # fmt: skip


def _cycle_text(f: _FileTree, node: int, under: int) -> str:
    parents = _parents(f, node)
    if parents.size == 1:
        return (f"node {node} is reached twice (a cycle): it is the child of node {under}, "
                f"which is under node {node}")  # fmt: skip
    return (f"node {node} is reached twice (a cycle): it is the child of {_named(parents)}, "
            f"and node {under} is under node {node}")  # fmt: skip


def _shared_text(f: _FileTree, node: int, n_nodes: int) -> str:
    others = n_nodes - 1
    return (f"node {node} is reached twice (a shared child): it is the child of "
            f"{_named(_parents(f, node))}"
            + (f" ({others:,} other node{_s(others)} reached twice)" if others else ""))


# ---- renumbering -----------------------------------------------------------------------------


def _in_our_layout(f: _FileTree, root: int) -> bool:
    """Root 0, each pair of children adjacent (right = left + 1) and after its parent."""
    inner = np.flatnonzero(f.children[:, 0] >= 0)
    left, right = f.children[inner, 0], f.children[inner, 1]
    return root == 0 and bool(((right == left + 1) & (left > inner)).all())


def _renumber(f: _FileTree, root: int, fail) -> tuple[np.ndarray, np.ndarray]:
    """Breadth-first numbering: ``(file_of, depth)``, ``file_of[ours]`` the file's id.

    A level's children get consecutive ids in the order of their parents, so a pair is
    adjacent and after its parent. A node met twice (a shared child, or a cycle through the
    root) or never (unreachable) is an error naming the file's id.
    """
    file_of, depth_of, n, again, _steps = breadth_first(f.children, root)
    if again >= 0:
        parents = _parents(f, int(again))
        fail(f"node {again} is reached twice (a cycle or a shared child): it is a child of "
             f"nodes {', '.join(str(int(p)) for p in parents[:3])}")  # fmt: skip
    if n != f.k:
        # Every node but the root is the child of one node (checked before), so the nodes
        # the root does not reach lead up to a cycle among themselves.
        lost = f.k - n
        fail(f"{_cycle_text(f, *_find_cycle(f, _times_child(f)))} ({lost:,} nodes are "
             f"unreachable from node {root}, the one node that is nobody's child)")  # fmt: skip
    return file_of, depth_of


def _build(f: _FileTree, mesh: TriMesh, file_of: np.ndarray, depth: np.ndarray,
           seconds_from: float) -> Tree:  # fmt: skip
    """Our Tree from the file's, nodes ``file_of[ours]``; runs computed, prim_ids laid out."""
    # The builder's own grouping by depth, so an imported tree's level arrays are exactly
    # those a build of the same topology has.
    from core.bvh.build import _levels

    k, m = f.k, f.m
    ours_of = np.empty(k, dtype=np.int64)
    ours_of[file_of] = np.arange(k)
    children = f.children[file_of]  # (k, 2) file ids, our order
    is_leaf = children[:, 0] < 0
    left = np.where(is_leaf, 0, ours_of[np.maximum(children[:, 0], 0)])
    count = np.where(is_leaf, f.count[file_of], 0)
    parent = np.full(k, -1, dtype=np.int64)
    inner = np.flatnonzero(~is_leaf)
    parent[left[inner]] = inner
    parent[left[inner] + 1] = inner
    level_nodes, level_start = _levels(depth.astype(np.int32))

    # Triangles under each node, bottom-up; then each run's start top-down (one pass each:
    # children come after their parent).
    n_prims, prim_start, _steps = subtree_runs(left, is_leaf, count)
    if n_prims[0] != m:
        raise AssertionError("leaf counts were checked against the triangles")

    # Each leaf's triangles, in the file's order within the leaf, at the leaf's run.
    leaves = np.flatnonzero(is_leaf)
    counts = count[leaves]
    src = np.repeat(f.start[file_of[leaves]] - np.cumsum(counts) + counts, counts)
    dst = np.repeat(prim_start[leaves] - np.cumsum(counts) + counts, counts)
    within = np.arange(int(counts.sum()))
    prim_ids = np.empty(m, dtype=np.int64)
    prim_ids[dst + within] = f.order[src + within]
    first = np.where(is_leaf, prim_start, left)

    # Read-only as every tree's boxes (core.jit.kernel_args): sah_cost below and every kernel
    # after it run the signatures the warm-up compiled.
    bmin = frozen(f.bounds[file_of, :3])
    bmax = frozen(f.bounds[file_of, 3:])
    i32 = {name: a.astype(np.int32) for name, a in (
        ("first", first), ("count", count), ("parent", parent), ("depth", depth),
        ("prim_start", prim_start), ("n_prims", n_prims), ("prim_ids", prim_ids))}  # fmt: skip
    for a in (*i32.values(), level_nodes, level_start):
        a.flags.writeable = False
    leaf_depth, leaf_count = depth[leaves], count[leaves]
    stats = BuildStats(
        n_nodes=k,
        n_leaves=int(leaves.shape[0]),
        depth_min=int(leaf_depth.min()),
        depth_max=int(leaf_depth.max()),
        leaf_size_mean=float(leaf_count.mean()),
        leaf_size_max=int(leaf_count.max()),
        sah_cost=float(sah_cost(bmin, bmax, i32["count"])),
        volume_sum=float(volume_sum(bmin, bmax)),
        build_seconds=time.perf_counter() - seconds_from,
    )
    split = f.split if f.split is not None else SplitRule.MIDPOINT
    leaf_size = f.leaf_size if f.leaf_size is not None else int(leaf_count.max())
    return Tree(**i32, bmin=bmin, bmax=bmax, level_nodes=level_nodes, level_start=level_start,
                faces=mesh.faces, split=split, leaf_size=max(int(leaf_size), 1),
                stats=stats)  # fmt: skip


def max_tree_bytes(n_triangles: int) -> int:
    """Most bytes of a tree file over ``n_triangles`` triangles, and most its ``.npz`` arrays
    unpack to: ``BASE_BYTES + BYTES_PER_TRIANGLE * n_triangles`` (1 MiB + 2 KiB a
    triangle), at most :data:`core.io.common.MAX_FILE_BYTES`."""
    return min(MAX_FILE_BYTES, BASE_BYTES + BYTES_PER_TRIANGLE * int(n_triangles))


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


def tree_from_file(path: Path, mesh: TriMesh, f: _FileTree,
                   t0: float) -> tuple[Tree, np.ndarray]:  # fmt: skip
    """Check a file's tree in the children layout and renumber it into ours: ``(tree,
    file_of)``, ``file_of[ours]`` the file's id (what every reader of another engine's file
    ends with, as :func:`read_tree` does). TreeFileError naming the file's node at fault."""

    def fail(reason: str):
        raise TreeFileError(path, reason)

    _check_nodes(f, fail)
    root = _root(f, fail)
    bfs_file_of, bfs_depth = _renumber(f, root, fail)
    if _in_our_layout(f, root):
        # Already children-after-parent and adjacent: keep the file's ids (a tree BVH Lab
        # wrote reads back with the same numbering, so with the same arrays).
        file_of = np.arange(f.k, dtype=np.int64)
        depth = np.empty(f.k, dtype=np.int64)
        depth[bfs_file_of] = bfs_depth
    else:
        file_of, depth = bfs_file_of, bfs_depth
    _check_coverage(f, fail)
    return _build(f, mesh, file_of, depth, t0), file_of


def _check_coverage(f: _FileTree, fail) -> None:
    """Each position of ``order`` (so each triangle: ``order`` is a permutation, checked
    before) lies in exactly one leaf's range; else one line naming the leaves at fault.

    Two leaves holding the same triangle are named with both ranges; a triangle in no leaf
    is named with its place in ``order`` and the leaves whose ranges end just before it and
    start just after it (one of them has a count or start one off, as a hand edit leaves it).
    """
    leaves = np.flatnonzero(f.children[:, 0] < 0)
    starts, counts = f.start[leaves], f.count[leaves]
    ends = starts + counts
    # How many leaf ranges cover each position: +1 where a range starts, -1 past its end.
    cover = np.cumsum(np.bincount(starts, minlength=f.m + 1)
                      - np.bincount(ends, minlength=f.m + 1))[: f.m]  # fmt: skip
    twice = np.flatnonzero(cover > 1)
    gaps = np.flatnonzero(cover == 0)
    if twice.size == 0 and gaps.size == 0:
        return

    def leaf(j) -> str:
        return f"leaf {int(leaves[j])}'s range {int(starts[j])}+{int(counts[j])}"

    if twice.size:
        p = int(twice[0])
        a, b = np.flatnonzero((starts <= p) & (p < ends))[:2]
        text = (f"leaves {int(leaves[a])} and {int(leaves[b])} both hold triangle "
                f"{int(f.order[p])} (order[{p}]): {leaf(a)} and {leaf(b)} overlap")
        extras = []
        if twice.size > 1:
            extras.append(f"{twice.size:,} triangles are held twice in all")
        if gaps.size:
            extras.append(f"{gaps.size:,} triangle{_s(gaps.size)} in no leaf, the first "
                          f"triangle {int(f.order[gaps[0]])} at order[{int(gaps[0])}]")
        fail(text + (f" ({'; '.join(extras)})" if extras else ""))
    p = int(gaps[0])
    covered_after = np.flatnonzero(cover[p:] > 0)
    q = p + int(covered_after[0]) if covered_after.size else f.m  # the gap is order[p:q]
    n = q - p
    tris = ", ".join(str(int(t)) for t in f.order[p : min(q, p + 4)]) + (" ..." if n > 4 else "")
    if n == 1:
        text = f"triangle {tris} (order[{p}]) is in no leaf"
    else:
        text = f"triangles {tris} (order[{p}:{q}], {n:,} of them) are in no leaf"
    before = np.flatnonzero(ends == p)[:1]
    after = np.flatnonzero(starts == q)[:1]
    off = "one" if n == 1 else f"{n:,}"
    it = "it" if n == 1 else "them"
    if before.size and after.size:
        text += (f": {leaf(before[0])} ends just before {it} and {leaf(after[0])} starts just "
                 f"after (is leaf {int(leaves[before[0]])}'s count {off} short, or leaf "
                 f"{int(leaves[after[0]])}'s start {off} too late?)")
    elif before.size:
        text += (f": {leaf(before[0])} ends just before {it} (is its count {off} "
                 f"short?)")
    elif after.size:
        text += (f": {leaf(after[0])} starts just after {it} (is its start {off} "
                 f"too late?)")
    if gaps.size > n:
        text += f" ({gaps.size:,} triangles are in no leaf in all)"
    fail(text)
