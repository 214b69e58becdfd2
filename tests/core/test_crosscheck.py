"""Cross-engine check: the pairs only one engine reports, each with its exact gap."""

from fractions import Fraction

import numpy as np
import pytest

from core.crosscheck import INSTALL_HINT, cross_check
from core.exact_gap import exact_gap, squared_gap
from core.mesh import TriMesh
from core.pose import Pose
from tests.core.meshgen import sphere_mesh

FLOOR = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def one_triangle(corners) -> TriMesh:
    return TriMesh(np.asarray(corners, dtype=np.float64), np.array([[0, 1, 2]], np.int32))


def spike(z: float) -> np.ndarray:
    """A triangle standing on the floor triangle's inside with its lowest corner at ``z``."""
    return np.array([[0.25, 0.25, z], [0.3, 0.25, 1.0], [0.25, 0.3, 1.0]])


# -- the exact gap --------------------------------------------------------------------------
def test_gap_corner_above_face():
    # The spike's low corner is 1e-12 above the floor's plane, over its inside: the gap is
    # exactly the float 1e-12 (as a rational), not a rounded difference.
    assert squared_gap(FLOOR, spike(1e-12)) == Fraction(1e-12) ** 2
    assert exact_gap(FLOOR, spike(1e-12)) == 1e-12


def test_gap_zero_when_touching_or_crossing():
    assert squared_gap(FLOOR, spike(0.0)) == 0  # corner on the face: touching
    assert squared_gap(FLOOR, spike(-1e-12)) == 0  # corner through the face: crossing
    assert exact_gap(FLOOR, spike(-0.5)) == 0.0


def test_gap_edge_to_edge():
    # Two skew edges: x-axis segment of the floor and a segment parallel to y at height 3,
    # crossing above x = 0.5. Nearest points (0.5, 0, 0) and (0.5, 0, 3): gap 3 (squared 9).
    a = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, -1.0, -1.0]])
    b = np.array([[0.5, -1.0, 3.0], [0.5, 1.0, 3.0], [0.5, 0.0, 9.0]])
    assert squared_gap(a, b) == 9


def test_gap_parallel_faces_and_corner_outside():
    # A copy of the floor lifted by 1/2 and shifted by (2, 0): nearest points are the floor's
    # corner (1, 0, 0) and the copy's corner (2, 0, 1/2): squared gap 1 + 1/4.
    lifted = FLOOR + np.array([2.0, 0.0, 0.5])
    assert squared_gap(FLOOR, lifted) == Fraction(5, 4)


# -- engines --------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ["fcl", "coal"])
def test_crossing_spheres_identical(engine):
    pytest.importorskip(engine)
    a = sphere_mesh(20, name="a")
    b = sphere_mesh(16, radius=0.7, name="b")
    check = cross_check(a, None, b, Pose(np.eye(3), (1.2, 0.1, 0.05)), engine)
    assert check.identical
    assert check.n_ours == check.n_theirs == check.n_agreed > 50
    assert check.engine == engine and check.engine_version.split()[1][0].isdigit()


def test_near_touching_pair_coal_reports_with_exact_gap():
    pytest.importorskip("coal")
    # coal's GJK test counts pairs closer than its tolerance (about 1e-6) as contact; the exact
    # gap says they are 1e-12 apart and only coal reports them.
    check = cross_check(one_triangle(FLOOR), None, one_triangle(spike(1e-12)), None, "coal")
    assert not check.identical
    assert check.only_ours.shape == (0, 2)
    assert check.only_theirs.tolist() == [[0, 0]]
    assert check.gap_only_theirs.tolist() == [1e-12]


@pytest.mark.parametrize("z", [0.0, 1e-12, -1e-12, 1e-60])
def test_near_touching_pair_fcl_every_difference_has_its_exact_gap(z):
    pytest.importorskip("fcl")
    a, b = one_triangle(FLOOR), one_triangle(spike(z))
    check = cross_check(a, None, b, None, "fcl")
    # We decide exactly: touching (z = 0) and crossing (z < 0) are ours, apart is not.
    assert check.n_ours == (1 if z <= 0 else 0)
    # Whatever fcl says, a pair only it reports is apart, a pair only we report touches.
    assert np.all(check.gap_only_ours == 0.0)
    assert np.all(check.gap_only_theirs > 0.0)
    if check.only_theirs.shape[0]:
        assert check.gap_only_theirs[0] == z


def test_pose_moves_both_engines_alike():
    pytest.importorskip("fcl")
    # B moved onto A by its pose: the same pairs as B moved by its vertices.
    a = sphere_mesh(12, name="a")
    b = sphere_mesh(12, radius=0.6, name="b")
    shift = np.array([1.1, 0.0, 0.2])
    posed = cross_check(a, None, b, Pose(np.eye(3), shift), "fcl")
    moved = cross_check(a, None, b.with_vertices(b.vertices + shift), None, "fcl")
    assert posed.n_ours == moved.n_ours > 0 and posed.identical == moved.identical


def test_unknown_engine_is_named():
    with pytest.raises(ValueError, match="engine 'bullet'"):
        cross_check(one_triangle(FLOOR), None, one_triangle(FLOOR), None, "bullet")


def test_install_hint_words():
    assert INSTALL_HINT == "install python-fcl (pip install python-fcl) to cross-check"
