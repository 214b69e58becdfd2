"""Exact vector algebra on 3-tuples of int or :class:`fractions.Fraction`.

No rounding happens: the sums and products of ints and Fractions are exact, so a sign or a
comparison of these results is exact too. The rational triangle referee
(:mod:`core.collide.exact`) and the exact gap of two triangles (:mod:`core.lab.exact_gap`)
are written with these; they are slow (pure Python) and meant for tests and a few pairs.
"""

from __future__ import annotations

__all__ = ["cross", "dot", "is_zero", "sub"]


def sub(a, b):
    """``a - b`` of two 3-tuples."""
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def dot(a, b):
    """``a . b`` of two 3-tuples."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    """``a x b`` of two 3-tuples."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def is_zero(a) -> bool:
    """Whether every component of the 3-tuple ``a`` is 0."""
    return a[0] == 0 and a[1] == 0 and a[2] == 0
