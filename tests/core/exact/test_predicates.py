"""Adaptive orient2d / orient3d: exact signs against fractions.Fraction, stage by stage."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from core.exact.predicates import (
    _orient2d_adapt,
    _orient2d_exact,
    _orient3d_adapt,
    _orient3d_exact,
    orient2d,
    orient3d,
    two_diff,
    two_product,
    two_sum,
)


def _sign(x) -> int:
    return (x > 0) - (x < 0)


def _exact2(a, b, c) -> int:
    a, b, c = ([Fraction(x) for x in p] for p in (a, b, c))
    return _sign((a[0] - c[0]) * (b[1] - c[1]) - (a[1] - c[1]) * (b[0] - c[0]))


def _exact3(a, b, c, d) -> int:
    m = [[Fraction(p[k]) - Fraction(d[k]) for k in range(3)] for p in (a, b, c)]
    det = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
           - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
           + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))  # fmt: skip
    return _sign(det)


# Coordinates over many binades; near-degenerate configurations are built from them below.
# The predicates are exact when no product underflows: zero, or magnitudes in [1e-60, 1e3]
# (the triangle test scales and range-checks its pairs to guarantee that).
COORD = st.one_of(
    st.just(0.0),
    st.floats(min_value=-1e3, max_value=1e3).filter(lambda x: abs(x) >= 1e-60),
)


def _in_range(*points) -> bool:
    return all(x == 0.0 or 1e-60 <= abs(x) <= 1e4 for p in points for x in p)
POINT3 = st.tuples(COORD, COORD, COORD)


@st.composite
def near_coplanar(draw):
    """Four points, the last one on the plane of the first three up to rounding, then nudged
    by a few ulps: the determinant is tiny and its sign needs the later stages."""
    a, b, c = (np.array(draw(POINT3)) for _ in range(3))
    s, t = draw(st.floats(-2, 2)), draw(st.floats(-2, 2))
    d = a + s * (b - a) + t * (c - a)
    for k in range(3):
        for _ in range(draw(st.integers(0, 3))):
            d[k] = np.nextafter(d[k], draw(st.sampled_from([-np.inf, np.inf])))
    return tuple(tuple(float(x) for x in p) for p in (a, b, c, d))


@settings(max_examples=600, deadline=None)
@given(near_coplanar())
def test_orient3d_sign_is_exact_near_coplanar(points):
    a, b, c, d = points
    assume(_in_range(a, b, c, d))
    assert _sign(orient3d(a, b, c, d)) == _exact3(a, b, c, d)
    # Stage D alone and the adaptive stages alone are exact too (they are otherwise reached
    # only when stage A fails).
    assert _sign(_orient3d_exact(a, b, c, d)) == _exact3(a, b, c, d)
    perm = 8 * sum(abs(x) for x in a + b + c + d) ** 3  # any bound >= the permanent will do
    assert _sign(_orient3d_adapt(a, b, c, d, perm)) == _exact3(a, b, c, d)


@settings(max_examples=400, deadline=None)
@given(POINT3, POINT3, POINT3, POINT3)
def test_orient3d_sign_is_exact_on_random_points(a, b, c, d):
    assert _sign(orient3d(a, b, c, d)) == _exact3(a, b, c, d)


@st.composite
def near_collinear(draw):
    a = np.array(draw(st.tuples(COORD, COORD)))
    b = np.array(draw(st.tuples(COORD, COORD)))
    c = a + draw(st.floats(-3, 3)) * (b - a)
    for k in range(2):
        for _ in range(draw(st.integers(0, 2))):
            c[k] = np.nextafter(c[k], draw(st.sampled_from([-np.inf, np.inf])))
    return tuple(tuple(float(x) for x in p) for p in (a, b, c))


@settings(max_examples=600, deadline=None)
@given(near_collinear())
def test_orient2d_sign_is_exact_near_collinear(points):
    a, b, c = points
    assume(_in_range(a, b, c))
    expected = _exact2(a, b, c)
    assert _sign(orient2d(a, b, c)) == expected
    assert _sign(_orient2d_exact(*a, *b, *c)) == expected
    detsum = (abs(a[0]) + abs(b[0]) + abs(c[0])) * (abs(a[1]) + abs(b[1]) + abs(c[1])) * 4
    assert _sign(_orient2d_adapt(*a, *b, *c, detsum)) == expected


def test_classic_failure_of_the_float_determinant():
    """Points on the line y = x near (0.5, 0.5) that the plain float orientation misjudges
    (Kettner et al., "Classroom examples of robustness problems", 2008): the adaptive
    predicate matches exact arithmetic at every one of a 64 x 64 grid of ulp offsets."""
    b = (12.0, 12.0)
    c = (24.0, 24.0)
    wrong_float = 0
    for i in range(64):
        for j in range(64):
            a = (0.5 + i * 2.0**-53, 0.5 + j * 2.0**-53)
            expected = _exact2(a, b, c)
            assert _sign(orient2d(a, b, c)) == expected
            naive = (a[0] - c[0]) * (b[1] - c[1]) - (a[1] - c[1]) * (b[0] - c[0])
            wrong_float += _sign(naive) != expected
    assert wrong_float > 0  # the grid does exercise the hard cases


def test_orient3d_sign_convention():
    """Positive when d lies below the plane of a, b, c seen counter-clockwise from above."""
    a, b, c = (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)
    assert orient3d(a, b, c, (0.0, 0.0, -1.0)) > 0
    assert orient3d(a, b, c, (0.0, 0.0, 1.0)) < 0
    assert orient3d(a, b, c, (5.0, -3.0, 0.0)) == 0


# The error-free product needs a product that does not underflow (the predicates' range
# check guarantees it; see core.collide.tritri.MAX_SPREAD_LOG2). Not only the product: its
# error term has bits down to 2**-104 times it, so |x y| must be at least 2**(-1074 + 104),
# about 1e-292; with |x|, |y| > 1e-150 the example x = y = 3.3e-147 lost the error's low bits.
NORMAL = st.one_of(st.just(0.0), st.floats(-1e150, 1e150).filter(lambda x: abs(x) > 1e-140))


@settings(max_examples=300, deadline=None)
@given(NORMAL, NORMAL)
def test_error_free_transformations(x, y):
    s, e = two_sum(x, y)
    assert Fraction(s) + Fraction(e) == Fraction(x) + Fraction(y)
    s, e = two_diff(x, y)
    assert Fraction(s) + Fraction(e) == Fraction(x) - Fraction(y)
    p, e = two_product(x, y)
    assert Fraction(p) + Fraction(e) == Fraction(x) * Fraction(y)
