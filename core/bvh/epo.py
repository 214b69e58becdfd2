"""The kernel of the effective primitive overlap (EPO; Aila, Karras and Laine 2013, "On quality
metrics of bounding volume hierarchies", eq. 3): for every node ``n``, the area of the
triangles *not* under ``n`` that lies inside ``n``'s bounding volume, ``A((S \\ S_n) ∩ n)``.

A query that reaches ``n`` pays for the foreign surface inside it: the paper found EPO to
predict ray-tracing cost better than SAH, which counts only a node's own triangles.

Candidate triangles come from the tree itself: a depth-first walk over boxes fitted afresh
to the current vertices (so a tree whose stored boxes are stale or broken still finds every
triangle) that skips the subtree of ``n`` (its triangles are ``n``'s own: their run in
``prim_ids`` lies inside ``n``'s) and every node whose box misses ``n``'s volume's box.
Each candidate is then clipped exactly:

* convex polytopes (AABB, OBB, k-DOP): Sutherland-Hodgman against the half-spaces
  (:func:`core.bvh.polytope.clipped_triangle_area`);
* balls (sphere, PSS): the ball cuts the triangle's plane in a disc, and the area of a disc
  inside a triangle is a sum over the triangle's edges of circular sectors and triangles
  (the signed-area decomposition of a polygon about the disc's centre).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from core.bvh.polytope import clipped_triangle_area


@njit(cache=True, nogil=True)
def _sector_signed_area(px, py, qx, qy, r):
    """Signed area of the disc of radius ``r`` about the origin inside the triangle
    ``(0, p, q)`` (positive when ``p, q`` turn counter-clockwise)."""
    r2 = 0.5 * r * r
    dx, dy = qx - px, qy - py
    dd = dx * dx + dy * dy
    if dd == 0.0:
        return 0.0
    # Where the line p + s d meets the circle: s^2 + 2 a s + b = 0.
    a = (dx * px + dy * py) / dd
    b = (px * px + py * py - r * r) / dd
    det = a * a - b
    whole = np.arctan2(px * qy - py * qx, px * qx + py * qy) * r2
    if det <= 0.0:
        return whole  # the edge's line misses the disc: a sector
    root = np.sqrt(det)
    s = max(0.0, -a - root)
    t = min(1.0, -a + root)
    if t < 0.0 or s >= 1.0:
        return whole
    ux, uy = px + s * dx, py + s * dy
    vx, vy = px + t * dx, py + t * dy
    return (np.arctan2(px * uy - py * ux, px * ux + py * uy) * r2
            + 0.5 * (ux * vy - uy * vx)
            + np.arctan2(vx * qy - vy * qx, vx * qx + vy * qy) * r2)  # fmt: skip


@njit(cache=True, nogil=True)
def triangle_ball_area(a, b, c, cx, cy, cz, r):
    """Area of triangle ``abc`` inside the ball of centre ``c`` and radius ``r``, ``float``.

    Parameters
    ----------
    a, b, c : 3-tuples of float
    cx, cy, cz, r : float
    """
    e1x, e1y, e1z = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    e2x, e2y, e2z = c[0] - a[0], c[1] - a[1], c[2] - a[2]
    nx, ny, nz = e1y * e2z - e1z * e2y, e1z * e2x - e1x * e2z, e1x * e2y - e1y * e2x
    length = np.sqrt(nx * nx + ny * ny + nz * nz)
    e1_length = np.sqrt(e1x * e1x + e1y * e1y + e1z * e1z)
    if length == 0.0 or e1_length == 0.0:
        return 0.0
    nx, ny, nz = nx / length, ny / length, nz / length
    h = nx * (cx - a[0]) + ny * (cy - a[1]) + nz * (cz - a[2])
    if abs(h) >= r:
        return 0.0
    rho = np.sqrt(r * r - h * h)
    # The disc's centre (the ball's centre projected on the plane) and a basis of the plane.
    ox, oy, oz = cx - h * nx, cy - h * ny, cz - h * nz
    ux, uy, uz = e1x / e1_length, e1y / e1_length, e1z / e1_length
    vx, vy, vz = ny * uz - nz * uy, nz * ux - nx * uz, nx * uy - ny * ux
    xs = np.empty(3)
    ys = np.empty(3)
    for k in range(3):
        p = a if k == 0 else (b if k == 1 else c)
        wx, wy, wz = p[0] - ox, p[1] - oy, p[2] - oz
        xs[k] = wx * ux + wy * uy + wz * uz
        ys[k] = wx * vx + wy * vy + wz * vz
    total = 0.0
    for k in range(3):
        j = (k + 1) % 3
        total += _sector_signed_area(xs[k], ys[k], xs[j], ys[j], rho)
    return abs(total)


@njit(cache=True, nogil=True)
def _corner(vertices, v):
    return (vertices[v, 0], vertices[v, 1], vertices[v, 2])


@njit(cache=True, nogil=True, parallel=True)
def foreign_areas(vertices, faces, prim_ids, prim_start, n_prims, first, count, max_depth,
                  search_box, query_box, normals, offsets, balls, nodes, work):
    """For some nodes, the area of the triangles not under it inside its volume.

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32
    prim_ids : (m,) int32
    prim_start, n_prims, first, count : (k,) int32
        The tree (:class:`core.bvh.Tree`).
    max_depth : int
        Deepest node (bounds the walk's stack).
    search_box : (k, 6) float64
        ``bmin, bmax`` of every node fitted to ``vertices`` (the walk's boxes).
    query_box : (k, 6) float64
        A box around each node's volume (candidates must touch it).
    normals : (k, P, 3) or (1, P, 3) float64
        Polytope volumes: unit outward normals per node or shared; ``P = 0`` for balls.
    offsets : (k, P) float64
        ``n . x <= offset``.
    balls : (k, 4) or (0, 4) float64
        Ball volumes: centre and radius per node; empty for polytopes.
    nodes : (c,) int32
        The nodes measured (the caller walks the tree in chunks, to keep to a budget and
        report progress between them).
    work : (c,) int64
        Written: per node, the boxes and triangles its walk looked at. A good tree's walk
        meets only the triangles near the node; a tree whose boxes span the mesh meets every
        one, O(k m) in all.

    Returns
    -------
    (c,) float64
        ``A((S \\ S_n) ∩ n)`` of each node of ``nodes``; 0 for the root (every triangle is
        its own).
    """
    out = np.zeros(nodes.shape[0])
    n_planes = offsets.shape[1]
    is_ball = balls.shape[0] > 0
    shared = normals.shape[0] == 1
    m = prim_ids.shape[0]
    for i in prange(nodes.shape[0]):
        node = nodes[i]
        s0 = prim_start[node]
        s1 = s0 + n_prims[node]
        if s0 == 0 and s1 == m:
            continue
        n_work = 0
        nrm = normals[0] if shared else normals[node]
        buf_a = np.empty((n_planes + 4, 3))
        buf_b = np.empty((n_planes + 4, 3))
        stack = np.empty(2 * max_depth + 4, dtype=np.int32)
        stack[0] = 0
        top = 1
        total = 0.0
        q = query_box[node]
        while top > 0:
            top -= 1
            j = stack[top]
            n_work += 1
            js = prim_start[j]
            if s0 <= js and js + n_prims[j] <= s1:
                continue  # j is node or below it: its triangles are node's own
            b = search_box[j]
            if (b[0] > q[3] or b[3] < q[0] or b[1] > q[4] or b[4] < q[1] or b[2] > q[5]
                    or b[5] < q[2]):  # fmt: skip
                continue
            if count[j] == 0:
                stack[top] = first[j]
                stack[top + 1] = first[j] + 1
                top += 2
                continue
            n_work += count[j]
            for p in range(first[j], first[j] + count[j]):
                t = prim_ids[p]
                a = _corner(vertices, faces[t, 0])
                bb = _corner(vertices, faces[t, 1])
                c = _corner(vertices, faces[t, 2])
                if (max(a[0], bb[0], c[0]) < q[0] or min(a[0], bb[0], c[0]) > q[3]
                        or max(a[1], bb[1], c[1]) < q[1] or min(a[1], bb[1], c[1]) > q[4]
                        or max(a[2], bb[2], c[2]) < q[2] or min(a[2], bb[2], c[2]) > q[5]):
                    continue  # fmt: skip
                if is_ball:
                    total += triangle_ball_area(a, bb, c, balls[node, 0], balls[node, 1],
                                                balls[node, 2], balls[node, 3])  # fmt: skip
                else:
                    total += clipped_triangle_area(a, bb, c, nrm, offsets[node], buf_a, buf_b)
        out[i] = total
        work[i] = n_work
    return out
