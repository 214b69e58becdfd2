"""The exact distance between two triangles, in rational arithmetic.

Float64 coordinates are rationals, and so is the squared distance between two triangles: it
is the minimum of a quadratic over two triangles, attained (when they do not meet) either
from a corner of one to the other triangle or between two edges (Ericson 2005, 5.1.9), and
each of those minima is a ratio of polynomials in the coordinates. Here every one of them is
computed with :class:`fractions.Fraction`, so the answer carries no round-off; it is slow
(pure Python, about a millisecond a pair) and meant for a few pairs, e.g. the pairs on which
two collision engines disagree.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from core.collide.exact import exact_contact
from core.collide.tritri import ContactKind
from core.exact.rational import cross, dot, sub


def _rational_point(p) -> tuple:
    return tuple(Fraction(float(c)) for c in p)


def _point_segment_gap2(p, a, b) -> Fraction:
    """Squared distance from point ``p`` to segment ``ab`` (a point if ``a == b``)."""
    d = sub(b, a)
    dd = dot(d, d)
    if dd == 0:
        w = sub(p, a)
        return dot(w, w)
    t = dot(sub(p, a), d) / dd
    t = min(max(t, Fraction(0)), Fraction(1))
    q = (a[0] + t * d[0], a[1] + t * d[1], a[2] + t * d[2])
    w = sub(p, q)
    return dot(w, w)


def _segments_gap2(p0, p1, q0, q1) -> Fraction:
    """Squared distance between segments ``p0p1`` and ``q0q1``.

    The squared distance is a convex quadratic in ``(s, t)`` on the unit square: its minimum
    is at the interior critical point, if that lies in the square, or on the square's edges,
    which are the four distances from an end point to the other segment.
    """
    best = min(_point_segment_gap2(p0, q0, q1), _point_segment_gap2(p1, q0, q1),
               _point_segment_gap2(q0, p0, p1), _point_segment_gap2(q1, p0, p1))  # fmt: skip
    d1, d2, r = sub(p1, p0), sub(q1, q0), sub(p0, q0)
    a, b, e = dot(d1, d1), dot(d1, d2), dot(d2, d2)
    c, f = dot(d1, r), dot(d2, r)
    denom = a * e - b * b
    if denom > 0:
        s = (b * f - c * e) / denom
        t = (a * f - b * c) / denom
        if 0 <= s <= 1 and 0 <= t <= 1:
            x = sub((p0[0] + s * d1[0], p0[1] + s * d1[1], p0[2] + s * d1[2]),
                     (q0[0] + t * d2[0], q0[1] + t * d2[1], q0[2] + t * d2[2]))  # fmt: skip
            best = min(best, dot(x, x))
    return best


def _point_triangle_gap2(p, tri) -> Fraction:
    """Squared distance from ``p`` to a triangle (its edges if it is degenerate)."""
    a, b, c = tri
    n = cross(sub(b, a), sub(c, a))
    nn = dot(n, n)
    if nn > 0:
        # The projection of p lies inside the triangle iff it is on the inner side of all
        # three edges (signs of exact triple products).
        inside = all(dot(cross(sub(v1, v0), sub(p, v0)), n) >= 0
                     for v0, v1 in ((a, b), (b, c), (c, a)))  # fmt: skip
        if inside:
            h = dot(n, sub(p, a))
            return h * h / nn
    return min(_point_segment_gap2(p, a, b), _point_segment_gap2(p, b, c),
               _point_segment_gap2(p, c, a))


def squared_gap(tri_a, tri_b) -> Fraction:
    """The exact squared distance between two triangles, 0 if they touch or intersect.

    Parameters
    ----------
    tri_a, tri_b : (3, 3) float64
        Corners, in one coordinate frame.

    Returns
    -------
    Fraction
    """
    kind = exact_contact(np.asarray(tri_a, np.float64), np.asarray(tri_b, np.float64))
    if kind != ContactKind.DISJOINT:
        return Fraction(0)
    ta = [_rational_point(p) for p in np.asarray(tri_a, np.float64)]
    tb = [_rational_point(p) for p in np.asarray(tri_b, np.float64)]
    # Disjoint triangles: the closest pair has a corner of one of them, or lies on two edges.
    best = min(min(_point_triangle_gap2(p, tb) for p in ta),
               min(_point_triangle_gap2(p, ta) for p in tb))
    for i in range(3):
        for j in range(3):
            best = min(best, _segments_gap2(ta[i], ta[(i + 1) % 3], tb[j], tb[(j + 1) % 3]))
    return best


def exact_gap(tri_a, tri_b) -> float:
    """The distance between two triangles: the exact squared distance rounded to a float,
    then its square root (0.0 exactly when they touch or intersect, decided exactly)."""
    sq = squared_gap(tri_a, tri_b)
    if sq == 0:
        return 0.0
    return float(np.sqrt(float(sq)))
