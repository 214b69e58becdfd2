"""Read a coal 3 ``BVHModel`` as its ``saveToText``, ``saveToXML`` or ``saveToBinary`` wrote
it (hpp-fcl 2.x, coal's predecessor, saves another layout before the same node records:
:mod:`core.bvh.hpp_fcl_tree` reads it, with :func:`read_bvh_model`).

What coal 3.0.3 saves (``coal/serialization/BVH_model.h``, ``BV_node.h``; checked against
files the installed package writes):

1. the ``CollisionGeometry`` base: ``aabb_center`` (3), ``aabb_radius``, ``aabb_local`` (min
   3, max 3), ``cost_density``, ``threshold_occupied``, ``threshold_free``;
2. ``num_vertices`` and the vertices (a vector of 3 doubles each); ``num_tris`` and the
   triangles (3 indices each); ``build_state``; ``prev_vertices`` (null unless the model was
   being updated);
3. ``with_bvs``, ``num_bvs`` and the nodes as **raw memory**: ``num_bvs`` records of
   ``sizeof(BVNode<BV>)`` bytes, each ``first_child`` (int32), ``first_primitive``,
   ``num_primitives`` (uint32), 4 bytes of padding, then the volume's doubles.

The archive names no volume type: it is told from the record's size (the ``sizeof`` of a
64-bit build): AABB 64 (min 3, max 3), OBB 136 (axes 9 column-major, centre ``To`` 3,
half-lengths ``extent`` 3), RSS 136 (axes 9, corner ``Tr`` 3, side lengths ``length`` 2,
``radius``: the rectangle spans ``Tr + s a0 + t a1``, ``0 <= s <= length[0]``, ``0 <= t <=
length[1]``), OBBRSS 256 (an OBB then an RSS), kIOS 304 (5 spheres of 4 doubles, the
sphere count and padding, then an OBB); KDOP 144, 160, 208 are named and refused. OBB and
RSS records have the same size: the reading whose root volume encloses the mesh is taken.

The node tree: node 0 is the root; a node with ``first_child >= 0`` has its children at
``first_child`` and ``first_child + 1``; a leaf has ``first_child = -(t + 1)`` with ``t``
its one triangle, an index into the file's triangles (coal's leaves hold one triangle each).
``first_primitive`` and ``num_primitives`` index coal's ``primitive_indices``, which the
archive does not hold; they are not needed (a leaf names its triangle), and only a leaf's
``num_primitives`` (must be 1) is checked.

The mesh given wins: the file's vertices and triangles must equal it exactly (the counts
first, then the first differing vertex or triangle is named); the query runs on the mesh.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

from core.bv import obb, ssv
from core.bvh.boost_archive import ArchiveError, open_archive
from core.bvh.treefile import ImportedTree, TreeFileError
from core.bvh.treefile_nodes import _FileTree, tree_from_file
from core.jit.kernel_args import frozen
from core.mesh import TriMesh

#: Record size in bytes of ``BVNode<BV>`` (64-bit build) by volume type.
NODE_BYTES = {64: "AABB", 136: "OBB or RSS", 256: "OBBRSS", 304: "kIOS", 144: "KDOP<16>",
              160: "KDOP<18>", 208: "KDOP<24>"}  # fmt: skip
READ_TYPES = ("AABB", "OBB", "RSS", "OBBRSS", "kIOS")


def read_coal_tree(path: Path, mesh: TriMesh, data: bytes) -> ImportedTree:
    """The tree of a coal ``BVHModel`` archive ``data`` (the bytes of ``path``) over ``mesh``.

    Raises
    ------
    TreeFileError
        One line naming the file and, where a node is at fault, its index in the file.
    """
    return read_bvh_model(path, mesh, data, "coal", _walk)


def read_bvh_model(path: Path, mesh: TriMesh, data: bytes, engine: str, walk) -> ImportedTree:
    """The tree of a ``BVHModel`` archive of ``engine`` ("coal" or "hpp-fcl"); ``walk(archive,
    mesh)`` reads its values up to the node records (see :func:`_walk`)."""
    t0 = time.perf_counter()
    try:
        archive = open_archive(data)
        vertices, triangles, records, n_nodes = walk(archive, mesh)
    except ArchiveError as exc:
        raise TreeFileError(path, f"{engine} {_archive_kind(data)} archive: {exc.args[0]}"
                            ) from None  # fmt: skip
    where = f"{engine} {archive.kind} archive"

    def fail(reason: str):
        raise TreeFileError(path, f"{where}: {reason}")

    _same_mesh(vertices, triangles, mesh, fail)
    if n_nodes == 0 or records.size % n_nodes:
        fail(f"the {records.size:,} bytes of nodes are not {n_nodes:,} records of one size "
             f"(the file is cut short, or num_bvs is wrong)")
    size = records.size // n_nodes
    bv_type = NODE_BYTES.get(size)
    if bv_type is None or bv_type.startswith("KDOP"):
        what = f"{bv_type} volumes" if bv_type else f"node records of {size:,} bytes"
        fail(f"{what}: this reader reads {engine}'s {', '.join(READ_TYPES)} models")
    head = records.reshape(n_nodes, size)
    first_child = head[:, 0:4].copy().view("<i4").ravel().astype(np.int64)
    n_prims = head[:, 8:12].copy().view("<u4").ravel().astype(np.int64)
    doubles = head[:, 16:].copy().view("<f8").reshape(n_nodes, -1)
    m = mesh.n_faces
    children, order = _topology(first_child, n_prims, m, fail, engine)
    bv_type, volumes = _volumes(bv_type, doubles, mesh, fail)
    bounds = _bounds(bv_type, doubles)
    bad = ~np.isfinite(doubles).all(axis=1)
    if bad.any():
        fail(f"node {int(np.flatnonzero(bad)[0])}: its {bv_type} holds NaN or infinity")
    leaves = children[:, 0] < 0
    start = np.full(n_nodes, 0, dtype=np.int64)
    start[leaves] = np.arange(int(leaves.sum()))
    f = _FileTree(m, n_nodes, bounds, children, start, leaves.astype(np.int64), order, None,
                  1)  # fmt: skip
    tree, file_of = tree_from_file(path, mesh, f, t0)
    ours = {}
    for name, rows in volumes.items():
        rows = np.ascontiguousarray(rows[file_of])
        rows.flags.writeable = False
        ours[name] = rows
    if ours:
        # The file has no axis-aligned boxes: the tree's own (what the AABB query and the box
        # checks use) are fitted to each node's triangles; the file's volumes are kept as is.
        tree = _fitted_boxes(tree, mesh)
    imported = ImportedTree(tree=tree, file_ids=file_of, path=path,
                            source=f"{engine} {bv_type} file {path.name}, {n_nodes:,} nodes",
                            volumes=ours, volume_note=_note(bv_type, engine))  # fmt: skip
    if ours:
        from core.bv.registry import give_volumes

        # On the tree the ImportedTree holds (it names its file: a copy of ``tree``).
        give_volumes(imported.tree, mesh.vertices, ours)
    return imported


def _archive_kind(data: bytes) -> str:
    return {b"2": "text", b"\x16": "binary"}.get(data[:1], "XML")



def geometry_and_vertex_count(a, mesh: TriMesh) -> int:
    """Read the part coal and hpp-fcl 2.x share after the model's own class record: the
    ``BVHModelBase`` and ``CollisionGeometry`` records (the AABB centre, radius and local box,
    the cost density and occupancy thresholds), then ``num_vertices``, checked against the
    mesh before any array is made. Returns the vertex count."""
    a.class_info("the BVHModelBase")
    a.class_info("the CollisionGeometry")
    a.class_info("aabb_center")
    for _ in range(3):
        a.float("aabb_center", "item")
    a.float("aabb_radius")
    a.class_info("aabb_local")
    for name in ("min_", "max_"):
        for _ in range(3):
            a.float(f"aabb_local {name}", "item")
    for name in ("cost_density", "threshold_occupied", "threshold_free"):
        a.float(name)
    n = a.uint("num_vertices")
    if n != mesh.n_vertices:
        raise ArchiveError(f"num_vertices is {n:,} but the mesh{_mesh_words(mesh)} has "
                           f"{mesh.n_vertices:,} vertices")
    return n


def triangle_count(a, mesh: TriMesh) -> int:
    """``num_tris``, checked against the mesh before any array is made."""
    m = a.uint("num_tris")
    if m != mesh.n_faces:
        raise ArchiveError(f"num_tris is {m:,} but the mesh{_mesh_words(mesh)} has "
                           f"{mesh.n_faces:,} triangles")
    return m


def node_records(a, m: int, tree_words: str) -> tuple[bytes, int]:
    """The archive's end, as coal and hpp-fcl 2.x write it after the mesh: ``with_bvs``,
    ``num_bvs`` checked against the ``m`` triangles (a binary tree of one triangle a leaf has
    ``2 m - 1`` nodes) before anything is allocated, then the node records' bytes.
    ``tree_words`` names the engine's tree in the message ("a coal tree")."""
    if not a.bool("with_bvs"):
        raise ArchiveError("the model holds no bounding volumes (with_bvs is 0): save it "
                           "after endModel")
    k = a.uint("num_bvs")
    if not 1 <= k <= max(2 * m - 1, 1):
        raise ArchiveError(f"num_bvs is {k:,}, but {tree_words} over {m:,} triangles has "
                           f"{max(2 * m - 1, 1):,} nodes")
    return a.rest_bytes("the nodes"), k

def _walk(a, mesh: TriMesh):
    """Values of the archive in coal's order: ``(vertices (n, 3), triangles (m, 3), node
    bytes (j,) uint8, num_bvs)``. Counts are checked against the mesh before any array."""
    a.class_info("the BVHModel", tracked=True)
    a.object_id("the BVHModel")
    n = geometry_and_vertex_count(a, mesh)
    a.class_info("vertices")
    if not a.pointer("vertices", new_class=True):
        raise ArchiveError("the model has no vertices (a null pointer)")
    _collection(a, "vertices", n)
    vertices = a.numbers("the vertices", 3 * n, "f8").reshape(n, 3)
    m = triangle_count(a, mesh)
    a.class_info("tri_indices")
    if not a.pointer("tri_indices", new_class=True):
        raise ArchiveError("the model has no triangles (a null pointer)")
    _collection(a, "tri_indices", m)
    a.class_info("a Triangle")
    triangles = a.numbers("the triangles", 3 * m, "u8", names=("p0", "p1", "p2"))
    a.int("build_state")
    if a.pointer("prev_vertices", new_class=True):
        raise ArchiveError("prev_vertices is set (a model saved while being updated): this "
                           "reader reads models saved after endModel")
    records, k = node_records(a, m, "a coal tree")
    return vertices, triangles.reshape(m, 3), records, k


def _collection(a, what: str, want: int) -> None:
    count = a.count(f"the {what} count")
    if count != want:
        raise ArchiveError(f"the {what} array holds {count:,} items, not {want:,}")
    a.item_version(what)


def _mesh_words(mesh: TriMesh) -> str:
    return f" {mesh.name}" if mesh.name else ""


def _same_mesh(vertices, triangles, mesh: TriMesh, fail) -> None:
    """The file's vertices and triangles are the mesh's, exactly (the mesh wins)."""
    wrong = np.flatnonzero((vertices != mesh.vertices).any(axis=1))
    if wrong.size:
        i = int(wrong[0])
        fail(f"vertex {i} is {_xyz(vertices[i])} in the file but {_xyz(mesh.vertices[i])} in "
             f"the mesh{_mesh_words(mesh)} ({_differ(wrong.size, 'vertex', 'vertices')}): the tree "
             f"was built on another mesh")  # fmt: skip
    wrong = np.flatnonzero((triangles != mesh.faces).any(axis=1))
    if wrong.size:
        i = int(wrong[0])
        fail(f"triangle {i} is {tuple(int(v) for v in triangles[i])} in the file but "
             f"{tuple(int(v) for v in mesh.faces[i])} in the mesh{_mesh_words(mesh)} "
             f"({_differ(wrong.size, 'triangle', 'triangles')}): the tree was built on "
             f"another mesh")


def _differ(n: int, one: str, many: str) -> str:
    return f"1 {one} differs" if n == 1 else f"{n:,} {many} differ"


def _xyz(p) -> str:
    return "(" + ", ".join(repr(float(x)) for x in p) + ")"


def _topology(first_child, n_prims, m: int, fail, engine: str = "coal"):
    """``children (k, 2)`` (-1 for a leaf) and ``order (m,)``: the leaves' triangles in node
    order (leaf ``j`` in node order owns ``order[j]``)."""
    k = first_child.shape[0]
    inner = first_child >= 0
    bad = inner & ((first_child < 1) | (first_child + 1 >= k))
    if bad.any():
        node = int(np.flatnonzero(bad)[0])
        fail(f"node {node}: first_child {int(first_child[node])} names children "
             f"{int(first_child[node])}, {int(first_child[node]) + 1}, not nodes 1..{k - 1}")
    tris = -(first_child + 1)
    bad = ~inner & (tris >= m)
    if bad.any():
        node = int(np.flatnonzero(bad)[0])
        fail(f"node {node}: first_child {int(first_child[node])} names triangle "
             f"{int(tris[node])}, but the mesh has {m:,} (0..{m - 1})")
    bad = ~inner & (n_prims != 1)
    if bad.any():
        node = int(np.flatnonzero(bad)[0])
        fail(f"node {node} is a leaf (triangle {int(tris[node])}) but num_primitives is "
             f"{int(n_prims[node])}: {engine}'s leaves hold one triangle")
    order = tris[~inner]
    seen = np.bincount(order, minlength=m)
    twice = np.flatnonzero(seen > 1)
    if twice.size:
        t = int(twice[0])
        nodes = np.flatnonzero(~inner & (tris == t))[:2]
        fail(f"nodes {int(nodes[0])} and {int(nodes[1])} are both leaves of triangle {t}")
    missing = np.flatnonzero(seen == 0)
    if missing.size:
        fail(f"triangle {int(missing[0])} is in no leaf ({missing.size:,} triangle"
             f"{'' if missing.size == 1 else 's'} in none)")
    children = np.where(inner[:, None], first_child[:, None] + np.array([0, 1]), -1)
    return children, order


def _obb_rows(d: np.ndarray) -> np.ndarray:
    """coal OBB doubles ``(k, 15)`` (axes column-major, To, extent) as our OBB rows."""
    rows = np.empty((d.shape[0], obb.WIDTH))
    rows[:, obb.CENTRE] = d[:, 9:12]
    rows[:, obb.AXES] = d[:, 0:9].reshape(-1, 3, 3).transpose(0, 2, 1).reshape(-1, 9)
    rows[:, obb.HALF] = d[:, 12:15]
    return rows


def _rss_rows(d: np.ndarray) -> np.ndarray:
    """coal RSS doubles ``(k, 15)`` (axes, corner Tr, length 2, radius) as our RSS rows
    (centre of the rectangle, axes, half side lengths, radius)."""
    axes = d[:, 0:9].reshape(-1, 3, 3)  # axes[:, j] is axis j (column-major storage)
    rows = np.empty((d.shape[0], ssv.WIDTH))
    rows[:, ssv.CENTRE] = d[:, 9:12] + 0.5 * (d[:, 12:13] * axes[:, 0] + d[:, 13:14] * axes[:, 1])
    rows[:, ssv.AXES] = axes.transpose(0, 2, 1).reshape(-1, 9)
    rows[:, ssv.HALF] = 0.5 * d[:, 12:14]
    rows[:, ssv.RADIUS] = d[:, 14]
    return rows


def _volumes(bv_type: str, d: np.ndarray, mesh: TriMesh, fail) -> tuple[str, dict]:
    """The file's volumes in our kinds' rows, the default kind first."""
    if bv_type == "AABB":
        return bv_type, {}
    if bv_type == "OBBRSS":
        return bv_type, {"obb": _obb_rows(d[:, 0:15]), "rss": _rss_rows(d[:, 15:30])}
    if bv_type == "kIOS":
        return bv_type, {"obb": _obb_rows(d[:, 21:36])}
    # OBB or RSS (same record size): the reading whose root holds the mesh's vertices.
    as_obb, as_rss = _obb_rows(d[:1]), _rss_rows(d[:1])
    from core.bv import obb, ssv

    out_obb = float(np.max(obb.distance_outside(as_obb[0], mesh.vertices), initial=-np.inf))
    out_rss = float(np.max(ssv.distance_outside(as_rss[0], mesh.vertices), initial=-np.inf))
    if not (np.isfinite(out_obb) or np.isfinite(out_rss)):
        fail("node 0: its volume holds NaN or infinity")
    if out_rss < out_obb:
        return "RSS", {"rss": _rss_rows(d)}
    return "OBB", {"obb": _obb_rows(d)}


def _bounds(bv_type: str, d: np.ndarray) -> np.ndarray:
    """``(k, 6)`` boxes in the file's order: an AABB model's own; for the oriented types 0
    (the tree's boxes are fitted to its triangles once it is read: the file has none)."""
    if bv_type == "AABB":
        return d[:, 0:6].copy()
    return np.zeros((d.shape[0], 6))


def _fitted_boxes(tree, mesh: TriMesh):
    """``tree`` with boxes fitted to its nodes' triangles (exact, bottom-up) and its stats'
    box measures recomputed."""
    from core.bv.registry import refit_volumes
    from core.bvh.quality import sah_cost, volume_sum

    boxes = refit_volumes(tree, mesh, "aabb")
    # Read-only as every tree's boxes: the measures run the signature the warm-up compiled
    # (writable copies compiled sah_cost and volume_sum again at the first tree opened).
    bmin, bmax = frozen(boxes[:, :3]), frozen(boxes[:, 3:])
    stats = dataclasses.replace(tree.stats, sah_cost=float(sah_cost(bmin, bmax, tree.count)),
                                volume_sum=float(volume_sum(bmin, bmax)))  # fmt: skip
    return tree.replaced(bmin=bmin, bmax=bmax, stats=stats)


def _note(bv_type: str, engine: str = "coal") -> str:
    return engine + {
        "OBBRSS": " OBBRSS: the OBB part is drawn and tested (--bv rss, or RSS volumes in "
                  "the app, uses the RSS part)",
        "kIOS": " kIOS: its OBB is drawn and tested (the spheres it also keeps are not)",
        "OBB": " OBB: the file's oriented boxes are drawn and tested",
        "RSS": " RSS: the file's rounded rectangles are drawn and tested",
        "AABB": " AABB: the file's boxes are the tree's boxes",
    }[bv_type]
