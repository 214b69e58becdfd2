"""Exact triangle-triangle test: hand cases, properties, and agreement with the brute oracle."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from core.collide.brute import brute_force_contacts
from core.collide.tritri import ContactKind, tri_tri, tri_tri_batch, tri_tri_contact
from core.settings import DEFAULT_TOLERANCES, Tolerances
from tests.core.meshgen import closest_point_on_triangle

MESH_DIR = Path("/work/shared/data/meshes")
TRI_REL = DEFAULT_TOLERANCES.tri_rel

D, X, T, C = ContactKind.DISJOINT, ContactKind.CROSSING, ContactKind.TOUCHING, ContactKind.COPLANAR

# The reference triangle of most hand cases: right triangle in z = 0, legs 4 along x and y.
P = [[0, 0, 0], [4, 0, 0], [0, 4, 0]]

# (name, triangle a, triangle b, expected kind, expected segment or None for DISJOINT).
HAND_CASES = [
    (
        "crossing_x",
        P,
        [[1, -1, -1], [1, 2, -1], [1, 0.5, 2]],
        X,
        [[1, 0, 0], [1, 1.5, 0]],
    ),
    ("vertex_on_face", P, [[1, 1, 0], [2, 1, 2], [1, 2, 2]], T, [[1, 1, 0], [1, 1, 0]]),
    ("edge_touches_edge", P, [[2, -1, 1], [2, 1, -1], [2, -3, -3]], T, [[2, 0, 0], [2, 0, 0]]),
    ("edge_in_face", P, [[1, 1, 0], [2, 1, 0], [1.5, 1, 2]], T, [[1, 1, 0], [2, 1, 0]]),
    ("vertex_on_vertex", P, [[4, 0, 0], [5, 1, 1], [5, -1, 1]], T, [[4, 0, 0], [4, 0, 0]]),
    ("coplanar_overlap", P, [[1, 1, 0], [5, 1, 0], [1, 5, 0]], C, [[3, 1, 0], [1, 3, 0]]),
    ("coplanar_identical", P, P, C, [[4, 0, 0], [0, 4, 0]]),
    ("coplanar_inside", P, [[1, 1, 0], [2, 1, 0], [1, 2, 0]], C, [[2, 1, 0], [1, 2, 0]]),
    ("coplanar_disjoint", P, [[3, 3, 0], [5, 3, 0], [3, 5, 0]], D, None),
    ("coplanar_shared_edge", P, [[4, 0, 0], [0, 4, 0], [4, 4, 0]], T, [[4, 0, 0], [0, 4, 0]]),
    ("coplanar_shared_vertex", P, [[4, 0, 0], [6, 0, 0], [6, 2, 0]], T, [[4, 0, 0], [4, 0, 0]]),
    ("far_apart", P, [[100, 0, 0], [104, 0, 0], [100, 4, 0]], D, None),
    ("parallel_planes", P, [[0, 0, 1], [4, 0, 1], [0, 4, 1]], D, None),
    ("above_no_contact", P, [[1, 1, 0.5], [2, 1, 2], [1, 2, 2]], D, None),
    ("repeated_vertex_crossing", P, [[1, 1, -1], [1, 1, -1], [1, 1, 1]], T, [[1, 1, 0], [1, 1, 0]]),
    ("repeated_vertex_missing", P, [[5, 5, -1], [5, 5, -1], [5, 5, 1]], D, None),
    ("collinear_crossing", P, [[1, 1, -1], [1, 1, 0.5], [1, 1, 1]], T, [[1, 1, 0], [1, 1, 0]]),
    ("collinear_missing", P, [[5, 5, -1], [5, 5, 0.5], [5, 5, 1]], D, None),
    ("collinear_in_plane", P, [[-1, 1, 0], [2, 1, 0], [5, 1, 0]], T, [[0, 1, 0], [3, 1, 0]]),
    ("point_on_face", P, [[1, 1, 0], [1, 1, 0], [1, 1, 0]], T, [[1, 1, 0], [1, 1, 0]]),
    ("point_off_face", P, [[1, 1, 1], [1, 1, 1], [1, 1, 1]], D, None),
    (
        "segments_cross",
        [[0, 0, 0], [2, 2, 0], [4, 4, 0]],
        [[0, 4, 0], [4, 0, 0], [4, 0, 0]],
        T,
        [[2, 2, 0], [2, 2, 0]],
    ),
    (
        "segments_skew",
        [[0, 0, 0], [2, 2, 0], [4, 4, 0]],
        [[0, 4, 1], [4, 0, 1], [4, 0, 1]],
        D,
        None,
    ),
    (
        "segments_collinear_overlap",
        [[0, 0, 0], [1, 0, 0], [3, 0, 0]],
        [[2, 0, 0], [5, 0, 0], [5, 0, 0]],
        T,
        [[2, 0, 0], [3, 0, 0]],
    ),
    ("points_equal", [[1, 2, 3]] * 3, [[1, 2, 3]] * 3, T, [[1, 2, 3], [1, 2, 3]]),
    ("points_apart", [[1, 2, 3]] * 3, [[1, 2, 4]] * 3, D, None),
]


def _same_segment(seg, expected, atol):
    seg = np.asarray(seg, dtype=float)
    expected = np.asarray(expected, dtype=float)
    return np.allclose(seg, expected, atol=atol) or np.allclose(seg, expected[::-1], atol=atol)


def _distance_to_triangle(x, tri):
    return float(np.linalg.norm(x - closest_point_on_triangle(x, *tri)))


def _pair_eps(a, b):
    tris = np.stack([a, b])
    return TRI_REL * np.linalg.norm(np.roll(tris, -1, axis=1) - tris, axis=-1).max()


# ----------------------------------------------------------------------------------------------
# Hand cases


@pytest.mark.parametrize(
    "name, a, b, kind, segment", HAND_CASES, ids=[case[0] for case in HAND_CASES]
)
def test_hand_case(name, a, b, kind, segment):
    a = np.array(a, dtype=float)
    b = np.array(b, dtype=float)
    got_kind, seg = tri_tri(a, b)
    assert got_kind == kind
    if segment is None:
        assert np.isnan(seg).all()
        return
    assert _same_segment(seg, segment, atol=1e-12)
    # The endpoints lie on both triangles (within the tolerance).
    eps = _pair_eps(a, b)
    for x in seg:
        assert _distance_to_triangle(x, a) <= eps
        assert _distance_to_triangle(x, b) <= eps
    # Swapping the triangles changes nothing but the endpoint order.
    kind_ba, seg_ba = tri_tri(b, a)
    assert kind_ba == kind
    assert _same_segment(seg_ba, segment, atol=1e-12)


def test_tolerance_is_relative_to_triangle_size():
    """A vertex counts as on the face within tri_rel * longest edge, at any scale."""
    a = np.array(P, dtype=float)
    longest = 4 * np.sqrt(2)
    for scale in (1e-6, 1.0, 1e6):
        eps = TRI_REL * longest * scale
        for offset, expected in ((0.5 * eps, T), (-0.5 * eps, T), (3 * eps, D)):
            b = np.array([[1, 1, 0], [2, 1, 2], [1, 2, 2]], dtype=float) * scale
            b[0, 2] = offset
            assert tri_tri(a * scale, b)[0] == expected, (scale, offset)


def test_coplanar_within_tolerance_and_not_beyond():
    a = np.array(P, dtype=float)
    b = np.array([[1, 1, 0], [5, 1, 0], [1, 5, 0]], dtype=float)
    eps = TRI_REL * 4 * np.sqrt(2)
    assert tri_tri(a, b + [0, 0, 0.5 * eps])[0] == C
    assert tri_tri(a, b + [0, 0, 3 * eps])[0] == D
    # A looser tolerance from the settings makes the same pair coplanar.
    assert tri_tri(a, b + [0, 0, 3 * eps], Tolerances(tri_rel=1e-9))[0] == C


def test_sliver_becomes_its_longest_edge():
    """A triangle thinner than the tolerance is tested as the segment it almost is."""
    a = np.array(P, dtype=float)
    eps = TRI_REL * 6
    sliver = np.array([[1, 1, -3], [1, 1, 3], [1, 1 + 0.1 * eps, 0.5]])
    kind, seg = tri_tri(a, sliver)
    assert kind == T
    assert _same_segment(seg, [[1, 1, 0], [1, 1, 0]], atol=1e-12)


def test_contact_kernel_and_batch_agree_with_wrapper():
    a_tris = np.array([case[1] for case in HAND_CASES], dtype=float)
    b_tris = np.array([case[2] for case in HAND_CASES], dtype=float)
    n = len(HAND_CASES)
    va = a_tris.reshape(-1, 3)
    vb = b_tris.reshape(-1, 3)
    faces = np.arange(3 * n, dtype=np.int32).reshape(n, 3)
    for ids_dtype in (np.int32, np.int64):
        pair_ids = np.stack([np.arange(n), np.arange(n)], axis=1).astype(ids_dtype)
        kinds = np.full(n, -1, dtype=np.int8)
        segs = np.zeros((n, 2, 3))
        tri_tri_batch(va, faces, vb, faces, pair_ids, TRI_REL, kinds, segs)
        assert kinds.tolist() == [int(case[3]) for case in HAND_CASES]
        for i, case in enumerate(HAND_CASES):
            if case[4] is not None:
                assert _same_segment(segs[i], case[4], atol=1e-12)
    seg = np.zeros((2, 3))
    kind = tri_tri_contact(a_tris[0, 0], a_tris[0, 1], a_tris[0, 2], *b_tris[0], TRI_REL, seg)
    assert kind == int(HAND_CASES[0][3])
    assert _same_segment(seg, HAND_CASES[0][4], atol=1e-12)


# ----------------------------------------------------------------------------------------------
# Properties. Corners on a small integer grid make touching and coplanar configurations common
# and exact, so every decision is either exactly on a boundary or far from it.

_coord = st.integers(-3, 3).map(float)
_corner = st.tuples(_coord, _coord, _coord)
_tri = st.tuples(_corner, _corner, _corner).map(lambda t: np.array(t, dtype=float))
_PERMS = list(itertools.permutations(range(3)))


@st.composite
def _tri_pairs(draw):
    """Two grid triangles: independent, coplanar (z = 0 or the tilted plane z = x), or sharing
    one or two corners; the special families are where exact contacts live."""
    a, b = draw(_tri), draw(_tri)
    family = draw(st.sampled_from(["free", "flat", "tilted", "shared"]))
    if family == "flat":
        a[:, 2] = 0.0
        b[:, 2] = 0.0
    elif family == "tilted":
        a[:, 2] = a[:, 0]
        b[:, 2] = b[:, 0] + draw(st.sampled_from([-1.0, 0.0, 1.0]))
    elif family == "shared":
        for k in range(draw(st.integers(1, 2))):
            b[k] = a[draw(st.integers(0, 2))]
    return a, b


def _seg_length(seg):
    return float(np.linalg.norm(seg[1] - seg[0]))


def _assert_same_result(ref, got, eps, transform=lambda x: x):
    """Same kind; same segment (mapped by ``transform``) up to endpoint order for CROSSING,
    same segment length otherwise (a coplanar overlap may have several farthest pairs)."""
    kind_ref, seg_ref = ref
    kind_got, seg_got = got
    assert kind_got == kind_ref
    if kind_ref == D:
        return
    seg_ref = np.array([transform(x) for x in seg_ref])
    if kind_ref == X:
        assert _same_segment(seg_got, seg_ref, atol=100 * eps)
    else:
        assert abs(_seg_length(seg_got) - _seg_length(seg_ref)) <= 100 * eps


@settings(max_examples=400, deadline=None)
@given(_tri_pairs())
def test_symmetric(pair):
    a, b = pair
    eps = _pair_eps(a, b)
    _assert_same_result(tri_tri(a, b), tri_tri(b, a), eps)


@settings(max_examples=150, deadline=None)
@given(_tri_pairs(), st.sampled_from(_PERMS), st.sampled_from(_PERMS))
def test_corner_order_does_not_matter(pair, perm_a, perm_b):
    a, b = pair
    eps = _pair_eps(a, b)
    _assert_same_result(tri_tri(a, b), tri_tri(a[list(perm_a)], b[list(perm_b)]), eps)


@settings(max_examples=300, deadline=None)
@given(_tri_pairs(), st.tuples(*[st.floats(-50, 50)] * 3))
def test_translation_invariant(pair, shift):
    a, b = pair
    shift = np.array(shift)
    eps = _pair_eps(a, b)
    _assert_same_result(
        tri_tri(a, b), tri_tri(a + shift, b + shift), eps, transform=lambda x: x + shift
    )


@settings(max_examples=300, deadline=None)
@given(_tri_pairs(), st.floats(-3, 3))
def test_scale_invariant(pair, log_scale):
    a, b = pair
    scale = 10.0**log_scale
    eps = _pair_eps(a, b)
    ref = tri_tri(a, b)
    kind, seg = tri_tri(a * scale, b * scale)
    _assert_same_result(ref, (kind, seg / scale if kind != D else seg), eps)


@settings(max_examples=400, deadline=None)
@given(_tri_pairs())
def test_segment_lies_on_both_triangles(pair):
    a, b = pair
    kind, seg = tri_tri(a, b)
    assume(kind != D)
    eps = _pair_eps(a, b)
    assert np.isfinite(seg).all()
    for x in seg:
        assert _distance_to_triangle(x, a) <= 10 * eps
        assert _distance_to_triangle(x, b) <= 10 * eps
    if kind == X:
        assert _seg_length(seg) > eps


@settings(max_examples=300, deadline=None)
@given(_tri_pairs())
def test_agrees_with_brute_oracle_on_grid_pairs(pair):
    a, b = pair
    """Even on exact touching and coplanar configurations, the kind matches the oracle's."""
    kind, _ = tri_tri(a, b)
    faces = np.array([[0, 1, 2]], dtype=np.int32)
    pairs, kinds = brute_force_contacts(a, faces, b, faces)
    assert (len(pairs) == 1) == (kind != D)
    if len(pairs):
        assert kinds[0] == kind


def _grid_family_pairs(rng, n):
    """``n`` grid triangle pairs ``(n, 3, 3) float64`` each, cycling through the families of
    :func:`_tri_pairs` (numpy version, for batch tests)."""
    a = rng.integers(-2, 3, (n, 3, 3)).astype(float)
    b = rng.integers(-2, 3, (n, 3, 3)).astype(float)
    family = np.arange(n) % 4
    flat, tilted, shared = family == 1, family == 2, family == 3
    a[flat, :, 2] = 0.0
    b[flat, :, 2] = 0.0
    a[tilted, :, 2] = a[tilted, :, 0]
    b[tilted, :, 2] = b[tilted, :, 0] + rng.integers(-1, 2, (tilted.sum(), 1))
    ids = np.flatnonzero(shared)
    b[ids, 0] = a[ids, rng.integers(0, 3, len(ids))]
    two = ids[rng.random(len(ids)) < 0.5]
    b[two, 1] = a[two, rng.integers(0, 3, len(two))]
    return a, b


@pytest.mark.parametrize("seed", [0, 1])
def test_grid_families_match_oracle_in_bulk(seed):
    """10 000 exact-contact-prone pairs, spread 100 apart on x so that only pair i of A meets
    pair i of B; one oracle call checks them all, kinds included."""
    n = 10_000
    a, b = _grid_family_pairs(np.random.default_rng(seed), n)
    spread = np.zeros((n, 1, 3))
    spread[:, 0, 0] = 100.0 * np.arange(n)
    a += spread
    b += spread
    faces = np.arange(3 * n, dtype=np.int32).reshape(n, 3)
    pair_ids = np.stack([np.arange(n), np.arange(n)], axis=1)
    kinds = np.empty(n, dtype=np.int8)
    segs = np.empty((n, 2, 3))
    tri_tri_batch(a.reshape(-1, 3), faces, b.reshape(-1, 3), faces, pair_ids, TRI_REL, kinds, segs)
    oracle_pairs, oracle_kinds = brute_force_contacts(
        a.reshape(-1, 3), faces, b.reshape(-1, 3), faces
    )
    hit = kinds != D
    np.testing.assert_array_equal(pair_ids[hit], oracle_pairs)
    np.testing.assert_array_equal(kinds[hit], oracle_kinds)
    # Every kind shows up in numbers, so this compares more than crossings.
    assert np.bincount(kinds, minlength=4).min() > 100


# ----------------------------------------------------------------------------------------------
# Agreement with the brute-force oracle on soups and real meshes.


def _read_obj(path):
    """Minimal OBJ reader: ``v`` and ``f`` lines, ``v/vt/vn`` indices, negative indices,
    polygons fanned into triangles. Returns ``(vertices (n, 3) float64, faces (m, 3) int32)``."""
    vertices, faces = [], []
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "v":
            vertices.append([float(x) for x in parts[1:4]])
        elif parts[0] == "f":
            ids = [int(p.split("/")[0]) for p in parts[1:]]
            ids = [i - 1 if i > 0 else len(vertices) + i for i in ids]
            faces.extend([ids[0], ids[k], ids[k + 1]] for k in range(1, len(ids) - 1))
    return np.array(vertices, dtype=np.float64), np.array(faces, dtype=np.int32)


def _unit_box(vertices):
    centre = 0.5 * (vertices.max(axis=0) + vertices.min(axis=0))
    return (vertices - centre) / np.ptp(vertices, axis=0).max()


def _tritri_pairs(va, fa, vb, fb):
    """Contacting pairs by tri_tri_batch over box-overlap candidates found here (a generous
    1e-6 margin, independent of the oracle's prefilter). Returns (pairs, kinds, segs)."""
    ta, tb = va[fa], vb[fb]
    margin = 1e-6 * max(np.ptp(va, axis=0).max(), np.ptp(vb, axis=0).max())
    bmin_b = tb.min(axis=1) - margin
    bmax_b = tb.max(axis=1) + margin
    blocks = []
    step = max(1, 2_000_000 // len(fb))
    for start in range(0, len(fa), step):
        amin = ta[start : start + step].min(axis=1) - margin
        amax = ta[start : start + step].max(axis=1) + margin
        overlap = np.all((amin[:, None] <= bmax_b[None]) & (amax[:, None] >= bmin_b[None]), axis=2)
        ids_a, ids_b = np.nonzero(overlap)
        blocks.append(np.stack([ids_a + start, ids_b], axis=1))
    pairs = np.concatenate(blocks).astype(np.int64)
    kinds = np.empty(len(pairs), dtype=np.int8)
    segs = np.empty((len(pairs), 2, 3))
    tri_tri_batch(va, fa, vb, fb, pairs, TRI_REL, kinds, segs)
    hit = kinds != D
    return pairs[hit], kinds[hit], segs[hit]


def _soup(rng, n, size):
    centres = rng.random((n, 1, 3))
    vertices = (centres + size * (rng.random((n, 3, 3)) - 0.5)).reshape(-1, 3)
    return vertices, np.arange(3 * n, dtype=np.int32).reshape(n, 3)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_random_soup_matches_oracle(seed):
    rng = np.random.default_rng(seed)
    va, fa = _soup(rng, 300, 0.2)
    vb, fb = _soup(rng, 300, 0.2)
    # Every pair, no prefilter: the kernel sees all 90 000.
    ids_a, ids_b = np.meshgrid(np.arange(300), np.arange(300), indexing="ij")
    pair_ids = np.stack([ids_a.ravel(), ids_b.ravel()], axis=1)
    kinds = np.empty(len(pair_ids), dtype=np.int8)
    segs = np.empty((len(pair_ids), 2, 3))
    tri_tri_batch(va, fa, vb, fb, pair_ids, TRI_REL, kinds, segs)
    hit = kinds != D
    oracle_pairs, oracle_kinds = brute_force_contacts(va, fa, vb, fb)
    assert len(oracle_pairs) > 20  # the soup is dense enough to test something
    np.testing.assert_array_equal(pair_ids[hit], oracle_pairs)
    np.testing.assert_array_equal(kinds[hit], oracle_kinds)
    # Generic random triangles only ever cross.
    assert set(kinds[hit].tolist()) == {int(X)}


@pytest.fixture(scope="module")
def real_meshes():
    spot = _read_obj(MESH_DIR / "spot.obj")
    teapot = _read_obj(MESH_DIR / "teapot.obj")
    return spot, teapot


def test_real_meshes_match_oracle(real_meshes):
    (va, fa), (vb, fb) = real_meshes
    assert len(fa) == 5856 and len(fb) == 6320
    va = _unit_box(va)
    vb = 0.9 * _unit_box(vb) + [0.2, 0.05, 0.0]
    pairs, kinds, segs = _tritri_pairs(va, fa, vb, fb)
    oracle_pairs, oracle_kinds = brute_force_contacts(va, fa, vb, fb)
    assert len(oracle_pairs) > 200
    np.testing.assert_array_equal(pairs, oracle_pairs)
    np.testing.assert_array_equal(kinds, oracle_kinds)
    # Every contact segment lies on both triangles.
    scale_eps = 10 * TRI_REL
    for (ia, ib), seg in zip(pairs[::7], segs[::7], strict=True):
        for x in seg:
            assert _distance_to_triangle(x, va[fa[ia]]) <= scale_eps
            assert _distance_to_triangle(x, vb[fb[ib]]) <= scale_eps


def test_mesh_against_slightly_rotated_copy_matches_oracle(real_meshes):
    """Neighbouring faces share vertices exactly: many touching contacts, not just crossings."""
    _, (v, f) = real_meshes
    v = _unit_box(v)
    angle = 1e-3
    rot = np.array(
        [[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0], [0, 0, 1]]
    )
    vb = v @ rot.T
    pairs, kinds, _ = _tritri_pairs(v, f, vb, f)
    oracle_pairs, oracle_kinds = brute_force_contacts(v, f, vb, f)
    np.testing.assert_array_equal(pairs, oracle_pairs)
    np.testing.assert_array_equal(kinds, oracle_kinds)
    assert (kinds == X).sum() > 1000 and (kinds == T).sum() > 50


def test_mesh_against_itself_matches_oracle(real_meshes):
    """Every face is coplanar with itself and touches its neighbours: exact, not generic."""
    (v, f), _ = real_meshes
    v = _unit_box(v)
    pairs, kinds, _ = _tritri_pairs(v, f, v, f)
    oracle_pairs, oracle_kinds = brute_force_contacts(v, f, v, f)
    np.testing.assert_array_equal(pairs, oracle_pairs)
    np.testing.assert_array_equal(kinds, oracle_kinds)
    diagonal = pairs[:, 0] == pairs[:, 1]
    assert diagonal.sum() == len(f)
    assert (kinds[diagonal] == C).all()
    assert (kinds[~diagonal] == T).all()
