"""The drawing budget: boxes sized on screen, the share each layer keeps, the refitted cost."""

from __future__ import annotations

import numpy as np
import pytest

from viewer.render.drawing_budget import (
    MIN_KEPT,
    PRIOR,
    LineBudget,
    LinePlan,
    RenderCost,
    ViewScale,
)
from viewer.render.geometry import LINES_PER_BOX
from viewer.render.overlays import build_overlays
from viewer.state.display import Display

EYE = np.eye(4)


def _view(distance: float = 10.0, is_parallel: bool = False) -> ViewScale:
    """A camera on the +z axis looking at the origin, 1000 x 800 pixels."""
    return ViewScale((0.0, 0.0, distance), (0.0, 0.0, -1.0), 400.0, is_parallel, 1000, 800)


def test_a_box_twice_as_far_covers_half_the_pixels_and_a_parallel_view_ignores_depth():
    cube = (np.zeros((1, 3)), np.ones((1, 3)))  # 12 unit edges, centre at depth 9.5
    near = _view(10.0).edge_pixels(*cube, EYE)
    far = _view(19.5).edge_pixels(*cube, EYE)
    np.testing.assert_allclose(near, 12 * 400.0 / 9.5)
    np.testing.assert_allclose(far, near / 2)
    np.testing.assert_allclose(_view(10.0, True).edge_pixels(*cube, EYE), 12 * 400.0)
    np.testing.assert_allclose(_view(100.0, True).edge_pixels(*cube, EYE), 12 * 400.0)


def test_the_pose_moves_the_box_and_a_box_at_the_camera_counts_as_the_whole_view():
    cube = (np.zeros((2, 3)), np.ones((2, 3)))
    pose = np.eye(4)
    pose[2, 3] = 5.0  # the box's centre at depth 4.5
    np.testing.assert_allclose(_view(10.0).edge_pixels(*cube, pose), 12 * 400.0 / 4.5)
    pose[2, 3] = 9.5  # the camera in the box
    np.testing.assert_allclose(_view(10.0).edge_pixels(*cube, pose), 12 * np.hypot(1000, 800))


def test_a_drawing_that_fits_keeps_everything():
    budget = LineBudget(_view(), base_s=0.01, budget_s=0.06)
    layers = [np.full(100, 1e-4), np.full(50, 2e-4)]  # 0.02 s in all
    kept, seconds = budget.plan(layers)
    assert kept == [100, 50]
    assert seconds == pytest.approx(0.03)


def test_past_the_budget_every_layer_keeps_the_same_share_of_its_first_items():
    budget = LineBudget(_view(), base_s=0.01, budget_s=0.06)
    # The first items of a layer are the biggest boxes: they cost most.
    layers = [np.linspace(1e-4, 1e-6, 4000), np.full(8000, 2e-5)]
    kept, seconds = budget.plan(layers)
    assert seconds <= 0.06
    share = [k / len(c) for k, c in zip(kept, layers, strict=True)]
    assert share[0] == pytest.approx(share[1], abs=2e-3) and share[0] < 1
    assert seconds == pytest.approx(0.01 + sum(c[:k].sum() for c, k in zip(layers, kept,
                                                                           strict=True)))
    # One more of each would not fit (the share is the largest that does).
    assert 0.01 + sum(c[: k + int(0.01 * len(c))].sum()
                      for c, k in zip(layers, kept, strict=True)) > 0.06


def test_however_small_the_budget_each_layer_keeps_the_top_of_its_tree():
    budget = LineBudget(_view(), base_s=0.05, budget_s=0.06)
    kept, _seconds = budget.plan([np.full(5000, 1e-3), np.full(10, 1e-3)])
    assert kept == [MIN_KEPT, 10]


def test_the_fit_follows_a_machine_twice_as_slow_and_ignores_unplanned_renders():
    cost = RenderCost()
    truth = 2.0 * np.asarray(PRIOR)
    rng = np.random.default_rng(7)
    for _ in range(40):
        segments, pixels = rng.uniform(1e4, 6e5), rng.uniform(1e5, 2e7)
        cost.observe(LinePlan(segments=segments, pixels=pixels), truth @ (1, segments, pixels))
    # Drawings it has not seen are predicted as the slower machine renders them.
    for segments, pixels in ((2e4, 5e5), (1e5, 4e6), (5e5, 1.5e7)):
        assert cost.coefficients @ (1, segments, pixels) == pytest.approx(
            truth @ (1, segments, pixels), rel=0.1)
    before = cost.coefficients.copy()
    cost.observe(None, 5.0)  # a render of nothing planned (an export, a figure)
    cost.observe(LinePlan(segments=1e5, pixels=1e6), float("nan"))
    np.testing.assert_array_equal(cost.coefficients, before)
    budget = cost.budget(_view(), widths=(("tree_a", 2.0),), tree_copies=((4.0, 4),))
    assert budget.per_pixel_s == pytest.approx(truth[2], rel=0.1)
    assert budget.width("tree_a") == 2.0 and budget.width("culled") == 1.0
    assert budget.tree_copies == ((4.0, 4),)


def _frame_budget(frame, budget_s: float, tree_copies=()) -> LineBudget:
    """A view 6 units from the scene's centre along +z, the scene's line widths."""
    centre = 0.5 * (frame.trees[0].bmin[0] + frame.trees[0].bmax[0])
    view = ViewScale(tuple(centre + (0.0, 0.0, 6.0)), (0.0, 0.0, -1.0), 700.0, False, 1280, 800)
    widths = (("tree_a", 2.0), ("tree_b", 2.0), ("overlap", 4.0), ("culled", 2.0))
    return LineBudget(view, *PRIOR, budget_s=budget_s, tree_copies=tree_copies, widths=widths)


def test_every_level_past_the_budget_keeps_the_first_boxes_and_says_so(sphere_frame):
    display = Display(show_culled=True)
    whole = build_overlays(sphere_frame, display, None)
    assert whole.plan is None
    roomy = build_overlays(sphere_frame, display, None, budget=_frame_budget(sphere_frame, 10.0))
    assert roomy.plan.budget_s is None and roomy.plan.tree_kept is None
    for name in ("tree_a", "tree_b", "overlap", "culled"):
        assert roomy.polys[name].n_cells == whole.polys[name].n_cells > 0
    budget = _frame_budget(sphere_frame, 0.03)
    cut = build_overlays(sphere_frame, display, None, budget=budget)
    assert cut.plan.seconds <= 0.03 and cut.plan.budget_s == 0.03
    said = [note for note in cut.notes if note.endswith("(drawing budget 30 ms)")]
    assert len(said) == 4  # boxes of A, of B, overlapping and culled pairs
    n_a = len(sphere_frame.trees[0].level_nodes)
    assert f"boxes of A: drawing {cut.polys['tree_a'].n_cells // LINES_PER_BOX:,} of {n_a:,}" \
        in said[0]
    for name in ("tree_a", "tree_b", "overlap", "culled"):
        assert MIN_KEPT * LINES_PER_BOX <= cut.polys[name].n_cells < whole.polys[name].n_cells
    # The first boxes are kept: the drawn points are the whole drawing's first points.
    n_points = cut.polys["tree_a"].n_points
    np.testing.assert_array_equal(cut.polys["tree_a"].points,
                                  whole.polys["tree_a"].points[:n_points])
    # The plan's features are those of what is kept: the fit learns from what is drawn.
    n_cells = sum(cut.polys[name].n_cells for name in ("tree_a", "tree_b", "overlap", "culled"))
    assert cut.plan.segments == n_cells


def test_a_ghost_is_planned_with_the_trees_and_told_how_many_to_keep(sphere_frame):
    display = Display()
    alone = build_overlays(sphere_frame, display, None, budget=_frame_budget(sphere_frame, 0.04))
    with_ghost = build_overlays(sphere_frame, display, None,
                                budget=_frame_budget(sphere_frame, 0.04, ((4.0, 4),)))
    kept_alone = alone.polys["tree_a"].n_cells // LINES_PER_BOX
    kept = with_ghost.polys["tree_a"].n_cells // LINES_PER_BOX
    assert kept < kept_alone  # the ghost's dashes share the budget
    assert with_ghost.plan.tree_kept == max(kept, with_ghost.polys["tree_b"].n_cells
                                            // LINES_PER_BOX)
    assert with_ghost.plan.seconds <= 0.04
