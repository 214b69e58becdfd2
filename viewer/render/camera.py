"""The canvas camera as a :class:`viewer.state.display.CameraView`, read and set (a session
saves and restores it, a lesson step moves it)."""

from __future__ import annotations

from viewer.state.display import CameraView


def read_camera(plotter) -> CameraView:
    """The camera of ``plotter`` as plain values: ``position``, ``focal_point``, ``view_up``
    (tuples of 3 floats), ``view_angle`` (degrees), ``is_parallel``, ``parallel_scale``
    (world units)."""
    camera = plotter.camera
    return CameraView(position=tuple(float(x) for x in camera.position),
                      focal_point=tuple(float(x) for x in camera.focal_point),
                      view_up=tuple(float(x) for x in camera.up),
                      view_angle=float(camera.view_angle),
                      is_parallel=bool(camera.parallel_projection),
                      parallel_scale=float(camera.parallel_scale))


def apply_camera(plotter, view: CameraView) -> None:
    """Move the camera of ``plotter`` to ``view`` (no render)."""
    camera = plotter.camera
    camera.position = tuple(view.position)
    camera.focal_point = tuple(view.focal_point)
    camera.up = tuple(view.view_up)
    camera.view_angle = float(view.view_angle)
    camera.parallel_projection = bool(view.is_parallel)
    camera.parallel_scale = float(view.parallel_scale)
    # The clipping range follows the new position, or near geometry is cut off.
    plotter.renderer.ResetCameraClippingRange()
