"""Exact orientation predicates for float64 points: adaptive orient2d and orient3d (numba).

Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast Robust Geometric
Predicates", Discrete & Computational Geometry 18(3), 1997. Each predicate returns a float64
whose **sign is exact**: it is the sign of the determinant of the float64 inputs computed
with real numbers. The value itself is only an approximation.

Stages (the paper's section 4 and its ``predicates.c``):

A. the plain float determinant and the forward error bound ``errboundA * permanent``: if the
   determinant is farther from zero than the bound, its sign is right. Almost every call on a
   mesh ends here (measured: see docs/exactness.md).
B. the determinant of the rounded coordinate differences, exactly, as an expansion; right
   when the differences were exact (their tails are zero) or when it clears ``errboundB``.
C. B corrected by the first-order terms of the tails, with ``errboundC``.
D. the determinant of the exact differences (each a two-term expansion), fully exact.

Stage D is written as products of expansions rather than Shewchuk's hand-unrolled tail
terms: the same exact value, fewer lines, and it runs only on the rare inputs that stages
A-C cannot decide.

Exactness assumes that no product overflows and that none underflows (the error-free
product and the error bounds need normal results). :mod:`core.collide.tritri` guarantees
that by scaling each triangle pair by a power of two and rejecting pairs whose coordinates
span too many binades (:data:`core.collide.tritri.MAX_SPREAD_LOG2`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["O3D_ERRBOUND_A", "orient2d", "orient3d", "two_diff", "two_product", "two_sum"]

# Shewchuk's epsilon is half an ulp of 1 (2^-53 for float64), and the splitter 2^ceil(53/2)+1.
_EPS = 2.0**-53
_SPLITTER = 2.0**27 + 1.0
_RESULT_ERRBOUND = (3.0 + 8.0 * _EPS) * _EPS
_CCW_ERRBOUND_A = (3.0 + 16.0 * _EPS) * _EPS
_CCW_ERRBOUND_B = (2.0 + 12.0 * _EPS) * _EPS
_CCW_ERRBOUND_C = (9.0 + 64.0 * _EPS) * _EPS * _EPS
O3D_ERRBOUND_A = (7.0 + 56.0 * _EPS) * _EPS
_O3D_ERRBOUND_B = (3.0 + 28.0 * _EPS) * _EPS
_O3D_ERRBOUND_C = (26.0 + 288.0 * _EPS) * _EPS * _EPS

# Stage D buffer: a product of three two-term differences has at most 2 * 2 * 2 * 2 = 16
# components per term pair, 64 per minor times coordinate, 192 for the determinant; the
# scratch areas below add up to less than this.
_WORK = 1024


# ----------------------------------------------------------------------------------------------
# Error-free transformations (the paper's section 2).


@njit(cache=True, nogil=True)
def two_sum(a, b):
    """``a + b = x + y`` exactly, ``x = fl(a + b)`` (Knuth)."""
    x = a + b
    b_virt = x - a
    a_virt = x - b_virt
    return x, (a - a_virt) + (b - b_virt)


@njit(cache=True, nogil=True)
def _fast_two_sum(a, b):
    """``a + b = x + y`` exactly when ``|a| >= |b|`` (Dekker)."""
    x = a + b
    return x, b - (x - a)


@njit(cache=True, nogil=True)
def two_diff(a, b):
    """``a - b = x + y`` exactly, ``x = fl(a - b)``."""
    x = a - b
    b_virt = a - x
    a_virt = x + b_virt
    return x, (a - a_virt) + (b_virt - b)


@njit(cache=True, nogil=True)
def _split(a):
    """``a = hi + lo`` with each half of at most 26 significant bits."""
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


@njit(cache=True, nogil=True)
def two_product(a, b):
    """``a * b = x + y`` exactly, ``x = fl(a * b)`` (Dekker's product, no FMA needed)."""
    x = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    err = x - a_hi * b_hi
    err -= a_lo * b_hi
    err -= a_hi * b_lo
    return x, a_lo * b_lo - err


@njit(cache=True, nogil=True)
def _two_two_diff(a1, a0, b1, b0):
    """``(a1 + a0) - (b1 + b0)`` as a four-component expansion ``(x0, x1, x2, x3)``,
    smallest first."""
    i, x0 = two_diff(a0, b0)
    j, r = two_sum(a1, i)
    i, x1 = two_diff(r, b1)
    x3, x2 = two_sum(j, i)
    return x0, x1, x2, x3


# ----------------------------------------------------------------------------------------------
# Expansion arithmetic. An expansion is ``e[:n]``, non-overlapping components in increasing
# magnitude; it always has at least one component (zero is ``[0.0]``).


@njit(cache=True, nogil=True)
def _scale_expansion(e, n_e, b, h):
    """``h = e * b`` (Shewchuk's scale_expansion_zeroelim); returns the length of ``h``."""
    b_hi, b_lo = _split(b)
    q, hh = _two_product_presplit(e[0], b, b_hi, b_lo)
    n_h = 0
    if hh != 0.0:
        h[n_h] = hh
        n_h += 1
    for k in range(1, n_e):
        p1, p0 = _two_product_presplit(e[k], b, b_hi, b_lo)
        s, hh = two_sum(q, p0)
        if hh != 0.0:
            h[n_h] = hh
            n_h += 1
        q, hh = _fast_two_sum(p1, s)
        if hh != 0.0:
            h[n_h] = hh
            n_h += 1
    if q != 0.0 or n_h == 0:
        h[n_h] = q
        n_h += 1
    return n_h


@njit(cache=True, nogil=True)
def _two_product_presplit(a, b, b_hi, b_lo):
    x = a * b
    a_hi, a_lo = _split(a)
    err = x - a_hi * b_hi
    err -= a_lo * b_hi
    err -= a_hi * b_lo
    return x, a_lo * b_lo - err


@njit(cache=True, nogil=True)
def _expansion_sum(e, n_e, f, n_f, h):
    """``h = e + f`` (Shewchuk's fast_expansion_sum_zeroelim, round-to-even arithmetic);
    returns the length of ``h``."""
    i_e = 0
    i_f = 0
    e_now = e[0]
    f_now = f[0]
    if (f_now > e_now) == (f_now > -e_now):
        q = e_now
        i_e += 1
    else:
        q = f_now
        i_f += 1
    n_h = 0
    # Shewchuk's loop as predicates.c writes it: the first merge step is Fast-Two-Sum (q
    # starts as a component of e or f), every later one Two-Sum, the two merge branches
    # spelled out; his proof of the non-overlapping result is for exactly this order.
    if i_e < n_e and i_f < n_f:
        e_now = e[i_e]
        f_now = f[i_f]
        if (f_now > e_now) == (f_now > -e_now):
            q, hh = _fast_two_sum(e_now, q)
            i_e += 1
        else:
            q, hh = _fast_two_sum(f_now, q)
            i_f += 1
        if hh != 0.0:
            h[n_h] = hh
            n_h += 1
        while i_e < n_e and i_f < n_f:
            e_now = e[i_e]
            f_now = f[i_f]
            if (f_now > e_now) == (f_now > -e_now):
                q, hh = two_sum(q, e_now)
                i_e += 1
            else:
                q, hh = two_sum(q, f_now)
                i_f += 1
            if hh != 0.0:
                h[n_h] = hh
                n_h += 1
    while i_e < n_e:
        q, hh = two_sum(q, e[i_e])
        i_e += 1
        if hh != 0.0:
            h[n_h] = hh
            n_h += 1
    while i_f < n_f:
        q, hh = two_sum(q, f[i_f])
        i_f += 1
        if hh != 0.0:
            h[n_h] = hh
            n_h += 1
    if q != 0.0 or n_h == 0:
        h[n_h] = q
        n_h += 1
    return n_h


@njit(cache=True, nogil=True)
def _estimate(e, n_e):
    q = e[0]
    for k in range(1, n_e):
        q += e[k]
    return q


@njit(cache=True, nogil=True)
def _diff_expansion(a, b, out):
    """``a - b`` exactly, as an expansion of one or two components; returns its length."""
    x, y = two_diff(a, b)
    if y == 0.0:
        out[0] = x
        return 1
    out[0] = y
    out[1] = x
    return 2


@njit(cache=True, nogil=True)
def _product(e, n_e, f, n_f, h, tmp, acc):
    """``h = e * f`` for two expansions; ``tmp`` and ``acc`` are scratch at least as long as
    ``h`` may get (``2 * n_e * n_f``). Returns the length of ``h``."""
    n_h = _scale_expansion(e, n_e, f[0], h)
    for k in range(1, n_f):
        n_t = _scale_expansion(e, n_e, f[k], tmp)
        n_acc = _expansion_sum(h, n_h, tmp, n_t, acc)
        for i in range(n_acc):
            h[i] = acc[i]
        n_h = n_acc
    return n_h


@njit(cache=True, nogil=True)
def _negate(e, n_e):
    for i in range(n_e):
        e[i] = -e[i]


@njit(cache=True, nogil=True)
def _minor_exact(x1, n_x1, y2, n_y2, x2, n_x2, y1, n_y1, out, work):
    """``x1 * y2 - x2 * y1`` for two-term expansions; returns the length of ``out``.

    ``work`` is scratch of at least 64 floats.
    """
    p = work[0:16]
    q = work[16:32]
    tmp = work[32:48]
    acc = work[48:64]
    n_p = _product(x1, n_x1, y2, n_y2, p, tmp, acc)
    n_q = _product(x2, n_x2, y1, n_y1, q, tmp, acc)
    _negate(q, n_q)
    return _expansion_sum(p, n_p, q, n_q, out)


# ----------------------------------------------------------------------------------------------
# orient2d


@njit(cache=True, nogil=True)
def _orient2d_exact(ax, ay, bx, by, cx, cy):
    """Stage D of orient2d: ``(a - c) x (b - c)`` with the differences as exact expansions."""
    work = np.empty(256)
    acx = work[0:2]
    acy = work[2:4]
    bcx = work[4:6]
    bcy = work[6:8]
    n_acx = _diff_expansion(ax, cx, acx)
    n_acy = _diff_expansion(ay, cy, acy)
    n_bcx = _diff_expansion(bx, cx, bcx)
    n_bcy = _diff_expansion(by, cy, bcy)
    det = work[8:40]
    n_det = _minor_exact(acx, n_acx, bcy, n_bcy, acy, n_acy, bcx, n_bcx, det, work[64:128])
    return det[n_det - 1]


@njit(cache=True, nogil=True)
def _orient2d_adapt(ax, ay, bx, by, cx, cy, detsum):
    acx = ax - cx
    bcx = bx - cx
    acy = ay - cy
    bcy = by - cy
    # Stage B: exact determinant of the rounded differences.
    l1, l0 = two_product(acx, bcy)
    r1, r0 = two_product(acy, bcx)
    b0, b1, b2, b3 = _two_two_diff(l1, l0, r1, r0)
    det = b0 + b1 + b2 + b3
    errbound = _CCW_ERRBOUND_B * detsum
    if det >= errbound or -det >= errbound:
        return det
    acx_tail = two_diff(ax, cx)[1]
    bcx_tail = two_diff(bx, cx)[1]
    acy_tail = two_diff(ay, cy)[1]
    bcy_tail = two_diff(by, cy)[1]
    if acx_tail == 0.0 and acy_tail == 0.0 and bcx_tail == 0.0 and bcy_tail == 0.0:
        return b3 if b3 != 0.0 else (b2 if b2 != 0.0 else (b1 if b1 != 0.0 else b0))
    # Stage C: first-order tail correction.
    errbound = _CCW_ERRBOUND_C * detsum + _RESULT_ERRBOUND * abs(det)
    det += (acx * bcy_tail + bcy * acx_tail) - (acy * bcx_tail + bcx * acy_tail)
    if det >= errbound or -det >= errbound:
        return det
    return _orient2d_exact(ax, ay, bx, by, cx, cy)


@njit(cache=True, nogil=True)
def orient2d(a, b, c):
    """Orientation of three 2-D points, exact in sign.

    Parameters
    ----------
    a, b, c : tuple of 2 float64 (or any indexable of length 2)

    Returns
    -------
    float
        Positive if ``a, b, c`` turn counter-clockwise, negative if clockwise, zero if they
        are collinear; an approximation of ``(a - c) x (b - c)``, twice the signed area.
    """
    return orient2d_xy(a[0], a[1], b[0], b[1], c[0], c[1])


@njit(cache=True, nogil=True)
def orient2d_xy(ax, ay, bx, by, cx, cy):
    """:func:`orient2d` on six scalars."""
    detleft = (ax - cx) * (by - cy)
    detright = (ay - cy) * (bx - cx)
    det = detleft - detright
    if detleft > 0.0:
        if detright <= 0.0:
            return det
        detsum = detleft + detright
    elif detleft < 0.0:
        if detright >= 0.0:
            return det
        detsum = -detleft - detright
    else:
        return det
    errbound = _CCW_ERRBOUND_A * detsum
    if det >= errbound or -det >= errbound:
        return det
    return _orient2d_adapt(ax, ay, bx, by, cx, cy, detsum)


# ----------------------------------------------------------------------------------------------
# orient3d


@njit(cache=True, nogil=True)
def _orient3d_exact(a, b, c, d):
    """Stage D of orient3d: ``det[a - d; b - d; c - d]`` with exact differences."""
    work = np.empty(_WORK)
    dx = work[0:18]  # nine two-term differences: a, b, c minus d, for x, y, z
    n = np.empty(9, dtype=np.int64)
    pts = (a, b, c)
    for i in range(3):
        for k in range(3):
            slot = 3 * i + k
            n[slot] = _diff_expansion(pts[i][k], d[k], dx[2 * slot : 2 * slot + 2])

    scratch = work[64:128]
    minor = work[128:160]
    term = work[160:288]
    acc = work[288:480]
    acc2 = work[480:672]
    tmp = work[672:800]
    tmp2 = work[800:928]
    n_acc = 1
    acc[0] = 0.0
    # Laplace expansion along z: a_z (b_x c_y - c_x b_y) + b_z (c_x a_y - a_x c_y)
    # + c_z (a_x b_y - b_x a_y). Slot 3 i + k holds point i's coordinate k.
    for i in range(3):
        jx = 3 * ((i + 1) % 3)
        ky = 3 * ((i + 2) % 3) + 1
        kx = 3 * ((i + 2) % 3)
        jy = 3 * ((i + 1) % 3) + 1
        iz = 3 * i + 2
        n_minor = _minor_exact(dx[2 * jx : 2 * jx + 2], n[jx], dx[2 * ky : 2 * ky + 2], n[ky],
                               dx[2 * kx : 2 * kx + 2], n[kx], dx[2 * jy : 2 * jy + 2], n[jy],
                               minor, scratch)  # fmt: skip
        n_term = _product(minor, n_minor, dx[2 * iz : 2 * iz + 2], n[iz], term, tmp, tmp2)
        n_sum = _expansion_sum(acc, n_acc, term, n_term, acc2)
        for m in range(n_sum):
            acc[m] = acc2[m]
        n_acc = n_sum
    return acc[n_acc - 1]


@njit(cache=True, nogil=True)
def _orient3d_adapt(a, b, c, d, permanent):
    adx = a[0] - d[0]
    bdx = b[0] - d[0]
    cdx = c[0] - d[0]
    ady = a[1] - d[1]
    bdy = b[1] - d[1]
    cdy = c[1] - d[1]
    adz = a[2] - d[2]
    bdz = b[2] - d[2]
    cdz = c[2] - d[2]
    # Stage B: the determinant of the rounded differences, exactly.
    work = np.empty(64)
    bc = work[0:4]
    ca = work[4:8]
    ab = work[8:12]
    adet = work[12:20]
    bdet = work[20:28]
    cdet = work[28:36]
    abdet = work[36:52]
    fin = np.empty(48)
    x1, x0 = two_product(bdx, cdy)
    y1, y0 = two_product(cdx, bdy)
    bc[0], bc[1], bc[2], bc[3] = _two_two_diff(x1, x0, y1, y0)
    n_a = _scale_expansion(bc, 4, adz, adet)
    x1, x0 = two_product(cdx, ady)
    y1, y0 = two_product(adx, cdy)
    ca[0], ca[1], ca[2], ca[3] = _two_two_diff(x1, x0, y1, y0)
    n_b = _scale_expansion(ca, 4, bdz, bdet)
    x1, x0 = two_product(adx, bdy)
    y1, y0 = two_product(bdx, ady)
    ab[0], ab[1], ab[2], ab[3] = _two_two_diff(x1, x0, y1, y0)
    n_c = _scale_expansion(ab, 4, cdz, cdet)
    n_ab = _expansion_sum(adet, n_a, bdet, n_b, abdet)
    n_fin = _expansion_sum(abdet, n_ab, cdet, n_c, fin)
    det = _estimate(fin, n_fin)
    errbound = _O3D_ERRBOUND_B * permanent
    if det >= errbound or -det >= errbound:
        return det
    adx_t = two_diff(a[0], d[0])[1]
    bdx_t = two_diff(b[0], d[0])[1]
    cdx_t = two_diff(c[0], d[0])[1]
    ady_t = two_diff(a[1], d[1])[1]
    bdy_t = two_diff(b[1], d[1])[1]
    cdy_t = two_diff(c[1], d[1])[1]
    adz_t = two_diff(a[2], d[2])[1]
    bdz_t = two_diff(b[2], d[2])[1]
    cdz_t = two_diff(c[2], d[2])[1]
    if (adx_t == 0.0 and bdx_t == 0.0 and cdx_t == 0.0 and ady_t == 0.0 and bdy_t == 0.0
            and cdy_t == 0.0 and adz_t == 0.0 and bdz_t == 0.0 and cdz_t == 0.0):  # fmt: skip
        return fin[n_fin - 1]  # the differences were exact, so is the expansion
    # Stage C: first-order tail correction.
    errbound = _O3D_ERRBOUND_C * permanent + _RESULT_ERRBOUND * abs(det)
    det += (
        (adz * ((bdx * cdy_t + cdy * bdx_t) - (bdy * cdx_t + cdx * bdy_t))
         + adz_t * (bdx * cdy - bdy * cdx))
        + (bdz * ((cdx * ady_t + ady * cdx_t) - (cdy * adx_t + adx * cdy_t))
           + bdz_t * (cdx * ady - cdy * adx))
        + (cdz * ((adx * bdy_t + bdy * adx_t) - (ady * bdx_t + bdx * ady_t))
           + cdz_t * (adx * bdy - ady * bdx))
    )  # fmt: skip
    if det >= errbound or -det >= errbound:
        return det
    return _orient3d_exact(a, b, c, d)


@njit(cache=True, nogil=True)
def orient3d(a, b, c, d):
    """Orientation of four 3-D points, exact in sign.

    Parameters
    ----------
    a, b, c, d : tuple of 3 float64 (or any indexable of length 3)

    Returns
    -------
    float
        Positive if ``d`` lies below the plane through ``a, b, c`` ("below": ``a, b, c`` appear
        counter-clockwise seen from above), negative if above, zero if the four points are
        coplanar. Equals ``-dot((b - a) x (c - a), d - a)`` up to round-off, six times the
        signed volume of the tetrahedron; only the sign is exact.
    """
    adx = a[0] - d[0]
    bdx = b[0] - d[0]
    cdx = c[0] - d[0]
    ady = a[1] - d[1]
    bdy = b[1] - d[1]
    cdy = c[1] - d[1]
    adz = a[2] - d[2]
    bdz = b[2] - d[2]
    cdz = c[2] - d[2]
    bdxcdy = bdx * cdy
    cdxbdy = cdx * bdy
    cdxady = cdx * ady
    adxcdy = adx * cdy
    adxbdy = adx * bdy
    bdxady = bdx * ady
    det = adz * (bdxcdy - cdxbdy) + bdz * (cdxady - adxcdy) + cdz * (adxbdy - bdxady)
    permanent = ((abs(bdxcdy) + abs(cdxbdy)) * abs(adz) + (abs(cdxady) + abs(adxcdy)) * abs(bdz)
                 + (abs(adxbdy) + abs(bdxady)) * abs(cdz))  # fmt: skip
    errbound = O3D_ERRBOUND_A * permanent
    if det > errbound or -det > errbound:
        return det
    return _orient3d_adapt(a, b, c, d, permanent)
