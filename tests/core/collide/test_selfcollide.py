"""Self-collision against a brute-force self oracle, and the self-traversal's trace."""

from __future__ import annotations

import numpy as np
import pytest

from core.bvh import SplitRule, build_tree
from core.collide import collide
from core.collide.brute import brute_force_contacts
from core.collide.exact import exact_contact_extent
from core.collide.selfcollide import self_collide, shared_corner_counts
from core.collide.tritri import ContactKind
from core.mesh import TriMesh
from tests.core.meshgen import sphere_mesh, triangle_soup


def _grid_faces(n_u: int, n_v: int) -> np.ndarray:
    """Faces ``(2 (n_u - 1) (n_v - 1), 3)`` of a grid of ``n_u x n_v`` vertices (u major)."""
    i, j = np.meshgrid(np.arange(n_u - 1), np.arange(n_v - 1), indexing="ij")
    a = (i * n_v + j).ravel()
    b, c, d = a + n_v, a + n_v + 1, a + 1
    return np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])


def figure_eight_tube(n_around: int = 8, n_along: int = 64, radius: float = 0.15) -> TriMesh:
    """A closed tube around the figure-eight curve ``(sin t, sin t cos t, 0.1 sin 3t)``
    that passes through itself near the origin."""
    t = np.linspace(0.0, 2 * np.pi, n_along, endpoint=False)
    c = np.stack([np.sin(t), np.sin(t) * np.cos(t), 0.0 * t], 1)
    dc = np.stack([np.cos(t), np.cos(2 * t), 0.0 * t], 1)
    tangent = dc / np.linalg.norm(dc, axis=1, keepdims=True)
    up = np.array([0.0, 0.0, 1.0])
    side = np.cross(tangent, up)
    s = np.linspace(0.0, 2 * np.pi, n_around, endpoint=False)
    ring = np.cos(s)[None, :, None] * side[:, None, :] + np.sin(s)[None, :, None] * up
    v = (c[:, None, :] + radius * ring).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(n_along), np.arange(n_around), indexing="ij")
    a = i * n_around + j
    b = ((i + 1) % n_along) * n_around + j
    cc = ((i + 1) % n_along) * n_around + (j + 1) % n_around
    d = i * n_around + (j + 1) % n_around
    faces = np.concatenate([np.stack([a, b, cc], -1).reshape(-1, 3),
                            np.stack([a, cc, d], -1).reshape(-1, 3)])  # fmt: skip
    return TriMesh.from_arrays(v, faces, "tube")


def folded_sheet(fold: str, n_u: int = 17, n_v: int = 5) -> TriMesh:
    """A unit-wide strip, flat (z = 0) for ``x in [0, 2]``, then folded back over itself.

    ``"through"``: the folded half rises and then dips through the flat half.
    ``"flat"``: the folded half lies exactly on the flat half (a 180-degree fold).
    Coordinates are multiples of 1/8 in the flat part, so it is exactly planar.
    """
    u = np.linspace(0.0, 4.0, n_u)
    y = np.linspace(0.0, 1.0, n_v)
    s = np.maximum(u - 2.0, 0.0)
    x = np.where(u <= 2.0, u, 2.0 - s)
    z = 0.5 * s * (1.0 - s / 1.3) if fold == "through" else 0.0 * s
    uu = np.repeat(np.stack([x, z], 1), n_v, axis=0)
    v = np.column_stack([uu[:, 0], np.tile(y, n_u), uu[:, 1]])
    return TriMesh.from_arrays(v, _grid_faces(n_u, n_v), f"sheet-{fold}")


def self_oracle(mesh: TriMesh) -> dict[tuple[int, int], int]:
    """``{(i, j): kind}`` for ``i < j`` by brute force: non-neighbours from the numpy oracle,
    neighbours (sharing a vertex index) from the exact rational test and the adjacency rule."""
    v, f = mesh.vertices, mesh.faces
    pairs, kinds = brute_force_contacts(v, f, v, f)
    corner_sets = [set(row) for row in f.tolist()]
    out = {}
    for (i, j), kind in zip(pairs.tolist(), kinds.tolist()):
        if i < j and not corner_sets[i] & corner_sets[j]:
            out[(i, j)] = kind
    faces_of = {}
    for i, corners in enumerate(corner_sets):
        for c in corners:
            faces_of.setdefault(c, []).append(i)
    neighbours = {(i, j) for fs in faces_of.values() for i in fs for j in fs if i < j}
    tris = mesh.triangles
    for i, j in neighbours:
        n_shared = len(corner_sets[i] & corner_sets[j])
        kind, is_extended = exact_contact_extent(tris[i], tris[j])
        if (n_shared == 1 and is_extended) or (n_shared >= 2 and kind == ContactKind.COPLANAR):
            out[(i, j)] = int(kind)
    return out


def _as_dict(result) -> dict[tuple[int, int], int]:
    return {(int(i), int(j)): int(k) for (i, j), k in zip(result.pairs, result.kinds)}


def _check_against_oracle(mesh, split=SplitRule.MIDPOINT, leaf_size=1):
    tree = build_tree(mesh, split, leaf_size)
    result = self_collide(mesh, tree)
    assert np.all(result.pairs[:, 0] < result.pairs[:, 1])
    expected = self_oracle(mesh)
    assert set(_as_dict(result)) == set(expected)
    # Kinds of non-neighbour pairs equal the oracle's; neighbour kinds come from the exact test.
    assert _as_dict(result) == expected
    return result


def test_shared_corner_counts():
    faces = np.array([[0, 1, 2], [2, 3, 4], [1, 2, 5], [2, 1, 0], [6, 7, 8], [0, 0, 9]])
    pairs = np.array([[0, 1], [0, 2], [0, 3], [0, 4], [0, 5]])
    n_shared, vertex = shared_corner_counts(faces, pairs)
    assert n_shared.tolist() == [1, 2, 3, 0, 1]
    assert vertex[[0, 4]].tolist() == [2, 0]


def test_clean_sphere_has_no_self_contacts():
    sphere = sphere_mesh(12)
    result = self_collide(sphere, build_tree(sphere))
    assert result.n_contacts == 0
    # Every neighbour pair reached the triangle test and was filtered, not culled.
    assert result.counters.n_tri_tests >= 3 * sphere.n_faces // 2
    assert self_oracle(sphere) == {}


@pytest.mark.parametrize("split", [SplitRule.MIDPOINT, SplitRule.SAH])
@pytest.mark.parametrize("leaf_size", [1, 4])
def test_figure_eight_tube_crosses_itself_at_the_middle(split, leaf_size):
    tube = figure_eight_tube()
    result = _check_against_oracle(tube, split, leaf_size)
    assert result.n_contacts > 0
    assert set(result.kinds.tolist()) <= {int(ContactKind.CROSSING), int(ContactKind.TOUCHING)}
    # Only the crossing near the origin: the two strands there, far apart along the curve.
    mid = result.segments.reshape(-1, 3)
    assert np.abs(mid[:, :2]).max() < 0.6
    strand = result.pairs // 8  # faces (2 per ring step x 8 around) share a ring index
    ring_i = (result.pairs % (64 * 8)) // 8
    assert strand.size and np.all(np.abs(ring_i[:, 0] - ring_i[:, 1]) > 8)


def test_sheet_folded_through_itself():
    sheet = folded_sheet("through")
    result = _check_against_oracle(sheet)
    assert result.n_contacts > 0
    assert int(ContactKind.CROSSING) in result.kinds.tolist()
    # The folded half crosses z = 0 at s = 1.3, x = 0.7 (between grid columns; the chords of
    # the folded half's curve cross a little off it).
    xs = result.segments[..., 0]
    assert np.all(np.abs(xs - 0.7) < 0.05)


def test_sheet_folded_flat_reports_coplanar_overlaps_including_the_fold_neighbours():
    sheet = folded_sheet("flat")
    result = _check_against_oracle(sheet)
    # Overlaps, and touching along edges for pairs that only meet at their boundaries.
    assert set(result.kinds.tolist()) == {int(ContactKind.COPLANAR), int(ContactKind.TOUCHING)}
    n_shared, _ = shared_corner_counts(sheet.faces, result.pairs)
    # Triangles on both sides of the fold line share an edge and lie on each other.
    assert np.any(n_shared == 2)
    assert np.all(result.kinds[n_shared == 2] == int(ContactKind.COPLANAR))
    # Unfolded neighbours in the flat part are never reported.
    flat = (sheet.faces // 5).max(axis=1) <= 8  # grid columns u <= 2 (5 vertices a column)
    both_before_fold = flat[result.pairs[:, 0]] & flat[result.pairs[:, 1]]
    assert not both_before_fold.any()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_soup_matches_brute_force(seed):
    soup = triangle_soup(300, seed=seed, size=0.12)
    result = _check_against_oracle(soup, leaf_size=2)
    assert result.n_contacts > 10


def test_soup_with_shared_vertices_matches_oracle():
    """A random soup whose triangles reuse vertices from a small pool: many neighbours of every
    kind (shared corner, shared edge, duplicates)."""
    rng = np.random.default_rng(3)
    v = rng.integers(0, 4, size=(40, 3)).astype(np.float64)
    f = rng.integers(0, 40, size=(300, 3))
    soup = TriMesh.from_arrays(v, f, "pool")
    result = _check_against_oracle(soup, leaf_size=3)
    n_shared, _ = shared_corner_counts(soup.faces, result.pairs)
    assert {0, 1}.issubset(set(n_shared.tolist()))


def test_two_meshes_merged_into_one_find_the_pair_contacts():
    a = sphere_mesh(8)
    b_vertices = a.vertices * 0.8 + np.array([1.3, 0.1, 0.05])
    merged = TriMesh.from_arrays(np.vstack([a.vertices, b_vertices]),
                                 np.vstack([a.faces, a.faces + a.n_vertices]))  # fmt: skip
    b = TriMesh.from_arrays(b_vertices, a.faces)
    cross = collide(a, build_tree(a), b, build_tree(b))
    result = self_collide(merged, build_tree(merged))
    expected = cross.pairs + np.array([0, a.n_faces])
    np.testing.assert_array_equal(result.pairs, expected)
    np.testing.assert_array_equal(result.kinds, cross.kinds)
    np.testing.assert_allclose(result.segments, cross.segments, atol=1e-12)


def test_trace_records_the_self_traversal_level_by_level():
    tube = figure_eight_tube()
    tree = build_tree(tube)
    fast = self_collide(tube, tree)
    traced = self_collide(tube, tree, trace=True)
    np.testing.assert_array_equal(fast.pairs, traced.pairs)
    trace = traced.trace
    assert fast.trace is None
    pairs, overlapped = trace.level(0)
    assert pairs.tolist() == [[0, 0]] and overlapped.tolist() == [True]
    pairs, overlapped = trace.level(1)
    left, right = tree.children(0)
    assert pairs.tolist() == [[left, left], [left, right], [right, right]]
    assert overlapped[0] and overlapped[2]
    assert int(trace.leaf_pairs_per_level.sum()) == traced.counters.n_leaf_pairs
    assert int(trace.tested_per_level.sum()) == len(trace.node_a)
    # Box tests are the pairs of two different nodes; self pairs always overlap.
    is_self = trace.node_a == trace.node_b
    assert traced.counters.n_bv_tests == int((~is_self).sum())
    assert np.all(trace.sep_axis[is_self] == -1)
    assert traced.counters.n_bv_overlaps == int((trace.sep_axis == -1).sum())
    # A pair of different nodes is a pair of disjoint subtrees.
    for a, b in zip(trace.node_a[~is_self][:500], trace.node_b[~is_self][:500]):
        ta = set(tree.triangles_under(int(a)).tolist())
        tb = set(tree.triangles_under(int(b)).tolist())
        assert not ta & tb
    assert "level 0: 1 pairs tested" in trace.summary(0)


# (name, vertices, faces, expected pairs with their kinds)
NEIGHBOUR_CASES = [
    # Share vertex 0; the second triangle's interior passes through the first one's.
    ("vertex_shared_and_crossing", [[0, 0, 0], [4, 0, 0], [0, 4, 0], [2, 2, -1], [2, 2, 3]],
     [[0, 1, 2], [0, 3, 4]], {(0, 1): int(ContactKind.CROSSING)}),
    # Share vertex 0 and meet nowhere else.
    ("vertex_shared_only", [[0, 0, 0], [4, 0, 0], [0, 4, 0], [-2, -2, 1], [-2, 0, 3]],
     [[0, 1, 2], [0, 3, 4]], {}),
    # Share vertex 0; an edge of the second lies in the first (touching beyond the vertex).
    ("vertex_shared_edge_lies_in_face", [[0, 0, 0], [4, 0, 0], [0, 4, 0], [1, 1, 0], [1, 1, 3]],
     [[0, 1, 2], [0, 3, 4]], {(0, 1): int(ContactKind.TOUCHING)}),
    # Share an edge at a right angle: the ordinary neighbour of a mesh.
    ("edge_shared_fold", [[0, 0, 0], [4, 0, 0], [0, 4, 0], [0, 0, 4]],
     [[0, 1, 2], [0, 1, 3]], {}),
    # Share an edge in one plane, side by side.
    ("edge_shared_flat", [[0, 0, 0], [4, 0, 0], [0, 4, 0], [4, 4, 0]],
     [[1, 2, 0], [1, 3, 2]], {}),
    # Share an edge and folded onto each other.
    ("edge_shared_folded_onto", [[0, 0, 0], [4, 0, 0], [0, 4, 0], [1, 3, 0]],
     [[0, 1, 2], [0, 1, 3]], {(0, 1): int(ContactKind.COPLANAR)}),
    # No shared vertex index, but equal coordinates (an unwelded seam): they touch.
    ("unwelded_seam", [[0, 0, 0], [4, 0, 0], [0, 4, 0], [4, 0, 0], [0, 4, 0], [4, 4, 0]],
     [[0, 1, 2], [3, 5, 4]], {(0, 1): int(ContactKind.TOUCHING)}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "v", "f", "expected"), NEIGHBOUR_CASES,
                         ids=[c[0] for c in NEIGHBOUR_CASES])  # fmt: skip
def test_neighbour_rule(name, v, f, expected):
    mesh = TriMesh.from_arrays(np.array(v, float), np.array(f))
    result = self_collide(mesh, build_tree(mesh))
    assert _as_dict(result) == expected
    assert self_oracle(mesh) == expected
