"""Exact triangle-triangle contact test with a coplanar branch (numba, float64).

The non-coplanar case is the interval test of Möller, "A Fast Triangle-Triangle Intersection
Test", Journal of Graphics Tools 2(2), 1997: each triangle meets the other's plane in a segment
of the line ``L`` where the two planes meet, and the triangles touch iff the two segments
overlap on ``L``. Unlike the paper, the segment ends are computed as 3-D points (vertex on the
plane, or edge crossing interpolated between two vertices on opposite sides), so the contact
segment comes out of the test for free.

Tolerance policy (the brute-force oracle :mod:`core.collide.brute` uses the same one)
--------------------------------------------------------------------------------------
``eps = tri_rel * longest edge of the two triangles`` (one number per pair), and everything else
is plain float64:

* A triangle is **degenerate** when its smallest height is ``<= eps``
  (``|(p1 - p0) x (p2 - p0)| <= eps * its longest edge``). It is then tested as its longest
  edge (the foot of the opposite height falls inside that edge), a point if that edge is zero,
  and any contact it has is TOUCHING. This is a distance threshold tied to the pair's ``eps``,
  not ``Tolerances.degenerate_rel`` (an area ratio used to count bad triangles of one mesh):
  the kernel only receives ``tri_rel``.
* A vertex is **on** the other triangle's plane when its signed distance (unit normal) is
  ``<= eps`` in magnitude; such a distance counts as zero when deciding sides.
* Inside a plane, a point is **in** a triangle when its signed distance to each edge line,
  measured in that plane, is ``>= -eps`` (the triangle's edges pushed out by ``eps``).
* On the line ``L`` two intervals **overlap** when ``max(lo) <= min(hi) + eps``; the contact
  is CROSSING when the overlap is longer than ``eps`` and each triangle has corners farther
  than ``eps`` on both sides of the other's plane, TOUCHING otherwise.
* Two segments (degenerate against degenerate) touch when their distance is ``<= eps``; when
  both ends of the shorter are within ``eps`` of the longer's line, the contact is the overlap
  of the two on that line.
* A TOUCHING segment not longer than ``eps`` is reported as a point (two equal endpoints).
* A coplanar overlap has **positive area** when ``area > eps * diameter`` (its mean width is
  larger than the tolerance), so triangles sharing only an edge are TOUCHING, not COPLANAR.

Scaling by the triangles' own size makes every decision invariant under uniform scaling
(see :class:`core.settings.Tolerances` for the choice of ``tri_rel``), and all arithmetic is
done relative to the first corner so that it is invariant under translation as well (up to the
round-off of the input coordinates themselves). Known widening: a vertex
snapped onto the other plane is treated as lying on ``L``; when the planes meet at a small angle
``theta`` this lets the test accept a gap up to ``eps / sin(theta)`` (Möller's test does the
same), and pushing the edges of a needle triangle out by ``eps`` reaches further than ``eps``
beyond its sharpest corner.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit, prange

from core.bv._geom import closest_seg_seg
from core.settings import DEFAULT_TOLERANCES, Tolerances
from core.vec3 import cross3, dot3, lerp3, norm3, scale3, sub3

__all__ = ["ContactKind", "tri_tri", "tri_tri_batch", "tri_tri_contact"]


class ContactKind(IntEnum):
    """How two triangles meet."""

    DISJOINT = 0
    """No contact."""
    CROSSING = 1
    """Non-coplanar, each triangle has vertices strictly on both sides of the other's plane:
    they penetrate along a segment."""
    TOUCHING = 2
    """They meet without penetrating: a vertex or edge on the other's surface, one triangle on
    one side of the other's plane, coplanar triangles meeting only along their boundary, or any
    contact of a degenerate triangle."""
    COPLANAR = 3
    """All six signed distances within tolerance and the overlap has positive area."""


# numba freezes module globals as constants; the IntEnum itself is not usable in nopython code.
_DISJOINT = 0
_CROSSING = 1
_TOUCHING = 2
_COPLANAR = 3

# Sutherland-Hodgman clipping of a triangle by three half-planes adds at most one vertex per
# half-plane: 3 + 3 = 6 vertices at most.
_MAX_POLY = 8


# ----------------------------------------------------------------------------------------------
# 3-vectors are tuples (core.vec3): numba keeps them in registers, so the common path
# allocates nothing.


@njit(cache=True, nogil=True)
def _mid(a, b):
    return lerp3(a, b, 0.5)


@njit(cache=True, nogil=True)
def _touching(x0, x1, eps):
    """A TOUCHING result; a segment not longer than ``eps`` is reported as its midpoint, so a
    point contact has two equal endpoints."""
    if norm3(sub3(x1, x0)) <= eps:
        m = _mid(x0, x1)
        return _TOUCHING, m, m
    return _TOUCHING, x0, x1


@njit(cache=True, nogil=True)
def _longest_edge(p0, p1, p2):
    """Endpoints and length of the longest edge of a triangle (the first one on ties, compared
    by squared length: one square root instead of three)."""
    e01 = sub3(p1, p0)
    e12 = sub3(p2, p1)
    e20 = sub3(p0, p2)
    s01 = dot3(e01, e01)
    s12 = dot3(e12, e12)
    s20 = dot3(e20, e20)
    if s01 >= s12 and s01 >= s20:
        return p0, p1, np.sqrt(s01)
    if s12 >= s20:
        return p1, p2, np.sqrt(s12)
    return p2, p0, np.sqrt(s20)


@njit(cache=True, nogil=True)
def _edge_dist(ti, tj, x, u):
    """Signed distance of ``x`` to the line ``ti -> tj`` measured in the plane of normal ``u``;
    positive on the left, which is the inside of a triangle wound counter-clockwise about ``u``."""
    e = sub3(tj, ti)
    return dot3(cross3(e, sub3(x, ti)), u) / norm3(e)


@njit(cache=True, nogil=True)
def _point_in_tri(x, t0, t1, t2, u, eps):
    return (
        _edge_dist(t0, t1, x, u) >= -eps
        and _edge_dist(t1, t2, x, u) >= -eps
        and _edge_dist(t2, t0, x, u) >= -eps
    )


# ----------------------------------------------------------------------------------------------
# Degenerate triangles: segment against triangle, segment against segment.


@njit(cache=True, nogil=True)
def _clip_param(fa, fb, lo, hi, eps):
    """Restrict ``[lo, hi]`` to the ``t`` where ``fa + t (fb - fa) >= -eps`` (``eps >= 0``)."""
    if fa < -eps and fb < -eps:
        return 1.0, 0.0
    if fa < -eps:
        lo = max(lo, (-eps - fa) / (fb - fa))  # fb >= -eps > fa: positive denominator
    elif fb < -eps:
        hi = min(hi, (-eps - fa) / (fb - fa))  # fa >= -eps > fb: negative denominator
    return lo, hi


@njit(cache=True, nogil=True)
def _seg_tri(a, b, t0, t1, t2, u, eps):
    """Segment ``[a, b]`` against a non-degenerate triangle of unit normal ``u``."""
    da = dot3(u, sub3(a, t0))
    db = dot3(u, sub3(b, t0))
    is_a_on = abs(da) <= eps
    is_b_on = abs(db) <= eps
    if is_a_on and is_b_on:
        # The segment lies in the plane: clip it by the three edge lines pushed out by eps
        # (decides contact) and by the edge lines themselves (the drawn segment, when not
        # empty, so that it does not stick out of the triangle by eps).
        lo, hi = 0.0, 1.0
        lo0, hi0 = 0.0, 1.0
        for k in range(3):
            if k == 0:
                ti, tj = t0, t1
            elif k == 1:
                ti, tj = t1, t2
            else:
                ti, tj = t2, t0
            fa = _edge_dist(ti, tj, a, u)
            fb = _edge_dist(ti, tj, b, u)
            lo, hi = _clip_param(fa, fb, lo, hi, eps)
            lo0, hi0 = _clip_param(fa, fb, lo0, hi0, 0.0)
        if lo > hi:
            return _DISJOINT, a, b
        if lo0 <= hi0:
            lo, hi = lo0, hi0
        return _touching(lerp3(a, b, lo), lerp3(a, b, hi), eps)
    if (da > eps and db > eps) or (da < -eps and db < -eps):
        return _DISJOINT, a, b
    if is_a_on:
        x = a
    elif is_b_on:
        x = b
    else:
        x = lerp3(a, b, da / (da - db))  # opposite strict signs: da - db != 0
    if _point_in_tri(x, t0, t1, t2, u, eps):
        return _TOUCHING, x, x
    return _DISJOINT, a, b


@njit(cache=True, nogil=True)
def _seg_seg(a, b, la, c, d, lc, eps):
    """Segment ``[a, b]`` (length ``la``) against segment ``[c, d]`` (length ``lc``); either may
    be a point."""
    if lc > la:  # work along the longer one
        a, b, la, c, d, lc = c, d, lc, a, b, la
    if la == 0.0:  # two points
        if norm3(sub3(c, a)) <= eps:
            m = _mid(a, c)
            return _TOUCHING, m, m
        return _DISJOINT, a, b
    w = scale3(sub3(b, a), 1.0 / la)
    tc = dot3(sub3(c, a), w)
    td = dot3(sub3(d, a), w)
    off_c = norm3(sub3(sub3(c, a), scale3(w, tc)))
    off_d = norm3(sub3(sub3(d, a), scale3(w, td)))
    if off_c <= eps and off_d <= eps:
        # Collinear within tolerance: the contact is the overlap of the two intervals on ab.
        lo = max(0.0, min(tc, td))
        hi = min(la, max(tc, td))
        if lo > hi + eps:
            return _DISJOINT, a, b
        if lo > hi:
            lo = hi = 0.5 * (lo + hi)
        return _touching(lerp3(a, b, lo / la), lerp3(a, b, hi / la), eps)
    _, s, t = closest_seg_seg(a, b, c, d)
    x1 = lerp3(a, b, s)
    x2 = lerp3(c, d, t)
    if norm3(sub3(x2, x1)) <= eps:
        m = _mid(x1, x2)
        return _TOUCHING, m, m
    return _DISJOINT, a, b


# ----------------------------------------------------------------------------------------------
# Coplanar branch: polygon clipping in the reference plane (rare path, small local arrays).


@njit(cache=True, nogil=True)
def _clip_poly(poly, n, t0, t1, t2, u, sgn, offset):
    """Clip the convex polygon ``poly[:n]`` ``(_MAX_POLY, 3) float64`` by the triangle's three
    edge lines pushed out by ``offset`` (Sutherland-Hodgman). ``sgn`` is +1 if the triangle
    winds counter-clockwise about ``u``. Returns ``(out (_MAX_POLY, 3) float64, n_out)``."""
    cur = poly.copy()
    n_cur = n
    nxt = np.empty((_MAX_POLY, 3))
    for k in range(3):
        if k == 0:
            ti, tj = t0, t1
        elif k == 1:
            ti, tj = t1, t2
        else:
            ti, tj = t2, t0
        n_nxt = 0
        for i in range(n_cur):
            x = (cur[i, 0], cur[i, 1], cur[i, 2])
            j = (i + 1) % n_cur
            y = (cur[j, 0], cur[j, 1], cur[j, 2])
            fx = sgn * _edge_dist(ti, tj, x, u) + offset
            fy = sgn * _edge_dist(ti, tj, y, u) + offset
            if fx >= 0.0:
                nxt[n_nxt, 0] = x[0]
                nxt[n_nxt, 1] = x[1]
                nxt[n_nxt, 2] = x[2]
                n_nxt += 1
            if (fx >= 0.0) != (fy >= 0.0):
                z = lerp3(x, y, fx / (fx - fy))  # fx, fy on opposite sides: fx - fy != 0
                nxt[n_nxt, 0] = z[0]
                nxt[n_nxt, 1] = z[1]
                nxt[n_nxt, 2] = z[2]
                n_nxt += 1
        cur, nxt = nxt, cur
        n_cur = n_nxt
        if n_cur == 0:
            break
    return cur, n_cur


@njit(cache=True, nogil=True)
def _farthest_pair(poly, n):
    """Indices of the two vertices of ``poly[:n]`` farthest apart, and their distance."""
    bi, bj, best = 0, 0, -1.0
    for i in range(n):
        for j in range(i, n):
            dx = poly[i, 0] - poly[j, 0]
            dy = poly[i, 1] - poly[j, 1]
            dz = poly[i, 2] - poly[j, 2]
            d2 = dx * dx + dy * dy + dz * dz
            if d2 > best:
                bi, bj, best = i, j, d2
    return bi, bj, np.sqrt(best)


@njit(cache=True, nogil=True)
def _poly_area(poly, n, u):
    """Area of the planar polygon ``poly[:n]`` seen along the unit normal ``u``."""
    area = 0.0
    o = (poly[0, 0], poly[0, 1], poly[0, 2])
    for i in range(1, n - 1):
        x = (poly[i, 0], poly[i, 1], poly[i, 2])
        y = (poly[i + 1, 0], poly[i + 1, 1], poly[i + 1, 2])
        area += dot3(cross3(sub3(x, o), sub3(y, o)), u)
    return 0.5 * abs(area)


@njit(cache=True, nogil=True)
def _tri_poly(t0, t1, t2):
    poly = np.empty((_MAX_POLY, 3))
    for k in range(3):
        poly[0, k] = t0[k]
        poly[1, k] = t1[k]
        poly[2, k] = t2[k]
    return poly


@njit(cache=True, nogil=True)
def _row(poly, i):
    return (poly[i, 0], poly[i, 1], poly[i, 2])


@njit(cache=True, nogil=True)
def _coplanar(p0, p1, p2, n_p, q0, q1, q2, n_q, u, eps, area_kind):
    """Both triangles lie (within ``eps``) in the plane of unit normal ``u``.

    ``n_p``, ``n_q`` are the unnormalised normals; ``area_kind`` is returned when the overlap
    has positive area (COPLANAR, or TOUCHING when only one triangle lies in the other's plane).
    """
    sgn_p = 1.0 if dot3(n_p, u) >= 0.0 else -1.0
    sgn_q = 1.0 if dot3(n_q, u) >= 0.0 else -1.0
    exact, n_exact = _clip_poly(_tri_poly(q0, q1, q2), 3, p0, p1, p2, u, sgn_p, 0.0)
    if n_exact >= 3:
        i, j, diam = _farthest_pair(exact, n_exact)
        if _poly_area(exact, n_exact, u) > eps * diam:
            return area_kind, _row(exact, i), _row(exact, j)
    # No positive-area overlap: contact iff either triangle meets the other pushed out by eps
    # (both ways, so the answer does not depend on the order of the pair).
    if n_exact >= 1:
        i, j, diam = _farthest_pair(exact, n_exact)
        return _touching(_row(exact, i), _row(exact, j), eps)
    near, n_near = _clip_poly(_tri_poly(q0, q1, q2), 3, p0, p1, p2, u, sgn_p, eps)
    if n_near == 0:
        near, n_near = _clip_poly(_tri_poly(p0, p1, p2), 3, q0, q1, q2, u, sgn_q, eps)
    if n_near == 0:
        return _DISJOINT, p0, p0
    i, j, diam = _farthest_pair(near, n_near)
    return _touching(_row(near, i), _row(near, j), eps)


# ----------------------------------------------------------------------------------------------
# Non-coplanar interval test.


@njit(cache=True, nogil=True)
def _interval(t0, t1, t2, d0, d1, d2, eps, w):
    """Where a triangle meets the other plane, as an interval on the line direction ``w``.

    ``d*`` are the signed distances of the corners to the other plane; at least one is within
    ``eps`` or two have strictly opposite signs. Returns ``(lo, hi, x_lo, x_hi)``: the extreme
    parameters ``dot(w, x)`` and the 3-D points that reach them.
    """
    lo = np.inf
    hi = -np.inf
    x_lo = t0
    x_hi = t0
    for k in range(6):
        # k < 3: corner k on the plane; k >= 3: edge (k-3, k-2) crossing it.
        if k == 0:
            x, ok = t0, abs(d0) <= eps
        elif k == 1:
            x, ok = t1, abs(d1) <= eps
        elif k == 2:
            x, ok = t2, abs(d2) <= eps
        elif k == 3:
            ok = (d0 > eps and d1 < -eps) or (d0 < -eps and d1 > eps)
            x = lerp3(t0, t1, d0 / (d0 - d1)) if ok else t0
        elif k == 4:
            ok = (d1 > eps and d2 < -eps) or (d1 < -eps and d2 > eps)
            x = lerp3(t1, t2, d1 / (d1 - d2)) if ok else t0
        else:
            ok = (d2 > eps and d0 < -eps) or (d2 < -eps and d0 > eps)
            x = lerp3(t2, t0, d2 / (d2 - d0)) if ok else t0
        if ok:
            s = dot3(w, x)
            if s < lo:
                lo, x_lo = s, x
            if s > hi:
                hi, x_hi = s, x
    return lo, hi, x_lo, x_hi


@njit(cache=True, nogil=True)
def _all_one_side(d0, d1, d2, eps):
    return (d0 > eps and d1 > eps and d2 > eps) or (d0 < -eps and d1 < -eps and d2 < -eps)


@njit(cache=True, nogil=True)
def _straddles(d0, d1, d2, eps):
    has_pos = d0 > eps or d1 > eps or d2 > eps
    has_neg = d0 < -eps or d1 < -eps or d2 < -eps
    return has_pos and has_neg


@njit(cache=True, nogil=True)
def _add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@njit(cache=True, nogil=True)
def _contact(p0, p1, p2, q0, q1, q2, tri_rel):
    """Core of :func:`tri_tri_contact` on tuples; returns ``(kind, x0, x1)``.

    Works relative to ``p0``: for nearby points the differences are exact (Sterbenz), so a
    small pair far from the origin is decided as well as the same pair near it, where absolute
    coordinates would carry round-off far above ``eps`` (found by a test at x = 1e6).
    """
    o = p0
    kind, x0, x1 = _contact_local(
        (0.0, 0.0, 0.0), sub3(p1, o), sub3(p2, o), sub3(q0, o), sub3(q1, o), sub3(q2, o), tri_rel
    )
    return kind, _add(x0, o), _add(x1, o)


@njit(cache=True, nogil=True)
def _contact_local(p0, p1, p2, q0, q1, q2, tri_rel):
    """:func:`_contact` with ``p0`` at the origin."""
    a, b, l_p = _longest_edge(p0, p1, p2)
    c, d, l_q = _longest_edge(q0, q1, q2)
    eps = tri_rel * max(l_p, l_q)
    n_p = cross3(sub3(p1, p0), sub3(p2, p0))
    n_q = cross3(sub3(q1, q0), sub3(q2, q0))
    nn_p = norm3(n_p)
    nn_q = norm3(n_q)
    # |n| / longest edge is the smallest height of the triangle.
    is_p_degenerate = nn_p <= eps * l_p
    is_q_degenerate = nn_q <= eps * l_q
    if is_p_degenerate and is_q_degenerate:
        return _seg_seg(a, b, l_p, c, d, l_q, eps)
    if is_p_degenerate:
        return _seg_tri(a, b, q0, q1, q2, scale3(n_q, 1.0 / nn_q), eps)
    if is_q_degenerate:
        return _seg_tri(c, d, p0, p1, p2, scale3(n_p, 1.0 / nn_p), eps)

    u_p = scale3(n_p, 1.0 / nn_p)
    u_q = scale3(n_q, 1.0 / nn_q)
    dq0 = dot3(u_p, sub3(q0, p0))
    dq1 = dot3(u_p, sub3(q1, p0))
    dq2 = dot3(u_p, sub3(q2, p0))
    if _all_one_side(dq0, dq1, dq2, eps):
        return _DISJOINT, p0, p0
    dp0 = dot3(u_q, sub3(p0, q0))
    dp1 = dot3(u_q, sub3(p1, q0))
    dp2 = dot3(u_q, sub3(p2, q0))
    if _all_one_side(dp0, dp1, dp2, eps):
        return _DISJOINT, p0, p0

    is_q_on_p = abs(dq0) <= eps and abs(dq1) <= eps and abs(dq2) <= eps
    is_p_on_q = abs(dp0) <= eps and abs(dp1) <= eps and abs(dp2) <= eps
    w = cross3(u_p, u_q)
    nn_w = norm3(w)
    if is_q_on_p or is_p_on_q or nn_w == 0.0:
        area_kind = _COPLANAR if (is_q_on_p and is_p_on_q) else _TOUCHING
        # Work in the plane of the triangle the other one lies on; if both, the larger one
        # (its normal is the better conditioned).
        if is_q_on_p and not is_p_on_q:
            u = u_p
        elif is_p_on_q and not is_q_on_p:
            u = u_q
        else:
            u = u_p if nn_p >= nn_q else u_q
        return _coplanar(p0, p1, p2, n_p, q0, q1, q2, n_q, u, eps, area_kind)

    w = scale3(w, 1.0 / nn_w)
    lo_p, hi_p, xlo_p, xhi_p = _interval(p0, p1, p2, dp0, dp1, dp2, eps, w)
    lo_q, hi_q, xlo_q, xhi_q = _interval(q0, q1, q2, dq0, dq1, dq2, eps, w)
    if lo_p >= lo_q:
        lo, x_lo = lo_p, xlo_p
    else:
        lo, x_lo = lo_q, xlo_q
    if hi_p <= hi_q:
        hi, x_hi = hi_p, xhi_p
    else:
        hi, x_hi = hi_q, xhi_q
    if lo > hi + eps:
        return _DISJOINT, p0, p0
    if hi - lo <= eps:
        m = _mid(x_lo, x_hi)
        return _TOUCHING, m, m
    if _straddles(dp0, dp1, dp2, eps) and _straddles(dq0, dq1, dq2, eps):
        return _CROSSING, x_lo, x_hi
    return _TOUCHING, x_lo, x_hi


@njit(cache=True, nogil=True)
def _tup(v):
    return (v[0], v[1], v[2])


@njit(cache=True, nogil=True)
def _vert(v, i):
    return (v[i, 0], v[i, 1], v[i, 2])


@njit(cache=True, nogil=True)
def _write(seg, kind, x0, x1):
    for k in range(3):
        if kind == _DISJOINT:
            seg[0, k] = np.nan
            seg[1, k] = np.nan
        else:
            seg[0, k] = x0[k]
            seg[1, k] = x1[k]


@njit(cache=True, nogil=True)
def tri_tri_contact(p0, p1, p2, q0, q1, q2, tri_rel, seg_out):
    """Classify the contact of triangles ``P = (p0, p1, p2)`` and ``Q = (q0, q1, q2)``.

    Parameters
    ----------
    p0, p1, p2, q0, q1, q2 : (3,) float64
        Corners of the two triangles, in the same frame.
    tri_rel : float
        Tolerance relative to the longest edge of the two triangles (``Tolerances.tri_rel``);
        see the module docstring for exactly where it is applied.
    seg_out : (2, 3) float64
        Written with the contact segment: for CROSSING and TOUCHING the intersection segment
        (both endpoints equal for a point contact), for COPLANAR the two points of the overlap
        polygon farthest apart. NaN for DISJOINT (unspecified by contract).

    Returns
    -------
    int
        The :class:`ContactKind` value.
    """
    kind, x0, x1 = _contact(_tup(p0), _tup(p1), _tup(p2), _tup(q0), _tup(q1), _tup(q2), tri_rel)
    _write(seg_out, kind, x0, x1)
    return kind


@njit(cache=True, nogil=True, parallel=True)
def tri_tri_batch(va, fa, vb, fb, pair_ids, tri_rel, kinds_out, segs_out):
    """Run :func:`tri_tri_contact` on many face pairs, in parallel over the pairs.

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
    tri_rel : float
        Relative tolerance (``Tolerances.tri_rel``).
    kinds_out : (c,) int8
        Written with the :class:`ContactKind` value of each pair.
    segs_out : (c, 2, 3) float64
        Written with the contact segment of each pair (NaN for DISJOINT).
    """
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
            tri_rel,
        )
        kinds_out[k] = kind
        _write(segs_out[k], kind, x0, x1)


def tri_tri(tri_a, tri_b, tol: Tolerances = DEFAULT_TOLERANCES) -> tuple[ContactKind, np.ndarray]:
    """Plain-Python convenience around :func:`tri_tri_contact`.

    Parameters
    ----------
    tri_a, tri_b : (3, 3) array_like of float
        Corners of the two triangles, one per row.
    tol : Tolerances
        Only ``tol.tri_rel`` is used.

    Returns
    -------
    kind : ContactKind
    segment : (2, 3) float64
        Contact segment endpoints (NaN when DISJOINT).
    """
    a = np.ascontiguousarray(tri_a, dtype=np.float64).reshape(3, 3)
    b = np.ascontiguousarray(tri_b, dtype=np.float64).reshape(3, 3)
    seg = np.empty((2, 3))
    kind = tri_tri_contact(a[0], a[1], a[2], b[0], b[1], b[2], float(tol.tri_rel), seg)
    return ContactKind(kind), seg
