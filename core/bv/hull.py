"""Convex hull of a small or large 3-D point set, as a numba kernel for the OBB "hull" fits.

Gottschalk, Lin and Manocha (1996, "OBBTree", section 4.1) fit a node's box from the
covariance of the *convex hull* of its vertices, either of the hull's vertices or integrated
over the hull's triangles, so that uneven vertex density cannot tilt the box. The fit kernel
calls :func:`hull_of_subset` once per tree node, so everything here is ``njit`` over flat
arrays with no Python objects.

Algorithm: quickhull with conflict (outside) sets, Barber, Dobkin and Huhdanpaa (1996), "The
Quickhull algorithm for convex hulls", ACM TOMS 22(4). Each point outside the current hull
sits in the outside set of exactly one face; the farthest point of a face's set is added next,
the faces it sees are removed, a cone of new faces closes the horizon, and only the points of
the removed faces are re-tested against the new faces. That keeps the cost near O(n log n)
even when every point is on the hull (the root node of a 100k-triangle sphere: ~50k points).

Robustness: "outside" means *farther than* ``tol`` *above a face plane*; points within
``tol`` (exactly coplanar or cospherical grid points, duplicates) are on the hull and never
added, which is the thick-plane rule of Barber et al., section 4. Further rules keep the
surface a closed, convex 2-manifold on such inputs and on noisy ones:

* face normals are computed with compensated (error-free) products, so a cap-shaped face
  (a vertex a few ``tol`` from the opposite edge) still has the right plane;
* a hidden neighbour of the removed patch whose far vertex is above the new face on their
  shared edge (a reflex edge, Qhull's non-convex ridge) is removed with the patch;
* the patch's boundary must be one simple cycle; when a pinch or a hole shows up, the
  patch is grown until it is a disk (never needed in the tests once the previous rule
  was in, kept as a guard), and as a last resort the eye point is given up;
* among points whose height above a face ties within ``tol`` the one farthest from the
  face's centroid is taken. Grid points on a hull edge or face all tie; the farthest from
  the centroid is a corner of the tie set, so a subdivided cube's hull keeps its 8 corners
  and no flat extra vertices, which would bias a covariance over the hull's vertices.

Measured on 3,000 noisy integer grids (cells moved by ~10 ``tol``): all surfaces closed with
Euler characteristic 2 and all volumes equal to the noise-free brute hull's within 1e-8; on
300 of them, exact rational arithmetic puts every point at most 2.1 ``tol`` above any face.
Without noise (grids, random clouds, spheres) every point is within ``tol``.

Degenerate inputs (one triangle per leaf, coplanar pairs, collinear or coincident points)
come out as lower-dimensional hulls: see :func:`convex_hull`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.exact.predicates import two_product, two_sum

# Face states during one insertion. A face's conflict list is filled only when the face is
# created, so a cursor over face ids visits every face that ever has outside points.
_ALIVE = 0
_VISIBLE = 1
_HIDDEN = 2
_DEAD = 3

# Columns of the packed face rows (one int32 array and one float64 array per hull, fewer
# allocations than one array per field: most calls are on 1-64 points).
_HEAD = 6  # first point of the face's conflict list, -1 when empty
_FAR = 7  # the face's next eye point (farthest outside point), -1 when none
_F_INT = 8  # vertex ids 0-2 (counter-clockwise from outside), neighbours 3-5, head, far
_FAR_D = 3  # height of the eye point above the plane
_FAR_S = 4  # squared distance of the eye point to the face centroid (tie-break)
_F_FLT = 5  # unit normal 0-2, eye height, eye tie-break score

#: Verdicts of the horizon check (a vertex id >= 0 means a pinch there).
_SIMPLE = -1
_NOT_A_DISK = -2
#: Repairs of one patch before its eye is given up.
_MAX_REPAIRS = 8


@njit(cache=True, nogil=True)
def _sqdist(points, i, j):
    """Squared distance between ``points[i]`` and ``points[j]``."""
    dx = points[i, 0] - points[j, 0]
    dy = points[i, 1] - points[j, 1]
    dz = points[i, 2] - points[j, 2]
    return dx * dx + dy * dy + dz * dz


@njit(cache=True, nogil=True)
def _extreme_pair(points):
    """The two farthest apart among the points of least and greatest x, y and z.

    Parameters
    ----------
    points : (n, 3) float64

    Returns
    -------
    i0, i1 : int
        Point ids.
    length : float
        Their distance. All points lie in a box whose every side is at most ``length``.
    """
    n = points.shape[0]
    ext = np.zeros(6, np.int64)
    for axis in range(3):
        for i in range(1, n):
            if points[i, axis] < points[ext[2 * axis], axis]:
                ext[2 * axis] = i
            if points[i, axis] > points[ext[2 * axis + 1], axis]:
                ext[2 * axis + 1] = i
    best_i = ext[0]
    best_j = ext[0]
    best = -1.0
    for a in range(6):
        for b in range(a + 1, 6):
            d2 = _sqdist(points, ext[a], ext[b])
            if d2 > best:
                best = d2
                best_i = ext[a]
                best_j = ext[b]
    return best_i, best_j, np.sqrt(best)


@njit(cache=True, nogil=True)
def _keep_farthest(points, i, h, best, best_i, best_score, centre, tol):
    """One step of a farthest-point search with the tie rule of the module docstring.

    Point ``i`` at height ``h`` replaces the best so far when it is higher by more than
    ``tol``; within ``tol`` of it, the one farther from ``centre`` wins (``best_score`` caches
    the best's squared distance to ``centre``, -1 when not yet computed).

    Returns
    -------
    best, best_i, best_score
    """
    if h > best + tol:
        return h, i, -1.0
    if h >= best - tol:
        mx = points[i, 0] - centre[0]
        my = points[i, 1] - centre[1]
        mz = points[i, 2] - centre[2]
        score = mx * mx + my * my + mz * mz
        if best_score < 0.0:
            bx = points[best_i, 0] - centre[0]
            by = points[best_i, 1] - centre[1]
            bz = points[best_i, 2] - centre[2]
            best_score = bx * bx + by * by + bz * bz
        if score > best_score:
            return max(best, h), i, score
    return best, best_i, best_score


@njit(cache=True, nogil=True)
def _farthest_from_line(points, i0, i1, tol):
    """The point farthest from the line through ``points[i0]`` and ``points[i1]``.

    Ties within ``tol`` go to the point farthest from the segment's midpoint, an end of the
    tie set (see the module docstring).

    Returns
    -------
    i2 : int
    height : float
        Its distance from the line.
    """
    p0 = points[i0]
    u = points[i1] - p0
    u /= np.sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2])
    mid = 0.5 * (p0 + points[i1])
    best = -1.0
    best_score = -1.0
    best_i = i0
    for i in range(points.shape[0]):
        rx = points[i, 0] - p0[0]
        ry = points[i, 1] - p0[1]
        rz = points[i, 2] - p0[2]
        cx = ry * u[2] - rz * u[1]
        cy = rz * u[0] - rx * u[2]
        cz = rx * u[1] - ry * u[0]
        h = np.sqrt(cx * cx + cy * cy + cz * cz)
        best, best_i, best_score = _keep_farthest(points, i, h, best, best_i, best_score, mid,
                                                  tol)  # fmt: skip
    return best_i, best


@njit(cache=True, nogil=True)
def _cross_component(ay, az, by, bz, cy, cz):
    """One component of ``(b - a) x (c - a) = a x b + b x c + c x a``, compensated.

    Why: the plain product of the differences loses ``eps * |b - a| * |c - a|``, which for a
    cap-shaped triangle (a vertex within a few ``tol`` of the opposite edge: noisy grids,
    near-duplicate points) tilts the normal by ``eps * L / h`` and moves far points' heights
    by ``eps * L**2 / h``, i.e. ~1e-4 L at ``h = 1e-12 L``. The 6 products of input
    coordinates are exact here (TwoProduct, :mod:`core.exact.predicates`) and summed with
    their errors (Ogita, Rump and Oishi 2005, "Accurate sum and dot product", Sum2), so the
    normal is right to a few ulp.
    """
    s, err = two_product(ay, bz)
    total = err
    for x, y, sign in (
        (az, by, -1.0),
        (by, cz, 1.0),
        (bz, cy, -1.0),
        (cy, az, 1.0),
        (cz, ay, -1.0),
    ):
        p, e = two_product(x, y)
        s, e2 = two_sum(s, sign * p)
        total += sign * e + e2
    return s + total


@njit(cache=True, nogil=True)
def _unit_normal(points, i0, i1, i2):
    """Unit normal of the plane through three points, by the right hand.

    Returns
    -------
    normal : (3,) float64
        Zero when the three points coincide or are exactly collinear.
    """
    a = points[i0]
    b = points[i1]
    c = points[i2]
    normal = np.empty(3)
    normal[0] = _cross_component(a[1], a[2], b[1], b[2], c[1], c[2])
    normal[1] = _cross_component(a[2], a[0], b[2], b[0], c[2], c[0])
    normal[2] = _cross_component(a[0], a[1], b[0], b[1], c[0], c[1])
    length = np.sqrt(normal[0] ** 2 + normal[1] ** 2 + normal[2] ** 2)
    if length > 0.0:
        normal /= length
    return normal


@njit(cache=True, nogil=True)
def _farthest_from_plane(points, i0, i1, i2, tol):
    """The point farthest (either side) from the plane through three points.

    Ties within ``tol`` go to the point farthest from the triangle's centroid.

    Returns
    -------
    i3 : int
    height : float
        Its unsigned distance from the plane.
    """
    normal = _unit_normal(points, i0, i1, i2)
    origin = points[i0]
    centroid = (points[i0] + points[i1] + points[i2]) / 3.0
    best = -1.0
    best_score = -1.0
    best_i = i0
    for i in range(points.shape[0]):
        h = abs(
            normal[0] * (points[i, 0] - origin[0])
            + normal[1] * (points[i, 1] - origin[1])
            + normal[2] * (points[i, 2] - origin[2])
        )
        best, best_i, best_score = _keep_farthest(points, i, h, best, best_i, best_score,
                                                  centroid, tol)  # fmt: skip
    return best_i, best


@njit(cache=True, nogil=True)
def _hull_1d(points, i0, i1):
    """Ends of a collinear set: least and greatest projection on the line ``i0 -> i1``.

    Returns
    -------
    vertex_ids : (2,) int32
    """
    u = points[i1] - points[i0]
    lo = 0
    hi = 0
    t_lo = np.inf
    t_hi = -np.inf
    for i in range(points.shape[0]):
        t = u[0] * points[i, 0] + u[1] * points[i, 1] + u[2] * points[i, 2]
        if t < t_lo:
            t_lo = t
            lo = i
        if t > t_hi:
            t_hi = t
            hi = i
    out = np.empty(2, np.int32)
    out[0] = lo
    out[1] = hi
    return out


@njit(cache=True, nogil=True)
def _is_left_turn(xs, ys, o, a, b, tol):
    """True when ``a`` lies more than ``tol`` to the right of the line ``o -> b``.

    That is a strict counter-clockwise turn ``o -> a -> b``; ``a`` within ``tol`` of the line
    (collinear or duplicate points) is dropped from the chain.
    """
    ax = xs[a] - xs[o]
    ay = ys[a] - ys[o]
    bx = xs[b] - xs[o]
    by = ys[b] - ys[o]
    cross = ax * by - ay * bx
    return cross > tol * np.sqrt(bx * bx + by * by)


@njit(cache=True, nogil=True)
def _hull_2d(points, i0, i1, i2, tol):
    """Convex polygon of a (near-)coplanar set, by Andrew's monotone chain (1979).

    The points are projected on the plane through ``i0, i1, i2`` with the orthonormal basis
    ``u = (p1 - p0) / |p1 - p0|``, ``v = n x u``, ``n = u x (p2 - p0) / |...|``; the polygon
    is counter-clockwise in ``(u, v)``, i.e. counter-clockwise seen from the tip of ``n``.

    Returns
    -------
    vertex_ids : (h,) int32
        The polygon's corners in order; fewer than 3 when the projected set is collinear
        within ``tol``.
    """
    n = points.shape[0]
    o = points[i0]
    u = points[i1] - o
    u /= np.sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2])
    w = points[i2] - o
    nrm = np.empty(3)
    nrm[0] = u[1] * w[2] - u[2] * w[1]
    nrm[1] = u[2] * w[0] - u[0] * w[2]
    nrm[2] = u[0] * w[1] - u[1] * w[0]
    nrm /= np.sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2])
    v = np.empty(3)
    v[0] = nrm[1] * u[2] - nrm[2] * u[1]
    v[1] = nrm[2] * u[0] - nrm[0] * u[2]
    v[2] = nrm[0] * u[1] - nrm[1] * u[0]
    xs = np.empty(n)
    ys = np.empty(n)
    for i in range(n):
        rx = points[i, 0] - o[0]
        ry = points[i, 1] - o[1]
        rz = points[i, 2] - o[2]
        xs[i] = rx * u[0] + ry * u[1] + rz * u[2]
        ys[i] = rx * v[0] + ry * v[1] + rz * v[2]
    # Lexicographic (x, then y) order from two stable sorts: ties in x are common on grids.
    by_y = np.argsort(ys, kind="mergesort")
    order = by_y[np.argsort(xs[by_y], kind="mergesort")]
    chain = np.empty(2 * n + 1, np.int64)
    k = 0
    for idx in range(n):
        b = order[idx]
        while k >= 2 and not _is_left_turn(xs, ys, chain[k - 2], chain[k - 1], b, tol):
            k -= 1
        chain[k] = b
        k += 1
    lower_end = k + 1
    for idx in range(n - 2, -1, -1):
        b = order[idx]
        while k >= lower_end and not _is_left_turn(xs, ys, chain[k - 2], chain[k - 1], b, tol):
            k -= 1
        chain[k] = b
        k += 1
    # The upper chain ends where the lower one started.
    k -= 1
    out = np.empty(max(k, 0), np.int32)
    for i in range(k):
        out[i] = chain[i]
    return out


@njit(cache=True, nogil=True)
def _set_face(points, fi, ff, f, a, b, c):
    """Write face ``f = (a, b, c)`` with an empty conflict list and its plane."""
    fi[f, 0] = a
    fi[f, 1] = b
    fi[f, 2] = c
    fi[f, _HEAD] = -1
    fi[f, _FAR] = -1
    normal = _unit_normal(points, a, b, c)
    ff[f, 0] = normal[0]
    ff[f, 1] = normal[1]
    ff[f, 2] = normal[2]
    ff[f, _FAR_D] = 0.0
    ff[f, _FAR_S] = 0.0


@njit(cache=True, nogil=True)
def _height(points, fi, ff, f, q):
    """Signed distance of ``points[q]`` above face ``f``'s plane (positive outside).

    Measured from the face's first vertex, not through a stored offset ``n . centroid``: the
    offset would carry ``eps * |x|`` of round-off, too much for sets far from the origin.
    """
    a = fi[f, 0]
    return (
        ff[f, 0] * (points[q, 0] - points[a, 0])
        + ff[f, 1] * (points[q, 1] - points[a, 1])
        + ff[f, 2] * (points[q, 2] - points[a, 2])
    )


@njit(cache=True, nogil=True)
def _centroid_score(points, fi, f, q):
    """Squared distance of ``points[q]`` to the centroid of face ``f`` (the tie-break)."""
    score = 0.0
    for k in range(3):
        centroid_k = (points[fi[f, 0], k] + points[fi[f, 1], k] + points[fi[f, 2], k]) / 3.0
        dk = points[q, k] - centroid_k
        score += dk * dk
    return score


@njit(cache=True, nogil=True)
def _add_conflict(points, fi, ff, nxt, f, q, h, tol):
    """Put point ``q`` (height ``h > tol`` above face ``f``) in ``f``'s outside set.

    The eye point is the highest; heights within ``tol`` tie and the tie goes to the point
    farthest from the face's centroid (a corner of the tie set, see the module docstring).
    """
    nxt[q] = fi[f, _HEAD]
    fi[f, _HEAD] = q
    far_h = ff[f, _FAR_D]
    if fi[f, _FAR] >= 0 and h <= far_h + tol:
        if h < far_h - tol:
            return
        score = _centroid_score(points, fi, f, q)
        if score <= ff[f, _FAR_S]:
            return
        fi[f, _FAR] = q
        ff[f, _FAR_D] = max(h, far_h)
        ff[f, _FAR_S] = score
        return
    fi[f, _FAR] = q
    ff[f, _FAR_D] = h
    ff[f, _FAR_S] = _centroid_score(points, fi, f, q)


@njit(cache=True, nogil=True)
def _take_face(fi, state, visible, n_vis, vcount, touched, n_touch, g):
    """Add face ``g`` to the patch being removed; count its vertices.

    Returns
    -------
    n_vis, n_touch : int
        The new lengths of ``visible`` and ``touched``.
    """
    state[g] = _VISIBLE
    visible[n_vis] = g
    for k in range(3):
        v = fi[g, k]
        if vcount[v] == 0:
            touched[n_touch] = v
            n_touch += 1
        vcount[v] += 1
    return n_vis + 1, n_touch


@njit(cache=True, nogil=True)
def _absorb_reflex_neighbours(
    points, fi, ff, state, visible, n_vis, vcount, touched, n_touch, eye, tol
):
    """Take into the patch the hidden neighbours the new faces would not be convex with.

    A neighbour ``N = (b, a, w)`` across horizon edge ``(a, b)`` joins the patch when ``w``
    is more than ``tol`` above the plane of the new face ``(a, b, eye)``: the edge would be
    reflex. With exact convexity that cannot happen (the eye is not above ``N``); it does
    when ``N`` or the new face is a sliver between near-duplicate points, whose plane is
    tilted by offsets of a few ``tol``, and the cone then folds over a flat region (measured
    on noisy grids: volume 19.5 for a true 20). This is Qhull's test for non-convex ridges
    (Barber et al. 1996, section 4), which there merges facets; here ``N`` is no hull face
    and goes with the patch, so the cone re-covers its area.

    Returns
    -------
    n_vis, n_touch : int
        New lengths of ``visible`` and ``touched``.
    """
    i = 0
    while i < n_vis:
        g = visible[i]
        i += 1
        for k in range(3):
            nb = fi[g, 3 + k]
            if state[nb] == _VISIBLE:
                continue
            a = fi[g, k]
            b = fi[g, (k + 1) % 3]
            # Reflex edge: N's third vertex above the new face's plane.
            w = fi[nb, 0] + fi[nb, 1] + fi[nb, 2] - a - b
            normal = _unit_normal(points, a, b, eye)
            h_w = (
                normal[0] * (points[w, 0] - points[a, 0])
                + normal[1] * (points[w, 1] - points[a, 1])
                + normal[2] * (points[w, 2] - points[a, 2])
            )
            if h_w > tol:
                # Appended, so the scan reaches it and its own horizon edges too.
                n_vis, n_touch = _take_face(fi, state, visible, n_vis, vcount, touched, n_touch, nb)
    return n_vis, n_touch


@njit(cache=True, nogil=True)
def _check_horizon(fi, state, visible, n_vis, hstamp, hnext, stamp):
    """Is the boundary of the patch one simple cycle?

    Returns
    -------
    n_horizon : int
        Number of boundary edges.
    verdict : int
        ``_SIMPLE``; a vertex id ``>= 0`` where two boundary edges start (a pinch);
        ``_NOT_A_DISK`` for no boundary or several cycles (the patch has a hole).
    """
    n_horizon = 0
    first = -1
    for i in range(n_vis):
        g = visible[i]
        for k in range(3):
            if state[fi[g, 3 + k]] == _VISIBLE:
                continue
            a = fi[g, k]
            if hstamp[a] == stamp:
                return n_horizon, a
            hstamp[a] = stamp
            hnext[a] = fi[g, (k + 1) % 3]
            n_horizon += 1
            first = a
    if n_horizon == 0:
        return 0, _NOT_A_DISK
    v = hnext[first]
    steps = 1
    while v != first:
        if hstamp[v] != stamp or steps > n_horizon:
            return n_horizon, _NOT_A_DISK
        v = hnext[v]
        steps += 1
    if steps != n_horizon:
        return n_horizon, _NOT_A_DISK
    return n_horizon, _SIMPLE


@njit(cache=True, nogil=True)
def _repair_patch(
    points, fi, ff, state, visible, n_vis, vcount, touched, n_touch, n_faces, stack, bad, eye
):
    """Grow the patch until its complement is one edge-connected piece (rare, O(faces)).

    The faces around a pinch vertex join the patch; then the faces the eye sees least (the
    lowest below its plane) anchor the part that stays, and every face not edge-connected to
    it through faces outside the patch is a hole and joins too.

    Returns
    -------
    n_vis, n_touch : int
        New lengths; ``n_vis = -1`` when no face would remain.
    """
    if bad >= 0:
        for g in range(n_faces):
            if state[g] == _ALIVE or state[g] == _HIDDEN:
                if fi[g, 0] == bad or fi[g, 1] == bad or fi[g, 2] == bad:
                    n_vis, n_touch = _take_face(
                        fi, state, visible, n_vis, vcount, touched, n_touch, g
                    )
    anchor = -1
    lowest = np.inf
    for g in range(n_faces):
        if state[g] == _ALIVE or state[g] == _HIDDEN:
            h = _height(points, fi, ff, g, eye)
            if h < lowest:
                lowest = h
                anchor = g
    if anchor < 0:
        return -1, n_touch
    is_kept = np.zeros(n_faces, np.bool_)
    is_kept[anchor] = True
    sp = 0
    stack[sp] = anchor
    sp += 1
    while sp > 0:
        sp -= 1
        g = stack[sp]
        for k in range(3):
            nb = fi[g, 3 + k]
            if not is_kept[nb] and (state[nb] == _ALIVE or state[nb] == _HIDDEN):
                is_kept[nb] = True
                stack[sp] = nb
                sp += 1
    for g in range(n_faces):
        if (state[g] == _ALIVE or state[g] == _HIDDEN) and not is_kept[g]:
            n_vis, n_touch = _take_face(fi, state, visible, n_vis, vcount, touched, n_touch, g)
    return n_vis, n_touch


@njit(cache=True, nogil=True)
def _reassign(points, fi, ff, nxt, first_new, end_new, q, tol):
    """Put point ``q`` in the outside set of the first new face it is above, if any."""
    for new in range(first_new, end_new):
        h = _height(points, fi, ff, new, q)
        if h > tol:
            _add_conflict(points, fi, ff, nxt, new, q, h, tol)
            return


@njit(cache=True, nogil=True)
def _drop_eye(points, fi, ff, nxt, f, eye, tol):
    """Remove ``eye`` from face ``f``'s outside set and choose the set's next eye."""
    q = fi[f, _HEAD]
    fi[f, _HEAD] = -1
    fi[f, _FAR] = -1
    while q >= 0:
        q_next = nxt[q]
        if q != eye:
            _add_conflict(points, fi, ff, nxt, f, q, _height(points, fi, ff, f, q), tol)
        q = q_next


@njit(cache=True, nogil=True)
def _hull_3d(points, i0, i1, i2, i3, tol):
    """Quickhull (Barber et al. 1996) from the tetrahedron ``i0, i1, i2, i3``.

    Parameters
    ----------
    points : (n, 3) float64
    i0, i1, i2, i3 : int
        A tetrahedron whose fourth point is more than ``tol`` off the plane of the first three.
    tol : float

    Returns
    -------
    triangles : (f, 3) int32
        Closed, counter-clockwise seen from outside.
    """
    n = points.shape[0]
    # At most 2n - 4 faces are alive at once; dead ones are not reused (the cursor below
    # relies on ids growing), so the arrays double when full.
    cap = 2 * n + 8
    fi = np.empty((cap, _F_INT), np.int32)
    ff = np.empty((cap, _F_FLT))
    state = np.zeros(cap, np.int8)
    # Per-point scratch: conflict-list link, how many removed faces touch the vertex, the
    # new face whose horizon edge starts at the vertex, the vertices touched.
    nxt = np.empty(n, np.int32)
    vcount = np.zeros(n, np.int32)
    start_face = np.empty(n, np.int32)
    touched = np.empty(n, np.int32)
    # Horizon check: the attempt that last saw the vertex start a horizon edge, and the end.
    hstamp = np.zeros(n, np.int32)
    hnext = np.empty(n, np.int32)
    # Per-insertion scratch over faces.
    visible = np.empty(cap, np.int32)
    hidden = np.empty(cap, np.int32)
    stack = np.empty(3 * cap + 3, np.int32)

    # The tetrahedron, with the fourth point below the first face.
    nrm = _unit_normal(points, i0, i1, i2)
    if (
        nrm[0] * (points[i3, 0] - points[i0, 0])
        + nrm[1] * (points[i3, 1] - points[i0, 1])
        + nrm[2] * (points[i3, 2] - points[i0, 2])
        > 0.0
    ):
        i1, i2 = i2, i1
    _set_face(points, fi, ff, 0, i0, i1, i2)
    _set_face(points, fi, ff, 1, i0, i3, i1)
    _set_face(points, fi, ff, 2, i1, i3, i2)
    _set_face(points, fi, ff, 3, i2, i3, i0)
    for f in range(4):
        for k in range(3):
            a = fi[f, k]
            b = fi[f, (k + 1) % 3]
            for g in range(4):
                for m in range(3):
                    if fi[g, m] == b and fi[g, (m + 1) % 3] == a:
                        fi[f, 3 + k] = g
    n_faces = 4
    for q in range(n):
        if q == i0 or q == i1 or q == i2 or q == i3:
            continue
        for f in range(4):
            h = _height(points, fi, ff, f, q)
            if h > tol:
                _add_conflict(points, fi, ff, nxt, f, q, h, tol)
                break

    stamp = 0
    cursor = 0
    while cursor < n_faces:
        f = cursor
        cursor += 1
        if state[f] != _ALIVE or fi[f, _HEAD] < 0:
            continue
        eye = fi[f, _FAR]

        # The faces the eye sees, grown from f over edges (Barber et al. 1996, section 3).
        n_vis = 0
        n_hid = 0
        n_touch = 0
        sp = 0
        n_vis, n_touch = _take_face(fi, state, visible, n_vis, vcount, touched, n_touch, f)
        for k in range(3):
            stack[sp] = fi[f, 3 + k]
            sp += 1
        while sp > 0:
            sp -= 1
            g = stack[sp]
            if state[g] != _ALIVE:
                continue
            if _height(points, fi, ff, g, eye) <= tol:
                state[g] = _HIDDEN
                hidden[n_hid] = g
                n_hid += 1
                continue
            n_vis, n_touch = _take_face(fi, state, visible, n_vis, vcount, touched, n_touch, g)
            for k in range(3):
                nb = fi[g, 3 + k]
                if state[nb] == _ALIVE:
                    stack[sp] = nb
                    sp += 1

        # The horizon must be one simple cycle. With a tolerance the visible set can pinch at
        # a vertex or enclose a few faces the eye sees within tol (near-coplanar faces meeting
        # at a near-degenerate vertex); those are taken into the patch.
        is_simple = False
        n_horizon = 0
        for _attempt in range(_MAX_REPAIRS + 1):
            n_vis, n_touch = _absorb_reflex_neighbours(
                points, fi, ff, state, visible, n_vis, vcount, touched, n_touch, eye, tol
            )
            stamp += 1
            n_horizon, bad = _check_horizon(fi, state, visible, n_vis, hstamp, hnext, stamp)
            if bad == _SIMPLE:
                is_simple = True
                break
            n_vis, n_touch = _repair_patch(
                points, fi, ff, state, visible, n_vis, vcount, touched, n_touch, n_faces, stack,
                bad, eye,
            )  # fmt: skip
            if n_vis < 0:
                break
        if not is_simple:
            # No disk found (never seen in tests): give the eye up rather than break the
            # surface; the eye ends up at most a few tol outside.
            for i in range(max(n_vis, 0)):
                state[visible[i]] = _ALIVE
            for i in range(n_faces):
                if state[i] == _VISIBLE or state[i] == _HIDDEN:
                    state[i] = _ALIVE
            for i in range(n_touch):
                vcount[touched[i]] = 0
            _drop_eye(points, fi, ff, nxt, f, eye, tol)
            cursor = f
            continue

        if n_faces + n_horizon > cap:
            new_cap = max(2 * cap, n_faces + n_horizon)
            fi2 = np.empty((new_cap, _F_INT), np.int32)
            fi2[:n_faces] = fi[:n_faces]
            fi = fi2
            ff2 = np.empty((new_cap, _F_FLT))
            ff2[:n_faces] = ff[:n_faces]
            ff = ff2
            state2 = np.zeros(new_cap, np.int8)
            state2[:n_faces] = state[:n_faces]
            state = state2
            visible2 = np.empty(new_cap, np.int32)
            visible2[:n_vis] = visible[:n_vis]
            visible = visible2
            hidden2 = np.empty(new_cap, np.int32)
            hidden2[:n_hid] = hidden[:n_hid]
            hidden = hidden2
            stack = np.empty(3 * new_cap + 3, np.int32)
            cap = new_cap

        # One new face (a, b, eye) per horizon edge (a, b); the edge keeps its direction.
        first_new = n_faces
        for i in range(n_vis):
            g = visible[i]
            # The horizon test of _absorb_reflex_neighbours (an edge of a visible face whose
            # neighbour is not visible), walked again rather than kept in an edge list: the
            # list would be allocated and grown per eye point, and the walk is three array
            # reads per visible face.
            for k in range(3):
                nb = fi[g, 3 + k]
                if state[nb] == _VISIBLE:
                    continue
                a = fi[g, k]
                b = fi[g, (k + 1) % 3]
                new = n_faces
                n_faces += 1
                _set_face(points, fi, ff, new, a, b, eye)
                state[new] = _ALIVE
                fi[new, 3] = nb
                for m in range(3):
                    if fi[nb, 3 + m] == g and fi[nb, m] == b:
                        fi[nb, 3 + m] = new
                start_face[a] = new
        # The horizon is a simple cycle, so the face after (a, b, eye) is the one from b.
        for new in range(first_new, n_faces):
            nxt_face = start_face[fi[new, 1]]
            fi[new, 4] = nxt_face
            fi[nxt_face, 5] = new

        # Only the outside points of removed faces can be outside a new face
        # (Barber et al. 1996, section 3).
        for i in range(n_vis):
            g = visible[i]
            q = fi[g, _HEAD]
            while q >= 0:
                q_next = nxt[q]
                if q != eye:
                    _reassign(points, fi, ff, nxt, first_new, n_faces, q, tol)
                q = q_next
            state[g] = _DEAD
        # Vertices inside the patch leave the surface. For an exactly convex hull they are
        # inside the cone; after a repair they may be a little outside, so they are tested.
        for i in range(n_touch):
            v = touched[i]
            vcount[v] = 0
            if hstamp[v] != stamp and v != eye:
                _reassign(points, fi, ff, nxt, first_new, n_faces, v, tol)
        for i in range(n_hid):
            if state[hidden[i]] == _HIDDEN:
                state[hidden[i]] = _ALIVE

    n_alive = 0
    for f in range(n_faces):
        if state[f] == _ALIVE:
            n_alive += 1
    triangles = np.empty((n_alive, 3), np.int32)
    j = 0
    for f in range(n_faces):
        if state[f] == _ALIVE:
            triangles[j, 0] = fi[f, 0]
            triangles[j, 1] = fi[f, 1]
            triangles[j, 2] = fi[f, 2]
            j += 1
    return triangles


@njit(cache=True, nogil=True)
def _vertex_ids_of(triangles, n):
    """Sorted distinct ids used by ``triangles`` ``(f, 3) int32``, as ``(h,) int32``."""
    used = np.zeros(n, np.bool_)
    for f in range(triangles.shape[0]):
        for k in range(3):
            used[triangles[f, k]] = True
    return np.nonzero(used)[0].astype(np.int32)


@njit(cache=True, nogil=True)
def convex_hull(points, tol):
    """Convex hull of a 3-D point set (quickhull with conflict sets).

    Parameters
    ----------
    points : (n, 3) float64
        ``n >= 1``; duplicates allowed.
    tol : float
        Absolute distance tolerance, e.g. ``1e-12 * extent``: a point within ``tol`` of a
        face plane is on the face, never outside it.

    Returns
    -------
    vertex_ids : (h,) int32
        Ids into ``points``. Dim 3: the vertices of ``triangles``, ascending. Dim 2: the
        polygon's corners in counter-clockwise order. Dim 1: the two end points. Dim 0:
        ``[0]``.
    triangles : (f, 3) int32
        Ids into ``points``. Dim 3: a closed surface, counter-clockwise seen from outside
        (``V - E + F = 2``), every input point on or below every face plane within ``tol``.
        Dim 2: a fan ``(v0, vi, vi+1)`` over the polygon, one side only, all facing the
        same way. Dims 0 and 1: shape ``(0, 3)``.
    dim : int
        3, or 2 when all points are within ``tol`` of a plane, 1 of a line, 0 of a point.
    """
    n = points.shape[0]
    no_triangles = np.empty((0, 3), np.int32)
    i0, i1, length = _extreme_pair(points)
    if length <= tol:
        return np.zeros(1, np.int32), no_triangles, 0
    i2, h2 = _farthest_from_line(points, i0, i1, tol)
    if h2 <= tol:
        return _hull_1d(points, i0, i1), no_triangles, 1
    i3, h3 = _farthest_from_plane(points, i0, i1, i2, tol)
    if h3 <= tol:
        polygon = _hull_2d(points, i0, i1, i2, tol)
        if polygon.shape[0] < 3:
            return _hull_1d(points, i0, i1), no_triangles, 1
        n_fan = polygon.shape[0] - 2
        fan = np.empty((n_fan, 3), np.int32)
        for j in range(n_fan):
            fan[j, 0] = polygon[0]
            fan[j, 1] = polygon[j + 1]
            fan[j, 2] = polygon[j + 2]
        return polygon, fan, 2
    triangles = _hull_3d(points, i0, i1, i2, i3, tol)
    return _vertex_ids_of(triangles, n), triangles, 3


@njit(cache=True, nogil=True)
def hull_of_subset(vertices, ids, tol):
    """:func:`convex_hull` of ``vertices[ids]``, with results indexing ``vertices``.

    Parameters
    ----------
    vertices : (N, 3) float64
    ids : (n,) int32 or int64
        ``n >= 1`` ids into ``vertices`` (e.g. a node's distinct vertices); duplicates allowed.
    tol : float
        As in :func:`convex_hull`.

    Returns
    -------
    vertex_ids : (h,) int32
        Ids into ``vertices``, ordered as in :func:`convex_hull`.
    triangles : (f, 3) int32
        Ids into ``vertices``.
    dim : int
    """
    n = ids.shape[0]
    points = np.empty((n, 3))
    for i in range(n):
        for k in range(3):
            points[i, k] = vertices[ids[i], k]
    local_ids, local_tris, dim = convex_hull(points, tol)
    vertex_ids = np.empty(local_ids.shape[0], np.int32)
    for i in range(local_ids.shape[0]):
        vertex_ids[i] = ids[local_ids[i]]
    triangles = np.empty(local_tris.shape, np.int32)
    for f in range(local_tris.shape[0]):
        for k in range(3):
            triangles[f, k] = ids[local_tris[f, k]]
    return vertex_ids, triangles, dim
