"""Discrete orientation polytopes, k-DOPs (Klosowski et al. 1998), for k = 6, 14, 18, 26.

Row layout (k): ``dmin`` (k/2) then ``dmax`` (k/2): the node's vertices projected on k/2 fixed
unit directions. The direction tables are the lecture notes' (and Klosowski's):

* 6: the three axes;
* 14: axes + the 4 corner diagonals (1, +-1, +-1);
* 18: axes + the 6 edge diagonals (1, +-1, 0), (1, 0, +-1), (0, 1, +-1);
* 26: all three groups.

Fit and refit are exact: a k-DOP of two k-DOPs is the slab-wise union.

Rotated B: B's slabs are fixed in B's frame, so they are not k-DOP slabs in A's frame. The
conservative update chosen here is *both boxes through each other's axis slabs*: the first
three slabs of a k-DOP are its axis-aligned box, so B's box is carried into A's frame as an
oriented box and projected on A's k/2 directions (interval ``n.c +- sum |n.b_j| h_j``), then
A's box is carried into B's frame and projected on B's directions. Every test is a true
separating axis of the two polytopes' bounding boxes, so nothing is missed; it costs
k/2 + k/2 interval tests and no re-fitting of B (Klosowski's "hill climbing" re-bound needs
the polytope's vertices per node). Without rotation the test is exact: B's slabs shift by
``n . t``.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from numba import njit

from core.bv._geom import is_identity_rotation
from core.bv._wire import lines_record, polygon_loops
from core.bv.shapes import Slabs

_AXES = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
_CORNERS = [(1.0, 1.0, 1.0), (1.0, 1.0, -1.0), (1.0, -1.0, 1.0), (-1.0, 1.0, 1.0)]
_EDGES = [(1.0, 1.0, 0.0), (1.0, 0.0, 1.0), (0.0, 1.0, 1.0),
          (1.0, -1.0, 0.0), (1.0, 0.0, -1.0), (0.0, 1.0, -1.0)]  # fmt: skip


def _table(groups) -> np.ndarray:
    d = np.array([v for g in groups for v in g], dtype=np.float64)
    return d / np.linalg.norm(d, axis=1, keepdims=True)


#: ``(k/2, 3) float64`` unit directions of each k-DOP.
DIRS6 = _table([_AXES])
DIRS14 = _table([_AXES, _CORNERS])
DIRS18 = _table([_AXES, _EDGES])
DIRS26 = _table([_AXES, _CORNERS, _EDGES])
DIRECTIONS = {6: DIRS6, 14: DIRS14, 18: DIRS18, 26: DIRS26}


@njit(cache=True, nogil=True)
def _fit_node(vertices, faces, prim_ids, s, n, out, node, dirs):
    nd = dirs.shape[0]
    for i in range(nd):
        out[node, i] = np.inf
        out[node, nd + i] = -np.inf
    for p in range(s, s + n):
        t = prim_ids[p]
        for c in range(3):
            v = faces[t, c]
            x, y, z = vertices[v, 0], vertices[v, 1], vertices[v, 2]
            for i in range(nd):
                proj = dirs[i, 0] * x + dirs[i, 1] * y + dirs[i, 2] * z
                out[node, i] = min(out[node, i], proj)
                out[node, nd + i] = max(out[node, nd + i], proj)


@njit(cache=True, nogil=True)
def fit_dirs(vertices, faces, prim_ids, prim_start, n_prims, out, dirs):
    """Fit every node's k-DOP along ``dirs``.

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32
    prim_ids : (m,) int32
    prim_start, n_prims : (k,) int32
    out : (k, 2 * nd) float64
    dirs : (nd, 3) float64
    """
    for node in range(prim_start.shape[0]):
        _fit_node(vertices, faces, prim_ids, prim_start[node], n_prims[node], out, node, dirs)


@njit(cache=True, nogil=True)
def refit_dirs(vertices, faces, prim_ids, prim_start, n_prims, first, count, level_nodes,
               level_start, out, dirs):
    """Exact bottom-up refit: leaves from triangles, parents as the slab-wise union."""
    nd = dirs.shape[0]
    for d in range(level_start.shape[0] - 2, -1, -1):
        for j in range(level_start[d], level_start[d + 1]):
            node = level_nodes[j]
            if count[node] > 0:
                _fit_node(vertices, faces, prim_ids, prim_start[node], n_prims[node], out, node,
                          dirs)  # fmt: skip
            else:
                c = first[node]
                for i in range(nd):
                    out[node, i] = min(out[c, i], out[c + 1, i])
                    out[node, nd + i] = max(out[c, nd + i], out[c + 1, nd + i])


@njit(cache=True, nogil=True)
def _box_on_dirs(row_box, row_dirs, rot, trans, margin, dirs, id_offset, is_transposed):
    """Project the axis box of ``row_box`` (posed by ``rot, trans``, or by their inverse
    ``rot^T, -rot^T trans`` when ``is_transposed``) on the slabs of ``row_dirs``; return the
    first separating slab id or -1.

    Scalars only: the small arrays this allocated (centre, half sizes, the posed centre,
    the transposed rotation) made a rotated 6-DOP test 10 to 19 times an AABB test in the
    cost-model experiment; AABB's SAT lite went the same way (``core.bv.aabb.overlap``)."""
    nd = dirs.shape[0]
    c0 = 0.5 * (row_box[0] + row_box[nd])
    c1 = 0.5 * (row_box[1] + row_box[nd + 1])
    c2 = 0.5 * (row_box[2] + row_box[nd + 2])
    h0 = 0.5 * (row_box[nd] - row_box[0])
    h1 = 0.5 * (row_box[nd + 1] - row_box[1])
    h2 = 0.5 * (row_box[nd + 2] - row_box[2])
    if is_transposed:
        # x_B = rot^T (x_A - trans)
        d0, d1, d2 = c0 - trans[0], c1 - trans[1], c2 - trans[2]
        w0 = rot[0, 0] * d0 + rot[1, 0] * d1 + rot[2, 0] * d2
        w1 = rot[0, 1] * d0 + rot[1, 1] * d1 + rot[2, 1] * d2
        w2 = rot[0, 2] * d0 + rot[1, 2] * d1 + rot[2, 2] * d2
    else:
        w0 = rot[0, 0] * c0 + rot[0, 1] * c1 + rot[0, 2] * c2 + trans[0]
        w1 = rot[1, 0] * c0 + rot[1, 1] * c1 + rot[1, 2] * c2 + trans[1]
        w2 = rot[2, 0] * c0 + rot[2, 1] * c1 + rot[2, 2] * c2 + trans[2]
    for i in range(nd):
        n0, n1, n2 = dirs[i, 0], dirs[i, 1], dirs[i, 2]
        mid = n0 * w0 + n1 * w1 + n2 * w2
        if is_transposed:  # column j of rot^T is row j of rot
            r0 = abs(n0 * rot[0, 0] + n1 * rot[0, 1] + n2 * rot[0, 2])
            r1 = abs(n0 * rot[1, 0] + n1 * rot[1, 1] + n2 * rot[1, 2])
            r2 = abs(n0 * rot[2, 0] + n1 * rot[2, 1] + n2 * rot[2, 2])
        else:
            r0 = abs(n0 * rot[0, 0] + n1 * rot[1, 0] + n2 * rot[2, 0])
            r1 = abs(n0 * rot[0, 1] + n1 * rot[1, 1] + n2 * rot[2, 1])
            r2 = abs(n0 * rot[0, 2] + n1 * rot[1, 2] + n2 * rot[2, 2])
        rad = r0 * h0 + r1 * h1 + r2 * h2
        if mid - rad > row_dirs[nd + i] + margin or mid + rad < row_dirs[i] - margin:
            return id_offset + i
    return -1


@njit(cache=True, nogil=True)
def overlap_dirs(ra, rb, rot, trans, margin, dirs):
    """k-DOP overlap; see the module docstring for the rotated case.

    Returns
    -------
    int
        -1, or the separating slab: ``i`` for A's direction ``i``, ``k/2 + i`` for B's.
    """
    nd = dirs.shape[0]
    if is_identity_rotation(rot):
        for i in range(nd):
            shift = dirs[i, 0] * trans[0] + dirs[i, 1] * trans[1] + dirs[i, 2] * trans[2]
            if rb[i] + shift > ra[nd + i] + margin or rb[nd + i] + shift < ra[i] - margin:
                return i
        return -1
    sep = _box_on_dirs(rb, ra, rot, trans, margin, dirs, 0, False)
    if sep >= 0:
        return sep
    return _box_on_dirs(ra, rb, rot, trans, margin, dirs, nd, True)


@njit(cache=True, nogil=True)
def volume_dirs(row, dirs):
    """Volume of the k-DOP's axis slabs (its box): an upper bound of the polytope's volume,
    used by the descend rule."""
    nd = dirs.shape[0]
    return (row[nd] - row[0]) * (row[nd + 1] - row[1]) * (row[nd + 2] - row[2])


# One set of kernels per k with the common BV signature; each binds its direction table.
# (A function per k, not one parametrised kernel: the registry's hooks share one signature
# without a direction table, and numba has no functools.partial or closure a cached
# kernel can call.)
@njit(cache=True, nogil=True)
def fit6(vertices, faces, prim_ids, prim_start, n_prims, out):
    fit_dirs(vertices, faces, prim_ids, prim_start, n_prims, out, DIRS6)


@njit(cache=True, nogil=True)
def fit14(vertices, faces, prim_ids, prim_start, n_prims, out):
    fit_dirs(vertices, faces, prim_ids, prim_start, n_prims, out, DIRS14)


@njit(cache=True, nogil=True)
def fit18(vertices, faces, prim_ids, prim_start, n_prims, out):
    fit_dirs(vertices, faces, prim_ids, prim_start, n_prims, out, DIRS18)


@njit(cache=True, nogil=True)
def fit26(vertices, faces, prim_ids, prim_start, n_prims, out):
    fit_dirs(vertices, faces, prim_ids, prim_start, n_prims, out, DIRS26)


@njit(cache=True, nogil=True)
def refit6(vertices, faces, prim_ids, prim_start, n_prims, first, count, ln, ls, out):
    refit_dirs(vertices, faces, prim_ids, prim_start, n_prims, first, count, ln, ls, out, DIRS6)


@njit(cache=True, nogil=True)
def refit14(vertices, faces, prim_ids, prim_start, n_prims, first, count, ln, ls, out):
    refit_dirs(vertices, faces, prim_ids, prim_start, n_prims, first, count, ln, ls, out, DIRS14)


@njit(cache=True, nogil=True)
def refit18(vertices, faces, prim_ids, prim_start, n_prims, first, count, ln, ls, out):
    refit_dirs(vertices, faces, prim_ids, prim_start, n_prims, first, count, ln, ls, out, DIRS18)


@njit(cache=True, nogil=True)
def refit26(vertices, faces, prim_ids, prim_start, n_prims, first, count, ln, ls, out):
    refit_dirs(vertices, faces, prim_ids, prim_start, n_prims, first, count, ln, ls, out, DIRS26)


@njit(cache=True, nogil=True)
def overlap6(ra, rb, rot, trans, margin):
    return overlap_dirs(ra, rb, rot, trans, margin, DIRS6)


@njit(cache=True, nogil=True)
def overlap14(ra, rb, rot, trans, margin):
    return overlap_dirs(ra, rb, rot, trans, margin, DIRS14)


@njit(cache=True, nogil=True)
def overlap18(ra, rb, rot, trans, margin):
    return overlap_dirs(ra, rb, rot, trans, margin, DIRS18)


@njit(cache=True, nogil=True)
def overlap26(ra, rb, rot, trans, margin):
    return overlap_dirs(ra, rb, rot, trans, margin, DIRS26)


@njit(cache=True, nogil=True)
def volume6(row):
    return volume_dirs(row, DIRS6)


@njit(cache=True, nogil=True)
def volume14(row):
    return volume_dirs(row, DIRS14)


@njit(cache=True, nogil=True)
def volume18(row):
    return volume_dirs(row, DIRS18)


@njit(cache=True, nogil=True)
def volume26(row):
    return volume_dirs(row, DIRS26)


def polytope_faces(row: np.ndarray, dirs: np.ndarray) -> list[np.ndarray]:
    """The faces of one k-DOP as polygons.

    Parameters
    ----------
    row : (2 * nd,) float64
    dirs : (nd, 3) float64

    Returns
    -------
    list of (q, 3) float64
        One polygon per supporting plane that touches the polytope, corners in order around
        the plane's outward normal.
    """
    nd = dirs.shape[0]
    normals = np.concatenate([dirs, -dirs])  # outward: n . x <= offset
    offsets = np.concatenate([row[nd:], -row[:nd]])
    extent = float(np.max(row[nd:] - row[:nd])) if nd else 1.0
    slack = 1e-9 * max(extent, float(np.max(np.abs(row))))
    verts = []
    n_planes = normals.shape[0]
    for i in range(n_planes):
        for j in range(i + 1, n_planes):
            for k in range(j + 1, n_planes):
                m = normals[[i, j, k]]
                det = np.linalg.det(m)
                if abs(det) < 1e-9:
                    continue
                x = np.linalg.solve(m, offsets[[i, j, k]])
                if np.all(normals @ x <= offsets + slack):
                    verts.append(x)
    if not verts:
        return []
    pts = np.unique(np.round(np.array(verts) / slack) * slack, axis=0)
    polys = []
    for i in range(n_planes):
        on = pts[np.abs(pts @ normals[i] - offsets[i]) <= 2 * slack]
        if len(on) < 3:
            continue
        centre = on.mean(axis=0)
        u = on[0] - centre
        if not np.any(u):
            continue
        u /= np.linalg.norm(u)
        w = np.cross(normals[i], u)
        angle = np.arctan2((on - centre) @ w, (on - centre) @ u)
        polys.append(on[np.argsort(angle)])
    return polys


# -- faces of many k-DOPs at once, vectorised over plane triples (what the viewer draws) ------
_KDOP_TABLES: dict[bytes, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def _kdop_tables(dirs: np.ndarray):
    """Outward normals ``(P, 3)``, the plane triples that meet in a point ``(T, 3) int64`` and
    the inverses of their normal matrices ``(T, 3, 3)``; they depend on the directions only."""
    key = dirs.tobytes()
    hit = _KDOP_TABLES.get(key)
    if hit is None:
        normals = np.concatenate([dirs, -dirs])
        triples = np.array(list(combinations(range(normals.shape[0]), 3)), dtype=np.int64)
        mats = normals[triples]
        # Same threshold as polytope_faces: unit normals, so |det| is the sine
        # of the angles between them; near-parallel triples have no single meeting point.
        keep = np.abs(np.linalg.det(mats)) >= 1e-9
        hit = (normals, triples[keep], np.linalg.inv(mats[keep]))
        _KDOP_TABLES[key] = hit
    return hit


def polygons(rows: np.ndarray, dirs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The face polygons of many k-DOPs at once, vectorised over rows and plane triples (a
    Python loop per polytope cost about 1 ms each: 48 ms of overlay a frame on bunny-bunny).

    Parameters
    ----------
    rows : (j, 2 nd) float64
        ``dmin`` then ``dmax`` along each direction.
    dirs : (nd, 3) float64

    Returns
    -------
    points : (N, 3) float64
        The corners of every polygon, polygon after polygon, in order around each.
    sizes : (g,) int64
        Corners per polygon; polygons come row by row, planes in order within a row.
    """
    points, sizes, _row_of = _polygons_by_row(rows, dirs)
    return points, sizes


def _polygons_by_row(rows: np.ndarray, dirs: np.ndarray):
    """:func:`polygons`, and the row of each polygon ``(g,) int64`` (non-decreasing)."""
    rows = np.atleast_2d(np.asarray(rows, dtype=np.float64))
    nd = dirs.shape[0]
    normals, triples, inv = _kdop_tables(dirs)
    n_planes = normals.shape[0]
    offsets = np.concatenate([rows[:, nd:], -rows[:, :nd]], axis=1)  # (j, P)
    extent = np.max(rows[:, nd:] - rows[:, :nd], axis=1)
    slack = 1e-9 * np.maximum(extent, np.max(np.abs(rows), axis=1))  # (j,)
    x = np.einsum("tik,jtk->jti", inv, offsets[:, triples])  # (j, T, 3) meeting points
    is_inside = np.all(x @ normals.T <= offsets[:, None, :] + slack[:, None, None], axis=2)
    is_inside &= (slack > 0.0)[:, None]
    row_of, triple_of = np.nonzero(is_inside)
    if row_of.shape[0] == 0:
        return np.empty((0, 3)), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    s = slack[row_of][:, None]
    # Corners met by several triples coincide up to round-off: snap to the slack grid.
    snapped = np.unique(np.column_stack([row_of, np.round(x[row_of, triple_of] / s) * s]),
                        axis=0)  # fmt: skip
    row_of = snapped[:, 0].astype(np.int64)
    pts = snapped[:, 1:]
    s = slack[row_of][:, None]
    on_plane = np.abs(pts @ normals.T - offsets[row_of]) <= 2.0 * s  # (v, P)
    vert, plane = np.nonzero(on_plane)  # by vertex, then plane
    group = row_of[vert] * n_planes + plane
    count = np.bincount(group, minlength=rows.shape[0] * n_planes)
    keep = count[group] >= 3
    vert, plane, group = vert[keep], plane[keep], group[keep]
    if group.shape[0] == 0:
        return np.empty((0, 3)), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    order = np.lexsort((vert, group))
    vert, plane, group = vert[order], plane[order], group[order]
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    sizes = np.diff(np.r_[starts, group.shape[0]])
    centre = np.add.reduceat(pts[vert], starts, axis=0) / sizes[:, None]  # (g, 3)
    u = pts[vert[starts]] - centre  # the group's first corner, as the loop used to take it
    length = np.linalg.norm(u, axis=1)
    is_polygon = length > 0.0
    u /= np.where(is_polygon, length, 1.0)[:, None]
    w = np.cross(normals[plane[starts]], u)
    member = np.repeat(np.arange(starts.shape[0]), sizes)
    rel = pts[vert] - centre[member]
    angle = np.arctan2(np.sum(rel * w[member], axis=1), np.sum(rel * u[member], axis=1))
    order = np.lexsort((angle, member))
    keep = is_polygon[member[order]]
    return pts[vert[order]][keep], sizes[is_polygon], (group[starts] // n_planes)[is_polygon]


def faces(row: np.ndarray, dirs: np.ndarray) -> list[np.ndarray]:
    """The face polygons of one k-DOP, from :func:`polygons` (same result as
    :func:`polytope_faces`, which solves the plane triples one by one).

    Parameters
    ----------
    row : (2 nd,) float64
        ``dmin`` then ``dmax`` along each direction.
    dirs : (nd, 3) float64

    Returns
    -------
    list of (q, 3) float64
        One polygon per plane that touches the polytope, corners in order around it.
    """
    points, sizes = polygons(row[None], dirs)
    return np.split(points, np.cumsum(sizes)[:-1]) if sizes.shape[0] else []


def polytope_volume(faces: list[np.ndarray]) -> float:
    """Volume of a convex polytope from its face polygons (as :func:`faces` gives them:
    corners counter-clockwise about the outward normal): ``1/3 sum(p0 . area vector)``, the
    divergence theorem over the faces. 0 for a flat one."""
    total = 0.0
    for poly in faces:
        area = 0.5 * np.cross(poly, np.roll(poly, -1, axis=0)).sum(axis=0)
        total += float(poly[0] @ area)
    return abs(total) / 3.0


MAX_DRAWN = 400
"""Most k-DOPs drawn per overlay: their faces are solved per node (about 0.5 ms each), so
400 keeps a redraw near 0.2 s; above it the canvas says the overlay is capped."""


def make_wire(dirs: np.ndarray):
    """A ``wire(rows)`` for the k-DOP with directions ``dirs``."""

    def wire(rows: np.ndarray) -> dict:
        """Drawable records (:mod:`core.bv._wire`): one closed polyline per face polygon,
        plus ``"kind": "polytope"`` and ``"faces"``: list (per node) of lists of ``(q, 3)
        float64`` polygons.

        The faces come from :func:`polygons`, vectorised over rows and plane triples:
        :func:`polytope_faces` solves every triple in a Python loop (measured about 0.3 s per
        26-DOP), this a few ms per node.
        """
        rows = np.asarray(rows, dtype=np.float64).reshape(-1, 2 * dirs.shape[0])
        points, sizes, row_of = _polygons_by_row(rows, dirs)
        per_polygon = np.split(points, np.cumsum(sizes)[:-1]) if sizes.shape[0] else []
        cut = np.searchsorted(row_of, np.arange(1, rows.shape[0]))
        per_row = [list(p) for p in np.split(np.array(per_polygon + [None], dtype=object)[:-1],
                                             cut)]  # fmt: skip
        return lines_record(*polygon_loops(points, sizes), kind="polytope", faces=per_row)

    return wire


def shape_volume(rows: np.ndarray, dirs: np.ndarray) -> np.ndarray:
    """The polytopes' own volumes, ``(j,) float64``, from their faces: ``volume`` is that of
    the axis slabs (an upper bound for the descend rule), which would show every k-DOP as
    loose as its box."""
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, 2 * dirs.shape[0])
    return np.array([polytope_volume(faces(r, dirs)) for r in rows])


def _direction_text(d: np.ndarray) -> str:
    d = np.asarray(d, dtype=np.float64)
    d = d / np.abs(d).max()  # (1, 1, -1) reads better than the unit vector
    return " (direction (" + ", ".join(f"{v:g}" for v in d) + "))"


def make_separating_test(dirs: np.ndarray):
    """A ``separating_test(sep_id) -> str`` for the k-DOP with directions ``dirs``: "slab 5
    (direction (1, 1, 0))", "B's slab 1 (direction (1, 0, 0))" (ids of :func:`overlap_dirs`,
    numbered from 1 on screen)."""
    n_dirs = dirs.shape[0]

    def separating_test(sep_id: int) -> str:
        if sep_id < n_dirs:
            return f"slab {sep_id + 1}{_direction_text(dirs[sep_id])}"
        i = sep_id - n_dirs
        return f"B's slab {i + 1}{_direction_text(dirs[i])}"

    return separating_test


def make_separation(dirs: np.ndarray):
    """A ``separation(row_a, row_b, rot, trans, sep_id)`` for the k-DOP with directions
    ``dirs``: the slab direction of :func:`overlap_dirs` that culled the pair and both
    bodies' intervals along it, in A's frame (see :func:`core.bv.obb.box_separation`)."""

    def separation(row_a, row_b, rot, trans, sep_id):
        return slab_separation(row_a, row_b, rot, trans, sep_id, dirs)

    return separation


def slab_separation(row_a, row_b, rot, trans, sep_id, dirs):
    """The interval test that culled a pair, as :func:`overlap_dirs` ran it.

    Without rotation both bodies' own slabs along the direction (B's shifted by ``n . t``);
    under rotation the slab of one body against the other's box (its first three slabs)
    projected on the slab's direction, as the module docstring explains.

    Returns
    -------
    axis : (3,) float64
        Unit, A's frame.
    interval_a, interval_b : (float, float)
    through : (3,) float64
        Midway between the centres of the two boxes.
    """
    from core.bv.obb import box_interval

    nd = dirs.shape[0]
    row_a = np.asarray(row_a, dtype=np.float64)
    row_b = np.asarray(row_b, dtype=np.float64)
    centre_a = 0.5 * (row_a[:3] + row_a[nd:nd + 3])
    half_a = 0.5 * (row_a[nd:nd + 3] - row_a[:3])
    centre_b = rot @ (0.5 * (row_b[:3] + row_b[nd:nd + 3])) + trans
    half_b = 0.5 * (row_b[nd:nd + 3] - row_b[:3])
    through = 0.5 * (centre_a + centre_b)
    if np.array_equal(rot, np.eye(3)):
        axis = dirs[sep_id].copy()
        shift = float(axis @ trans)
        return (axis, (float(row_a[sep_id]), float(row_a[nd + sep_id])),
                (float(row_b[sep_id]) + shift, float(row_b[nd + sep_id]) + shift), through)
    if sep_id < nd:
        axis = dirs[sep_id].copy()
        return (axis, (float(row_a[sep_id]), float(row_a[nd + sep_id])),
                box_interval(centre_b, rot, half_b, axis), through)
    i = sep_id - nd
    axis = rot @ dirs[i]
    shift = float(axis @ trans)
    return (axis, box_interval(centre_a, np.eye(3), half_a, axis),
            (float(row_b[i]) + shift, float(row_b[nd + i]) + shift), through)


def distance_outside(row: np.ndarray, points: np.ndarray, dirs: np.ndarray) -> np.ndarray:
    """How far each point is outside the k-DOP ``row (2 nd,)`` along ``dirs (nd, 3)`` (<= 0
    inside), ``(p,) float64``: the largest excess over the slabs."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    nd = dirs.shape[0]
    proj = points @ dirs.T
    return np.maximum(row[:nd] - proj, proj - row[nd:]).max(axis=1)


def make_shape(dirs: np.ndarray):
    """The registry's ``shape`` of the k-DOP on ``dirs (d, 3)``: rows ``(j, 2d)`` (``dmin``
    then ``dmax``) as :class:`core.bv.shapes.Slabs`."""
    nd = dirs.shape[0]

    def shape(rows: np.ndarray) -> Slabs:
        rows = np.asarray(rows, dtype=np.float64).reshape(-1, 2 * nd)
        return Slabs(dirs, rows[:, :nd], rows[:, nd:])

    return shape
