"""Cross-engine check: the pairs only one engine reports, each with its exact gap; a frame's
own pairs (its tree, kind and margin) compared, never a fresh query."""

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from core import contacts
from core.bvh import SplitRule, build_tree
from core.lab import crosscheck
from core.lab.crosscheck import INSTALL_HINT, Compared, cross_check, cross_check_frame
from core.lab.exact_gap import exact_gap, squared_gap
from core.mesh import TriMesh
from core.pipeline import DEFAULT_REQUEST, BodyInput, FramePipeline, PipelineSettings
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
def fresh_check(mesh_a, pose_a, mesh_b, pose_b, engine):
    """The peer against BVH Lab's fresh default query of the same posed meshes."""
    ours = contacts(mesh_a, mesh_b, pose_a, pose_b).pairs
    return cross_check(mesh_a, pose_a, mesh_b, pose_b, ours, engine=engine)


@pytest.mark.parametrize("engine", ["fcl", "coal"])
def test_crossing_spheres_identical(engine):
    pytest.importorskip(engine)
    a = sphere_mesh(20, name="a")
    b = sphere_mesh(16, radius=0.7, name="b")
    check = fresh_check(a, None, b, Pose(np.eye(3), (1.2, 0.1, 0.05)), engine)
    assert check.identical
    assert check.n_ours == check.n_theirs == check.n_agreed > 50
    assert check.engine == engine and check.engine_version.split()[1][0].isdigit()


def test_near_touching_pair_coal_reports_with_exact_gap():
    pytest.importorskip("coal")
    # coal's GJK test counts pairs closer than its tolerance (about 1e-6) as contact; the exact
    # gap says they are 1e-12 apart and only coal reports them.
    check = fresh_check(one_triangle(FLOOR), None, one_triangle(spike(1e-12)), None, "coal")
    assert not check.identical
    assert check.only_ours.shape == (0, 2)
    assert check.only_theirs.tolist() == [[0, 0]]
    assert check.gap_only_theirs.tolist() == [1e-12]


@pytest.mark.parametrize("z", [0.0, 1e-12, -1e-12, 1e-60])
def test_near_touching_pair_fcl_every_difference_has_its_exact_gap(z):
    pytest.importorskip("fcl")
    a, b = one_triangle(FLOOR), one_triangle(spike(z))
    check = fresh_check(a, None, b, None, "fcl")
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
    posed = fresh_check(a, None, b, Pose(np.eye(3), shift), "fcl")
    moved = fresh_check(a, None, b.with_vertices(b.vertices + shift), None, "fcl")
    assert posed.n_ours == moved.n_ours > 0 and posed.identical == moved.identical


def test_unknown_engine_is_named():
    with pytest.raises(ValueError, match="engine 'bullet'"):
        cross_check(one_triangle(FLOOR), None, one_triangle(FLOOR), None, [[0, 0]],
                    engine="bullet")


def test_install_hint_words():
    assert INSTALL_HINT == "install python-fcl (pip install python-fcl) to cross-check"


# -- a frame's own pairs ----------------------------------------------------------------------
POSE_B = Pose(np.eye(3), (1.2, 0.1, 0.05))


def _spheres():
    return sphere_mesh(20, name="a"), sphere_mesh(16, radius=0.7, name="b")


def _pairs(pairs) -> set:
    return {(int(i), int(j)) for i, j in pairs}


def shrunk_leaf_tree(mesh, triangle: int):
    """Core's midpoint tree of ``mesh`` with the box of the leaf holding ``triangle`` shrunk
    to a hundredth of its size at its low corner: the traversal misses that leaf's contacts."""
    tree = build_tree(mesh, SplitRule.MIDPOINT, 1)
    leaves = np.flatnonzero(tree.count > 0)
    leaf = next(int(n) for n in leaves
                if triangle in tree.prim_ids[tree.first[n]:tree.first[n] + tree.count[n]])
    bmin, bmax = np.array(tree.bmin), np.array(tree.bmax)
    bmax[leaf] = bmin[leaf] + 0.01 * (bmax[leaf] - bmin[leaf])
    return dataclasses.replace(tree, bmin=bmin, bmax=bmax), leaf


def test_frame_with_a_shrunk_leaf_box_differs_by_exactly_the_missed_pairs():
    pytest.importorskip("fcl")
    a, b = _spheres()
    bodies = [BodyInput("a", a), BodyInput("b", b, POSE_B)]
    full = FramePipeline().step(bodies)
    assert full.result.n_contacts > 50
    pipe = FramePipeline()
    tree, _leaf = shrunk_leaf_tree(a, int(full.result.pairs[0, 0]))
    pipe.pin_tree("a", tree, a, label="tree from mine.json")
    frame = pipe.step(bodies)
    missed = _pairs(full.result.pairs) - _pairs(frame.result.pairs)
    assert missed and _pairs(frame.result.pairs) < _pairs(full.result.pairs)

    check = cross_check_frame(frame, "fcl")
    # The peer is compared with the frame's pairs, not a fresh query's: it finds exactly the
    # contacts the shrunk box hid, each touching or crossing (gap 0).
    assert not check.identical
    assert check.only_ours.shape == (0, 2)
    assert _pairs(check.only_theirs) == missed
    assert check.only_theirs.tolist() == [list(p) for p in sorted(missed)]
    assert np.all(check.gap_only_theirs == 0.0)
    assert check.n_ours == frame.result.n_contacts and check.n_theirs == full.result.n_contacts
    n = len(missed)
    assert check.verdict() == (
        f"frame 0, A: tree from mine.json, B: BVH Lab's AABB tree (midpoint split): differs: "
        f"{n} pair{'s' if n > 1 else ''} only python-fcl reports "
        f"({frame.result.n_contacts:,} pairs agreed)")


def test_frame_with_its_own_trees_is_identical_and_says_so():
    pytest.importorskip("fcl")
    a, b = _spheres()
    frame = FramePipeline(PipelineSettings(DEFAULT_REQUEST.replace(split=SplitRule.SAH))).step(
        [BodyInput("a", a), BodyInput("b", b, POSE_B)])
    check = cross_check_frame(frame, "fcl")
    assert check.identical
    assert check.verdict() == (
        "frame 0, A: BVH Lab's AABB tree (sah split), B: BVH Lab's AABB tree (sah split): "
        f"identical ({frame.result.n_contacts:,} triangle pairs)")


def test_margin_compares_contacts_and_flags_the_peers_near_pairs(monkeypatch):
    pytest.importorskip("fcl")
    # The spike 1e-12 above the floor: apart, so not a contact, but within a margin of 0.01
    # (a near pair). A peer with a tolerance (coal's GJK) reports it: stand in for one, so the
    # check runs wherever python-fcl is installed.
    a, b = one_triangle(FLOOR), one_triangle(spike(1e-12))
    frame = FramePipeline(PipelineSettings(DEFAULT_REQUEST.replace(margin=0.01))).step(
        [BodyInput("a", a), BodyInput("b", b)])
    assert frame.result.n_contacts == 0 and frame.result.near_pairs.tolist() == [[0, 0]]
    compared = Compared.of_frame(frame)
    assert compared.margin == 0.01
    assert compared.text() == ("frame 0, A: BVH Lab's AABB tree (midpoint split), "
                               "B: BVH Lab's AABB tree (midpoint split), margin 0.01")
    monkeypatch.setattr(crosscheck, "_peer_pairs",
                        lambda *_args: np.array([[0, 0]], dtype=np.int32))
    check = cross_check_frame(frame, "fcl")
    # The frame's near pair is not one of its contacts: compared as contacts, it differs,
    # and the one pair only the peer reports is flagged as a near pair of the frame's.
    assert check.n_ours == 0 and check.only_theirs.tolist() == [[0, 0]]
    assert check.gap_only_theirs.tolist() == [1e-12]
    assert check.is_near_only_theirs.tolist() == [True]
    assert check.verdict().endswith(
        "differs: 1 pair only python-fcl reports (0 pairs agreed); 1 of those only "
        "python-fcl reports are within the margin 0.01: BVH Lab lists them as near pairs, "
        "not contacts")


def test_pairs_naming_a_missing_triangle_are_refused():
    pytest.importorskip("fcl")
    with pytest.raises(ValueError, match=r"pairs\[0\] names triangle 7 of B, which has 1 "):
        cross_check(one_triangle(FLOOR), None, one_triangle(FLOOR), None, [[0, 7]],
                    engine="fcl")


def test_posed_a_uses_the_coordinates_the_frame_decided_on():
    pytest.importorskip("fcl")
    # A rotated and moved: the peer gets A in its own coordinates and B in A's frame, the
    # floats the frame's triangle test saw; the frame's pairs agree.
    a, b = _spheres()
    turn = Pose.from_matrix(np.array([[0.0, -1.0, 0.0, 0.3], [1.0, 0.0, 0.0, -0.2],
                                      [0.0, 0.0, 1.0, 0.1], [0.0, 0.0, 0.0, 1.0]]))
    pose_b = turn.compose(POSE_B)
    frame = FramePipeline().step([BodyInput("a", a, turn), BodyInput("b", b, pose_b)])
    check = cross_check_frame(frame, "fcl")
    assert frame.result.n_contacts > 50 and check.identical
