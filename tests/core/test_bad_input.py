"""The bad-input catalogue, core side: one table, one named case a row.

Each row writes a file the way a user could have it and says what must happen: either a
specific exception (class, ``count`` and ``first_index`` where the error counts items, and a
one-line message naming the file), or a mesh that loads and that the engine handles (checked
against the brute-force oracle). ``tests/core/io/test_load_mesh.py`` covers the per-format details
(every extension, pyvista-written files); this table is the user-facing list.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from core.bvh import build_tree
from core.collide import collide, self_collide
from core.collide.brute import brute_force_contacts
from core.collide.tritri import ContactKind
from core.containment import ContainmentKind, contained, edge_stats
from core.errors import (
    CorruptMeshFileError,
    FaceIndexError,
    MeshFileError,
    NonFiniteVertexError,
    NoTrianglesError,
    UnsupportedMeshFormatError,
)
from core.io import load_mesh
from core.mesh import TriMesh
from core.pose import Pose
from tests.core.meshgen import sphere_mesh

# ---------------------------------------------------------------------------------------------
# Writers


def _obj_text(vertices, faces) -> str:
    lines = [f"v {x!r} {y!r} {z!r}" for x, y, z in np.asarray(vertices, dtype=float).tolist()]
    lines += ["f " + " ".join(str(i + 1) for i in f) for f in faces]
    return "\n".join(lines) + "\n"


def _write_obj(path: Path, vertices, faces) -> Path:
    path.write_text(_obj_text(vertices, faces))
    return path


def _stl_binary(triangles) -> bytes:
    tris = np.asarray(triangles, dtype=np.float32).reshape(-1, 3, 3)
    out = [b"\0" * 80, struct.pack("<I", len(tris))]
    for t in tris:
        out.append(struct.pack("<12fH", 0.0, 0.0, 0.0, *t.ravel().tolist(), 0))
    return b"".join(out)


def _stl_ascii(triangles) -> str:
    lines = ["solid test"]
    for t in np.asarray(triangles, dtype=float).tolist():
        lines += ["  facet normal 0 0 0", "    outer loop"]
        lines += [f"      vertex {x!r} {y!r} {z!r}" for x, y, z in t]
        lines += ["    endloop", "  endfacet"]
    return "\n".join(lines + ["endsolid test"]) + "\n"


def _ply_ascii(vertices, faces) -> str:
    head = (
        f"ply\nformat ascii 1.0\nelement vertex {len(vertices)}\nproperty float x\n"
        f"property float y\nproperty float z\nelement face {len(faces)}\n"
        "property list uchar int vertex_indices\nend_header\n"
    )
    body = [" ".join(repr(float(c)) for c in v) for v in vertices]
    body += [f"{len(f)} " + " ".join(map(str, f)) for f in faces]
    return head + "\n".join(body) + "\n"


def _ply_binary(vertices, faces) -> bytes:
    head = (
        f"ply\nformat binary_little_endian 1.0\nelement vertex {len(vertices)}\n"
        "property float x\nproperty float y\nproperty float z\n"
        f"element face {len(faces)}\nproperty list uchar int vertex_indices\nend_header\n"
    ).encode()
    body = b"".join(struct.pack("<3f", *v) for v in vertices)
    body += b"".join(struct.pack(f"<B{len(f)}i", len(f), *f) for f in faces)
    return head + body


# A closed octahedron: 6 vertices, 8 triangles.
OCTA_V = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float)
OCTA_F = [[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]]
SPHERE = sphere_mesh(6)


def _cut(data: bytes | str, fraction: float):
    return data[: int(len(data) * fraction)]


# ---------------------------------------------------------------------------------------------
# Checks for files that must load


def _oracle_pairs(a: TriMesh, b: TriMesh, pose_b: Pose | None = None) -> np.ndarray:
    vb = b.vertices if pose_b is None else pose_b.apply(b.vertices)
    return brute_force_contacts(a.vertices, a.faces, vb, b.faces)[0]


def _collide(a: TriMesh, b: TriMesh, pose_b: Pose | None = None):
    return collide(a, build_tree(a), b, build_tree(b), None, pose_b)


def _contacts_equal_oracle(mesh: TriMesh, pose_b: Pose) -> None:
    result = _collide(mesh, mesh, pose_b)
    expected = _oracle_pairs(mesh, mesh, pose_b)
    assert len(expected) > 0
    np.testing.assert_array_equal(result.pairs, expected)


def check_degenerate(n_degenerate: int) -> Callable[[TriMesh], None]:
    def check(mesh: TriMesh) -> None:
        assert mesh.n_degenerate == n_degenerate
        assert mesh.n_faces == 9
        _contacts_equal_oracle(mesh, Pose(np.eye(3), np.array([0.25, 0.1, 0.05])))

    return check


def check_duplicate_faces(mesh: TriMesh) -> None:
    assert mesh.n_faces == 10
    faces = np.sort(mesh.faces, axis=1)
    assert len(np.unique(faces, axis=0)) == 8
    # A duplicated face lies on its twin: self-collision reports the pair as COPLANAR.
    result = self_collide(mesh, build_tree(mesh))
    assert result.pairs.tolist() == [[0, 8], [5, 9]]
    assert set(result.kinds.tolist()) == {int(ContactKind.COPLANAR)}
    _contacts_equal_oracle(mesh, Pose(np.eye(3), np.array([0.5, 0.2, 0.1])))


def check_non_manifold(mesh: TriMesh) -> None:
    stats = edge_stats(mesh)
    assert stats.n_nonmanifold_edges == 1 and stats.n_boundary_edges == 2
    assert contained(SPHERE, mesh).kind is ContainmentKind.UNDEFINED
    _contacts_equal_oracle(mesh, Pose(np.eye(3), np.array([0.5, 0.2, 0.1])))


def check_open(mesh: TriMesh) -> None:
    # Two of the four triangles around the top corner removed: two 3-edge holes.
    assert edge_stats(mesh).n_boundary_edges == 6
    c = contained(sphere_mesh(4, 0.1), mesh)
    assert c.kind is ContainmentKind.UNDEFINED
    assert "6 boundary edges" in c.reason
    _contacts_equal_oracle(mesh, Pose(np.eye(3), np.array([0.5, 0.2, 0.1])))


def check_polygon_40(mesh: TriMesh) -> None:
    assert mesh.n_faces == 38 and mesh.n_vertices == 40
    assert mesh.source_face_ids.tolist() == [0] * 38
    assert mesh.n_degenerate == 0
    total = mesh.triangles
    area = 0.5 * np.linalg.norm(np.cross(total[:, 1] - total[:, 0], total[:, 2] - total[:, 0]), 1)
    assert area.sum() == pytest.approx(40 / 2 * np.sin(2 * np.pi / 40))  # regular 40-gon, r = 1


def check_scale(scale: float) -> Callable[[TriMesh], None]:
    def check(mesh: TriMesh) -> None:
        assert np.max(np.abs(mesh.vertices)) == pytest.approx(scale)
        # The same relative pose at every scale: the same contacts as the oracle, and as at 1.
        pose = Pose.from_axis_angle((1, 2, 3), 0.4, scale * np.array([0.3, 0.2, 0.1]))
        result = _collide(mesh, mesh, pose)
        expected = _oracle_pairs(mesh, mesh, pose)
        np.testing.assert_array_equal(result.pairs, expected)
        unit = SPHERE
        at_one = _collide(unit, unit, Pose.from_axis_angle((1, 2, 3), 0.4, [0.3, 0.2, 0.1]))
        np.testing.assert_array_equal(result.pairs, at_one.pairs)
        assert result.n_contacts > 10

    return check


def check_single_triangle(mesh: TriMesh) -> None:
    assert mesh.n_faces == 1
    tree = build_tree(mesh)
    assert tree.n_nodes == 1
    same = collide(mesh, tree, mesh, tree)
    assert same.pairs.tolist() == [[0, 0]] and same.kinds.tolist() == [int(ContactKind.COPLANAR)]
    shifted = collide(mesh, tree, mesh, tree, None, Pose(np.eye(3), np.array([0.0, 0.0, 1.0])))
    assert shifted.n_contacts == 0
    assert self_collide(mesh, tree).n_contacts == 0


def check_identical_meshes(mesh: TriMesh) -> None:
    result = _collide(mesh, mesh)
    diagonal = result.pairs[:, 0] == result.pairs[:, 1]
    assert int(diagonal.sum()) == mesh.n_faces
    assert np.all(result.kinds[diagonal] == int(ContactKind.COPLANAR))
    # Off the diagonal, neighbours touch along shared edges and corners, never overlap.
    assert np.all(result.kinds[~diagonal] == int(ContactKind.TOUCHING))
    np.testing.assert_array_equal(result.pairs, _oracle_pairs(mesh, mesh))


def check_code_not_run(marker: Path) -> Callable[[TriMesh], None]:
    def check(mesh: TriMesh) -> None:
        assert mesh.n_faces == 1
        assert not marker.exists()

    return check


# ---------------------------------------------------------------------------------------------
# The table


@dataclass(frozen=True)
class Raises:
    """The load must raise ``cls`` (with ``count`` and ``first_index`` when given)."""

    cls: type
    count: int | None = None
    first_index: int | None = None
    words: tuple[str, ...] = ()


@dataclass(frozen=True)
class Case:
    name: str
    file_name: str
    content: Callable[[Path], bytes | str | None]
    expect: Raises | Callable[[TriMesh], None] | str


NAN_V = [[0, 0, 0], [1, 0, 0], [float("nan"), 1, 0], [0, 1, 0], [0, 0, float("nan")]]
INF_V = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [float("inf"), 0, 1], [0, 0, 1]]
FIVE_F = [[0, 1, 3], [1, 2, 3], [0, 1, 4], [1, 3, 4]]

# A 9-triangle strip of the unit square with two zero-area triangles patched in.
STRIP_V = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 0.5, 0.8], [2, 0, 0],
                    [0.5, 0, 0]], float)  # fmt: skip
STRIP_F = [[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4], [0, 2, 1], [0, 3, 2], [1, 5, 2]]
REPEATED_F = [*STRIP_F, [0, 0, 4], [2, 2, 2]]
COLLINEAR_F = [*STRIP_F, [0, 6, 1], [0, 1, 5]]


def _polygon_40(_path):
    angles = 2 * np.pi * np.arange(40) / 40
    pts = np.column_stack([np.cos(angles), np.sin(angles), np.zeros(40)])
    return _obj_text(pts, [list(range(40))])


def _code_obj(path):
    marker = path.parent / "ran"
    code = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    head = f"# {code}\nmtllib {code}.mtl\nusemtl {code}\no {code}\n"
    return head + "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"


def _code_check(path):
    return check_code_not_run(path.parent / "ran")


CASES = [
    Case("missing_file", "nowhere.obj", lambda p: None, Raises(MeshFileError, words=("no such",))),
    Case("unsupported_extension", "mesh.3ds", lambda p: "3DS",
         Raises(UnsupportedMeshFormatError, words=("unsupported", ".3ds"))),
    Case("empty_file", "empty.stl", lambda p: b"", Raises(CorruptMeshFileError, words=("empty",))),
    Case("whitespace_only_file", "blank.obj", lambda p: "\n  \n\t\n",
         Raises(CorruptMeshFileError, words=("empty",))),
    Case("obj_truncated_mid_face", "cut.obj", lambda p: _obj_text(OCTA_V, OCTA_F)[:-4],
         Raises(CorruptMeshFileError, words=("line 14",))),
    Case("obj_corrupt_bytes", "noise.obj", lambda p: bytes(range(256)) * 8,
         Raises(NoTrianglesError)),
    Case("stl_binary_truncated", "cut.stl", lambda p: _cut(_stl_binary(SPHERE.triangles), 0.6),
         Raises(CorruptMeshFileError, words=("truncated binary STL",))),
    Case("stl_ascii_truncated", "cut.stl", lambda p: _cut(_stl_ascii(SPHERE.triangles), 0.7),
         Raises(CorruptMeshFileError, words=("truncated ASCII STL",))),
    Case("ply_ascii_truncated", "cut.ply", lambda p: _cut(_ply_ascii(OCTA_V, OCTA_F), 0.9),
         Raises(CorruptMeshFileError)),
    Case("ply_binary_truncated", "cut.ply", lambda p: _cut(_ply_binary(OCTA_V, OCTA_F), 0.8),
         Raises(CorruptMeshFileError)),
    Case("points_only", "points.obj", lambda p: "v 0 0 0\nv 1 0 0\nv 0 1 0\np 1 2 3\n",
         Raises(NoTrianglesError, words=("no faces", "1 point records"))),
    Case("lines_only", "lines.obj", lambda p: "v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2\nl 2 3\n",
         Raises(NoTrianglesError, words=("no faces", "2 line records"))),
    Case("nan_coordinates", "nan.obj", lambda p: _obj_text(NAN_V, FIVE_F),
         Raises(NonFiniteVertexError, 2, 2, ("NaN or infinite",))),
    Case("inf_coordinates", "inf.ply", lambda p: _ply_ascii(INF_V, FIVE_F),
         Raises(NonFiniteVertexError, 1, 3)),
    Case("nan_in_binary_stl", "nan.stl",
         lambda p: _stl_binary([OCTA_V[OCTA_F[0]], [[0, 0, 0], [1, 0, 0], [0, 0, np.nan]]]),
         Raises(NonFiniteVertexError, 1, 5)),
    Case("face_index_out_of_range", "range.obj",
         lambda p: _obj_text(OCTA_V, [*OCTA_F[:5], [0, 1, 6], [0, 1, 2], [7, 8, 9]]),
         Raises(FaceIndexError, 2, 5, ("out of range",))),
    Case("face_index_negative", "negative.ply",
         lambda p: _ply_ascii(OCTA_V, [*OCTA_F[:3], [0, -1, 2], *OCTA_F[3:]]),
         Raises(FaceIndexError, 1, 3)),
    Case("obj_relative_index_before_first_vertex", "relative.obj",
         lambda p: "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf -1 -2 -4\n",
         Raises(FaceIndexError, 1, 1)),
    Case("zero_area_repeated_vertex", "repeated.obj", lambda p: _obj_text(STRIP_V, REPEATED_F),
         check_degenerate(2)),
    Case("zero_area_collinear", "collinear.obj", lambda p: _obj_text(STRIP_V, COLLINEAR_F),
         check_degenerate(2)),
    Case("duplicate_faces", "duplicates.obj",
         lambda p: _obj_text(OCTA_V, [*OCTA_F, OCTA_F[0], OCTA_F[5][::-1]]),
         check_duplicate_faces),
    Case("non_manifold_edge", "fin.obj",
         lambda p: _obj_text(np.vstack([OCTA_V, [[2, 2, 0]]]), [*OCTA_F, [0, 2, 6]]),
         check_non_manifold),
    Case("open_mesh", "open.obj",
         lambda p: _obj_text(OCTA_V, [f for f in OCTA_F if 4 not in f] + [[0, 2, 4], [1, 3, 4]]),
         check_open),
    Case("polygon_with_40_sides", "disc.obj", _polygon_40, check_polygon_40),
    Case("coordinates_at_1e8", "huge.obj",
         lambda p: _obj_text(SPHERE.vertices * 1e8, SPHERE.faces.tolist()), check_scale(1e8)),
    Case("coordinates_at_1e-8", "tiny.obj",
         lambda p: _obj_text(SPHERE.vertices * 1e-8, SPHERE.faces.tolist()), check_scale(1e-8)),
    Case("single_triangle", "one.stl", lambda p: _stl_ascii([[[0, 0, 0], [1, 0, 0], [0, 1, 0]]]),
         check_single_triangle),
    Case("identical_meshes_same_pose", "sphere.ply",
         lambda p: _ply_binary(SPHERE.vertices, SPHERE.faces.tolist()), check_identical_meshes),
    Case("python_and_mtllib_in_obj", "code.obj", _code_obj, "code"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input(case: Case, tmp_path):
    path = tmp_path / case.file_name
    content = case.content(path)
    if isinstance(content, str):
        path.write_text(content)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    expect = _code_check(path) if case.expect == "code" else case.expect
    if isinstance(expect, Raises):
        with pytest.raises(expect.cls) as info:
            load_mesh(path)
        error = info.value
        message = str(error)
        assert str(path) in message, message
        assert "\n" not in message
        for word in expect.words:
            assert word in message, message
        if expect.count is not None:
            assert (error.count, error.first_index) == (expect.count, expect.first_index)
    else:
        expect(load_mesh(path))


def test_catalogue_has_twenty_named_cases():
    names = [c.name for c in CASES]
    assert len(set(names)) == len(names) >= 20


# ---------------------------------------------------------------------------------------------
# Size: a 2M-triangle mesh loads, builds and collides (measured about 6 s here: run by default).


def _height_field_stl(path: Path, n: int) -> int:
    """A wavy ``n x n`` vertex grid of the unit square as a binary STL; returns triangles."""
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n), indexing="ij")
    z = 0.05 * np.sin(12 * x) * np.cos(9 * y)
    v = np.column_stack([x.ravel(), y.ravel(), z.ravel()]).astype(np.float32)
    i, j = np.meshgrid(np.arange(n - 1), np.arange(n - 1), indexing="ij")
    a = (i * n + j).ravel()
    f = np.concatenate([np.stack([a, a + n, a + n + 1], 1), np.stack([a, a + n + 1, a + 1], 1)])
    record = [("normal", "<f4", 3), ("corners", "<f4", (3, 3)), ("attr", "<u2")]
    rec = np.zeros(len(f), dtype=record)
    rec["corners"] = v[f]
    with open(path, "wb") as fh:
        fh.write(b"\0" * 80 + struct.pack("<I", len(f)))
        fh.write(rec.tobytes())
    return len(f)


@pytest.mark.slow
def test_two_million_triangles_load_build_and_collide(tmp_path):
    path = tmp_path / "big.stl"
    n_tris = _height_field_stl(path, 1001)
    assert n_tris == 2_000_000
    mesh = load_mesh(path)
    assert mesh.n_faces == n_tris
    assert mesh.n_vertices == 1001 * 1001  # STL corners welded back into a grid
    tree = build_tree(mesh)
    assert tree.stats.n_leaves == n_tris
    ball = sphere_mesh(20, 0.2)
    pose = Pose(np.eye(3), np.array([0.5, 0.5, 0.0]))
    result = collide(mesh, tree, ball, build_tree(ball), None, pose)
    assert result.n_contacts > 1000
    # Every contact is a grid triangle within the ball's reach of its centre.
    centres = mesh.triangles[result.pairs[:, 0]].mean(axis=1)
    assert np.all(np.linalg.norm(centres - [0.5, 0.5, 0.0], axis=1) < 0.2 + 0.002)
