"""The bounding-volume kinds: registry, fitted and refitted volumes contain their triangles,
overlap tests are conservative, OBB fit methods, drawable records."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bv import BV_KINDS, ObbFit, fit_volumes, refit_volumes
from core.bv.kdop import DIRECTIONS
from core.bv.obb_fit import fit_method
from core.bvh import SplitRule, build_tree
from core.collide.brute import brute_force_pairs
from core.collide.bvquery import collide_bv
from core.collide.tritri import pair_in_range
from core.jit.kernel_args import frozen
from core.mesh import TriMesh
from core.pose import Pose
from tests.core.meshgen import sphere_mesh, triangle_soup

KINDS = list(BV_KINDS)


def test_registry_keys_and_fields():
    assert KINDS == ["aabb", "aabb15", "obb", "sphere", "kdop6", "kdop14", "kdop18", "kdop26",
                     "pss", "lss", "rss"]  # fmt: skip
    assert sorted(k.code for k in BV_KINDS.values()) == list(range(len(KINDS)))
    widths = {k: BV_KINDS[k].width for k in KINDS}
    assert widths["obb"] == 15 and widths["sphere"] == 4 and widths["kdop26"] == 26
    assert all(BV_KINDS[k].label and len(BV_KINDS[k].description) > 40 for k in KINDS)


def test_kdop_direction_tables():
    assert [DIRECTIONS[k].shape for k in (6, 14, 18, 26)] == [(3, 3), (7, 3), (9, 3), (13, 3)]
    for dirs in DIRECTIONS.values():
        assert np.allclose(np.linalg.norm(dirs, axis=1), 1.0)
        # No direction repeated or opposite.
        cos = np.abs(dirs @ dirs.T) - np.eye(len(dirs))
        assert cos.max() < 0.99


def distance_outside(kind: str, row: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """How far each point is outside the volume ``row`` (<= 0 inside), ``(p,) float64``."""
    return BV_KINDS[kind].distance_outside(row, pts)


def check_contains(kind, tree, mesh, vols):
    scale = np.abs(mesh.vertices).max()
    for node in range(tree.n_nodes):
        pts = mesh.vertices[mesh.faces[tree.triangles_under(node)].ravel()]
        assert distance_outside(kind, vols[node], pts).max() <= 1e-12 * scale, (kind, node)


@pytest.fixture(scope="module")
def soup_tree():
    mesh = triangle_soup(200, seed=4, clustered=True)
    return mesh, build_tree(mesh, SplitRule.SAH, 2)


@pytest.mark.parametrize("kind", KINDS)
def test_fitted_volumes_contain_every_nodes_triangles(soup_tree, kind):
    mesh, tree = soup_tree
    vols = fit_volumes(tree, mesh, kind)
    assert vols.shape == (tree.n_nodes, BV_KINDS[kind].width)
    assert fit_volumes(tree, mesh, kind) is vols, "cached per tree and mesh"
    check_contains(kind, tree, mesh, vols)
    # Children are tighter than the whole: the root is the largest volume.
    volume = BV_KINDS[kind].volume
    assert volume(vols[0]) >= max(volume(v) for v in vols[1:])


@pytest.mark.parametrize("kind", KINDS)
def test_refit_after_deformation_contains_and_exact_kinds_equal_fit(kind):
    mesh = sphere_mesh(10)
    tree = build_tree(mesh, SplitRule.MEDIAN, 3)
    z = mesh.vertices[:, 2:3]
    moved = mesh.with_vertices(mesh.vertices * (1.0 + 0.3 * np.sin(3 * np.pi * z)))
    refitted = refit_volumes(tree, moved, kind)
    check_contains(kind, tree, moved, refitted)
    fresh = fit_volumes(tree, moved, kind)
    if BV_KINDS[kind].refit_exact:
        assert np.allclose(refitted, fresh, rtol=0, atol=1e-12)
    else:
        # The sphere merge is loose: leaves equal the fit, parents grow towards the root.
        leaves = tree.count > 0
        assert np.allclose(refitted[leaves], fresh[leaves], rtol=0, atol=1e-12)
        assert refitted[0, 3] > 1.5 * fresh[0, 3]
        assert (refitted[~leaves, 3] ** 3).sum() > 1.2 * (fresh[~leaves, 3] ** 3).sum()


def _one_triangle(points):
    return TriMesh.from_arrays(np.asarray(points, dtype=float).reshape(3, 3), [[0, 1, 2]])


coords = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)


@settings(max_examples=150, deadline=None)
@given(
    pa=st.lists(coords, min_size=9, max_size=9),
    pb=st.lists(coords, min_size=9, max_size=9),
    axis=st.tuples(coords, coords, coords).filter(lambda v: np.linalg.norm(v) > 0.1),
    angle=st.floats(0.0, 3.1),
    shift=st.tuples(*[st.floats(-0.5, 0.5)] * 3),
)
def test_overlap_is_conservative(pa, pb, axis, angle, shift):
    a = _one_triangle(pa)
    b = _one_triangle(pb)
    if a.n_degenerate or b.n_degenerate:
        return
    pose = Pose.from_axis_angle(axis, angle, shift)
    if not pair_in_range(a.vertices, pose.apply(b.vertices)):
        return  # e.g. a subnormal next to 1: outside the exact triangle test's range
    touching = len(brute_force_pairs(a.vertices, a.faces, pose.apply(b.vertices), b.faces)) > 0
    ta, tb = build_tree(a), build_tree(b)
    for kind in KINDS:
        sep = BV_KINDS[kind].overlap(fit_volumes(ta, a, kind)[0], fit_volumes(tb, b, kind)[0],
                                     pose.rotation, pose.translation, 1e-12)  # fmt: skip
        if touching:
            assert sep == -1, kind


def test_overlap_reports_the_separating_axis():
    box = TriMesh.from_arrays([[0, 0, 0], [1, 0, 0], [0, 1, 0.2]], [[0, 1, 2]])
    tree = build_tree(box)
    # Read-only pose arrays, as the traversal passes them: the signatures it compiled.
    eye = frozen(np.eye(3))
    for kind in ("aabb", "aabb15", "obb"):
        row = fit_volumes(tree, box, kind)[0]
        assert BV_KINDS[kind].overlap(row, row, eye, frozen([0.0, 5.0, 0.0]), 0.0) != -1
        assert BV_KINDS[kind].overlap(row, row, eye, frozen([0.1, 0.0, 0.0]), 0.0) == -1
    row = fit_volumes(tree, box, "aabb")[0]
    assert BV_KINDS["aabb"].overlap(row, row, eye, frozen([0.0, 5.0, 0.0]), 0.0) == 1
    assert BV_KINDS["aabb"].overlap(row, row, eye, frozen([0.0, 0.0, -3.0]), 0.0) == 2


def terrible_box_mesh() -> TriMesh:
    """The closed surface of a 3 x 2 x 0.5 box plus a dense strip of tiny triangles along the
    diagonal of its top face: thousands of vertices along one direction."""
    corners = np.array([[x, y, z] for x in (0, 3) for y in (0, 2) for z in (0, 0.5)], float)
    box_faces = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                 [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]  # fmt: skip
    t = np.linspace(0.05, 0.95, 1500)
    base = np.stack([3 * t, 2 * t, np.full_like(t, 0.5)], 1)
    tiny = np.stack([base, base + [1e-3, 0, 0], base + [0, 1e-3, 0]], 1).reshape(-1, 3)
    vertices = np.concatenate([corners, tiny])
    faces = np.concatenate([box_faces, 8 + np.arange(len(tiny)).reshape(-1, 3)])
    return TriMesh.from_arrays(vertices, faces, "terrible box")


def test_surface_fit_avoids_the_terrible_box():
    mesh = terrible_box_mesh()
    tree = build_tree(mesh, SplitRule.MEDIAN, 4)
    by_vertices = fit_volumes(tree, mesh, "obb", obb_fit=ObbFit.VERTICES)
    by_surface = fit_volumes(tree, mesh, "obb", obb_fit=ObbFit.SURFACE)
    check_contains("obb", tree, mesh, by_vertices)
    check_contains("obb", tree, mesh, by_surface)
    vol_v = 8 * np.prod(by_vertices[0, 12:15])
    vol_s = 8 * np.prod(by_surface[0, 12:15])
    # The area-weighted fit finds the box itself (volume 3; the strip tilts it by 1e-4), the
    # vertex fit follows the dense diagonal strip: measured 6.0, twice the box.
    assert vol_s == pytest.approx(3.0, rel=1e-3)
    assert vol_v > 1.5 * vol_s
    main_v = by_vertices[0, 3:12].reshape(3, 3)[:, 0]
    assert abs(main_v @ np.array([3, 2, 0]) / np.sqrt(13)) > 0.99, "vertex axis = the strip"


@pytest.mark.parametrize("method", [ObbFit.HULL_VERTICES, ObbFit.HULL_SURFACE])
def test_hull_fits_ignore_the_strip_inside_the_hull(method):
    """The strip lies in the top face: not a vertex of the hull, so both hull fits (Gottschalk
    et al. 1996, section 4.1) find the box, which the plain vertex fit misses."""
    mesh = terrible_box_mesh()
    tree = build_tree(mesh, SplitRule.MEDIAN, 4)
    boxes = fit_volumes(tree, mesh, "obb", obb_fit=method)
    check_contains("obb", tree, mesh, boxes)
    assert 8 * np.prod(boxes[0, 12:15]) == pytest.approx(3.0, rel=1e-9)
    # A leaf of strip triangles is flat (they all lie in the top face): so is its box.
    leaves = [n for n in np.flatnonzero(tree.count > 0) if tree.triangles_under(n).min() >= 12]
    assert leaves and all(min(boxes[n, 12:15]) < 1e-12 for n in leaves)


@pytest.mark.parametrize("method", list(ObbFit))
def test_every_obb_fit_gives_the_oracle_pairs(method):
    rng = np.random.default_rng(11)
    a = sphere_mesh(14)
    b = a.with_vertices(a.vertices * 0.8 + rng.normal(scale=0.05, size=a.vertices.shape) + 0.5)
    tree_a, tree_b = build_tree(a, SplitRule.OBB), build_tree(b, SplitRule.OBB)
    result = collide_bv(a, tree_a, b, tree_b, bv="obb", obb_fit=method)
    expected = brute_force_pairs(a.vertices, a.faces, b.vertices, b.faces)
    assert result.n_contacts > 50
    assert np.array_equal(result.pairs, expected)


def test_obb_fit_of_a_rotated_box_is_the_box():
    mesh = terrible_box_mesh()
    keep = mesh.faces[:12]
    box = TriMesh.from_arrays(mesh.vertices[:8], keep)
    rot = Pose.from_axis_angle((1, 2, 3), 0.9)
    turned = box.with_vertices(rot.apply(box.vertices))
    tree = build_tree(turned)
    out = np.empty((tree.n_nodes, 15))
    for method in ObbFit:
        fit_method(turned.vertices, turned.faces, tree.prim_ids, tree.prim_start, tree.n_prims,
                   out, int(method))  # fmt: skip
        assert sorted(2 * out[0, 12:15]) == pytest.approx([0.5, 2.0, 3.0], rel=1e-9)


@pytest.mark.parametrize("kind", KINDS)
def test_wire_records(soup_tree, kind):
    mesh, tree = soup_tree
    vols = fit_volumes(tree, mesh, kind)
    rec = BV_KINDS[kind].wire(vols[:5])
    if rec["kind"] == "box":
        assert rec["corners"].shape == (5, 8, 3)
        # The corners lie on the volume's boundary.
        for row, c in zip(vols[:5], rec["corners"]):
            assert np.abs(distance_outside(kind, row, c)).max() < 1e-9
    elif rec["kind"] == "sphere":
        assert rec["centers"].shape == (5, 3) and rec["radii"].shape == (5,)
    elif rec["kind"] == "polytope":
        assert len(rec["faces"]) == 5
        for row, polys in zip(vols[:5], rec["faces"]):
            pts = np.concatenate(polys)
            assert len(polys) >= 6
            assert np.abs(distance_outside(kind, row, pts)).max() < 1e-9
    else:
        assert rec["kind"] == "swept" and rec["corners"].shape == (5, 4, 3)
        assert rec["radii"].shape == (5,)


@pytest.mark.parametrize("method", [ObbFit.HULL_VERTICES, ObbFit.HULL_SURFACE])
def test_bottom_up_hull_fit_equals_the_per_node_hulls(spot, method):
    """fit_volumes builds each node's hull from its children's hull vertices; the boxes must be
    those of the hull of all the node's vertices (fit_method), up to the hull's tolerance."""
    from core.bv.obb_fit import fit_hull_bottom_up

    tree = build_tree(spot, SplitRule.OBB)
    args = (spot.vertices, spot.faces, tree.prim_ids, tree.prim_start, tree.n_prims)
    direct = np.empty((tree.n_nodes, 15))
    fit_method(*args, direct, int(method))
    bottom_up = np.empty((tree.n_nodes, 15))
    fit_hull_bottom_up(*args, tree.first, tree.count, tree.level_nodes, tree.level_start,
                       bottom_up, int(method))  # fmt: skip
    check_contains("obb", tree, spot, bottom_up)
    vol_direct = np.prod(direct[:, 12:15], axis=1)
    vol_bottom_up = np.prod(bottom_up[:, 12:15], axis=1)
    is_same = np.isclose(vol_bottom_up, vol_direct, rtol=1e-6, atol=1e-12)
    # A point within the hull's tolerance of a face may or may not be a hull vertex depending
    # on the other points: the vertex covariance then moves a little (measured: 2 nodes of
    # 11,711 on spot, under 1 % of volume). The surface integral does not see such points.
    assert is_same.mean() > 0.999
    np.testing.assert_allclose(vol_bottom_up, vol_direct, rtol=0.02, atol=1e-12)
    if method == ObbFit.HULL_SURFACE:
        assert is_same.all()
    np.testing.assert_array_equal(fit_volumes(tree, spot, "obb", obb_fit=method), bottom_up)
