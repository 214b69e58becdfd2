"""A ghost already drawn is not built again on the next redraw: the same ghost, level, poses,
hidden bodies and cap give the same PolyData; any change builds a new one."""

from __future__ import annotations

import numpy as np

from viewer.control.analysis import fresh_ghost
from viewer.controller import Controller
from viewer.model import ViewerModel
from viewer.render.ghost import build_ghost


def test_the_same_ghost_is_built_once_and_a_change_builds_it_again():
    model = ViewerModel()
    controller = Controller(model, is_threaded=False)
    try:
        assert controller.scenes.load_scene("two-spheres")
        ghost = fresh_ghost(model.frame)
        poses = [np.eye(4), np.eye(4)]
        first = build_ghost(ghost, 2, poses)
        assert first.n_cells > 0
        assert build_ghost(ghost, 2, [np.eye(4), np.eye(4)]) is first  # a redraw
        assert build_ghost(ghost, 3, poses) is not first  # another level
        moved = [np.eye(4), np.eye(4)]
        moved[1][0, 3] = 0.5
        again = build_ghost(ghost, 2, moved)
        assert again is not first
        assert not np.allclose(again.points, first.points)
        assert build_ghost(fresh_ghost(model.frame), 2, moved) is not again  # a new ghost
    finally:
        controller.shutdown()
