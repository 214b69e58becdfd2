"""Small numba geometry kernels shared by the bounding-volume kinds and the distance query.

Everything here works on scalars and short 1-D arrays so that it inlines into the per-pair
kernels. Closest-point routines follow Ericson, *Real-Time Collision Detection* (2005),
sections 5.1.2 (point-rectangle), 5.1.5 (point-triangle) and 5.1.9 (segment-segment).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.vec3 import axpy3, dot3, sub3, vec3

#: Relative round-off of float64 products of unit vectors. Added to ``|R|`` in the box tests
#: so that near-parallel edge pairs (cross axes of length ~0) never separate two boxes by
#: round-off alone (Gottschalk et al. 1996, RAPID; Ericson 2005, section 4.4.1).
ROUND = 16.0 * np.finfo(np.float64).eps

#: Jacobi sweeps for a 3x3 symmetric matrix; it converges quadratically and 3x3 needs 4-6.
_JACOBI_SWEEPS = 24


@njit(cache=True, nogil=True)
def is_identity_rotation(rot):
    """Whether the ``(3, 3)`` matrix is exactly the identity (then the box tests are plain
    interval checks)."""
    for i in range(3):
        for j in range(3):
            if rot[i, j] != (1.0 if i == j else 0.0):
                return False
    return True


@njit(cache=True, nogil=True)
def matvec3(m, x):
    """``m @ x`` for a (3, 3) matrix and a 3-vector, ``(3,) float64``."""
    out = np.empty(3)
    for i in range(3):
        out[i] = m[i, 0] * x[0] + m[i, 1] * x[1] + m[i, 2] * x[2]
    return out


@njit(cache=True, nogil=True)
def matmul3(a, b):
    """``a @ b`` for two (3, 3) matrices, ``(3, 3) float64``."""
    out = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            out[i, j] = a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j]
    return out


@njit(cache=True, nogil=True)
def jacobi_eigenvectors(cov):
    """Eigenvectors of a symmetric 3x3 matrix by cyclic Jacobi rotations (as RAPID does).

    Parameters
    ----------
    cov : (3, 3) float64

    Returns
    -------
    axes : (3, 3) float64
        Orthonormal; column ``j`` is the eigenvector of the ``j``-th largest eigenvalue.
    values : (3,) float64
        Eigenvalues, largest first.
    """
    axes = np.empty((3, 3))
    values = np.empty(3)
    jacobi_eigenvectors_into(cov.copy(), np.empty((3, 3)), axes, values)
    return axes, values


@njit(cache=True, nogil=True)
def jacobi_eigenvectors_into(a, v, axes, values):
    """:func:`jacobi_eigenvectors` into caller-owned arrays (the OBB fit runs it for every node
    of a million-node tree, where five small allocations a node cost more than the rotations).

    Parameters
    ----------
    a : (3, 3) float64
        The symmetric matrix; destroyed.
    v : (3, 3) float64
        Scratch.
    axes : (3, 3) float64
        Written: eigenvectors as columns, largest eigenvalue first.
    values : (3,) float64
        Written: eigenvalues, largest first.
    """
    for i in range(3):
        for j in range(3):
            v[i, j] = 1.0 if i == j else 0.0
    for _ in range(_JACOBI_SWEEPS):
        off = a[0, 1] * a[0, 1] + a[0, 2] * a[0, 2] + a[1, 2] * a[1, 2]
        scale = a[0, 0] * a[0, 0] + a[1, 1] * a[1, 1] + a[2, 2] * a[2, 2]
        if off <= ROUND * ROUND * scale or off == 0.0:
            break
        for p in range(2):
            for q in range(p + 1, 3):
                apq = a[p, q]
                if apq == 0.0:
                    continue
                theta = (a[q, q] - a[p, p]) / (2.0 * apq)
                t = 1.0 / (abs(theta) + np.sqrt(theta * theta + 1.0))
                if theta < 0.0:
                    t = -t
                c = 1.0 / np.sqrt(t * t + 1.0)
                s = t * c
                for k in range(3):
                    akp = a[k, p]
                    akq = a[k, q]
                    a[k, p] = c * akp - s * akq
                    a[k, q] = s * akp + c * akq
                for k in range(3):
                    apk = a[p, k]
                    aqk = a[q, k]
                    a[p, k] = c * apk - s * aqk
                    a[q, k] = s * apk + c * aqk
                for k in range(3):
                    vkp = v[k, p]
                    vkq = v[k, q]
                    v[k, p] = c * vkp - s * vkq
                    v[k, q] = s * vkp + c * vkq
    # Sort by eigenvalue, largest first (three values: a fixed network, no argsort array).
    i0, i1, i2 = 0, 1, 2
    if a[i1, i1] > a[i0, i0]:
        i0, i1 = i1, i0
    if a[i2, i2] > a[i1, i1]:
        i1, i2 = i2, i1
    if a[i1, i1] > a[i0, i0]:
        i0, i1 = i1, i0
    order = (i0, i1, i2)
    for j in range(3):
        values[j] = a[order[j], order[j]]
        for k in range(3):
            axes[k, j] = v[k, order[j]]


@njit(cache=True, nogil=True)
def clamp01(x):
    return 0.0 if x < 0.0 else (1.0 if x > 1.0 else x)


@njit(cache=True, nogil=True)
def closest_seg_seg(p0, p1, q0, q1):
    """Closest points of segments ``p0 p1`` and ``q0 q1`` (either may be a point).

    Parameters
    ----------
    p0, p1, q0, q1 : (3,) float64

    Returns
    -------
    dist2 : float
        Squared distance.
    s, t : float
        Parameters of the closest points, ``p0 + s (p1 - p0)`` and ``q0 + t (q1 - q0)``.
    """
    # Tuples: the swept-sphere tests call this a few dozen times a pair.
    d1 = sub3(p1, p0)
    d2 = sub3(q1, q0)
    r = sub3(p0, q0)
    a = dot3(d1, d1)
    e = dot3(d2, d2)
    f = dot3(d2, r)
    if a == 0.0 and e == 0.0:
        s = 0.0
        t = 0.0
    elif a == 0.0:
        s = 0.0
        t = clamp01(f / e)
    else:
        c = dot3(d1, r)
        if e == 0.0:
            t = 0.0
            s = clamp01(-c / a)
        else:
            b = dot3(d1, d2)
            denom = a * e - b * b
            s = clamp01((b * f - c * e) / denom) if denom > 0.0 else 0.0
            t = (b * s + f) / e
            if t < 0.0:
                t = 0.0
                s = clamp01(-c / a)
            elif t > 1.0:
                t = 1.0
                s = clamp01((b - c) / a)
    x = sub3(axpy3(p0, s, d1), axpy3(q0, t, d2))
    return dot3(x, x), s, t


@njit(cache=True, nogil=True)
def closest_point_triangle(p, a, b, c):
    """Closest point to ``p`` on triangle ``abc`` (Ericson 2005, 5.1.5), ``(3,) float64``.

    Degenerate triangles are handled: the Voronoi-region walk only divides by positive
    quantities, and the fall-back for a zero-area triangle is its closest edge.
    """
    ab = b - a
    ac = c - a
    ap = p - a
    d1 = dot3(ab, ap)
    d2 = dot3(ac, ap)
    if d1 <= 0.0 and d2 <= 0.0:
        return a.copy()
    # Ericson's Voronoi-region walk as the book writes it, one block per corner and edge: each
    # returns as soon as p is in its region, and the dot products carry over between blocks.
    bp = p - b
    d3 = dot3(ab, bp)
    d4 = dot3(ac, bp)
    if d3 >= 0.0 and d4 <= d3:
        return b.copy()
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        den = d1 - d3
        v = d1 / den if den > 0.0 else 0.0
        return a + v * ab
    cp = p - c
    d5 = dot3(ab, cp)
    d6 = dot3(ac, cp)
    if d6 >= 0.0 and d5 <= d6:
        return c.copy()
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        den = d2 - d6
        w = d2 / den if den > 0.0 else 0.0
        return a + w * ac
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        den = (d4 - d3) + (d5 - d6)
        w = (d4 - d3) / den if den > 0.0 else 0.0
        return b + w * (c - b)
    den = va + vb + vc
    if den <= 0.0:
        # Zero area: the closest of the three edges.
        best = a.copy()
        bd = np.inf
        for e0, e1 in ((a, b), (b, c), (c, a)):
            d2e, s, _ = closest_seg_seg(e0, e1, p, p)
            if d2e < bd:
                bd = d2e
                best = e0 + s * (e1 - e0)
        return best
    v = vb / den
    w = vc / den
    return a + ab * v + ac * w


@njit(cache=True, nogil=True)
def segment_crosses_triangle(p, q, a, b, c):
    """Where segment ``pq`` passes through the interior of triangle ``abc``.

    Returns
    -------
    hit : bool
        True when the segment's ends are strictly on opposite sides of the plane and the
        crossing point is inside the triangle (touching cases are found by the closest-point
        routines, which give distance 0 there).
    x : (3,) float64
        The crossing point (meaningful only when ``hit``).
    """
    n = np.cross(b - a, c - a)
    dp = dot3(n, p - a)
    dq = dot3(n, q - a)
    x = p.copy()
    if (dp > 0.0 and dq > 0.0) or (dp < 0.0 and dq < 0.0) or dp == dq:
        return False, x
    t = dp / (dp - dq)
    x = p + t * (q - p)
    # Same-side tests of x against the three edges, in the plane of the triangle.
    if dot3(np.cross(b - a, x - a), n) < 0.0:
        return False, x
    if dot3(np.cross(c - b, x - b), n) < 0.0:
        return False, x
    if dot3(np.cross(a - c, x - c), n) < 0.0:
        return False, x
    return True, x


@njit(cache=True, nogil=True)
def tri_tri_closest(a0, a1, a2, b0, b1, b2):
    """Distance and closest points of two triangles.

    The minimum of two triangles' distance is attained either where an edge of one passes
    through the other (distance 0), or between two edges, or between a vertex and the other
    triangle's face; all 9 + 6 + 6 cases are tried (Ericson 2005, section 5.1.9 and the
    remark in 5.2.8; the same case list as PQP's ``TriDist``).

    Parameters
    ----------
    a0, a1, a2, b0, b1, b2 : (3,) float64

    Returns
    -------
    dist : float
    pa, pb : (3,) float64
        Closest points on A and on B.
    """
    ta = (a0, a1, a2)
    tb = (b0, b1, b2)
    for i in range(3):
        hit, x = segment_crosses_triangle(ta[i], ta[(i + 1) % 3], b0, b1, b2)
        if hit:
            return 0.0, x, x.copy()
        hit, x = segment_crosses_triangle(tb[i], tb[(i + 1) % 3], a0, a1, a2)
        if hit:
            return 0.0, x, x.copy()
    best = np.inf
    pa = a0.copy()
    pb = b0.copy()
    for i in range(3):
        p0 = ta[i]
        p1 = ta[(i + 1) % 3]
        for j in range(3):
            q0 = tb[j]
            q1 = tb[(j + 1) % 3]
            d2, s, t = closest_seg_seg(p0, p1, q0, q1)
            if d2 < best:
                best = d2
                pa = p0 + s * (p1 - p0)
                pb = q0 + t * (q1 - q0)
    for i in range(3):
        y = closest_point_triangle(ta[i], b0, b1, b2)
        d = ta[i] - y
        d2 = dot3(d, d)
        if d2 < best:
            best = d2
            pa = ta[i].copy()
            pb = y
        y = closest_point_triangle(tb[i], a0, a1, a2)
        d = tb[i] - y
        d2 = dot3(d, d)
        if d2 < best:
            best = d2
            pa = y
            pb = tb[i].copy()
    return np.sqrt(best), pa, pb


@njit(cache=True, nogil=True)
def _point_rect_dist2(p, c, u, v, hu, hv):
    """Squared distance from ``p`` to the rectangle ``c + s u + t v``, ``|s| <= hu``,
    ``|t| <= hv`` (``u, v`` orthonormal; Ericson 2005, 5.1.4)."""
    d = sub3(p, c)
    s = dot3(d, u)
    t = dot3(d, v)
    s = min(max(s, -hu), hu)
    t = min(max(t, -hv), hv)
    x = axpy3(axpy3(d, -s, u), -t, v)
    return dot3(x, x)


@njit(cache=True, nogil=True)
def _rect_edge(c, u, v, h0, h1, k):
    """Edge ``k`` (0-3, in order around) of the rectangle ``c + s u + t v``, ``|s| <= h0``,
    ``|t| <= h1``: its two ends as 3-tuples."""
    su = h0 if k < 2 else -h0
    sv = h1 if k % 3 == 0 else -h1
    su2 = h0 if (k + 1) % 4 < 2 else -h0
    sv2 = h1 if ((k + 1) % 4) % 3 == 0 else -h1
    return axpy3(axpy3(c, su, u), sv, v), axpy3(axpy3(c, su2, u), sv2, v)


@njit(cache=True, nogil=True)
def _seg_rect_dist2(p, q, c, u, v, hu, hv):
    """Squared distance from segment ``pq`` to a rectangle (see ``_point_rect_dist2``)."""
    n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    dp = dot3(n, sub3(p, c))
    dq = dot3(n, sub3(q, c))
    if (dp <= 0.0 <= dq or dq <= 0.0 <= dp) and dp != dq:
        t = dp / (dp - dq)
        x = sub3(axpy3(p, t, sub3(q, p)), c)
        if abs(dot3(x, u)) <= hu and abs(dot3(x, v)) <= hv:
            return 0.0
    best = min(_point_rect_dist2(p, c, u, v, hu, hv), _point_rect_dist2(q, c, u, v, hu, hv))
    for k in range(4):
        e0, e1 = _rect_edge(c, u, v, hu, hv, k)
        d2, _, _ = closest_seg_seg(p, q, e0, e1)
        if d2 < best:
            best = d2
    return best


@njit(cache=True, nogil=True)
def rect_rect_distance(ca, ua, va, ha0, ha1, cb, ub, vb, hb0, hb1):
    """Distance between two rectangles in space (either may be a segment or a point).

    Two convex planar polygons are closest between an edge of one and the other polygon
    (an edge passing through the other gives 0), so the distance is the least of the eight
    edge-rectangle distances. Slower than PQP's ``RectDist`` (which walks the Voronoi regions)
    but short and exact for the degenerate rectangles of LSS and PSS too.

    Parameters
    ----------
    ca, cb : (3,) float64
        Centres.
    ua, va, ub, vb : (3,) float64
        Unit edge directions of each rectangle.
    ha0, ha1, hb0, hb1 : float
        Half-lengths along those directions.

    Returns
    -------
    float
    """
    # Tuples throughout (no heap arrays): about 1 us a call as arrays, most of it allocation.
    ca, ua, va, cb, ub, vb = vec3(ca), vec3(ua), vec3(va), vec3(cb), vec3(ub), vec3(vb)
    best = _edges_to_rect2(ca, ua, va, ha0, ha1, cb, ub, vb, hb0, hb1, np.inf)
    if best > 0.0:
        best = _edges_to_rect2(cb, ub, vb, hb0, hb1, ca, ua, va, ha0, ha1, best)
    return np.sqrt(best)


@njit(cache=True, nogil=True)
def _edges_to_rect2(c, u, v, h0, h1, c2, u2, v2, g0, g1, best):
    """The least squared distance, below ``best``, from the four edges of the rectangle
    ``(c, u, v, h0, h1)`` to the rectangle ``(c2, u2, v2, g0, g1)``; stops at 0."""
    for k in range(4):
        e0, e1 = _rect_edge(c, u, v, h0, h1, k)
        d2 = _seg_rect_dist2(e0, e1, c2, u2, v2, g0, g1)
        if d2 < best:
            best = d2
            if best == 0.0:
                return 0.0
    return best
