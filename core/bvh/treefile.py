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

This module holds the schema's names and limits, its error, the record a reading returns and
the writer (:func:`write_tree`). Reading is :func:`core.bvh.treefile_read.read_tree`: the
bytes decoded there, the keys checked in :mod:`core.bvh.treefile_keys`, the nodes checked and
renumbered in :mod:`core.bvh.treefile_nodes`.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.bvh.tree import SplitRule, Tree
from core.errors import BVHLabError
from core.files.safe_write import replace_file
from core.io.common import MAX_FILE_BYTES
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
            object.__setattr__(self, "tree", self.tree.replaced(origin=origin))

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


def max_tree_bytes(n_triangles: int) -> int:
    """Most bytes of a tree file over ``n_triangles`` triangles, and most its ``.npz`` arrays
    unpack to: ``BASE_BYTES + BYTES_PER_TRIANGLE * n_triangles`` (1 MiB + 2 KiB a
    triangle), at most :data:`core.io.common.MAX_FILE_BYTES`."""
    return min(MAX_FILE_BYTES, BASE_BYTES + BYTES_PER_TRIANGLE * int(n_triangles))

