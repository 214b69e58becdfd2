"""Helpers the core tests share: the command line run in-process, a mesh written as OBJ, the
brute-force oracle of a posed pair and the poses the oracle tests share, the contacts python-fcl
finds, the hand-checked triangle pairs, and trees written as another engine would. Mesh
generators are in ``tests/core/meshgen.py``, hostile files in ``tests/hostile/``."""

from __future__ import annotations

import ast
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from core.collide.brute import brute_force_pairs
from core.collide.tritri import ContactKind
from core.files.container import MANIFEST
from core.mesh import TriMesh
from core.pose import Pose


# -- the command line ------------------------------------------------------------------------
def run_cli(capsys, *argv):
    """``python -m core *argv`` in this process: ``(exit status, stdout, stderr)``."""
    from core.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write_obj(path: Path, mesh: TriMesh) -> Path:
    """``mesh`` written to ``path`` as an OBJ file with every coordinate exact (``repr``)."""
    lines = [f"v {x!r} {y!r} {z!r}" for x, y, z in mesh.vertices.tolist()]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in mesh.faces.tolist()]
    path.write_text("\n".join(lines) + "\n")
    return path


# -- contact oracles ---------------------------------------------------------------------------
ROTATED = Pose.from_axis_angle((1, 2, 3), 0.6, (0.05, -0.02, 0.03))
SHIFTED = Pose(np.eye(3), (0.03, 0.02, -0.01))


def oracle_pairs(mesh_a, mesh_b, pose_a=None, pose_b=None):
    """``(k, 2)``: the brute-force contact pairs of two posed meshes (no pose: identity)."""
    va = (pose_a or Pose()).apply(mesh_a.vertices)
    vb = (pose_b or Pose()).apply(mesh_b.vertices)
    return brute_force_pairs(va, mesh_a.faces, vb, mesh_b.faces)


def fcl_pairs(mesh_a, mesh_b, shift):
    """Sorted ``(triangle of A, triangle of B)`` contacts python-fcl finds with B moved by
    ``shift``; the test is skipped where python-fcl is not installed."""
    fcl = pytest.importorskip("fcl")
    objects = []
    for mesh, t in ((mesh_a, np.zeros(3)), (mesh_b, shift)):
        model = fcl.BVHModel()
        model.beginModel(mesh.n_faces, mesh.n_vertices)
        model.addSubModel(np.asarray(mesh.vertices), np.asarray(mesh.faces))
        model.endModel()
        objects.append(fcl.CollisionObject(model, fcl.Transform(np.eye(3), t)))
    request = fcl.CollisionRequest(num_max_contacts=10**8, enable_contact=True)
    result = fcl.CollisionResult()
    fcl.collide(objects[0], objects[1], request, result)
    return sorted({(int(c.b1), int(c.b2)) for c in result.contacts})


# -- triangle pairs ---------------------------------------------------------------------------
D, X, T, C = ContactKind.DISJOINT, ContactKind.CROSSING, ContactKind.TOUCHING, ContactKind.COPLANAR

# The reference triangle of most hand cases: right triangle in z = 0, legs 4 along x and y.
P = [[0, 0, 0], [4, 0, 0], [0, 4, 0]]

# (name, triangle a, triangle b, expected kind, expected segment or None for DISJOINT).
HAND_CASES = [
    (
        "crossing_x",
        P,
        [[1, -1, -1], [1, 2, -1], [1, 0.5, 2]],
        X,
        [[1, 0, 0], [1, 1.5, 0]],
    ),
    ("vertex_on_face", P, [[1, 1, 0], [2, 1, 2], [1, 2, 2]], T, [[1, 1, 0], [1, 1, 0]]),
    ("edge_touches_edge", P, [[2, -1, 1], [2, 1, -1], [2, -3, -3]], T, [[2, 0, 0], [2, 0, 0]]),
    ("edge_in_face", P, [[1, 1, 0], [2, 1, 0], [1.5, 1, 2]], T, [[1, 1, 0], [2, 1, 0]]),
    ("vertex_on_vertex", P, [[4, 0, 0], [5, 1, 1], [5, -1, 1]], T, [[4, 0, 0], [4, 0, 0]]),
    ("coplanar_overlap", P, [[1, 1, 0], [5, 1, 0], [1, 5, 0]], C, [[3, 1, 0], [1, 3, 0]]),
    ("coplanar_identical", P, P, C, [[4, 0, 0], [0, 4, 0]]),
    ("coplanar_inside", P, [[1, 1, 0], [2, 1, 0], [1, 2, 0]], C, [[2, 1, 0], [1, 2, 0]]),
    ("coplanar_disjoint", P, [[3, 3, 0], [5, 3, 0], [3, 5, 0]], D, None),
    ("coplanar_shared_edge", P, [[4, 0, 0], [0, 4, 0], [4, 4, 0]], T, [[4, 0, 0], [0, 4, 0]]),
    ("coplanar_shared_vertex", P, [[4, 0, 0], [6, 0, 0], [6, 2, 0]], T, [[4, 0, 0], [4, 0, 0]]),
    ("far_apart", P, [[100, 0, 0], [104, 0, 0], [100, 4, 0]], D, None),
    ("parallel_planes", P, [[0, 0, 1], [4, 0, 1], [0, 4, 1]], D, None),
    ("above_no_contact", P, [[1, 1, 0.5], [2, 1, 2], [1, 2, 2]], D, None),
    ("repeated_vertex_crossing", P, [[1, 1, -1], [1, 1, -1], [1, 1, 1]], T, [[1, 1, 0], [1, 1, 0]]),
    ("repeated_vertex_missing", P, [[5, 5, -1], [5, 5, -1], [5, 5, 1]], D, None),
    ("collinear_crossing", P, [[1, 1, -1], [1, 1, 0.5], [1, 1, 1]], T, [[1, 1, 0], [1, 1, 0]]),
    ("collinear_missing", P, [[5, 5, -1], [5, 5, 0.5], [5, 5, 1]], D, None),
    ("collinear_in_plane", P, [[-1, 1, 0], [2, 1, 0], [5, 1, 0]], T, [[0, 1, 0], [3, 1, 0]]),
    ("point_on_face", P, [[1, 1, 0], [1, 1, 0], [1, 1, 0]], T, [[1, 1, 0], [1, 1, 0]]),
    ("point_off_face", P, [[1, 1, 1], [1, 1, 1], [1, 1, 1]], D, None),
    (
        "segments_cross",
        [[0, 0, 0], [2, 2, 0], [4, 4, 0]],
        [[0, 4, 0], [4, 0, 0], [4, 0, 0]],
        T,
        [[2, 2, 0], [2, 2, 0]],
    ),
    (
        "segments_skew",
        [[0, 0, 0], [2, 2, 0], [4, 4, 0]],
        [[0, 4, 1], [4, 0, 1], [4, 0, 1]],
        D,
        None,
    ),
    (
        "segments_collinear_overlap",
        [[0, 0, 0], [1, 0, 0], [3, 0, 0]],
        [[2, 0, 0], [5, 0, 0], [5, 0, 0]],
        T,
        [[2, 0, 0], [3, 0, 0]],
    ),
    ("points_equal", [[1, 2, 3]] * 3, [[1, 2, 3]] * 3, T, [[1, 2, 3], [1, 2, 3]]),
    ("points_apart", [[1, 2, 3]] * 3, [[1, 2, 4]] * 3, D, None),
]


# -- tree files -----------------------------------------------------------------------------
TREE_ARRAYS = ("first", "count", "parent", "depth", "prim_start", "n_prims", "prim_ids",
               "bmin", "bmax", "level_nodes", "level_start")  # fmt: skip


def assert_same_tree(a, b):
    """Every array of two trees has the same dtype, shape and values."""
    for name in TREE_ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert np.array_equal(x, y), name


# Four triangles with round coordinates; a tree in the children layout with ids in no
# particular order (root 4), written by hand.
FOUR = TriMesh.from_arrays(
    np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [2, 0, 0], [3, 0, 0], [2, 1, 0],
              [0, 0, 2], [1, 0, 2], [0, 1, 2], [2, 0, 2], [3, 0, 2], [2, 1, 2]], float),
    np.arange(12).reshape(4, 3), "four")  # fmt: skip

FOREIGN = """{
  "format": "bvh-lab-tree", "version": 1, "triangles": 4, "nodes": 7,
  "bounds": [[0, 0, 2, 1, 1, 2],
             [2, 0, 0, 3, 1, 2],
             [2, 0, 0, 3, 1, 0],
             [0, 0, 0, 1, 1, 0],
             [0, 0, 0, 3, 1, 2],
             [2, 0, 2, 3, 1, 2],
             [0, 0, 0, 1, 1, 2]],
  "children": [[-1, -1], [5, 2], [-1, -1], [-1, -1], [6, 1], [-1, -1], [0, 3]],
  "start": [0, 0, 3, 1, 0, 2, 0],
  "count": [1, 0, 1, 1, 0, 1, 0],
  "order": [2, 0, 3, 1]
}"""


def foreign_tree(tree, seed, is_shuffled: bool = True) -> tuple[dict, np.ndarray]:
    """``tree`` written as another engine might: its node ids shuffled; with
    ``is_shuffled`` also some children pairs swapped and the leaf ranges laid out in
    ``order`` in a shuffled leaf order (else in the tree's own order).

    Returns
    -------
    keys : dict
        The tree file's keys (``json.dumps`` writes the file).
    file_id : (k,) int64
        The file's id of each of our nodes.
    """
    rng = np.random.default_rng(seed)
    k = tree.n_nodes
    file_id = rng.permutation(k)  # drawn first: the same ids with or without the shuffles
    children = np.full((k, 2), -1)
    start = np.zeros(k, dtype=int)
    count = np.zeros(k, dtype=int)
    order = []
    leaves = np.flatnonzero(tree.count > 0)
    for leaf in (rng.permutation(leaves) if is_shuffled
                 else leaves[np.argsort(tree.first[leaves])]):
        start[file_id[leaf]] = len(order)
        count[file_id[leaf]] = tree.count[leaf]
        order.extend(tree.prim_ids[tree.first[leaf]:tree.first[leaf] + tree.count[leaf]])
    for node in np.flatnonzero(tree.count == 0):
        pair = [file_id[tree.first[node]], file_id[tree.first[node] + 1]]
        children[file_id[node]] = pair[::-1] if is_shuffled and rng.random() < 0.5 else pair
    bounds = np.empty((k, 6))
    bounds[file_id] = np.concatenate([tree.bmin, tree.bmax], axis=1)
    keys = {"format": "bvh-lab-tree", "version": 1, "triangles": int(tree.prim_ids.size),
            "nodes": k, "bounds": bounds.tolist(), "children": children.tolist(),
            "start": start.tolist(), "count": count.tolist(),
            "order": [int(t) for t in order]}  # fmt: skip
    return keys, file_id


def as_foreign(tree, seed) -> dict:
    """The keys of :func:`foreign_tree` with every shuffle."""
    return foreign_tree(tree, seed)[0]


# -- kind names in code ----------------------------------------------------------------------
def _names_a_kind(node: ast.AST, keys: set[str], min_letters: int) -> bool:
    """A string constant that is a registry key or the start of one (``"kdop"``) of at least
    ``min_letters`` letters."""
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)
            and len(node.value) >= max(min_letters, 1)
            and any(key.startswith(node.value) for key in keys))  # fmt: skip


def kind_name_uses(source: str, keys: set[str], min_letters: int = 3) -> list[int]:
    """Lines of Python ``source`` where a kind's key (one of ``keys``) is compared,
    subscripted by, or a prefix test of it. A string counts from ``min_letters`` letters: at
    3 (the core's check), ``"a"`` and ``"b"``, the two bodies, are not the start of
    ``"aabb"``; the viewer, which names no body that way, is checked from 1."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
            parts += [e for p in parts if isinstance(p, (ast.Tuple, ast.Set, ast.List))
                      for e in p.elts]  # fmt: skip
            if any(_names_a_kind(p, keys, min_letters) for p in parts):
                lines.append(node.lineno)
        elif (isinstance(node, ast.Subscript)
              and _names_a_kind(node.slice, keys, min_letters)):  # fmt: skip
            lines.append(node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("startswith", "endswith")
              and any(_names_a_kind(a, keys, min_letters) for a in node.args)):  # fmt: skip
            lines.append(node.lineno)
    return lines


# -- zip containers (recordings, sessions) ---------------------------------------------------
def rewrite_zip(source, target, change_manifest=None, drop=None, replace=None):
    """Copy the zip container ``source`` (a recording or a session) to ``target``, spoiled:
    ``change_manifest(manifest dict)`` gives the new manifest (a dict, or bytes written as
    they are), the member named ``drop`` is left out, and ``replace`` maps member names to
    new bytes. Returns ``target``."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            if item.filename == drop:
                continue
            data = old.read(item.filename)
            if item.filename == MANIFEST and change_manifest is not None:
                data = change_manifest(json.loads(data))
                data = data if isinstance(data, bytes) else json.dumps(data).encode()
            if replace and item.filename in replace:
                data = replace[item.filename]
            new.writestr(item.filename, data)
    return target


def npy_bytes(array) -> bytes:
    """``array`` as the bytes of a ``.npy`` file (object arrays pickled, as a hostile file
    would hold them)."""
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


# -- tree files from other engines -----------------------------------------------------------
def tree_file_error(path, mesh, content=None) -> str:
    """The message of the TreeFileError that reading the tree file ``path`` over ``mesh``
    raises (``content``, text or bytes, written there first), checked to be one line
    starting with the path."""
    from core.bvh.tree_formats import read_any_tree
    from core.bvh.treefile import TreeFileError

    if isinstance(content, str):
        path.write_text(content)
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(TreeFileError) as caught:
        read_any_tree(path, mesh)
    text = str(caught.value)
    assert "\n" not in text and text.startswith(f"{path}: ")
    return text



def assert_refused_on_other_meshes(folder, mesh: TriMesh, moved_words: str) -> None:
    """The OBB tree files ``octahedron-obb.txt``, ``.bin`` and ``.xml`` in ``folder`` (built
    on ``mesh``) are refused over three other meshes, each message naming the first
    difference: vertex 4 moved 0.5 along +z (the text file; ``moved_words`` is the
    engine's message, a regular expression), every triangle's winding flipped (the binary
    file), only the first six triangles (the XML file)."""
    from core.bvh.tree_formats import read_any_tree
    from core.bvh.treefile import TreeFileError

    moved = mesh.with_vertices(mesh.vertices + np.array([0.0, 0.0, 0.5])
                               * (np.arange(mesh.n_vertices) == 4)[:, None])  # fmt: skip
    with pytest.raises(TreeFileError, match=moved_words):
        read_any_tree(folder / "octahedron-obb.txt", moved)
    flipped = TriMesh.from_arrays(mesh.vertices, mesh.faces[:, [0, 2, 1]], "flipped")
    with pytest.raises(TreeFileError, match=r"triangle 0 is \(0, 2, 4\) in the file but "
                       r"\(0, 4, 2\) in the mesh flipped \(8 triangles differ\)"):
        read_any_tree(folder / "octahedron-obb.bin", flipped)
    fewer = TriMesh.from_arrays(mesh.vertices, mesh.faces[:6], "fewer")
    with pytest.raises(TreeFileError, match="num_tris is 8 but the mesh fewer has 6 triangles"):
        read_any_tree(folder / "octahedron-obb.xml", fewer)


def assert_imported_tree_fits(imported, mesh, volumes: tuple, same_as) -> None:
    """An imported tree of ``mesh`` (coal's or hpp-fcl's build: one triangle a leaf) holds
    the ``volumes`` kinds, every triangle once, and volumes that hold their triangles to
    round-off and touch them (a wrong layout, e.g. a rectangle's corner taken for its
    centre, leaves a gap or sticks out); its volumes equal those of the file ``same_as``
    (the same tree in another archive)."""
    from core.bvh.tree_formats import read_any_tree
    from core.bvh.validate_volumes import validate_imported, volume_excess

    assert tuple(imported.volumes) == volumes
    assert imported.tree.n_nodes == 2 * mesh.n_faces - 1
    assert sorted(imported.tree.prim_ids.tolist()) == list(range(mesh.n_faces))
    for name, rows in imported.volumes.items():
        excess, _ = volume_excess(imported.tree, mesh.vertices, name, rows)
        assert excess.max() < 1e-14
        assert excess.min() > -1e-9
    assert validate_imported(imported, mesh.vertices).ok
    other = read_any_tree(same_as, mesh)
    for name in imported.volumes:
        np.testing.assert_allclose(imported.volumes[name], other.volumes[name], rtol=0,
                                   atol=1e-15)  # fmt: skip


# -- experiments -----------------------------------------------------------------------------
def progress_cancelled_at(n_reports: int):
    """A :class:`core.experiments.Progress` that cancels itself at its ``n_reports``-th
    report, and the list of the ``(done, total, what)`` reports it got."""
    from core.experiments import Progress

    seen = []

    def report(done, total, what):
        seen.append((done, total, what))
        if len(seen) == n_reports:
            progress.cancel()

    progress = Progress(report)
    return progress, seen
