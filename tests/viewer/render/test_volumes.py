"""Every bounding-volume kind, partition and the distance line, drawn from real frames."""

from __future__ import annotations

import numpy as np
import pytest

from core.bv.kdop import faces as kdop_faces
from core.bv.sphere import POLYLINES_PER_VOLUME as POLYLINES_PER_SPHERE
from core.bv.ssv import POLYLINES_PER_VOLUME as POLYLINES_PER_SWEPT
from viewer.render.overlays import build_overlays
from viewer.render.volumes import planes_polydata
from viewer.state.display import Display

LEVEL = 4


@pytest.fixture(scope="module")
def scene(qapp):
    """A model and an inline controller on the two-spheres scene."""
    from viewer.controller import Controller
    from viewer.model import ViewerModel

    model = ViewerModel()
    controller = Controller(model, is_threaded=False)
    assert controller.scenes.load_scene("two-spheres")
    yield model, controller
    model.set_pipeline(bv="aabb", partition="none")


def _frame(scene, **pipeline):
    model, _ = scene
    model.set_pipeline(**{"bv": "aabb", "partition": "none", **pipeline})
    return model.frame


# cells per drawn volume of each kind (k-DOPs: one polyline per face, checked separately)
PER_VOLUME = {"aabb": 12, "obb": 12, "sphere": POLYLINES_PER_SPHERE, "pss": POLYLINES_PER_SWEPT,
              "lss": POLYLINES_PER_SWEPT, "rss": POLYLINES_PER_SWEPT}


@pytest.mark.parametrize("bv", list(PER_VOLUME))
def test_each_kind_draws_its_volumes_at_a_level(scene, bv):
    frame = _frame(scene, bv=bv)
    assert frame.volumes.name == bv
    out = build_overlays(frame, Display(show_culled=True), LEVEL)
    n_nodes = frame.trees[0].nodes_at_depth(LEVEL).shape[0]
    assert out.polys["tree_a"].n_cells == PER_VOLUME[bv] * n_nodes
    pairs, overlapped = frame.result.trace.level(LEVEL)
    assert out.polys["overlap"].n_cells == 2 * PER_VOLUME[bv] * int(overlapped.sum())
    assert out.polys["culled"].n_cells == 2 * PER_VOLUME[bv] * int((~overlapped).sum())


def test_kinds_find_the_same_contacts_with_their_own_test_counts(scene):
    counts = {}
    pairs = None
    for bv in ("aabb", "obb", "sphere", "kdop14", "rss"):
        frame = _frame(scene, bv=bv)
        counts[bv] = frame.result.counters.n_bv_tests
        if pairs is None:
            pairs = frame.result.pairs
        np.testing.assert_array_equal(frame.result.pairs, pairs)
    assert pairs.shape[0] > 0
    # Spheres are loose on the flat patches of a sphere mesh: more tests than the OBBs.
    assert counts["sphere"] > counts["obb"]


def test_sphere_circles_lie_at_the_radius(scene):
    frame = _frame(scene, bv="sphere")
    out = build_overlays(frame, Display(show_tree_b=False, show_overlap=False), 0)
    row = np.asarray(frame.volumes.rows[0])[0]
    pose = np.asarray(frame.poses[0].as_matrix())
    center = pose[:3, :3] @ row[:3] + pose[:3, 3]
    points = np.asarray(out.polys["tree_a"].points)
    np.testing.assert_allclose(np.linalg.norm(points - center, axis=1), row[3], rtol=1e-9)


@pytest.mark.parametrize("n", [6, 14])
def test_kdop_faces_match_the_core_polytopes(scene, n):
    from core.bv.kdop import DIRECTIONS, polytope_faces

    frame = _frame(scene, bv=f"kdop{n}")
    rows = np.asarray(frame.volumes.rows[0])
    for node in (0, 7):
        ours = kdop_faces(rows[node], DIRECTIONS[n])
        theirs = polytope_faces(rows[node], DIRECTIONS[n])
        assert len(ours) == len(theirs) >= 6
        for a, b in zip(ours, theirs):
            # The same loop, in the same direction; it may start at another corner.
            start = int(np.argmin(np.linalg.norm(a - b[0], axis=1)))
            np.testing.assert_allclose(np.roll(a, -start, axis=0), b, atol=1e-12)
    out = build_overlays(frame, Display(show_tree_b=False, show_overlap=False), LEVEL)
    ids = frame.trees[0].nodes_at_depth(LEVEL)
    n_faces = sum(len(kdop_faces(rows[i], DIRECTIONS[n])) for i in ids)
    assert out.polys["tree_a"].n_cells == n_faces
    if n == 6:  # a 6-DOP is a box: six faces each
        assert n_faces == 6 * ids.shape[0]


def test_batched_kdop_polygons_equal_one_row_at_a_time():
    from core.bv.kdop import DIRECTIONS
    from core.bv.kdop import polygons as kdop_polygons

    rng = np.random.default_rng(3)
    for n in (6, 14, 18, 26):
        dirs = DIRECTIONS[n]
        proj = (rng.normal(size=(25, 12, 3)) * rng.uniform(0.1, 3.0, (25, 1, 1))) @ dirs.T
        rows = np.concatenate([proj.min(axis=1), proj.max(axis=1)], axis=1)
        rows[3] = rows[3, :1].repeat(rows.shape[1])  # a flat (zero-extent) k-DOP: no faces
        points, sizes = kdop_polygons(rows, dirs)
        one_by_one = [f for r in rows for f in kdop_faces(r, dirs)]
        assert [f.shape[0] for f in one_by_one] == sizes.tolist()
        np.testing.assert_array_equal(np.concatenate(one_by_one), points)
        assert sizes.shape[0] >= 24 * 6


@pytest.mark.parametrize("kind", ["grid", "octree", "kdtree", "bsp"])
def test_partition_cells_and_planes_are_drawn(scene, kind):
    frame = _frame(scene, partition=kind)
    part = frame.partition
    assert part is not None and part.n_candidates > 0
    np.testing.assert_array_equal(part.pairs, frame.result.pairs)
    out = build_overlays(frame, Display(), LEVEL)
    assert out.polys["partition_cells"].n_cells == 12 * part.cells.shape[0]
    n_planes = 0
    if part.planes.n_planes:
        n_planes = int(np.count_nonzero(part.planes.has_both & (part.planes.depth <= LEVEL)))
    assert out.polys["partition_planes"].n_cells == 4 * n_planes
    assert (n_planes > 0) == (kind == "bsp")
    assert any(f"{part.n_candidates:,} candidate" in note for note in out.notes)
    if kind == "bsp":  # every plane once the slider is at "all levels"
        every = build_overlays(frame, Display(), None).polys["partition_planes"].n_cells
        assert every == 4 * int(np.count_nonzero(part.planes.has_both)) > 4 * n_planes


def test_planes_polydata_squares_lie_in_their_planes():
    poly = planes_polydata(np.array([[0.0, 0.0, 1.0]]), np.array([[0.0, 0.0, 1.0]]),
                           np.array([2.0]), None)
    assert poly.n_cells == 4 and poly.n_points == 4
    np.testing.assert_allclose(poly.points[:, 2], 1.0)
    np.testing.assert_allclose(np.abs(poly.points[:, :2]).max(), 2.0)


def test_distance_line_joins_the_closest_points_when_apart(scene):
    from core.distance import brute_force_distance

    model, _ = scene
    frame = _frame(scene)
    assert frame.distance is None  # touching: no distance line
    pose = np.array(model.bodies[1].pose)
    pose[0, 3] += 2.5
    model.set_pose(1, pose)
    try:
        frame = model.frame
        assert frame.result.counters.n_contacts == 0
        dist = frame.distance
        va = frame.poses[0].apply(frame.meshes[0].vertices)
        vb = frame.poses[1].apply(frame.meshes[1].vertices)
        fa, fb = frame.meshes[0].faces, frame.meshes[1].faces
        # The all-pairs oracle on the triangles that can matter: a pair closer than d has a
        # triangle of A whose centroid is within d + 2 * longest edge of a vertex of B (and
        # the other way round); the full 3M-pair sweep takes about 20 s.
        reach = dist.distance + 2.0 * max(
            np.linalg.norm(v[f] - v[np.roll(f, 1, axis=1)], axis=2).max()
            for v, f in ((va, fa), (vb, fb)))  # fmt: skip

        def near(v, f, other):
            c = v[f].mean(axis=1)
            gap = np.sqrt(((c[:, None, :] - other[None]) ** 2).sum(axis=2)).min(axis=1)
            return f[gap <= reach]

        sub_a, sub_b = near(va, fa, vb), near(vb, fb, va)
        assert 0 < sub_a.shape[0] < fa.shape[0] and 0 < sub_b.shape[0] < fb.shape[0]
        expected = brute_force_distance(va, sub_a, vb, sub_b)
        assert dist.distance == pytest.approx(float(expected[0]), rel=1e-9)
        assert np.linalg.norm(dist.point_b - dist.point_a) == pytest.approx(dist.distance)
        out = build_overlays(frame, Display(), LEVEL)
        poly = out.polys["distance"]
        assert poly.n_lines == 1 and poly.n_verts == 2
        np.testing.assert_allclose(poly.points, [dist.point_a, dist.point_b])
        assert any(f"{dist.distance:.4g}" in note for note in out.notes)
    finally:
        pose[0, 3] -= 2.5
        model.set_pose(1, pose)


def test_polytope_volume_of_a_box_and_of_a_cut_cube():
    from core.bv.kdop import DIRECTIONS, polytope_volume

    box = np.array([0.0, 0.0, 0.0, 1.0, 2.0, 3.0])
    assert polytope_volume(kdop_faces(box, DIRECTIONS[6])) == pytest.approx(6.0, rel=1e-6)
    # The cube [-1, 1]^3 cut by the four diagonal slabs |d . x| <= 2 / sqrt(3) (unit d): each
    # of the 8 corners loses a tetrahedron of legs 1, volume 1/6: a cuboctahedron (the cuts
    # meet at the edge midpoints), 6 squares and 8 triangles.
    half = np.array([1.0, 1.0, 1.0] + [2.0 / np.sqrt(3.0)] * 4)
    faces = kdop_faces(np.concatenate([-half, half]), DIRECTIONS[14])
    assert sorted(len(f) for f in faces) == [3] * 8 + [4] * 6
    assert polytope_volume(faces) == pytest.approx(8.0 - 8.0 / 6.0, rel=1e-6)
