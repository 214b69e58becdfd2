"""Exact triangle-triangle test: hand cases, exactness at the limits, properties, and agreement
with the rational referee (:mod:`core.collide.exact`)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from core.collide.exact import exact_contact
from core.collide.tritri import (
    MAX_SPREAD_LOG2,
    OUT_OF_RANGE,
    pair_in_range,
    tri_tri,
    tri_tri_batch,
    tri_tri_contact,
)
from core.jit.kernel_args import frozen
from tests.core.helpers import HAND_CASES, C, D, P, T, X
from tests.core.meshgen import closest_point_on_triangle

MESH_DIR = Path("/work/shared/data/meshes")
# The contact segment is a float64 approximation: its checks allow this much round-off relative
# to the pair's longest edge (the contact decision itself has no tolerance).
SEG_REL = 1e-12

def _same_segment(seg, expected, atol):
    seg = np.asarray(seg, dtype=float)
    expected = np.asarray(expected, dtype=float)
    return np.allclose(seg, expected, atol=atol) or np.allclose(seg, expected[::-1], atol=atol)


def _distance_to_triangle(x, tri):
    return float(np.linalg.norm(x - closest_point_on_triangle(x, *tri)))


def _pair_eps(a, b):
    tris = np.stack([a, b])
    return SEG_REL * np.linalg.norm(np.roll(tris, -1, axis=1) - tris, axis=-1).max()


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


def test_one_ulp_decides_at_any_scale():
    """A corner on the face touches; moved off the plane by one unit in the last place, it
    does not. The same at every power-of-two scale, subnormal numbers included."""
    for log_scale in (-1070, -600, -1, 0, 1, 500, 1000):
        scale = 2.0**log_scale
        a = np.array(P, dtype=float) * scale
        b = np.array([[1, 1, 0], [2, 1, 2], [1, 2, 2]], dtype=float) * scale
        assert tri_tri(a, b)[0] == T, log_scale
        tiny = np.nextafter(0.0, 1.0) if log_scale < -1000 else np.spacing(scale)
        for offset, expected in ((tiny, D), (-tiny, X)):
            moved = b.copy()
            moved[0, 2] = offset
            assert tri_tri(a, moved)[0] == expected, (log_scale, offset)
            assert exact_contact(a, moved) == expected


def test_coplanar_only_when_exactly_coplanar():
    a = np.array(P, dtype=float)
    b = np.array([[1, 1, 0], [5, 1, 0], [1, 5, 0]], dtype=float)
    assert tri_tri(a, b)[0] == C
    lift = 2.0**-200  # far below any tolerance, inside the guaranteed range
    lifted = b + [0, 0, lift]
    assert tri_tri(a, lifted)[0] == D
    assert exact_contact(a, lifted) == D
    tilted = b.copy()
    tilted[2, 2] = lift  # one corner off the plane: they meet along a segment
    assert tri_tri(a, tilted)[0] == T
    assert exact_contact(a, tilted) == T


def test_shared_vertex_moved_by_1e_15_still_crosses():
    """The issue's near-touching family: a shared corner moved by about 1e-15 leaves a crossing
    whose segment is 5e-16 long. The referee says CROSSING; the tolerance-based test called it
    TOUCHING (found by the SHARED_VERTEX_MOVED fuzz family)."""
    p = np.array([[-0.5121938886744517, -0.43409409082459294, -0.554301373012182],
                  [-0.6954004717387736, 0.2204634890322057, 0.7317316759535959],
                  [0.9080534179413029, -0.859555456119441, -0.02450830781093738]])
    q = np.array([[0.021683483239020696, 0.657519965803526, 0.4145482368818574],
                  [-0.5121938886744508, -0.43409409082459316, -0.5543013730121812],
                  [0.6040976862353868, -0.4772166772822868, -0.21857388743961592]])  # fmt: skip
    assert exact_contact(p, q) == X
    kind, seg = tri_tri(p, q)
    assert kind == X
    assert 0.0 < np.linalg.norm(seg[1] - seg[0]) < 1e-14


def test_near_miss_is_not_widened_into_a_contact():
    """Triangles 3e-13 apart (a shared corner and edge moved apart by ~1e-12, then swapped and
    permuted) do not touch: the referee says DISJOINT; the tolerance-based test said TOUCHING
    (found by the SWAPPED fuzz family)."""
    p = np.array([[-0.16237985519815457, -0.019231556394852373, -0.5094993410328361],
                  [-0.35262054823311395, 0.4042614447097208, -0.8335644621823697],
                  [-0.7813728340155621, -0.9299505237713861, 0.290138251548994]])
    q = np.array([[-0.1623798551931761, -0.01923155639591778, -0.5094993410319175],
                  [-0.7813728340155908, -0.9299505237715433, 0.2901382515487376],
                  [0.09014824351496187, -0.9988282729954481, 0.09928395281245672]])  # fmt: skip
    assert exact_contact(p, q) == D
    assert tri_tri(p, q)[0] == D
    assert tri_tri(q, p)[0] == D


def test_sliver_is_a_triangle_until_exactly_degenerate():
    """A needle thinner than any tolerance is still a triangle: it crosses, as the referee
    says; collapsed onto its long edge exactly it becomes a segment that touches."""
    a = np.array(P, dtype=float)
    sliver = np.array([[1, 1, -3], [1, 1, 3], [1, 1 + 1e-15, 0.5]])
    kind, seg = tri_tri(a, sliver)
    assert kind == X == exact_contact(a, sliver)
    assert _same_segment(seg, [[1, 1, 0], [1, 1, 0]], atol=1e-12)
    collapsed = sliver.copy()
    collapsed[2, 1] = 1.0
    kind, seg = tri_tri(a, collapsed)
    assert kind == T == exact_contact(a, collapsed)
    assert _same_segment(seg, [[1, 1, 0], [1, 1, 0]], atol=1e-12)


def test_coplanar_touching_contact_is_exact_corners():
    """Coplanar triangles with disjoint interiors meet in corners lying in both: the reported
    contact is those input points bit for bit (self-collision relies on it to drop neighbours
    that only share a corner), here on arbitrary floats in the plane z = 0.1."""
    rng = np.random.default_rng(4)
    for _ in range(200):
        v, a, b, c = rng.uniform(-1.0, 1.0, size=(4, 2))
        corners = [np.array([x, y, 0.1]) for x, y in (v, a, b, c)]
        v, a, b, c = corners
        p = np.stack([v, a, b])
        q = np.stack([v, 2 * v - a, 2 * v - b])  # mirrored through v: they share only v
        kind, seg = tri_tri(p, q)
        if exact_contact(p, q) == T:
            assert kind == T
            np.testing.assert_array_equal(seg, [v, v])
        shared_edge = np.stack([a, v, c])  # shares the edge (v, a) with p
        kind, seg = tri_tri(p, shared_edge)
        if kind == T:
            assert {tuple(seg[0]), tuple(seg[1])} <= {tuple(v), tuple(a)}


def test_out_of_range_pairs_are_rejected_with_one_line():
    a = np.array(P, dtype=float)
    b = np.array([[1, 1, -1], [1, 2, 1], [2, 1, 1]], dtype=float)
    spread = b.copy()
    spread[0, 0] = 2.0 ** -(MAX_SPREAD_LOG2 + 3)  # too small next to the other coordinates
    assert pair_in_range(a, b) and not pair_in_range(a, spread)
    for bad in (spread, np.where(b == 2.0, np.inf, b), np.where(b == 2.0, np.nan, b)):
        with pytest.raises(ValueError, match="outside the exact triangle test's range") as info:
            tri_tri(a, bad)
        assert "\n" not in str(info.value)
        seg = np.zeros((2, 3))
        ra, rbad = frozen(a), frozen(bad)  # read-only corners, as tri_tri passes: its signature
        assert tri_tri_contact(ra[0], ra[1], ra[2], rbad[0], rbad[1], rbad[2], seg) == OUT_OF_RANGE
        assert np.isnan(seg).all()
    # At the limit of the range the answer is still exact.
    edge = b.copy()
    edge[0, 0] = 4.0 * 2.0**-MAX_SPREAD_LOG2
    assert pair_in_range(a, edge)
    assert tri_tri(a, edge)[0] == exact_contact(a, edge)


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
        tri_tri_batch(va, faces, vb, faces, pair_ids, kinds, segs)
        assert kinds.tolist() == [int(case[3]) for case in HAND_CASES]
        for i, case in enumerate(HAND_CASES):
            if case[4] is not None:
                assert _same_segment(segs[i], case[4], atol=1e-12)
    seg = np.zeros((2, 3))
    ra, rb = frozen(a_tris[0]), frozen(b_tris[0])  # read-only corners, as tri_tri passes
    kind = tri_tri_contact(ra[0], ra[1], ra[2], *rb, seg)
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


_EXACT_SHIFT = st.integers(-400, 400).map(lambda k: k / 8.0)


@settings(max_examples=300, deadline=None)
@given(_tri_pairs(), st.tuples(*[_EXACT_SHIFT] * 3))
def test_translation_invariant(pair, shift):
    """Shifts by multiples of 1/8 keep these grid corners exact, so the exact answer cannot
    change (an inexact shift rounds the corners and may rightly change it)."""
    a, b = pair
    shift = np.array(shift)
    eps = SEG_REL * 100.0  # round-off of segment ends at coordinates up to about 53
    _assert_same_result(
        tri_tri(a, b), tri_tri(a + shift, b + shift), eps, transform=lambda x: x + shift
    )


@settings(max_examples=300, deadline=None)
@given(_tri_pairs(), st.integers(-1070, 1020))
def test_power_of_two_scale_invariant(pair, log_scale):
    """Over the whole float64 range, subnormal numbers included: the kernel scales each pair by
    a power of two itself, so the kind is the same and so is the segment (exactly, while the
    scaled segment is a normal number)."""
    a, b = pair
    scale = 2.0**log_scale
    ref_kind, ref_seg = tri_tri(a, b)
    kind, seg = tri_tri(a * scale, b * scale)
    assert kind == ref_kind
    if log_scale >= -1000 and kind != D:
        np.testing.assert_array_equal(seg / scale, ref_seg)


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
def test_agrees_with_rational_referee_on_grid_pairs(pair):
    """Even on exact touching and coplanar configurations, the kind is the referee's."""
    a, b = pair
    assert tri_tri(a, b)[0] == exact_contact(a, b)


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
def test_grid_families_in_bulk_match_referee(seed):
    """4000 exact-contact-prone pairs through the batch kernel, spread 128 apart on x (an exact
    translation of integer corners) so that the batch sees far-off coordinates; the kinds are
    the referee's on the unshifted pairs."""
    n = 4000
    a, b = _grid_family_pairs(np.random.default_rng(seed), n)
    spread = np.zeros((n, 1, 3))
    spread[:, 0, 0] = 128.0 * np.arange(n)
    faces = np.arange(3 * n, dtype=np.int32).reshape(n, 3)
    pair_ids = np.stack([np.arange(n), np.arange(n)], axis=1)
    kinds = np.empty(n, dtype=np.int8)
    segs = np.empty((n, 2, 3))
    tri_tri_batch((a + spread).reshape(-1, 3), faces, (b + spread).reshape(-1, 3), faces,
                  pair_ids, kinds, segs)  # fmt: skip
    expected = [exact_contact(p, q) for p, q in zip(a.tolist(), b.tolist(), strict=True)]
    np.testing.assert_array_equal(kinds, expected)
    # Every kind shows up in numbers, so this compares more than crossings.
    assert np.bincount(kinds, minlength=4).min() > 40


# ----------------------------------------------------------------------------------------------
# Soups and real meshes: the kernel's kinds against the rational referee, on every contact (or
# a sample of them) and a sample of the non-contacting candidates.


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


def _tritri_pairs(va, fa, vb, fb, referee_sample=400):
    """Contacting pairs by tri_tri_batch over box-overlap candidates found here (a generous
    1e-6 margin). Up to ``referee_sample`` contacting and as many non-contacting candidates are
    checked against the rational referee. Returns (pairs, kinds, segs)."""
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
    tri_tri_batch(va, fa, vb, fb, pairs, kinds, segs)
    _assert_referee_agrees(va, fa, vb, fb, pairs, kinds, referee_sample)
    hit = kinds != D
    return pairs[hit], kinds[hit], segs[hit]


def _assert_referee_agrees(va, fa, vb, fb, pairs, kinds, n_sample, seed=0):
    """The referee's kind on up to ``n_sample`` contacting and ``n_sample`` other pairs."""
    rng = np.random.default_rng(seed)
    hit = np.flatnonzero(kinds != D)
    miss = np.flatnonzero(kinds == D)
    chosen = np.concatenate([rng.permutation(hit)[:n_sample], rng.permutation(miss)[:n_sample]])
    for i in chosen:
        ia, ib = pairs[i]
        assert kinds[i] == exact_contact(va[fa[ia]], vb[fb[ib]]), (ia, ib)


def _soup(rng, n, size):
    centres = rng.random((n, 1, 3))
    vertices = (centres + size * (rng.random((n, 3, 3)) - 0.5)).reshape(-1, 3)
    return vertices, np.arange(3 * n, dtype=np.int32).reshape(n, 3)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_soup_matches_referee(seed):
    rng = np.random.default_rng(seed)
    va, fa = _soup(rng, 300, 0.2)
    vb, fb = _soup(rng, 300, 0.2)
    # Every pair, no prefilter: the kernel sees all 90 000.
    ids_a, ids_b = np.meshgrid(np.arange(300), np.arange(300), indexing="ij")
    pair_ids = np.stack([ids_a.ravel(), ids_b.ravel()], axis=1)
    kinds = np.empty(len(pair_ids), dtype=np.int8)
    segs = np.empty((len(pair_ids), 2, 3))
    tri_tri_batch(va, fa, vb, fb, pair_ids, kinds, segs)
    hit = kinds != D
    assert hit.sum() > 20  # the soup is dense enough to test something
    _assert_referee_agrees(va, fa, vb, fb, pair_ids, kinds, 300, seed)
    # Generic random triangles only ever cross.
    assert set(kinds[hit].tolist()) == {int(X)}


@pytest.fixture(scope="module")
def real_meshes():
    spot = _read_obj(MESH_DIR / "spot.obj")
    teapot = _read_obj(MESH_DIR / "teapot.obj")
    return spot, teapot


def test_real_meshes_match_referee(real_meshes):
    (va, fa), (vb, fb) = real_meshes
    assert len(fa) == 5856 and len(fb) == 6320
    va = _unit_box(va)
    vb = 0.9 * _unit_box(vb) + [0.2, 0.05, 0.0]
    pairs, kinds, segs = _tritri_pairs(va, fa, vb, fb)
    assert len(pairs) > 200
    # Every contact segment lies on both triangles, up to float round-off.
    scale_eps = 10 * SEG_REL
    for (ia, ib), seg in zip(pairs[::7], segs[::7], strict=True):
        for x in seg:
            assert _distance_to_triangle(x, va[fa[ia]]) <= scale_eps
            assert _distance_to_triangle(x, vb[fb[ib]]) <= scale_eps


def test_mesh_against_slightly_rotated_copy_matches_referee(real_meshes):
    """Neighbouring faces share vertices exactly: many touching contacts, not just crossings."""
    _, (v, f) = real_meshes
    v = _unit_box(v)
    angle = 1e-3
    rot = np.array(
        [[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0], [0, 0, 1]]
    )
    vb = v @ rot.T
    pairs, kinds, _ = _tritri_pairs(v, f, vb, f)
    assert (kinds == X).sum() > 1000 and (kinds == T).sum() > 50


def test_mesh_against_itself_matches_referee(real_meshes):
    """Every face is coplanar with itself and touches its neighbours: exact, not generic."""
    (v, f), _ = real_meshes
    v = _unit_box(v)
    pairs, kinds, _ = _tritri_pairs(v, f, v, f)
    diagonal = pairs[:, 0] == pairs[:, 1]
    assert diagonal.sum() == len(f)
    assert (kinds[diagonal] == C).all()
    assert (kinds[~diagonal] == T).all()
