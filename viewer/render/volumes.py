"""Every bounding-volume kind drawn as what it is, batched: one PolyData per overlay kind.

- boxes (``aabb``, ``aabb15``, ``obb``): 8 corners and 12 line cells per box;
- spheres (``sphere``): three great circles per sphere, 3 closed polyline cells;
- k-DOPs (``kdop6`` ... ``kdop26``): one closed polyline cell per face polygon;
- swept spheres (``pss``, ``lss``, ``rss``): 4 closed polyline cells per volume -- the core
  (rectangle, segment or point) and its outline offset by the radius in the three planes of
  the volume's axes (a rounded rectangle, two stadiums; for a PSS three circles, a sphere);
- partition cells (boxes) and BSP splitting planes (one square per plane, 4 line cells);
- the closest-points segment of a distance query.

The core's ``wire(rows)`` gives the drawable records of every kind; the k-DOP one solves every
triple of planes in a Python loop (measured about 0.3 s per 26-DOP), so the k-DOP faces are
computed here in the same way but vectorised over the plane triples (a few ms per node).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pyvista as pv

from viewer.render.geometry import boxes_groups_polydata

CIRCLE_SEGMENTS = 24
"""Segments of each drawn circle or rounded corner set (24: round at any zoom a student uses,
3 circles x 25 points per sphere keeps 20k spheres under 2M points)."""

MAX_POLYTOPES = 400
"""Most k-DOPs drawn per overlay: their faces are solved per node (about 0.5 ms each), so
400 keeps a redraw near 0.2 s; above it the canvas says the overlay is capped."""

POLYLINES_PER_SPHERE = 3
POLYLINES_PER_SWEPT = 4
LINES_PER_PLANE = 4

# Corner c of a box: bit k of c set = the + side on axis k. Edges join corners one bit apart.
_BOX_EDGES = np.array(
    [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6),
     (3, 7)],
    dtype=np.int64,
)


def _transform(points: np.ndarray, pose: np.ndarray | None) -> np.ndarray:
    if pose is None:
        return points
    pose = np.asarray(pose, dtype=np.float64)
    return points @ pose[:3, :3].T + pose[:3, 3]


def _closed_loops(loops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points, cell sizes and point ids of ``(c, q, 3)`` closed loops (``q + 1`` ids each)."""
    c, q = loops.shape[:2]
    ids = np.arange(c * q, dtype=np.int64).reshape(c, q)
    ids = np.concatenate([ids, ids[:, :1]], axis=1)
    return loops.reshape(-1, 3), np.full(c, q + 1, dtype=np.int64), ids.ravel()


def _connectivity(sizes: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Legacy VTK cell array ``[n0, ids..., n1, ids...]`` from sizes ``(c,)`` and ids."""
    starts = np.cumsum(sizes + 1) - (sizes + 1)
    conn = np.empty(int(sizes.sum() + sizes.shape[0]), dtype=np.int64)
    is_size = np.zeros(conn.shape[0], dtype=bool)
    is_size[starts] = True
    conn[is_size] = sizes
    conn[~is_size] = ids
    return conn


def _merge(parts) -> pv.PolyData:
    """One PolyData from ``(points, sizes, ids)`` parts (ids local to each part)."""
    parts = [p for p in parts if p[0].shape[0]]
    if not parts:
        return pv.PolyData()
    offsets = np.cumsum([0] + [p[0].shape[0] for p in parts[:-1]])
    points = np.concatenate([p[0] for p in parts])
    sizes = np.concatenate([p[1] for p in parts])
    ids = np.concatenate([p[2] + o for p, o in zip(parts, offsets)])
    return pv.PolyData(np.ascontiguousarray(points), lines=_connectivity(sizes, ids))


_EMPTY = (np.empty((0, 3)), np.empty(0, np.int64), np.empty(0, np.int64))


# -- records -> (points, lines) ------------------------------------------------------------
def _boxes(corners: np.ndarray):
    """``(j, 8, 3)`` corners -> 12 line cells per box."""
    j = corners.shape[0]
    edges = (np.arange(j, dtype=np.int64)[:, None, None] * 8 + _BOX_EDGES[None]).reshape(-1, 2)
    return corners.reshape(-1, 3), np.full(edges.shape[0], 2, dtype=np.int64), edges.ravel()


def _circle_basis() -> tuple[np.ndarray, np.ndarray]:
    angle = np.linspace(0.0, 2.0 * np.pi, CIRCLE_SEGMENTS, endpoint=False)
    return np.cos(angle), np.sin(angle)


def _spheres(centers: np.ndarray, radii: np.ndarray):
    """Three great circles (xy, yz, zx planes) per sphere: ``3 j`` closed polylines."""
    cos, sin = _circle_basis()
    eye = np.eye(3)
    loops = []
    for u, v in ((0, 1), (1, 2), (2, 0)):
        ring = cos[:, None] * eye[u] + sin[:, None] * eye[v]  # (s, 3)
        loops.append(centers[:, None, :] + radii[:, None, None] * ring[None])
    return _closed_loops(np.stack(loops, axis=1).reshape(-1, CIRCLE_SEGMENTS, 3))


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


def _swept(rec: dict):
    """Core loop plus three offset outlines per swept sphere: ``4 j`` closed polylines."""
    corners, radii, centers, axes = rec["corners"], rec["radii"], rec["centers"], rec["axes"]
    j = corners.shape[0]
    if j == 0:
        return _EMPTY
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
    return _closed_loops(loops.reshape(-1, q, 3))


# -- k-DOP faces, vectorised over plane triples -----------------------------------------------
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
        # Same threshold as core.bv.kdop.polytope_faces: unit normals, so |det| is the sine
        # of the angles between them; near-parallel triples have no single meeting point.
        keep = np.abs(np.linalg.det(mats)) >= 1e-9
        hit = (normals, triples[keep], np.linalg.inv(mats[keep]))
        _KDOP_TABLES[key] = hit
    return hit


def kdop_polygons(rows: np.ndarray, dirs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
        return np.empty((0, 3)), np.empty(0, dtype=np.int64)
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
        return np.empty((0, 3)), np.empty(0, dtype=np.int64)
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
    return pts[vert[order]][keep], sizes[is_polygon]


def kdop_faces(row: np.ndarray, dirs: np.ndarray) -> list[np.ndarray]:
    """The face polygons of one k-DOP (same result as ``core.bv.kdop.polytope_faces``).

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
    points, sizes = kdop_polygons(row[None], dirs)
    return np.split(points, np.cumsum(sizes)[:-1]) if sizes.shape[0] else []


def polytope_volume(faces: list[np.ndarray]) -> float:
    """Volume of a convex polytope from its face polygons (as :func:`kdop_faces` gives them:
    corners counter-clockwise about the outward normal): ``1/3 sum(p0 . area vector)``, the
    divergence theorem over the faces. 0 for a flat one."""
    total = 0.0
    for poly in faces:
        area = 0.5 * np.cross(poly, np.roll(poly, -1, axis=0)).sum(axis=0)
        total += float(poly[0] @ area)
    return abs(total) / 3.0


def _polygon_cells(points: np.ndarray, sizes: np.ndarray):
    """Closed polylines of any sizes: ``points (N, 3)``, ``sizes (g,)`` corners each."""
    if sizes.shape[0] == 0:
        return _EMPTY
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    # Each polygon's corner ids, then its first again to close the loop.
    member = np.repeat(np.arange(sizes.shape[0]), sizes + 1)
    offset = np.arange(member.shape[0]) - np.repeat(starts + np.arange(sizes.shape[0]), sizes + 1)
    ids = starts[member] + offset % np.repeat(sizes, sizes + 1)
    return points, sizes + 1, ids


# -- public ---------------------------------------------------------------------------------
def volume_parts(volumes, body: int, node_ids: np.ndarray,
                 pose: np.ndarray | None):
    """Points (world), cell sizes and point ids of some nodes' volumes of one body.

    Parameters
    ----------
    volumes : core.frame_volumes.FrameVolumes
        A frame's ``volumes``: ``name``, ``rows`` per body, ``dirs`` (k-DOP) and ``wire``.
    body : int
        0 (A) or 1 (B).
    node_ids : (j,) int
    pose : (4, 4) float64 or None
        The body's world pose.
    """
    node_ids = np.asarray(node_ids, dtype=np.int64)
    if node_ids.shape[0] == 0:
        return _EMPTY
    rows = np.asarray(volumes.rows[body])[node_ids]
    if volumes.dirs is not None:
        points, sizes, ids = _polygon_cells(*kdop_polygons(rows, volumes.dirs))
    else:
        rec = volumes.wire(rows)
        kind = rec["kind"]
        if kind == "box":
            points, sizes, ids = _boxes(np.asarray(rec["corners"], dtype=np.float64))
        elif kind == "sphere":
            points, sizes, ids = _spheres(rec["centers"], rec["radii"])
        elif kind == "swept":
            points, sizes, ids = _swept(rec)
        else:
            raise ValueError(f"no drawing for volume records of kind {kind!r}")
    return _transform(points, pose), sizes, ids


def volumes_groups_polydata(volumes, groups) -> pv.PolyData:
    """Several groups of volumes as one PolyData.

    Parameters
    ----------
    volumes : core.frame_volumes.FrameVolumes
        A frame's ``volumes``: ``name``, ``rows`` per body, ``dirs`` (k-DOP) and ``wire``.
    groups : sequence of (body 0 or 1, node ids (j,) int, pose (4, 4) float64 or None)

    Returns
    -------
    pv.PolyData
        Per volume: 12 line cells (boxes), 3 polylines (spheres), one polyline per face
        (k-DOPs), 4 polylines (swept spheres).
    """
    return _merge([volume_parts(volumes, body, ids, pose) for body, ids, pose in groups])


def cells_polydata(cells: np.ndarray, pose: np.ndarray | None) -> pv.PolyData:
    """Partition cells ``(q, 2, 3) float64`` (bmin, bmax in A's frame) as 12 lines each."""
    cells = np.asarray(cells, dtype=np.float64).reshape(-1, 2, 3)
    return boxes_groups_polydata([(cells[:, 0], cells[:, 1], pose)])


def planes_polydata(center: np.ndarray, normal: np.ndarray, extent: np.ndarray,
                    pose: np.ndarray | None) -> pv.PolyData:
    """Splitting planes as squares of half side ``extent``: 4 line cells each.

    Parameters
    ----------
    center, normal : (p, 3) float64
    extent : (p,) float64
    pose : (4, 4) float64 or None
    """
    p = np.asarray(center).shape[0]
    if p == 0:
        return pv.PolyData()
    normal = np.asarray(normal, dtype=np.float64)
    # Any vector not parallel to the normal gives an in-plane basis.
    helper = np.where(np.abs(normal[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
    u = np.cross(normal, helper)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = np.cross(normal, u)
    e = np.asarray(extent, dtype=np.float64)[:, None]
    signs = ((1, 1), (-1, 1), (-1, -1), (1, -1))
    corners = np.stack([center + su * e * u + sv * e * v for su, sv in signs], axis=1)
    ids = np.arange(4 * p, dtype=np.int64).reshape(p, 4)
    edges = np.stack([ids, np.roll(ids, -1, axis=1)], axis=2).reshape(-1, 2)
    cells = np.empty((edges.shape[0], 3), dtype=np.int64)
    cells[:, 0] = 2
    cells[:, 1:] = edges
    points = _transform(corners.reshape(-1, 3), pose)
    return pv.PolyData(np.ascontiguousarray(points), lines=cells.ravel())


def distance_polydata(point_a: np.ndarray, point_b: np.ndarray) -> pv.PolyData:
    """The segment between two closest points (world), with its two end points as vertices:
    2 points, 1 line cell and 2 vertex cells."""
    points = np.array([point_a, point_b], dtype=np.float64)
    return pv.PolyData(points, lines=np.array([2, 0, 1]), verts=np.array([1, 0, 1, 1]))
