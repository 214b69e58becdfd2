"""Fitting oriented boxes to a tree's nodes (Gottschalk, Lin, Manocha 1996, "OBBTree"; the
RAPID library). The box operations (overlap, distance bound, volume, corners) and the
registry's ``fit``/``refit`` hooks are in :mod:`core.bv.obb`.

Fit (:class:`ObbFit`): the axes are the eigenvectors of a covariance matrix, the extents the
range of the node's vertices projected on them.

* ``VERTICES`` -- covariance of the distinct vertices of the node's triangles. Uneven vertex
  density drags the axes towards the dense part: the paper's "terrible box".
* ``SURFACE`` -- covariance integrated over the node's own triangles, area-weighted: the
  uniform-sampling fix of section 4.1 without a hull (interior folds weigh in). The default:
  O(1) a node from running sums.
* ``HULL_VERTICES`` -- covariance of the vertices of the node's convex hull
  (:mod:`core.bv.hull`): interior points no longer pull, but a densely sampled hull still does.
* ``HULL_SURFACE`` -- covariance integrated over the hull's triangles: the paper's fit. A flat
  node's hull is its polygon, integrated once. Costs a hull per node (measured in
  ``benchmarks.bv_refit``).

Rows are written in the layout of :mod:`core.bv.obb`: ``center`` (3), ``axes`` (9, columns
are the box axes), ``half`` (3).
"""

from __future__ import annotations

import enum

import numpy as np
from numba import njit, prange

from core.bv._geom import ROUND, jacobi_eigenvectors_into
from core.bv.hull import hull_of_subset


class ObbFit(enum.IntEnum):
    """How an OBB's axes are chosen (see the module docstring)."""

    VERTICES = 0
    SURFACE = 1
    HULL_VERTICES = 2
    HULL_SURFACE = 3


@njit(cache=True, nogil=True)
def surface_moments(vertices, i, j, k, origin, row):
    """Area moments of one triangle about ``origin`` (Gottschalk et al. 1996, section 4.1: the
    second moment of a triangle with centroid m is ``A/12 (9 m m^T + a a^T + b b^T + c c^T)``).

    Parameters
    ----------
    vertices : (n, 3) float64
    i, j, k : int
        The corners.
    origin : (3,) float64
    row : (10,) float64
        Written: area, area times centroid (3), second moment ``xx xy xz yy yz zz`` (6).

    Returns
    -------
    float
        The area.
    """
    # Scalars, not small arrays: this runs for every triangle at every refit.
    a0, a1, a2 = vertices[i, 0] - origin[0], vertices[i, 1] - origin[1], vertices[i, 2] - origin[2]
    b0, b1, b2 = vertices[j, 0] - origin[0], vertices[j, 1] - origin[1], vertices[j, 2] - origin[2]
    d0, d1, d2 = vertices[k, 0] - origin[0], vertices[k, 1] - origin[1], vertices[k, 2] - origin[2]
    e0, e1, e2 = b0 - a0, b1 - a1, b2 - a2
    f0, f1, f2 = d0 - a0, d1 - a1, d2 - a2
    x0, x1, x2 = e1 * f2 - e2 * f1, e2 * f0 - e0 * f2, e0 * f1 - e1 * f0
    area = 0.5 * np.sqrt(x0 * x0 + x1 * x1 + x2 * x2)
    m0, m1, m2 = (a0 + b0 + d0) / 3.0, (a1 + b1 + d1) / 3.0, (a2 + b2 + d2) / 3.0
    q = area / 12.0
    row[0] = area
    row[1] = area * m0
    row[2] = area * m1
    row[3] = area * m2
    row[4] = q * (9.0 * m0 * m0 + a0 * a0 + b0 * b0 + d0 * d0)
    row[5] = q * (9.0 * m0 * m1 + a0 * a1 + b0 * b1 + d0 * d1)
    row[6] = q * (9.0 * m0 * m2 + a0 * a2 + b0 * b2 + d0 * d2)
    row[7] = q * (9.0 * m1 * m1 + a1 * a1 + b1 * b1 + d1 * d1)
    row[8] = q * (9.0 * m1 * m2 + a1 * a2 + b1 * b2 + d1 * d2)
    row[9] = q * (9.0 * m2 * m2 + a2 * a2 + b2 * b2 + d2 * d2)
    return area


@njit(cache=True, nogil=True)
def covariance_from_moments(total, cov):
    """Covariance about the area-weighted mean from summed :func:`surface_moments`.

    Parameters
    ----------
    total : (10,) float64
    cov : (3, 3) float64
        Written (meaningless when the area is 0).

    Returns
    -------
    float
        The area.
    """
    w = total[0]
    if w <= 0.0:
        return 0.0
    c0, c1, c2 = total[1] / w, total[2] / w, total[3] / w
    cov[0, 0] = total[4] / w - c0 * c0
    cov[0, 1] = cov[1, 0] = total[5] / w - c0 * c1
    cov[0, 2] = cov[2, 0] = total[6] / w - c0 * c2
    cov[1, 1] = total[7] / w - c1 * c1
    cov[1, 2] = cov[2, 1] = total[8] / w - c1 * c2
    cov[2, 2] = total[9] / w - c2 * c2
    return w


@njit(cache=True, nogil=True)
def surface_covariance(vertices, faces, prim_ids, s, n, ref, cov, scratch):
    """Covariance of a run of triangles, integrated over their area.

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32
    prim_ids : (m,) int32
    s, n : int
        The run ``prim_ids[s:s + n]``.
    ref : (3,) float64
        Origin the moments are taken about (a corner of the run: keeps the sums small).
    cov : (3, 3) float64
        Written: the covariance about the area-weighted mean.
    scratch : (2, 10) float64
        Work space.

    Returns
    -------
    float
        Total area; 0 when every triangle is degenerate (``cov`` is then meaningless).
    """
    total = scratch[0]
    row = scratch[1]
    total[:] = 0.0
    for p in range(s, s + n):
        t = prim_ids[p]
        surface_moments(vertices, faces[t, 0], faces[t, 1], faces[t, 2], ref, row)
        for c in range(10):
            total[c] += row[c]
    return covariance_from_moments(total, cov)


@njit(cache=True, nogil=True)
def point_covariance(vertices, ids, ref, cov):
    """Covariance of the points ``vertices[ids]``, each weighted equally.

    Parameters
    ----------
    vertices : (n, 3) float64
    ids : (h,) int
    ref : (3,) float64
    cov : (3, 3) float64
        Written.
    """
    s0 = s1 = s2 = 0.0
    c00 = c01 = c02 = c11 = c12 = c22 = 0.0
    for v in ids:
        x0, x1, x2 = vertices[v, 0] - ref[0], vertices[v, 1] - ref[1], vertices[v, 2] - ref[2]
        s0 += x0
        s1 += x1
        s2 += x2
        c00 += x0 * x0
        c01 += x0 * x1
        c02 += x0 * x2
        c11 += x1 * x1
        c12 += x1 * x2
        c22 += x2 * x2
    w = float(ids.shape[0])
    s0, s1, s2 = s0 / w, s1 / w, s2 / w
    cov[0, 0] = c00 / w - s0 * s0
    cov[0, 1] = cov[1, 0] = c01 / w - s0 * s1
    cov[0, 2] = cov[2, 0] = c02 / w - s0 * s2
    cov[1, 1] = c11 / w - s1 * s1
    cov[1, 2] = cov[2, 1] = c12 / w - s1 * s2
    cov[2, 2] = c22 / w - s2 * s2


@njit(cache=True, nogil=True)
def node_corner_ids(faces, prim_ids, s, n):
    """The corner vertex ids of a run of triangles, with repeats, ``(3 n,) int32`` (use
    ``np.unique`` for the distinct vertices; the box extents do not need it)."""
    return node_corner_ids_into(faces, prim_ids, s, n, np.empty(3 * n, dtype=np.int32))


@njit(cache=True, nogil=True)
def node_corner_ids_into(faces, prim_ids, s, n, buf):
    """:func:`node_corner_ids` written to the front of ``buf ((>= 3 n,) int32)``; returns that
    front as a view."""
    for p in range(n):
        for k in range(3):
            buf[3 * p + k] = faces[prim_ids[s + p], k]
    return buf[: 3 * n]


@njit(cache=True, nogil=True)
def store_box(vertices, ids, ref, axes, out, node):
    """Write the OBB row with ``axes`` (columns) that holds the points ``vertices[ids]``.

    Parameters
    ----------
    vertices : (n, 3) float64
    ids : (h,) int
    ref : (3,) float64
    axes : (3, 3) float64
    out : (k, 15) float64
    node : int
    """
    lo0 = lo1 = lo2 = np.inf
    hi0 = hi1 = hi2 = -np.inf
    for v in ids:
        x0, x1, x2 = vertices[v, 0] - ref[0], vertices[v, 1] - ref[1], vertices[v, 2] - ref[2]
        p0 = x0 * axes[0, 0] + x1 * axes[1, 0] + x2 * axes[2, 0]
        p1 = x0 * axes[0, 1] + x1 * axes[1, 1] + x2 * axes[2, 1]
        p2 = x0 * axes[0, 2] + x1 * axes[1, 2] + x2 * axes[2, 2]
        lo0, hi0 = min(lo0, p0), max(hi0, p0)
        lo1, hi1 = min(lo1, p1), max(hi1, p1)
        lo2, hi2 = min(lo2, p2), max(hi2, p2)
    m0, m1, m2 = 0.5 * (lo0 + hi0), 0.5 * (lo1 + hi1), 0.5 * (lo2 + hi2)
    for i in range(3):
        out[node, i] = ref[i] + axes[i, 0] * m0 + axes[i, 1] * m1 + axes[i, 2] * m2
        for j in range(3):
            out[node, 3 + 3 * i + j] = axes[i, j]
    out[node, 12] = 0.5 * (hi0 - lo0)
    out[node, 13] = 0.5 * (hi1 - lo1)
    out[node, 14] = 0.5 * (hi2 - lo2)


#: Relative tolerance of the convex hull (times the node's box diagonal): far above float64
#: round-off of the plane tests, far below any feature a box could care about.
HULL_TOL = 1e-12

#: Nodes with at most this many triangles sum their moments directly; bigger ones take the
#: difference of two running sums (O(1) a node). The running sums lose about
#: ``eps * m * R^2`` of the covariance to cancellation, negligible above this size but not for
#: a leaf of a large mesh (the box stays valid either way: its extents are exact).
_DIRECT_MOMENTS = 32


@njit(cache=True, nogil=True, parallel=True)
def surface_moment_sums(vertices, faces, prim_ids, origin):
    """Running sums, in ``prim_ids`` order, of each triangle's area moments.

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32
    prim_ids : (m,) int32
    origin : (3,) float64
        Moments are taken about this point (the mesh's mean vertex keeps them small).

    Returns
    -------
    (m + 1, 10) float64
        Row ``p`` sums the triangles ``prim_ids[:p]``: area, area times centroid (3), second
        moment ``xx xy xz yy yz zz`` (6).
    """
    m = prim_ids.shape[0]
    sums = np.zeros((m + 1, 10))
    for p in prange(m):
        t = prim_ids[p]
        surface_moments(vertices, faces[t, 0], faces[t, 1], faces[t, 2], origin, sums[p + 1])
    for p in range(m):
        for c in range(10):
            sums[p + 1, c] += sums[p, c]
    return sums


@njit(cache=True, nogil=True)
def covariance_from_sums(sums, s, n, cov, scratch):
    """Covariance of the triangles ``s .. s + n`` from the running sums of
    :func:`surface_moment_sums`, written to ``cov (3, 3)``; returns their area. ``scratch``
    as in :func:`surface_covariance`."""
    total = scratch[0]
    for c in range(10):
        total[c] = sums[s + n, c] - sums[s, c]
    return covariance_from_moments(total, cov)


@njit(cache=True, nogil=True)
def hull_tolerance(vertices, ids):
    """Distance below which the hull treats points as coplanar: :data:`HULL_TOL` times the
    diagonal of the points' box."""
    diag2 = 0.0
    for c in range(3):
        lo = np.inf
        hi = -np.inf
        for v in ids:
            lo = min(lo, vertices[v, c])
            hi = max(hi, vertices[v, c])
        diag2 += (hi - lo) * (hi - lo)
    return HULL_TOL * np.sqrt(diag2)


@njit(cache=True, nogil=True)
def _fit_node(vertices, faces, prim_ids, s, n, method, sums, min_area, out, node, work):
    """One node's box; ``work`` holds the calling block's arrays (see :func:`fit_method`)."""
    ids_buf, scratch, ref, cov, rot_work, axes, values = work
    ids = node_corner_ids_into(faces, prim_ids, s, n, ids_buf)
    for c in range(3):
        ref[c] = vertices[ids[0], c]
    area = 0.0
    if method == 1 and n <= _DIRECT_MOMENTS:
        area = surface_covariance(vertices, faces, prim_ids, s, n, ref, cov, scratch)
    elif method == 1:
        area = covariance_from_sums(sums, s, n, cov, scratch)
    elif method >= 2:
        hull_ids, hull_tris, _ = hull_of_subset(vertices, np.unique(ids),
                                                hull_tolerance(vertices, ids))  # fmt: skip
        hull_box(vertices, hull_ids, hull_tris, method, out, node, work)
        return
    if area <= min_area:
        # VERTICES, or a node of zero-area triangles: distinct vertices, equal weights.
        ids = np.unique(ids)
        point_covariance(vertices, ids, ref, cov)
    jacobi_eigenvectors_into(cov, rot_work, axes, values)  # cov is destroyed
    store_box(vertices, ids, ref, axes, out, node)


@njit(cache=True, nogil=True)
def hull_box(vertices, hull_ids, hull_tris, method, out, node, work):
    """The box of a node from its convex hull (``HULL_VERTICES`` or ``HULL_SURFACE``).

    Parameters
    ----------
    vertices : (n, 3) float64
    hull_ids : (h,) int32
        The hull's vertices (the box holds them, hence every vertex of the node).
    hull_tris : (f, 3) int32
        The hull's triangles (a flat node's polygon once; none for a segment or a point).
    method : int
        2 or 3 (:class:`ObbFit`).
    out : (k, 15) float64
    node : int
    work : tuple
        Work arrays as :func:`fit_method` makes them.
    """
    _, scratch, ref, cov, rot_work, axes, values = work
    for c in range(3):
        ref[c] = vertices[hull_ids[0], c]
    area = 0.0
    if method == 3 and hull_tris.shape[0] > 0:
        tri_ids = np.arange(hull_tris.shape[0]).astype(np.int32)
        area = surface_covariance(vertices, hull_tris, tri_ids, 0, tri_ids.shape[0], ref, cov,
                                  scratch)  # fmt: skip
    if area <= 0.0:
        point_covariance(vertices, hull_ids, ref, cov)
    jacobi_eigenvectors_into(cov, rot_work, axes, values)  # cov is destroyed
    store_box(vertices, hull_ids, ref, axes, out, node)


@njit(cache=True, nogil=True)
def _work_arrays(n_ids):
    """Work arrays of one block of the fit: ids buffer, moment scratch, ref, cov, Jacobi
    scratch, axes, eigenvalues."""
    return (np.empty(n_ids, dtype=np.int32), np.empty((2, 10)), np.empty(3), np.empty((3, 3)),
            np.empty((3, 3)), np.empty((3, 3)), np.empty(3))  # fmt: skip


#: Nodes per block of the bottom-up hull fit: small, because the levels near the root have few
#: nodes and most of the work (their hulls are the biggest); each block allocates once.
_HULL_BLOCK = 16


@njit(cache=True, nogil=True, parallel=True)
def fit_hull_bottom_up(vertices, faces, prim_ids, prim_start, n_prims, first, count,
                       level_nodes, level_start, out, method):  # fmt: skip
    """The hull fits (``HULL_VERTICES``, ``HULL_SURFACE``) level by level from the leaves up.

    The hull of a union is the hull of the parts' hulls, so a node's hull is built from its
    two children's hull vertices, not from all its own vertices: far fewer points near the
    root (bunny, 69k triangles: measured in ``benchmarks.bv_refit``). Same boxes as
    :func:`fit_method` up to the hull's tolerance.

    Parameters
    ----------
    vertices, faces, prim_ids, prim_start, n_prims, out, method
        As :func:`fit_method`.
    first, count : (k,) int32
    level_nodes : (k,) int32
    level_start : (L + 1,) int64
        The tree's topology and its nodes by depth.
    """
    m = prim_ids.shape[0]
    # Node hull vertex ids at [3 prim_start, 3 prim_start + n_hull): a hull has at most
    # 3 n vertices and the runs of one level are disjoint. Two buffers: one level writes
    # while it reads the level below.
    buffers = np.empty((2, 3 * m), dtype=np.int32)
    n_hull = np.zeros(prim_start.shape[0], dtype=np.int64)
    for level in range(level_start.shape[0] - 2, -1, -1):
        here = buffers[level % 2]
        below = buffers[(level + 1) % 2]
        lo = level_start[level]
        n_blocks = (level_start[level + 1] - lo + _HULL_BLOCK - 1) // _HULL_BLOCK
        for block in prange(n_blocks):
            work = _work_arrays(0)
            single = np.empty((1, 3), dtype=np.int32)
            for q in range(lo + block * _HULL_BLOCK,
                           min(level_start[level + 1], lo + (block + 1) * _HULL_BLOCK)):
                node = level_nodes[q]
                s = 3 * prim_start[node]
                if count[node] == 1:
                    # A one-triangle leaf is its own hull (the polygon of a flat set).
                    t = prim_ids[prim_start[node]]
                    single[0, :] = faces[t]
                    hull_ids = np.unique(single[0])
                    hull_tris = single if hull_ids.shape[0] == 3 else single[:0]
                else:
                    if count[node] > 0:
                        ids = np.unique(node_corner_ids(faces, prim_ids, prim_start[node],
                                                        n_prims[node]))  # fmt: skip
                    else:
                        left = first[node]
                        a = 3 * prim_start[left]
                        b = 3 * prim_start[left + 1]
                        ids = np.concatenate((below[a:a + n_hull[left]],
                                              below[b:b + n_hull[left + 1]]))  # fmt: skip
                    hull_ids, hull_tris, _ = hull_of_subset(vertices, ids,
                                                            hull_tolerance(vertices, ids))
                here[s:s + hull_ids.shape[0]] = hull_ids
                n_hull[node] = hull_ids.shape[0]
                hull_box(vertices, hull_ids, hull_tris, method, out, node, work)


#: Nodes per block of the parallel fit: each block allocates its work arrays once, so a
#: million-node tree does not pay a dozen small allocations a node (measured: those were most
#: of the 500 ms of a 500k-triangle fit).
_FIT_BLOCK = 4096


@njit(cache=True, nogil=True, parallel=True)
def fit_method(vertices, faces, prim_ids, prim_start, n_prims, out, method):
    """Fit every node's OBB with an :class:`ObbFit` method, blocks of nodes in parallel.

    The covariance of a big node comes from running sums of the triangle moments (O(1) a
    node); the extents project every corner under the node, so a fit is O(m log m), each
    triangle once per level.

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
    origin = np.zeros(3)
    for c in range(3):
        origin[c] = vertices[:, c].mean()
    sums = np.zeros((1, 10))
    min_area = 0.0
    if method == 1:
        sums = surface_moment_sums(vertices, faces, prim_ids, origin)
        # Below this a difference of running sums is round-off, not area.
        min_area = ROUND * sums[-1, 0]
    k = prim_start.shape[0]
    n_blocks = (k + _FIT_BLOCK - 1) // _FIT_BLOCK
    for block in prange(n_blocks):
        lo = block * _FIT_BLOCK
        hi = min(k, lo + _FIT_BLOCK)
        # Big enough for the largest run in the block (the first node holds the others).
        widest = 0
        for node in range(lo, hi):
            widest = max(widest, n_prims[node])
        work = _work_arrays(3 * widest)
        for node in range(lo, hi):
            _fit_node(vertices, faces, prim_ids, prim_start[node], n_prims[node], method, sums,
                      min_area, out, node, work)  # fmt: skip
