"""The one converter between the model's camera record and the session file's."""

from __future__ import annotations

import dataclasses

from core.session import CameraState
from viewer.control.session import camera_state, camera_view
from viewer.state.display import CameraView


def test_camera_records_have_the_same_fields_and_defaults():
    # The converter copies field by field by name: a field added to one record only would
    # be lost on a save or fail on an open.
    def fields(cls):
        return [(f.name, f.default) for f in dataclasses.fields(cls)]

    assert fields(CameraView) == fields(CameraState)


def test_camera_view_and_state_round_trip():
    view = CameraView((3.0, 2.0, 5.0), (0.1, 0.0, -0.2), (0.0, 1.0, 0.0), 28.0, True, 2.5)
    state = camera_state(view)
    assert isinstance(state, CameraState)
    assert dataclasses.astuple(state) == dataclasses.astuple(view)
    assert camera_view(state) == view


def test_camera_view_of_a_read_session_has_tuples():
    # The session reader may hand over lists; the model's record compares by value, so its
    # vectors must be tuples (a restored camera equals the saved one).
    state = CameraState([1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0], 40.0, False, 1.0)
    view = camera_view(state)
    assert view == CameraView((1.0, 2.0, 3.0), (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), 40.0)
    assert all(isinstance(v, tuple) for v in (view.position, view.focal_point, view.view_up))
