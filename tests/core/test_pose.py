"""Pose: a checked rotation, a uniform scale as its own field, and every query using both."""

from __future__ import annotations

import numpy as np
import pytest

from core import contacts
from core.bvh import build_tree
from core.collide import collide
from core.collide.brute import brute_force_contacts
from core.collide.bvquery import collide_bv
from core.distance import brute_force_distance, min_distance, within_distance
from core.partition import partition_contacts
from core.pose import ROTATION_TOL, Pose, rotation_matrix
from tests.core.meshgen import sphere_mesh

ROT = rotation_matrix((1.0, 2.0, 3.0), 0.7)


@pytest.mark.parametrize(
    "rotation",
    [
        np.diag([2.0, 2.0, 2.0]),  # a uniform scale belongs in Pose.scale
        np.diag([1.0, 1.0, 1.5]),  # a non-uniform scale
        np.array([[1.0, 0.3, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),  # a shear
        ROT @ np.diag([1.0, 1.0, 1.0 + 10 * ROTATION_TOL]),  # just past the tolerance
    ],
    ids=["uniform-scale", "stretch", "shear", "past-tolerance"],
)
def test_rotation_that_is_not_orthonormal_is_refused(rotation):
    with pytest.raises(ValueError, match="^rotation must be orthonormal"):
        Pose(rotation, np.zeros(3))


def test_rotation_within_the_tolerance_is_accepted():
    nearly = ROT @ np.diag([1.0, 1.0, 1.0 + 0.1 * ROTATION_TOL])
    assert Pose(nearly).scale == 1.0


def test_reflection_is_refused():
    with pytest.raises(ValueError, match="^rotation must have determinant \\+1"):
        Pose(np.diag([1.0, 1.0, -1.0]))


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"rotation": np.eye(3) * np.nan}, ValueError, "^rotation must be finite"),
        ({"rotation": np.eye(4)}, ValueError, "^rotation must have shape \\(3, 3\\)"),
        ({"rotation": np.eye(3).ravel()}, ValueError, "^rotation must have shape"),
        ({"rotation": np.eye(3) + 0j}, TypeError, "^rotation must hold real numbers"),
        ({"rotation": "identity"}, TypeError, "^rotation must hold real numbers.*strings"),
        ({"translation": [0.0, np.inf, 0.0]}, ValueError, "^translation must be finite"),
        ({"translation": [1.0, 2.0]}, ValueError, "^translation must have shape \\(3,\\)"),
        ({"translation": [True, False, True]}, TypeError, "^translation must hold real"),
        ({"scale": 0.0}, ValueError, "^scale must be a finite number > 0"),
        ({"scale": -2.0}, ValueError, "^scale must be a finite number > 0"),
        ({"scale": np.inf}, ValueError, "^scale must be a finite number > 0"),
        ({"scale": np.nan}, ValueError, "^scale must be a finite number > 0"),
        ({"scale": "2"}, TypeError, "^scale must be a real number, got str"),
        ({"scale": True}, TypeError, "^scale must be a real number, got bool"),
    ],
)
def test_bad_arguments_name_the_field(kwargs, error, message):
    with pytest.raises(error, match=message):
        Pose(**kwargs)


def test_arrays_are_read_only_copies():
    rotation, translation = ROT.copy(), np.array([1.0, 2.0, 3.0])
    pose = Pose(rotation, translation, 2.0)
    assert rotation.flags.writeable and translation.flags.writeable
    translation[0] = 9.0
    assert pose.translation[0] == 1.0
    with pytest.raises(ValueError):
        pose.rotation[0, 0] = 0.0


def test_scale_algebra():
    pose = Pose(ROT, np.array([0.3, -1.0, 2.0]), 2.5)
    other = Pose.from_axis_angle((0, 1, 0), -0.4, (1.0, 0.0, 0.5), scale=0.2)
    pts = np.random.default_rng(1).normal(size=(50, 3))
    np.testing.assert_allclose(pose.apply(pts), 2.5 * pts @ ROT.T + [0.3, -1.0, 2.0])
    np.testing.assert_allclose(pose.inverse().apply(pose.apply(pts)), pts, atol=1e-12)
    np.testing.assert_allclose(
        pose.compose(other).apply(pts), pose.apply(other.apply(pts)), atol=1e-12
    )
    assert pose.compose(other).scale == pytest.approx(0.5)
    back = Pose.from_matrix(pose.as_matrix())
    assert back.scale == pytest.approx(2.5)
    np.testing.assert_allclose(back.rotation, ROT, atol=1e-14)
    np.testing.assert_allclose(pose.apply_vectors(pts), 2.5 * pts @ ROT.T)
    assert pose.rigid().scale == 1.0 and not pose.is_rigid and not pose.is_identity
    assert Pose().is_identity and not Pose(scale=2.0).is_identity


def test_rigid_matrix_round_trips_bit_for_bit():
    pose = Pose(ROT, np.array([0.1, 0.2, 0.3]))
    back = Pose.from_matrix(pose.as_matrix())
    assert back.scale == 1.0
    assert np.array_equal(back.rotation, pose.rotation)


@pytest.mark.parametrize(
    "matrix, message",
    [
        (np.diag([1.0, 2.0, 1.0, 1.0]), "^rotation must be orthonormal"),
        (np.diag([1.0, 1.0, -1.0, 1.0]), "^matrix: the 3x3 block has determinant -1"),
        (np.vstack([np.eye(4)[:3], [0.0, 0.0, 1.0, 1.0]]), "^matrix must have last row"),
        (np.eye(3), "^matrix must have shape \\(4, 4\\)"),
    ],
)
def test_from_matrix_refuses_what_is_not_a_similarity(matrix, message):
    with pytest.raises(ValueError, match=message):
        Pose.from_matrix(matrix)


# ---------------------------------------------------------------------------------------------
# Scale as a field: every query gives the contacts of the scaled mesh, and the oracle's.

SPHERE = sphere_mesh(10)
SCALED_B = Pose(rotation_matrix((0, 1, 1), 0.5), np.array([0.9, 0.2, 0.1]), 0.6)
SCALED_A = Pose(rotation_matrix((1, 0, 0), 0.3), np.array([-0.2, 0.0, 0.1]), 1.7)


def _world(mesh, pose):
    return mesh.vertices if pose is None else pose.apply(mesh.vertices)


def _oracle(pose_a, pose_b):
    va, vb = _world(SPHERE, pose_a), _world(SPHERE, pose_b)
    return brute_force_contacts(va, SPHERE.faces, vb, SPHERE.faces)[0]


def _scaled_by_hand(pose):
    """The mesh scaled by the pose's scale and the pose without it."""
    if pose is None:
        return SPHERE, None
    return SPHERE.with_vertices(SPHERE.vertices * pose.scale), pose.rigid()


@pytest.mark.parametrize("pose_a", [None, SCALED_A], ids=["a-identity", "a-scaled"])
@pytest.mark.parametrize(
    "query", ["contacts", "collide", "obb", "sphere", "rss", "kdop18", "grid", "octree"]
)
def test_scale_field_gives_the_scaled_mesh_contacts(query, pose_a):
    def run(mesh_a, mesh_b, pa, pb):
        if query == "contacts":
            return contacts(mesh_a, mesh_b, pa, pb).pairs
        if query in ("grid", "octree"):
            return partition_contacts(mesh_a, mesh_b, pa, pb, kind=query).pairs
        ta, tb = build_tree(mesh_a), build_tree(mesh_b)
        if query == "collide":
            return collide(mesh_a, ta, mesh_b, tb, pa, pb).pairs
        return collide_bv(mesh_a, ta, mesh_b, tb, pa, pb, bv=query).pairs

    pairs = run(SPHERE, SPHERE, pose_a, SCALED_B)
    a, pa = _scaled_by_hand(pose_a)
    b, pb = _scaled_by_hand(SCALED_B)
    expected = run(a, b, pa, pb)
    assert len(expected) > 20
    np.testing.assert_array_equal(pairs, expected)
    np.testing.assert_array_equal(pairs, _oracle(pose_a, SCALED_B))


def test_scale_field_gives_world_segments():
    result = contacts(SPHERE, SPHERE, SCALED_A, SCALED_B)
    a, pa = _scaled_by_hand(SCALED_A)
    b, pb = _scaled_by_hand(SCALED_B)
    expected = contacts(a, b, pa, pb)
    np.testing.assert_allclose(result.segments, expected.segments, atol=1e-12)


def test_without_the_scale_field_contacts_differ():
    # The test above would pass if scale were ignored only when the answer did not change.
    unscaled = contacts(SPHERE, SPHERE, None, SCALED_B.rigid()).pairs
    assert len(unscaled) != len(contacts(SPHERE, SPHERE, None, SCALED_B).pairs)


@pytest.mark.parametrize("pose_a", [None, SCALED_A], ids=["a-identity", "a-scaled"])
def test_scale_field_in_distance(pose_a):
    far = Pose(SCALED_B.rotation, np.array([3.0, 0.5, 0.0]), 0.6)
    tree = build_tree(SPHERE)
    result = min_distance(SPHERE, tree, SPHERE, tree, pose_a, far)
    expected, _ = brute_force_distance(_world(SPHERE, pose_a), SPHERE.faces,
                                       _world(SPHERE, far), SPHERE.faces)  # fmt: skip
    assert result.distance == pytest.approx(expected, rel=1e-12)
    assert np.linalg.norm(result.point_a - result.point_b) == pytest.approx(expected, rel=1e-9)
    assert within_distance(SPHERE, tree, SPHERE, tree, pose_a, far, d=expected * 1.001)
    assert not within_distance(SPHERE, tree, SPHERE, tree, pose_a, far, d=expected * 0.999)
