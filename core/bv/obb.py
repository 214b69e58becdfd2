"""Oriented boxes (Gottschalk, Lin, Manocha 1996, "OBBTree"; the RAPID library).

Row layout (15): ``center`` (3), ``axes`` (9: a row-major 3x3 matrix whose *columns* are the
box axes), ``half`` (3: half-lengths along those axes).

Fit (:class:`ObbFit`): the axes are the eigenvectors of a covariance matrix, the extents the
range of the node's vertices projected on them.

* ``VERTICES`` -- covariance of the distinct vertices of the node's triangles. Uneven vertex
  density drags the axes towards the dense part: the paper's "terrible box".
* ``SURFACE`` -- covariance integrated over the node's triangles, area-weighted (the paper's
  uniform-sampling fix, section 4.1). The paper integrates over the triangles of the *convex
  hull*; here the node's own triangles are the surface (no hull is computed), which keeps the
  density fix but lets interior folds weigh in.

Refit: from primitives (an OBB of two OBBs is not the OBB of their union), i.e. a full fit,
O(m log m) per tree.
"""

from __future__ import annotations

import enum

import numpy as np
from numba import njit

from core.bv._geom import ROUND, jacobi_eigenvectors, matmul3, matvec3

#: Row layout: center 3, axes 9 (columns are axes), half 3.
WIDTH = 15

#: Below this length of a cross axis ``a_i x b_j`` its gap is not used as a distance bound:
#: the gap is divided by the length, which would amplify round-off past ``sqrt(ROUND)``.
_MIN_CROSS = np.sqrt(ROUND)


class ObbFit(enum.IntEnum):
    """How an OBB's axes are chosen (see the module docstring)."""

    VERTICES = 0
    SURFACE = 1


@njit(cache=True, nogil=True)
def _fit_node(vertices, faces, prim_ids, s, n, method, stamp, node, out):
    ref = vertices[faces[prim_ids[s], 0]].copy()
    cov = np.zeros((3, 3))
    mean = np.zeros(3)
    weight = 0.0
    if method == 1:
        for p in range(s, s + n):
            t = prim_ids[p]
            a = vertices[faces[t, 0]] - ref
            b = vertices[faces[t, 1]] - ref
            c = vertices[faces[t, 2]] - ref
            area = 0.5 * np.sqrt(np.sum(np.cross(b - a, c - a) ** 2))
            m = (a + b + c) / 3.0
            weight += area
            mean += area * m
            for i in range(3):
                for j in range(3):
                    cov[i, j] += area / 12.0 * (9.0 * m[i] * m[j] + a[i] * a[j] + b[i] * b[j]
                                                + c[i] * c[j])  # fmt: skip
    if weight <= 0.0:
        # VERTICES, or a node of zero-area triangles: distinct vertices, equal weights.
        cov[:, :] = 0.0
        mean[:] = 0.0
        for p in range(s, s + n):
            t = prim_ids[p]
            for k in range(3):
                v = faces[t, k]
                if stamp[v] == node:
                    continue
                stamp[v] = node
                x = vertices[v] - ref
                weight += 1.0
                mean += x
                for i in range(3):
                    for j in range(3):
                        cov[i, j] += x[i] * x[j]
    mean /= weight
    for i in range(3):
        for j in range(3):
            cov[i, j] = cov[i, j] / weight - mean[i] * mean[j]
    axes, _ = jacobi_eigenvectors(cov)
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    for p in range(s, s + n):
        t = prim_ids[p]
        for k in range(3):
            x = vertices[faces[t, k]] - ref
            for j in range(3):
                proj = x[0] * axes[0, j] + x[1] * axes[1, j] + x[2] * axes[2, j]
                lo[j] = min(lo[j], proj)
                hi[j] = max(hi[j], proj)
    for i in range(3):
        c = ref[i]
        for j in range(3):
            c += axes[i, j] * 0.5 * (lo[j] + hi[j])
        out[node, i] = c
        for j in range(3):
            out[node, 3 + 3 * i + j] = axes[i, j]
        out[node, 12 + i] = 0.5 * (hi[i] - lo[i])


@njit(cache=True, nogil=True)
def fit_method(vertices, faces, prim_ids, prim_start, n_prims, out, method):
    """Fit every node's OBB with an :class:`ObbFit` method.

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32
    prim_ids : (m,) int32
    prim_start, n_prims : (k,) int32
    out : (k, 15) float64
    method : int
        An :class:`ObbFit` value.
    """
    stamp = np.full(vertices.shape[0], -1, dtype=np.int64)
    for node in range(prim_start.shape[0]):
        _fit_node(vertices, faces, prim_ids, prim_start[node], n_prims[node], method, stamp,
                  node, out)  # fmt: skip


@njit(cache=True, nogil=True)
def fit(vertices, faces, prim_ids, prim_start, n_prims, out):
    """Fit every node's OBB with the default ``ObbFit.SURFACE`` (see :func:`fit_method`)."""
    fit_method(vertices, faces, prim_ids, prim_start, n_prims, out, 1)


@njit(cache=True, nogil=True)
def refit(vertices, faces, prim_ids, prim_start, n_prims, first, count, level_nodes, level_start,
          out):
    """Refit from primitives: a full :func:`fit` (OBBs have no exact merge)."""
    fit(vertices, faces, prim_ids, prim_start, n_prims, out)


@njit(cache=True, nogil=True)
def _relative(ca, axes_a, cb, axes_b, rot, trans):
    """B's box in the frame of A's box: ``R = A^T rot B``, ``T = A^T (rot cb + trans - ca)``."""
    r = np.empty((3, 3))
    t = np.empty(3)
    cbw = matvec3(rot, cb) + trans - ca
    bw = matmul3(rot, axes_b)
    for i in range(3):
        t[i] = axes_a[0, i] * cbw[0] + axes_a[1, i] * cbw[1] + axes_a[2, i] * cbw[2]
        for j in range(3):
            r[i, j] = axes_a[0, i] * bw[0, j] + axes_a[1, i] * bw[1, j] + axes_a[2, i] * bw[2, j]
    return r, t


@njit(cache=True, nogil=True)
def box_overlap15(ca, axes_a, ha, cb, axes_b, hb, rot, trans, margin):
    """15-axis separating axis test of two boxes (Gottschalk et al. 1996; Ericson 2005, 4.4.1).

    Parameters
    ----------
    ca, ha : (3,) float64
    axes_a : (3, 3) float64
        A's centre, half-lengths and axes (columns), in A's frame.
    cb, hb : (3,) float64
    axes_b : (3, 3) float64
        B's, in B's frame.
    rot : (3, 3) float64
    trans : (3,) float64
        ``x_A = rot @ x_B + trans``.
    margin : float
        A's box is grown by this on every side.

    Returns
    -------
    int
        -1 if no axis separates; 0-2 A's axes, 3-5 B's axes, ``6 + 3 i + j`` for
        ``a_i x b_j``.
    """
    r, t = _relative(ca, axes_a, cb, axes_b, rot, trans)
    absr = np.abs(r) + ROUND
    h = ha + margin
    for i in range(3):
        if abs(t[i]) > h[i] + hb[0] * absr[i, 0] + hb[1] * absr[i, 1] + hb[2] * absr[i, 2]:
            return i
    for j in range(3):
        ra = h[0] * absr[0, j] + h[1] * absr[1, j] + h[2] * absr[2, j]
        if abs(t[0] * r[0, j] + t[1] * r[1, j] + t[2] * r[2, j]) > ra + hb[j]:
            return 3 + j
    for i in range(3):
        i1 = (i + 1) % 3
        i2 = (i + 2) % 3
        for j in range(3):
            j1 = (j + 1) % 3
            j2 = (j + 2) % 3
            ra = h[i1] * absr[i2, j] + h[i2] * absr[i1, j]
            rb = hb[j1] * absr[i, j2] + hb[j2] * absr[i, j1]
            if abs(t[i2] * r[i1, j] - t[i1] * r[i2, j]) > ra + rb:
                return 6 + 3 * i + j
    return -1


@njit(cache=True, nogil=True)
def box_gap(ca, axes_a, ha, cb, axes_b, hb, rot, trans):
    """Largest gap between the two boxes' projections over the 15 axes (unit-normalised), a
    lower bound of their distance; 0 when no axis separates them."""
    r, t = _relative(ca, axes_a, cb, axes_b, rot, trans)
    absr = np.abs(r)
    gap = 0.0
    for i in range(3):
        g = abs(t[i]) - ha[i] - (hb[0] * absr[i, 0] + hb[1] * absr[i, 1] + hb[2] * absr[i, 2])
        gap = max(gap, g)
    for j in range(3):
        ra = ha[0] * absr[0, j] + ha[1] * absr[1, j] + ha[2] * absr[2, j]
        gap = max(gap, abs(t[0] * r[0, j] + t[1] * r[1, j] + t[2] * r[2, j]) - ra - hb[j])
    for i in range(3):
        i1 = (i + 1) % 3
        i2 = (i + 2) % 3
        for j in range(3):
            length2 = 1.0 - r[i, j] * r[i, j]
            if length2 < _MIN_CROSS * _MIN_CROSS:
                continue
            j1 = (j + 1) % 3
            j2 = (j + 2) % 3
            ra = ha[i1] * absr[i2, j] + ha[i2] * absr[i1, j]
            rb = hb[j1] * absr[i, j2] + hb[j2] * absr[i, j1]
            g = abs(t[i2] * r[i1, j] - t[i1] * r[i2, j]) - ra - rb
            gap = max(gap, g / np.sqrt(length2))
    return gap


@njit(cache=True, nogil=True)
def _unpack(row):
    return row[0:3], row[3:12].reshape(3, 3), row[12:15]


@njit(cache=True, nogil=True)
def overlap(ra, rb, rot, trans, margin):
    """15-axis test of two OBB rows (A's in A's frame, B's in B's frame); ids as
    :func:`box_overlap15`."""
    ca, axa, ha = _unpack(ra)
    cb, axb, hb = _unpack(rb)
    return box_overlap15(ca, axa, ha, cb, axb, hb, rot, trans, margin)


@njit(cache=True, nogil=True)
def lower_bound(ra, rb, rot, trans):
    """Distance lower bound of two OBB rows (:func:`box_gap`)."""
    ca, axa, ha = _unpack(ra)
    cb, axb, hb = _unpack(rb)
    return box_gap(ca, axa, ha, cb, axb, hb, rot, trans)


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
    """Drawable records: ``{"kind": "box", "corners": (j, 8, 3) float64}``."""
    return {"kind": "box", "corners": corners(rows)}
