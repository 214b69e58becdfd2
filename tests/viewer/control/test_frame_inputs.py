"""What the frame lane is given: each body's pose is checked once per matrix, and a body
moved is checked again."""

from __future__ import annotations

import numpy as np
import pytest


def test_a_body_standing_still_keeps_its_checked_pose_and_a_moved_one_gets_a_new_one(window):
    frames, model = window.controller.frames, window.model
    first = [body_input.pose for body_input in frames._inputs()]
    again = [body_input.pose for body_input in frames._inputs()]
    assert all(a is b for a, b in zip(first, again))
    moved = np.array(model.bodies[1].pose)
    moved[0, 3] += 0.25
    model.bodies[1].pose = moved
    now = [body_input.pose for body_input in frames._inputs()]
    assert now[0] is first[0] and now[1] is not first[1]
    assert now[1].translation[0] == pytest.approx(first[1].translation[0] + 0.25)


def test_a_bad_matrix_is_still_refused_with_its_reason(window):
    frames, model = window.controller.frames, window.model
    frames._inputs()
    bad = np.array(model.bodies[0].pose)
    bad[3] = (0.0, 0.0, 1.0, 1.0)
    model.bodies[0].pose = bad
    with pytest.raises(ValueError, match="last row"):
        frames._inputs()
