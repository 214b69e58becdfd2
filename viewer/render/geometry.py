"""Batched drawables built in numpy: many boxes, triangles or segments as ONE PolyData.

One actor per box would cost a draw call and a scene-graph node each (20k boxes: seconds
per frame in VTK); one PolyData per overlay kind is a single draw call.
"""

from __future__ import annotations

import numpy as np
import pyvista as pv

# Corner c of a box has x from bmax if bit 0 of c is set, y if bit 1, z if bit 2.
_CORNER_BITS = np.array([[(c >> axis) & 1 for axis in range(3)] for c in range(8)], dtype=bool)
# The 12 edges join corners that differ in exactly one bit.
_BOX_EDGES = np.array(
    [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6),
     (3, 7)],
    dtype=np.int64,
)
LINES_PER_BOX = 12
"""Line cells per wireframe box (a test relates overlay cell counts to pair counts)."""


def _lines_array(edges: np.ndarray) -> np.ndarray:
    """Legacy VTK line cells ``[2, i, j, 2, ...]`` from ``(e, 2)`` point ids, ``(3 e,) int64``."""
    cells = np.empty((edges.shape[0], 3), dtype=np.int64)
    cells[:, 0] = 2
    cells[:, 1:] = edges
    return cells.ravel()


def box_corners(bmin: np.ndarray, bmax: np.ndarray) -> np.ndarray:
    """Corners of axis-aligned boxes.

    Parameters
    ----------
    bmin, bmax : (k, 3) float64

    Returns
    -------
    (k, 8, 3) float64
    """
    return np.where(_CORNER_BITS[None, :, :], bmax[:, None, :], bmin[:, None, :])


def boxes_polydata(bmin: np.ndarray, bmax: np.ndarray,
                   pose: np.ndarray | None = None) -> pv.PolyData:
    """Wireframe boxes: 8 points and 12 line cells per box.

    Parameters
    ----------
    bmin, bmax : (k, 3) float64
        Boxes in the body's local frame.
    pose : (4, 4) float64, optional
        World pose of the body; the corners are transformed (a local box stays a box).

    Returns
    -------
    pv.PolyData
        ``8 k`` points, ``12 k`` line cells.
    """
    return boxes_groups_polydata([(bmin, bmax, pose)])


def boxes_groups_polydata(groups) -> pv.PolyData:
    """Several groups of boxes, each with its own pose, as one PolyData.

    Parameters
    ----------
    groups : sequence of (bmin (k, 3) float64, bmax (k, 3) float64, pose (4, 4) float64 or None)

    Returns
    -------
    pv.PolyData
        ``8 K`` points, ``12 K`` line cells, ``K`` the total number of boxes, in group order.
    """
    parts = []
    for bmin, bmax, pose in groups:
        if len(bmin) == 0:
            continue
        corners = box_corners(np.asarray(bmin, np.float64), np.asarray(bmax, np.float64))
        points = corners.reshape(-1, 3)
        if pose is not None:
            points = points @ pose[:3, :3].T + pose[:3, 3]
        parts.append(points)
    if not parts:
        return pv.PolyData()
    points = np.concatenate(parts) if len(parts) > 1 else parts[0]
    k = points.shape[0] // 8
    edges = (np.arange(k, dtype=np.int64)[:, None, None] * 8 + _BOX_EDGES[None]).reshape(-1, 2)
    return pv.PolyData(np.ascontiguousarray(points), lines=_lines_array(edges))


def triangles_polydata(corners: np.ndarray) -> pv.PolyData:
    """Separate filled triangles.

    Parameters
    ----------
    corners : (k, 3, 3) float64
        World coordinates (triangle, corner, xyz).

    Returns
    -------
    pv.PolyData
        ``3 k`` points, ``k`` triangle cells.
    """
    k = corners.shape[0]
    if k == 0:
        return pv.PolyData()
    faces = np.empty((k, 4), dtype=np.int64)
    faces[:, 0] = 3
    faces[:, 1:] = np.arange(3 * k, dtype=np.int64).reshape(k, 3)
    return pv.PolyData(np.ascontiguousarray(corners.reshape(-1, 3)), faces=faces.ravel())


def segments_polydata(segments: np.ndarray) -> pv.PolyData:
    """Line segments.

    Parameters
    ----------
    segments : (c, 2, 3) float64
        End points in world coordinates.

    Returns
    -------
    pv.PolyData
        ``2 c`` points, ``c`` line cells.
    """
    c = segments.shape[0]
    if c == 0:
        return pv.PolyData()
    edges = np.arange(2 * c, dtype=np.int64).reshape(c, 2)
    return pv.PolyData(np.ascontiguousarray(segments.reshape(-1, 3)), lines=_lines_array(edges))


def ring_polydata(center: np.ndarray, u: np.ndarray, v: np.ndarray, radius: float,
                  n_segments: int = 64) -> pv.PolyData:
    """A closed circle of ``radius`` around ``center`` in the plane spanned by unit ``u, v``.

    Parameters
    ----------
    center, u, v : (3,) float64

    Returns
    -------
    pv.PolyData
        ``n_segments`` points and line cells.
    """
    angle = np.linspace(0.0, 2.0 * np.pi, n_segments, endpoint=False)
    points = center + radius * (np.cos(angle)[:, None] * u + np.sin(angle)[:, None] * v)
    ids = np.arange(n_segments, dtype=np.int64)
    edges = np.stack([ids, (ids + 1) % n_segments], axis=1)
    return pv.PolyData(points, lines=_lines_array(edges))


def mesh_polydata(vertices: np.ndarray, faces: np.ndarray) -> pv.PolyData:
    """A triangle mesh whose cell ids are the face ids (picking returns face ids).

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32
    """
    m = faces.shape[0]
    cells = np.empty((m, 4), dtype=np.int64)
    cells[:, 0] = 3
    cells[:, 1:] = faces
    return pv.PolyData(np.array(vertices, dtype=np.float64), faces=cells.ravel())
