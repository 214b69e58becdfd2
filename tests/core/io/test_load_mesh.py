"""load_mesh: shipped assets, round trips through files written by pyvista, and every error."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np
import pytest

from core.errors import (
    CorruptMeshFileError,
    EmptyMeshError,
    FaceIndexError,
    MeshFileError,
    NonFiniteVertexError,
    NoTrianglesError,
    UnsupportedMeshFormatError,
)
from core.io import SUPPORTED_EXTENSIONS, fan_triangulate, load_mesh
from tests.conftest import ASSET_TRIANGLES

pv = pytest.importorskip("pyvista")


def _obj_records(path: Path) -> tuple[np.ndarray, list[list[int]]]:
    """Vertices ``(n, 3) float64`` and 0-based face corner lists read straight from an OBJ."""
    vertices, faces = [], []
    for line in path.read_text().splitlines():
        parts = line.split()
        if parts and parts[0] == "v":
            vertices.append([float(x) for x in parts[1:4]])
        elif parts and parts[0] == "f":
            faces.append([int(p.split("/")[0]) - 1 for p in parts[1:]])
    return np.array(vertices), faces


def _write_off(path: Path, points: np.ndarray, polys: list[list[int]], header="OFF") -> None:
    lines = [header, "# written by the test", f"{len(points)} {len(polys)} 0"]
    lines += [" ".join(repr(float(c)) for c in p) for p in points]
    lines += [" ".join(str(i) for i in [len(f), *f]) for f in polys]
    path.write_text("\n".join(lines) + "\n")


def _polys_of(poly: pv.PolyData) -> list[list[int]]:
    """Corner lists of a PolyData's polygons, in cell order."""
    flat, polys, i = np.asarray(poly.faces), [], 0
    while i < len(flat):
        polys.append(flat[i + 1 : i + 1 + flat[i]].tolist())
        i += 1 + flat[i]
    return polys


@pytest.fixture(scope="module")
def sphere() -> pv.PolyData:
    """A closed triangulated sphere, 34 points and 64 triangles."""
    return pv.Sphere(theta_resolution=8, phi_resolution=6).triangulate()


@pytest.fixture(scope="module")
def mixed() -> pv.PolyData:
    """Quads and triangles in one PolyData: 4 quads of a plane then 2 triangles."""
    plane = pv.Plane(i_resolution=2, j_resolution=2)
    points = np.vstack([plane.points, [[2.0, 2.0, 1.0], [3.0, 2.0, 1.0], [2.0, 3.0, 1.0]]])
    n = plane.n_points
    faces = list(np.asarray(plane.faces)) + [3, n, n + 1, n + 2, 3, n + 2, n + 1, 0]
    return pv.PolyData(points, faces=np.array(faces))


# ---------------------------------------------------------------------------------------------
# Shipped assets
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stem", sorted(ASSET_TRIANGLES))
def test_every_asset_loads_in_file_order(stem, assets_dir, load_asset):
    mesh = load_asset(stem)
    vertices, faces = _obj_records(assets_dir / f"{stem}.obj")
    assert mesh.name == stem
    assert mesh.n_faces == ASSET_TRIANGLES[stem]
    assert mesh.n_vertices == len(vertices)  # OBJ vertex numbering is kept, never duplicated
    np.testing.assert_array_equal(mesh.vertices, vertices)
    assert mesh.source_face_ids.max() == len(faces) - 1
    assert np.all(np.diff(mesh.source_face_ids) >= 0)
    assert mesh.n_degenerate == 0  # none of the shipped meshes has zero-area triangles
    # Each triangle is made of its source face's corners, first corner shared by the fan.
    for tri_id in (0, mesh.n_faces // 2, mesh.n_faces - 1):
        corners = faces[mesh.source_face_ids[tri_id]]
        assert set(mesh.faces[tri_id].tolist()) <= set(corners)
        assert mesh.faces[tri_id][0] == corners[0]


def test_triangle_assets_keep_ids_zero_to_m(load_asset, assets_dir):
    for stem in ("spot", "teapot", "stanford-bunny"):
        mesh = load_asset(stem)
        np.testing.assert_array_equal(mesh.source_face_ids, np.arange(mesh.n_faces))
        _, faces = _obj_records(assets_dir / f"{stem}.obj")
        np.testing.assert_array_equal(mesh.faces, np.array(faces))


def test_suzanne_quads_become_two_triangles_each(load_asset, assets_dir):
    mesh = load_asset("suzanne")
    _, faces = _obj_records(assets_dir / "suzanne.obj")
    sizes = np.array([len(f) for f in faces])
    assert len(faces) == 500 and (sizes == 4).sum() == 468 and (sizes == 3).sum() == 32
    assert np.bincount(mesh.source_face_ids, minlength=500).tolist() == (sizes - 2).tolist()
    # Rebuild every face from its triangles: quads (a, b, c, d) -> (a, b, c), (a, c, d).
    for face_id in (0, 1, 250, 499):
        tris = mesh.faces[mesh.source_face_ids == face_id].tolist()
        f = faces[face_id]
        expected = [[f[0], f[j], f[j + 1]] for j in range(1, len(f) - 1)]
        assert tris == expected


def test_assets_are_credited(assets_dir):
    text = (assets_dir / "ATTRIBUTION.md").read_text()
    for stem in ASSET_TRIANGLES:
        assert f"{stem}.obj" in text
    assert "CC0" in text and "public domain" in text and "Stanford" in text


# ---------------------------------------------------------------------------------------------
# Round trips through files written by pyvista
# ---------------------------------------------------------------------------------------------

EXACT_WRITERS = {
    "ply-binary": (".ply", {"binary": True}),
    "ply-ascii": (".ply", {"binary": False}),
    "vtp": (".vtp", {}),
    "vtk-binary": (".vtk", {"binary": True}),
    "vtk-ascii": (".vtk", {"binary": False}),
}


@pytest.mark.parametrize("kind", sorted(EXACT_WRITERS))
@pytest.mark.parametrize("source", ["sphere", "mixed"])
def test_round_trip_keeps_points_and_face_order(kind, source, request, tmp_path):
    poly = request.getfixturevalue(source)
    ext, options = EXACT_WRITERS[kind]
    path = tmp_path / f"{source}{ext}"
    poly.save(path, **options)
    mesh = load_mesh(path)
    polys = _polys_of(poly)
    offsets = np.cumsum([0] + [len(p) for p in polys])
    faces, source_ids = fan_triangulate(offsets, np.concatenate(polys))
    # PLY stores float32 and ASCII VTK six significant digits; VTP and binary VTK are exact.
    tol = 0 if kind in ("vtp", "vtk-binary") else 1e-6
    np.testing.assert_allclose(mesh.vertices, poly.points, rtol=0, atol=tol)
    np.testing.assert_array_equal(mesh.faces, faces)
    np.testing.assert_array_equal(mesh.source_face_ids, source_ids)
    assert mesh.name == source


def test_round_trip_mixed_polygons_counts(mixed, tmp_path):
    mixed.save(tmp_path / "m.vtp")
    mesh = load_mesh(tmp_path / "m.vtp")
    assert mesh.n_faces == 4 * 2 + 2
    assert mesh.source_face_ids.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 5]


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "ascii"])
def test_stl_round_trip_welds_corners_and_keeps_triangle_order(binary, sphere, tmp_path):
    path = tmp_path / "sphere.stl"
    sphere.save(path, binary=binary)
    mesh = load_mesh(path)
    assert mesh.n_faces == sphere.n_cells == 64
    assert mesh.n_vertices == sphere.n_points == 34  # corners welded back to shared vertices
    np.testing.assert_array_equal(mesh.source_face_ids, np.arange(64))
    expected = np.asarray(sphere.points)[np.asarray(sphere.regular_faces)]
    np.testing.assert_allclose(mesh.triangles, expected, rtol=0, atol=1e-6)  # float32 file


def test_off_round_trip_with_comments_and_colours(mixed, tmp_path):
    path = tmp_path / "mixed.off"
    polys = _polys_of(mixed)
    _write_off(path, np.asarray(mixed.points), polys)
    mesh = load_mesh(path)
    np.testing.assert_array_equal(mesh.vertices, mixed.points)
    assert mesh.source_face_ids.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 5]
    assert mesh.faces[:2].tolist() == [
        [polys[0][0], polys[0][1], polys[0][2]],
        [polys[0][0], polys[0][2], polys[0][3]],
    ]
    # COFF: per-vertex and per-face colours after the numbers we read.
    coff = tmp_path / "colour.off"
    coff.write_text(
        "COFF 3 1 0\n0 0 0 255 0 0 255\n1 0 0 0 255 0 255\n0 1 0 0 0 255 255\n3 0 1 2 9 9 9\n"
    )
    assert load_mesh(coff).faces.tolist() == [[0, 1, 2]]


def test_obj_written_by_pyvista(sphere, tmp_path):
    path = tmp_path / "sphere.obj"
    sphere.save(path)
    mesh = load_mesh(path)
    np.testing.assert_allclose(mesh.vertices, sphere.points, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(mesh.faces, sphere.regular_faces)


def test_obj_corner_forms_and_negative_indices(tmp_path):
    path = tmp_path / "forms.obj"
    path.write_text(
        "mtllib does-not-exist.mtl\no thing\n"
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n"
        "usemtl none\ns off\n"
        "f 1/1/1 2/1/1 3/1/1\n"  # v/vt/vn
        "f 1//1 3//1 4//1\n"  # v//vn
        "f -4/1 -2/1 -1/1\n"  # relative: 1 3 4
        "f 1 2 \\\n 3 4\n"  # a continued line: one quad
    )
    mesh = load_mesh(path, name="custom")
    assert mesh.name == "custom"
    assert mesh.faces.tolist() == [[0, 1, 2], [0, 2, 3], [0, 2, 3], [0, 1, 2], [0, 2, 3]]
    assert mesh.source_face_ids.tolist() == [0, 1, 2, 3, 3]


def test_upper_case_extension(tmp_path, sphere):
    path = tmp_path / "SPHERE.PLY"
    sphere.save(tmp_path / "tmp.ply")
    (tmp_path / "tmp.ply").rename(path)
    assert load_mesh(path).n_faces == 64


def test_big_endian_ply_with_extra_properties(tmp_path):
    header = (
        b"ply\nformat binary_big_endian 1.0\ncomment hand made\n"
        b"element vertex 4\nproperty double x\nproperty double y\nproperty double z\n"
        b"property uchar red\n"
        b"element face 2\nproperty list uchar int vertex_indices\nproperty float quality\n"
        b"end_header\n"
    )
    body = b"".join(
        struct.pack(">dddB", *p, 7) for p in [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
    )
    body += struct.pack(">B4if", 4, 0, 1, 2, 3, 0.5) + struct.pack(">B3if", 3, 3, 2, 0, 0.5)
    path = tmp_path / "be.ply"
    path.write_bytes(header + body)
    mesh = load_mesh(path)
    assert mesh.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]]
    assert mesh.faces.tolist() == [[0, 1, 2], [0, 2, 3], [3, 2, 0]]
    assert mesh.source_face_ids.tolist() == [0, 0, 1]


def test_triangle_strips_in_vtp(tmp_path):
    points = np.array([[0.0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 0], [2, 0, 0]])
    strip = pv.PolyData(points, strips=np.array([5, 0, 1, 2, 3, 4]))
    strip.save(tmp_path / "strip.vtp")
    mesh = load_mesh(tmp_path / "strip.vtp")
    # Odd triangles of a strip swap their first two corners so every normal points one way.
    assert mesh.faces.tolist() == [[0, 1, 2], [2, 1, 3], [2, 3, 4]]
    normals = np.cross(
        mesh.triangles[:, 1] - mesh.triangles[:, 0], mesh.triangles[:, 2] - mesh.triangles[:, 0]
    )
    assert np.all(normals[:, 2] < 0) or np.all(normals[:, 2] > 0)


def test_unstructured_grid_keeps_surface_cells_in_order(tmp_path):
    points = np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1]])
    cells = np.array([4, 0, 1, 2, 4, 3, 0, 1, 2, 4, 0, 1, 2, 3])
    types = np.array([pv.CellType.TETRA, pv.CellType.TRIANGLE, pv.CellType.QUAD])
    grid = pv.UnstructuredGrid(cells, types, points)
    grid.save(tmp_path / "grid.vtk")
    mesh = load_mesh(tmp_path / "grid.vtk")
    assert mesh.faces.tolist() == [[0, 1, 2], [0, 1, 2], [0, 2, 3]]
    assert mesh.source_face_ids.tolist() == [0, 1, 1]


def test_degenerate_triangles_are_loaded_and_counted(tmp_path):
    path = tmp_path / "degenerate.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\nf 1 2 4\nf 1 2 3\nf 4 4 4\n")
    mesh = load_mesh(path)
    assert mesh.n_faces == 3 and mesh.n_degenerate == 2
    assert mesh.degenerate.tolist() == [False, True, True]


def test_supported_extensions():
    assert SUPPORTED_EXTENSIONS == (
        ".obj", ".off", ".ply", ".stl", ".vtk", ".vtp", ".glb", ".gltf",
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Errors: class, and a one-line message naming the file and the reason
# ---------------------------------------------------------------------------------------------


def _raises(path, cls, *words):
    with pytest.raises(cls) as info:
        load_mesh(path)
    message = str(info.value)
    assert str(path) in message
    assert "\n" not in message
    for word in words:
        assert word in message, message
    return info.value


def test_missing_file(tmp_path):
    _raises(tmp_path / "nope.obj", MeshFileError, "no such file")


def test_directory(tmp_path):
    folder = tmp_path / "folder.obj"
    folder.mkdir()
    _raises(folder, MeshFileError, "directory")


@pytest.mark.parametrize("name", ["mesh.txt", "mesh.obj.gz", "mesh"])
def test_unsupported_extension(tmp_path, name):
    path = tmp_path / name
    path.write_text("v 0 0 0\n")
    error = _raises(path, UnsupportedMeshFormatError, "unsupported", ".obj")
    assert isinstance(error, MeshFileError)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read files without read permission")
def test_unreadable_file(tmp_path, sphere):
    for ext in (".obj", ".vtp"):
        path = tmp_path / f"locked{ext}"
        sphere.save(path)
        path.chmod(0)
        _raises(path, MeshFileError, "cannot be read")


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("ext", [".obj", ".vtp"])
def test_file_that_fails_to_read(tmp_path, ext):
    # Reading /proc/self/mem from offset 0 fails with EIO even for root: an unreadable file
    # that the permission test above cannot produce when the tests run as root.
    path = tmp_path / f"mem{ext}"
    path.symlink_to("/proc/self/mem")
    _raises(path, MeshFileError, "cannot be read")


@pytest.mark.parametrize("ext", SUPPORTED_EXTENSIONS)
def test_empty_file(tmp_path, ext):
    path = tmp_path / f"empty{ext}"
    path.write_bytes(b"")
    _raises(path, CorruptMeshFileError, "empty")


@pytest.mark.parametrize("ext", SUPPORTED_EXTENSIONS)
def test_garbage_file(tmp_path, ext, capfd):
    path = tmp_path / f"garbage{ext}"
    path.write_bytes(b"\x00\x01\x02 this is not a mesh \xff\xfe\n" * 20)
    _raises(path, (CorruptMeshFileError, NoTrianglesError))
    assert capfd.readouterr().err == ""  # VTK's own error output is silenced


@pytest.mark.parametrize(
    ("ext", "options", "fraction"),
    [
        (".ply", {"binary": True}, 0.5),  # crashes vtkPLYReader (VTK 9.7)
        (".ply", {"binary": True}, 0.99),
        (".ply", {"binary": False}, 0.5),  # vtkPLYReader reads it without any error
        (".stl", {"binary": True}, 0.5),
        (".stl", {"binary": False}, 0.99),  # vtkSTLReader reads garbage triangles
        (".vtp", {}, 0.5),
        (".vtk", {"binary": True}, 0.5),
        (".vtk", {"binary": False}, "POLYGONS"),  # cut inside the polygon block
    ],
)
def test_truncated_file(tmp_path, ext, options, fraction, capfd):
    full = tmp_path / f"full{ext}"
    pv.Sphere(theta_resolution=30, phi_resolution=30).triangulate().save(full, **options)
    data = full.read_bytes()
    cut = data.index(b"POLYGONS") + 200 if fraction == "POLYGONS" else int(len(data) * fraction)
    path = tmp_path / f"truncated{ext}"
    path.write_bytes(data[:cut])
    _raises(path, CorruptMeshFileError)
    assert capfd.readouterr().err == ""


def test_truncated_off_and_obj(tmp_path):
    off = tmp_path / "short.off"
    off.write_text("OFF\n4 2 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2\n")
    _raises(off, CorruptMeshFileError, "truncated", "2 faces")
    obj = tmp_path / "short.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\nf 3 2")
    _raises(obj, CorruptMeshFileError, "line 5", "at least 3")
    obj.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\nv 2.5")
    _raises(obj, CorruptMeshFileError, "line 5", "3 coordinates")


def test_bad_numbers(tmp_path):
    obj = tmp_path / "words.obj"
    obj.write_text("v 0 0 zero\nv 1 0 0\nv 1 1 0\nf 1 2 3\n")
    _raises(obj, CorruptMeshFileError, "not a number")
    obj.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 two 3\n")
    _raises(obj, CorruptMeshFileError, "line 4")


@pytest.mark.parametrize("what", ["points", "lines"])
def test_points_or_lines_only(tmp_path, what, capfd):
    points = np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0]])
    poly = pv.PolyData(points) if what == "points" else pv.PolyData(points, lines=[3, 0, 1, 2])
    for ext in (".vtp", ".vtk"):
        path = tmp_path / f"{what}{ext}"
        poly.save(path)
        error = _raises(path, NoTrianglesError, "no polygons")
        assert isinstance(error, EmptyMeshError)
    obj = tmp_path / f"{what}.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\n" + ("l 1 2 3\n" if what == "lines" else ""))
    _raises(obj, NoTrianglesError, "no faces")
    ply = tmp_path / f"{what}.ply"
    poly.save(ply, binary=False)
    _raises(ply, NoTrianglesError, "no faces")
    off = tmp_path / f"{what}.off"
    _write_off(off, points, [])
    _raises(off, NoTrianglesError, "no faces")
    assert capfd.readouterr().err == ""


def test_stl_with_zero_triangles(tmp_path):
    path = tmp_path / "zero.stl"
    path.write_bytes(b"\0" * 80 + struct.pack("<I", 0))
    _raises(path, NoTrianglesError)


@pytest.mark.parametrize("ext", [".obj", ".off", ".ply", ".stl", ".vtk"])
def test_non_finite_vertices(tmp_path, ext):
    points = np.array([[0.0, 0, 0], [1, 0, 0], [np.nan, 1, 0], [0, np.inf, 0], [0, 0, 1]])
    faces = np.array([[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]])
    path = tmp_path / f"nan{ext}"
    if ext == ".obj":
        lines = [f"v {x} {y} {z}" for x, y, z in points] + [
            f"f {a + 1} {b + 1} {c + 1}" for a, b, c in faces
        ]
        path.write_text("\n".join(lines) + "\n")
    elif ext == ".off":
        _write_off(path, points, faces.tolist())
    else:
        pv.PolyData(points, faces=np.hstack([np.full((4, 1), 3), faces])).save(path)
    error = _raises(path, NonFiniteVertexError, "NaN or infinite")
    if ext == ".stl":  # corners of a soup: 4 corners use a bad vertex, first is triangle 1 corner 1
        assert (error.count, error.first_index) == (4, 4)
    else:
        assert (error.count, error.first_index) == (2, 2)


@pytest.mark.parametrize("ext", [".obj", ".off", ".ply", ".vtp"])
def test_face_index_out_of_range(tmp_path, ext):
    points = np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]])
    polys = [[0, 1, 2], [0, 2, 3], [0, 3, 7], [1, 9, 2, 3]]
    path = tmp_path / f"range{ext}"
    if ext == ".obj":
        lines = [f"v {x} {y} {z}" for x, y, z in points]
        lines += ["f " + " ".join(str(i + 1) for i in p) for p in polys]
        path.write_text("\n".join(lines) + "\n")
    elif ext == ".off":
        _write_off(path, points, polys)
    elif ext == ".ply":
        header = "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
        header += "property float z\nelement face 4\nproperty list uchar int vertex_indices\n"
        body = [" ".join(map(str, p)) for p in points] + [
            f"{len(p)} " + " ".join(map(str, p)) for p in polys
        ]
        path.write_text(header + "end_header\n" + "\n".join(body) + "\n")
    else:
        cells = np.concatenate([[len(p), *p] for p in polys])
        pv.PolyData(points, faces=cells).save(path)
    error = _raises(path, FaceIndexError, "out of range")
    assert (error.count, error.first_index) == (2, 2)  # file face numbering, before triangulation


def test_obj_index_zero_is_out_of_range(tmp_path):
    path = tmp_path / "zero.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\nf 0 1 2\n")
    error = _raises(path, FaceIndexError)
    assert (error.count, error.first_index) == (1, 1)


@pytest.mark.parametrize("header", ["OFF BINARY", "4OFF", "nOFF"])
def test_unsupported_off_variants(tmp_path, header):
    path = tmp_path / "variant.off"
    path.write_text(f"{header}\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    _raises(path, UnsupportedMeshFormatError, "OFF variant")


def test_a_mesh_file_never_executes_code(tmp_path, monkeypatch):
    # Text that would run if a loader evaluated anything: a PLY and an OBJ whose comments
    # and object names are Python, and an OBJ material library that is never opened.
    marker = tmp_path / "ran"
    code = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    obj = tmp_path / "code.obj"
    obj.write_text(f"# {code}\nmtllib {code}\no {code}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    ply = tmp_path / "code.ply"
    ply.write_text(
        f"ply\nformat ascii 1.0\ncomment {code}\nelement vertex 3\nproperty float x\n"
        "property float y\nproperty float z\nelement face 1\n"
        "property list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"
    )
    assert load_mesh(obj).n_faces == 1
    assert load_mesh(ply).n_faces == 1
    assert not marker.exists()


def test_binary_ply_with_a_corrupt_list_count(tmp_path):
    header = (
        b"ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
        b"property float y\nproperty float z\nelement face 1\n"
        b"property list uint int vertex_indices\nend_header\n"
    )
    body = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)
    path = tmp_path / "count.ply"
    path.write_bytes(header + body + struct.pack("<I3i", 4_000_000_000, 0, 1, 2))
    _raises(path, CorruptMeshFileError, "truncated", "'face'")
    path.write_bytes(header + body + struct.pack("<I3i", 3, 0, 1, 2))
    assert load_mesh(path).faces.tolist() == [[0, 1, 2]]


# ---------------------------------------------------------------------------------------------
# Number grammar, byte order marks, STL detection
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("token", ["1.", ".5", "-1e-3", "+2", "3E+2", "0.25e1"])
def test_obj_numbers_in_the_obj_grammar_load(tmp_path, token):
    path = tmp_path / "ok.obj"
    path.write_text(f"v {token} 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n")
    assert load_mesh(path).vertices[0, 0] == float(token)


@pytest.mark.parametrize("token", ["1_0", "0x10", "1e", "--1", "1.2.3", "\u0661", "1,5"])
def test_obj_numbers_outside_the_grammar_are_refused(tmp_path, token):
    path = tmp_path / "bad.obj"
    path.write_text(f"v 0 0 0\nv {token} 1 0\nv 0 0 1\nf 1 2 3\n", encoding="utf-8")
    _raises(path, CorruptMeshFileError, "line 2", "is not a number")


@pytest.mark.parametrize("index", ["1_0", "+1", "0x1", "1e0"])
def test_obj_face_indices_are_plain_integers(tmp_path, index):
    path = tmp_path / "index.obj"
    path.write_text(f"v 0 0 0\nv 1 0 0\nv 0 1 0\nf {index} 2 3\n")
    if index == "+1":
        assert load_mesh(path).faces.tolist() == [[0, 1, 2]]
    else:
        _raises(path, CorruptMeshFileError, "line 4")


@pytest.mark.parametrize("ext", [".off", ".ply", ".stl"])
def test_a_utf8_bom_is_accepted(tmp_path, ext):
    text = {
        ".off": "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",
        ".ply": "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
        "property float z\nelement face 1\nproperty list uchar int vertex_indices\n"
        "end_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",
        ".stl": "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
        "vertex 0 1 0\nendloop\nendfacet\nendsolid t\n",
    }[ext]
    path = tmp_path / f"bom{ext}"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert load_mesh(path).n_faces == 1


def test_binary_stl_with_a_solid_header_and_exact_size(tmp_path):
    tri = struct.pack("<12fH", 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0)
    path = tmp_path / "solid.stl"
    path.write_bytes(b"solid binary".ljust(80, b"\0") + struct.pack("<I", 1) + tri)
    assert load_mesh(path).vertices.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]


def test_mixed_case_ascii_stl(tmp_path):
    path = tmp_path / "mixed.stl"
    path.write_text("Solid t\nFacet Normal 0 0 1\nOuter Loop\nVertex 0 0 0\nVERTEX 1 0 0\n"
                    "vertex 0 1 0\nEndLoop\nendFacet\nEndSolid t\n")  # fmt: skip
    assert load_mesh(path).n_faces == 1


# ---------------------------------------------------------------------------------------------
# Special files
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ext", [".obj", ".ply", ".vtp", ".glb"])
def test_non_regular_files_are_refused_before_opening(tmp_path, ext):
    fifo = tmp_path / f"pipe{ext}"
    os.mkfifo(fifo)
    _raises(fifo, MeshFileError, "named pipe")
    null = tmp_path / f"null{ext}"
    null.symlink_to("/dev/null")
    _raises(null, MeshFileError, "character device")


# ---------------------------------------------------------------------------------------------
# glTF 2.0, written with trimesh
# ---------------------------------------------------------------------------------------------


def _gltf_scene():
    trimesh = pytest.importorskip("trimesh")
    scene = trimesh.Scene()
    box = trimesh.creation.box()
    scene.add_geometry(box, node_name="moved",
                       transform=trimesh.transformations.translation_matrix([5, 0, 0]))  # fmt: skip
    scene.add_geometry(trimesh.creation.icosphere(1), node_name="ball")
    return trimesh, scene, box


def test_glb_scene_with_transforms(tmp_path):
    trimesh, scene, box = _gltf_scene()
    path = tmp_path / "scene.glb"
    path.write_bytes(scene.export(file_type="glb"))
    mesh = load_mesh(path)
    assert mesh.n_faces == 12 + 80 and mesh.n_vertices == len(box.vertices) + 42
    assert mesh.vertices[:, 0].max() == pytest.approx(5.5)  # the box, moved by its node
    assert mesh.source_face_ids.tolist() == list(range(92))


def test_gltf_with_external_buffers(tmp_path):
    trimesh, scene, _ = _gltf_scene()
    files = trimesh.exchange.gltf.export_gltf(scene)
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    assert load_mesh(tmp_path / "model.gltf").n_faces == 92
    # A buffer that is not a regular file next to the .gltf is refused, not read.
    import json

    document = json.loads(files["model.gltf"])
    for uri, words in (("/dev/zero", ("only relative paths",)), ("gone.bin", ("no such file",))):
        document["buffers"][0]["uri"] = uri
        path = tmp_path / "edited.gltf"
        path.write_text(json.dumps(document))
        _raises(path, CorruptMeshFileError, *words)
    fifo = tmp_path / "pipe.bin"
    os.mkfifo(fifo)
    document["buffers"][0]["uri"] = "pipe.bin"
    path.write_text(json.dumps(document))
    _raises(path, CorruptMeshFileError, "named pipe")


def test_gltf_points_only_and_bad_json(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    cloud = trimesh.PointCloud(np.eye(3))
    path = tmp_path / "points.glb"
    path.write_bytes(trimesh.Scene(cloud).export(file_type="glb"))
    _raises(path, NoTrianglesError, "no triangle")
    path = tmp_path / "bad.gltf"
    path.write_text('{"asset": {"version": "2.0"}, "meshes": [')
    _raises(path, CorruptMeshFileError, "not valid JSON")
    path.write_text('{"asset": {"version": "1.0"}}')
    _raises(path, CorruptMeshFileError, "only 2.0")
