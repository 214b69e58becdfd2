"""TriMesh validation: every bad input raises its own class with the right count and index."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import (
    EmptyMeshError,
    FaceIndexError,
    FaceShapeError,
    MeshError,
    NonFiniteVertexError,
)
from core.mesh import TriMesh, all_finite

# A unit tetrahedron: 4 vertices, 4 triangles.
TET_VERTICES = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
TET_FACES = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


def test_valid_mesh_has_documented_dtypes_and_values():
    mesh = TriMesh.from_arrays(TET_VERTICES, TET_FACES, name="tet")
    assert mesh.vertices.dtype == np.float64 and mesh.vertices.shape == (4, 3)
    assert mesh.faces.dtype == np.int32 and mesh.faces.shape == (4, 3)
    assert mesh.source_face_ids.tolist() == [0, 1, 2, 3]
    assert (mesh.n_vertices, mesh.n_faces, mesh.name) == (4, 4, "tet")
    np.testing.assert_array_equal(mesh.faces, TET_FACES)
    np.testing.assert_array_equal(mesh.triangles[3], TET_VERTICES[[1, 2, 3]])
    lo, hi = mesh.bounds
    assert lo.tolist() == [0, 0, 0] and hi.tolist() == [1, 1, 1]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_vertices_report_count_and_first_index(bad):
    vertices = TET_VERTICES.copy()
    vertices[2, 1] = bad
    vertices[3, 0] = bad
    with pytest.raises(NonFiniteVertexError) as info:
        TriMesh.from_arrays(vertices, TET_FACES)
    assert info.value.count == 2
    assert info.value.first_index == 2
    assert "2 vertices" in str(info.value) and "index 2" in str(info.value)
    assert isinstance(info.value, MeshError) and isinstance(info.value, ValueError)


def test_out_of_range_face_index_reports_faces():
    faces = TET_FACES.copy()
    faces[1, 2] = 4  # one past the last vertex
    faces[3, 0] = 99
    with pytest.raises(FaceIndexError) as info:
        TriMesh.from_arrays(TET_VERTICES, faces)
    assert (info.value.count, info.value.first_index) == (2, 1)


def test_negative_face_index_is_out_of_range():
    faces = TET_FACES.copy()
    faces[2, 1] = -1  # numpy would wrap around silently; the mesh must not
    with pytest.raises(FaceIndexError) as info:
        TriMesh.from_arrays(TET_VERTICES, faces)
    assert (info.value.count, info.value.first_index) == (1, 2)


@pytest.mark.parametrize(
    "faces",
    [
        np.array([0, 1, 2]),  # 1-D
        np.array([[0, 1, 2, 3]]),  # quads are triangulated by the loader, not here
        np.array([[[0, 1, 2]]]),  # 3-D
    ],
)
def test_faces_of_wrong_shape(faces):
    with pytest.raises(FaceShapeError):
        TriMesh.from_arrays(TET_VERTICES, faces)


def test_non_integer_face_values():
    with pytest.raises(FaceShapeError):
        TriMesh.from_arrays(TET_VERTICES, np.array([[0, 1, 2.5]]))


@pytest.mark.parametrize(
    "faces, what",
    [
        (TET_FACES.astype(np.float64), "floating-point"),  # even whole floats: not indices
        (TET_FACES.astype(str), "strings"),  # numpy used to fail on ufunc 'remainder'
        (TET_FACES.astype(bool), "booleans"),  # True/False are not vertex 1/0
        (TET_FACES.astype(object), "Python objects"),
        (TET_FACES.astype(np.complex128), "complex"),
    ],
    ids=["float", "str", "bool", "object", "complex"],
)
@pytest.mark.parametrize("make", ["constructor", "from_arrays"])
def test_non_integer_faces_are_a_type_error_naming_faces(faces, what, make):
    with pytest.raises(TypeError, match=f"^faces must be integer vertex indices, got {what}"):
        if make == "constructor":
            TriMesh(vertices=TET_VERTICES, faces=faces)
        else:
            TriMesh.from_arrays(TET_VERTICES, faces)
    with pytest.raises(FaceShapeError):  # still the mesh error class callers catch
        TriMesh(vertices=TET_VERTICES, faces=faces)


@pytest.mark.parametrize(
    "vertices, what",
    [
        (TET_VERTICES + 1e-3j, "complex numbers"),  # the imaginary part must not be dropped
        (TET_VERTICES.astype(bool), "booleans"),
        (TET_VERTICES.astype(str), "strings"),
        (TET_VERTICES.astype(object), "Python objects"),
    ],
    ids=["complex", "bool", "str", "object"],
)
def test_non_real_vertices_are_a_type_error_naming_vertices(vertices, what):
    with pytest.raises(TypeError, match=f"^vertices must hold real numbers .*got {what}$"):
        TriMesh(vertices=vertices, faces=TET_FACES)
    with pytest.raises(TypeError, match="^vertices must hold real numbers"):
        TriMesh.from_arrays(vertices, TET_FACES)


def test_integer_vertices_are_converted_to_float64():
    mesh = TriMesh(vertices=TET_VERTICES.astype(np.int16), faces=TET_FACES.astype(np.uint8))
    assert mesh.vertices.dtype == np.float64 and mesh.faces.dtype == np.int32
    np.testing.assert_array_equal(mesh.vertices, TET_VERTICES)


@pytest.mark.parametrize("bad", [4, 10**8, -1, -(10**8)], ids=["n", "1e8", "-1", "-1e8"])
def test_dataclass_constructor_checks_face_indices(bad):
    # Before: TriMesh(...) skipped the checks; 1e8 crashed the process in the kernels and
    # an index just past the end silently gave wrong pairs.
    faces = TET_FACES.copy()
    faces[2, 1] = bad
    with pytest.raises(FaceIndexError) as info:
        TriMesh(vertices=TET_VERTICES, faces=faces)
    message = str(info.value)
    assert (info.value.count, info.value.first_index) == (1, 2)
    assert f"index {bad} is not in [0, 4)" in message and "faces" in message
    assert isinstance(info.value, ValueError) and "\n" not in message


def test_dataclass_constructor_validates_like_from_arrays():
    mesh = TriMesh(vertices=TET_VERTICES.tolist(), faces=TET_FACES.tolist(), name="tet")
    assert mesh.vertices.dtype == np.float64 and mesh.faces.dtype == np.int32
    assert mesh.source_face_ids.tolist() == [0, 1, 2, 3]
    for array in (mesh.vertices, mesh.faces, mesh.source_face_ids):
        assert not array.flags.writeable
    with pytest.raises(NonFiniteVertexError):
        TriMesh(vertices=np.where(TET_VERTICES == 1, np.nan, TET_VERTICES), faces=TET_FACES)
    with pytest.raises(EmptyMeshError, match="^vertices must be an \\(n, 3\\) array"):
        TriMesh(vertices=np.zeros((4, 2)), faces=TET_FACES)
    with pytest.raises(FaceShapeError, match="^faces must be an \\(m, 3\\) array"):
        TriMesh(vertices=TET_VERTICES, faces=[0, 1, 2])
    with pytest.raises(FaceShapeError, match="source_face_ids"):
        TriMesh(TET_VERTICES, TET_FACES, source_face_ids=[0, 1])
    with pytest.raises(TypeError, match="^source_face_ids must be integers"):
        TriMesh(TET_VERTICES, TET_FACES, source_face_ids=[0.5, 1, 2, 3])
    with pytest.raises(TypeError, match="^name must be a str"):
        TriMesh(TET_VERTICES, TET_FACES, name=7)


def test_constructor_copies_writable_inputs():
    vertices, faces = TET_VERTICES.copy(), TET_FACES.astype(np.int32)
    mesh = TriMesh(vertices=vertices, faces=faces)
    vertices[0] = 9.0
    faces[0] = 3
    assert vertices.flags.writeable and faces.flags.writeable  # the caller's stay theirs
    assert mesh.vertices[0].tolist() == [0.0, 0.0, 0.0] and mesh.faces[0].tolist() == [0, 2, 1]


@pytest.mark.parametrize(
    "vertices", [np.zeros((4, 2)), np.zeros(12), np.zeros((4, 3, 1))], ids=["n2", "flat", "3d"]
)
def test_vertices_of_wrong_shape(vertices):
    with pytest.raises(EmptyMeshError):
        TriMesh.from_arrays(vertices, TET_FACES)


def test_empty_vertices_and_empty_faces():
    with pytest.raises(EmptyMeshError, match="no vertices"):
        TriMesh.from_arrays(np.zeros((0, 3)), TET_FACES)
    with pytest.raises(EmptyMeshError, match="no triangles"):
        TriMesh.from_arrays(TET_VERTICES, np.zeros((0, 3), dtype=np.int32))


def test_source_face_ids_must_match_the_faces():
    with pytest.raises(FaceShapeError):
        TriMesh.from_arrays(TET_VERTICES, TET_FACES, source_face_ids=[0, 1, 2])
    mesh = TriMesh.from_arrays(TET_VERTICES, TET_FACES, source_face_ids=[7, 7, 8, 9])
    assert mesh.source_face_ids.dtype == np.int64
    assert mesh.source_face_ids.tolist() == [7, 7, 8, 9]


def test_arrays_are_read_only_and_independent_of_the_inputs():
    vertices = TET_VERTICES.copy()
    faces = TET_FACES.astype(np.int32)
    mesh = TriMesh.from_arrays(vertices, faces)
    for array in (mesh.vertices, mesh.faces, mesh.source_face_ids):
        assert not array.flags.writeable
        with pytest.raises(ValueError):
            array[0] = 0
    vertices[0] = 5.0
    faces[0] = 3
    assert mesh.vertices[0].tolist() == [0.0, 0.0, 0.0]
    assert mesh.faces[0].tolist() == [0, 2, 1]


def test_with_vertices_keeps_the_same_faces_object():
    mesh = TriMesh.from_arrays(TET_VERTICES, TET_FACES, name="tet")
    moved = mesh.with_vertices(TET_VERTICES + [1.0, 2.0, 3.0])
    assert moved.faces is mesh.faces
    assert moved.source_face_ids is mesh.source_face_ids
    assert moved.name == "tet"
    assert moved.vertices[0].tolist() == [1.0, 2.0, 3.0]
    assert mesh.vertices[0].tolist() == [0.0, 0.0, 0.0]
    assert not moved.vertices.flags.writeable


def test_with_vertices_copies_a_callers_array_unless_told_it_is_fresh():
    mesh = TriMesh.from_arrays(TET_VERTICES, TET_FACES)
    mine = TET_VERTICES + 1.0
    copied = mesh.with_vertices(mine)
    mine[0, 0] = 99.0  # the caller keeps writing its own array
    assert copied.vertices is not mine and copied.vertices[0, 0] == 1.0
    assert mine.flags.writeable
    fresh = TET_VERTICES + 2.0
    kept = mesh.with_vertices(fresh, is_fresh=True)
    assert kept.vertices is fresh and not fresh.flags.writeable


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", [0, 7, 299])
def test_all_finite_finds_one_bad_value_anywhere_in_any_layout(bad, where):
    values = np.random.default_rng(where).normal(size=(100, 3)) * 1e300
    assert all_finite(values) and all_finite(values[::2]) and all_finite(values.T)
    values.flat[where] = bad
    assert not all_finite(values)
    assert not all_finite(values.reshape(3, 100).T)  # not C-contiguous: read through a copy
    assert all_finite(np.empty((0, 3)))


def test_with_vertices_rejects_other_counts_and_non_finite():
    mesh = TriMesh.from_arrays(TET_VERTICES, TET_FACES)
    with pytest.raises(FaceShapeError):
        mesh.with_vertices(TET_VERTICES[:3])
    bad = TET_VERTICES.copy()
    bad[1, 2] = np.nan
    with pytest.raises(NonFiniteVertexError) as info:
        mesh.with_vertices(bad)
    assert (info.value.count, info.value.first_index) == (1, 1)


def test_degenerate_triangles_are_kept_and_counted():
    vertices = np.array(
        [[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [2, 0, 0], [0.5, 0, 0]]  # 3 and 4 on the x axis
    )
    faces = np.array(
        [
            [0, 1, 2],  # proper
            [0, 1, 3],  # collinear
            [0, 0, 2],  # repeated vertex
            [1, 4, 3],  # collinear, point in the middle
            [2, 2, 2],  # a single point
        ]
    )
    mesh = TriMesh.from_arrays(vertices, faces)
    assert mesh.n_faces == 5
    assert mesh.degenerate.tolist() == [False, True, True, True, True]
    assert mesh.n_degenerate == 4


def test_degenerate_test_is_relative_to_triangle_size():
    # A sliver 1e-3 high on a 1e6 long base is thin but has a real area; the same shape
    # scaled down by 1e-9 must give the same answer.
    vertices = np.array([[0.0, 0, 0], [1e6, 0, 0], [5e5, 1e-3, 0]])
    faces = np.array([[0, 1, 2]])
    big = TriMesh.from_arrays(vertices, faces)
    small = TriMesh.from_arrays(vertices * 1e-9, faces)
    assert big.n_degenerate == 0
    assert small.n_degenerate == 0
    flat = TriMesh.from_arrays(np.array([[0.0, 0, 0], [1e6, 0, 0], [5e5, 0, 0]]), faces)
    assert flat.n_degenerate == 1
