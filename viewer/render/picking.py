"""Picking and coordinates: the mesh triangle under a display point, and points carried between
the world and the display (for clicks, drags and the sculpt brush)."""

from __future__ import annotations

import numpy as np
from vtkmodules.vtkRenderingCore import vtkCellPicker

PICK_TOLERANCE = 0.0005
"""The cell picker's tolerance, a fraction of the window's diagonal."""


class MeshPicker:
    """Picks triangles of the mesh actors only (overlays are never picked)."""

    def __init__(self):
        self._picker = vtkCellPicker()
        self._picker.SetTolerance(PICK_TOLERANCE)
        self._picker.PickFromListOn()

    def clear(self) -> None:
        """Forget every mesh actor (the scene's meshes are replaced)."""
        self._picker.InitializePickList()

    def add(self, actor) -> None:
        """Make ``actor`` (a mesh) pickable."""
        self._picker.AddPickList(actor)

    def pick(self, renderer, x: float, y: float, mesh_actors, display_ids, drawn_meshes):
        """The mesh triangle under a display point.

        Parameters
        ----------
        renderer : vtkRenderer
        x, y : float
            VTK display coordinates (pixels, origin bottom-left).
        mesh_actors : list of actors
            One per body, in body order.
        display_ids : list of ((k,) int64 or None)
            Per body: the vertex ids of its decimated drawing copy, None when it is drawn whole.
        drawn_meshes : list of core.mesh.TriMesh
            Per body: the mesh whose vertices the actor shows.

        Returns
        -------
        tuple (body index, triangle id, (3,) float64 world point) or None
        """
        if not mesh_actors or not self._picker.Pick(x, y, 0.0, renderer):
            return None
        actor = self._picker.GetActor()
        point = np.array(self._picker.GetPickPosition())
        for i, candidate in enumerate(mesh_actors):
            if candidate is actor or candidate == actor:
                tri_id = int(self._picker.GetCellId())
                if display_ids[i] is not None:
                    tri_id = nearest_triangle(drawn_meshes[i],
                                              np.asarray(candidate.user_matrix), point)
                return i, tri_id, point
        return None


def nearest_triangle(mesh, matrix: np.ndarray, world_point: np.ndarray) -> int:
    """Triangle of the full ``mesh`` whose centroid is nearest a picked point (a decimated
    display copy has its own cell ids).

    Parameters
    ----------
    mesh : core.mesh.TriMesh
    matrix : (4, 4) float64
        The mesh actor's pose.
    world_point : (3,) float64
    """
    local = np.linalg.solve(matrix, np.append(world_point, 1.0))[:3]
    centroids = mesh.vertices[mesh.faces].mean(axis=1)
    return int(np.argmin(((centroids - local) ** 2).sum(axis=1)))


def world_to_display(renderer, point: np.ndarray) -> np.ndarray:
    """``(3,) float64`` display x, y and depth of a world point."""
    renderer.SetWorldPoint(float(point[0]), float(point[1]), float(point[2]), 1.0)
    renderer.WorldToDisplay()
    return np.array(renderer.GetDisplayPoint(), dtype=np.float64)


def display_to_world(renderer, x: float, y: float, depth: float) -> np.ndarray:
    """``(3,) float64`` world point at display ``x, y`` and display depth ``depth``."""
    renderer.SetDisplayPoint(float(x), float(y), float(depth))
    renderer.DisplayToWorld()
    w = np.array(renderer.GetWorldPoint(), dtype=np.float64)
    return w[:3] / w[3]


def camera_axes(camera) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Camera right, up and viewing direction, unit ``(3,) float64`` each."""
    forward = np.asarray(camera.direction, dtype=np.float64)
    up = np.asarray(camera.up, dtype=np.float64)
    right = np.cross(forward, up)
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    return right, up / np.linalg.norm(up), forward


def box_on_screen(renderer, lo: np.ndarray, hi: np.ndarray) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)`` display pixels around the world box ``lo``-``hi`` ((3,)
    float64 each) as ``renderer``'s camera sees it now."""
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                        for z in (lo[2], hi[2])], dtype=np.float64)
    points = np.array([world_to_display(renderer, c)[:2] for c in corners])
    (x0, y0), (x1, y1) = points.min(axis=0), points.max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)
