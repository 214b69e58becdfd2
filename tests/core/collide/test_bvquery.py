"""Every bounding-volume kind x split rule x leaf size finds exactly the oracle's contacts."""

import numpy as np
import pytest

from core.bv import BV_KINDS, refit_volumes
from core.bvh import SplitRule, build_tree
from core.collide import DescendRule, collide
from core.collide.bvquery import collide_bv
from core.pose import Pose
from tests.core.helpers import ROTATED, SHIFTED, oracle_pairs
from tests.core.meshgen import sphere_mesh, triangle_soup

KINDS = list(BV_KINDS)
RULES = [SplitRule.MIDPOINT, SplitRule.MEAN, SplitRule.SAH, SplitRule.OBB]
@pytest.fixture(scope="module")
def soups():
    a = triangle_soup(300, seed=21, name="a")
    b = triangle_soup(300, seed=22, name="b")
    expected = {"rotated": oracle_pairs(a, b, None, ROTATED),
                "shifted": oracle_pairs(a, b, None, SHIFTED),
                "identity": oracle_pairs(a, b)}  # fmt: skip
    return a, b, expected


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name.lower())
@pytest.mark.parametrize("leaf_size", [1, 4])
def test_soup_rotated_matches_oracle(soups, kind, rule, leaf_size):
    a, b, expected = soups
    assert len(expected["rotated"]) > 20, "the soups must actually touch"
    tree_a = build_tree(a, rule, leaf_size)
    tree_b = build_tree(b, rule, leaf_size)
    result = collide_bv(a, tree_a, b, tree_b, None, ROTATED, bv=kind)
    assert np.array_equal(result.pairs, expected["rotated"])
    assert result.counters.n_contacts == len(expected["rotated"])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("pose_name", ["identity", "shifted"])
def test_soup_translated_matches_oracle_every_descend(soups, kind, pose_name):
    a, b, expected = soups
    pose = {"identity": None, "shifted": SHIFTED}[pose_name]
    tree_a, tree_b = build_tree(a), build_tree(b, SplitRule.SAH, 2)
    for descend in DescendRule:
        result = collide_bv(a, tree_a, b, tree_b, None, pose, bv=kind, descend=descend)
        assert np.array_equal(result.pairs, expected[pose_name]), descend


@pytest.fixture(scope="module")
def spot_teapot(spot, teapot):
    small = teapot.with_vertices(teapot.vertices * 0.22)
    pose_b = Pose.from_axis_angle((0, 1, 0), 0.4, (0.1, 0.05, 0.2))
    return spot, small, pose_b, oracle_pairs(spot, small, None, pose_b)


@pytest.mark.parametrize("kind", KINDS)
def test_spot_teapot_rotated_matches_oracle(spot_teapot, kind):
    spot, teapot, pose_b, expected = spot_teapot
    assert len(expected) > 100
    tree_a, tree_b = build_tree(spot), build_tree(teapot, SplitRule.MEAN, 2)
    # Both meshes posed in the world: only the relative pose may matter.
    world = Pose.from_axis_angle((0.3, -1, 0.2), 2.1, (5.0, -3.0, 7.0))
    result = collide_bv(spot, tree_a, teapot, tree_b, world, world.compose(pose_b), bv=kind,
                        trace=True)  # fmt: skip
    assert np.array_equal(result.pairs, expected)
    tr = result.trace
    assert tr.tested_per_level.sum() == result.counters.n_bv_tests
    assert tr.overlapping_per_level.sum() == result.counters.n_bv_overlaps
    assert tr.leaf_pairs_per_level.sum() == result.counters.n_leaf_pairs
    pairs0, overlapped0 = tr.level(0)
    assert pairs0.tolist() == [[0, 0]] and overlapped0.tolist() == [True]


def test_aabb_kind_walks_exactly_like_the_tandem_traversal(spot_teapot):
    spot, teapot, pose_b, _ = spot_teapot
    tree_a, tree_b = build_tree(spot), build_tree(teapot)
    ours = collide_bv(spot, tree_a, teapot, tree_b, None, pose_b, bv="aabb", trace=True)
    theirs = collide(spot, tree_a, teapot, tree_b, None, pose_b, trace=True)
    assert ours.counters == theirs.counters
    assert np.array_equal(ours.trace.node_a, theirs.trace.node_a)
    assert np.array_equal(ours.trace.sep_axis, theirs.trace.sep_axis)


def test_sat_lite_costs_extra_box_tests_only_under_rotation(spot_teapot):
    spot, teapot, pose_y, _ = spot_teapot
    tree_a, tree_b = build_tree(spot), build_tree(teapot)
    # Not about a coordinate axis: then every edge-edge axis is parallel to a face axis and
    # both tests cull exactly the same pairs.
    pose_b = Pose.from_axis_angle((1, 2, 3), 0.5, pose_y.translation)
    lite = collide_bv(spot, tree_a, teapot, tree_b, None, pose_b, bv="aabb", trace=True)
    full = collide_bv(spot, tree_a, teapot, tree_b, None, pose_b, bv="aabb15", trace=True)
    assert np.array_equal(lite.pairs, full.pairs)
    assert lite.counters.n_bv_tests > full.counters.n_bv_tests
    # Only the full test culls with edge-edge axes (ids 6-14).
    assert full.trace.sep_axis.max() >= 6 and lite.trace.sep_axis.max() <= 5
    shifted = Pose(np.eye(3), pose_b.translation)
    lite_t = collide_bv(spot, tree_a, teapot, tree_b, None, shifted, bv="aabb")
    full_t = collide_bv(spot, tree_a, teapot, tree_b, None, shifted, bv="aabb15")
    assert lite_t.counters.n_bv_tests == full_t.counters.n_bv_tests


def test_refitted_volumes_after_deformation_match_oracle():
    a = sphere_mesh(12)
    b = sphere_mesh(12, radius=0.7)
    tree_a, tree_b = build_tree(a), build_tree(b)
    pose_b = Pose.from_axis_angle((0, 0, 1), 0.3, (0.9, 0.0, 0.0))
    z = a.vertices[:, 2:3]
    moved = a.with_vertices(a.vertices * (1.0 + 0.2 * np.sin(4 * np.pi * z)))
    expected = oracle_pairs(moved, b, None, pose_b)
    assert len(expected) > 5
    for kind in KINDS:
        vol_a = refit_volumes(tree_a, moved, kind)
        result = collide_bv(moved, tree_a, b, tree_b, None, pose_b, bv=kind, volumes_a=vol_a)
        assert np.array_equal(result.pairs, expected), kind


@pytest.fixture(scope="module")
def close_spheres():
    # W2-like parallel close proximity (Gottschalk et al. 1996): two concentric spheres of
    # 5040 triangles, radii 1 and 1 + gap. The outer one is turned about z by five of the 72
    # segments: a real rotation that maps the tessellation onto itself, so every face of the
    # outer sphere stays parallel to one of the inner at the gap (a turn by any other angle
    # makes the flat faces cross once the gap is below their sagitta, ~1e-3 here).
    inner = sphere_mesh(36)
    tree_in = build_tree(inner)
    turn = Pose.from_axis_angle((0, 0, 1), 5 * 2 * np.pi / 72)
    outers = {}
    for gap in (0.1, 0.01, 0.001):
        outer = sphere_mesh(36, radius=1.0 + gap)
        outers[gap] = (outer, build_tree(outer))
    return inner, tree_in, turn, outers


@pytest.mark.parametrize("kind", ["aabb", "obb", "sphere", "kdop14", "rss"])
def test_close_proximity_bv_tests_grow_as_the_gap_shrinks(close_spheres, kind):
    inner, tree_in, turn, outers = close_spheres
    counts = []
    for gap in (0.1, 0.01, 0.001):
        outer, tree_out = outers[gap]
        result = collide_bv(inner, tree_in, outer, tree_out, None, turn, bv=kind)
        assert result.n_contacts == 0
        counts.append(result.counters.n_bv_tests)
    assert counts[0] < counts[1] < counts[2], counts


def test_unknown_kind_is_a_clear_error(soups):
    a, b, _ = soups
    tree = build_tree(a)
    with pytest.raises(ValueError, match="unknown bounding volume 'cone'.*obb"):
        collide_bv(a, tree, b, tree, bv="cone")


def test_cli_contacts_bv_option(capsys, assets_dir, spot_teapot):
    import json

    from core.cli import main

    spot, teapot, _, _ = spot_teapot
    argv = ["contacts", str(assets_dir / "spot.obj"), str(assets_dir / "teapot.obj"),
            "--scale-b", "0.22", "--rotate-b", "0", "1", "0", "30",
            "--translate-b", "0.1", "0.05", "0.2", "--json"]  # fmt: skip
    assert main(argv) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(argv + ["--bv", "kdop18"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["bv"] == "kdop18" and "bv" not in plain
    assert report["pairs"] == plain["pairs"] and len(report["pairs"]) > 100
    assert report["counters"]["bv_tests"] != plain["counters"]["bv_tests"]
    assert sum(row["tested"] for row in report["levels"]) == report["counters"]["bv_tests"]
