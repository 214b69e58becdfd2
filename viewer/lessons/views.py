"""Named camera views of a lesson step, as plain numbers from the scene's bounds."""

from __future__ import annotations

import math

import numpy as np

DEFAULT_DIRECTION = (1.0, 0.8, 1.7)
"""The window's default view direction (``viewer.render.scene.VIEW_DIRECTION``): from the
front-right, above; y is up, as in the shipped meshes."""

VIEW_ANGLE = 30.0
"""Vertical view angle (degrees), VTK's default."""

FILL = 1.15
"""The scene's bounding sphere fills the view's height divided by this (the window's default
view zooms by 1.15 after fitting the scene)."""

DIRECTIONS = {
    "default": (DEFAULT_DIRECTION, (0.0, 1.0, 0.0)),
    "front": ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0)),
    "back": ((0.0, 0.0, -1.0), (0.0, 1.0, 0.0)),
    "left": ((-1.0, 0.0, 0.0), (0.0, 1.0, 0.0)),
    "right": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)),
    "top": ((0.0, 1.0, 0.0), (0.0, 0.0, -1.0)),
    "bottom": ((0.0, -1.0, 0.0), (0.0, 0.0, 1.0)),
    "iso": ((1.0, 1.0, 1.0), (0.0, 1.0, 0.0)),
}
"""Direction from the scene's centre towards the camera, and the up vector, per view."""


def named_camera(view: str, points: np.ndarray) -> tuple[tuple, tuple, tuple, float]:
    """``(position, focal_point, up, view_angle)`` looking at ``points`` ``(n, 3) float64``
    (the scene's vertices in world coordinates) from ``view`` (a key of
    :data:`DIRECTIONS`), far enough that their bounding sphere fits the view."""
    direction, up = DIRECTIONS[view]
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    lo, hi = points.min(axis=0), points.max(axis=0)
    centre = 0.5 * (lo + hi)
    radius = max(0.5 * float(np.linalg.norm(hi - lo)), 1e-9)
    distance = radius / math.sin(math.radians(VIEW_ANGLE / 2)) / FILL
    unit = np.asarray(direction) / np.linalg.norm(direction)
    position = centre + distance * unit
    return (tuple(float(x) for x in position), tuple(float(x) for x in centre),
            tuple(float(x) for x in up), VIEW_ANGLE)
