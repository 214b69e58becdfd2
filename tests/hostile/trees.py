"""Hostile tree files (``.json`` and ``.npz``), made at test time over a mesh of ``m`` triangles.

:func:`cases` yields :class:`tests.hostile.Case` tuples: ``write(folder) -> path`` writes the
file, ``words`` is a fragment of the one-line :class:`core.bvh.treefile.TreeFileError` it must
give (through ``read_tree``, ``python -m core validate`` and Tree > Open alike), ``kind`` the
class of defect. Each is a valid tree (:func:`chain_keys`, a chain as deep as the mesh has
triangles) with one thing broken, so the deep-chain cases are as deep as the mesh is large:
over a mesh of a million triangles they are a million levels deep. Nothing is stored.
"""

from __future__ import annotations

import json
import warnings
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from core.bvh.treefile import max_tree_bytes
from tests.hostile import Case


def chain_keys(m: int) -> dict:
    """A valid tree over ``m`` triangles as the schema's keys (children layout): a chain
    ``m - 1`` levels deep, where internal node ``i`` has leaf ``m - 1 + i`` and internal node
    ``i + 1`` as its children, and the last internal node two leaves.

    Returns
    -------
    dict
        ``bounds`` ``(2m - 1, 6) float64``, ``children`` ``(2m - 1, 2)``, ``start``,
        ``count`` ``(2m - 1,)`` and ``order`` ``(m,) int64``; the scalars as Python values.
    """
    depth = m - 1
    k = 2 * m - 1
    children = np.full((k, 2), -1, dtype=np.int64)
    inner = np.arange(depth)
    children[inner, 0] = depth + 1 + inner
    children[inner, 1] = inner + 1
    leaves = np.r_[depth + 1 + inner, depth]  # node ``depth`` (the last one) is a leaf too
    start = np.zeros(k, dtype=np.int64)
    count = np.zeros(k, dtype=np.int64)
    start[leaves] = np.arange(m)
    count[leaves] = 1
    bounds = np.tile(np.array([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0]), (k, 1))
    return {"format": "bvh-lab-tree", "version": 1, "triangles": m, "nodes": k,
            "bounds": bounds, "children": children, "start": start, "count": count,
            "order": np.arange(m, dtype=np.int64)}  # fmt: skip


def _as_json(keys: dict) -> dict:
    return {name: value.tolist() if isinstance(value, np.ndarray) else value
            for name, value in keys.items()}  # fmt: skip


def _json(name: str, m: int, change: Callable[[dict], object]) -> Callable[[Path], Path]:
    """A JSON file: the chain's keys (as JSON values) changed by ``change`` (which edits
    them in place, or returns the file's text as str or bytes)."""

    def write(folder: Path) -> Path:
        keys = _as_json(chain_keys(m))
        text = change(keys)
        path = folder / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text if isinstance(text, str) else json.dumps(keys))
        return path

    return write


def _npz(name: str, m: int, change: Callable[[dict], None] | None = None,
         members: Callable[[dict], list] | None = None,
         compressed: bool = False) -> Callable[[Path], Path]:  # fmt: skip
    """An npz file: the chain's arrays changed by ``change`` (in place), or raw members
    ``members(keys) -> [(member name, bytes)]`` written as given (names twice, headers of
    any size)."""

    def write(folder: Path) -> Path:
        keys = {k: np.asarray(v) for k, v in chain_keys(m).items()}
        path = folder / name
        if change is not None:
            change(keys)
        if members is None:
            with open(path, "wb") as out:
                (np.savez_compressed if compressed else np.savez)(out, **keys)
            return path
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile warns of a name written twice
            with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                for member, data in members(keys):
                    archive.writestr(member, data)
        return path

    return write


def npy_bytes(array: np.ndarray) -> bytes:
    """``array`` as a ``.npy`` file's bytes."""
    import io

    out = io.BytesIO()
    np.lib.format.write_array(out, np.asarray(array), allow_pickle=True)
    return out.getvalue()


def huge_header_npy(array: np.ndarray, header_bytes: int = 200_000) -> bytes:
    """``array`` as ``.npy`` version 2.0 with its header padded to ``header_bytes``."""
    header = repr({"descr": np.lib.format.dtype_to_descr(array.dtype),
                   "fortran_order": False, "shape": array.shape})  # fmt: skip
    header = header + " " * (header_bytes - len(header) - 13) + "\n"
    return (b"\x93NUMPY\x02\x00" + len(header).to_bytes(4, "little") + header.encode("latin1")
            + np.ascontiguousarray(array).tobytes())  # fmt: skip


def _members(keys: dict, twice: str | None = None, huge: str | None = None) -> list:
    out = []
    for name, value in keys.items():
        data = huge_header_npy(value) if name == huge else npy_bytes(value)
        out.append((f"{name}.npy", data))
        if name == twice:
            changed = np.asarray(value).copy()
            changed.reshape(-1)[0] = changed.reshape(-1)[-1]
            out.append((f"{name}.npy", npy_bytes(changed)))
    return out


def _set(**values) -> Callable[[dict], None]:
    return lambda keys: keys.update(values)


def _row(name: str, index: int, value) -> Callable[[dict], None]:
    def change(keys):
        keys[name][index] = value
    return change


def _text(change: Callable[[str], str | bytes]) -> Callable[[dict], str | bytes]:
    return lambda keys: change(json.dumps(keys))


def _cycle_at_the_bottom(keys: dict) -> None:
    """The deepest internal node's second child made the root: a cycle through the whole
    chain (no root any more)."""
    last = keys["nodes"] // 2 - 1
    keys["children"][last][1] = 0  # the old last leaf is nobody's child: a root alone


def _extra_nodes(keys: dict) -> None:
    """Two more nodes than a binary tree over the triangles can have, in every array."""
    keys["nodes"] = np.asarray(int(keys["nodes"]) + 2)
    for name, fill in (("bounds", 0.0), ("children", -1), ("start", 0), ("count", 0)):
        value = keys[name]
        keys[name] = np.concatenate([value, np.full((2, *value.shape[1:]), fill, value.dtype)])


def _shared(keys: dict) -> None:
    """Internal node 1's leaf child also named by node 0 (node 0's leaf is lost)."""
    keys["children"][0][0] = keys["children"][1][0]


def cases(m: int = 8) -> Iterator[Case]:
    """The hostile catalogue over a mesh of ``m`` triangles (``m >= 4``)."""
    if m < 4:
        raise ValueError(f"the catalogue needs a mesh of at least 4 triangles, got {m}")
    k = 2 * m - 1
    yield Case("dupkey.json", _json("dupkey.json", m, _text(
        lambda t: t.replace('"version": 1', '"version": 1, "version": 2', 1))),
        "key 'version' is given twice", "duplicate key")
    yield Case("version-float.json", _json("version-float.json", m, _set(version=1.0)),
               "'version' must be the whole number 1, got 1.0", "version")
    yield Case("version-true.json", _json("version-true.json", m, _set(version=True)),
               "'version' must be the whole number 1, got True", "version")
    yield Case("version-str.json", _json("version-str.json", m, _set(version="1")),
               "'version' must be the whole number 1, got '1'", "version")
    yield Case("version-2.json", _json("version-2.json", m, _set(version=2)),
               "format version 2; this app reads version 1", "version")
    yield Case("nodes-str.json", _json("nodes-str.json", m, _set(nodes=str(k))),
               "'nodes' must be a whole number", "wrong type")
    yield Case("bounds-bool.json", _json("bounds-bool.json", m, _row("bounds", 1,
                                                                     [0, 0, 0, 1, 1, True])),
               "'bounds' must hold numbers, got true/false", "wrong type")
    yield Case("order-null.json", _json("order-null.json", m, _row("order", 0, None)),
               "'order' must hold whole numbers, got null", "wrong type")
    yield Case("order-float.json", _json("order-float.json", m, _row("order", 0, 0.5)),
               "'order' must hold whole numbers, got numbers with fractions", "wrong type")
    yield Case("children-flat.json", _json("children-flat.json", m, lambda keys: keys.update(
        children=[c for row in keys["children"] for c in row])),
        "'children' must be a list of lists", "wrong type")
    yield Case("count-nested.json", _json("count-nested.json", m, lambda keys: keys.update(
        count=[[c] for c in keys["count"]])),
        "'count' must hold whole numbers, got lists (nested too deeply)", "wrong type")
    yield Case("bounds-nan.json", _json("bounds-nan.json", m, _text(
        lambda t: t.replace("1.0]", "NaN]", 1))), "bounds hold NaN or infinity", "not finite")
    yield Case("bounds-inf.json", _json("bounds-inf.json", m, _text(
        lambda t: t.replace("1.0]", "1e999]", 1))), "bounds hold NaN or infinity", "not finite")
    yield Case("count-negative.json", _json("count-negative.json", m,
                                            _row("count", m - 1, -3)),
               f"node {m - 1} is a leaf with no triangles (count -3)", "range")
    yield Case("start-large.json", _json("start-large.json", m, _row("start", m - 1, 10**15)),
               f"node {m - 1}: leaf range {10**15}+1 is outside 'order'", "range")
    yield Case("leaf-size.json", _json("leaf-size.json", m, _set(leaf_size=10**29)),
               "'leaf_size' must be from 1 to 2,147,483,647, got", "range")
    yield Case("order-negative.json", _json("order-negative.json", m, _row("order", 0, -5)),
               "-5 is not a triangle id", "range")
    yield Case("triangles-5000-digits.json", _json("triangles-5000-digits.json", m, _text(
        lambda t: t.replace(f'"triangles": {m}', '"triangles": ' + "7" * 5000, 1))),
        "a number of 5,000 digits in 'triangles'", "long number")
    yield Case("nodes-huge.json", _json("nodes-huge.json", m, _set(nodes=10**18)),
               f"node count mismatch: 'nodes' is {10**18:,} but 'bounds' has {k:,} rows",
               "huge count")
    yield Case("too-many-nodes.npz", _npz("too-many-nodes.npz", m, _extra_nodes),
               f"'nodes' is {k + 2:,}, but a binary tree over {m:,} triangles has at most "
               f"{k:,}", "huge count")
    yield Case("deep-cycle.npz", _npz("deep-cycle.npz", m, _cycle_at_the_bottom),
               "(a cycle)", "deep chain")
    yield Case("deep-cycle.json", _json("deep-cycle.json", m, _cycle_at_the_bottom),
               "(a cycle)", "deep chain")
    yield Case("cycle.json", _json("cycle.json", m, _row("children", 1, [m, 0])),
               "is reached twice (a cycle)", "cycle")
    yield Case("shared.json", _json("shared.json", m, _shared),
               "is reached twice (a shared child)", "shared child")
    yield Case("object.npz", _npz("object.npz", m, lambda keys: keys.update(
        order=keys["order"].astype(object))),
        "array 'order': holds pickled Python objects", "npz dtype")
    yield Case("complex.npz", _npz("complex.npz", m, lambda keys: keys.update(
        bounds=keys["bounds"].astype(complex))),
        "'bounds' must hold numbers, got dtype complex128", "npz dtype")
    yield Case("bool-count.npz", _npz("bool-count.npz", m, lambda keys: keys.update(
        count=keys["count"].astype(bool))),
        "'count' must hold integers, got dtype bool", "npz dtype")
    yield Case("version-float.npz", _npz("version-float.npz", m, _set(version=np.float64(1))),
               "'version' must be the whole number 1, got 1.0", "version")
    yield Case("twice.npz", _npz("twice.npz", m, members=lambda keys: _members(keys, "order")),
               "member 'order.npy' is in the archive twice", "npz members")
    yield Case("huge-header.npz", _npz("huge-header.npz", m, members=lambda keys: _members(
        keys, huge="bounds")), "array 'bounds': its .npy header is", "npz header")
    yield Case("encrypted.npz", _patched_directory("encrypted.npz", m, flag_bits=0x1),
               "is encrypted", "npz members")
    yield Case("method.npz", _patched_directory("method.npz", m, method=99),
               "uses compression method 99", "npz members")
    budget = max_tree_bytes(m)
    yield Case("padded.json", _json("padded.json", m, lambda keys: json.dumps(keys)
                                    + " " * budget), "too large: ", "too large")
    yield Case("bomb.npz", _npz("bomb.npz", m, lambda keys: keys.update(
        bounds=np.zeros((budget // 48 + 1, 6))), compressed=True),
        "too large: its arrays unpack to", "too large")
    yield Case("truncated.json", _json("truncated.json", m, _text(lambda t: t[: len(t) // 2])),
               "not JSON (", "truncated")
    yield Case("truncated.npz", _truncated_npz(m), "not an npz archive", "truncated")
    yield Case("empty.json", _json("empty.json", m, lambda keys: b""),
               "not JSON (Expecting value at line 1 column 1)", "empty")
    yield Case("empty.npz", _npz("empty.npz", m, members=lambda keys: []),
               "holds no .npy arrays", "empty")
    yield Case("not-json.json", _json("not-json.json", m, lambda keys: b"\x89PNG\r\n\x1a\n"),
               "not JSON (not UTF-8 text)", "not JSON")
    yield Case("nested.json", _json("nested.json", m, lambda keys: "[" * 200_000),
               "not JSON this reader accepts (nested too deeply)", "not JSON")
    yield Case("format.json", _json("format.json", m, _set(format="other-tree")),
               "not a BVH Lab tree file (its 'format' is 'other-tree'", "format")
    yield Case("escape.json", _json("escape.json", m, _set(format="\x1b]0;owned\x07\x1b[31m")),
               r"its 'format' is '\x1b]0;owned\x07\x1b[31m'", "control characters")


def _truncated_npz(m: int) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        path = _npz("truncated.npz", m)(folder)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
        return path

    return write


def _patched_directory(name: str, m: int, flag_bits: int = 0,
                       method: int | None = None) -> Callable[[Path], Path]:  # fmt: skip
    """A good npz whose central directory says every member is encrypted (``flag_bits``)
    or compressed with another ``method`` (99: AES, which zipfile cannot read)."""

    def write(folder: Path) -> Path:
        path = _npz(name, m)(folder)
        data = bytearray(path.read_bytes())
        at = data.find(b"PK\x01\x02")
        while at >= 0:
            flags = int.from_bytes(data[at + 8 : at + 10], "little") | flag_bits
            data[at + 8 : at + 10] = flags.to_bytes(2, "little")
            if method is not None:
                data[at + 10 : at + 12] = method.to_bytes(2, "little")
            at = data.find(b"PK\x01\x02", at + 4)
        path.write_bytes(bytes(data))
        return path

    return write
