"""Exact 3-tuple algebra (core.exact.rational) shared by the rational triangle referee and the
exact gap of two triangles."""

from __future__ import annotations

from fractions import Fraction

from core.exact.rational import cross, dot, is_zero, sub


def test_tuple_algebra_is_exact_on_fractions_and_ints():
    third = Fraction(1, 3)
    a = (third, 2, Fraction(0.1))
    b = (third, 1, 0)
    assert sub(a, b) == (0, 1, Fraction(0.1))
    assert dot(a, b) == third * third + 2
    assert cross((1, 0, 0), (0, 1, 0)) == (0, 0, 1)
    assert is_zero(cross(a, a)) and not is_zero(sub(a, b))
    # 0.1 + 0.2 - 0.3 is not 0 in floats; as the Fractions the floats equal, the sum is exact.
    assert dot((Fraction(0.1), Fraction(0.2), 1), (1, 1, -Fraction(0.3))) == (
        Fraction(0.1) + Fraction(0.2) - Fraction(0.3))
