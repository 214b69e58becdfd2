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


def test_a_ghost_past_its_memory_budget_is_refused_before_it_builds():
    """The ghost counts what it will allocate (trees and volumes as large as the frame's) and
    is refused with one line naming the budget instead of building."""
    from viewer.control.analysis import GHOST_MAX_BYTES, _ghost_job, ghost_bytes
    from viewer.control.worker import Budget, JobBudgetExceeded, Tag, Workers

    model = ViewerModel()
    controller = Controller(model, is_threaded=False)
    try:
        assert controller.scenes.load_scene("two-spheres")
        frame = model.frame
        needed = ghost_bytes(frame)
        tree_bytes = sum(t.bmin.nbytes + t.bmax.nbytes for t in frame.trees[:2])
        assert tree_bytes < needed < GHOST_MAX_BYTES
        outcome = {}
        lane = Workers(inline=True).lane("ghost")
        for limit in (needed - 1, needed):
            lane.submit(_ghost_job, frame, tag=Tag("ghost", frame.index),
                        on_result=lambda ghost, job, k=limit: outcome.__setitem__(k, ghost),
                        on_error=lambda error, job, k=limit: outcome.__setitem__(k, error),
                        budget=Budget(max_bytes=limit))
        refused = outcome[needed - 1]
        assert isinstance(refused, JobBudgetExceeded)
        assert "ghost" in str(refused) and f"{needed - 1:,} bytes" in str(refused)
        assert outcome[needed].trees  # at the budget: built
    finally:
        controller.shutdown()
