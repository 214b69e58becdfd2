"""Tree quality metrics (core.bvh.metrics): hand-computed values on small trees, the SAH of
core.bvh.quality, EPO against a plain-Python brute force for every kind that has it."""

import math

import numpy as np
import pytest

from core.bv import BV_KINDS, fit_volumes
from core.bvh import SplitRule, build_tree, sah_cost
from core.bvh.metrics import CostConstants, TreeQuality, tree_quality
from core.bvh.shape_measures import SWEPT_EPO_NOTE, SWEPT_OVERLAP_NOTE
from core.mesh import TriMesh
from tests.core.meshgen import sphere_mesh, triangle_soup

SQRT2 = math.sqrt(2.0)


def _mesh(triangles) -> TriMesh:
    corners = np.asarray(triangles, dtype=np.float64).reshape(-1, 3)
    return TriMesh.from_arrays(corners, np.arange(corners.shape[0]).reshape(-1, 3), "hand")


def _two_cubes():
    """T0 = (0,0,0) (2,2,0) (0,0,2): box [0,2]^3, area 2 sqrt 2 (|(2,2,0) x (0,0,2)| = |(4,-4,0)|
    = 4 sqrt 2, halved). T1 = (1,1,1) (3,1,1) (3,3,3): box [1,3]^3, area 2 sqrt 2
    (|(2,0,0) x (2,2,2)| = |(0,-4,4)|). Root box [0,3]^3."""
    mesh = _mesh([[[0, 0, 0], [2, 2, 0], [0, 0, 2]], [[1, 1, 1], [3, 1, 1], [3, 3, 3]]])
    tree = build_tree(mesh, SplitRule.MIDPOINT, 1)
    assert tree.n_nodes == 3 and tree.count.tolist() == [0, 1, 1]
    return mesh, tree


def test_two_triangles_by_hand():
    mesh, tree = _two_cubes()
    q = tree_quality(mesh, tree)
    # SAH: root area 6 * 3^2 = 54; each leaf 6 * 2^2 = 24 holding one triangle:
    # (1 * 54 + 1 * 24 * 1 + 1 * 24 * 1) / 54 = 102 / 54.
    assert q.sah == pytest.approx(102 / 54, rel=1e-14)
    assert q.nodes.sah.tolist() == pytest.approx([1.0, 24 / 54, 24 / 54], rel=1e-14)
    # EPO: T1 = (1,1,1) + s (2,0,0) + t (2,2,2) lies in [0,2]^3 where 1 + 2s + 2t <= 2 and
    # 1 + 2t <= 2: s + t <= 1/2, a copy of T1 scaled by 1/2, area 2 sqrt 2 / 4 = sqrt 2 / 2.
    # T0 = s (2,2,0) + t (0,0,2) in [1,3]^3 needs s >= 1/2 and t >= 1/2: one point, area 0.
    # EPO = C_i (sqrt 2 / 2) / A(S) = (sqrt 2 / 2) / (4 sqrt 2) = 1/8.
    assert q.epo == pytest.approx(1 / 8, rel=1e-12)
    leaf_of_t0 = 1 if tree.prim_ids[tree.first[1]] == 0 else 2
    assert q.nodes.epo[leaf_of_t0] == pytest.approx(1 / 8, rel=1e-12)
    assert q.nodes.epo[0] == 0.0 and q.nodes.epo[3 - leaf_of_t0] == pytest.approx(0.0, abs=1e-15)
    # Sibling overlap: [0,2]^3 ∩ [1,3]^3 = [1,2]^3, volume 1, over the root's 27.
    assert q.sibling_overlap == pytest.approx(1 / 27, rel=1e-14)
    assert q.nodes.sibling_overlap[0] == pytest.approx(1 / 27, rel=1e-14)
    assert np.isnan(q.nodes.sibling_overlap[1:]).all()
    assert q.nodes.volume.tolist() == [27.0, 8.0, 8.0]
    assert q.nodes.area.tolist() == [54.0, 24.0, 24.0]


def test_constants_weigh_the_terms():
    mesh, tree = _two_cubes()
    q = tree_quality(mesh, tree, constants=CostConstants(traversal=2.0, intersection=3.0))
    # (2 * 54 + 3 * 24 + 3 * 24) / 54 = 252 / 54; EPO's only term is a leaf's: 3 * 1/8.
    assert q.sah == pytest.approx(252 / 54, rel=1e-14)
    assert q.epo == pytest.approx(3 / 8, rel=1e-12)
    assert q.to_json()["constants"] == {"traversal": 2.0, "intersection": 3.0}


def test_flat_square_each_leaf_holds_the_other_triangle():
    # Unit square cut on its diagonal: both leaf boxes are the square [0,1]^2 x {0}, so each
    # holds the other triangle whole (area 1/2). A(S) = 1: EPO = C_i (1/2 + 1/2) / 1 = 1.
    # SAH: every box has area 2 * (1 * 1) = 2: (2 + 2 * 1 + 2 * 1) / 2 = 3.
    mesh = _mesh([[[0, 0, 0], [1, 0, 0], [1, 1, 0]], [[0, 0, 0], [1, 1, 0], [0, 1, 0]]])
    tree = build_tree(mesh, SplitRule.MEDIAN, 1)
    q = tree_quality(mesh, tree)
    assert q.epo == pytest.approx(1.0, rel=1e-12)
    assert q.sah == pytest.approx(3.0, rel=1e-14)
    # Flat boxes have volume 0: the ratio is undefined, not 0.
    assert np.isnan(q.sibling_overlap) and np.isnan(q.nodes.sibling_overlap).all()


def _four_apart():
    """Four unit right triangles in the plane z = x (so no box is flat), two near the
    origin and two near x = 10: root, two internal nodes, four leaves (7 nodes)."""
    tris = []
    for x0 in (0.0, 3.0, 10.0, 13.0):
        tris.append([[x0, 0, x0], [x0 + 1, 0, x0 + 1], [x0, 1, x0]])
    mesh = _mesh(tris)
    return mesh, build_tree(mesh, SplitRule.MIDPOINT, 1)


def test_epo_is_zero_without_foreign_triangles_and_histograms():
    mesh, tree = _four_apart()
    assert tree.n_nodes == 7
    for bv in ("aabb", "obb", "kdop14", "sphere"):
        q = tree_quality(mesh, tree, bv)
        assert q.epo == pytest.approx(0.0, abs=1e-15), bv
        assert q.depth_histogram.tolist() == [0, 0, 4]
        assert q.leaf_size_histogram.tolist() == [0, 4]
        assert q.depth_histogram.sum() == q.n_leaves == q.leaf_size_histogram.sum() == 4
        assert (q.depth_min, q.depth_max, q.n_nodes) == (2, 2, 7)


@pytest.mark.parametrize("split", list(SplitRule))
def test_sah_matches_the_drift_measure(spot, split):
    tree = build_tree(spot, split, 4)
    q = tree_quality(spot, tree)
    assert q.sah == pytest.approx(sah_cost(tree.bmin, tree.bmax, tree.count), rel=1e-12)
    assert q.sah == pytest.approx(q.nodes.sah.sum(), rel=1e-12)
    assert q.depth_histogram.sum() == q.n_leaves == q.leaf_size_histogram.sum()
    assert q.leaf_size_histogram.shape == (tree.count.max() + 1,)
    assert q.depth_histogram.shape == (q.depth_max + 1,)
    assert int((q.leaf_size_histogram * np.arange(q.leaf_size_histogram.size)).sum()) == 5856


def test_worst_order_and_bad_names():
    mesh, tree = _two_cubes()
    q = tree_quality(mesh, tree)
    assert q.worst("sah").tolist() == [0, 1, 2]  # 1 > 24/54 = 24/54: ties in node order
    assert q.worst("sibling_overlap").tolist() == [0]  # the leaves' NaN are skipped
    assert q.worst("volume", 1).tolist() == [0]
    assert q.worst("epo").dtype == np.int32
    with pytest.raises(ValueError, match="unknown metric 'sha'"):
        q.worst("sha")
    assert TreeQuality.METRICS == ("sah", "epo", "sibling_overlap", "volume")


def test_worst_is_sorted_on_a_real_tree(spot):
    q = tree_quality(spot, build_tree(spot))
    for metric in q.METRICS:
        ids = q.worst(metric, 50)
        values = getattr(q.nodes, metric)[ids]
        assert (np.diff(values) <= 0).all() and not np.isnan(values).any()
        rest = np.delete(getattr(q.nodes, metric), ids)
        assert not (rest[~np.isnan(rest)] > values[-1]).any()


@pytest.mark.parametrize(("field", "value"), [("traversal", 0.0), ("intersection", -1.0),
                                              ("traversal", math.inf), ("intersection", math.nan),
                                              ("traversal", "x")])  # fmt: skip
def test_bad_constants_name_the_field(field, value):
    with pytest.raises(ValueError, match=f"cost constant {field}"):
        CostConstants(**{field: value})


def test_bad_kind_and_mismatched_mesh():
    mesh, tree = _two_cubes()
    with pytest.raises(ValueError, match="unknown bounding volume 'cube'"):
        tree_quality(mesh, tree, "cube")
    other = sphere_mesh(4)
    with pytest.raises(ValueError, match="tree has 2 triangles"):
        tree_quality(other, tree)
    with pytest.raises(ValueError, match="volumes must have shape"):
        tree_quality(mesh, tree, "obb", volumes=np.zeros((3, 6)))


def test_json_is_strict_and_lists_ten_worst(spot):
    import json

    q = tree_quality(spot, build_tree(spot), "rss")
    out = q.to_json()
    json.dumps(out, allow_nan=False)
    assert out["epo"] is None and out["epo_note"] == SWEPT_EPO_NOTE
    assert out["sibling_overlap"] is None and out["sibling_overlap_note"] == SWEPT_OVERLAP_NOTE
    assert out["worst"]["epo"] == []
    assert len(out["worst"]["sah"]) == 10
    first = out["worst"]["sah"][0]
    assert first == {"node": 0, "depth": 0, "triangles": 5856, "value": 1.0}


def test_memory_counts_the_kinds_rows(spot):
    tree = build_tree(spot)
    boxes = tree_quality(spot, tree)
    obbs = tree_quality(spot, tree, "obb")
    assert obbs.memory_bytes - boxes.memory_bytes == tree.n_nodes * 15 * 8
    assert boxes.mesh_bytes == spot.vertices.nbytes + spot.faces.nbytes


def test_given_volumes_are_used():
    mesh, tree = _two_cubes()
    rows = np.array(fit_volumes(tree, mesh, "sphere"))
    rows[:, 3] *= 2.0
    q = tree_quality(mesh, tree, "sphere", volumes=rows)
    assert q.nodes.volume == pytest.approx(4 / 3 * np.pi * rows[:, 3] ** 3)


# -- EPO against a plain-Python brute force -----------------------------------------------------


def _clip_python(poly, normal, offset):
    """Sutherland-Hodgman written out in plain Python on lists of 3-tuples."""
    out = []
    for i, cur in enumerate(poly):
        prev = poly[i - 1]
        dc = sum(n * c for n, c in zip(normal, cur)) - offset
        dp = sum(n * c for n, c in zip(normal, prev)) - offset
        if (dc <= 0) != (dp <= 0):
            t = dp / (dp - dc)
            out.append(tuple(p + t * (c - p) for p, c in zip(prev, cur)))
        if dc <= 0:
            out.append(tuple(cur))
    return out


def _area_python(poly):
    if len(poly) < 3:
        return 0.0
    o = np.array(poly[0])
    s = sum(np.cross(np.array(a) - o, np.array(b) - o) for a, b in zip(poly[1:-1], poly[2:]))
    return 0.5 * float(np.linalg.norm(s))


def _planes(kind, row):
    """The half-spaces of one volume, written from the row layouts of core.bv."""
    if kind.is_tree_box:
        return [(tuple(e), row[3 + i]) for i, e in enumerate(np.eye(3))] + \
               [(tuple(-e), -row[i]) for i, e in enumerate(np.eye(3))]  # fmt: skip
    if kind.name == "obb":
        c, axes, h = row[:3], row[3:12].reshape(3, 3), row[12:15]
        return [(tuple(s * axes[:, j]), s * axes[:, j] @ c + h[j]) for j in range(3)
                for s in (1.0, -1.0)]  # fmt: skip
    dirs = kind.parameters["directions"]
    nd = dirs.shape[0]
    return [(tuple(dirs[i]), row[nd + i]) for i in range(nd)] + \
           [(tuple(-dirs[i]), -row[i]) for i in range(nd)]  # fmt: skip


def _brute_epo(mesh, tree, kind, rows, constants):
    """Every node against every triangle not under it, with no tree walk and no pruning
    but a bounding-box test of the pair."""
    from core.bvh.epo import triangle_ball_area

    tris = mesh.vertices[mesh.faces]
    surface = 0.5 * np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]),
                                   axis=1).sum()  # fmt: skip
    tri_lo, tri_hi = tris.min(axis=1), tris.max(axis=1)
    is_ball = kind.name in ("sphere", "pss")
    total = 0.0
    for node in range(tree.n_nodes):
        own = set(tree.triangles_under(node).tolist())
        row = rows[node]
        if is_ball:
            centre, radius = row[:3], row[3] if kind.name == "sphere" else row[14]
            lo, hi = centre - radius, centre + radius
        else:
            planes = _planes(kind, row)
            lo, hi = _row_box(kind, row)
        near = np.flatnonzero(np.all(tri_hi >= lo, axis=1) & np.all(tri_lo <= hi, axis=1))
        area = 0.0
        for t in near:
            if t in own:
                continue
            if is_ball:
                area += triangle_ball_area(tuple(tris[t, 0]), tuple(tris[t, 1]),
                                           tuple(tris[t, 2]), *centre, radius)  # fmt: skip
                continue
            poly = [tuple(p) for p in tris[t]]
            for normal, offset in planes:
                poly = _clip_python(poly, normal, offset)
                if not poly:
                    break
            area += _area_python(poly)
        cost = constants.intersection if tree.count[node] > 0 else constants.traversal
        total += cost * area
    return total / surface


def _row_box(kind, row):
    """The axis-aligned box around one polytope row (pre-filter of the brute force)."""
    if kind.is_tree_box:
        return row[:3], row[3:6]
    if kind.name == "obb":
        reach = np.abs(row[3:12].reshape(3, 3)) @ row[12:15]
        return row[:3] - reach, row[:3] + reach
    nd = kind.parameters["directions"].shape[0]
    return row[:3], row[nd : nd + 3]


EPO_KINDS = [name for name in BV_KINDS if name not in ("lss", "rss")]


@pytest.mark.parametrize("bv", EPO_KINDS)
def test_epo_kernel_equals_brute_force(bv):
    mesh = triangle_soup(200, seed=3, size=0.1)
    tree = build_tree(mesh, SplitRule.MIDPOINT, 2)
    constants = CostConstants(traversal=1.5, intersection=0.75)
    q = tree_quality(mesh, tree, bv, constants)
    kind = BV_KINDS[bv]
    rows = (np.concatenate([tree.bmin, tree.bmax], axis=1) if kind.is_tree_box
            else np.asarray(fit_volumes(tree, mesh, bv)))  # fmt: skip
    assert q.epo > 0.0
    assert q.epo == pytest.approx(_brute_epo(mesh, tree, kind, rows, constants), rel=1e-9)


@pytest.mark.parametrize("bv", ["lss", "rss"])
def test_swept_spheres_have_no_epo_and_say_why(bv):
    mesh, tree = _two_cubes()
    q = tree_quality(mesh, tree, bv)
    assert np.isnan(q.epo) and q.epo_note == SWEPT_EPO_NOTE
    assert np.isnan(q.nodes.epo).all() and np.isnan(q.nodes.sibling_overlap).all()
    assert np.isfinite(q.sah) and (q.nodes.volume >= 0).all() and q.nodes.volume[0] > 0


# -- the geometry under the measures ------------------------------------------------------------


def test_obb_sibling_overlap_of_a_cube_and_its_45_degree_turn():
    """Two cubes [-1, 1]^3 about the origin, one turned 45 degrees about z: they meet in a
    regular octagonal prism of inradius 1 and height 2, volume 8 tan(pi/8) * 2 =
    16 (sqrt 2 - 1); the parent box is taken as the cube [-2, 2]^3, volume 64."""
    from core.bv.obb import shape
    from core.bvh.shape_measures import _oriented_boxes

    c, s = math.cos(math.pi / 4), math.sin(math.pi / 4)
    turned = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    rows = np.zeros((3, 15))
    for i, (axes, half) in enumerate([(np.eye(3), 2.0), (np.eye(3), 1.0), (turned, 1.0)]):
        rows[i, 3:12] = axes.ravel()
        rows[i, 12:15] = half
    shapes = _oriented_boxes(shape(rows), np.array([1]), np.array([2]))
    assert shapes.overlap_volume[0] == pytest.approx(16 * (SQRT2 - 1), rel=1e-12)
    assert shapes.volume.tolist() == [64.0, 8.0, 8.0]
    assert shapes.area.tolist() == [96.0, 24.0, 24.0]
    # A box and itself: the coincident faces count once.
    same = _oriented_boxes(shape(rows), np.array([1]), np.array([1]))
    assert same.overlap_volume[0] == pytest.approx(8.0, rel=1e-12)


@pytest.mark.parametrize("n", [6, 14, 18, 26])
def test_kdop_area_and_volume_equal_the_face_solver(spot, n):
    from core.bv.kdop import DIRECTIONS, faces, shape_volume

    tree = build_tree(spot)
    q = tree_quality(spot, tree, f"kdop{n}")
    rows = np.asarray(fit_volumes(tree, spot, f"kdop{n}"))
    pick = np.r_[0:5, tree.n_nodes - 5 : tree.n_nodes]
    # The viewer's solver snaps corners to a grid of 1e-9 of the polytope's size (to merge the
    # corners several plane triples meet in), so it agrees to about that.
    assert q.nodes.volume[pick] == pytest.approx(shape_volume(rows[pick], DIRECTIONS[n]),
                                                 rel=1e-7)  # fmt: skip
    for node in pick:
        polys = faces(rows[node], DIRECTIONS[n])
        area = sum(0.5 * np.linalg.norm(np.cross(p, np.roll(p, -1, axis=0)).sum(axis=0))
                   for p in polys)  # fmt: skip
        assert q.nodes.area[node] == pytest.approx(area, rel=1e-7)


def test_kdop6_is_the_box():
    mesh, tree = _two_cubes()
    boxes, dop = tree_quality(mesh, tree), tree_quality(mesh, tree, "kdop6")
    for name in ("volume", "area", "sah", "sibling_overlap", "epo"):
        assert getattr(dop.nodes, name) == pytest.approx(getattr(boxes.nodes, name), rel=1e-12,
                                                         nan_ok=True)  # fmt: skip


def test_triangle_inside_a_ball_by_hand():
    from core.bvh.epo import triangle_ball_area

    a, b, c = (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)
    # Whole triangle inside: its area 1/2.
    assert triangle_ball_area(a, b, c, 0.2, 0.2, 0.0, 5.0) == pytest.approx(0.5, rel=1e-14)
    # A ball of radius 0.5 at height 0.3 cuts the plane in a disc of radius
    # sqrt(0.25 - 0.09) = 0.4; about (2, 2) it lies inside the big triangle: pi 0.16.
    big = (0.0, 0.0, 0.0), (10.0, 0.0, 0.0), (0.0, 10.0, 0.0)
    assert triangle_ball_area(*big, 2.0, 2.0, 0.3, 0.5) == pytest.approx(np.pi * 0.16, rel=1e-12)
    # Centre on the edge y = 0 of the big triangle: half the disc, pi 0.16 / 2.
    assert triangle_ball_area(*big, 2.0, 0.0, -0.3, 0.5) == pytest.approx(np.pi * 0.08, rel=1e-12)
    # Centre on the right-angle corner: a quarter disc.
    assert triangle_ball_area(*big, 0.0, 0.0, 0.0, 1.0) == pytest.approx(np.pi / 4, rel=1e-12)
    # Too far from the plane, and a degenerate triangle: nothing.
    assert triangle_ball_area(a, b, c, 0.2, 0.2, 0.6, 0.5) == 0.0
    assert triangle_ball_area(a, a, c, 0.0, 0.0, 0.0, 1.0) == 0.0


def test_triangle_inside_a_ball_against_a_fine_polygon():
    """Random triangles against discs drawn as 4096-gons (area-preserving radius): the disc
    clipped by the triangle's three sides in plain Python."""
    from core.bvh.epo import triangle_ball_area

    rng = np.random.default_rng(7)
    n_sides = 4096
    angles = 2 * np.pi * np.arange(n_sides) / n_sides
    stretch = math.sqrt(2 * np.pi / (n_sides * math.sin(2 * np.pi / n_sides)))
    for _ in range(12):
        tri = rng.uniform(-1, 1, (3, 3))
        tri[:, 2] = 0.0
        centre = rng.uniform(-0.7, 0.7, 3)
        radius = rng.uniform(0.3, 1.2)
        if abs(centre[2]) >= radius:
            continue
        rho = math.sqrt(radius**2 - centre[2] ** 2) * stretch
        poly = [(centre[0] + rho * math.cos(t), centre[1] + rho * math.sin(t), 0.0)
                for t in angles]  # fmt: skip
        normal = np.cross(tri[1] - tri[0], tri[2] - tri[0])
        for i in range(3):
            a, b = tri[i], tri[(i + 1) % 3]
            out = np.cross(b - a, normal)  # outward when the triangle turns about +normal
            poly = _clip_python(poly, tuple(out), float(out @ a))
            if not poly:
                break
        expected = _area_python(poly)
        got = triangle_ball_area(tuple(tri[0]), tuple(tri[1]), tuple(tri[2]), *centre, radius)
        assert got == pytest.approx(expected, rel=1e-5, abs=1e-6)


def test_lens_volume_by_hand():
    from core.bvh.shape_measures import lens_volume

    # Two unit balls with centres 1 apart: 2 caps of height 1/2, pi h^2 (3r - h)/3 each:
    # 2 * pi/4 * 2.5/3 = 5 pi / 12.
    got = lens_volume(np.array([1.0, 1.0, 1.0, 2.0]), np.array([1.0, 1.0, 0.5, 0.5]),
                      np.array([1.0, 2.0, 0.2, 0.0]))  # fmt: skip
    assert got == pytest.approx([5 * np.pi / 12, 0.0, 4 / 3 * np.pi / 8, 4 / 3 * np.pi / 8])


def test_sphere_sibling_overlap_uses_the_lens():
    mesh, tree = _two_cubes()
    rows = np.asarray(fit_volumes(tree, mesh, "sphere"))
    q = tree_quality(mesh, tree, "sphere")
    from core.bvh.shape_measures import lens_volume

    lens = lens_volume(rows[1:2, 3], rows[2:3, 3], np.linalg.norm(rows[1:2, :3] - rows[2:3, :3],
                                                                   axis=1))  # fmt: skip
    assert q.sibling_overlap == pytest.approx(lens[0] / (4 / 3 * np.pi * rows[0, 3] ** 3))
    assert 0.0 < q.sibling_overlap < 1.0


def test_one_leaf_tree():
    mesh, _ = _two_cubes()
    tree = build_tree(mesh, SplitRule.MIDPOINT, 8)
    assert tree.n_nodes == 1
    q = tree_quality(mesh, tree, "obb")
    # One leaf with both triangles: SAH = C_i * 2; nothing is foreign to the root.
    assert q.sah == pytest.approx(2.0) and q.epo == 0.0
    assert np.isnan(q.sibling_overlap) and q.worst("sibling_overlap").size == 0
    assert q.depth_histogram.tolist() == [1] and q.leaf_size_histogram.tolist() == [0, 0, 1]


def test_mesh_without_area_has_no_epo():
    from core.bvh.metrics import FLAT_MESH_NOTE

    # Two triangles squashed onto a line: every area is 0, every ratio counts as 1.
    mesh = _mesh([[[0, 0, 0], [1, 0, 0], [2, 0, 0]], [[3, 0, 0], [4, 0, 0], [5, 0, 0]]])
    tree = build_tree(mesh, SplitRule.MIDPOINT, 1)
    q = tree_quality(mesh, tree)
    assert np.isnan(q.epo) and q.epo_note == FLAT_MESH_NOTE
    assert q.sah == pytest.approx(3.0)  # 1 internal node + 2 leaves of one triangle
    assert q.to_json()["epo"] is None


def test_one_compiled_kernel_whatever_the_arrays_flags():
    """Writable rows passed in and the tree's read-only arrays reach the kernels the same way:
    numba compiles apart per array flag, and each extra signature is a compile of tens of
    seconds that the warm-up did not cache."""
    import dataclasses

    from core.bvh.epo import foreign_areas
    from core.bvh.polytope import polytope_measures

    mesh, tree = _two_cubes()
    names = ("first", "count", "prim_start", "n_prims", "prim_ids", "level_nodes", "level_start")
    copies = {n: getattr(tree, n).copy() for n in names}
    writable_tree = dataclasses.replace(tree, **copies)
    # A Tree holds even writable arrays read-only (views), so the kernels see one form.
    assert copies["prim_ids"].flags.writeable and not writable_tree.prim_ids.flags.writeable
    for bv in ("sphere", "obb", "kdop14", "aabb"):
        rows = np.array(fit_volumes(tree, mesh, bv))  # a writable copy
        assert rows.flags.writeable
        tree_quality(mesh, tree, bv, volumes=rows)
        tree_quality(mesh, writable_tree, bv, volumes=rows)
        tree_quality(mesh, tree, bv)
    assert len(foreign_areas.signatures) == 1
    assert len(polytope_measures.signatures) == 1
