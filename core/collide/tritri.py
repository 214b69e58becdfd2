"""Exact triangle-triangle contact test (numba, float64 input, exact decisions).

Every contact decision and every kind is taken from the **exact signs** of orientation
determinants of the input coordinates (:mod:`core.exact.predicates`, Shewchuk 1997), so for
the float64 coordinates it is given, the answer is the one real arithmetic gives. There is no
tolerance. The construction follows Guigue and Devillers, "Fast and robust triangle-triangle
overlap test using orientation predicates", Journal of Graphics Tools 8(1), 2003: the six signs
of each triangle's corners against the other's plane, then the order of the two triangles'
segments on the line where the planes meet, read from one orient3d each.

Kinds (``P``, ``Q`` closed triangles; a triangle is *degenerate* when its three corners are
collinear, exactly: it then stands for the segment between its two extreme corners, a point if
all three coincide)
------------------------------------------------------------------------------------------------
DISJOINT
    ``P`` and ``Q`` share no point.
CROSSING
    Neither is degenerate, they are not coplanar, each has corners strictly on both sides of
    the other's plane, and they share a segment of positive length: they penetrate.
TOUCHING
    They share at least one point, and it is not CROSSING or COPLANAR: a corner or an edge on
    the other's surface, one triangle on one side of the other's plane, coplanar triangles that
    meet only along their boundaries, or any contact of a degenerate triangle.
COPLANAR
    Neither is degenerate, all six corners lie in one plane, and the overlap has positive area.

These are the semantics of the rational referee :func:`core.collide.exact.exact_contact`; the
fuzz harness ``python -m core.collide.exact`` checks the two against each other.

Guaranteed range
----------------
Each pair is first scaled by a power of two (exact) so that its largest coordinate magnitude
``m`` lies in ``[1/2, 1)``: the answer does not depend on the coordinates' magnitude, from
subnormal numbers up to the largest float64. Exactness needs every product in the predicates
to stay a normal float64, which holds when **every nonzero coordinate of the pair is at least**
``m * 2**-MAX_SPREAD_LOG2`` (``2**-240``, about ``5.7e-73``, times the pair's largest) and all
are finite. A pair outside that range gets the kind ``OUT_OF_RANGE`` (-1) from the kernels;
:func:`check_kinds` turns it into a one-line :class:`ValueError`. The bound comes from the
smallest nonzero quantities the predicates form: after scaling, coordinates lie on a grid of
``2**-(S + 53)``, so a product of three differences is at least ``2**(-3 S - 159)`` and the
smallest error bound (stage C, ``o3derrboundC * permanent``) at least ``2**(-3 S - 260)``,
which must stay above the smallest normal ``2**-1022``: ``S = 240`` leaves a factor ``2**42``.
Pairs whose nonzero magnitudes all lie in ``[2**-60, 2**60]`` (any mesh in practice) are far
inside these limits and skip the scaling.

Symmetry: the answer is exact, so it is the same for ``(P, Q)`` and ``(Q, P)`` and for any
order of the corners; the tests check it.

The contact segment is a **float64 approximation** built after the decision: interval ends
interpolated from float signed distances, a clipped polygon for coplanar overlaps. It is
meant for drawing; it may miss the exact intersection by round-off.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np
from numba import njit, prange

from core.bv._geom import tri_tri_closest
from core.exact.predicates import O3D_ERRBOUND_A, orient2d_xy, orient3d
from core.jit.kernel_args import frozen
from core.vec3 import cross3, dot3, lerp3, sub3

__all__ = [
    "MAX_SPREAD_LOG2",
    "OUT_OF_RANGE",
    "ContactKind",
    "check_kinds",
    "pair_in_range",
    "tri_tri",
    "tri_tri_batch",
    "tri_tri_contact",
    "tri_tri_distance_batch",
]


class ContactKind(IntEnum):
    """How two triangles meet (exact; see the module docstring)."""

    DISJOINT = 0
    """No common point."""
    CROSSING = 1
    """Non-coplanar, each triangle has corners strictly on both sides of the other's plane,
    and they share a segment of positive length: they penetrate."""
    TOUCHING = 2
    """They meet without penetrating: a corner or edge on the other's surface, one triangle on
    one side of the other's plane, coplanar triangles meeting only along their boundary, or
    any contact of a degenerate (collinear) triangle."""
    COPLANAR = 3
    """Both non-degenerate, all six corners in one plane, and the overlap has positive area."""


#: Kind code of a pair outside the guaranteed range (not a :class:`ContactKind`).
OUT_OF_RANGE = -1

#: Largest ratio, as a power of two, between the largest coordinate magnitude of a pair and its
#: smallest nonzero one for which the answer is guaranteed exact (module docstring).
MAX_SPREAD_LOG2 = 240

# numba freezes module globals as constants; the IntEnum itself is not usable in nopython code.
_DISJOINT = 0
_CROSSING = 1
_TOUCHING = 2
_COPLANAR = 3

# Sutherland-Hodgman clipping of a triangle by three half-planes adds at most one vertex per
# half-plane: 3 + 3 = 6 vertices at most.
_MAX_POLY = 8


# ----------------------------------------------------------------------------------------------
# Range check and power-of-two scaling.


@njit(cache=True, nogil=True)
def _pair_scale(p0, p1, p2, q0, q1, q2):
    """``(ok, e)``: whether the pair is in the guaranteed range, and the exponent ``e`` with
    the largest magnitude ``m = f * 2**e``, ``f`` in ``[1/2, 1)`` (0 when all are zero)."""
    m = 0.0
    lo = np.inf
    for t in (p0, p1, p2, q0, q1, q2):
        for k in range(3):
            a = abs(t[k])
            if not a <= 1.7976931348623157e308:  # NaN or inf
                return False, 0
            if a > m:
                m = a
            if a != 0.0 and a < lo:
                lo = a
    if m == 0.0:
        return True, 0
    _, e = math.frexp(m)
    if math.ldexp(lo, MAX_SPREAD_LOG2) < m:
        return False, e
    return True, e


#: Pairs whose nonzero magnitudes all lie in ``[2**-60, 2**60]`` skip the scaling: there the
#: smallest nonzero term of any predicate is at least about ``2**-450`` and the largest below
#: ``2**200``, far from underflow and overflow, so scaling would not change a single bit of
#: any decision (it only saves the 18 multiplications on mesh-sized coordinates).
_MODERATE_LO = 2.0**-60
_MODERATE_HI = 2.0**60


@njit(cache=True, nogil=True)
def _is_moderate(p0, p1, p2, q0, q1, q2):
    for t in (p0, p1, p2, q0, q1, q2):
        for k in range(3):
            a = abs(t[k])
            if not a <= _MODERATE_HI or (a < _MODERATE_LO and a != 0.0):
                return False
    return True


@njit(cache=True, nogil=True)
def _scaled(t, e):
    """``t * 2**-e`` exactly (the result is a normal number, or zero, in range)."""
    if -1000 <= e <= 1000:
        s = math.ldexp(1.0, -e)
        return (t[0] * s, t[1] * s, t[2] * s)
    return (math.ldexp(t[0], -e), math.ldexp(t[1], -e), math.ldexp(t[2], -e))


@njit(cache=True, nogil=True)
def _unscaled(t, e):
    if -1000 <= e <= 1000:
        s = math.ldexp(1.0, e)
        return (t[0] * s, t[1] * s, t[2] * s)
    return (math.ldexp(t[0], e), math.ldexp(t[1], e), math.ldexp(t[2], e))


# ----------------------------------------------------------------------------------------------
# Exact signs.


@njit(cache=True, nogil=True)
def _sgn(x):
    if x > 0.0:
        return 1
    if x < 0.0:
        return -1
    return 0


@njit(cache=True, nogil=True)
def _side(t0, t1, t2, x):
    """Exact side of ``x`` of the plane of ``t0 t1 t2``: +1 where its normal
    ``(t1 - t0) x (t2 - t0)`` points, -1 opposite, 0 on it."""
    return -_sgn(orient3d(t0, t1, t2, x))


@njit(cache=True, nogil=True)
def _plane_filter(t0, t1, t2):
    """The parts of orient3d's stage-A filter that depend only on the plane's triangle.

    ``orient3d(t1, t2, x, t0)`` expanded along the row of ``x`` is ``(x - t0) . n`` with
    ``n = (t1 - t0) x (t2 - t0)`` evaluated as Shewchuk's stage A evaluates its minors: the
    same shape of expression (a rounded difference times a difference of two rounded products,
    three such terms summed), so the same bound ``O3D_ERRBOUND_A * permanent`` holds. Computing
    ``n`` once per triangle instead of once per corner makes the six side tests of a pair cost
    about what the float dot products of the tolerance-based test did.

    Returns ``(n, m)``: the rounded minors and the sums of their products' magnitudes.
    """
    # Spelled as orient3d's stage A (core.exact.predicates.orient3d) on purpose: the error
    # bound O3D_ERRBOUND_A holds for this order of operations only.
    adx = t1[0] - t0[0]
    ady = t1[1] - t0[1]
    adz = t1[2] - t0[2]
    bdx = t2[0] - t0[0]
    bdy = t2[1] - t0[1]
    bdz = t2[2] - t0[2]
    x1 = ady * bdz
    x2 = adz * bdy
    y1 = adz * bdx
    y2 = adx * bdz
    z1 = adx * bdy
    z2 = ady * bdx
    return (x1 - x2, y1 - y2, z1 - z2), (abs(x1) + abs(x2), abs(y1) + abs(y2), abs(z1) + abs(z2))


@njit(cache=True, nogil=True)
def _side_filtered(t0, t1, t2, n, m, x):
    """:func:`_side` with the plane's filter parts precomputed by :func:`_plane_filter`; the
    full adaptive predicate runs only when the filter cannot decide."""
    cdx = x[0] - t0[0]
    cdy = x[1] - t0[1]
    cdz = x[2] - t0[2]
    det = cdx * n[0] + cdy * n[1] + cdz * n[2]
    errbound = O3D_ERRBOUND_A * (abs(cdx) * m[0] + abs(cdy) * m[1] + abs(cdz) * m[2])
    if det > errbound:
        return 1
    if -det > errbound:
        return -1
    return _side(t0, t1, t2, x)


@njit(cache=True, nogil=True)
def _proj(x, axis):
    """Drop coordinate ``axis`` (exact): ``(u, v)`` with ``(u, v, axis)`` a right-handed
    cyclic order, so the projected orientation is the normal's ``axis`` component."""
    if axis == 0:
        return x[1], x[2]
    if axis == 1:
        return x[2], x[0]
    return x[0], x[1]


@njit(cache=True, nogil=True)
def _orient2(a, b, c, axis):
    """Exact sign of the ``axis`` component of ``(b - a) x (c - a)``."""
    au, av = _proj(a, axis)
    bu, bv = _proj(b, axis)
    cu, cv = _proj(c, axis)
    return _sgn(orient2d_xy(au, av, bu, bv, cu, cv))


@njit(cache=True, nogil=True)
def _plane_axis(t0, t1, t2):
    """An axis along which the exact normal of ``t0 t1 t2`` is nonzero (the largest float
    component first, for well-conditioned float clipping), or -1 if the corners are
    collinear."""
    n = cross3(sub3(t1, t0), sub3(t2, t0))
    first = 0
    if abs(n[1]) > abs(n[first]):
        first = 1
    if abs(n[2]) > abs(n[first]):
        first = 2
    for k in range(3):
        axis = (first + k) % 3
        if _orient2(t0, t1, t2, axis) != 0:
            return axis
    return -1


@njit(cache=True, nogil=True)
def _extremes(t0, t1, t2):
    """The two extreme corners of three collinear points (exact comparisons along an axis
    where they differ); twice the same point if all three coincide."""
    for k in range(3):
        if not (t0[k] == t1[k] and t1[k] == t2[k]):
            lo = t0
            hi = t0
            for t in (t1, t2):
                if t[k] < lo[k]:
                    lo = t
                if t[k] > hi[k]:
                    hi = t
            return lo, hi
    return t0, t0


@njit(cache=True, nogil=True)
def _is_point(a, b):
    return a[0] == b[0] and a[1] == b[1] and a[2] == b[2]


@njit(cache=True, nogil=True)
def _on_line(x, a, b):
    """``x`` on the line through ``a != b``, exactly (the cross product is zero)."""
    return _orient2(a, b, x, 0) == 0 and _orient2(a, b, x, 1) == 0 and _orient2(a, b, x, 2) == 0


@njit(cache=True, nogil=True)
def _within(x, a, b):
    """For ``x`` on the line through ``a != b``: is it inside the closed segment?"""
    for k in range(3):
        if a[k] != b[k]:
            return min(a[k], b[k]) <= x[k] <= max(a[k], b[k])
    return False


# ----------------------------------------------------------------------------------------------
# Float approximations of the contact set (drawing only).


@njit(cache=True, nogil=True)
def _arr(t):
    out = np.empty(3)
    out[0] = t[0]
    out[1] = t[1]
    out[2] = t[2]
    return out


@njit(cache=True, nogil=True)
def _closest_mid(p0, p1, p2, q0, q1, q2):
    """Midpoint of the closest points of the two triangles: the float image of a point
    contact when no construction is more precise."""
    _, pa, pb = tri_tri_closest(_arr(p0), _arr(p1), _arr(p2), _arr(q0), _arr(q1), _arr(q2))
    return (0.5 * (pa[0] + pb[0]), 0.5 * (pa[1] + pb[1]), 0.5 * (pa[2] + pb[2]))


@njit(cache=True, nogil=True)
def _plane_hit(a, b, s_b, da, db):
    """Float point where the line ``a b`` meets the other plane: ``b`` itself when it lies on
    it exactly, else interpolated from the float signed distances ``da``, ``db``."""
    if s_b == 0:
        return b
    den = da - db
    t = da / den if den != 0.0 else 0.5
    t = min(max(t, 0.0), 1.0)
    return lerp3(a, b, t)


# ----------------------------------------------------------------------------------------------
# Degenerate triangles: segment against triangle, segment against segment.


@njit(cache=True, nogil=True)
def _point_in_tri2(x, t0, t1, t2, axis, sigma):
    """``x`` (in the plane) inside the closed triangle, in the projection along ``axis``
    where the triangle's exact orientation sign is ``sigma``."""
    return (sigma * _orient2(t0, t1, x, axis) >= 0 and sigma * _orient2(t1, t2, x, axis) >= 0
            and sigma * _orient2(t2, t0, x, axis) >= 0)  # fmt: skip


@njit(cache=True, nogil=True)
def _seg_tri(a, b, t0, t1, t2):
    """Closed segment ``[a, b]`` (maybe a point) against the non-degenerate triangle
    ``t0 t1 t2``. Returns ``(kind, x0, x1)``, kind TOUCHING or DISJOINT."""
    s_a = _side(t0, t1, t2, a)
    s_b = _side(t0, t1, t2, b)
    if s_a == s_b and s_a != 0:
        return _DISJOINT, a, b
    axis = _plane_axis(t0, t1, t2)
    sigma = _orient2(t0, t1, t2, axis)
    if s_a == 0 and s_b == 0:
        if _is_point(a, b):
            if _point_in_tri2(a, t0, t1, t2, axis, sigma):
                return _TOUCHING, a, a
            return _DISJOINT, a, b
        # In the plane: disjoint iff an edge line has both ends strictly outside, or the
        # segment's line has the three corners strictly on one side (separating axes of the
        # Minkowski difference).
        for k in range(3):
            ti = t0 if k == 0 else (t1 if k == 1 else t2)
            tj = t1 if k == 0 else (t2 if k == 1 else t0)
            if sigma * _orient2(ti, tj, a, axis) < 0 and sigma * _orient2(ti, tj, b, axis) < 0:
                return _DISJOINT, a, b
        o0 = _orient2(a, b, t0, axis)
        o1 = _orient2(a, b, t1, axis)
        o2 = _orient2(a, b, t2, axis)
        if (o0 > 0 and o1 > 0 and o2 > 0) or (o0 < 0 and o1 < 0 and o2 < 0):
            return _DISJOINT, a, b
        x0, x1 = _clip_segment(a, b, t0, t1, t2, axis, sigma)
        return _TOUCHING, x0, x1
    if s_a == 0 or s_b == 0:
        x = a if s_a == 0 else b
        if _point_in_tri2(x, t0, t1, t2, axis, sigma):
            return _TOUCHING, x, x
        return _DISJOINT, a, b
    # Strictly opposite sides: the crossing point is in the closed triangle iff the three
    # volumes (a, b, edge) do not have strictly opposite signs.
    v0 = _sgn(orient3d(a, b, t0, t1))
    v1 = _sgn(orient3d(a, b, t1, t2))
    v2 = _sgn(orient3d(a, b, t2, t0))
    if (v0 > 0 or v1 > 0 or v2 > 0) and (v0 < 0 or v1 < 0 or v2 < 0):
        return _DISJOINT, a, b
    n = cross3(sub3(t1, t0), sub3(t2, t0))
    x = _plane_hit(a, b, 1, dot3(n, sub3(a, t0)), dot3(n, sub3(b, t0)))
    return _TOUCHING, x, x


@njit(cache=True, nogil=True)
def _clip_segment(a, b, t0, t1, t2, axis, sigma):
    """Float clip of an in-plane segment by the triangle's edge lines (drawing only); the
    segment's midpoint if round-off empties it."""
    lo, hi = 0.0, 1.0
    for k in range(3):
        ti = t0 if k == 0 else (t1 if k == 1 else t2)
        tj = t1 if k == 0 else (t2 if k == 1 else t0)
        iu, iv = _proj(ti, axis)
        ju, jv = _proj(tj, axis)
        au, av = _proj(a, axis)
        bu, bv = _proj(b, axis)
        fa = sigma * ((ju - iu) * (av - iv) - (jv - iv) * (au - iu))
        fb = sigma * ((ju - iu) * (bv - iv) - (jv - iv) * (bu - iu))
        if fa < 0.0 and fb < 0.0:
            lo, hi = 1.0, 0.0
        elif fa < 0.0:
            lo = max(lo, fa / (fa - fb))
        elif fb < 0.0:
            hi = min(hi, fa / (fa - fb))
    if lo > hi:
        m = lerp3(a, b, 0.5 * (lo + hi))
        return m, m
    return lerp3(a, b, lo), lerp3(a, b, hi)


@njit(cache=True, nogil=True)
def _seg_seg(a, b, c, d):
    """Closed segments ``[a, b]`` and ``[c, d]`` (either may be a point), exactly.
    Returns ``(kind, x0, x1)``, kind TOUCHING or DISJOINT."""
    if _is_point(a, b) and _is_point(c, d):
        if _is_point(a, c):
            return _TOUCHING, a, a
        return _DISJOINT, a, b
    if _is_point(a, b):
        a, b, c, d = c, d, a, b
    # Now [a, b] is a proper segment.
    if _is_point(c, d):
        if _on_line(c, a, b) and _within(c, a, b):
            return _TOUCHING, c, c
        return _DISJOINT, a, b
    if orient3d(a, b, c, d) != 0.0:
        return _DISJOINT, a, b  # skew lines
    c_on = _on_line(c, a, b)
    d_on = _on_line(d, a, b)
    if c_on and d_on:
        # Collinear: overlap of the intervals along an axis where a and b differ; its ends are
        # input points, so the contact segment is exact.
        k = 0
        while a[k] == b[k]:
            k += 1
        lo_ab, hi_ab = (a, b) if a[k] < b[k] else (b, a)
        lo_cd, hi_cd = (c, d) if c[k] < d[k] else (d, c)
        lo = lo_ab if lo_ab[k] >= lo_cd[k] else lo_cd
        hi = hi_ab if hi_ab[k] <= hi_cd[k] else hi_cd
        if lo[k] > hi[k]:
            return _DISJOINT, a, b
        return _TOUCHING, lo, hi
    x = d if c_on else c
    axis = _plane_axis(a, b, x)
    o1 = _orient2(a, b, c, axis)
    o2 = _orient2(a, b, d, axis)
    o3 = _orient2(c, d, a, axis)
    o4 = _orient2(c, d, b, axis)
    if o1 * o2 <= 0 and o3 * o4 <= 0:
        m = _seg_seg_point(a, b, c, d)
        return _TOUCHING, m, m
    return _DISJOINT, a, b


@njit(cache=True, nogil=True)
def _seg_seg_point(a, b, c, d):
    _, pa, pb = tri_tri_closest(_arr(a), _arr(b), _arr(b), _arr(c), _arr(d), _arr(d))
    return (0.5 * (pa[0] + pb[0]), 0.5 * (pa[1] + pb[1]), 0.5 * (pa[2] + pb[2]))


# ----------------------------------------------------------------------------------------------
# Coplanar branch.


@njit(cache=True, nogil=True)
def _coplanar(p0, p1, p2, q0, q1, q2):
    """Both non-degenerate and in one plane. Exact: the closed triangles are disjoint iff an
    edge line of one has the other's three corners strictly outside; their interiors meet
    (positive-area overlap) iff no edge line has the other's corners outside or on it. Both
    are separating-axis statements on the Minkowski difference ``P - Q``, whose edges are
    translates of the triangles' edges.

    A TOUCHING contact is reported exactly: with disjoint interiors the triangles meet in a
    point or a segment whose ends are corners lying in both (two edges crossing at interior
    points would overlap the interiors), so the two extreme such corners are the contact.
    """
    axis = _plane_axis(p0, p1, p2)
    sig_p = _orient2(p0, p1, p2, axis)
    sig_q = _orient2(q0, q1, q2, axis)
    is_weakly_separated = False
    # Bit j of inside_*: corner j of the other triangle is inside-or-on this edge line.
    in_p = 7  # corners of Q inside-or-on all of P's edge lines so far
    in_q = 7
    for side in range(2):
        if side == 0:
            t0, t1, t2, u0, u1, u2, sig = p0, p1, p2, q0, q1, q2, sig_p
        else:
            t0, t1, t2, u0, u1, u2, sig = q0, q1, q2, p0, p1, p2, sig_q
        for k in range(3):
            ti = t0 if k == 0 else (t1 if k == 1 else t2)
            tj = t1 if k == 0 else (t2 if k == 1 else t0)
            s0 = sig * _orient2(ti, tj, u0, axis)
            s1 = sig * _orient2(ti, tj, u1, axis)
            s2 = sig * _orient2(ti, tj, u2, axis)
            if s0 < 0 and s1 < 0 and s2 < 0:
                return _DISJOINT, p0, p0
            if s0 <= 0 and s1 <= 0 and s2 <= 0:
                is_weakly_separated = True
            inside = (1 if s0 >= 0 else 0) | (2 if s1 >= 0 else 0) | (4 if s2 >= 0 else 0)
            if side == 0:
                in_p &= inside
            else:
                in_q &= inside
    if not is_weakly_separated:
        x0, x1 = _overlap_extent(p0, p1, p2, q0, q1, q2, axis, sig_p, sig_q)
        return _COPLANAR, x0, x1
    # Corners in both triangles: Q's corners inside P (in_p), P's corners inside Q (in_q).
    lo = p0
    hi = p0
    n_found = 0
    for j in range(6):
        if j < 3:
            ok = (in_p >> j) & 1
            x = q0 if j == 0 else (q1 if j == 1 else q2)
        else:
            ok = (in_q >> (j - 3)) & 1
            x = p0 if j == 3 else (p1 if j == 4 else p2)
        if ok:
            if n_found == 0:
                lo = x
                hi = x
            else:
                lo, hi = _extend(lo, hi, x)
            n_found += 1
    return _TOUCHING, lo, hi


@njit(cache=True, nogil=True)
def _extend(lo, hi, x):
    """Grow the collinear extremes ``lo, hi`` by the point ``x`` (on their line), exactly:
    compared along the first axis where the points differ."""
    for k in range(3):
        if lo[k] != hi[k] or lo[k] != x[k]:
            if lo[k] == hi[k]:  # a point so far: order the pair along this axis
                return (lo, x) if lo[k] < x[k] else (x, lo)
            if (x[k] - lo[k]) * (hi[k] - lo[k]) < 0.0:
                return x, hi
            if (x[k] - hi[k]) * (hi[k] - lo[k]) > 0.0:
                return lo, x
            return lo, hi
    return lo, hi


@njit(cache=True, nogil=True)
def _overlap_extent(p0, p1, p2, q0, q1, q2, axis, sig_p, sig_q):
    """Float image of a coplanar overlap: the two points of the clipped polygon farthest
    apart (drawing only); the closest-point midpoint if round-off empties the polygon."""
    poly = np.empty((_MAX_POLY, 3))
    nxt = np.empty((_MAX_POLY, 3))
    for k in range(3):
        poly[0, k] = q0[k]
        poly[1, k] = q1[k]
        poly[2, k] = q2[k]
    n = 3
    for e in range(3):
        ti = p0 if e == 0 else (p1 if e == 1 else p2)
        tj = p1 if e == 0 else (p2 if e == 1 else p0)
        iu, iv = _proj(ti, axis)
        ju, jv = _proj(tj, axis)
        m = 0
        for i in range(n):
            j = (i + 1) % n
            x = (poly[i, 0], poly[i, 1], poly[i, 2])
            y = (poly[j, 0], poly[j, 1], poly[j, 2])
            xu, xv = _proj(x, axis)
            yu, yv = _proj(y, axis)
            fx = sig_p * ((ju - iu) * (xv - iv) - (jv - iv) * (xu - iu))
            fy = sig_p * ((ju - iu) * (yv - iv) - (jv - iv) * (yu - iu))
            if fx >= 0.0:
                for k in range(3):
                    nxt[m, k] = x[k]
                m += 1
            if (fx >= 0.0) != (fy >= 0.0):
                z = lerp3(x, y, fx / (fx - fy))
                for k in range(3):
                    nxt[m, k] = z[k]
                m += 1
        poly, nxt = nxt, poly
        n = m
        if n == 0:
            break
    if n == 0:
        x = _closest_mid(p0, p1, p2, q0, q1, q2)
        return x, x
    bi, bj, best = 0, 0, -1.0
    for i in range(n):
        for j in range(i, n):
            d2 = 0.0
            for k in range(3):
                d2 += (poly[i, k] - poly[j, k]) ** 2
            if d2 > best:
                bi, bj, best = i, j, d2
    return (poly[bi, 0], poly[bi, 1], poly[bi, 2]), (poly[bj, 0], poly[bj, 1], poly[bj, 2])


# ----------------------------------------------------------------------------------------------
# Non-coplanar: the two segments on the planes' line.


@njit(cache=True, nogil=True)
def _interval(t0, t1, t2, s0, s1, s2):
    """Where a triangle meets the other's plane, as two lines through its corners.

    ``s*`` are the corners' exact sides of the other plane (not all zero, not all of one
    strict sign). Returns ``(is_point, a_lo, b_lo, a_hi, b_hi, s_a, s_blo, s_bhi)``: the
    interval's ends along ``w_T = n_T x n_other`` are where the lines ``a b_lo`` and
    ``a b_hi`` meet the other plane; ``a`` (side ``s_a``) is strictly off it and each ``b``
    (sides ``s_blo``, ``s_bhi``) on it or across.

    With an apex ``a`` alone on its side (the other two on the plane or across) and the
    corners ``a, b, c`` in the triangle's own winding, the end on ``ab`` is the upper one
    when ``a`` is on the positive side: the sub-triangle ``a, X_ab, X_ac`` has the winding of
    the triangle, and ``n_T . ((X_ab - a) x (X_ac - X_ab))`` then has the sign of
    ``-s_a * dot(w_T, X_ac - X_ab)``.
    """
    for i in range(3):
        a = t0 if i == 0 else (t1 if i == 1 else t2)
        b = t1 if i == 0 else (t2 if i == 1 else t0)
        c = t2 if i == 0 else (t0 if i == 1 else t1)
        s_a = s0 if i == 0 else (s1 if i == 1 else s2)
        s_b = s1 if i == 0 else (s2 if i == 1 else s0)
        s_c = s2 if i == 0 else (s0 if i == 1 else s1)
        if s_a != 0 and s_b != s_a and s_c != s_a:
            if s_a > 0:
                return False, a, c, b, s_a, s_c, s_b
            return False, a, b, c, s_a, s_b, s_c
    # One corner on the plane, the other two strictly on one side: a single point.
    for i in range(3):
        v = t0 if i == 0 else (t1 if i == 1 else t2)
        s_v = s0 if i == 0 else (s1 if i == 1 else s2)
        if s_v == 0:
            u = t1 if i == 0 else t0
            s_u = s1 if i == 0 else s0
            return True, u, v, v, s_u, 0, 0
    return True, t0, t0, t0, s0, s0, s0  # unreachable for valid signs


@njit(cache=True, nogil=True)
def _order(a, b, s_a, c, d, s_c):
    """Exact sign of ``dot(w, Y - X)``, ``w = n_P x n_Q``, for ``X`` where the line ``a b``
    of P meets Q's plane and ``Y`` where the line ``c d`` of Q meets P's plane.

    ``det[b - a, c - a, d - a] = lambda (dq_d - dq_c)(dp_b - dp_a)`` with ``Y - X = lambda w``
    (Binet-Cauchy, ``n_P . (b - a) = 0``), and ``det[...] = -orient3d(a, b, c, d)``; the sign
    of ``dp_b - dp_a`` is ``-s_a`` and that of ``dq_d - dq_c`` is ``-s_c``.
    """
    return -_sgn(orient3d(a, b, c, d)) * s_a * s_c


@njit(cache=True, nogil=True)
def _crossing_pair(p0, p1, p2, q0, q1, q2, sp0, sp1, sp2, sq0, sq1, sq2):
    """Non-coplanar non-degenerate pair whose triangles both meet the other's plane."""
    pt_p, a_p, b_lo_p, b_hi_p, s_ap, s_blo, s_bhi = _interval(p0, p1, p2, sp0, sp1, sp2)
    pt_q, c_q, d_lo_w, d_hi_w, s_cq, s_dlo_w, s_dhi_w = _interval(q0, q1, q2, sq0, sq1, sq2)
    # Q's interval was read along w_Q = -w: its ends swap.
    d_lo, d_hi, s_dlo, s_dhi = d_hi_w, d_lo_w, s_dhi_w, s_dlo_w
    # lo_P <= hi_Q and lo_Q <= hi_P.
    o1 = _order(a_p, b_lo_p, s_ap, c_q, d_hi, s_cq)
    if o1 < 0:
        return _DISJOINT, p0, p0
    o2 = _order(a_p, b_hi_p, s_ap, c_q, d_lo, s_cq)
    if o2 > 0:
        return _DISJOINT, p0, p0
    # Float images of the four ends (signed distances relative to each plane's first corner).
    n_p = cross3(sub3(p1, p0), sub3(p2, p0))
    n_q = cross3(sub3(q1, q0), sub3(q2, q0))
    da = dot3(n_q, sub3(a_p, q0))
    x_lo_p = _plane_hit(a_p, b_lo_p, s_blo, da, dot3(n_q, sub3(b_lo_p, q0)))
    x_hi_p = _plane_hit(a_p, b_hi_p, s_bhi, da, dot3(n_q, sub3(b_hi_p, q0)))
    dc = dot3(n_p, sub3(c_q, p0))
    x_lo_q = _plane_hit(c_q, d_lo, s_dlo, dc, dot3(n_p, sub3(d_lo, p0)))
    x_hi_q = _plane_hit(c_q, d_hi, s_dhi, dc, dot3(n_p, sub3(d_hi, p0)))
    if o1 == 0:  # lo_P == hi_Q: one point
        m = lerp3(x_lo_p, x_hi_q, 0.5)
        return _TOUCHING, m, m
    if o2 == 0:  # hi_P == lo_Q
        m = lerp3(x_hi_p, x_lo_q, 0.5)
        return _TOUCHING, m, m
    if pt_p:
        return _TOUCHING, x_lo_p, x_lo_p
    if pt_q:
        return _TOUCHING, x_lo_q, x_lo_q
    # Positive length: [max(lo), min(hi)], the ends picked by float order along w (drawing).
    w = cross3(n_p, n_q)
    x0 = x_lo_p if dot3(w, x_lo_p) >= dot3(w, x_lo_q) else x_lo_q
    x1 = x_hi_p if dot3(w, x_hi_p) <= dot3(w, x_hi_q) else x_hi_q
    is_p_straddling = (sp0 > 0 or sp1 > 0 or sp2 > 0) and (sp0 < 0 or sp1 < 0 or sp2 < 0)
    is_q_straddling = (sq0 > 0 or sq1 > 0 or sq2 > 0) and (sq0 < 0 or sq1 < 0 or sq2 < 0)
    if is_p_straddling and is_q_straddling:
        return _CROSSING, x0, x1
    return _TOUCHING, x0, x1


# ----------------------------------------------------------------------------------------------
# The decision.


@njit(cache=True, nogil=True)
def _boxes_apart(p0, p1, p2, q0, q1, q2):
    """Whether the axis-aligned boxes of P's and Q's corners are apart on some axis.

    Exact (comparisons of the given floats round nothing), so a pair it rejects is DISJOINT
    for the coordinates given. Why it comes first: most candidate pairs of a query are pairs
    of leaves whose boxes overlap but whose triangles do not, and with several triangles a
    leaf (the benchmarks' trees hold up to 8) the traversal hands over every triangle of one
    leaf against every triangle of the other. On the W3 100k frame, leaf size 6, 173,188
    candidate pairs met 2,155 contacts; the plane filters below cost about 100 ns a pair,
    this test a few.
    """
    for k in range(3):
        p_lo = min(p0[k], p1[k], p2[k])
        q_hi = max(q0[k], q1[k], q2[k])
        if q_hi < p_lo:
            return True
        p_hi = max(p0[k], p1[k], p2[k])
        q_lo = min(q0[k], q1[k], q2[k])
        if p_hi < q_lo:
            return True
    return False


@njit(cache=True, nogil=True)
def _contact_exact(p0, p1, p2, q0, q1, q2):
    """Exact kind and float contact segment of two triangles in the guaranteed range."""
    if _boxes_apart(p0, p1, p2, q0, q1, q2):
        return _DISJOINT, p0, p0
    n_p, m_p = _plane_filter(p0, p1, p2)
    sq0 = _side_filtered(p0, p1, p2, n_p, m_p, q0)
    sq1 = _side_filtered(p0, p1, p2, n_p, m_p, q1)
    sq2 = _side_filtered(p0, p1, p2, n_p, m_p, q2)
    if sq0 == sq1 and sq1 == sq2 and sq0 != 0:
        return _DISJOINT, p0, p0
    # The same filter with the triangles' roles swapped: P's corners against Q's plane. Six
    # scalar calls, not a loop over (P, Q): the corners are separate (3,) arrays and a loop
    # would stack them into a new array per pair.
    n_q, m_q = _plane_filter(q0, q1, q2)
    sp0 = _side_filtered(q0, q1, q2, n_q, m_q, p0)
    sp1 = _side_filtered(q0, q1, q2, n_q, m_q, p1)
    sp2 = _side_filtered(q0, q1, q2, n_q, m_q, p2)
    if sp0 == sp1 and sp1 == sp2 and sp0 != 0:
        return _DISJOINT, p0, p0
    q_on_p = sq0 == 0 and sq1 == 0 and sq2 == 0
    p_on_q = sp0 == 0 and sp1 == 0 and sp2 == 0
    if q_on_p or p_on_q:
        # All of Q on P's plane happens when they are coplanar or P is degenerate (and the
        # other way round): only then are the exact collinearity tests needed.
        is_p_deg = _plane_axis(p0, p1, p2) < 0
        is_q_deg = _plane_axis(q0, q1, q2) < 0
        if is_p_deg and is_q_deg:
            a, b = _extremes(p0, p1, p2)
            c, d = _extremes(q0, q1, q2)
            return _seg_seg(a, b, c, d)
        if is_p_deg:
            a, b = _extremes(p0, p1, p2)
            return _seg_tri(a, b, q0, q1, q2)
        if is_q_deg:
            c, d = _extremes(q0, q1, q2)
            return _seg_tri(c, d, p0, p1, p2)
        return _coplanar(p0, p1, p2, q0, q1, q2)
    return _crossing_pair(p0, p1, p2, q0, q1, q2, sp0, sp1, sp2, sq0, sq1, sq2)


@njit(cache=True, nogil=True)
def _contact(p0, p1, p2, q0, q1, q2):
    """Core of :func:`tri_tri_contact` on tuples; returns ``(kind, x0, x1)``, kind
    ``OUT_OF_RANGE`` for a pair outside the guaranteed range.

    The pair is scaled by ``2**-e`` (exact) so that its largest magnitude is in ``[1/2, 1)``;
    the segment is scaled back.
    """
    if _is_moderate(p0, p1, p2, q0, q1, q2):
        kind, x0, x1 = _contact_exact(p0, p1, p2, q0, q1, q2)
        if kind == _DISJOINT:
            return kind, p0, p0
        return kind, x0, x1
    ok, e = _pair_scale(p0, p1, p2, q0, q1, q2)
    if not ok:
        return OUT_OF_RANGE, p0, p0
    kind, x0, x1 = _contact_exact(_scaled(p0, e), _scaled(p1, e), _scaled(p2, e),
                                  _scaled(q0, e), _scaled(q1, e), _scaled(q2, e))  # fmt: skip
    if kind == _DISJOINT:
        return kind, p0, p0
    return kind, _unscaled(x0, e), _unscaled(x1, e)


@njit(cache=True, nogil=True)
def _tup(v):
    return (v[0], v[1], v[2])


@njit(cache=True, nogil=True)
def _vert(v, i):
    return (v[i, 0], v[i, 1], v[i, 2])


@njit(cache=True, nogil=True)
def _write(seg, kind, x0, x1):
    for k in range(3):
        if kind == _DISJOINT or kind == OUT_OF_RANGE:
            seg[0, k] = np.nan
            seg[1, k] = np.nan
        else:
            seg[0, k] = x0[k]
            seg[1, k] = x1[k]


@njit(cache=True, nogil=True)
def tri_tri_contact(p0, p1, p2, q0, q1, q2, seg_out):
    """Classify the contact of triangles ``P = (p0, p1, p2)`` and ``Q = (q0, q1, q2)`` exactly.

    Parameters
    ----------
    p0, p1, p2, q0, q1, q2 : (3,) float64
        Corners of the two triangles, in the same frame.
    seg_out : (2, 3) float64
        Written with a float64 approximation of the contact: for CROSSING and TOUCHING the
        intersection segment (both endpoints equal for a point contact), for COPLANAR the two
        points of the overlap polygon farthest apart; NaN for DISJOINT and OUT_OF_RANGE.

    Returns
    -------
    int
        The :class:`ContactKind` value, or :data:`OUT_OF_RANGE` (-1) when the pair is outside
        the guaranteed range (module docstring).
    """
    kind, x0, x1 = _contact(_tup(p0), _tup(p1), _tup(p2), _tup(q0), _tup(q1), _tup(q2))
    _write(seg_out, kind, x0, x1)
    return kind


def tri_tri_batch(va, fa, vb, fb, pair_ids, kinds_out, segs_out) -> None:
    """Run :func:`tri_tri_contact` on many face pairs, in parallel over the pairs.

    The inputs reach the kernel read-only, as ``float64`` vertices and ``int32`` ids
    (:func:`core.jit.kernel_args.frozen`: a view, a copy only for another dtype), so every caller
    runs the one compiled signature the warm-up made.

    Parameters
    ----------
    va : (na, 3) float64
        Vertices of mesh A.
    fa : (ma, 3) int32
        Faces of mesh A.
    vb : (nb, 3) float64
        Vertices of mesh B, already in A's frame.
    fb : (mb, 3) int32
        Faces of mesh B.
    pair_ids : (c, 2) int32 or int64
        Face ids ``(a, b)`` of the pairs to test.
    kinds_out : (c,) int8
        Written with the :class:`ContactKind` value of each pair (or :data:`OUT_OF_RANGE`).
    segs_out : (c, 2, 3) float64
        Written with the contact segment of each pair (NaN for DISJOINT).
    """
    _tri_tri_batch(frozen(va, np.float64), frozen(fa, np.int32), frozen(vb, np.float64),
                   frozen(fb, np.int32), frozen(pair_ids, np.int32), kinds_out, segs_out)


@njit(cache=True, nogil=True, parallel=True)
def _tri_tri_batch(va, fa, vb, fb, pair_ids, kinds_out, segs_out):
    """The kernel of :func:`tri_tri_batch`: the same arrays, as that function hands them over
    (read-only, vertices ``float64``, faces and ids ``int32``)."""
    for k in prange(pair_ids.shape[0]):
        ia = pair_ids[k, 0]
        ib = pair_ids[k, 1]
        kind, x0, x1 = _contact(
            _vert(va, fa[ia, 0]),
            _vert(va, fa[ia, 1]),
            _vert(va, fa[ia, 2]),
            _vert(vb, fb[ib, 0]),
            _vert(vb, fb[ib, 1]),
            _vert(vb, fb[ib, 2]),
        )
        kinds_out[k] = kind
        _write(segs_out[k], kind, x0, x1)


def tri_tri_distance_batch(va, fa, vb, fb, pair_ids, dist_out, segs_out) -> None:
    """Float64 distance and closest points of many face pairs (the near-contact margin).

    Inputs read-only, ids int32, as :func:`tri_tri_batch`'s.

    Parameters
    ----------
    va, fa, vb, fb : as :func:`tri_tri_batch`
    pair_ids : (c, 2) int32 or int64
    dist_out : (c,) float64
        Written with the distance of each pair (Ericson 2005, 5.1.9; a float approximation).
    segs_out : (c, 2, 3) float64
        Written with the closest points, on A then on B.
    """
    _tri_tri_distance_batch(frozen(va, np.float64), frozen(fa, np.int32),
                            frozen(vb, np.float64), frozen(fb, np.int32),
                            frozen(pair_ids, np.int32), dist_out, segs_out)


@njit(cache=True, nogil=True, parallel=True)
def _tri_tri_distance_batch(va, fa, vb, fb, pair_ids, dist_out, segs_out):
    """The kernel of :func:`tri_tri_distance_batch`: the same arrays, as that function hands
    them over (read-only, vertices ``float64``, faces and ids ``int32``)."""
    for k in prange(pair_ids.shape[0]):
        ia = pair_ids[k, 0]
        ib = pair_ids[k, 1]
        d, pa, pb = tri_tri_closest(va[fa[ia, 0]], va[fa[ia, 1]], va[fa[ia, 2]],
                                    vb[fb[ib, 0]], vb[fb[ib, 1]], vb[fb[ib, 2]])  # fmt: skip
        dist_out[k] = d
        for j in range(3):
            segs_out[k, 0, j] = pa[j]
            segs_out[k, 1, j] = pb[j]


def pair_in_range(tri_a, tri_b) -> bool:
    """Whether a pair is inside the guaranteed range (module docstring).

    Parameters
    ----------
    tri_a, tri_b : (3, 3) array_like of float
    """
    a = frozen(np.asarray(tri_a, dtype=np.float64).reshape(3, 3))  # the kernels' signature
    b = frozen(np.asarray(tri_b, dtype=np.float64).reshape(3, 3))
    ok, _ = _pair_scale(_tup(a[0]), _tup(a[1]), _tup(a[2]), _tup(b[0]), _tup(b[1]), _tup(b[2]))
    return bool(ok)


def check_kinds(kinds: np.ndarray, pair_ids: np.ndarray | None, what: str = "face pair") -> None:
    """Raise a one-line :class:`ValueError` if any pair was outside the guaranteed range.

    Parameters
    ----------
    kinds : (c,) int8
        Kinds written by :func:`tri_tri_batch`.
    pair_ids : (c, 2) int or None
        The face ids of those pairs (None: name the pair by ``what`` alone).
    what : str
        How to name a pair in the message.
    """
    if kinds.size == 0 or kinds.min() > OUT_OF_RANGE:  # one pass, no allocation
        return
    bad = np.flatnonzero(kinds == OUT_OF_RANGE)
    if bad.size:
        name = what
        if pair_ids is not None:
            ia, ib = (int(x) for x in pair_ids[bad[0]])
            name = f"{what} ({ia}, {ib})"
        more = f" (and {bad.size - 1} more pairs)" if bad.size > 1 else ""
        raise ValueError(
            f"{name}{more} is outside the exact triangle test's range: coordinates must be "
            f"finite and, within a pair, no nonzero coordinate may be more than "
            f"2^{MAX_SPREAD_LOG2} times smaller than the largest"
        )


def tri_tri(tri_a, tri_b) -> tuple[ContactKind, np.ndarray]:
    """Plain-Python convenience around :func:`tri_tri_contact`.

    Parameters
    ----------
    tri_a, tri_b : (3, 3) array_like of float
        Corners of the two triangles, one per row.

    Returns
    -------
    kind : ContactKind
    segment : (2, 3) float64
        Contact segment endpoints, a float approximation (NaN when DISJOINT).

    Raises
    ------
    ValueError
        If the pair is outside the guaranteed range.
    """
    # Read-only corners: the one signature of tri_tri_contact the warm-up compiled.
    a = frozen(np.asarray(tri_a, dtype=np.float64).reshape(3, 3))
    b = frozen(np.asarray(tri_b, dtype=np.float64).reshape(3, 3))
    seg = np.empty((2, 3))
    kind = tri_tri_contact(a[0], a[1], a[2], b[0], b[1], b[2], seg)
    check_kinds(np.array([kind]), None, "the triangle pair")
    return ContactKind(kind), seg
