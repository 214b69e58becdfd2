"""Oriented boxes (Gottschalk, Lin, Manocha 1996, "OBBTree"; the RAPID library): the box
operations and the registry hooks.

Row layout (15): ``center`` (3), ``axes`` (9: a row-major 3x3 matrix whose *columns* are the
box axes), ``half`` (3: half-lengths along those axes).

The four ways of fitting a box to a node (:class:`core.bv.obb_fit.ObbFit`) are in
:mod:`core.bv.obb_fit`; :func:`fit` here is the registry's default (the surface fit).

Refit: from primitives (an OBB of two OBBs is not the OBB of their union), i.e. a full fit,
O(m log m) per tree.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.bv._geom import ROUND
from core.bv._wire import box_record
from core.bv.obb_fit import fit_method
from core.bv.shapes import OrientedBoxes

#: Row layout: center 3, axes 9 (columns are axes), half 3.
WIDTH = 15
#: Columns of the row layout; ``HALF_AT`` is the first of ``HALF`` (numba kernels index by it).
CENTRE, AXES, HALF = slice(0, 3), slice(3, 12), slice(12, 15)
HALF_AT = 12

#: Below this length of a cross axis ``a_i x b_j`` its gap is not used as a distance bound:
#: the gap is divided by the length, which would amplify round-off past ``sqrt(ROUND)``.
_MIN_CROSS = np.sqrt(ROUND)


@njit(cache=True, nogil=True)
def fit(vertices, faces, prim_ids, prim_start, n_prims, out):
    """Fit every node's OBB with the default ``ObbFit.SURFACE`` (see
    :func:`core.bv.obb_fit.fit_method`)."""
    # The method as an int64, not the constant 1: a constant argument is typed Literal[int](1)
    # and compiled a second copy of the whole parallel fit beside the registry's int64 one
    # (5.7 s of the warm-up's 244 s of compile, measured with numba's compile events).
    fit_method(vertices, faces, prim_ids, prim_start, n_prims, out, np.int64(1))


@njit(cache=True, nogil=True)
def refit(vertices, faces, prim_ids, prim_start, n_prims, first, count, level_nodes, level_start,
          out):
    """Refit from primitives: a full :func:`fit` (OBBs have no exact merge)."""
    fit(vertices, faces, prim_ids, prim_start, n_prims, out)


# The per-pair OBB test (this, sat6, sat15, overlap_at) is inlined into its callers at numba's
# level: as calls, the W1 100k traversal's 29,107 OBB tests took 3.5-4.0 ms (about 120 ns a
# test; CPU time, one thread, medians of 9), inlined 1.95 ms in the level loop and 1.5 ms
# depth first. LLVM did not inline the calls by itself (twelve floats returned as a tuple).
@njit(cache=True, nogil=True, inline="always")
def relative_frame(va, a, vb, b, rot, trans):
    """B's box in the frame of A's box, as scalars (the per-pair kernels must not allocate:
    a heap array per test made the 15-axis test cost about 200 ns instead of about 25 ns; rows
    are read by index because even a row view costs two atomic reference counts).

    Parameters
    ----------
    va : (ka, 15) float64
    a : int
        A's OBB rows (A's frame) and the row tested.
    vb : (kb, 15) float64
    b : int
        B's (B's frame).
    rot : (3, 3) float64
    trans : (3,) float64
        ``x_A = rot @ x_B + trans``.

    Returns
    -------
    tuple of 12 float
        ``R = A^T rot B`` row by row (``R[i, j] = a_i . rot b_j``), then
        ``T = A^T (rot c_B + trans - c_A)``.
    """
    # With u_i = rot^T a_i: R[i, j] = u_i . b_j and T[i] = u_i . c_B + a_i . (trans - c_A).
    d0 = trans[0] - va[a, 0]
    d1 = trans[1] - va[a, 1]
    d2 = trans[2] - va[a, 2]
    u0 = rot[0, 0] * va[a, 3] + rot[1, 0] * va[a, 6] + rot[2, 0] * va[a, 9]
    u1 = rot[0, 1] * va[a, 3] + rot[1, 1] * va[a, 6] + rot[2, 1] * va[a, 9]
    u2 = rot[0, 2] * va[a, 3] + rot[1, 2] * va[a, 6] + rot[2, 2] * va[a, 9]
    r00 = u0 * vb[b, 3] + u1 * vb[b, 6] + u2 * vb[b, 9]
    r01 = u0 * vb[b, 4] + u1 * vb[b, 7] + u2 * vb[b, 10]
    r02 = u0 * vb[b, 5] + u1 * vb[b, 8] + u2 * vb[b, 11]
    t0 = (u0 * vb[b, 0] + u1 * vb[b, 1] + u2 * vb[b, 2]
          + va[a, 3] * d0 + va[a, 6] * d1 + va[a, 9] * d2)
    u0 = rot[0, 0] * va[a, 4] + rot[1, 0] * va[a, 7] + rot[2, 0] * va[a, 10]
    u1 = rot[0, 1] * va[a, 4] + rot[1, 1] * va[a, 7] + rot[2, 1] * va[a, 10]
    u2 = rot[0, 2] * va[a, 4] + rot[1, 2] * va[a, 7] + rot[2, 2] * va[a, 10]
    r10 = u0 * vb[b, 3] + u1 * vb[b, 6] + u2 * vb[b, 9]
    r11 = u0 * vb[b, 4] + u1 * vb[b, 7] + u2 * vb[b, 10]
    r12 = u0 * vb[b, 5] + u1 * vb[b, 8] + u2 * vb[b, 11]
    t1 = (u0 * vb[b, 0] + u1 * vb[b, 1] + u2 * vb[b, 2]
          + va[a, 4] * d0 + va[a, 7] * d1 + va[a, 10] * d2)
    u0 = rot[0, 0] * va[a, 5] + rot[1, 0] * va[a, 8] + rot[2, 0] * va[a, 11]
    u1 = rot[0, 1] * va[a, 5] + rot[1, 1] * va[a, 8] + rot[2, 1] * va[a, 11]
    u2 = rot[0, 2] * va[a, 5] + rot[1, 2] * va[a, 8] + rot[2, 2] * va[a, 11]
    r20 = u0 * vb[b, 3] + u1 * vb[b, 6] + u2 * vb[b, 9]
    r21 = u0 * vb[b, 4] + u1 * vb[b, 7] + u2 * vb[b, 10]
    r22 = u0 * vb[b, 5] + u1 * vb[b, 8] + u2 * vb[b, 11]
    t2 = (u0 * vb[b, 0] + u1 * vb[b, 1] + u2 * vb[b, 2]
          + va[a, 5] * d0 + va[a, 8] * d1 + va[a, 11] * d2)
    return r00, r01, r02, r10, r11, r12, r20, r21, r22, t0, t1, t2


@njit(cache=True, nogil=True, inline="always")
def relative_frame_unrotated(va, a, vb, b, trans):
    """:func:`relative_frame` when ``rot`` is exactly the identity (B only translated):
    ``u_i = a_i``, so the 27 products of ``rot^T a_i`` go. The same sums in the same order
    with ``rot``'s zeros and ones left out, so the same test answers (a product with an exact
    zero adds nothing to a finite sum; only the sign of a zero may differ, which the tests
    read through ``abs``). The depth-first walk of W2 at 100k (two unrotated spheres a hair
    apart, 293,679 tests, one thread, medians of 15 alternating): 6.97 against 8.17 ms.

    Returns
    -------
    tuple of 12 float
        As :func:`relative_frame`.
    """
    # Written out row by row as relative_frame is: one inlined helper per row (returning
    # four floats) for both functions measured 15 % slower on this walk (9.0-9.2 against
    # 7.5-7.8 ms, rotated 10.3 against 8.7-9.0 ms).
    d0 = trans[0] - va[a, 0]
    d1 = trans[1] - va[a, 1]
    d2 = trans[2] - va[a, 2]
    u0, u1, u2 = va[a, 3], va[a, 6], va[a, 9]
    r00 = u0 * vb[b, 3] + u1 * vb[b, 6] + u2 * vb[b, 9]
    r01 = u0 * vb[b, 4] + u1 * vb[b, 7] + u2 * vb[b, 10]
    r02 = u0 * vb[b, 5] + u1 * vb[b, 8] + u2 * vb[b, 11]
    t0 = (u0 * vb[b, 0] + u1 * vb[b, 1] + u2 * vb[b, 2]
          + u0 * d0 + u1 * d1 + u2 * d2)
    u0, u1, u2 = va[a, 4], va[a, 7], va[a, 10]
    r10 = u0 * vb[b, 3] + u1 * vb[b, 6] + u2 * vb[b, 9]
    r11 = u0 * vb[b, 4] + u1 * vb[b, 7] + u2 * vb[b, 10]
    r12 = u0 * vb[b, 5] + u1 * vb[b, 8] + u2 * vb[b, 11]
    t1 = (u0 * vb[b, 0] + u1 * vb[b, 1] + u2 * vb[b, 2]
          + u0 * d0 + u1 * d1 + u2 * d2)
    u0, u1, u2 = va[a, 5], va[a, 8], va[a, 11]
    r20 = u0 * vb[b, 3] + u1 * vb[b, 6] + u2 * vb[b, 9]
    r21 = u0 * vb[b, 4] + u1 * vb[b, 7] + u2 * vb[b, 10]
    r22 = u0 * vb[b, 5] + u1 * vb[b, 8] + u2 * vb[b, 11]
    t2 = (u0 * vb[b, 0] + u1 * vb[b, 1] + u2 * vb[b, 2]
          + u0 * d0 + u1 * d1 + u2 * d2)
    return r00, r01, r02, r10, r11, r12, r20, r21, r22, t0, t1, t2


@njit(cache=True, nogil=True, inline="always")
def sat6(rel, a0, a1, a2, b0, b1, b2):
    """The six face axes of the separating axis test: van den Bergen's "SAT lite" when B is
    rotated, the first stage of :func:`sat15`. Arguments as :func:`sat15`.

    Returns
    -------
    int
        -1 if no face axis separates; 0-2 A's axes, 3-5 B's axes.
    """
    r00, r01, r02, r10, r11, r12, r20, r21, r22, t0, t1, t2 = rel
    q00 = abs(r00) + ROUND
    q01 = abs(r01) + ROUND
    q02 = abs(r02) + ROUND
    q10 = abs(r10) + ROUND
    q11 = abs(r11) + ROUND
    q12 = abs(r12) + ROUND
    q20 = abs(r20) + ROUND
    q21 = abs(r21) + ROUND
    q22 = abs(r22) + ROUND
    if abs(t0) > a0 + b0 * q00 + b1 * q01 + b2 * q02:
        return 0
    if abs(t1) > a1 + b0 * q10 + b1 * q11 + b2 * q12:
        return 1
    if abs(t2) > a2 + b0 * q20 + b1 * q21 + b2 * q22:
        return 2
    if abs(t0 * r00 + t1 * r10 + t2 * r20) > a0 * q00 + a1 * q10 + a2 * q20 + b0:
        return 3
    if abs(t0 * r01 + t1 * r11 + t2 * r21) > a0 * q01 + a1 * q11 + a2 * q21 + b1:
        return 4
    if abs(t0 * r02 + t1 * r12 + t2 * r22) > a0 * q02 + a1 * q12 + a2 * q22 + b2:
        return 5
    return -1


@njit(cache=True, nogil=True, inline="always")
def sat15(rel, a0, a1, a2, b0, b1, b2):
    """15-axis separating axis test (Gottschalk et al. 1996; Ericson 2005, 4.4.1).

    Parameters
    ----------
    rel : tuple of 12 float
        ``R`` and ``T`` as :func:`relative_frame` returns them.
    a0, a1, a2 : float
        A's half-lengths (grown by any margin).
    b0, b1, b2 : float
        B's half-lengths.

    Returns
    -------
    int
        -1 if no axis separates; 0-2 A's axes, 3-5 B's axes, ``6 + 3 i + j`` for
        ``a_i x b_j``.
    """
    # |R| + ROUND: near-parallel edge pairs must not separate two boxes by round-off alone.
    r00, r01, r02, r10, r11, r12, r20, r21, r22, t0, t1, t2 = rel
    q00 = abs(r00) + ROUND
    q01 = abs(r01) + ROUND
    q02 = abs(r02) + ROUND
    q10 = abs(r10) + ROUND
    q11 = abs(r11) + ROUND
    q12 = abs(r12) + ROUND
    q20 = abs(r20) + ROUND
    q21 = abs(r21) + ROUND
    q22 = abs(r22) + ROUND
    face = sat6(rel, a0, a1, a2, b0, b1, b2)
    if face >= 0:
        return face
    # The nine cross axes a_i x b_j written out, in RAPID's order: each bound reads two entries
    # of R and T that a loop would index through a table per pair, and the kernel is inlined
    # into both traversals (see the note above relative_frame); the order decides which axis
    # a culled pair reports.
    if abs(t2 * r10 - t1 * r20) > (a1 * q20 + a2 * q10
                                      + b1 * q02 + b2 * q01):
        return 6
    if abs(t2 * r11 - t1 * r21) > (a1 * q21 + a2 * q11
                                      + b2 * q00 + b0 * q02):
        return 7
    if abs(t2 * r12 - t1 * r22) > (a1 * q22 + a2 * q12
                                      + b0 * q01 + b1 * q00):
        return 8
    if abs(t0 * r20 - t2 * r00) > (a2 * q00 + a0 * q20
                                      + b1 * q12 + b2 * q11):
        return 9
    if abs(t0 * r21 - t2 * r01) > (a2 * q01 + a0 * q21
                                      + b2 * q10 + b0 * q12):
        return 10
    if abs(t0 * r22 - t2 * r02) > (a2 * q02 + a0 * q22
                                      + b0 * q11 + b1 * q10):
        return 11
    if abs(t1 * r00 - t0 * r10) > (a0 * q10 + a1 * q00
                                      + b1 * q22 + b2 * q21):
        return 12
    if abs(t1 * r01 - t0 * r11) > (a0 * q11 + a1 * q01
                                      + b2 * q20 + b0 * q22):
        return 13
    if abs(t1 * r02 - t0 * r12) > (a0 * q12 + a1 * q02
                                      + b0 * q21 + b1 * q20):
        return 14
    return -1


@njit(cache=True, nogil=True)
def _cross_gap(r_ij, projection, radius):
    """Gap along the cross axis ``a_i x b_j`` (length ``sqrt(1 - R_ij^2)``), unit-normalised;
    0 for near-parallel pairs, whose tiny length would amplify round-off."""
    length2 = 1.0 - r_ij * r_ij
    if length2 < _MIN_CROSS * _MIN_CROSS:
        return 0.0
    return (abs(projection) - radius) / np.sqrt(length2)


@njit(cache=True, nogil=True)
def gap15(rel, a0, a1, a2, b0, b1, b2):
    """Largest gap between the two boxes' projections over the 15 axes (unit-normalised), a
    lower bound of their distance; 0 when no axis separates them. Arguments as :func:`sat15`.
    """
    r00, r01, r02, r10, r11, r12, r20, r21, r22, t0, t1, t2 = rel
    q00 = abs(r00)
    q01 = abs(r01)
    q02 = abs(r02)
    q10 = abs(r10)
    q11 = abs(r11)
    q12 = abs(r12)
    q20 = abs(r20)
    q21 = abs(r21)
    q22 = abs(r22)
    gap = 0.0
    gap = max(gap, abs(t0) - a0 - (b0 * q00 + b1 * q01 + b2 * q02))
    gap = max(gap, abs(t1) - a1 - (b0 * q10 + b1 * q11 + b2 * q12))
    gap = max(gap, abs(t2) - a2 - (b0 * q20 + b1 * q21 + b2 * q22))
    gap = max(gap, abs(t0 * r00 + t1 * r10 + t2 * r20)
              - (a0 * q00 + a1 * q10 + a2 * q20) - b0)
    gap = max(gap, abs(t0 * r01 + t1 * r11 + t2 * r21)
              - (a0 * q01 + a1 * q11 + a2 * q21) - b1)
    gap = max(gap, abs(t0 * r02 + t1 * r12 + t2 * r22)
              - (a0 * q02 + a1 * q12 + a2 * q22) - b2)
    gap = max(gap, _cross_gap(r00, t2 * r10 - t1 * r20,
                              a1 * q20 + a2 * q10 + b1 * q02 + b2 * q01))
    gap = max(gap, _cross_gap(r01, t2 * r11 - t1 * r21,
                              a1 * q21 + a2 * q11 + b2 * q00 + b0 * q02))
    gap = max(gap, _cross_gap(r02, t2 * r12 - t1 * r22,
                              a1 * q22 + a2 * q12 + b0 * q01 + b1 * q00))
    gap = max(gap, _cross_gap(r10, t0 * r20 - t2 * r00,
                              a2 * q00 + a0 * q20 + b1 * q12 + b2 * q11))
    gap = max(gap, _cross_gap(r11, t0 * r21 - t2 * r01,
                              a2 * q01 + a0 * q21 + b2 * q10 + b0 * q12))
    gap = max(gap, _cross_gap(r12, t0 * r22 - t2 * r02,
                              a2 * q02 + a0 * q22 + b0 * q11 + b1 * q10))
    gap = max(gap, _cross_gap(r20, t1 * r00 - t0 * r10,
                              a0 * q10 + a1 * q00 + b1 * q22 + b2 * q21))
    gap = max(gap, _cross_gap(r21, t1 * r01 - t0 * r11,
                              a0 * q11 + a1 * q01 + b2 * q20 + b0 * q22))
    gap = max(gap, _cross_gap(r22, t1 * r02 - t0 * r12,
                              a0 * q12 + a1 * q02 + b0 * q21 + b1 * q20))
    return gap


@njit(cache=True, nogil=True, inline="always")
def overlap_at(va, a, vb, b, rot, trans, margin):
    """15-axis test of A's row ``a`` and B's row ``b`` (see :func:`relative_frame`); ids as
    :func:`sat15`. The traversal's form: no row views."""
    rel = relative_frame(va, a, vb, b, rot, trans)
    return sat15(rel, va[a, 12] + margin, va[a, 13] + margin, va[a, 14] + margin,
                 vb[b, 12], vb[b, 13], vb[b, 14])  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def overlap_at_unrotated(va, a, vb, b, trans, margin):
    """:func:`overlap_at` when the relative rotation is exactly the identity (the same
    answers, :func:`relative_frame_unrotated`)."""
    rel = relative_frame_unrotated(va, a, vb, b, trans)
    return sat15(rel, va[a, 12] + margin, va[a, 13] + margin, va[a, 14] + margin,
                 vb[b, 12], vb[b, 13], vb[b, 14])  # fmt: skip


@njit(cache=True, nogil=True)
def overlap(ra, rb, rot, trans, margin):
    """15-axis test of two OBB rows (A's in A's frame, B's in B's frame); ids as
    :func:`sat15`."""
    return overlap_at(ra.reshape(1, WIDTH), 0, rb.reshape(1, WIDTH), 0, rot, trans, margin)


@njit(cache=True, nogil=True)
def lower_bound(ra, rb, rot, trans):
    """Distance lower bound of two OBB rows (:func:`gap15`)."""
    rel = relative_frame(ra.reshape(1, WIDTH), 0, rb.reshape(1, WIDTH), 0, rot, trans)
    return gap15(rel, ra[12], ra[13], ra[14], rb[12], rb[13], rb[14])


@njit(cache=True, nogil=True)
def half_volume(vol, i):
    """Volume of row ``i`` over 8 (the product of the half-lengths), read by index."""
    return vol[i, HALF_AT] * vol[i, HALF_AT + 1] * vol[i, HALF_AT + 2]


@njit(cache=True, nogil=True)
def volume(row):
    """Box volume, ``float``."""
    return 8.0 * row[12] * row[13] * row[14]


def corners(rows: np.ndarray) -> np.ndarray:
    """Corners of each box, ``(j, 8, 3) float64``; corner ``i`` is on the ``+`` side of axis
    ``k`` iff bit ``k`` of ``i`` is set."""
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, WIDTH)
    axes = rows[:, 3:12].reshape(-1, 3, 3)
    bits = ((np.arange(8)[:, None] >> np.arange(3)[None, :]) & 1) * 2.0 - 1.0  # (8, 3)
    offsets = np.einsum("cj,nj,nij->nci", bits, rows[:, 12:15], axes)
    return rows[:, None, 0:3] + offsets


def wire(rows: np.ndarray) -> dict:
    """Drawable records (:mod:`core.bv._wire`): 12 line cells per box, plus ``"kind": "box"``
    and ``"corners": (j, 8, 3) float64``."""
    return box_record(corners(rows))


def box_axis_text(sep_id: int, letters: str = "") -> str:
    """A separating axis of the 15-axis test (:func:`sat15` ids; SAT lite uses 0-5) in words.

    Axes are numbered from 1 on screen, as the OBBTree paper (Gottschalk et al. 1996) names
    them A1, A2, A3; ``letters`` (e.g. ``"xyz"``) adds the letter of a face axis when the
    boxes' axes are the coordinate axes.
    """
    letter = f" ({letters[sep_id % 3]})" if letters and sep_id < 6 else ""
    if sep_id < 3:
        return f"A's axis {sep_id + 1}{letter}"
    if sep_id < 6:
        return f"B's axis {sep_id - 2}{letter}"
    i, j = divmod(sep_id - 6, 3)
    return f"A{i + 1} x B{j + 1} (edge-edge axis)"


def separating_test(sep_id: int) -> str:
    """The test that culled a pair, in words: "A's axis 3", "A1 x B3 (edge-edge axis)"."""
    return box_axis_text(sep_id)


def distance_outside(row: np.ndarray, points: np.ndarray) -> np.ndarray:
    """How far each point is outside the box ``row (15,)`` (<= 0 inside), ``(p,) float64``:
    the largest excess over the half-lengths along the box axes."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    local = (points - row[:3]) @ row[3:12].reshape(3, 3)
    return (np.abs(local) - row[12:15]).max(axis=1)


def box_interval(centre: np.ndarray, axes: np.ndarray, half: np.ndarray,
                 direction: np.ndarray) -> tuple[float, float]:
    """The projection of a box on a unit direction: ``n.c -+ sum_j h_j |n.u_j|`` (Gottschalk
    et al. 1996, section 4).

    Parameters
    ----------
    centre : (3,) float64
    axes : (3, 3) float64
        The box axes as columns.
    half : (3,) float64
    direction : (3,) float64
        Unit, same frame as ``centre`` and ``axes``.
    """
    mid = float(direction @ centre)
    radius = float(np.abs(direction @ axes) @ half)
    return mid - radius, mid + radius


def box_separation(box_a, box_b, rot: np.ndarray, trans: np.ndarray, sep_id: int):
    """The axis of the 15-axis test (:func:`sat15` ids; SAT lite uses 0-5) that separated two
    boxes, and both boxes' projections on it, in A's frame.

    Parameters
    ----------
    box_a, box_b : (centre (3,), axes (3, 3), half (3,)) float64
        Each box in its own body's frame (axes as columns).
    rot, trans : (3, 3), (3,) float64
        Pose of B in A's frame.
    sep_id : int

    Returns
    -------
    axis : (3,) float64
        Unit, in A's frame.
    interval_a, interval_b : (float, float)
        Projections (``x . axis``) of each box, B's placed in A's frame.
    through : (3,) float64
        A point the drawn axis should pass through: midway between the centres.
    """
    centre_a, axes_a, half_a = box_a
    centre_b = rot @ box_b[0] + trans
    axes_b = rot @ box_b[1]
    half_b = box_b[2]
    if sep_id < 3:
        axis = axes_a[:, sep_id]
    elif sep_id < 6:
        axis = axes_b[:, sep_id - 3]
    else:
        i, j = divmod(sep_id - 6, 3)
        axis = np.cross(axes_a[:, i], axes_b[:, j])
    axis = np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)
    return (axis, box_interval(centre_a, axes_a, half_a, axis),
            box_interval(centre_b, axes_b, half_b, axis), 0.5 * (centre_a + centre_b))


def separation(row_a: np.ndarray, row_b: np.ndarray, rot: np.ndarray, trans: np.ndarray,
               sep_id: int):
    """The separating axis of two OBB rows for a culled pair (:func:`box_separation`)."""
    return box_separation(_obb_box(row_a), _obb_box(row_b), rot, trans, sep_id)


def _obb_box(row: np.ndarray):
    row = np.asarray(row, dtype=np.float64)
    return row[0:3], row[3:12].reshape(3, 3), row[12:15]


def shape(rows: np.ndarray) -> OrientedBoxes:
    """The rows ``(j, 15)`` as :class:`core.bv.shapes.OrientedBoxes`."""
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, WIDTH)
    return OrientedBoxes(rows[:, CENTRE], rows[:, AXES].reshape(-1, 3, 3), rows[:, HALF])
