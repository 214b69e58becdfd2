"""Brute-force O(n m) contact oracle in numpy, for tests only.

It shares no code with :mod:`core.collide.tritri` and uses a different algorithm: two closed
triangles meet iff an edge of one meets the other triangle (the intersection of two convex sets
lying on the line where the planes meet is bounded by edge points of one of them; in the
coplanar case an edge crosses or one triangle holds the other's edges). So every pair runs six
segment-triangle tests, vectorised over chunks of pairs, after a bounding-box prefilter. Rare
cases (coplanar overlaps, two degenerate triangles) are classified in a plain Python loop.

The tolerance policy is the one documented in :mod:`core.collide.tritri`: ``eps`` is
``tri_rel`` times the longest edge of the pair; signed distances to a plane within ``eps`` count
as zero; in-plane, a point is in a triangle when its distance to each edge line is ``>= -eps``;
a triangle whose smallest height is ``<= eps`` is its longest edge; two such segments touch
when their distance is ``<= eps``; a coplanar overlap has positive area when
``area > eps * diameter``. On generic inputs both modules therefore find the same pairs.
"""

from __future__ import annotations

import numpy as np

from core.settings import DEFAULT_TOLERANCES, Tolerances

__all__ = ["brute_force_contacts", "brute_force_pairs"]

# Kind codes, equal to core.collide.tritri.ContactKind (not imported: the oracle stays independent).
DISJOINT, CROSSING, TOUCHING, COPLANAR = 0, 1, 2, 3


def _dot(a, b):
    return np.einsum("...i,...i->...", a, b)


def _norm(a):
    return np.sqrt(_dot(a, a))


def _edge_lengths(tris):
    """Edge lengths ``(k, 3) float64`` of triangles ``(k, 3, 3) float64``: (0,1), (1,2), (2,0)."""
    return _norm(np.roll(tris, -1, axis=1) - tris)


def _safe_div(num, den):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0.0, num / np.where(den != 0.0, den, 1.0), 0.0)


def _in_plane_dist(ti, tj, x, u):
    """Signed in-plane distance ``(k,) float64`` of points ``x`` to the lines ``ti -> tj``
    (all ``(k, 3) float64``), positive on the inside of a triangle wound about ``u``."""
    e = tj - ti
    return _safe_div(_dot(np.cross(e, x - ti), u), _norm(e))


def _segment_vs_triangle(a, b, tri, u, eps):
    """Closed segments ``[a, b]`` against closed triangles, with the tolerance policy.

    Parameters
    ----------
    a, b : (k, 3) float64
        Segment endpoints.
    tri : (k, 3, 3) float64
        Non-degenerate triangles.
    u : (k, 3) float64
        Their unit normals, ``(t1 - t0) x (t2 - t0)`` normalised.
    eps : (k,) float64
        Absolute tolerance of each pair.

    Returns
    -------
    is_hit : (k,) bool
        The segment meets the triangle.
    is_point_hit : (k,) bool
        Hit by a single point where the segment crosses or touches the plane (not lying in it).
    x : (k, 3) float64
        That point (meaningful where ``is_point_hit``).
    """
    t0, t1, t2 = tri[:, 0], tri[:, 1], tri[:, 2]
    da = _dot(u, a - t0)
    db = _dot(u, b - t0)
    is_a_on = np.abs(da) <= eps
    is_b_on = np.abs(db) <= eps
    in_plane = is_a_on & is_b_on
    one_side = ((da > eps) & (db > eps)) | ((da < -eps) & (db < -eps))
    t = np.where(is_a_on, 0.0, np.where(is_b_on, 1.0, _safe_div(da, da - db)))
    x = a + t[:, None] * (b - a)
    inside = np.ones(len(a), dtype=bool)
    lo = np.zeros(len(a))
    hi = np.ones(len(a))
    for ti, tj in ((t0, t1), (t1, t2), (t2, t0)):
        inside &= _in_plane_dist(ti, tj, x, u) >= -eps
        # In-plane segments: keep the parameters where fa + s (fb - fa) >= -eps.
        fa = _in_plane_dist(ti, tj, a, u)
        fb = _in_plane_dist(ti, tj, b, u)
        cut = _safe_div(-eps - fa, fb - fa)
        both_out = (fa < -eps) & (fb < -eps)
        lo = np.where(both_out, np.inf, np.where(fa < -eps, np.maximum(lo, cut), lo))
        hi = np.where(
            both_out, -np.inf, np.where((fa >= -eps) & (fb < -eps), np.minimum(hi, cut), hi)
        )
    is_point_hit = ~in_plane & ~one_side & inside
    is_hit = is_point_hit | (in_plane & (lo <= hi))
    return is_hit, is_point_hit, x


def _point_segment_distance(p, a, b):
    ab = b - a
    len2 = float(ab @ ab)
    s = 0.0 if len2 == 0.0 else min(max(float((p - a) @ ab) / len2, 0.0), 1.0)
    return float(np.linalg.norm(p - (a + s * ab)))


def _segment_distance(a, b, c, d):
    """Distance between segments ``[a, b]`` and ``[c, d]`` (``(3,) float64``, may be points):
    the nearest of the four endpoint-to-segment distances and, when the closest points of the
    two lines fall inside both segments, the line-to-line distance."""
    best = min(
        _point_segment_distance(a, c, d),
        _point_segment_distance(b, c, d),
        _point_segment_distance(c, a, b),
        _point_segment_distance(d, a, b),
    )
    d1, d2 = b - a, d - c
    n = np.cross(d1, d2)
    n2 = float(n @ n)
    if n2 > 0.0:
        r = c - a
        s = float(np.cross(r, d2) @ n) / n2
        t = float(np.cross(r, d1) @ n) / n2
        if 0.0 <= s <= 1.0 and 0.0 <= t <= 1.0:
            best = min(best, float(np.linalg.norm(a + s * d1 - (c + t * d2))))
    return best


def _cross2(a, b):
    return a[0] * b[1] - a[1] * b[0]


def _coplanar_kind(p, q, u, eps):
    """COPLANAR or TOUCHING for two touching coplanar triangles ``(3, 3) float64``.

    The overlap polygon's corners are the corners of each triangle inside the other and the
    crossings of their edges; its area is that of their convex hull (angle sort + shoelace),
    computed in an orthonormal frame of the plane of unit normal ``u``.
    """
    e1 = p[1] - p[0] - u * float((p[1] - p[0]) @ u)
    if float(e1 @ e1) == 0.0:
        e1 = p[2] - p[0] - u * float((p[2] - p[0]) @ u)
    e1 = e1 / np.linalg.norm(e1)
    frame = np.stack([e1, np.cross(u, e1)], axis=1)
    p2 = (p - p[0]) @ frame
    q2 = (q - p[0]) @ frame

    def inside(x, tri):
        sign = 1.0 if _cross2(tri[1] - tri[0], tri[2] - tri[0]) >= 0.0 else -1.0
        for i in range(3):
            e = tri[(i + 1) % 3] - tri[i]
            if sign * _cross2(e, x - tri[i]) / np.hypot(*e) < -eps:
                return False
        return True

    pts = [x for x in p2 if inside(x, q2)] + [x for x in q2 if inside(x, p2)]
    for i in range(3):
        a, b = p2[i], p2[(i + 1) % 3]
        for j in range(3):
            c, d = q2[j], q2[(j + 1) % 3]
            den = _cross2(b - a, d - c)
            if den != 0.0:
                x = a + _cross2(c - a, d - c) / den * (b - a)
                # Nearly parallel edges give a noisy crossing: keep it only if it truly lies on
                # both edges (collinear overlaps are already covered by the corner tests).
                if (
                    _point_segment_distance(x, a, b) <= eps
                    and _point_segment_distance(x, c, d) <= eps
                ):
                    pts.append(x)
    if len(pts) < 3:
        return TOUCHING
    pts = np.array(pts)
    centre = pts.mean(axis=0)
    order = np.argsort(np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0]))
    ring = pts[order] - centre  # shoelace about the centre: no cancellation on far-off points
    area = 0.5 * abs(
        np.sum(ring[:, 0] * np.roll(ring[:, 1], -1) - np.roll(ring[:, 0], -1) * ring[:, 1])
    )
    diam = np.max(np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=-1))
    return COPLANAR if area > eps * diam else TOUCHING


def _classify_pairs(tp, tq, tri_rel):
    """Contact kind of each pair of triangles.

    Parameters
    ----------
    tp, tq : (k, 3, 3) float64
        The two triangles of each pair.
    tri_rel : float
        Relative tolerance.

    Returns
    -------
    kinds : (k,) int8
    """
    k = len(tp)
    # Work relative to the first corner of each pair: nearby coordinates subtract exactly, so a
    # small pair far from the origin is decided as well as near it.
    origin = tp[:, :1].copy()
    tp = tp - origin
    tq = tq - origin
    edges_p = np.roll(tp, -1, axis=1) - tp  # (k, 3, 3): edges (0,1), (1,2), (2,0)
    edges_q = np.roll(tq, -1, axis=1) - tq
    sq_p = _dot(edges_p, edges_p)
    sq_q = _dot(edges_q, edges_q)
    # First maximum of the squared lengths: the same tie rule as tritri.
    longest_p = np.argmax(sq_p, axis=1)
    longest_q = np.argmax(sq_q, axis=1)
    lp = np.sqrt(sq_p.max(axis=1))
    lq = np.sqrt(sq_q.max(axis=1))
    eps = tri_rel * np.maximum(lp, lq)
    n_p = np.cross(tp[:, 1] - tp[:, 0], tp[:, 2] - tp[:, 0])
    n_q = np.cross(tq[:, 1] - tq[:, 0], tq[:, 2] - tq[:, 0])
    nn_p = _norm(n_p)
    nn_q = _norm(n_q)
    is_p_deg = nn_p <= eps * lp
    is_q_deg = nn_q <= eps * lq
    u_p = n_p / np.where(is_p_deg, 1.0, nn_p)[:, None]
    u_q = n_q / np.where(is_q_deg, 1.0, nn_q)[:, None]
    d_q = _dot(u_p[:, None, :], tq - tp[:, :1])  # (k, 3) corners of Q to P's plane
    d_p = _dot(u_q[:, None, :], tp - tq[:, :1])

    is_hit = np.zeros(k, dtype=bool)
    hit_points = np.zeros((k, 6, 3))
    is_point_hit = np.zeros((k, 6), dtype=bool)
    for side, (ts, lens_longest, is_s_deg, tt, u_t, is_t_deg) in enumerate(
        ((tp, longest_p, is_p_deg, tq, u_q, is_q_deg), (tq, longest_q, is_q_deg, tp, u_p, is_p_deg))
    ):
        for e in range(3):
            valid = ~is_t_deg & (~is_s_deg | (lens_longest == e))
            if not valid.any():
                continue
            ids = np.flatnonzero(valid)
            hit, point_hit, x = _segment_vs_triangle(
                ts[ids, e], ts[ids, (e + 1) % 3], tt[ids], u_t[ids], eps[ids]
            )
            is_hit[ids] |= hit
            is_point_hit[ids, 3 * side + e] = point_hit
            hit_points[ids, 3 * side + e] = x

    both_deg = np.flatnonzero(is_p_deg & is_q_deg)
    for i in both_deg:
        a, b = tp[i, longest_p[i]], tp[i, (longest_p[i] + 1) % 3]
        c, d = tq[i, longest_q[i]], tq[i, (longest_q[i] + 1) % 3]
        is_hit[i] = _segment_distance(a, b, c, d) <= eps[i]

    kinds = np.where(is_hit, TOUCHING, DISJOINT).astype(np.int8)
    is_nondeg = ~is_p_deg & ~is_q_deg
    e_col = eps[:, None]
    straddle = (
        ((d_p > e_col).any(1) & (d_p < -e_col).any(1))
        & ((d_q > e_col).any(1) & (d_q < -e_col).any(1))
        & is_nondeg
        & is_hit
    )
    if straddle.any():
        ids = np.flatnonzero(straddle)
        pts = hit_points[ids]
        ok = is_point_hit[ids]
        gaps = _norm(pts[:, :, None, :] - pts[:, None, :, :])
        gaps = np.where(ok[:, :, None] & ok[:, None, :], gaps, 0.0)
        kinds[ids[gaps.max(axis=(1, 2)) > eps[ids]]] = CROSSING
    coplanar = is_nondeg & is_hit & (np.abs(d_p) <= e_col).all(1) & (np.abs(d_q) <= e_col).all(1)
    for i in np.flatnonzero(coplanar):
        u = u_p[i] if nn_p[i] >= nn_q[i] else u_q[i]
        kinds[i] = _coplanar_kind(tp[i], tq[i], u, eps[i])
    return kinds


def _box_margins(tris, eps_max):
    """How far each triangle reaches once pushed out by the tolerance: ``(m,) float64``.

    Pushing the edge lines of a triangle out by ``eps`` scales it about its incentre by
    ``(r + eps) / r`` (``r`` the inradius), so its corners move by at most ``eps * R / r``
    with ``R`` the largest incentre-corner distance; degenerate triangles are segments and
    move by ``eps``. Twice that covers round-off.
    """
    lens = _edge_lengths(tris)  # opposite corners 2, 0, 1
    perimeter = lens.sum(axis=1)
    area2 = _norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]))
    weights = lens[:, [1, 2, 0]]  # edge opposite corner 0 is (1,2), etc.
    incentre = _safe_div(np.einsum("kc,kci->ki", weights, tris), perimeter[:, None])
    reach = _norm(tris - incentre[:, None, :]).max(axis=1)
    inradius = _safe_div(area2, perimeter)
    ratio = _safe_div(reach, inradius)
    return 2.0 * eps_max * (1.0 + ratio)


def _candidate_blocks(tris_a, tris_b, tri_rel, chunk_pairs):
    """Yield ``(ids_a, ids_b)`` int64 arrays of pairs whose inflated boxes overlap."""
    eps_max = tri_rel * max(_edge_lengths(tris_a).max(), _edge_lengths(tris_b).max())
    margin_a = _box_margins(tris_a, eps_max)[:, None]
    margin_b = _box_margins(tris_b, eps_max)[:, None]
    bmin_a = tris_a.min(axis=1) - margin_a
    bmax_a = tris_a.max(axis=1) + margin_a
    bmin_b = (tris_b.min(axis=1) - margin_b).T.copy()
    bmax_b = (tris_b.max(axis=1) + margin_b).T.copy()
    n_rows = max(1, chunk_pairs // len(tris_b))
    for start in range(0, len(tris_a), n_rows):
        rows = slice(start, start + n_rows)
        overlap = (bmin_a[rows, 0, None] <= bmax_b[0]) & (bmax_a[rows, 0, None] >= bmin_b[0])
        for axis in (1, 2):
            overlap &= bmin_a[rows, axis, None] <= bmax_b[axis]
            overlap &= bmax_a[rows, axis, None] >= bmin_b[axis]
        ids_a, ids_b = np.nonzero(overlap)
        yield ids_a.astype(np.int64) + start, ids_b.astype(np.int64)


def brute_force_contacts(
    va, fa, vb, fb, tol: Tolerances = DEFAULT_TOLERANCES, chunk_pairs: int = 4_000_000
) -> tuple[np.ndarray, np.ndarray]:
    """All contacting face pairs of two meshes and their kinds, by testing every pair.

    Parameters
    ----------
    va : (na, 3) float64
        Vertices of mesh A.
    fa : (ma, 3) int
        Faces of mesh A.
    vb : (nb, 3) float64
        Vertices of mesh B, in A's frame.
    fb : (mb, 3) int
        Faces of mesh B.
    tol : Tolerances
        ``tol.tri_rel`` is used.
    chunk_pairs : int
        Pairs box-tested per numpy block (memory about ``chunk_pairs`` bytes per temporary).

    Returns
    -------
    pairs : (c, 2) int64
        Face ids ``(a, b)``, sorted lexicographically.
    kinds : (c,) int8
        The oracle's own classification, with the codes of ``ContactKind``.
    """
    tris_a = np.asarray(va, dtype=np.float64)[np.asarray(fa)]
    tris_b = np.asarray(vb, dtype=np.float64)[np.asarray(fb)]
    all_pairs, all_kinds = [], []
    for ids_a, ids_b in _candidate_blocks(tris_a, tris_b, float(tol.tri_rel), chunk_pairs):
        if len(ids_a) == 0:
            continue
        kinds = _classify_pairs(tris_a[ids_a], tris_b[ids_b], float(tol.tri_rel))
        keep = kinds != DISJOINT
        all_pairs.append(np.stack([ids_a[keep], ids_b[keep]], axis=1))
        all_kinds.append(kinds[keep])
    if not all_pairs:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int8)
    pairs = np.concatenate(all_pairs)
    kinds = np.concatenate(all_kinds)
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    return pairs[order], kinds[order]


def brute_force_pairs(
    va, fa, vb, fb, tol: Tolerances = DEFAULT_TOLERANCES, chunk_pairs: int = 4_000_000
) -> np.ndarray:
    """All contacting face pairs ``(c, 2) int64``, sorted lexicographically (a, then b).

    See :func:`brute_force_contacts` for the parameters.
    """
    return brute_force_contacts(va, fa, vb, fb, tol, chunk_pairs)[0]
