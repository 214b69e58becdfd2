"""The brute-force oracle: hand-checked answers, output format, chunking, degenerate soups."""

from __future__ import annotations

import numpy as np
import pytest

from core.collide.brute import brute_force_contacts, brute_force_pairs
from core.collide.tritri import ContactKind, tri_tri_batch
from tests.core.helpers import HAND_CASES

ONE_FACE = np.array([[0, 1, 2]], dtype=np.int32)


@pytest.mark.parametrize(
    "name, a, b, kind, segment", HAND_CASES, ids=[case[0] for case in HAND_CASES]
)
def test_hand_case_kind(name, a, b, kind, segment):
    a = np.array(a, dtype=float)
    b = np.array(b, dtype=float)
    for va, vb in ((a, b), (b, a)):
        pairs, kinds = brute_force_contacts(va, ONE_FACE, vb, ONE_FACE)
        if kind == ContactKind.DISJOINT:
            assert pairs.shape == (0, 2)
            assert kinds.shape == (0,)
        else:
            assert pairs.tolist() == [[0, 0]]
            assert kinds.tolist() == [int(kind)]


def test_closed_boxes_keep_exact_touching_pairs():
    """Coplanar triangles sharing only an edge have boxes that share only a face: the closed
    box test keeps the pair, and the exact test calls it TOUCHING; one ulp apart, nothing."""
    a = np.array([[0, 0, 0], [4, 0, 0], [0, 4, 0]], dtype=float)
    b = np.array([[4, 0, 0], [4, 4, 0], [8, 0, 0]], dtype=float)
    _, kinds = brute_force_contacts(a, ONE_FACE, b, ONE_FACE)
    assert kinds.tolist() == [int(ContactKind.TOUCHING)]
    apart = b.copy()
    apart[:, 0] = np.nextafter(apart[:, 0], np.inf)
    assert brute_force_pairs(a, ONE_FACE, apart, ONE_FACE).shape == (0, 2)


def _flat_grid(n):
    """``n x n`` unit cells in z = 0, two triangles per cell (diagonal (i, j) -> (i+1, j+1)).
    Returns vertices ``((n+1)^2, 3) float64`` and faces ``(2 n^2, 3) int32``; the triangles of
    cell ``(i, j)`` are faces ``2 (i n + j)`` (lower) and ``2 (i n + j) + 1`` (upper)."""
    ii, jj = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    vertices = np.stack([ii.ravel(), jj.ravel(), np.zeros(ii.size)], axis=1).astype(float)
    faces = []
    for i in range(n):
        for j in range(n):
            v00, v10 = i * (n + 1) + j, (i + 1) * (n + 1) + j
            v01, v11 = v00 + 1, v10 + 1
            faces.append([v00, v10, v11])
            faces.append([v00, v11, v01])
    return vertices, np.array(faces, dtype=np.int32)


def _wall(x, n):
    """One big vertical triangle in the plane ``x = const``, covering y in [0, n], z in [-1, 1]
    well beyond the grid. Returns ``(3, 3) float64`` vertices and one face."""
    vertices = np.array([[x, -n, -1.0], [x, 3.0 * n, -1.0], [x, n / 2, 3.0]])
    return vertices, ONE_FACE


@pytest.mark.parametrize("n", [5, 12])
def test_wall_through_cell_centres_crosses_one_column(n):
    va, fa = _flat_grid(n)
    vb, fb = _wall(2.5, n)
    pairs, kinds = brute_force_contacts(va, fa, vb, fb)
    expected = sorted([2 * (2 * n + j) + k, 0] for j in range(n) for k in range(2))
    assert pairs.tolist() == expected
    assert (kinds == int(ContactKind.CROSSING)).all()


def test_wall_along_grid_line_touches_two_columns():
    n = 6
    va, fa = _flat_grid(n)
    vb, fb = _wall(2.0, n)
    pairs, kinds = brute_force_contacts(va, fa, vb, fb)
    expected = sorted([2 * (i * n + j) + k, 0] for i in (1, 2) for j in range(n) for k in range(2))
    assert pairs.tolist() == expected
    assert (kinds == int(ContactKind.TOUCHING)).all()


def test_grid_on_itself_shifted_by_a_whole_cell():
    """Coplanar meshes: cells on top of each other are COPLANAR, neighbours only TOUCHING."""
    n = 4
    va, fa = _flat_grid(n)
    vb = va + [1.0, 0.0, 0.0]
    pairs, kinds = brute_force_contacts(va, fa, vb, fa)
    coplanar = {tuple(p) for p, k in zip(pairs, kinds, strict=True) if k == ContactKind.COPLANAR}
    # Cell (i, j) of B sits on cell (i + 1, j) of A: same two triangles, face ids offset by 2n.
    expected = {(f + 2 * n, f) for f in range(2 * n * (n - 1))}
    assert coplanar == expected
    assert set(kinds.tolist()) == {int(ContactKind.COPLANAR), int(ContactKind.TOUCHING)}


def _soup(rng, n, size, degenerate_share=0.0):
    """Random small triangles in the unit cube, some made degenerate (repeated corner, collinear
    corners, or a single point). Returns ``(3n, 3) float64`` vertices and ``(n, 3) int32`` faces."""
    tris = rng.random((n, 1, 3)) + size * (rng.random((n, 3, 3)) - 0.5)
    ids = np.flatnonzero(rng.random(n) < degenerate_share)
    how = rng.integers(0, 3, len(ids))
    repeat, collinear, point = ids[how == 0], ids[how == 1], ids[how == 2]
    tris[repeat, 2] = tris[repeat, 0]
    tris[collinear, 2] = 0.3 * tris[collinear, 0] + 0.7 * tris[collinear, 1]
    tris[point, 1] = tris[point, 0]
    tris[point, 2] = tris[point, 0]
    return tris.reshape(-1, 3), np.arange(3 * n, dtype=np.int32).reshape(n, 3)


def _tritri_all_pairs(va, fa, vb, fb):
    ids_a, ids_b = np.meshgrid(np.arange(len(fa)), np.arange(len(fb)), indexing="ij")
    pair_ids = np.stack([ids_a.ravel(), ids_b.ravel()], axis=1)
    kinds = np.empty(len(pair_ids), dtype=np.int8)
    segs = np.empty((len(pair_ids), 2, 3))
    tri_tri_batch(va, fa, vb, fb, pair_ids, kinds, segs)
    hit = kinds != 0
    return pair_ids[hit], kinds[hit]


@pytest.mark.parametrize("seed", [10, 11, 12])
def test_degenerate_soup_matches_tritri(seed):
    """Half the triangles degenerate: the segment/point paths of both modules agree."""
    rng = np.random.default_rng(seed)
    va, fa = _soup(rng, 400, 0.25, degenerate_share=0.5)
    vb, fb = _soup(rng, 400, 0.25, degenerate_share=0.5)
    pairs, kinds = brute_force_contacts(va, fa, vb, fb)
    ref_pairs, ref_kinds = _tritri_all_pairs(va, fa, vb, fb)
    np.testing.assert_array_equal(pairs, ref_pairs)
    np.testing.assert_array_equal(kinds, ref_kinds)
    assert (kinds == int(ContactKind.TOUCHING)).sum() > 10  # degenerate contacts happened


def test_point_and_segment_soups_in_one_plane():
    """Two degenerate soups in the same plane z = 0: segments that cross or touch exactly."""
    rng = np.random.default_rng(3)
    n = 150
    a = rng.random((n, 3, 3)) * [1, 1, 0]
    a[:, 2] = a[:, 1]  # segments a0-a1
    b = rng.random((n, 3, 3)) * [1, 1, 0]
    b[:, 2] = b[:, 1]
    faces = np.arange(3 * n, dtype=np.int32).reshape(n, 3)
    pairs, kinds = brute_force_contacts(a.reshape(-1, 3), faces, b.reshape(-1, 3), faces)
    ref_pairs, ref_kinds = _tritri_all_pairs(a.reshape(-1, 3), faces, b.reshape(-1, 3), faces)
    np.testing.assert_array_equal(pairs, ref_pairs)
    np.testing.assert_array_equal(kinds, ref_kinds)
    assert len(pairs) > 30


def test_output_format_and_chunking():
    rng = np.random.default_rng(5)
    va, fa = _soup(rng, 300, 0.25)
    vb, fb = _soup(rng, 250, 0.25)
    pairs, kinds = brute_force_contacts(va, fa, vb, fb)
    assert pairs.dtype == np.int64 and pairs.ndim == 2 and pairs.shape[1] == 2
    assert kinds.dtype == np.int8 and kinds.shape == (len(pairs),)
    assert len(pairs) > 50
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    np.testing.assert_array_equal(order, np.arange(len(pairs)))
    assert len(np.unique(pairs, axis=0)) == len(pairs)
    for chunk in (1, 999, 10**9):
        small_pairs, small_kinds = brute_force_contacts(va, fa, vb, fb, chunk_pairs=chunk)
        np.testing.assert_array_equal(small_pairs, pairs)
        np.testing.assert_array_equal(small_kinds, kinds)
    np.testing.assert_array_equal(brute_force_pairs(va, fa, vb, fb), pairs)
    # Swapping the meshes swaps the columns.
    swapped = brute_force_pairs(vb, fb, va, fa)
    back = swapped[:, ::-1]
    np.testing.assert_array_equal(back[np.lexsort((back[:, 1], back[:, 0]))], pairs)


def test_no_contact_gives_empty_arrays():
    rng = np.random.default_rng(6)
    va, fa = _soup(rng, 50, 0.1)
    vb, fb = _soup(rng, 50, 0.1)
    pairs, kinds = brute_force_contacts(va, fa, vb + 10.0, fb)
    assert pairs.shape == (0, 2) and pairs.dtype == np.int64
    assert kinds.shape == (0,) and kinds.dtype == np.int8
