"""Minimum distance and tolerance queries against a brute-force minimum over all pairs."""

import numpy as np
import pytest

from core.bv import BV_KINDS
from core.bv._geom import tri_tri_closest
from core.bvh import SplitRule, build_tree
from core.distance import brute_force_distance, min_distance, within_distance
from core.pose import Pose
from tests.core.meshgen import sphere_mesh, triangle_soup

DIST_KINDS = [key for key, kind in BV_KINDS.items() if kind.bounds_distance]


@pytest.fixture(scope="module")
def apart():
    a = sphere_mesh(8, name="a")
    b = triangle_soup(120, seed=5, name="b")
    pose_b = Pose.from_axis_angle((1, -2, 0.5), 0.8, (2.2, 0.4, -0.2))
    vb = pose_b.apply(b.vertices)
    expected, pair = brute_force_distance(a.vertices, a.faces, vb, b.faces)
    return a, b, pose_b, expected, pair


@pytest.mark.parametrize("kind", DIST_KINDS)
@pytest.mark.parametrize("leaf_size", [1, 3])
def test_min_distance_matches_brute_force(apart, kind, leaf_size):
    a, b, pose_b, expected, _ = apart
    assert expected > 0.05, "the meshes must be apart"
    ta, tb = build_tree(a, SplitRule.MEAN, leaf_size), build_tree(b, SplitRule.SAH, leaf_size)
    world = Pose.from_axis_angle((0, 1, 1), 1.1, (3.0, -1.0, 2.0))
    r = min_distance(a, ta, b, tb, world, world.compose(pose_b), bv=kind)
    assert r.distance == pytest.approx(expected, rel=1e-12, abs=1e-12)
    # The points are in the world frame, on the reported triangles, and that far apart.
    assert np.linalg.norm(r.point_a - r.point_b) == pytest.approx(expected, rel=1e-9)
    tri_a = world.apply(a.triangles[r.pair[0]])
    tri_b = world.compose(pose_b).apply(b.triangles[r.pair[1]])
    d, _, _ = tri_tri_closest(*tri_a, *tri_b)
    assert d == pytest.approx(expected, rel=1e-9)
    # Pruning did real work: far fewer triangle pairs than the full product.
    assert r.counters.n_tri_tests < a.n_faces * b.n_faces / 4


def test_distance_agrees_with_python_fcl(apart):
    fcl = pytest.importorskip("fcl")
    a, b, pose_b, expected, _ = apart

    def model(mesh):
        m = fcl.BVHModel()
        m.beginModel(mesh.n_vertices, mesh.n_faces)
        m.addSubModel(mesh.vertices, mesh.faces)
        m.endModel()
        return m

    oa = fcl.CollisionObject(model(a), fcl.Transform())
    ob = fcl.CollisionObject(model(b), fcl.Transform(pose_b.rotation, pose_b.translation))
    res = fcl.DistanceResult()
    fcl_d = fcl.distance(oa, ob, fcl.DistanceRequest(enable_nearest_points=True), res)
    r = min_distance(a, build_tree(a), b, build_tree(b), None, pose_b)
    assert r.distance == pytest.approx(fcl_d, rel=1e-6)
    assert r.distance == pytest.approx(expected, rel=1e-12)


def test_touching_meshes_have_distance_zero():
    a = sphere_mesh(8)
    b = sphere_mesh(8, radius=0.5)
    pose_b = Pose(np.eye(3), (1.2, 0.0, 0.0))  # the small sphere cuts the big one
    r = min_distance(a, build_tree(a), b, build_tree(b), None, pose_b)
    assert r.distance == 0.0
    assert np.array_equal(r.point_a, r.point_b)


def test_within_distance_brackets_the_minimum(apart):
    a, b, pose_b, expected, _ = apart
    ta, tb = build_tree(a), build_tree(b)
    for kind in ("rss", "obb"):
        assert within_distance(a, ta, b, tb, None, pose_b, d=expected * 1.001, bv=kind)
        assert not within_distance(a, ta, b, tb, None, pose_b, d=expected * 0.999, bv=kind)
    assert within_distance(a, ta, b, tb, None, pose_b, d=expected)
    with pytest.raises(ValueError, match="finite number"):
        within_distance(a, ta, b, tb, None, pose_b, d=-1.0)


def test_triangle_distance_is_the_minimum_over_samples():
    rng = np.random.default_rng(3)
    # Barycentric samples of each triangle: the sampled minimum is never below the exact one
    # and comes within the sampling resolution of it.
    u, v = np.meshgrid(np.linspace(0, 1, 41), np.linspace(0, 1, 41))
    keep = u + v <= 1
    bary = np.stack([1 - u[keep] - v[keep], u[keep], v[keep]], 1)
    for _ in range(30):
        ta = rng.normal(size=(3, 3))
        tb = rng.normal(size=(3, 3)) + rng.normal(scale=2.0, size=3)
        d, pa, pb = tri_tri_closest(*ta, *tb)
        sa = bary @ ta
        sb = bary @ tb
        sampled = np.sqrt(((sa[:, None] - sb[None]) ** 2).sum(-1)).min()
        assert d <= sampled + 1e-12
        assert sampled - d < 0.1 * max(np.ptp(ta, 0).max(), np.ptp(tb, 0).max())
        assert np.linalg.norm(pa - pb) == pytest.approx(d, abs=1e-12)


def test_kind_without_a_bound_is_refused(apart):
    a, b, pose_b, _, _ = apart
    with pytest.raises(ValueError, match="no distance bound"):
        min_distance(a, build_tree(a), b, build_tree(b), None, pose_b, bv="kdop14")


def test_cli_distance_json(capsys, assets_dir, spot, teapot):
    import json

    from core.cli import main

    argv = ["distance", str(assets_dir / "spot.obj"), str(assets_dir / "teapot.obj"),
            "--scale-b", "0.22", "--translate-b", "2", "0", "0", "--json"]  # fmt: skip
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    small = teapot.with_vertices(teapot.vertices * 0.22)
    pose = Pose(np.eye(3), (2.0, 0.0, 0.0))
    expected = min_distance(spot, build_tree(spot), small, build_tree(small), None, pose)
    assert report["bv"] == "rss"
    assert report["distance"] == pytest.approx(expected.distance, rel=1e-12)
    assert report["distance"] > 0.5
    assert np.linalg.norm(np.subtract(report["point_a"], report["point_b"])) == pytest.approx(
        report["distance"], rel=1e-9
    )
    assert main(argv[:-1] + ["--bv", "obb"]) == 0
    assert "distance: 0.9349" in capsys.readouterr().out
