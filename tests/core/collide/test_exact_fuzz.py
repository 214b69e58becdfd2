"""The exact float64 triangle test against the rational referee, pair by pair.

Both decide exactly, so every kind must agree. Hypothesis explores (and shrinks) hand-built
integer families where touching, coplanar, edge-edge, vertex-face, sliver and degenerate cases
are frequent; seeded numpy loops add volume, on the integer families and on the float families
of issue 10 (corners moved by 1e-15 to 1e-10, corners rounded onto faces and edges, slivers,
degenerate floats, rotations, power-of-two scalings over the whole range, swaps and corner
permutations). ``python -m core.collide.exact --pairs 1000000`` is the long run.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.collide.exact import compare, exact_contact, main
from core.collide.exact_pairs import FloatFamily, PairFamily, float_pairs, random_pairs
from core.collide.tritri import ContactKind, tri_tri
from tests.core.helpers import HAND_CASES

D, X, T, C = ContactKind.DISJOINT, ContactKind.CROSSING, ContactKind.TOUCHING, ContactKind.COPLANAR

# ------------------------------------------------------------------------------------------
# The oracle itself.


@pytest.mark.parametrize(("name", "a", "b", "kind", "segment"), HAND_CASES, ids=lambda v: v
                         if isinstance(v, str) else "")  # fmt: skip
def test_oracle_on_the_hand_cases_of_the_float_test(name, a, b, kind, segment):
    assert exact_contact(a, b) == kind
    assert exact_contact(b, a) == kind


P = [[0, 0, 0], [4, 0, 0], [0, 4, 0]]

ORACLE_CASES = [
    # Non-coplanar triangles whose segments on the planes' line meet in one point, each
    # straddling the other's plane: a point contact is TOUCHING, not CROSSING.
    ("crossing_edges_meet_in_a_point", P, [[2, -1, 1], [2, 1, -1], [2, -3, -3]], T),
    ("vertex_through_edge", P, [[4, 0, 0], [5, 1, 1], [5, 1, -1]], T),
    ("fold_along_shared_edge", P, [[0, 0, 0], [4, 0, 0], [0, -4, 1]], T),
    ("folded_back_onto_itself", P, [[0, 0, 0], [4, 0, 0], [1, 1, 0]], C),
    ("coplanar_edge_overlap_only", P, [[1, 0, 0], [3, 0, 0], [2, -3, 0]], T),
    ("coplanar_corner_touch", P, [[4, 0, 0], [5, -1, 0], [6, 0, 0]], T),
    ("coplanar_miss_by_one", P, [[3, 2, 0], [6, 2, 0], [3, 5, 0]], D),
    ("parallel_plane_above", P, [[0, 0, 1], [1, 0, 1], [0, 1, 1]], D),
    ("repeated_corner_on_edge", P, [[2, 0, 0], [2, 0, 0], [2, 0, 3]], T),
    ("point_on_corner", P, [[4, 0, 0], [4, 0, 0], [4, 0, 0]], T),
    ("point_just_outside", P, [[3, 2, 0], [3, 2, 0], [3, 2, 0]], D),
    ("collinear_segments_overlap", [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
     [[1, 0, 0], [3, 0, 0], [2, 0, 0]], T),  # fmt: skip
    ("collinear_segments_apart", [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
     [[3, 0, 0], [5, 0, 0], [4, 0, 0]], D),  # fmt: skip
    ("skew_segments", [[0, 0, 0], [2, 0, 0], [1, 0, 0]], [[1, -1, 1], [1, 1, 1], [1, 0, 1]], D),
    ("rational_crossing", P, [[Fraction(1, 3), -1, -1], [Fraction(1, 3), 2, -1],
                              [Fraction(1, 3), Fraction(1, 2), 2]], X),  # fmt: skip
]


@pytest.mark.parametrize(("name", "a", "b", "kind"), ORACLE_CASES, ids=[c[0] for c in ORACLE_CASES])
def test_oracle_hand_cases(name, a, b, kind):
    assert exact_contact(a, b) == kind
    assert exact_contact(b, a) == kind


def test_oracle_is_invariant_under_symmetries():
    """Swapping the triangles, permuting corners, integer translation and scaling never change
    an exact answer."""
    pairs, _ = random_pairs(300, seed=11)
    perms = list(itertools.permutations(range(3)))
    rng = np.random.default_rng(5)
    seen = set()
    for p, q in pairs:
        kind = exact_contact(p, q)
        seen.add(kind)
        pa = perms[rng.integers(6)]
        pb = perms[rng.integers(6)]
        shift = rng.integers(-5, 6, size=3)
        scale = int(rng.integers(2, 5))
        assert exact_contact(q, p) == kind
        assert exact_contact(p[list(pa)], q[list(pb)]) == kind
        assert exact_contact(p * scale + shift, q * scale + shift) == kind
    assert seen == set(ContactKind)


# ------------------------------------------------------------------------------------------
# Hypothesis: families of integer pairs, float64 kind == exact kind.

COORD = st.integers(-4, 4)
POINT = st.lists(COORD, min_size=3, max_size=3)
TRI = st.lists(POINT, min_size=3, max_size=3).map(np.array)
HALF = st.integers(-2, 4)  # barycentric coordinates in halves, inside and beyond the triangle


@st.composite
def integer_pairs(draw):
    """(family name, P (3, 3) int64, Q (3, 3) int64) with a special relation between them."""
    family = draw(st.sampled_from(list(PairFamily)))
    p = draw(TRI)
    q = draw(TRI)

    def in_plane():
        a, b = draw(HALF), draw(HALF)
        return 2 * p[0] + a * (p[1] - p[0]) + b * (p[2] - p[0])

    if family == PairFamily.SHARED_VERTEX:
        q[draw(st.integers(0, 2))] = p[draw(st.integers(0, 2))]
    elif family == PairFamily.SHARED_EDGE:
        e = draw(st.integers(0, 2))
        q[0], q[1] = p[e], p[(e + 1) % 3]
        if draw(st.booleans()):
            q = 2 * q
            q[2] = in_plane()
            p = 2 * p
    elif family == PairFamily.COPLANAR:
        q = np.array([in_plane() for _ in range(3)])
        p = 2 * p
    elif family == PairFamily.ONE_IN_PLANE:
        k = draw(st.integers(1, 2))
        q = 2 * q
        for i in range(k):
            q[i] = in_plane()
        p = 2 * p
    elif family == PairFamily.ON_EDGE:
        e = draw(st.integers(0, 2))
        t = draw(st.integers(-1, 3))
        q = 2 * q
        q[0] = 2 * p[e] + t * (p[(e + 1) % 3] - p[e])
        p = 2 * p
    elif family == PairFamily.DEGENERATE:
        for t in draw(st.sampled_from([(p,), (q,), (p, q)])):
            if draw(st.booleans()):
                t[2] = t[draw(st.integers(0, 1))]
            else:
                t[2] = t[0] + draw(st.integers(-2, 2)) * (t[1] - t[0])
    elif family == PairFamily.SLIVER:
        t = p if draw(st.booleans()) else q
        t[1] = t[0] + 4 * (t[1] - t[0])
        t[2] = (t[0] + t[1]) // 2 + np.array(draw(st.lists(st.integers(-1, 1), min_size=3,
                                                            max_size=3)))  # fmt: skip
    elif family == PairFamily.NEAR:
        unit = np.sign(np.cross(p[1] - p[0], p[2] - p[0]))
        q[0] = p[draw(st.integers(0, 2))] + unit
    return family.name.lower(), p, q


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(integer_pairs())
def test_float_kind_equals_exact_kind(case):
    family, p, q = case
    expected = exact_contact(p, q)
    kind, _ = tri_tri(p.astype(np.float64), q.astype(np.float64))
    assert kind == expected, f"{family}: P={p.tolist()} Q={q.tolist()}"


# ------------------------------------------------------------------------------------------
# Bulk volume: seeded numpy families through the batch kernel.

# 3 x 4000 bulk pairs + 1500 hypothesis examples: more than the 1e4 pairs the CI run promises.
BULK_SEEDS = (0, 1, 2)
BULK_PAIRS = 4000


@pytest.mark.parametrize("seed", BULK_SEEDS)
def test_bulk_integer_pairs_agree_with_exact(seed):
    pairs, families = random_pairs(BULK_PAIRS, seed=seed)
    exact, fast = compare(pairs)
    wrong = np.flatnonzero(exact != fast)
    assert wrong.size == 0, [
        (pairs[i].tolist(), ContactKind(exact[i]).name, ContactKind(fast[i]).name)
        for i in wrong[:5]
    ]
    # The families make every kind common, so agreement is not just on easy disjoint pairs.
    share = np.bincount(exact, minlength=4) / BULK_PAIRS
    assert share[int(T)] > 0.2
    assert share[int(C)] > 0.05
    assert share[int(X)] > 0.05
    assert share[int(D)] > 0.2
    assert set(np.unique(families)) == {int(f) for f in PairFamily}


FLOAT_PAIRS_PER_FAMILY = 2000


def test_float_families_agree_with_exact():
    """About 2000 pairs of each float family (18 000 in all); every family must show both
    contact and no contact, so the agreement is not on easy answers only."""
    n = FLOAT_PAIRS_PER_FAMILY * len(FloatFamily)
    pairs, families = float_pairs(n, seed=21)
    exact, fast = compare(pairs)
    wrong = np.flatnonzero(exact != fast)
    assert wrong.size == 0, [
        (FloatFamily(families[i]).name, pairs[i].tolist(), int(exact[i]), int(fast[i]))
        for i in wrong[:5]
    ]
    for fam in FloatFamily:
        kinds = exact[families == fam]
        assert len(kinds) > FLOAT_PAIRS_PER_FAMILY * 0.8, fam
        assert (kinds == int(D)).any() and (kinds != int(D)).any(), fam
    # The scaled family really spans the range: magnitudes from below 1e-250 to above 1e250.
    scaled = np.abs(pairs[families == FloatFamily.SCALED]).max(axis=(1, 2, 3))
    assert scaled.min() < 1e-250 and scaled.max() > 1e250
    assert share_touching(exact, families, FloatFamily.VERTEX_ON_FACE) > 0.1


def share_touching(exact, families, fam):
    kinds = exact[families == fam]
    return float(np.mean(kinds == int(T)))


def test_swapped_family_is_the_same_pair_swapped():
    """The swapped pairs are built from the same generator: swapping back gives the kernel
    the same answer (it is exact, so symmetric by construction)."""
    pairs, families = float_pairs(3000, seed=5)
    swapped = pairs[families == FloatFamily.SWAPPED]
    back = swapped[:, ::-1]
    _, fast = compare(swapped)
    _, fast_back = compare(back)
    np.testing.assert_array_equal(fast, fast_back)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(list(itertools.permutations(range(3)))),
       st.sampled_from(list(itertools.permutations(range(3)))))  # fmt: skip
def test_swaps_and_corner_orders_never_change_the_kind(seed, perm_p, perm_q):
    """Symmetric by construction: on near-degenerate float pairs of every family, swapping the
    triangles and permuting corners gives the same kind, which is the referee's."""
    pairs, _ = float_pairs(3, seed=seed)
    variants = []
    for p, q in pairs:
        variants += [(p, q), (q, p), (p[list(perm_p)], q[list(perm_q)])]
    _, fast = compare(np.array([np.stack(v) for v in variants]))
    expected = [exact_contact(p, q) for p, q in pairs]
    assert fast.reshape(3, 3).tolist() == [[int(k)] * 3 for k in expected]


def test_long_run_entry_point_prints_counts(capsys):
    status = main(["--pairs", "300", "--batch", "120", "--seed", "4"])
    out = capsys.readouterr().out
    assert status == 0
    assert "300 pairs" in out
    assert "disagreements: 0" in out
    total = [line for line in out.splitlines() if line.startswith("total")][0]
    assert sum(int(x) for x in total.split()[1:]) == 300
    assert "f:scaled" in out and "i:coplanar" in out
