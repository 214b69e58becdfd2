"""The tandem traversal finds exactly the oracle's contacts, for every rule, pose and mode."""

import numpy as np
import pytest

import core.collide.traversal_driver as driver
from core import contacts
from core.bvh import SplitRule, build_tree, refit_tree
from core.collide import DescendRule, collide
from core.collide.trace import OVERLAPPED
from core.mesh import TriMesh
from core.pose import Pose
from tests.core.helpers import ROTATED, SHIFTED, oracle_pairs
from tests.core.meshgen import sphere_mesh, triangle_soup

RULES = list(SplitRule)
DESCENDS = list(DescendRule)
@pytest.fixture(scope="module")
def soups():
    a = triangle_soup(350, seed=11, name="a")
    b = triangle_soup(350, seed=12, name="b")
    expected = {
        name: oracle_pairs(a, b, None, pose) for name, pose in
        (("identity", None), ("shifted", SHIFTED), ("rotated", ROTATED))
    }  # fmt: skip
    return a, b, expected


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name.lower())
@pytest.mark.parametrize("leaf_size", [1, 3])
@pytest.mark.parametrize("pose_name", ["identity", "shifted", "rotated"])
def test_soup_matches_oracle(soups, rule, leaf_size, pose_name):
    a, b, expected = soups
    pose_b = {"identity": None, "shifted": SHIFTED, "rotated": ROTATED}[pose_name]
    assert len(expected[pose_name]) > 20, "the soups must actually touch"
    tree_a = build_tree(a, rule, leaf_size)
    tree_b = build_tree(b, rule, leaf_size)
    for descend in DESCENDS:
        result = collide(a, tree_a, b, tree_b, None, pose_b, descend=descend)
        assert np.array_equal(result.pairs, expected[pose_name]), (rule, leaf_size, descend)
        assert result.counters.n_contacts == len(expected[pose_name])


@pytest.fixture(scope="module")
def spot_teapot(spot, teapot):
    # The teapot is ~6 units long, spot ~1.5: shrink the teapot onto spot's body so that
    # the spout, lid and handle cut through it.
    small = teapot.with_vertices(teapot.vertices * 0.22)
    pose_b = Pose.from_axis_angle((0, 1, 0), 0.4, (0.1, 0.05, 0.2))
    return spot, small, pose_b, oracle_pairs(spot, small, None, pose_b)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name.lower())
def test_real_meshes_match_oracle(spot_teapot, rule):
    spot, teapot, pose_b, expected = spot_teapot
    assert len(expected) > 100
    result = contacts(spot, teapot, None, pose_b, split=rule, leaf_size=1)
    assert np.array_equal(result.pairs, expected)


def test_real_meshes_leaf_size_and_descend(spot_teapot):
    spot, teapot, pose_b, expected = spot_teapot
    for leaf_size in (4, 16):
        for descend in DESCENDS:
            result = contacts(spot, teapot, None, pose_b, leaf_size=leaf_size, descend=descend)
            assert np.array_equal(result.pairs, expected), (leaf_size, descend)


def test_bunny_against_a_ball_matches_oracle(bunny):
    ball = sphere_mesh(14, radius=0.02)
    # A ball centred on a vertex of the bunny's back cuts its surface.
    centre = bunny.vertices[np.argmax(bunny.vertices[:, 1])]
    pose_b = Pose(np.eye(3), centre - [0, 0.005, 0])
    expected = oracle_pairs(bunny, ball, None, pose_b)
    assert len(expected) > 10
    result = contacts(bunny, ball, None, pose_b)
    assert np.array_equal(result.pairs, expected)


def test_world_pose_of_both_does_not_change_contacts(spot_teapot):
    spot, teapot, pose_b, expected = spot_teapot
    world = Pose.from_axis_angle((0.3, -1, 0.2), 2.1, (5.0, -3.0, 7.0))
    result = contacts(spot, teapot, world, world.compose(pose_b))
    assert np.array_equal(result.pairs, expected)


def test_pose_equals_vertex_rewrite(spot_teapot):
    spot, teapot, pose_b, expected = spot_teapot
    moved = teapot.with_vertices(pose_b.apply(teapot.vertices))
    assert np.array_equal(contacts(spot, moved).pairs, expected)


def test_segments_lie_on_both_triangles_in_world_frame(spot_teapot):
    spot, teapot, pose_b, _ = spot_teapot
    world = Pose.from_axis_angle((1, 1, 0), 0.7, (2.0, 0.0, -1.0))
    result = contacts(spot, teapot, world, world.compose(pose_b))
    tri_a = world.apply(spot.triangles[result.pairs[:, 0]])
    tri_b = world.compose(pose_b).apply(teapot.triangles[result.pairs[:, 1]])
    for tri in (tri_a, tri_b):
        normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
        for end in range(2):
            dist = np.einsum("ij,ij->i", result.segments[:, end] - tri[:, 0], normal)
            assert np.abs(dist).max() < 1e-9


def test_apart_meshes_have_no_contacts_and_few_tests(spot):
    far = Pose(np.eye(3), (10.0, 0, 0))
    result = contacts(spot, spot, None, far, trace=True)
    assert result.n_contacts == 0 and result.pairs.shape == (0, 2)
    assert result.counters.n_bv_tests == 1 and result.trace.n_levels == 1


def test_trace_counts_add_up_and_levels_follow_the_tree(spot_teapot):
    spot, teapot, pose_b, expected = spot_teapot
    tree_a = build_tree(spot)
    tree_b = build_tree(teapot)
    fast = collide(spot, tree_a, teapot, tree_b, None, pose_b)
    traced = collide(spot, tree_a, teapot, tree_b, None, pose_b, trace=True)
    assert fast.trace is None
    assert np.array_equal(fast.pairs, traced.pairs)
    assert fast.counters == traced.counters
    tr = traced.trace
    c = traced.counters
    assert tr.tested_per_level.sum() == c.n_bv_tests
    assert tr.overlapping_per_level.sum() == c.n_bv_overlaps
    assert tr.leaf_pairs_per_level.sum() == c.n_leaf_pairs
    pairs0, overlapped0 = tr.level(0)
    assert pairs0.tolist() == [[0, 0]] and overlapped0.tolist() == [True]
    # Every pair at level d + 1 is a child pair of an overlapping pair at level d.
    for d in range(tr.n_levels - 1):
        pairs, overlapped = tr.level(d)
        children, _ = tr.level(d + 1)
        parents_a = tree_a.parent[children[:, 0]]
        parents_b = tree_b.parent[children[:, 1]]
        # A child pair splits exactly one side under LARGER_VOLUME: the other side is kept.
        from_a = np.stack([parents_a, children[:, 1]], 1)
        from_b = np.stack([children[:, 0], parents_b], 1)
        live = {tuple(p) for p in pairs[overlapped]}
        assert all(tuple(x) in live or tuple(y) in live for x, y in zip(from_a, from_b))
        assert len(children) <= 2 * overlapped.sum()
    assert tr.overlapping_per_level[-1] == tr.leaf_pairs_per_level[-1]
    sep = tr.separating_axis(3)
    assert set(np.unique(sep)) <= {OVERLAPPED, 0, 1, 2, 3, 4, 5}
    assert "level 0: 1 pairs tested, 1 overlap" in tr.summary(0)


def test_both_rule_splits_both_sides(spot_teapot):
    spot, teapot, pose_b, expected = spot_teapot
    r = contacts(spot, teapot, None, pose_b, descend=DescendRule.BOTH, trace=True)
    pairs1, _ = r.trace.level(1)
    assert len(pairs1) == 4
    assert np.array_equal(r.pairs, expected)


def test_parallel_levels_equal_serial(spot_teapot, monkeypatch):
    spot, teapot, pose_b, expected = spot_teapot
    serial = contacts(spot, teapot, None, pose_b, trace=True)
    monkeypatch.setattr(driver, "PARALLEL_MIN_PAIRS", 1)
    parallel = contacts(spot, teapot, None, pose_b, trace=True)
    assert np.array_equal(parallel.pairs, expected)
    assert parallel.counters == serial.counters
    assert np.array_equal(parallel.trace.node_a, serial.trace.node_a)
    assert np.array_equal(parallel.trace.sep_axis, serial.trace.sep_axis)


def test_refit_then_collide_matches_oracle_after_deformation():
    a = sphere_mesh(20)
    b = sphere_mesh(20, radius=0.7)
    tree_a, tree_b = build_tree(a), build_tree(b)
    pose_b = Pose(np.eye(3), (0.9, 0.0, 0.0))
    for step in range(1, 4):
        z = a.vertices[:, 2:3]
        moved = a.with_vertices(a.vertices * (1.0 + 0.1 * step * np.sin(4 * np.pi * z)))
        tree_moved = refit_tree(tree_a, moved)
        result = collide(moved, tree_moved, b, tree_b, None, pose_b)
        assert np.array_equal(result.pairs, oracle_pairs(moved, b, None, pose_b))


def test_touching_cubes_share_a_face():
    # Two unit cubes meeting on the plane x = 1: the contact is coplanar, boxes touch
    # exactly, and nothing may be culled by round-off.
    v = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=float)
    f = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])  # fmt: skip
    cube = TriMesh.from_arrays(v, f)
    result = contacts(cube, cube, None, Pose(np.eye(3), (1.0, 0, 0)))
    expected = oracle_pairs(cube, cube, None, Pose(np.eye(3), (1.0, 0, 0)))
    assert len(expected) > 0
    assert np.array_equal(result.pairs, expected)


def _level_sets(trace):
    return [
        sorted(zip(*(x.tolist() for x in (trace.level(d)[0][:, 0], trace.level(d)[0][:, 1],
                                           trace.separating_axis(d))), strict=True))
        for d in range(trace.n_levels)
    ]  # fmt: skip


@pytest.mark.parametrize("descend", DESCENDS, ids=lambda r: r.name.lower())
def test_frontier_split_between_threads_changes_nothing(spot_teapot, monkeypatch, descend):
    spot, teapot, pose_b, expected = spot_teapot
    monkeypatch.setattr(driver, "SPLIT_FRONTIER", 10**12)
    whole = contacts(spot, teapot, None, pose_b, trace=True, descend=descend)
    monkeypatch.setattr(driver, "SPLIT_FRONTIER", 3)
    split = contacts(spot, teapot, None, pose_b, trace=True, descend=descend)
    assert np.array_equal(split.pairs, expected) and np.array_equal(whole.pairs, expected)
    assert split.counters == whole.counters
    assert np.array_equal(split.trace.level_start, whole.trace.level_start)
    assert np.array_equal(split.trace.leaf_pairs_per_level, whole.trace.leaf_pairs_per_level)
    # Within a level the two halves' pairs are concatenated, so compare levels as sets.
    assert _level_sets(split.trace) == _level_sets(whole.trace)
