"""Read a three-mesh-bvh tree: what ``MeshBVH.serialize(bvh)`` returns, saved as JSON.

The file (``tests/data/three-mesh-bvh/make_example.mjs`` writes it)::

    {"format": "three-mesh-bvh", "library_version": "0.9.17", "version": 1,
     "roots": ["<base64>"],
     "index": {"type": "Uint32Array", "data": "<base64>"},
     "indirectBuffer": null}

``roots``, ``index``, ``indirectBuffer`` and ``version`` are serialize()'s own keys; a typed
array is ``{"type", "data"}`` (``Uint16Array``, ``Uint32Array`` or ``Int32Array``, the
little-endian bytes in base64); ``format`` and ``library_version`` are optional.

The binary form (``.3mbvh``, the buffers as they are): ``3MBVH\0``, a uint16 container
version (1) and a uint32 header length ``H`` (little-endian), ``H`` bytes of a JSON header
with the keys above where every base64 text is ``{"offset": o, "length": n}`` instead, then
the data: a buffer is the ``n`` bytes at ``o`` from the data's start.

A root buffer holds 32 bytes a node, in depth-first order (three-mesh-bvh 0.9.17,
``src/core/build/buildTree.js`` and ``src/core/utils/nodeBufferUtils.js``): 6 float32 bounds
(min x, y, z, max x, y, z); then a leaf has a uint32 primitive offset, a uint16 count and
the uint16 ``0xFFFF``; an internal node has its left child right after it and, as a uint32,
its right child's index relative to its own (serialize version 1; version 0, written before
three-mesh-bvh 0.8, stored the right child's absolute uint32 offset, 8 a node), then its
uint32 split axis.

Triangles: without an indirect buffer, the build **reorders** the geometry's index in place,
so leaf primitive ``j`` is the triangle ``index[3j : 3j + 3]``, matched here to the mesh's
faces (the same three vertices in the same order; the mesh's vertices must be the geometry's
positions, e.g. the OBJ the script writes). With ``indirectBuffer`` (``indirect: true``) the
index is the geometry's own and leaf primitive ``j`` is triangle ``indirectBuffer[j]``.
Either way the primitives must be each of the mesh's triangles once; the first that is not
is named. One root only (a geometry without groups).
"""

from __future__ import annotations

import base64
import binascii
import struct
import time
from pathlib import Path

import numpy as np

from core.bvh.treefile import ImportedTree, TreeFileError
from core.bvh.treefile_nodes import _FileTree, tree_from_file
from core.bvh.treefile_read import _json_keys
from core.mesh import TriMesh

#: The first bytes of the binary form, then a uint16 container version and a uint32 header
#: length (little-endian).
MAGIC = b"3MBVH\0"
BINARY_VERSION = 1
MAX_HEADER_BYTES = 2**20

#: serialize()'s newest ``version`` read.
SERIAL_VERSION = 1
BYTES_PER_NODE = 32
LEAF_FLAG = 0xFFFF
_TYPES = {"Uint16Array": "<u2", "Uint32Array": "<u4", "Int32Array": "<i4"}


def read_three_mesh_bvh(path: Path, mesh: TriMesh, data: bytes) -> ImportedTree:
    """The tree of a three-mesh-bvh JSON file ``data`` (the bytes of ``path``) over ``mesh``.

    Raises
    ------
    TreeFileError
        One line naming the file and, where a node is at fault, its index in the root buffer.
    """
    t0 = time.perf_counter()

    def fail(reason: str):
        raise TreeFileError(path, f"three-mesh-bvh: {reason}")

    blob = None
    if data.startswith(MAGIC):
        keys, blob = _binary_keys(path, data, fail)
    else:
        keys = _json_keys(path, data)
    del data

    version = keys.get("version", 0)
    if type(version) is not int:
        fail(f"'version' must be a whole number, got {str(version)[:40]!r}")
    if version > SERIAL_VERSION:
        fail(f"serialize() version {version} is newer than this reader knows (it reads "
             f"versions 0 and {SERIAL_VERSION}, three-mesh-bvh up to 0.9.17)")
    if version < 0:
        fail(f"serialize() version {version} is not a version")
    roots = keys.get("roots")
    if not isinstance(roots, list) or not roots:
        fail("missing key 'roots' (a list of base64 node buffers)")
    if len(roots) != 1:
        fail(f"{len(roots)} roots (a geometry with groups): this reader reads one root")
    m = mesh.n_faces
    raw = _buffer(roots[0], "roots[0]", fail, BYTES_PER_NODE * max(2 * m - 1, 1), blob)
    if len(raw) % BYTES_PER_NODE or not raw:
        fail(f"roots[0] holds {len(raw):,} bytes, not a whole number of 32-byte nodes")
    k = len(raw) // BYTES_PER_NODE
    # Their counts are checked against the mesh once decoded (the file's size bounds them).
    index = _typed(keys.get("index"), "index", fail, blob)
    indirect = _typed(keys.get("indirectBuffer"), "indirectBuffer", fail, blob)
    order = _primitives(index, indirect, mesh, fail)

    words = np.frombuffer(raw, dtype="<u4").reshape(k, 8)
    halves = np.frombuffer(raw, dtype="<u2").reshape(k, 16)
    bounds = np.frombuffer(raw, dtype="<f4").reshape(k, 8)[:, :6].astype(np.float64)
    is_leaf = halves[:, 15] == LEAF_FLAG
    offset = words[:, 6].astype(np.int64)
    count = np.where(is_leaf, halves[:, 14], 0).astype(np.int64)
    nodes = np.arange(k, dtype=np.int64)
    right = offset + nodes if version >= 1 else offset // 8
    children = np.where(is_leaf[:, None], -1, np.stack([nodes + 1, right], axis=1))
    bad = ~is_leaf & ((children[:, 1] <= nodes + 1) | (children[:, 1] >= k) | (nodes + 1 >= k))
    if bad.any():
        node = int(np.flatnonzero(bad)[0])
        fail(f"node {node}: its right child {int(children[node, 1])} is not a node after its "
             f"left child {node + 1} (0..{k - 1})")
    empty = is_leaf & (count == 0)
    if empty.any():
        fail(f"node {int(np.flatnonzero(empty)[0])} is a leaf with no triangles")
    past = is_leaf & (offset + count > m)
    if past.any():
        node = int(np.flatnonzero(past)[0])
        fail(f"node {node}: leaf triangles {int(offset[node])}+{int(count[node])} run past the "
             f"{m:,} triangles")
    start = np.where(is_leaf, offset, 0)
    f = _FileTree(m, k, bounds, children, start, count, order, None, None)
    tree, file_of = tree_from_file(path, mesh, f, t0)
    mode = "indirect" if indirect is not None else "index reordered"
    return ImportedTree(tree=tree, file_ids=file_of, path=path,
                        source=f"three-mesh-bvh file {path.name} ({mode}), {k:,} nodes")


def _binary_keys(path: Path, data: bytes, fail) -> tuple[dict, memoryview]:
    """The header's keys and the data section of a 3MBVH binary file."""
    if len(data) < len(MAGIC) + 6:
        fail("the file ends inside its 3MBVH header")
    version, length = struct.unpack_from("<HI", data, len(MAGIC))
    if version != BINARY_VERSION:
        fail(f"3MBVH container version {version}; this reader reads version {BINARY_VERSION}")
    start = len(MAGIC) + 6
    if length > MAX_HEADER_BYTES or start + length > len(data):
        fail(f"the 3MBVH header is {length:,} bytes, more than the file holds or "
             f"{MAX_HEADER_BYTES:,}")
    keys = _json_keys(path, bytes(data[start : start + length]))
    return keys, memoryview(data)[start + length :]


def _buffer(value, what: str, fail, most: int | None, blob) -> bytes:
    """A buffer's bytes: base64 text in JSON, ``{"offset", "length"}`` in a binary file."""
    if blob is None:
        return _base64(value, what, fail, most)
    if not (isinstance(value, dict) and set(value) == {"offset", "length"}
            and all(type(value[key]) is int and value[key] >= 0 for key in value)):
        fail(f"{what!r} must be {{\"offset\": bytes, \"length\": bytes}} in a 3MBVH header")
    end = value["offset"] + value["length"]
    if end > len(blob):
        fail(f"{what!r} runs to byte {end:,} of the data, which has {len(blob):,}")
    if most is not None and value["length"] > most:
        fail(f"{what!r} holds {value['length']:,} bytes, more than a tree over the mesh's "
             f"triangles has ({most:,})")
    return bytes(blob[value["offset"] : end])


def _base64(text, what: str, fail, most: int | None) -> bytes:
    if not isinstance(text, str):
        fail(f"{what!r} must be a base64 string")
    if most is not None and len(text) > 4 * (most // 3 + 3):
        fail(f"{what!r} holds about {len(text) * 3 // 4:,} bytes, more than a tree over the "
             f"mesh's triangles has ({most:,})")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        fail(f"{what!r} is not base64")


def _typed(value, what: str, fail, blob=None) -> np.ndarray | None:
    """A ``{"type", "data"}`` typed array as int64, or None."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"type", "data"}:
        fail(f"{what!r} must be null or {{\"type\": ..., \"data\": ...}}")
    dtype = _TYPES.get(value["type"]) if isinstance(value["type"], str) else None
    if dtype is None:
        fail(f"{what!r} has type {str(value['type'])[:40]!r} (one of {', '.join(_TYPES)})")
    itemsize = np.dtype(dtype).itemsize
    raw = _buffer(value["data"], f"{what}.data", fail, None, blob)
    if len(raw) % itemsize:
        fail(f"{what!r}: {len(raw):,} bytes are not whole {value['type']} items")
    return np.frombuffer(raw, dtype=dtype).astype(np.int64)


def _primitives(index, indirect, mesh: TriMesh, fail) -> np.ndarray:
    """``(m,)``: the mesh's face id of each primitive position in the tree's order."""
    m = mesh.n_faces
    faces = np.asarray(mesh.faces, dtype=np.int64)
    if index is None:
        file_tris = np.arange(3 * m, dtype=np.int64).reshape(m, 3)
        if index is None and indirect is None:
            fail("'index' is null without an indirect buffer (the build always writes one)")
    else:
        if index.shape[0] != 3 * m:
            fail(f"'index' holds {index.shape[0]:,} vertex ids, not 3 for each of the mesh's "
                 f"{m:,} triangles")
        file_tris = index.reshape(m, 3)
    if indirect is not None:
        if indirect.shape[0] != m:
            fail(f"'indirectBuffer' holds {indirect.shape[0]:,} entries, not one per triangle "
                 f"({m:,})")
        wrong = np.flatnonzero((file_tris != faces).any(axis=1))
        if wrong.size:
            i = int(wrong[0])
            fail(f"triangle {i} is {tuple(int(v) for v in file_tris[i])} in 'index' but "
                 f"{tuple(int(v) for v in faces[i])} in the mesh: built on another mesh")
        seen = np.bincount(indirect[(indirect >= 0) & (indirect < m)], minlength=m)
        bad = np.flatnonzero((indirect < 0) | (indirect >= m))
        if bad.size:
            fail(f"indirectBuffer[{int(bad[0])}] is {int(indirect[bad[0]])}, not a triangle "
                 f"(0..{m - 1})")
        if (seen != 1).any():
            fail(f"'indirectBuffer' is not a permutation: triangle "
                 f"{int(np.flatnonzero(seen != 1)[0])} is named {int(seen[seen != 1][0])} "
                 f"times")  # fmt: skip
        return indirect
    # The index was reordered by whole triangles: match each of its triangles to a face.
    mine = np.lexsort(faces.T[::-1])
    theirs = np.lexsort(file_tris.T[::-1])
    differ = (faces[mine] != file_tris[theirs]).any(axis=1)
    if differ.any():
        j = int(np.flatnonzero(differ)[0])
        # The file's triangle at the first difference in sorted order has no equal face
        # (or one face is named twice); name it by its place in the file's index.
        at = int(theirs[j])
        missing = np.flatnonzero(~_rows_in(file_tris, faces))
        if missing.size:
            at = int(missing[0])
        fail(f"the index's triangle {at} {tuple(int(v) for v in file_tris[at])} (primitive "
             f"{at}) is not a triangle of the mesh, or is there twice: the index is not a "
             f"permutation of the mesh's triangles")
    order = np.empty(m, dtype=np.int64)
    order[theirs] = mine
    return order


def _rows_in(rows: np.ndarray, table: np.ndarray) -> np.ndarray:
    """``(r,) bool``: whether each row of ``rows`` (r, 3) is a row of ``table`` (t, 3)."""
    both = np.concatenate([table, rows])
    _, inverse = np.unique(both, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    return np.isin(inverse[table.shape[0]:], inverse[: table.shape[0]])
