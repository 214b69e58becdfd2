"""Bounding spheres (Hubbard 1996; Palmer and Grimsdale 1995), row ``(center 3, radius)``.

Fit: centre of the node's axis-aligned box, radius to the farthest vertex -- within a few
percent of Ritter's sphere on meshes and exact to compute in one pass after the box.
Refit: leaves from their triangles, parents as the smallest sphere enclosing the two child
spheres. That merge is loose (it may be larger than the fitted sphere of the union) but
O(1) per node; :func:`fit` is the tight, O(m log m) alternative.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.bv._wire import CIRCLE_SEGMENTS, circle_basis, closed_loops, lines_record
from core.bv.shapes import Balls

#: Row layout: center 3, radius 1.
WIDTH = 4
#: Columns of the row layout.
CENTRE, RADIUS = slice(0, 3), 3


@njit(cache=True, nogil=True)
def _fit_node(vertices, faces, prim_ids, s, n, out, node):
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    for p in range(s, s + n):
        t = prim_ids[p]
        for c in range(3):
            v = faces[t, c]
            for j in range(3):
                lo[j] = min(lo[j], vertices[v, j])
                hi[j] = max(hi[j], vertices[v, j])
    centre = 0.5 * (lo + hi)
    r2 = 0.0
    for p in range(s, s + n):
        t = prim_ids[p]
        for c in range(3):
            v = faces[t, c]
            d0 = vertices[v, 0] - centre[0]
            d1 = vertices[v, 1] - centre[1]
            d2 = vertices[v, 2] - centre[2]
            r2 = max(r2, d0 * d0 + d1 * d1 + d2 * d2)
    out[node, 0:3] = centre
    out[node, 3] = np.sqrt(r2)


@njit(cache=True, nogil=True)
def fit(vertices, faces, prim_ids, prim_start, n_prims, out):
    """Fit every node's sphere.

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32
    prim_ids : (m,) int32
    prim_start, n_prims : (k,) int32
    out : (k, 4) float64
    """
    for node in range(prim_start.shape[0]):
        _fit_node(vertices, faces, prim_ids, prim_start[node], n_prims[node], out, node)


@njit(cache=True, nogil=True)
def refit(vertices, faces, prim_ids, prim_start, n_prims, first, count, level_nodes, level_start,
          out):
    """Leaves from their triangles, parents by the loose two-sphere merge (see module)."""
    for d in range(level_start.shape[0] - 2, -1, -1):
        for j in range(level_start[d], level_start[d + 1]):
            node = level_nodes[j]
            if count[node] > 0:
                _fit_node(vertices, faces, prim_ids, prim_start[node], n_prims[node], out, node)
                continue
            a = first[node]
            b = a + 1
            d0 = out[b, 0] - out[a, 0]
            d1 = out[b, 1] - out[a, 1]
            d2 = out[b, 2] - out[a, 2]
            dist = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
            ra = out[a, 3]
            rb = out[b, 3]
            if dist + rb <= ra:
                out[node, :] = out[a, :]
            elif dist + ra <= rb:
                out[node, :] = out[b, :]
            else:
                r = 0.5 * (dist + ra + rb)
                w = (r - ra) / dist
                out[node, 0] = out[a, 0] + w * d0
                out[node, 1] = out[a, 1] + w * d1
                out[node, 2] = out[a, 2] + w * d2
                # The centre moved by round-off; never let the merged sphere shrink below
                # either child.
                out[node, 3] = r * (1.0 + 4.0 * np.finfo(np.float64).eps)


@njit(cache=True, nogil=True)
def _centre_distance(ra, rb, rot, trans):
    d0 = rot[0, 0] * rb[0] + rot[0, 1] * rb[1] + rot[0, 2] * rb[2] + trans[0] - ra[0]
    d1 = rot[1, 0] * rb[0] + rot[1, 1] * rb[1] + rot[1, 2] * rb[2] + trans[1] - ra[1]
    d2 = rot[2, 0] * rb[0] + rot[2, 1] * rb[1] + rot[2, 2] * rb[2] + trans[2] - ra[2]
    return np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)


@njit(cache=True, nogil=True)
def overlap(ra, rb, rot, trans, margin):
    """-1 if the spheres (A's grown by ``margin``) overlap, else 0 (the centre line)."""
    if _centre_distance(ra, rb, rot, trans) > ra[3] + rb[3] + margin:
        return 0
    return -1


@njit(cache=True, nogil=True)
def lower_bound(ra, rb, rot, trans):
    """Distance between the two spheres (0 if they overlap)."""
    return max(0.0, _centre_distance(ra, rb, rot, trans) - ra[3] - rb[3])


@njit(cache=True, nogil=True)
def volume(row):
    return 4.0 / 3.0 * np.pi * row[3] ** 3


POLYLINES_PER_VOLUME = 3
"""Closed polylines drawn per sphere: its great circles in the xy, yz and zx planes."""


def circles(centers: np.ndarray, radii: np.ndarray):
    """Three great circles (xy, yz, zx planes) per sphere: points, sizes and ids of ``3 j``
    closed polylines (:func:`core.bv._wire.closed_loops`)."""
    cos, sin = circle_basis()
    eye = np.eye(3)
    loops = []
    for u, v in ((0, 1), (1, 2), (2, 0)):
        ring = cos[:, None] * eye[u] + sin[:, None] * eye[v]  # (s, 3)
        loops.append(centers[:, None, :] + radii[:, None, None] * ring[None])
    return closed_loops(np.stack(loops, axis=1).reshape(-1, CIRCLE_SEGMENTS, 3))


def wire(rows: np.ndarray) -> dict:
    """Drawable records (:mod:`core.bv._wire`): three great circles per sphere, plus
    ``"kind": "sphere"``, ``"centers": (j, 3)`` and ``"radii": (j,)`` float64."""
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, WIDTH)
    centers, radii = rows[:, :3].copy(), rows[:, 3].copy()
    return lines_record(*circles(centers, radii), kind="sphere", centers=centers, radii=radii)


def separating_test(sep_id: int) -> str:
    """The test that culled a pair, in words (:func:`overlap` has one: the centre line)."""
    return "centre distance"


def distance_outside(row: np.ndarray, points: np.ndarray) -> np.ndarray:
    """How far each point is outside the sphere ``row (4,)`` (<= 0 inside), ``(p,) float64``."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    return np.linalg.norm(points - row[:3], axis=1) - row[3]


def separation(row_a: np.ndarray, row_b: np.ndarray, rot: np.ndarray, trans: np.ndarray,
               sep_id: int):
    """The centre line of two culled spheres, their intervals on it and its midpoint, in A's
    frame (see :func:`core.bv.obb.box_separation` for the return values)."""
    return centre_line_separation(row_a[:3], row_a[3], rot @ row_b[:3] + trans, row_b[3])


def centre_line_separation(centre_a, radius_a, centre_b, radius_b):
    """Axis from A's centre to B's (B's centre already in A's frame), the two spheres'
    intervals ``n.c -+ r`` on it and the midpoint of the centres."""
    centre_a = np.asarray(centre_a, dtype=np.float64)
    centre_b = np.asarray(centre_b, dtype=np.float64)
    d = centre_b - centre_a
    length = float(np.linalg.norm(d))
    axis = d / length if length > 0.0 else np.array([1.0, 0.0, 0.0])
    mid_a, mid_b = float(axis @ centre_a), float(axis @ centre_b)
    return (axis, (mid_a - float(radius_a), mid_a + float(radius_a)),
            (mid_b - float(radius_b), mid_b + float(radius_b)), 0.5 * (centre_a + centre_b))


def shape(rows: np.ndarray) -> Balls:
    """The rows ``(j, 4)`` as :class:`core.bv.shapes.Balls`."""
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, WIDTH)
    return Balls(rows[:, CENTRE], rows[:, RADIUS])
