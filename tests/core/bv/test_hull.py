"""Convex hull kernel (core.bv.hull) against brute-force references."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.bv import hull as hull_module
from core.bv.hull import convex_hull, hull_of_subset
from core.jit.kernel_args import frozen
from tests.core.meshgen import closest_point_on_triangle

TOL_REL = 1e-12


def _tol(points):
    """The tolerance a caller passes: ``1e-12`` times the size of the set."""
    return TOL_REL * max(float(np.abs(points).max()), 1.0)


def _planes(points, triangles):
    """Unit normals ``(f, 3)`` and offsets ``(f,)`` of the triangles, by plain numpy."""
    a, b, c = (points[triangles[:, k]] for k in range(3))
    normals = np.cross(b - a, c - a)
    normals /= np.linalg.norm(normals, axis=1)[:, None]
    return normals, np.einsum("ij,ij->i", normals, a)


def _volume(points, triangles):
    """Volume enclosed by a closed outward surface, by the divergence theorem."""
    a, b, c = (points[triangles[:, k]] for k in range(3))
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0)


def _assert_closed_hull(points, vertex_ids, triangles, tol, check_planes=True):
    """Closed, oriented, Euler characteristic 2, vertices are input points, all points inside."""
    assert vertex_ids.dtype == np.int32
    assert triangles.dtype == np.int32
    assert triangles.ndim == 2 and triangles.shape[1] == 3 and triangles.shape[0] >= 4
    n = points.shape[0]
    assert triangles.min() >= 0 and triangles.max() < n
    np.testing.assert_array_equal(vertex_ids, np.unique(triangles))
    # Every directed edge once, and its reverse once: closed and consistently oriented.
    edges = np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]])
    codes = edges[:, 0].astype(np.int64) * n + edges[:, 1]
    reverse = edges[:, 1].astype(np.int64) * n + edges[:, 0]
    assert np.unique(codes).size == codes.size
    assert np.array_equal(np.sort(codes), np.sort(reverse))
    n_v, n_e, n_f = vertex_ids.size, codes.size // 2, triangles.shape[0]
    assert n_v - n_e + n_f == 2
    assert _volume(points, triangles) > 0.0
    if check_planes:
        normals, offsets = _planes(points, triangles)
        heights = points @ normals.T - offsets
        assert heights.max() <= tol


def _brute_volume(points, tol):
    """Hull volume and vertices from all triplets that are faces (general position).

    A triplet is a face iff every other point is on one side of its plane; in general position
    facets are triangles, so each is counted once.

    Returns
    -------
    volume : float
    vertex_ids : set of int
        Points of the face triplets.
    """
    total = 0.0
    vertex_ids = set()
    for i, j, k in combinations(range(points.shape[0]), 3):
        a, b, c = points[i], points[j], points[k]
        normal = np.cross(b - a, c - a)
        normal /= np.linalg.norm(normal)
        heights = (points - a) @ normal
        if heights.max() <= tol:
            total += a @ np.cross(b, c) / 6.0
        elif heights.min() >= -tol:
            total += a @ np.cross(c, b) / 6.0
        else:
            continue
        vertex_ids |= {i, j, k}
    return total, vertex_ids


def _brute_area_2d(xy, tol):
    """Area of the 2-D hull of ``xy`` (m, 2): sum over maximal counter-clockwise hull edges.

    An edge (i, j) is on the hull iff no point is right of it; it is maximal iff the points on
    its line all lie between i and j, so collinear boundary points are not counted twice.
    """
    xy = np.unique(xy, axis=0)
    area = 0.0
    for i in range(len(xy)):
        for j in range(len(xy)):
            if i == j:
                continue
            d = xy[j] - xy[i]
            length = np.hypot(*d)
            r = xy - xy[i]
            side = (d[0] * r[:, 1] - d[1] * r[:, 0]) / length
            if side.min() < -tol:
                continue
            on_line = np.abs(side) <= tol
            t = r[on_line] @ d / length**2
            if t.min() < -tol or t.max() > 1.0 + tol:
                continue
            area += 0.5 * (xy[i, 0] * xy[j, 1] - xy[i, 1] * xy[j, 0])
    return area


def _brute_volume_degenerate(points, tol):
    """Hull volume robust to coplanar points: ``sum(offset * area) / 3`` over supporting planes.

    A supporting plane is found from any triplet with all points on one side; planes are
    identified by the set of points on them, and each facet's area is its brute 2-D hull area.
    """
    seen = set()
    total = 0.0
    for i, j, k in combinations(range(points.shape[0]), 3):
        a = points[i]
        normal = np.cross(points[j] - a, points[k] - a)
        length = np.linalg.norm(normal)
        if length <= tol:
            continue
        normal /= length
        heights = (points - a) @ normal
        if heights.min() >= -tol:
            normal, heights = -normal, -heights
        if heights.max() > tol:
            continue
        on_plane = frozenset(np.nonzero(np.abs(heights) <= tol)[0].tolist())
        if on_plane in seen:
            continue
        seen.add(on_plane)
        u = points[j] - a
        u /= np.linalg.norm(u)
        v = np.cross(normal, u)
        facet = points[sorted(on_plane)] - a
        area = _brute_area_2d(np.stack([facet @ u, facet @ v], axis=1), tol)
        total += (normal @ a) * abs(area) / 3.0
    return total


def _on_sphere(rng, n):
    p = rng.normal(size=(n, 3))
    return p / np.linalg.norm(p, axis=1)[:, None]


# --- random clouds -------------------------------------------------------------------------


@pytest.mark.parametrize("n", [4, 5, 8, 20, 60, 300, 2000])
@pytest.mark.parametrize("kind", ["gauss", "cube", "sphere"])
def test_random_cloud_is_a_closed_convex_hull(n, kind):
    rng = np.random.default_rng(n)
    if kind == "gauss":
        points = rng.normal(size=(n, 3)) * [3.0, 1.0, 0.2] + [5.0, -2.0, 1.0]
    elif kind == "cube":
        points = rng.random((n, 3))
    else:
        points = _on_sphere(rng, n)
    tol = _tol(points)
    vertex_ids, triangles, dim = convex_hull(points, tol)
    assert dim == 3
    _assert_closed_hull(points, vertex_ids, triangles, tol)
    if kind == "sphere":
        assert vertex_ids.size == n  # every point of a sphere is extreme


@pytest.mark.parametrize("seed", range(12))
def test_volume_equals_brute_hull(seed):
    rng = np.random.default_rng(100 + seed)
    n = 4 + seed % 10
    points = rng.normal(size=(n, 3))
    tol = _tol(points)
    vertex_ids, triangles, dim = convex_hull(points, tol)
    assert dim == 3
    _assert_closed_hull(points, vertex_ids, triangles, tol)
    brute_volume, brute_ids = _brute_volume(points, tol)
    assert _volume(points, triangles) == pytest.approx(brute_volume, rel=1e-9)
    assert set(vertex_ids.tolist()) == brute_ids


def test_large_sphere_grows_the_face_arrays():
    rng = np.random.default_rng(7)
    points = _on_sphere(rng, 20_000) * 3.0 + 10.0
    tol = _tol(points)
    vertex_ids, triangles, dim = convex_hull(points, tol)
    assert dim == 3
    assert vertex_ids.size == 20_000
    assert triangles.shape[0] == 2 * 20_000 - 4
    sample = rng.choice(triangles.shape[0], 300, replace=False)
    _assert_closed_hull(points, vertex_ids, triangles, tol, check_planes=False)
    normals, offsets = _planes(points, triangles[sample])
    assert (points @ normals.T - offsets).max() <= tol


# --- grids, cubes, spheres, polyhedra --------------------------------------------------------


def test_cube_corners():
    points = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float)
    vertex_ids, triangles, dim = convex_hull(points, _tol(points))
    assert dim == 3
    assert vertex_ids.tolist() == list(range(8))
    assert triangles.shape == (12, 3)
    assert _volume(points, triangles) == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("surface_only", [False, True])
def test_subdivided_cube_keeps_only_its_corners(surface_only):
    axis = np.linspace(-1.0, 1.0, 7)
    grid = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), -1).reshape(-1, 3)
    if surface_only:
        grid = grid[(np.abs(grid) == 1.0).any(axis=1)]
    points = grid * [2.0, 1.0, 0.5] + [3.0, 0.0, -1.0]
    tol = _tol(points)
    vertex_ids, triangles, dim = convex_hull(points, tol)
    assert dim == 3
    _assert_closed_hull(points, vertex_ids, triangles, tol)
    centered = points[vertex_ids] - [3.0, 0.0, -1.0]
    np.testing.assert_allclose(np.abs(centered), np.tile([2.0, 1.0, 0.5], (8, 1)))
    assert triangles.shape == (12, 3)
    assert _volume(points, triangles) == pytest.approx(8.0, rel=1e-12)


def test_pyvista_cube_with_duplicate_corners():
    pv = pytest.importorskip("pyvista")
    cube = pv.Cube(x_length=2.0, y_length=3.0, z_length=4.0).triangulate().subdivide(2)
    points = np.asarray(cube.points, dtype=np.float64)
    tol = _tol(points)
    vertex_ids, triangles, dim = convex_hull(points, tol)
    assert dim == 3
    _assert_closed_hull(points, vertex_ids, triangles, tol)
    assert vertex_ids.size == 8
    np.testing.assert_allclose(np.abs(points[vertex_ids]), np.tile([1.0, 1.5, 2.0], (8, 1)))
    assert _volume(points, triangles) == pytest.approx(24.0, rel=1e-12)


def test_pyvista_uv_sphere_all_points_on_hull():
    pv = pytest.importorskip("pyvista")
    sphere = pv.Sphere(radius=2.0, theta_resolution=40, phi_resolution=30)
    points = np.asarray(sphere.points, dtype=np.float64)
    n_distinct = np.unique(points, axis=0).shape[0]
    tol = _tol(points)
    vertex_ids, triangles, dim = convex_hull(points, tol)
    assert dim == 3
    _assert_closed_hull(points, vertex_ids, triangles, tol)
    assert vertex_ids.size == n_distinct
    # A polyhedron inscribed in the sphere: a little smaller than the ball.
    volume = _volume(points, triangles)
    assert 0.97 * (4.0 / 3.0) * np.pi * 8.0 < volume < (4.0 / 3.0) * np.pi * 8.0


def test_regular_icosahedron():
    points = _icosahedron()
    tol = _tol(points)
    vertex_ids, triangles, dim = convex_hull(points, tol)
    assert dim == 3
    _assert_closed_hull(points, vertex_ids, triangles, tol)
    assert vertex_ids.size == 12
    assert triangles.shape == (20, 3)
    edge = 2.0
    assert _volume(points, triangles) == pytest.approx(5.0 / 12.0 * (3 + np.sqrt(5)) * edge**3)
    # The centre and the face centroids pulled slightly inwards are never hull vertices.
    inner = points[triangles].mean(axis=1) * 0.999
    more = np.vstack([points, [[0.0, 0.0, 0.0]], inner])
    vertex_ids2, triangles2, _ = convex_hull(more, tol)
    assert vertex_ids2.tolist() == list(range(12))
    assert triangles2.shape == (20, 3)


def _icosahedron():
    """The 12 vertices ``(0, +-1, +-phi)`` and their cyclic shifts; edge length 2."""
    phi = (1.0 + np.sqrt(5.0)) / 2.0
    base = [[0.0, s1, s2 * phi] for s1 in (-1.0, 1.0) for s2 in (-1.0, 1.0)]
    return np.array([np.roll(p, r) for r in range(3) for p in base])


@pytest.mark.parametrize("lift, n_expected", [(0.5, 12), (100.0, 32)])
def test_points_within_tol_of_a_face_are_not_outside(lift, n_expected):
    """Face centroids ``lift * tol`` above the faces: on the hull at 0.5, vertices at 100."""
    corners = _icosahedron()
    tol = 1e-9
    triangles = convex_hull(corners, tol)[1]
    normals, _ = _planes(corners, triangles)
    centres = corners[triangles].mean(axis=1) + lift * tol * normals
    points = np.vstack([corners, centres])
    vertex_ids, triangles, dim = convex_hull(points, tol)
    assert dim == 3
    assert vertex_ids.size == n_expected
    assert triangles.shape[0] == 2 * n_expected - 4
    _assert_closed_hull(points, vertex_ids, triangles, tol)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(*[st.integers(0, 3)] * 3), min_size=4, max_size=18),
    st.sampled_from([3, 2, 1]),
    st.integers(0, 2**32 - 1),
)
def test_integer_grid_sets_with_duplicates(cells, n_axes, seed):
    """Many coplanar, collinear and duplicate points: still a closed convex hull, or a convex
    polygon, or a segment when the cells span fewer axes."""
    cells = np.array(cells)
    cells[:, n_axes:] = 0
    points = cells.astype(np.float64)
    rng = np.random.default_rng(seed)
    rotation = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    points = points @ rotation.T + rng.normal(size=3) * 5.0
    tol = 1e-9 * max(np.abs(points).max(), 1.0)
    vertex_ids, triangles, dim = convex_hull(points, tol)
    distinct = np.unique(cells, axis=0)
    if dim == 3:
        _assert_closed_hull(points, vertex_ids, triangles, tol)
        assert _volume(points, triangles) == pytest.approx(
            _brute_volume_degenerate(points, tol), rel=1e-9
        )
        return
    # Lower-dimensional: the grid cells themselves are coplanar, collinear or one point.
    rank = np.linalg.matrix_rank(distinct - distinct[0]) if len(distinct) > 1 else 0
    assert dim == rank
    if dim == 2:
        area = _assert_convex_polygon(points, vertex_ids, triangles, tol)
        a, b, c = (points[triangles[0, k]] for k in range(3))
        u = (b - a) / np.linalg.norm(b - a)
        v = np.cross(np.cross(u, c - a), u)
        v /= np.linalg.norm(v)
        uv = np.stack([(points - a) @ u, (points - a) @ v], axis=1)
        assert area == pytest.approx(abs(_brute_area_2d(uv, tol)), rel=1e-9)
    elif dim == 1:
        t = (points - points[0]) @ (points[vertex_ids[1]] - points[vertex_ids[0]])
        assert sorted(t[vertex_ids].tolist()) == [t.min(), t.max()]


def _assert_within_tol_of_the_solid(points, vertex_ids, triangles, tol):
    """Each point above some face plane is a hull vertex, inside the solid, or within
    ``3 tol`` of its surface (sliver faces between near-duplicate points have tilted planes)."""
    normals, offsets = _planes(points, triangles)
    above = np.nonzero(((points @ normals.T - offsets) > tol).any(axis=1))[0]
    for i in set(above.tolist()) - set(vertex_ids.tolist()):
        assert _winding_number(points[i], points, triangles) > 0.5 or (
            _distance_to_surface(points[i], points, triangles) <= 3.0 * tol
        )


def test_near_duplicate_points_stay_within_tol_of_the_surface():
    """Points a few ``tol`` apart make sliver faces whose planes are ill-conditioned; the
    surface must still be closed and no point farther than a few ``tol`` outside it."""
    rng = np.random.default_rng(3)
    tol = 1e-12
    for _ in range(25):
        base = rng.random((12, 3))
        points = np.vstack([base, base[:3] + rng.normal(size=(3, 3)) * 10.0 * tol])
        vertex_ids, triangles, dim = convex_hull(points, tol)
        assert dim == 3
        _assert_closed_hull(points, vertex_ids, triangles, tol, check_planes=False)
        _assert_within_tol_of_the_solid(points, vertex_ids, triangles, tol)


# A noisy grid (cells of a 3x3x3 lattice, repeated, each moved by up to 7 tol) on which the
# set of faces one eye sees is not a disk; growing it face by face under a disk rule instead
# left a fold (volume 7 instead of 41/6).
_PINCH_CELLS = [
    [0, 1, 0], [2, 2, 2], [2, 1, 0], [0, 1, 2], [2, 0, 1], [1, 1, 1], [2, 0, 2], [0, 1, 0],
    [0, 1, 1], [0, 2, 0], [2, 2, 0], [2, 0, 1], [1, 0, 0], [0, 2, 2], [2, 1, 2], [1, 1, 1],
    [2, 0, 0], [2, 2, 2], [0, 2, 2], [2, 0, 1], [1, 1, 2], [2, 2, 2], [2, 0, 0], [0, 2, 2],
    [2, 1, 2], [2, 0, 0], [1, 2, 2], [2, 2, 1], [2, 2, 1], [1, 2, 2], [1, 1, 1], [2, 1, 0],
    [1, 0, 1], [0, 2, 2],
]  # fmt: skip
_PINCH_NOISE_1E13 = [
    [19, 25, 40], [-35, 49, -7], [-10, 79, -63], [28, 104, 158], [-99, 92, 102],
    [8, -141, 109], [-166, -29, -49], [11, 149, 15], [81, 46, 81], [-190, -102, -130],
    [-121, 22, 9], [-74, 2, 95], [-169, 79, 1], [-62, -46, 0], [-32, -40, 125], [1, -100, -30],
    [40, 26, -101], [-40, -79, 15], [-36, 115, 52], [-18, -7, -57], [-170, -147, 97],
    [54, -38, 91], [58, 53, 23], [-6, -8, 44], [12, -54, 100], [13, -44, -63], [-146, -53, 2],
    [55, 60, 152], [-18, 68, -24], [-146, -105, -69], [29, 0, -88], [28, -72, 60],
    [48, -60, 3], [50, -14, 32],
]  # fmt: skip


def test_noisy_grid_with_a_pinched_visible_set():
    points = np.array(_PINCH_CELLS, float) + np.array(_PINCH_NOISE_1E13, float) * 1e-13
    tol = 3e-12
    vertex_ids, triangles, dim = convex_hull(points, tol)
    assert dim == 3
    _assert_closed_hull(points, vertex_ids, triangles, tol, check_planes=False)
    _assert_within_tol_of_the_solid(points, vertex_ids, triangles, tol)
    exact_cells = np.array(_PINCH_CELLS, float)
    expected = _brute_volume_degenerate(exact_cells, 1e-12)
    # The cube [0, 2]^3 less the wedge along the edge x = y = 0 that no cell fills.
    assert expected == pytest.approx(41.0 / 6.0)
    assert _volume(points, triangles) == pytest.approx(expected, abs=1e-9)


# A noisy 4x4x4 grid where two near-duplicate points (1e-10 apart, 25 tol) make a sliver face
# with a tilted plane; without the reflex-edge test the next cone folded over a flat region
# (volume 19.5 instead of 20).
_SLIVER_CELLS = [
    [2, 2, 0], [3, 3, 0], [0, 3, 1], [3, 0, 3], [1, 3, 3], [1, 2, 2], [3, 0, 1], [2, 0, 3],
    [0, 0, 0], [2, 2, 1], [1, 0, 2], [3, 0, 2], [2, 3, 3], [3, 1, 3], [0, 3, 1], [0, 3, 2],
    [3, 1, 2], [2, 2, 0], [0, 3, 2], [3, 3, 0], [1, 3, 0],
]  # fmt: skip
_SLIVER_NOISE_1E13 = [
    [-1012, -250, 174], [359, -101, -348], [-324, 1141, 343], [312, -24, 141],
    [-448, 463, 593], [-233, -59, -463], [3, 504, -243], [410, 17, 120], [520, -128, 768],
    [-304, -918, 258], [-279, 357, -373], [251, 377, 55], [-706, -681, 528], [-232, 440, 625],
    [-279, 649, -140], [-1024, 145, -503], [46, 502, 509], [111, 801, -285], [54, 172, 242],
    [308, 366, 654], [156, 147, 101],
]  # fmt: skip


def test_noisy_grid_with_a_sliver_between_near_duplicates():
    points = np.array(_SLIVER_CELLS, float) + np.array(_SLIVER_NOISE_1E13, float) * 1e-13
    tol = 4e-12
    vertex_ids, triangles, dim = convex_hull(points, tol)
    assert dim == 3
    _assert_closed_hull(points, vertex_ids, triangles, tol, check_planes=False)
    _assert_within_tol_of_the_solid(points, vertex_ids, triangles, tol)
    expected = _brute_volume_degenerate(np.array(_SLIVER_CELLS, float), 1e-12)
    assert expected == pytest.approx(20.0)
    assert _volume(points, triangles) == pytest.approx(expected, abs=1e-9)


def _winding_number(q, points, triangles):
    """Solid-angle winding number of a closed surface around ``q`` (van Oosterom 1983)."""
    a, b, c = (points[triangles[:, k]] - q for k in range(3))
    la, lb, lc = (np.linalg.norm(x, axis=1) for x in (a, b, c))
    num = np.einsum("ij,ij->i", a, np.cross(b, c))
    den = (
        la * lb * lc
        + np.einsum("ij,ij->i", a, b) * lc
        + np.einsum("ij,ij->i", b, c) * la
        + np.einsum("ij,ij->i", c, a) * lb
    )
    return 2.0 * np.arctan2(num, den).sum() / (4.0 * np.pi)


def _distance_to_surface(q, points, triangles):
    """Smallest distance from ``q`` to the triangles."""
    return min(
        float(np.linalg.norm(q - closest_point_on_triangle(q, *points[tri]))) for tri in triangles
    )


# --- degenerate inputs -------------------------------------------------------------------------


def test_one_point():
    vertex_ids, triangles, dim = convex_hull(np.array([[1.0, 2.0, 3.0]]), 1e-12)
    assert dim == 0
    assert vertex_ids.tolist() == [0]
    assert triangles.shape == (0, 3)


def test_duplicates_only():
    points = np.tile([[1.0, -2.0, 0.5]], (7, 1))
    vertex_ids, triangles, dim = convex_hull(points, 1e-12)
    assert (dim, vertex_ids.tolist(), triangles.shape) == (0, [0], (0, 3))


def test_two_points():
    points = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]])
    vertex_ids, triangles, dim = convex_hull(points, 1e-12)
    assert dim == 1
    assert sorted(vertex_ids.tolist()) == [0, 1]
    assert triangles.shape == (0, 3)


def test_collinear_points_give_the_two_ends():
    rng = np.random.default_rng(5)
    t = rng.normal(size=40)
    t = np.concatenate([t, t[:5]])  # duplicates too
    points = np.array([1.0, -1.0, 2.0]) + t[:, None] * np.array([0.3, 0.5, -0.2])
    vertex_ids, triangles, dim = convex_hull(points, _tol(points))
    assert dim == 1
    assert triangles.shape == (0, 3)
    assert sorted(t[vertex_ids].tolist()) == [t.min(), t.max()]


def _assert_convex_polygon(points, vertex_ids, triangles, tol):
    """Fan over the polygon, all triangles facing one way, polygon convex and CCW around it."""
    h = vertex_ids.size
    assert triangles.shape == (h - 2, 3)
    np.testing.assert_array_equal(triangles[:, 0], vertex_ids[0])
    np.testing.assert_array_equal(triangles[:, 1], vertex_ids[1:-1])
    np.testing.assert_array_equal(triangles[:, 2], vertex_ids[2:])
    a, b, c = (points[triangles[:, k]] for k in range(3))
    area_vectors = 0.5 * np.cross(b - a, c - a)
    normal = area_vectors.sum(axis=0)
    normal /= np.linalg.norm(normal)
    polygon = points[vertex_ids]
    turns = np.cross(np.roll(polygon, -1, 0) - polygon, np.roll(polygon, -2, 0) - polygon)
    assert (turns @ normal > 0.0).all()  # strictly convex, counter-clockwise around normal
    # Every point inside every edge (in the plane) and on the plane, within tol.
    for i in range(h):
        p0, p1 = polygon[i], polygon[(i + 1) % h]
        inward = np.cross(normal, p1 - p0)
        inward /= np.linalg.norm(inward)
        assert ((points - p0) @ inward).min() >= -tol
    assert np.abs((points - polygon[0]) @ normal).max() <= tol
    return float(np.linalg.norm(area_vectors.sum(axis=0)))


@pytest.mark.parametrize("n", [3, 4, 10, 200])
def test_coplanar_points_give_a_convex_polygon(n):
    rng = np.random.default_rng(n)
    rotation = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    uv = rng.normal(size=(n, 2)) * [2.0, 0.5]
    points = np.column_stack([uv, np.zeros(n)]) @ rotation.T + [1.0, 2.0, 3.0]
    tol = _tol(points)
    vertex_ids, triangles, dim = convex_hull(points, tol)
    assert dim == 2
    area = _assert_convex_polygon(points, vertex_ids, triangles, tol)
    assert area == pytest.approx(abs(_brute_area_2d(uv, tol)), rel=1e-9)


def test_single_triangle():
    points = np.array([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 1.0, 1.0]])
    vertex_ids, triangles, dim = convex_hull(points, 1e-12)
    assert dim == 2
    assert sorted(vertex_ids.tolist()) == [0, 1, 2]
    area = _assert_convex_polygon(points, vertex_ids, triangles, 1e-12)
    assert area == pytest.approx(0.5 * np.linalg.norm(np.cross(points[1], points[2])))


def test_two_coplanar_triangles_and_a_grid_keep_only_corners():
    # Two triangles of a quad, as a mesh node passes them (shared vertices repeated).
    quad = np.array([[0.0, 0.0, 1.0], [3.0, 0.0, 1.0], [3.0, 2.0, 1.0], [0.0, 2.0, 1.0]])
    points = quad[[0, 1, 2, 0, 2, 3]]
    vertex_ids, triangles, dim = convex_hull(points, 1e-12)
    assert dim == 2
    assert sorted(map(tuple, points[vertex_ids].tolist())) == sorted(map(tuple, quad.tolist()))
    assert _assert_convex_polygon(points, vertex_ids, triangles, 1e-12) == pytest.approx(6.0)
    axis = np.linspace(0.0, 1.0, 6)
    u, v = np.meshgrid(axis, axis)
    grid = np.column_stack([u.ravel(), v.ravel() * 2.0, np.full(u.size, -4.0)])
    vertex_ids, triangles, dim = convex_hull(grid, _tol(grid))
    assert dim == 2
    assert vertex_ids.size == 4  # collinear boundary points are not corners
    assert _assert_convex_polygon(grid, vertex_ids, triangles, _tol(grid)) == pytest.approx(2.0)


def test_sliver_just_above_tolerance_is_3d():
    points = np.array(
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.3, 0.3, 0.0], [0.5, 0.5, 0.0]]
    )
    tol = 1e-10
    flat = points.copy()
    flat[3, 2] = 0.5 * tol
    assert convex_hull(flat, tol)[2] == 2
    lifted = points.copy()
    lifted[3, 2] = 10.0 * tol
    vertex_ids, triangles, dim = convex_hull(lifted, tol)
    assert dim == 3
    _assert_closed_hull(lifted, vertex_ids, triangles, tol)
    assert vertex_ids.tolist() == [0, 1, 2, 3]  # (0.5, 0.5, 0) is on the edge 1-2


# --- hull_of_subset ----------------------------------------------------------------------------


@pytest.mark.parametrize("id_dtype", [np.int32, np.int64])
def test_hull_of_subset_indexes_the_big_array(id_dtype):
    rng = np.random.default_rng(11)
    # Read-only like a mesh's vertices, which the OBB fit passes (its compiled signature).
    vertices = frozen(rng.normal(size=(5000, 3)))
    ids = rng.choice(5000, 60, replace=False).astype(id_dtype)
    ids = np.concatenate([ids, ids[:10]])  # a node's vertex list may repeat ids
    tol = _tol(vertices)
    vertex_ids, triangles, dim = hull_of_subset(vertices, ids, tol)
    local_ids, local_triangles, local_dim = convex_hull(vertices[ids], tol)
    assert dim == local_dim == 3
    np.testing.assert_array_equal(vertex_ids, ids[local_ids])
    np.testing.assert_array_equal(triangles, ids[local_triangles])
    assert set(vertex_ids.tolist()) <= set(ids.tolist())
    used = np.unique(triangles).astype(np.int32)
    _assert_closed_hull(vertices, used, triangles, tol, check_planes=False)
    normals, offsets = _planes(vertices, triangles)
    assert (vertices[ids] @ normals.T - offsets).max() <= tol
    # A leaf node: one triangle's three vertices, dim 2, ids into the big array.
    leaf = np.array([17, 4000, 123], dtype=id_dtype)
    vertex_ids, triangles, dim = hull_of_subset(vertices, leaf, tol)
    assert dim == 2
    assert sorted(vertex_ids.tolist()) == [17, 123, 4000]
    assert sorted(triangles[0].tolist()) == [17, 123, 4000]


# --- the patch guards, on a hand-built octahedron ----------------------------------------------


def _octahedron_state():
    """Points (+-x, +-y, +-z, then an eye above +z), faces with adjacency, as ``_hull_3d``."""
    hm = hull_module
    points = np.array(
        [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1], [0, 0, 3.0]],
        float,
    )
    faces = [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5)]
    faces.append((0, 3, 5))
    cap = 16
    fi = np.zeros((cap, hm._F_INT), np.int32)
    ff = np.zeros((cap, hm._F_FLT))
    for f, (a, b, c) in enumerate(faces):
        # int32 corners, as the hull passes its point ids: the signature it compiled.
        hm._set_face(points, fi, ff, f, np.int32(a), np.int32(b), np.int32(c))
    for f, face in enumerate(faces):
        for k in range(3):
            a, b = face[k], face[(k + 1) % 3]
            fi[f, 3 + k] = next(
                g for g, other in enumerate(faces) for m in range(3)
                if other[m] == b and other[(m + 1) % 3] == a
            )  # fmt: skip
    n = points.shape[0]
    return {
        "points": points,
        "fi": fi,
        "ff": ff,
        "state": np.zeros(cap, np.int8),
        "visible": np.zeros(cap, np.int32),
        "vcount": np.zeros(n, np.int32),
        "touched": np.zeros(n, np.int32),
        "hstamp": np.zeros(n, np.int32),
        "hnext": np.zeros(n, np.int32),
        "stack": np.zeros(3 * cap + 3, np.int32),
    }


def _patch_of(o, face_ids):
    n_vis, n_touch = 0, 0
    for g in face_ids:
        n_vis, n_touch = hull_module._take_face(
            o["fi"], o["state"], o["visible"], n_vis, o["vcount"], o["touched"], n_touch, g
        )
    return n_vis, n_touch


def _check(o, n_vis, stamp):
    return hull_module._check_horizon(
        o["fi"], o["state"], o["visible"], n_vis, o["hstamp"], o["hnext"], stamp
    )


def _repair(o, n_vis, n_touch, bad):
    return hull_module._repair_patch(
        o["points"], o["fi"], o["ff"], o["state"], o["visible"], n_vis, o["vcount"],
        o["touched"], n_touch, 8, o["stack"], bad, np.int32(6),  # an int32 point id, as the hull's
    )  # fmt: skip


def test_a_patch_pinched_at_a_vertex_is_grown_to_a_disk():
    o = _octahedron_state()
    n_vis, n_touch = _patch_of(o, [0, 2])  # opposite upper faces, touching at +z only
    assert _check(o, n_vis, 1) == (5, 4)  # two horizon edges start at vertex 4
    n_vis, n_touch = _repair(o, n_vis, n_touch, 4)
    assert sorted(o["visible"][:n_vis].tolist()) == [0, 1, 2, 3]
    assert _check(o, n_vis, 2) == (4, hull_module._SIMPLE)  # the equator
    assert sorted(o["touched"][:n_touch].tolist()) == [0, 1, 2, 3, 4]


def test_a_patch_with_a_hole_is_grown_to_a_disk():
    o = _octahedron_state()
    # Every face but an upper one and the lower one opposite: two boundary cycles.
    n_vis, n_touch = _patch_of(o, [1, 2, 3, 4, 5, 7])
    assert _check(o, n_vis, 1) == (6, hull_module._NOT_A_DISK)
    n_vis, n_touch = _repair(o, n_vis, n_touch, hull_module._NOT_A_DISK)
    # The face the eye sees least (the lower one) stays; the upper one is the hole.
    assert sorted(o["visible"][:n_vis].tolist()) == [0, 1, 2, 3, 4, 5, 7]
    assert _check(o, n_vis, 2) == (3, hull_module._SIMPLE)
    o = _octahedron_state()
    n_vis, n_touch = _patch_of(o, range(8))
    assert _check(o, n_vis, 1) == (0, hull_module._NOT_A_DISK)
    assert _repair(o, n_vis, n_touch, hull_module._NOT_A_DISK)[0] == -1  # nothing can stay


def test_drop_eye_picks_the_next_farthest_point():
    hm = hull_module
    o = _octahedron_state()
    points = np.vstack([o["points"], [[0.5, 0.5, 0.5], [0.4, 0.4, 0.4]]])
    fi, ff = o["fi"], o["ff"]
    nxt = np.full(points.shape[0], -1, np.int32)
    for q in (7, 6, 8):
        hm._add_conflict(points, fi, ff, nxt, 0, q, hm._height(points, fi, ff, 0, q), 1e-12)
    assert fi[0, hm._FAR] == 6
    hm._drop_eye(points, fi, ff, nxt, 0, np.int32(6), 1e-12)  # an int32 point id, as the hull's
    assert fi[0, hm._FAR] == 7
    assert ff[0, hm._FAR_D] == pytest.approx(0.5 / np.sqrt(3.0))
    members, q = [], fi[0, hm._HEAD]
    while q >= 0:
        members.append(int(q))
        q = nxt[q]
    assert sorted(members) == [7, 8]
