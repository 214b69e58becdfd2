"""The canvas camera read into and set from the model's record."""

from __future__ import annotations

import pytest
import pyvista as pv

from viewer.render.camera import apply_camera, read_camera
from viewer.state.display import CameraView


@pytest.fixture
def plotter():
    plotter = pv.Plotter(off_screen=True, window_size=[64, 48])
    plotter.add_mesh(pv.Cube())
    yield plotter
    plotter.close()


def test_read_camera_gives_the_record(plotter):
    plotter.camera.position = (4.0, 3.0, 2.0)
    view = read_camera(plotter)
    assert isinstance(view, CameraView)
    assert view.position == pytest.approx((4.0, 3.0, 2.0))
    assert all(isinstance(x, float) for x in view.position)


def test_apply_then_read_is_the_same_view(plotter):
    view = CameraView((3.0, 2.0, 5.0), (0.1, 0.0, -0.2), (0.0, 1.0, 0.0), 28.0, True, 2.5)
    apply_camera(plotter, view)
    back = read_camera(plotter)
    assert back.position == pytest.approx(view.position)
    assert back.focal_point == pytest.approx(view.focal_point)
    assert back.view_up == pytest.approx(view.view_up)
    assert (back.view_angle, back.is_parallel, back.parallel_scale) == (28.0, True, 2.5)
