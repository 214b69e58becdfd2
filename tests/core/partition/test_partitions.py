"""Every spatial partition finds exactly the oracle's contacts, and its records are consistent."""

import numpy as np
import pytest

from core.partition import (
    PARTITION_KINDS,
    BspPlaneRule,
    make_params,
    partition_contacts,
)
from core.partition import grid as grid_mod
from core.pose import Pose
from tests.core.helpers import ROTATED, SHIFTED, oracle_pairs
from tests.core.meshgen import sphere_mesh, triangle_soup

POSES = {"identity": None, "shifted": SHIFTED, "rotated": ROTATED}

# A few settings per kind, including extreme ones (one-triangle leaves, very coarse cells).
SETTINGS = {
    "grid": [{}, {"cell_size": 0.03}, {"cell_scale": 4.0}],
    "octree": [{}, {"max_depth": 2, "capacity": 4}, {"capacity": 1, "split_single_mesh": True}],
    "kdtree": [{}, {"capacity": 1}, {"max_depth": 6, "max_child_fraction": 1.0}],
    "bsp": [
        {},
        {"plane_rule": BspPlaneRule.PRINCIPAL, "capacity": 2},
        {"plane_rule": "triangle", "n_candidates": 2, "split_single_mesh": True},
    ],
}
CASES = [(k, i) for k in PARTITION_KINDS for i in range(len(SETTINGS[k]))]


def test_registry_lists_the_four_kinds():
    assert list(PARTITION_KINDS) == ["grid", "octree", "kdtree", "bsp"]


@pytest.fixture(scope="module")
def soups():
    a = triangle_soup(300, seed=21, name="a")
    b = triangle_soup(300, seed=22, name="b")
    expected = {name: oracle_pairs(a, b, None, pose) for name, pose in POSES.items()}
    return a, b, expected


@pytest.mark.parametrize("kind, setting", CASES)
@pytest.mark.parametrize("pose_name", list(POSES))
def test_soup_matches_oracle(soups, kind, setting, pose_name):
    a, b, expected = soups
    assert len(expected[pose_name]) > 20, "the soups must actually touch"
    result = partition_contacts(a, b, None, POSES[pose_name], kind=kind, **SETTINGS[kind][setting])
    assert np.array_equal(result.pairs, expected[pose_name])
    assert result.pairs.dtype == np.int32
    # candidates are distinct pairs, each tested once, and a superset of the contacts
    assert result.n_tri_tests == result.n_candidates
    assert result.n_contacts <= result.n_candidates <= result.n_raw_candidates
    assert result.n_candidates < a.n_faces * b.n_faces / 4, "the partition must cull"


@pytest.fixture(scope="module")
def spot_teapot(spot, teapot):
    small = teapot.with_vertices(teapot.vertices * 0.22)
    pose_b = Pose.from_axis_angle((0, 1, 0), 0.4, (0.1, 0.05, 0.2))
    pose_a = Pose.from_axis_angle((1, 0, 1), 0.3, (0.0, 0.2, 0.0))
    # both posed: B's pose relative to A is a rotation plus a translation
    pose_b = pose_a.compose(pose_b)
    return spot, small, pose_a, pose_b, oracle_pairs(spot, small, pose_a, pose_b)


@pytest.mark.parametrize("kind, setting", CASES)
def test_real_meshes_match_oracle(spot_teapot, kind, setting):
    spot, teapot, pose_a, pose_b, expected = spot_teapot
    assert len(expected) > 100
    result = partition_contacts(spot, teapot, pose_a, pose_b, kind=kind, **SETTINGS[kind][setting])
    assert np.array_equal(result.pairs, expected)
    # segments are in world coordinates: each endpoint lies on A's posed triangle
    va = pose_a.apply(spot.vertices)
    tri = va[spot.faces[result.pairs[:, 0]]]
    normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    dist = np.einsum("ij,ij->i", result.segments[:, 0] - tri[:, 0], normal)
    assert np.max(np.abs(dist)) < 1e-9


@pytest.mark.parametrize("kind", list(PARTITION_KINDS))
def test_records_are_consistent(spot_teapot, kind):
    spot, teapot, pose_a, pose_b, _ = spot_teapot
    result = partition_contacts(spot, teapot, pose_a, pose_b, kind=kind)
    part = result.partition
    assert part.n_tris == spot.n_faces + teapot.n_faces
    # every triangle lands in at least one leaf; the multi-cell counts match the leaves
    per_tri = part.leaves_per_triangle()
    assert per_tri.min() >= 1
    assert result.n_multi_cell_triangles == (
        int((per_tri[: spot.n_faces] > 1).sum()),
        int((per_tri[spot.n_faces :] > 1).sum()),
    )
    # ids ascend inside each leaf
    for k in range(part.n_leaves):
        ids = part.leaf_tri_ids[part.leaf_start[k] : part.leaf_start[k + 1]]
        assert np.all(np.diff(ids) > 0)
    cells = result.cells
    assert cells.ndim == 3 and cells.shape[1:] == (2, 3)
    assert cells.shape[0] == int(part.leaf_has_both().sum()) > 0
    assert np.all(cells[:, 0] <= cells[:, 1])
    if kind == "bsp":
        planes = result.planes
        assert planes.n_planes > 0
        assert np.allclose(np.linalg.norm(planes.normal, axis=1), 1.0)
        assert np.all(planes.extent > 0)
    else:
        assert result.planes.n_planes == 0


def test_octree_leaf_boxes_hold_their_triangles_centroid_or_touch(spot):
    from core.partition import octree

    part = octree.build(spot, make_params("octree", capacity=8, split_single_mesh=True))
    tris = spot.vertices[spot.faces]
    lo, hi = tris.min(axis=1), tris.max(axis=1)
    for k in range(part.n_leaves):
        ids = part.leaf_tri_ids[part.leaf_start[k] : part.leaf_start[k + 1]]
        # a triangle's box reaches every leaf it is in (within the inflation margin)
        assert np.all(lo[ids] <= part.leaf_bmax[k] + 1e-6)
        assert np.all(hi[ids] >= part.leaf_bmin[k] - 1e-6)
    assert part.stats["depth_reached"] > 2


def test_grid_cell_size_and_dims():
    mesh = sphere_mesh(10)
    part = grid_mod.build(mesh, make_params("grid", cell_size=0.5))
    assert part.stats["cell_size"] == 0.5
    assert part.stats["dims"] == (5, 5, 5)  # [-1, 1] plus the margin -> 5 cells of 0.5
    assert np.allclose(part.leaf_bmax - part.leaf_bmin, 0.5)


def test_disjoint_meshes_have_no_candidates():
    a = sphere_mesh(8)
    for kind in PARTITION_KINDS:
        result = partition_contacts(a, a, None, Pose(np.eye(3), (3.0, 0, 0)), kind=kind)
        assert result.n_contacts == 0
        assert result.n_candidates == 0, kind


def test_bad_settings_raise():
    with pytest.raises(ValueError, match="unknown partition kind"):
        make_params("quadtree")
    with pytest.raises(ValueError, match="no setting"):
        make_params("grid", max_depth=3)
    a = sphere_mesh(4)
    with pytest.raises(ValueError, match="positive"):
        partition_contacts(a, a, kind="grid", cell_size=0.0)


@pytest.mark.parametrize("kind, settings, words", [
    ("octree", {"max_depth": 10**9}, r"max_depth must be in 0\.\.21"),
    ("kdtree", {"max_depth": 65}, r"max_depth must be in 0\.\.64"),
    ("bsp", {"capacity": 0}, r"capacity must be in 1\.\."),
    ("bsp", {"n_candidates": 10**7}, "n_candidates must be in"),
    ("grid", {"cell_scale": 1e-9}, "cell_scale must be a finite number"),
    ("grid", {"cell_size": float("inf")}, "cell_size"),
])  # fmt: skip
def test_settings_past_their_caps_are_refused(kind, settings, words):
    """A recorded request replays its partition settings: huge ones grew a replay to 5.7 GB."""
    with pytest.raises(ValueError, match=words):
        make_params(kind, **settings)
    with pytest.raises(TypeError, match="must be an integer, got bool"):
        make_params("octree", max_depth=True)


def test_a_build_past_its_entry_budget_stops_before_allocating(monkeypatch):
    import core.partition.base as base

    a = sphere_mesh(4)
    with pytest.raises(ValueError, match=r"\(cell, triangle\) entries \(at most 32,000,000\)"):
        partition_contacts(a, a, kind="grid", cell_size=1e-4)
    # The tree kinds check each level's entries before making them. Under the real budget
    # this octree builds ten levels (tens of millions of entries, 5 to 9 s) before its
    # eleventh is refused; a smaller budget stops it the same way within a second.
    monkeypatch.setattr(base, "MAX_ENTRIES", 2_000_000)
    with pytest.raises(ValueError, match=r"\(cell, triangle\) entries"):
        partition_contacts(a, a, kind="octree", max_depth=21, capacity=1,
                           split_single_mesh=True)


# ----------------------------------------------------------------------------------------------
# Yu et al. 2018: AABB + space division of the overlap region.


@pytest.mark.parametrize("pose_name", list(POSES))
@pytest.mark.parametrize("cells_per_axis", [None, 3])
def test_overlap_region_soup_matches_oracle(soups, pose_name, cells_per_axis):
    from core.partition.overlap_region import OverlapRegionParams, overlap_region_contacts

    a, b, expected = soups
    params = OverlapRegionParams(cells_per_axis=cells_per_axis)
    result = overlap_region_contacts(a, b, None, POSES[pose_name], params)
    assert np.array_equal(result.pairs, expected[pose_name])
    assert result.n_tri_tests == result.n_candidates - result.n_pretest_rejected
    assert result.n_pretest_rejected > 0, "the plane pre-test must reject some candidates"


def test_overlap_region_real_meshes_and_experiment(spot_teapot, teapot):
    from core.partition.overlap_region import overlap_region_contacts
    from core.shapes import decimate_by_clustering, uv_sphere

    spot, small, pose_a, pose_b, expected = spot_teapot
    result = overlap_region_contacts(spot, small, pose_a, pose_b)
    assert np.array_equal(result.pairs, expected)
    assert result.n_binned[0] < spot.n_faces and result.n_binned[1] < small.n_faces
    assert np.all(result.region[0] <= result.region[1])
    coarse = decimate_by_clustering(teapot, 530)
    assert 480 <= coarse.n_faces <= 580
    assert uv_sphere(23).n_faces == 2024
    far = overlap_region_contacts(spot, small, None, Pose(np.eye(3), (50.0, 0, 0)))
    assert far.n_contacts == 0 and np.isnan(far.region).all()


def test_yu_experiment_methods_agree_on_every_pair(teapot, spot):
    """The benchmark's table (``python -m benchmarks.yu2018``): every row has contacts, and
    the overlap-region method, the AABB tree and the BSP report the same pairs."""
    from benchmarks.yu2018 import format_rows
    from core.partition.compare import yu_experiment

    rows = yu_experiment(teapot, spot, repeats=1)
    assert len(rows) == 8  # three spheres and spot, both ways round
    assert all(r["same"] for r in rows)
    assert all(r["contacts"] > 0 for r in rows)
    assert {r["n_b"] for r in rows[:6:2]} == {2024, 3968, 7920}
    # Fewer candidates than the product of the binned counts: the cells do divide the work.
    assert all(r["overlap_tri_tests"] < r["n_a"] * r["n_b"] / 50 for r in rows)
    table = format_rows(rows)
    assert table.count("\n") == len(rows) + 1 and " NO" not in table
