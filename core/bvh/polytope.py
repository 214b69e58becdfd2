"""Convex polytopes given as half-spaces ``n . x <= d``: clipping, face areas and volumes.

What the quality metrics need of the bounding volumes that are convex polytopes (boxes,
oriented boxes, k-DOPs, and the intersection of two of them): the area of a triangle inside
one (Sutherland and Hodgman 1974: clip the triangle by each half-space in turn), the surface
area (each face is a large square on its plane clipped by every other half-space) and the
volume (divergence theorem over those faces: ``V = 1/3 sum_i d_i A_i`` for unit normals,
offsets measured from a point of reference).

Every plane normal is unit length. Polygons live in caller-provided ``(cap, 3) float64``
buffers; each clip adds at most one corner, so ``cap = corners + planes + 1`` always suffices.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

#: Two unit normals are taken for the same direction when their dot product is above this;
#: then the two planes bound the same face and only one of them may keep it (see
#: :func:`polytope_measures`).
_SAME_DIRECTION = 1.0 - 1e-12

#: Offsets of two parallel planes closer than this, relative to the polytope's size, are the
#: same plane: the intersection of a node's two children often shares faces exactly up to
#: round-off of ``n . c + h`` computed from different centres.
_SAME_OFFSET = 1e-10


@njit(cache=True, nogil=True)
def clip_polygon(poly, n_in, nx, ny, nz, d, out):
    """Keep the part of a convex polygon where ``n . x <= d`` (Sutherland-Hodgman, one plane).

    Parameters
    ----------
    poly : (cap, 3) float64
        Corners in order; the first ``n_in`` are used.
    n_in : int
    nx, ny, nz, d : float
        The half-space.
    out : (cap, 3) float64
        Written with the clipped polygon's corners (must not be ``poly``).

    Returns
    -------
    int
        Corners written to ``out`` (0 when nothing is left).
    """
    if n_in == 0:
        return 0
    n_out = 0
    px, py, pz = poly[n_in - 1, 0], poly[n_in - 1, 1], poly[n_in - 1, 2]
    dp = nx * px + ny * py + nz * pz - d
    for i in range(n_in):
        cx, cy, cz = poly[i, 0], poly[i, 1], poly[i, 2]
        dc = nx * cx + ny * cy + nz * cz - d
        if (dc <= 0.0) != (dp <= 0.0):
            # The edge crosses the plane: its crossing point is a corner of the result.
            t = dp / (dp - dc)
            out[n_out, 0] = px + t * (cx - px)
            out[n_out, 1] = py + t * (cy - py)
            out[n_out, 2] = pz + t * (cz - pz)
            n_out += 1
        if dc <= 0.0:
            out[n_out, 0] = cx
            out[n_out, 1] = cy
            out[n_out, 2] = cz
            n_out += 1
        px, py, pz, dp = cx, cy, cz, dc
    return n_out


@njit(cache=True, nogil=True)
def polygon_area(poly, n):
    """Area of a planar polygon, ``float``: half the length of the sum of the fan's cross
    products about its first corner."""
    if n < 3:
        return 0.0
    sx = 0.0
    sy = 0.0
    sz = 0.0
    ox, oy, oz = poly[0, 0], poly[0, 1], poly[0, 2]
    for i in range(1, n - 1):
        ax, ay, az = poly[i, 0] - ox, poly[i, 1] - oy, poly[i, 2] - oz
        bx, by, bz = poly[i + 1, 0] - ox, poly[i + 1, 1] - oy, poly[i + 1, 2] - oz
        sx += ay * bz - az * by
        sy += az * bx - ax * bz
        sz += ax * by - ay * bx
    return 0.5 * np.sqrt(sx * sx + sy * sy + sz * sz)


@njit(cache=True, nogil=True)
def clipped_triangle_area(a, b, c, normals, offsets, buf_a, buf_b):
    """Area of the part of triangle ``abc`` inside the half-spaces, ``float``.

    Parameters
    ----------
    a, b, c : (3,) float64 or 3-tuples
    normals : (P, 3) float64
        Unit normals.
    offsets : (P,) float64
    buf_a, buf_b : (P + 4, 3) float64
        Work space.
    """
    for j in range(3):
        buf_a[0, j] = a[j]
        buf_a[1, j] = b[j]
        buf_a[2, j] = c[j]
    n = 3
    src, dst = buf_a, buf_b
    for p in range(normals.shape[0]):
        n = clip_polygon(src, n, normals[p, 0], normals[p, 1], normals[p, 2], offsets[p], dst)
        if n == 0:
            return 0.0
        src, dst = dst, src
    return polygon_area(src, n)


@njit(cache=True, nogil=True)
def _face_polygon(normals, offsets, i, cx, cy, cz, radius, buf_a, buf_b):
    """Face ``i`` of the polytope: a square on plane ``i`` around the reference point, larger
    than the ball ``(c, radius)`` holding the polytope, clipped by every other plane. Of two
    planes that coincide the one with the lower index keeps the face (else it would count
    twice). Returns ``(corners, buffer holding them)``."""
    nx, ny, nz = normals[i, 0], normals[i, 1], normals[i, 2]
    d = offsets[i] - (nx * cx + ny * cy + nz * cz)  # offset seen from the reference point
    # A unit vector across the normal: cross with the axis least aligned with it.
    if abs(nx) <= abs(ny) and abs(nx) <= abs(nz):
        ux, uy, uz = 0.0, -nz, ny
    elif abs(ny) <= abs(nz):
        ux, uy, uz = nz, 0.0, -nx
    else:
        ux, uy, uz = -ny, nx, 0.0
    length = np.sqrt(ux * ux + uy * uy + uz * uz)
    ux, uy, uz = ux / length, uy / length, uz / length
    vx, vy, vz = ny * uz - nz * uy, nz * ux - nx * uz, nx * uy - ny * ux  # v = n x u
    half = 2.0 * radius
    px, py, pz = cx + d * nx, cy + d * ny, cz + d * nz
    # Counter-clockwise about n: u, v, n right-handed.
    for k in range(4):
        su = 1.0 if k == 0 or k == 3 else -1.0
        sv = 1.0 if k <= 1 else -1.0
        buf_a[k, 0] = px + half * (su * ux + sv * vx)
        buf_a[k, 1] = py + half * (su * uy + sv * vy)
        buf_a[k, 2] = pz + half * (su * uz + sv * vz)
    n = 4
    src, dst = buf_a, buf_b
    tol = _SAME_OFFSET * (radius + abs(cx) + abs(cy) + abs(cz))
    for j in range(normals.shape[0]):
        if j == i:
            continue
        mx, my, mz = normals[j, 0], normals[j, 1], normals[j, 2]
        dj = offsets[j] - (mx * cx + my * cy + mz * cz)
        if nx * mx + ny * my + nz * mz > _SAME_DIRECTION:
            if abs(dj - d) <= tol:
                if j < i:
                    return 0, src
                continue
        n = clip_polygon(src, n, mx, my, mz, offsets[j], dst)
        if n == 0:
            return 0, dst
        src, dst = dst, src
    return n, src


@njit(cache=True, nogil=True, parallel=True)
def polytope_measures(normals, offsets, centers, radii):
    """Surface area and volume of many convex polytopes.

    Parameters
    ----------
    normals : (q, P, 3) or (1, P, 3) float64
        Unit outward normals, per polytope or one table shared by all (k-DOPs).
    offsets : (q, P) float64
        ``n . x <= offset``.
    centers : (q, 3) float64
        A point of reference per polytope (its box centre): offsets are measured from it,
        which keeps the volume sum free of cancellation far from the origin.
    radii : (q,) float64
        A radius about ``centers`` that holds the whole polytope.

    Returns
    -------
    area, volume : (q,) float64
        0 for an empty polytope; a flat one has volume 0 and twice its cross-section's area.
    """
    q = offsets.shape[0]
    n_planes = offsets.shape[1]
    area = np.zeros(q)
    volume = np.zeros(q)
    shared = normals.shape[0] == 1
    for t in prange(q):
        nrm = normals[0] if shared else normals[t]
        buf_a = np.empty((n_planes + 5, 3))
        buf_b = np.empty((n_planes + 5, 3))
        cx, cy, cz = centers[t, 0], centers[t, 1], centers[t, 2]
        a_sum = 0.0
        v_sum = 0.0
        for i in range(n_planes):
            n, poly = _face_polygon(nrm, offsets[t], i, cx, cy, cz, radii[t], buf_a, buf_b)
            face = polygon_area(poly, n)
            a_sum += face
            v_sum += (offsets[t, i] - (nrm[i, 0] * cx + nrm[i, 1] * cy + nrm[i, 2] * cz)) * face
        area[t] = a_sum
        volume[t] = max(v_sum / 3.0, 0.0)
    return area, volume
