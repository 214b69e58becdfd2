"""Swept-sphere volumes of PQP (Larsen, Gottschalk, Lin, Manocha 2000): a point, segment or
rectangle swept by a sphere -- PSS, LSS and RSS. One module for the three because they share
the row layout, the fit and the distance routines; the registry gives each its own entry.

Row layout (15, same for the three): ``center`` (3), ``axes`` (9: row-major 3x3, columns are
the axes), ``half`` (2: half-lengths of the core along axes 0 and 1), ``radius`` (1). A PSS
has ``half = (0, 0)``, an LSS ``half = (h, 0)``.

Fit (PQP): the axes are the principal axes of the node's triangles (the area-integrated
covariance of :mod:`core.bv.obb_fit`); the core spans the vertices' range along the main one (LSS)
or two (RSS) axes, the radius covers the rest: the half-thickness along the third axis (RSS),
the farthest vertex from the axis (LSS), the farthest vertex from the centre of the node's box
(PSS, the sphere of :mod:`core.bv.sphere`). PQP also rounds the rectangle's corners in; this
fit keeps the plain rectangle, a little looser and simpler. Refit: from primitives.

Overlap and distance: the distance of the two cores (point / segment / rectangle, from
:mod:`core.bv._geom`) against the sum of the radii.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from core.bv import obb, sphere
from core.bv._geom import closest_seg_seg, rect_rect_distance
from core.bv._wire import CIRCLE_SEGMENTS, closed_loops, lines_record
from core.bv.shapes import Balls, SweptRectangles
from core.vec3 import axpy3, dot3, sub3

#: Row layout: center 3, axes 9, half 2, radius 1.
WIDTH = 15
#: Columns of the row layout.
CENTRE, AXES, HALF, RADIUS = slice(0, 3), slice(3, 12), slice(12, 14), 14


@njit(cache=True, nogil=True)
def fit_pss(vertices, faces, prim_ids, prim_start, n_prims, out):
    """PSS rows for every node (see :func:`fit_rss` for the parameters)."""
    k = prim_start.shape[0]
    tmp = np.empty((k, 4))
    sphere.fit(vertices, faces, prim_ids, prim_start, n_prims, tmp)
    for node in range(k):
        out[node, :] = 0.0
        out[node, 0:3] = tmp[node, 0:3]
        out[node, 3] = 1.0
        out[node, 7] = 1.0
        out[node, 11] = 1.0
        out[node, 14] = tmp[node, 3]


@njit(cache=True, nogil=True, parallel=True)
def fit_lss(vertices, faces, prim_ids, prim_start, n_prims, out):
    """LSS rows for every node (see :func:`fit_rss` for the parameters): the OBB's main axis
    is the segment, the radius the largest distance of a corner from that axis."""
    k = prim_start.shape[0]
    box = np.empty((k, 15))
    obb.fit(vertices, faces, prim_ids, prim_start, n_prims, box)
    for node in prange(k):
        out[node, 0:12] = box[node, 0:12]
        out[node, 12] = box[node, 12]
        out[node, 13] = 0.0
        r2 = 0.0
        for p in range(prim_start[node], prim_start[node] + n_prims[node]):
            t = prim_ids[p]
            for q in range(3):
                v = faces[t, q]
                d1 = 0.0
                d2 = 0.0
                for i in range(3):
                    x = vertices[v, i] - box[node, i]
                    d1 += x * box[node, 4 + 3 * i]
                    d2 += x * box[node, 5 + 3 * i]
                r2 = max(r2, d1 * d1 + d2 * d2)
        out[node, 14] = np.sqrt(r2)


@njit(cache=True, nogil=True)
def fit_rss(vertices, faces, prim_ids, prim_start, n_prims, out):
    """RSS rows for every node.

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32
    prim_ids : (m,) int32
    prim_start, n_prims : (k,) int32
    out : (k, 15) float64
    """
    obb.fit(vertices, faces, prim_ids, prim_start, n_prims, out)


@njit(cache=True, nogil=True)
def refit_pss(vertices, faces, prim_ids, prim_start, n_prims, first, count, ln, ls, out):
    """From primitives (a full :func:`fit_pss`)."""
    fit_pss(vertices, faces, prim_ids, prim_start, n_prims, out)


@njit(cache=True, nogil=True)
def refit_lss(vertices, faces, prim_ids, prim_start, n_prims, first, count, ln, ls, out):
    """From primitives (a full :func:`fit_lss`)."""
    fit_lss(vertices, faces, prim_ids, prim_start, n_prims, out)


@njit(cache=True, nogil=True)
def refit_rss(vertices, faces, prim_ids, prim_start, n_prims, first, count, ln, ls, out):
    """From primitives (a full :func:`fit_rss`)."""
    fit_rss(vertices, faces, prim_ids, prim_start, n_prims, out)


@njit(cache=True, nogil=True)
def _posed(rb, rot, trans):
    """B's centre and first two axes in A's frame, as 3-tuples (no heap arrays)."""
    cb = (rot[0, 0] * rb[0] + rot[0, 1] * rb[1] + rot[0, 2] * rb[2] + trans[0],
          rot[1, 0] * rb[0] + rot[1, 1] * rb[1] + rot[1, 2] * rb[2] + trans[1],
          rot[2, 0] * rb[0] + rot[2, 1] * rb[1] + rot[2, 2] * rb[2] + trans[2])  # fmt: skip
    ub = (rot[0, 0] * rb[3] + rot[0, 1] * rb[6] + rot[0, 2] * rb[9],
          rot[1, 0] * rb[3] + rot[1, 1] * rb[6] + rot[1, 2] * rb[9],
          rot[2, 0] * rb[3] + rot[2, 1] * rb[6] + rot[2, 2] * rb[9])  # fmt: skip
    vb = (rot[0, 0] * rb[4] + rot[0, 1] * rb[7] + rot[0, 2] * rb[10],
          rot[1, 0] * rb[4] + rot[1, 1] * rb[7] + rot[1, 2] * rb[10],
          rot[2, 0] * rb[4] + rot[2, 1] * rb[7] + rot[2, 2] * rb[10])  # fmt: skip
    return cb, ub, vb


@njit(cache=True, nogil=True)
def _own(ra):
    """A's centre and first two axes, as 3-tuples."""
    return (ra[0], ra[1], ra[2]), (ra[3], ra[6], ra[9]), (ra[4], ra[7], ra[10])


@njit(cache=True, nogil=True)
def _core_gap(ra, rb, rot, trans):
    """Distance of the two cores minus the two radii (negative when they overlap)."""
    cb, ub, vb = _posed(rb, rot, trans)
    ca, ua, va = _own(ra)
    d = rect_rect_distance(ca, ua, va, ra[12], ra[13], cb, ub, vb, rb[12], rb[13])
    return d - ra[14] - rb[14]


@njit(cache=True, nogil=True)
def _clamp_to_rect(p, c, u, v, h0, h1):
    """The point of the rectangle ``c + s u + t v`` (``|s| <= h0``, ``|t| <= h1``) nearest to
    ``p``; 3-tuples in and out (no allocation)."""
    d0, d1, d2 = p[0] - c[0], p[1] - c[1], p[2] - c[2]
    s = min(max(d0 * u[0] + d1 * u[1] + d2 * u[2], -h0), h0)
    t = min(max(d0 * v[0] + d1 * v[1] + d2 * v[2], -h1), h1)
    return (c[0] + s * u[0] + t * v[0], c[1] + s * u[1] + t * v[1], c[2] + s * u[2] + t * v[2])


@njit(cache=True, nogil=True)
def _witness_gap(ra, rb, rot, trans):
    """An upper bound of the core gap: the distance between a pair of actual core points minus
    the radii, the pair found by three rounds of alternating projection between the two
    rectangles (which converges to the closest pair of two convex sets). When it is already
    within the margin the volumes overlap and the exact distance (about 1 us) is not needed.
    LSS rows have ``h1 = 0``: their rectangles are segments."""
    ca, ua, va = _own(ra)
    cb, ub, vb = _posed(rb, rot, trans)
    q = cb
    p = ca
    for _ in range(3):
        p = _clamp_to_rect(q, ca, ua, va, ra[12], ra[13])
        q = _clamp_to_rect(p, cb, ub, vb, rb[12], rb[13])
    d0, d1, d2 = p[0] - q[0], p[1] - q[1], p[2] - q[2]
    return np.sqrt(d0 * d0 + d1 * d1 + d2 * d2) - ra[14] - rb[14]


@njit(cache=True, nogil=True)
def _centres_far(ra, rb, rot, trans, margin):
    """Quick reject by the bounding spheres of both volumes."""
    cb, _, _ = _posed(rb, rot, trans)
    d = sub3(cb, ra)
    reach_a = np.sqrt(ra[12] * ra[12] + ra[13] * ra[13]) + ra[14]
    reach_b = np.sqrt(rb[12] * rb[12] + rb[13] * rb[13]) + rb[14]
    return np.sqrt(dot3(d, d)) > reach_a + reach_b + margin


@njit(cache=True, nogil=True)
def box_separates(va, a, vb, b, rot, trans, margin):
    """Whether the boxes enclosing two swept-sphere rows are separated (15-axis test).

    A swept sphere lies in the box of half-lengths ``(h0 + r, h1 + r, r)`` on its own axes
    (an LSS has ``h1 = 0``). The box test costs about 25 ns against about 1 us for the exact
    rectangle distance, and settles most culled pairs (PQP orders its tests the same way).
    """
    ra_r = va[a, 14] + margin
    rb_r = vb[b, 14]
    rel = obb.relative_frame(va, a, vb, b, rot, trans)
    return obb.sat15(rel, va[a, 12] + ra_r, va[a, 13] + ra_r, ra_r,
                     vb[b, 12] + rb_r, vb[b, 13] + rb_r, rb_r) >= 0  # fmt: skip


@njit(cache=True, nogil=True)
def overlap_rss(ra, rb, rot, trans, margin):
    """-1 if the volumes overlap; 1 if their enclosing boxes are separated, 0 if only the
    exact core distance separates them (rectangle-rectangle distance > ra + rb)."""
    if box_separates(ra.reshape(1, WIDTH), 0, rb.reshape(1, WIDTH), 0, rot, trans, margin):
        return 1
    if _witness_gap(ra, rb, rot, trans) <= margin:
        return -1
    if _core_gap(ra, rb, rot, trans) > margin:
        return 0
    return -1


@njit(cache=True, nogil=True)
def _seg_gap(ra, rb, rot, trans):
    cb, ub, _ = _posed(rb, rot, trans)
    ca, ua, _ = _own(ra)
    d2, _, _ = closest_seg_seg(axpy3(ca, -ra[12], ua), axpy3(ca, ra[12], ua),
                               axpy3(cb, -rb[12], ub), axpy3(cb, rb[12], ub))  # fmt: skip
    return np.sqrt(d2) - ra[14] - rb[14]


@njit(cache=True, nogil=True)
def overlap_lss(ra, rb, rot, trans, margin):
    """-1 if the capsules overlap; 1 culled by their enclosing boxes, 0 by segment distance."""
    # The same three stages as overlap_rss with the capsules' segment distance as the exact
    # stage: a shared kernel would take the stage as a flag tested per pair in the traversal.
    if box_separates(ra.reshape(1, WIDTH), 0, rb.reshape(1, WIDTH), 0, rot, trans, margin):
        return 1
    if _witness_gap(ra, rb, rot, trans) <= margin:
        return -1
    if _seg_gap(ra, rb, rot, trans) > margin:
        return 0
    return -1


@njit(cache=True, nogil=True)
def overlap_pss(ra, rb, rot, trans, margin):
    """-1 if the spheres overlap, else 0."""
    if _centres_far(ra, rb, rot, trans, margin):
        return 0
    return -1


@njit(cache=True, nogil=True)
def lower_bound_rss(ra, rb, rot, trans):
    """Distance between two RSS (0 if they overlap): PQP's bound."""
    return max(0.0, _core_gap(ra, rb, rot, trans))


@njit(cache=True, nogil=True)
def lower_bound_lss(ra, rb, rot, trans):
    return max(0.0, _seg_gap(ra, rb, rot, trans))


@njit(cache=True, nogil=True)
def lower_bound_pss(ra, rb, rot, trans):
    cb, _, _ = _posed(rb, rot, trans)
    d = sub3(cb, ra)
    return max(0.0, np.sqrt(dot3(d, d)) - ra[14] - rb[14])


@njit(cache=True, nogil=True)
def volume(row):
    """Volume of the swept sphere (Steiner: ``2 r A + pi r^2 P / 2 + 4/3 pi r^3`` for a
    rectangle of area A and perimeter P)."""
    a = 2.0 * row[12]
    b = 2.0 * row[13]
    r = row[14]
    return 2.0 * r * a * b + np.pi * r * r * (a + b) + 4.0 / 3.0 * np.pi * r**3


POLYLINES_PER_VOLUME = 4
"""Closed polylines drawn per swept sphere: the core (rectangle, segment or point) and its
outline offset by the radius in the three planes of the volume's axes (a rounded rectangle,
two stadiums; for a PSS three circles, a sphere)."""


def _rounded(center, u, v, hu, hv, radius) -> np.ndarray:
    """Outline of a rectangle (half sides ``hu, hv`` along unit ``u, v``) offset by ``radius``:
    ``(j, 4 * (CIRCLE_SEGMENTS // 4 + 1), 3)`` points, corner arcs joined by straight sides."""
    n_arc = CIRCLE_SEGMENTS // 4 + 1
    quarter = np.linspace(0.0, 0.5 * np.pi, n_arc)
    loops = []
    for k, (su, sv) in enumerate(((1, 1), (-1, 1), (-1, -1), (1, -1))):
        angle = quarter + k * 0.5 * np.pi
        corner = center + su * hu[:, None] * u + sv * hv[:, None] * v  # (j, 3)
        arc = (np.cos(angle)[None, :, None] * u[:, None, :]
               + np.sin(angle)[None, :, None] * v[:, None, :])  # fmt: skip
        loops.append(corner[:, None, :] + radius[:, None, None] * arc)
    return np.concatenate(loops, axis=1)


def _outlines(corners, radii, centers, axes):
    """Core loop plus three offset outlines per swept sphere: points, sizes and ids of
    ``4 j`` closed polylines."""
    j = corners.shape[0]
    if j == 0:
        return np.empty((0, 3)), np.empty(0, np.int64), np.empty(0, np.int64)
    a0, a1, a2 = axes[:, :, 0], axes[:, :, 1], axes[:, :, 2]
    h0 = 0.5 * np.linalg.norm(corners[:, 0] - corners[:, 3], axis=1)
    h1 = 0.5 * np.linalg.norm(corners[:, 0] - corners[:, 1], axis=1)
    zero = np.zeros(j)
    outlines = [
        _rounded(centers, a0, a1, h0, h1, radii),  # the rounded rectangle, in its own plane
        _rounded(centers, a0, a2, h0, zero, radii),  # section across the rectangle
        _rounded(centers, a1, a2, h1, zero, radii),
    ]
    q = outlines[0].shape[1]
    # The core (4 corners) padded to the outline's point count so all loops share one shape.
    core = np.repeat(corners, q // 4, axis=1)
    core = np.concatenate([core, np.repeat(corners[:, -1:], q - core.shape[1], axis=1)], axis=1)
    loops = np.stack([core] + outlines, axis=1)  # (j, 4, q, 3)
    return closed_loops(loops.reshape(-1, q, 3))


def wire(rows: np.ndarray) -> dict:
    """Drawable records of swept spheres (:mod:`core.bv._wire`): per volume the core loop and
    three outlines offset by the radius (:data:`POLYLINES_PER_VOLUME` closed polylines).

    Returns
    -------
    dict
        The common ``points``, ``line_sizes``, ``line_ids``, and ``{"kind": "swept",
        "corners": (j, 4, 3), "radii": (j,), "centers": (j, 3), "axes": (j, 3, 3)}`` float64:
        the core rectangle's corners (repeated points for LSS and PSS cores) and the sweeping
        radius.
    """
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, WIDTH)
    axes = rows[:, 3:12].reshape(-1, 3, 3)
    signs = np.array([[1, 1], [1, -1], [-1, -1], [-1, 1]], dtype=np.float64)
    u = axes[:, :, 0] * rows[:, 12:13]
    v = axes[:, :, 1] * rows[:, 13:14]
    corners = (rows[:, None, 0:3] + signs[None, :, 0:1] * u[:, None]
               + signs[None, :, 1:2] * v[:, None])  # fmt: skip
    radii, centers, axes = rows[:, 14].copy(), rows[:, 0:3].copy(), axes.copy()
    return lines_record(*_outlines(corners, radii, centers, axes), kind="swept",
                        corners=corners, radii=radii, centers=centers, axes=axes)


def separating_test_pss(sep_id: int) -> str:
    """The test that culled a pair of PSS, in words (:func:`overlap_pss`: the centre line)."""
    return "centre distance"


def _core_test_text(core: str, sep_id: int) -> str:
    if sep_id == 1:
        return "centre distance (bounding spheres)"
    return f"{core} distance (cores farther apart than the radii)"


def separating_test_lss(sep_id: int) -> str:
    """The test that culled a pair of LSS, in words (ids of :func:`overlap_lss`)."""
    return _core_test_text("segment", sep_id)


def separating_test_rss(sep_id: int) -> str:
    """The test that culled a pair of RSS, in words (ids of :func:`overlap_rss`)."""
    return _core_test_text("rectangle", sep_id)


def separation(row_a: np.ndarray, row_b: np.ndarray, rot: np.ndarray, trans: np.ndarray,
               sep_id: int):
    """The direction between the closest points of two culled swept spheres' cores, and each
    volume's extent along it (its core's projection grown by its radius), in A's frame.

    Whichever test culled the pair (the enclosing boxes, the bounding spheres or the exact
    core distance), the volumes are disjoint, so the cores are farther apart than the radii
    and this direction separates them (the plane through the closest points supports both
    convex cores). See :func:`core.bv.obb.box_separation` for the return values.
    """
    row_a = np.asarray(row_a, dtype=np.float64)
    row_b = np.asarray(row_b, dtype=np.float64)
    core_a = _core_frame(row_a, np.eye(3), np.zeros(3))
    core_b = _core_frame(row_b, rot, trans)
    p, q = closest_core_points(core_a, core_b)
    d = q - p
    length = float(np.linalg.norm(d))
    axis = d / length if length > 0.0 else core_b[0] - core_a[0]
    axis = axis / np.linalg.norm(axis)
    return (axis, _extent(core_a, row_a[14], axis), _extent(core_b, row_b[14], axis),
            0.5 * (p + q))


def _core_frame(row, rot, trans):
    """Centre, the two edge directions and half-lengths of a row's core, posed."""
    return (rot @ row[0:3] + trans, rot @ row[3:12].reshape(3, 3)[:, 0],
            rot @ row[3:12].reshape(3, 3)[:, 1], (float(row[12]), float(row[13])))


def _extent(core, radius, axis):
    centre, u, v, (h0, h1) = core
    mid = float(axis @ centre)
    reach = h0 * abs(float(axis @ u)) + h1 * abs(float(axis @ v)) + float(radius)
    return mid - reach, mid + reach


def closest_core_points(core_a, core_b):
    """Closest points of two cores (rectangles, segments or points).

    ``|P(s) - Q(t)|^2`` is a convex quadratic in the up to four core parameters over a box:
    its minimum is the stationary point of the face of the box it lies on, so every face
    (each parameter free, at its lower or at its upper bound: at most 81) is solved and the
    best feasible point kept. Exact up to round-off, also for parallel edges (the minimum
    then lies on a lower face as well).

    Returns
    -------
    p, q : (3,) float64
        On A's core and on B's core.
    """
    import itertools

    ca, ua, va, ha = core_a
    cb, ub, vb, hb = core_b
    # Columns of the parameters that can move: x = c_a + M_a s - c_b - M_b t = d + G z.
    cols, bounds = [], []
    for vec, h, sign in ((ua, ha[0], 1.0), (va, ha[1], 1.0), (ub, hb[0], -1.0),
                         (vb, hb[1], -1.0)):  # fmt: skip
        if h > 0.0:
            cols.append(sign * vec)
            bounds.append(h)
    d = ca - cb
    if not cols:
        return ca.copy(), cb.copy()
    g = np.stack(cols, axis=1)
    bounds = np.asarray(bounds)
    best, best_z = np.inf, np.zeros(len(cols))
    for state in itertools.product((0, -1, 1), repeat=len(cols)):
        state = np.asarray(state)
        z = state * bounds
        free = state == 0
        if free.any():
            gf = g[:, free]
            rhs = -(d + g[:, ~free] @ z[~free])
            z[free] = np.linalg.lstsq(gf, rhs, rcond=None)[0]
            if np.any(np.abs(z[free]) > bounds[free] * (1.0 + 1e-12)):
                continue
            z[free] = np.clip(z[free], -bounds[free], bounds[free])
        x = d + g @ z
        value = float(x @ x)
        if value < best:
            best, best_z = value, z
    k = 0
    p, q = ca.copy(), cb.copy()
    for vec, h, on_a in ((ua, ha[0], True), (va, ha[1], True), (ub, hb[0], False),
                         (vb, hb[1], False)):  # fmt: skip
        if h > 0.0:
            if on_a:
                p += best_z[k] * vec
            else:
                q += best_z[k] * vec
            k += 1
    return p, q


def distance_outside(row: np.ndarray, points: np.ndarray) -> np.ndarray:
    """How far each point is outside the swept sphere ``row (15,)`` (<= 0 inside), ``(p,)
    float64``: the distance to the core rectangle (a segment or point when its half-lengths
    are 0) minus the radius."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    local = (points - row[:3]) @ row[3:12].reshape(3, 3)
    clamped = local.copy()
    clamped[:, 0] = np.clip(local[:, 0], -row[12], row[12])
    clamped[:, 1] = np.clip(local[:, 1], -row[13], row[13])
    clamped[:, 2] = 0.0
    return np.linalg.norm(local - clamped, axis=1) - row[14]


def shape(rows: np.ndarray) -> SweptRectangles:
    """LSS and RSS rows ``(j, 15)`` as :class:`core.bv.shapes.SweptRectangles`."""
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, WIDTH)
    return SweptRectangles(rows[:, CENTRE], rows[:, AXES].reshape(-1, 3, 3), rows[:, HALF],
                           rows[:, RADIUS])


def shape_pss(rows: np.ndarray) -> Balls:
    """PSS rows ``(j, 15)`` (a core of one point) as :class:`core.bv.shapes.Balls`."""
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, WIDTH)
    return Balls(rows[:, CENTRE], rows[:, RADIUS])
