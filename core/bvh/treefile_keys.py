"""Reading a tree file: the decoded keys checked one by one (type, shape, counts, the
format name and version, one of the two layouts) into the file's tree in the children layout
(:class:`core.bvh.treefile_nodes._FileTree`).

The schema is in :mod:`core.bvh.treefile`; errors are one-line
:class:`~core.bvh.treefile.TreeFileError` naming the file and the key.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from core.bvh.tree import SplitRule
from core.bvh.treefile import FORMAT_NAME, FORMAT_VERSION, TreeFileError
from core.bvh.treefile_nodes import _FileTree
from core.mesh import TriMesh


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

