"""The canvas camera as plain numbers, read and set (a session saves and restores it)."""

from __future__ import annotations


def read_camera(plotter) -> dict:
    """The camera of ``plotter`` as plain values.

    Returns
    -------
    dict
        ``position``, ``focal_point``, ``view_up`` (tuples of 3 floats), ``view_angle``
        (degrees), ``is_parallel`` (bool), ``parallel_scale`` (world units).
    """
    camera = plotter.camera
    return {"position": tuple(float(x) for x in camera.position),
            "focal_point": tuple(float(x) for x in camera.focal_point),
            "view_up": tuple(float(x) for x in camera.up),
            "view_angle": float(camera.view_angle),
            "is_parallel": bool(camera.parallel_projection),
            "parallel_scale": float(camera.parallel_scale)}


def apply_camera(plotter, position, focal_point, view_up, view_angle: float,
                 is_parallel: bool, parallel_scale: float) -> None:
    """Move the camera of ``plotter`` to the given state (no render)."""
    camera = plotter.camera
    camera.position = tuple(position)
    camera.focal_point = tuple(focal_point)
    camera.up = tuple(view_up)
    camera.view_angle = float(view_angle)
    camera.parallel_projection = bool(is_parallel)
    camera.parallel_scale = float(parallel_scale)
    # The clipping range follows the new position, or near geometry is cut off.
    plotter.renderer.ResetCameraClippingRange()
