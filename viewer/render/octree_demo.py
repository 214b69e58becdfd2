"""Drawables of the scene-octree demo (pyvista only): every object in one PolyData coloured
by its role in the focus object's search, and the octree nodes that search visited."""

from __future__ import annotations

import numpy as np
import pyvista as pv

from viewer.render.geometry import boxes_polydata

ROLE_OTHER = 0
ROLE_TESTED = 1
ROLE_OVERLAPPING = 2
ROLE_FOCUS = 3

ROLE_COLORS = {
    ROLE_OTHER: (200, 200, 200),
    ROLE_TESTED: (255, 140, 0),
    ROLE_OVERLAPPING: (230, 0, 0),
    ROLE_FOCUS: (0, 163, 180),
}
"""RGB per role: grey untouched, orange OBB-tested by the focus object, red in an overlapping
OBB pair with it, teal the focus object itself."""

ROLE_LABELS = {
    ROLE_OTHER: "not tested by the selected object",
    ROLE_TESTED: "OBB-OBB tested by the selected object",
    ROLE_OVERLAPPING: "OBB overlaps the selected object",
    ROLE_FOCUS: "selected object",
}


def objects_polydata(meshes, poses, roles: np.ndarray) -> pv.PolyData:
    """Every object's triangles in world coordinates, one PolyData.

    Parameters
    ----------
    meshes : list of TriMesh
    poses : list of Pose
    roles : (n,) int
        Role of each object (``ROLE_*``).

    Returns
    -------
    pv.PolyData
        Triangle cells; cell arrays ``"role"`` (int) and ``"rgb"`` (uint8, active scalars).
    """
    points, cells, role_cells, offset = [], [], [], 0
    for mesh, pose, role in zip(meshes, poses, roles):
        points.append(pose.apply(mesh.vertices))
        faces = np.asarray(mesh.faces, dtype=np.int64) + offset
        cells.append(np.hstack([np.full((faces.shape[0], 1), 3, dtype=np.int64), faces]))
        role_cells.append(np.full(faces.shape[0], role, dtype=np.int64))
        offset += mesh.n_vertices
    poly = pv.PolyData(np.concatenate(points), faces=np.concatenate(cells).ravel())
    role = np.concatenate(role_cells)
    table = np.array([ROLE_COLORS[r] for r in sorted(ROLE_COLORS)], dtype=np.uint8)
    poly.cell_data["role"] = role
    poly.cell_data["rgb"] = table[role]
    poly.cell_data.active_scalars_name = "rgb"
    return poly


def object_roles(n: int, focus: int, tested: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """``(n,) int64`` role of each object for the focus object's search.

    Parameters
    ----------
    tested : (u,) int
        Objects the focus object ran the OBB-OBB test with.
    pairs : (k, 2) int
        Overlapping object pairs of the frame.
    """
    roles = np.full(n, ROLE_OTHER, dtype=np.int64)
    roles[np.asarray(tested, dtype=np.int64)] = ROLE_TESTED
    pairs = np.asarray(pairs).reshape(-1, 2)
    mine = pairs[(pairs == focus).any(axis=1)]
    roles[mine[mine != focus]] = ROLE_OVERLAPPING
    roles[focus] = ROLE_FOCUS
    return roles


def nodes_polydata(bmin: np.ndarray, bmax: np.ndarray, node_ids: np.ndarray) -> pv.PolyData:
    """Octree node boxes ``node_ids`` of ``(k, 3) float64`` bounds: 12 line cells each."""
    ids = np.asarray(node_ids, dtype=np.int64)
    return boxes_polydata(bmin[ids], bmax[ids]) if ids.size else pv.PolyData()
