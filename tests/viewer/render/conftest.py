"""Fixtures of the render layer's tests: real frames, computed once per module."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def sphere_frame():
    """A real frame of the two-spheres scene (computed once)."""
    from viewer.controller import Controller
    from viewer.model import ViewerModel

    model = ViewerModel()
    controller = Controller(model, is_threaded=False)
    assert controller.scenes.load_scene("two-spheres")
    return model.frame
