"""Exact rational classification of a triangle pair, the referee of the float64 test.

:func:`exact_contact` decides the same four :class:`~core.collide.tritri.ContactKind` values as
:func:`core.collide.tritri.tri_tri_contact` by a different construction: every sign is the sign
of an exact integer or :class:`fractions.Fraction` expression (float64 inputs become the
Fractions they exactly equal), and the interval ends and clipped polygons are computed as
rationals, where the kernel uses orientation signs only. The semantics are those of the
tritri module docstring:

* a triangle with ``(p1 - p0) x (p2 - p0) == 0`` (repeated or collinear corners) is
  degenerate and stands for the segment between its two farthest corners (a point if all three
  coincide); any contact of a degenerate triangle is TOUCHING;
* two non-degenerate triangles in the same plane are COPLANAR when their overlap has positive
  area, TOUCHING when they meet only along their boundaries, DISJOINT otherwise;
* otherwise each triangle meets the other's plane in a segment on the line ``L`` where the
  planes meet (Moller 1997). The triangles meet iff the two segments overlap; they are
  CROSSING iff the overlap has positive length and each triangle has corners strictly on both
  sides of the other's plane, TOUCHING if they meet in any other way.

It is slow (pure Python, about 0.1 ms a pair on small integers, more on floats with wide
exponents) and used only by the tests and by ``python -m core.collide.exact --pairs N``, which
compares the float64 kernel with it, pair by pair, on generated families where the hard cases
are frequent: integer families (:class:`PairFamily`: touching, coplanar, edge-edge,
vertex-face, sliver and degenerate configurations on a small grid) and float families
(:class:`FloatFamily`: shared corners and edges moved by 1e-15 to 1e-10, corners rounded onto
faces and edges, float slivers, exactly degenerate float triangles, random rotations,
power-of-two scalings over the whole guaranteed range, swaps and corner permutations). Since
both sides are exact, any disagreement is a bug.
"""

from __future__ import annotations

import argparse
import sys
import time
from enum import IntEnum
from fractions import Fraction

import numpy as np

from core.collide.tritri import ContactKind

__all__ = [
    "FloatFamily",
    "PairFamily",
    "compare",
    "exact_contact",
    "exact_contact_extent",
    "float_kinds",
    "float_pairs",
    "mixed_pairs",
    "main",
    "random_pairs",
]

_DISJOINT = ContactKind.DISJOINT
_CROSSING = ContactKind.CROSSING
_TOUCHING = ContactKind.TOUCHING
_COPLANAR = ContactKind.COPLANAR


# ---------------------------------------------------------------------------------------------
# Exact vector algebra on tuples of int or Fraction.


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _is_zero(a) -> bool:
    return a[0] == 0 and a[1] == 0 and a[2] == 0


def _lerp(a, b, t):
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t)


def _sign(x) -> int:
    return (x > 0) - (x < 0)


def _as_point(x):
    """A corner as a tuple of exact numbers: ints stay ints, floats become Fractions (exact)."""
    out = []
    for c in x:
        if isinstance(c, (int, Fraction)):
            out.append(c)
        elif isinstance(c, np.integer):
            out.append(int(c))
        else:
            c = float(c)
            # Integral floats as ints: the same exact value, and much faster arithmetic.
            out.append(int(c) if c.is_integer() else Fraction(c))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Planar helpers: a plane is handled in the coordinate plane that drops the axis of the largest
# normal component (an affine bijection, so contact and positive area are preserved).


def _drop_axis(normal) -> int:
    mags = [abs(c) for c in normal]
    return mags.index(max(mags))


def _project(x, axis):
    if axis == 0:
        return (x[1], x[2])
    if axis == 1:
        return (x[0], x[2])
    return (x[0], x[1])


def _cross2(o, a, b):
    """``(a - o) x (b - o)``: positive when ``o, a, b`` turn counter-clockwise."""
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _clip(poly, tri2):
    """Sutherland-Hodgman clip of the convex polygon ``poly`` (list of 2-D points, possibly
    degenerate: a segment or a point) by the closed triangle ``tri2``. In exact arithmetic the
    result's convex hull is exactly the intersection; an empty list means no contact."""
    t0, t1, t2 = tri2
    sgn = _sign(_cross2(t0, t1, t2))
    for ti, tj in ((t0, t1), (t1, t2), (t2, t0)):
        out = []
        n = len(poly)
        for i in range(n):
            x = poly[i]
            y = poly[(i + 1) % n]
            fx = sgn * _cross2(ti, tj, x)
            fy = sgn * _cross2(ti, tj, y)
            if fx >= 0:
                out.append(x)
            if (fx >= 0) != (fy >= 0):
                t = Fraction(fx) / (fx - fy)
                out.append((x[0] + (y[0] - x[0]) * t, x[1] + (y[1] - x[1]) * t))
        poly = out
        if not poly:
            break
    return poly


def _doubled_area(poly) -> object:
    s = 0
    n = len(poly)
    for i in range(n):
        x, y = poly[i], poly[(i + 1) % n]
        s += x[0] * y[1] - x[1] * y[0]
    return abs(s)


# ---------------------------------------------------------------------------------------------
# Degenerate triangles: segments and points.


def _as_segment(t):
    """The two farthest-apart corners of a degenerate triangle (they span the other)."""
    best = (-1, t[0], t[0])
    for i, j in ((0, 1), (1, 2), (2, 0)):
        e = _sub(t[j], t[i])
        d2 = _dot(e, e)
        if d2 > best[0]:
            best = (d2, t[i], t[j])
    return best[1], best[2]


def _point_on_segment(x, a, b) -> bool:
    ab = _sub(b, a)
    ax = _sub(x, a)
    if not _is_zero(_cross(ab, ax)):
        return False
    s = _dot(ax, ab)
    return 0 <= s <= _dot(ab, ab)


def _segment_segment(a, b, c, d) -> tuple[bool, bool]:
    """Do the closed segments ``[a, b]`` and ``[c, d]`` (either may be a point) meet, and is
    their intersection more than one point?"""
    if a == b:
        return (a == c if c == d else _point_on_segment(a, c, d)), False
    if c == d:
        return _point_on_segment(c, a, b), False
    d1 = _sub(b, a)
    d2 = _sub(d, c)
    r = _sub(c, a)
    n = _cross(d1, d2)
    if _dot(n, r) != 0:
        return False, False  # skew lines
    if _is_zero(n):  # parallel
        if not _is_zero(_cross(d1, r)):
            return False, False
        tc = _dot(r, d1)
        td = _dot(_sub(d, a), d1)
        lo = max(0, min(tc, td))
        hi = min(_dot(d1, d1), max(tc, td))
        return lo <= hi, lo < hi
    nn = _dot(n, n)
    s = _dot(_cross(r, d2), n)
    t = _dot(_cross(r, d1), n)
    return 0 <= s <= nn and 0 <= t <= nn, False


def _segment_triangle(a, b, tri, normal) -> tuple[bool, bool]:
    """Does the closed segment ``[a, b]`` (maybe a point) meet the non-degenerate ``tri``, and
    is the intersection more than one point?"""
    t0 = tri[0]
    da = _dot(normal, _sub(a, t0))
    db = _dot(normal, _sub(b, t0))
    if (da > 0 and db > 0) or (da < 0 and db < 0):
        return False, False
    axis = _drop_axis(normal)
    tri2 = tuple(_project(t, axis) for t in tri)
    if da == 0 and db == 0:
        poly = [_project(a, axis)] if a == b else [_project(a, axis), _project(b, axis)]
        out = _clip(poly, tri2)
        return bool(out), len(set(out)) > 1
    if da == 0:
        x = a
    elif db == 0:
        x = b
    else:
        x = _lerp(a, b, Fraction(da) / (da - db))
    return bool(_clip([_project(x, axis)], tri2)), False


# ---------------------------------------------------------------------------------------------
# The classification.


def _exact_interval(t, d, w):
    """Extreme values of ``dot(w, x)`` over the points where triangle ``t`` meets the other
    plane (``d`` its corners' exact signed plane values, not all of one strict sign)."""
    values = []
    for i in range(3):
        if d[i] == 0:
            values.append(_dot(w, t[i]))
        j = (i + 1) % 3
        if (d[i] > 0 and d[j] < 0) or (d[i] < 0 and d[j] > 0):
            x = _lerp(t[i], t[j], Fraction(d[i]) / (d[i] - d[j]))
            values.append(_dot(w, x))
    return min(values), max(values)


def _straddles(d) -> bool:
    return any(x > 0 for x in d) and any(x < 0 for x in d)


def exact_contact(tri_a, tri_b) -> ContactKind:
    """Classify two triangles exactly.

    Parameters
    ----------
    tri_a, tri_b : (3, 3) array_like of int, Fraction or float
        Corners, one per row. Floats are converted to the Fractions they exactly equal.

    Returns
    -------
    ContactKind
        The kind :func:`core.collide.tritri.tri_tri_contact` would return with a zero
        tolerance (see the module docstring).
    """
    return exact_contact_extent(tri_a, tri_b)[0]


def exact_contact_extent(tri_a, tri_b) -> tuple[ContactKind, bool]:
    """Classify two triangles exactly, and say whether they share more than one point.

    Parameters
    ----------
    tri_a, tri_b : (3, 3) array_like of int, Fraction or float
        Corners, one per row. Floats are converted to the Fractions they exactly equal.

    Returns
    -------
    kind : ContactKind
        As :func:`exact_contact`.
    is_extended : bool
        The intersection holds two distinct points (a segment or an area), not just one:
        two triangles sharing a corner meet beyond it iff this is true.
    """
    p = tuple(_as_point(x) for x in tri_a)
    q = tuple(_as_point(x) for x in tri_b)
    n_p = _cross(_sub(p[1], p[0]), _sub(p[2], p[0]))
    n_q = _cross(_sub(q[1], q[0]), _sub(q[2], q[0]))
    is_p_degenerate = _is_zero(n_p)
    is_q_degenerate = _is_zero(n_q)
    if is_p_degenerate or is_q_degenerate:
        if is_p_degenerate and is_q_degenerate:
            hit, extended = _segment_segment(*_as_segment(p), *_as_segment(q))
        elif is_p_degenerate:
            hit, extended = _segment_triangle(*_as_segment(p), q, n_q)
        else:
            hit, extended = _segment_triangle(*_as_segment(q), p, n_p)
        return (_TOUCHING, extended) if hit else (_DISJOINT, False)

    dq = tuple(_dot(n_p, _sub(x, p[0])) for x in q)
    if all(x > 0 for x in dq) or all(x < 0 for x in dq):
        return _DISJOINT, False
    dp = tuple(_dot(n_q, _sub(x, q[0])) for x in p)
    if all(x > 0 for x in dp) or all(x < 0 for x in dp):
        return _DISJOINT, False

    if all(x == 0 for x in dq):
        # Same plane (Q non-degenerate with three corners on P's plane).
        axis = _drop_axis(n_p)
        p2 = tuple(_project(x, axis) for x in p)
        overlap = _clip([_project(x, axis) for x in q], p2)
        if not overlap:
            return _DISJOINT, False
        if _doubled_area(overlap) > 0:
            return _COPLANAR, True
        return _TOUCHING, len(set(overlap)) > 1

    # Planes meet in a line (parallel distinct planes were rejected above) of direction w.
    w = _cross(n_p, n_q)
    lo_p, hi_p = _exact_interval(p, dp, w)
    lo_q, hi_q = _exact_interval(q, dq, w)
    lo = max(lo_p, lo_q)
    hi = min(hi_p, hi_q)
    if lo > hi:
        return _DISJOINT, False
    if lo == hi:
        return _TOUCHING, False
    if _straddles(dp) and _straddles(dq):
        return _CROSSING, True
    return _TOUCHING, True


# ---------------------------------------------------------------------------------------------
# Random integer pairs on which special cases are frequent.


class PairFamily(IntEnum):
    """How :func:`random_pairs` builds the second triangle Q from the first, P.

    Each family makes a kind of contact frequent that uniform sampling almost never hits.
    """

    UNIFORM = 0
    """All six corners uniform in the cube."""
    SHARED_VERTEX = 1
    """Q reuses one corner of P."""
    SHARED_EDGE = 2
    """Q reuses an edge of P (folded, coplanar or flipped)."""
    COPLANAR = 3
    """Q's corners in P's plane at half-integer barycentric coordinates."""
    ONE_IN_PLANE = 4
    """One or two of Q's corners in P's plane, the others anywhere (vertex-face, edge-face)."""
    ON_EDGE = 5
    """A corner of Q on an edge line of P (edge-edge, vertex-edge contacts)."""
    DEGENERATE = 6
    """P or Q (or both) with repeated or collinear corners."""
    SLIVER = 7
    """P or Q a thin needle: its third corner one unit off a long edge."""
    NEAR = 8
    """Q one grid step away from a corner or edge of P along P's normal."""


def _in_plane(rng, p, k):
    """``k`` points ``(k, 3) int64`` of the plane of ``p`` (doubled coordinates) at barycentric
    coordinates that are multiples of 1/2 in ``[-1, 2]``."""
    a = rng.integers(-2, 5, size=(k, 1))
    b = rng.integers(-2, 5, size=(k, 1))
    return 2 * p[0] + a * (p[1] - p[0]) + b * (p[2] - p[0])


def random_pairs(n: int, seed: int = 0, coord_range: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Random integer triangle pairs, each :class:`PairFamily` about equally often.

    Parameters
    ----------
    n : int
        Number of pairs.
    seed : int
    coord_range : int
        Base corners are uniform integers in ``[-coord_range, coord_range]``; the families then
        double them (to place points at half-integer barycentric coordinates), so coordinates
        stay within about ``±8 * coord_range``.

    Returns
    -------
    pairs : (n, 2, 3, 3) int64
        ``pairs[i, 0]`` is P, ``pairs[i, 1]`` is Q, one corner per row.
    families : (n,) int8
        The :class:`PairFamily` of each pair.
    """
    rng = np.random.default_rng(seed)
    r = coord_range
    families = rng.integers(0, len(PairFamily), size=n).astype(np.int8)
    out = np.empty((n, 2, 3, 3), dtype=np.int64)
    base = rng.integers(-r, r + 1, size=(n, 2, 3, 3))
    for i in range(n):
        p = base[i, 0].copy()
        q = base[i, 1].copy()
        fam = families[i]
        if fam == PairFamily.SHARED_VERTEX:
            q[rng.integers(3)] = p[rng.integers(3)]
        elif fam == PairFamily.SHARED_EDGE:
            e = rng.integers(3)
            q[0], q[1] = p[e], p[(e + 1) % 3]
            if rng.random() < 0.5:  # third corner in the plane: a coplanar neighbour or a fold
                q = 2 * q
                q[2] = _in_plane(rng, p, 1)[0]
                p = 2 * p
        elif fam == PairFamily.COPLANAR:
            q = _in_plane(rng, p, 3)
            p = 2 * p
        elif fam == PairFamily.ONE_IN_PLANE:
            k = rng.integers(1, 3)
            q = 2 * q
            q[:k] = _in_plane(rng, p, k)
            p = 2 * p
        elif fam == PairFamily.ON_EDGE:
            e = rng.integers(3)
            t = rng.integers(-1, 4)  # half-steps along the edge, inside and beyond it
            q = 2 * q
            q[0] = 2 * p[e] + t * (p[(e + 1) % 3] - p[e])
            p = 2 * p
        elif fam == PairFamily.DEGENERATE:
            which = rng.integers(3)  # 0: P, 1: Q, 2: both
            for tri_id in ((0,), (1,), (0, 1))[which]:
                t = p if tri_id == 0 else q
                if rng.random() < 0.5:
                    t[2] = t[rng.integers(2)]  # repeated corner (or all three when t0 == t1)
                    if rng.random() < 0.2:
                        t[1] = t[0]
                else:
                    t[2] = t[0] + rng.integers(-2, 3) * (t[1] - t[0])  # collinear
        elif fam == PairFamily.SLIVER:
            t = p if rng.random() < 0.5 else q
            t[1] = t[0] + 4 * (t[1] - t[0])
            t[2] = t[0] + 2 * (t[1] - t[0]) // 4 + rng.integers(-1, 2, size=3)
        elif fam == PairFamily.NEAR:
            n_p = np.cross(p[1] - p[0], p[2] - p[0])
            unit = np.sign(n_p)  # one grid step towards the normal's side
            if rng.random() < 0.5:
                q[0] = p[rng.integers(3)] + unit
            else:
                e = rng.integers(3)
                q = 2 * q
                q[0] = p[e] + p[(e + 1) % 3] + unit
                p = 2 * p
        out[i, 0] = p
        out[i, 1] = q
    return out, families


class FloatFamily(IntEnum):
    """How :func:`float_pairs` builds a pair of float64 triangles.

    Each family puts the pair within a few ulps of a change of answer, where a tolerance-based
    test goes wrong (issue 10): the exact answer is the referee's, however small the gap.
    """

    SHARED_VERTEX_MOVED = 0
    """Q reuses a corner of P moved by 1e-15 to 1e-10 in a random direction."""
    SHARED_EDGE_MOVED = 1
    """Q reuses an edge of P, both ends moved by 1e-15 to 1e-10."""
    VERTEX_ON_FACE = 2
    """A corner of Q at a random point of P's face, rounded to float64 (on the plane, or a
    few ulps off it)."""
    EDGE_ACROSS_EDGE = 3
    """An edge of Q through a rounded point of an edge of P."""
    SLIVER = 4
    """P or Q a needle: its third corner 1e-15 to 1e-8 off its long edge."""
    DEGENERATE = 5
    """P or Q exactly degenerate in float64: a repeated corner, or three collinear dyadic
    corners."""
    ROTATED = 6
    """An integer-family pair (:class:`PairFamily`) under a random rotation, rounded: the
    special relation survives only up to round-off."""
    SCALED = 7
    """A pair of the other families scaled by a random power of two over the whole range the
    test guarantees (from near the smallest normal to near the largest float64)."""
    SWAPPED = 8
    """A pair of the other families with P and Q swapped and each triangle's corners
    permuted."""


def _unit(rng, k):
    v = rng.normal(size=(k, 3))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _tiny(rng, lo=-15.0, hi=-10.0):
    return 10.0 ** rng.uniform(lo, hi)


def _random_rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    return q


def _scale_exponents(pair, rng):
    """A random power-of-two exponent keeping the scaled pair exact and in the normal range."""
    mags = np.abs(pair[pair != 0.0])
    if mags.size == 0:
        return 0
    hi = 1022 - int(np.floor(np.log2(mags.max())))
    lo = -1021 - int(np.floor(np.log2(mags.min())))
    return int(rng.integers(lo, hi + 1)) if lo <= hi else 0


def float_pairs(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Random float64 triangle pairs, each :class:`FloatFamily` about equally often.

    Parameters
    ----------
    n : int
        Number of pairs.
    seed : int

    Returns
    -------
    pairs : (n, 2, 3, 3) float64
        ``pairs[i, 0]`` is P, ``pairs[i, 1]`` is Q, one corner per row.
    families : (n,) int8
        The :class:`FloatFamily` of each pair.
    """
    rng = np.random.default_rng(seed)
    families = rng.integers(0, len(FloatFamily), size=n).astype(np.int8)
    out = np.empty((n, 2, 3, 3))
    base_int, _ = random_pairs(n, seed=seed + 7_919)
    for i in range(n):
        fam = FloatFamily(families[i])
        inner = fam
        if fam in (FloatFamily.SCALED, FloatFamily.SWAPPED):
            inner = FloatFamily(rng.integers(0, FloatFamily.SCALED))
        pair = _float_pair(rng, inner, base_int[i])
        if fam == FloatFamily.SCALED:
            pair = np.ldexp(pair, _scale_exponents(pair, rng))
        elif fam == FloatFamily.SWAPPED:
            pair = pair[::-1][:, rng.permutation(3)].copy()
            pair[1] = pair[1][rng.permutation(3)]
        out[i] = pair
    return out, families


def _float_pair(rng, fam, base_int):
    """One pair ``(2, 3, 3) float64`` of family ``fam`` (not SCALED or SWAPPED)."""
    p = rng.uniform(-1.0, 1.0, size=(3, 3))
    q = rng.uniform(-1.0, 1.0, size=(3, 3))
    if fam == FloatFamily.SHARED_VERTEX_MOVED:
        q[rng.integers(3)] = p[rng.integers(3)] + _tiny(rng) * _unit(rng, 1)[0]
    elif fam == FloatFamily.SHARED_EDGE_MOVED:
        e = rng.integers(3)
        q[0] = p[e] + _tiny(rng) * _unit(rng, 1)[0]
        q[1] = p[(e + 1) % 3] + _tiny(rng) * _unit(rng, 1)[0]
    elif fam == FloatFamily.VERTEX_ON_FACE:
        s, t = rng.uniform(-0.2, 1.0, size=2)
        if rng.random() < 0.5:  # dyadic corners and weights: exactly on the face
            p = np.round(p * 64.0) / 64.0
            s, t = np.round(s * 8.0) / 8.0, np.round(t * 8.0) / 8.0
        q[0] = p[0] + s * (p[1] - p[0]) + t * (p[2] - p[0])
    elif fam == FloatFamily.EDGE_ACROSS_EDGE:
        e = rng.integers(3)
        s = rng.uniform(-0.1, 1.1)
        if rng.random() < 0.5:  # dyadic: the crossing point exactly on the edge
            p = np.round(p * 64.0) / 64.0
            s = np.round(s * 8.0) / 8.0
        x = p[e] + s * (p[(e + 1) % 3] - p[e])
        d = np.round(rng.uniform(-1.0, 1.0, size=3) * 64.0) / 64.0
        q[0] = x + d
        q[1] = x - rng.choice([0.25, 0.5, 1.0, 2.0]) * d
    elif fam == FloatFamily.SLIVER:
        t = p if rng.random() < 0.5 else q
        t[2] = t[0] + rng.uniform(0.0, 1.0) * (t[1] - t[0]) + _tiny(rng, -15.0, -8.0) * _unit(
            rng, 1
        )[0]
    elif fam == FloatFamily.DEGENERATE:
        for t in ((p,), (q,), (p, q))[rng.integers(3)]:
            t[:2] = np.round(t[:2] * 64.0) / 64.0  # dyadic: the collinear corner is exact
            if rng.random() < 0.4:
                t[2] = t[rng.integers(2)]
            else:
                t[2] = t[0] + rng.choice([-1.0, -0.5, 0.25, 0.5, 2.0]) * (t[1] - t[0])
    elif fam == FloatFamily.ROTATED:
        rot = _random_rotation(rng)
        shift = rng.uniform(-1.0, 1.0, size=3)
        pair = np.asarray(base_int, dtype=np.float64) / 8.0
        return pair @ rot.T + shift
    return np.stack([p, q])


def mixed_pairs(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Half integer families (:func:`random_pairs`), half float families (:func:`float_pairs`).

    Returns
    -------
    pairs : (n, 2, 3, 3) float64
    families : (n,) int16
        ``PairFamily`` values for the integer half, ``100 + FloatFamily`` for the float half.
    """
    n_int = n // 2
    ints, fam_int = random_pairs(n_int, seed=seed)
    floats, fam_float = float_pairs(n - n_int, seed=seed)
    pairs = np.concatenate([ints.astype(np.float64), floats])
    families = np.concatenate([fam_int.astype(np.int16), 100 + fam_float.astype(np.int16)])
    return pairs, families


def family_name(code: int) -> str:
    """Name of a :func:`mixed_pairs` family code."""
    if code >= 100:
        return "f:" + FloatFamily(code - 100).name.lower()
    return "i:" + PairFamily(code).name.lower()


def float_kinds(pairs: np.ndarray) -> np.ndarray:
    """The float64 kernel's kinds for many pairs, through :func:`tri_tri_batch`.

    Parameters
    ----------
    pairs : (n, 2, 3, 3) array_like of float

    Returns
    -------
    (n,) int8
    """
    from core.collide.tritri import tri_tri_batch

    pts = np.asarray(pairs, dtype=np.float64)
    n = pts.shape[0]
    va = np.ascontiguousarray(pts[:, 0].reshape(-1, 3))
    vb = np.ascontiguousarray(pts[:, 1].reshape(-1, 3))
    faces = np.arange(3 * n, dtype=np.int32).reshape(n, 3)
    ids = np.repeat(np.arange(n, dtype=np.int32)[:, None], 2, axis=1)
    kinds = np.empty(n, dtype=np.int8)
    segs = np.empty((n, 2, 3))
    tri_tri_batch(va, faces, vb, faces, ids, kinds, segs)
    return kinds


def compare(pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact and float kinds of many integer pairs.

    Parameters
    ----------
    pairs : (n, 2, 3, 3) int64 or float64

    Returns
    -------
    exact : (n,) int8
    fast : (n,) int8
        The float64 kernel's kinds; -1 (``OUT_OF_RANGE``) for a pair outside its range.
    """
    fast = float_kinds(pairs)
    listed = pairs.tolist()  # Python numbers: exact and much faster than numpy scalars
    exact = np.fromiter((exact_contact(p, q) for p, q in listed), dtype=np.int8, count=len(listed))
    return exact, fast


def main(argv: list[str] | None = None) -> int:
    """``python -m core.collide.exact --pairs N``: compare the float64 test with the exact one.

    Half the pairs come from the integer families, half from the float families
    (:func:`mixed_pairs`). Prints the count of each kind per family and every disagreement (up
    to ``--show``); exits with status 1 if there is any disagreement.
    """
    parser = argparse.ArgumentParser(
        prog="python -m core.collide.exact",
        description="Fuzz the float64 triangle test against the exact rational classification.",
    )
    parser.add_argument("--pairs", type=int, default=100_000, help="pairs to test")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--range", type=int, default=3, dest="coord_range",
                        help="integer families: base corners in [-R, R] (default 3)")  # fmt: skip
    parser.add_argument("--batch", type=int, default=100_000, help="pairs per batch")
    parser.add_argument("--show", type=int, default=20, help="disagreements printed")
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.batch < 1:
        parser.error("--pairs and --batch must be positive")

    n_kinds = len(ContactKind)
    codes = [int(f) for f in PairFamily] + [100 + int(f) for f in FloatFamily]
    row_of = {c: i for i, c in enumerate(codes)}
    counts = np.zeros((len(codes), n_kinds), dtype=np.int64)
    bad = []
    n_bad = 0
    t0 = time.perf_counter()
    done = 0
    batch_id = 0
    while done < args.pairs:
        n = min(args.batch, args.pairs - done)
        seed = args.seed * 1_000_003 + batch_id
        n_int = n // 2
        ints, fam_int = random_pairs(n_int, seed=seed, coord_range=args.coord_range)
        floats, fam_float = float_pairs(n - n_int, seed=seed)
        pairs = np.concatenate([ints.astype(np.float64), floats])
        families = np.concatenate([fam_int.astype(np.int16), 100 + fam_float.astype(np.int16)])
        exact, fast = compare(pairs)
        rows = np.array([row_of[int(c)] for c in families], dtype=np.int64)
        np.add.at(counts, (rows, exact.astype(np.int64)), 1)
        wrong = np.flatnonzero(exact != fast)
        n_bad += wrong.size
        for i in wrong[: max(0, args.show - len(bad))]:
            bad.append((pairs[i], int(exact[i]), int(fast[i]), int(families[i])))
        done += n
        batch_id += 1
        print(f"{done} pairs, {n_bad} disagreements, {time.perf_counter() - t0:.1f} s",
              file=sys.stderr)  # fmt: skip
    seconds = time.perf_counter() - t0

    names = [k.name.lower() for k in ContactKind]
    print(f"{done} pairs (seed {args.seed}, range {args.coord_range}) in {seconds:.1f} s")
    print(f"{'family':<24}" + "".join(f"{s:>10}" for s in names))
    for code, row in zip(codes, counts, strict=True):
        print(f"{family_name(code):<24}" + "".join(f"{c:>10}" for c in row))
    print(f"{'total':<24}" + "".join(f"{c:>10}" for c in counts.sum(axis=0)))
    print(f"disagreements: {n_bad}")
    for pair, e, f, fam in bad:
        got = ContactKind(f).name if f >= 0 else "OUT_OF_RANGE"
        print(f"  [{family_name(fam)}] P={pair[0].tolist()} Q={pair[1].tolist()} "
              f"exact={ContactKind(e).name} float64={got}")  # fmt: skip
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
