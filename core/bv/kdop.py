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

import numpy as np
from numba import njit

from core.bv._geom import matvec3

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
def _is_identity(rot):
    return (rot[0, 0] == 1.0 and rot[1, 1] == 1.0 and rot[2, 2] == 1.0 and rot[0, 1] == 0.0
            and rot[0, 2] == 0.0 and rot[1, 0] == 0.0 and rot[1, 2] == 0.0 and rot[2, 0] == 0.0
            and rot[2, 1] == 0.0)  # fmt: skip


@njit(cache=True, nogil=True)
def _box_on_dirs(row_box, row_dirs, rot, trans, margin, dirs, id_offset):
    """Project the axis box of ``row_box`` (posed by ``rot, trans``) on the slabs of
    ``row_dirs``; return the first separating slab id or -1."""
    nd = dirs.shape[0]
    c = np.empty(3)
    h = np.empty(3)
    for k in range(3):
        c[k] = 0.5 * (row_box[k] + row_box[nd + k])
        h[k] = 0.5 * (row_box[nd + k] - row_box[k])
    cw = matvec3(rot, c) + trans
    for i in range(nd):
        n0, n1, n2 = dirs[i, 0], dirs[i, 1], dirs[i, 2]
        mid = n0 * cw[0] + n1 * cw[1] + n2 * cw[2]
        rad = 0.0
        for j in range(3):
            rad += abs(n0 * rot[0, j] + n1 * rot[1, j] + n2 * rot[2, j]) * h[j]
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
    if _is_identity(rot):
        for i in range(nd):
            shift = dirs[i, 0] * trans[0] + dirs[i, 1] * trans[1] + dirs[i, 2] * trans[2]
            if rb[i] + shift > ra[nd + i] + margin or rb[nd + i] + shift < ra[i] - margin:
                return i
        return -1
    sep = _box_on_dirs(rb, ra, rot, trans, margin, dirs, 0)
    if sep >= 0:
        return sep
    rot_t = np.ascontiguousarray(rot.T)
    return _box_on_dirs(ra, rb, rot_t, -matvec3(rot_t, trans), margin, dirs, nd)


@njit(cache=True, nogil=True)
def volume_dirs(row, dirs):
    """Volume of the k-DOP's axis slabs (its box): an upper bound of the polytope's volume,
    used by the descend rule."""
    nd = dirs.shape[0]
    return (row[nd] - row[0]) * (row[nd + 1] - row[1]) * (row[nd + 2] - row[2])


# One set of kernels per k with the common BV signature; each binds its direction table.
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


def make_wire(dirs: np.ndarray):
    """A ``wire(rows)`` for the k-DOP with directions ``dirs``."""

    def wire(rows: np.ndarray) -> dict:
        """Drawable records: ``{"kind": "polytope", "faces": list (per node) of lists of
        (q, 3) float64 polygons}``."""
        rows = np.asarray(rows, dtype=np.float64).reshape(-1, 2 * dirs.shape[0])
        return {"kind": "polytope", "faces": [polytope_faces(r, dirs) for r in rows]}

    return wire
