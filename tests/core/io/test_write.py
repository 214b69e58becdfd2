"""Writing meshes (OBJ, PLY, STL) and reading them back with our own readers."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from core.errors import MeshFileError
from core.io import load_mesh
from core.io.write import mesh_file_bytes, write_mesh
from tests.core.meshgen import sphere_mesh


@pytest.fixture(scope="module")
def awkward():
    """A sphere with coordinates no short decimal writes exactly (thirds, 1e-300, 1e70,
    subnormals)."""
    mesh = sphere_mesh(9)
    vertices = np.array(mesh.vertices) / 3.0 + np.pi * 1e-7
    vertices[0] = (1e-300, -1e70 / 7, 0.1 + 0.2)
    vertices[1] = (np.nextafter(1.0, 2.0), -0.0, 5e-324)
    return vertices, np.array(mesh.faces)


@pytest.mark.parametrize("suffix", [".obj", ".ply", ".OBJ", ".Ply"])
def test_obj_and_ply_come_back_bit_exact(awkward, tmp_path, suffix):
    vertices, faces = awkward
    path = write_mesh(tmp_path / f"m{suffix}", vertices, faces, name="ball")
    back = load_mesh(path)
    assert back.vertices.tobytes() == vertices.tobytes()  # every bit, -0.0 included
    assert np.array_equal(back.faces, faces)


def test_stl_comes_back_as_float32_triangles_in_order(awkward, tmp_path):
    vertices, faces = awkward
    vertices = vertices.copy()
    vertices[:2] = (0.5, 0.25, 1 / 3)  # STL holds float32: keep within its range
    vertices[1] = (0.75, 1 / 7, 2.0)
    back = load_mesh(write_mesh(tmp_path / "m.stl", vertices, faces))
    # STL stores float32 corners per triangle: the same triangles in the same order, each
    # corner rounded to the nearest float32; the reader welds equal corners.
    expected = vertices[faces].astype(np.float32).astype(np.float64)
    assert back.n_faces == len(faces)
    assert np.array_equal(back.vertices[back.faces], expected)
    assert back.n_vertices == len(np.unique(vertices.astype(np.float32), axis=0))


def test_the_stl_header_is_not_taken_for_text(tmp_path):
    data = mesh_file_bytes(".stl", np.eye(3), np.array([[0, 1, 2]]), "solid-looking")
    assert not data.startswith(b"solid") and len(data) == 84 + 50


def test_half_a_million_triangles(tmp_path):
    rng = np.random.default_rng(1)
    vertices = rng.normal(size=(250_000, 3))
    faces = rng.integers(0, len(vertices), size=(500_000, 3)).astype(np.int32)
    for suffix in (".ply", ".obj"):
        back = load_mesh(write_mesh(tmp_path / f"big{suffix}", vertices, faces))
        assert np.array_equal(back.vertices, vertices) and np.array_equal(back.faces, faces)


def test_bad_paths_and_arrays_are_one_line_naming_the_file(tmp_path):
    vertices, faces = np.eye(3), np.array([[0, 1, 2]])
    cases = [
        (tmp_path / "no-such-folder" / "m.obj", "cannot write"),
        (tmp_path / "m.txt", "cannot write '.txt'; writable: .obj, .ply, .stl"),
        (tmp_path / "m", "cannot write 'a file without a suffix'"),
        (tmp_path, "cannot write"),
    ]
    for path, words in cases:
        with pytest.raises(MeshFileError, match=words) as info:
            write_mesh(path, vertices, faces)
        assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)
    for bad_vertices, bad_faces, words in [
        (np.array([[np.nan, 0, 0], [1, 0, 0], [0, 1, 0]]), faces, "not finite"),
        (vertices, np.array([[0, 1, 3]]), "outside 0..2"),
        (vertices, np.array([[0.0, 1.0, 2.0]]), "integer array"),
    ]:
        with pytest.raises(MeshFileError, match=words):
            write_mesh(tmp_path / "x.ply", bad_vertices, bad_faces)
    assert not (tmp_path / "x.ply").exists()


def test_a_failed_write_keeps_the_old_file_and_permissions_are_the_users(tmp_path):
    target = tmp_path / "keep.obj"
    target.write_bytes(b"old")
    with pytest.raises(MeshFileError):
        write_mesh(target, np.array([[np.inf, 0, 0]] * 3), np.array([[0, 1, 2]]))
    assert target.read_bytes() == b"old"
    write_mesh(target, np.eye(3), np.array([[0, 1, 2]]))
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == ["keep.obj"]
