"""Read an hpp-fcl 2.x ``BVHModel`` as its boost serialization headers save it (text, XML or
binary archive; hpp-fcl is coal's predecessor).

What hpp-fcl 2.4 saves (``hpp/fcl/serialization/BVH_model.h``, ``eigen.h``; checked against
files the 2.4.4 library writes, tests/data/hpp-fcl/):

1. class words (tracking level 0, version 0) of ``BVHModel``, ``BVHModelBase`` and
   ``CollisionGeometry``: the model is not tracked, so no object id (coal 3 tracks it: that
   first tracking level tells the two engines' archives apart, :func:`is_hpp_fcl`);
2. the ``CollisionGeometry`` base as coal's: ``aabb_center`` (3), ``aabb_radius``,
   ``aabb_local`` (min 3, max 3), ``cost_density``, ``threshold_occupied``,
   ``threshold_free``;
3. ``num_vertices``, then the vertices as an Eigen ``3 x n`` matrix: class words, ``cols``
   (an ``Eigen::DenseIndex``: 8 bytes in a binary archive), then ``3 n`` doubles in column
   order (vertex by vertex); ``num_tris`` and the triangles as a ``3 x m`` matrix of
   ``std::size_t`` (class words, ``cols``, ``3 m`` indices); ``build_state``;
   ``has_prev_vertices`` (then the previous vertices, another ``3 x n`` matrix: refused, as
   coal's reader refuses ``prev_vertices``);
4. ``with_bvs``, ``num_bvs`` and the node records as raw memory, the same records as coal's
   (:mod:`core.bvh.coal_tree` reads them: record sizes, volume layouts, tree, checks).
"""

from __future__ import annotations

import re
from pathlib import Path

from core.bvh.boost_archive import BINARY_START, TEXT_START, ArchiveError
from core.bvh.coal_tree import (
    geometry_and_vertex_count,
    node_records,
    read_bvh_model,
    triangle_count,
)
from core.bvh.treefile import ImportedTree
from core.mesh import TriMesh

#: The class version hpp-fcl 2.x gives its ``BVHModel`` (newer ones are named and refused).
CLASS_VERSION = 0
_XML_MODEL = re.compile(rb'<boost_serialization[^>]*>\s*<\w+\s[^>]*\bversion="(\d+)"')


def is_hpp_fcl(head: bytes) -> bool:
    """Whether a boost archive starting with ``head`` holds an hpp-fcl 2.x model rather than a
    coal 3 one: its first class (the model) is untracked (tracking level 0)."""
    if head.startswith(TEXT_START):
        words = head.split(None, 5)
        return len(words) > 3 and words[3] == b"0"
    if head.startswith(BINARY_START):
        at = len(BINARY_START) + 2 + 4 + 4  # version, the 4 sizes, the byte order mark
        return head[at:at + 1] == b"\0"
    match = re.search(rb'<boost_serialization[^>]*>\s*<\w+\s[^>]*tracking_level="(\d+)"', head)
    return bool(match) and match.group(1) == b"0"


def read_hpp_fcl_tree(path: Path, mesh: TriMesh, data: bytes) -> ImportedTree:
    """The tree of an hpp-fcl 2.x ``BVHModel`` archive ``data`` (the bytes of ``path``) over
    ``mesh``.

    Raises
    ------
    TreeFileError
        One line naming the file and, where a node is at fault, its index in the file.
    """
    return read_bvh_model(path, mesh, data, "hpp-fcl", _walk_hpp_fcl)


def _walk_hpp_fcl(a, mesh: TriMesh):
    """Values of the archive in hpp-fcl's order: ``(vertices (n, 3), triangles (m, 3), node
    bytes (j,) uint8, num_bvs)``. Counts are checked against the mesh before any array."""
    version = a.class_info("the BVHModel")
    if a.kind == "XML":  # class words are attributes there: the model element's version
        match = _XML_MODEL.search(a.data[:4096])
        version = int(match.group(1)) if match else version
    if version > CLASS_VERSION:
        raise ArchiveError(f"BVHModel class version {version} is newer than this reader knows "
                           f"(it reads hpp-fcl 2.x's version {CLASS_VERSION})")
    n = geometry_and_vertex_count(a, mesh)
    if n:
        _eigen_matrix_head(a, "vertices", n)
        vertices = a.numbers("the vertices", 3 * n, "f8").reshape(n, 3)
    m = triangle_count(a, mesh)
    if m:
        _eigen_matrix_head(a, "tri_indices", m)
        triangles = a.numbers("the triangles", 3 * m, "u8").reshape(m, 3)
    if not (n and m):
        raise ArchiveError("the model has no vertices or no triangles")
    a.int("build_state")
    if a.bool("has_prev_vertices"):
        raise ArchiveError("has_prev_vertices is set (a model saved while being updated): "
                           "this reader reads models saved after endModel")
    records, k = node_records(a, m, "an hpp-fcl tree")
    return vertices, triangles, records, k


def _eigen_matrix_head(a, what: str, want: int) -> None:
    """An Eigen ``3 x want`` matrix's class words and column count (its data follows)."""
    a.class_info(what)
    if a.kind == "binary":
        cols = a.signed64(f"the column count of {what}")
    else:
        cols = a.int(f"the column count of {what}", "cols")
    if cols != want:
        raise ArchiveError(f"the {what} matrix has {cols:,} columns, not {want:,}")
