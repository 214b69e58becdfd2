"""The cost model T = Nu Cu + Nbv Cbv + Np Cp: arithmetic, a frame's counts, unit costs."""

from __future__ import annotations

import dataclasses
import math

import pytest

from core.bv import BV_KINDS
from core.deform import Wave
from core.experiments import (
    Cancelled,
    ExperimentOptions,
    ExperimentScene,
    Progress,
    make_figure,
    run_experiment,
)
from core.experiments.common import sphere_mesh
from core.lab.costmodel import (
    TERM_NAMES,
    CostPrediction,
    UnitCosts,
    frame_counts,
    measure_unit_costs,
    predict,
)
from core.pipeline import BodyInput, FramePipeline, PipelineSettings, UpdateMode
from core.pose import Pose
from core.request import FrameOptions

COSTS = UnitCosts(kind="aabb", update_ns=20.0, volume_test_ns=50.0, primitive_test_ns=400.0)


def test_predict_by_hand():
    # 1000 updates x 20 ns = 0.02 ms, 30 000 tests x 50 ns = 1.5 ms, 500 x 400 ns = 0.2 ms.
    p = predict(1000, 30_000, 500, COSTS)
    assert isinstance(p, CostPrediction)
    assert [t.name for t in p.terms] == list(TERM_NAMES)
    assert [t.count for t in p.terms] == [1000, 30_000, 500]
    assert [t.unit_ns for t in p.terms] == [20.0, 50.0, 400.0]
    assert [t.ms for t in p.terms] == pytest.approx([0.02, 1.5, 0.2])
    assert p.total_ms == pytest.approx(1.72)
    assert [t.share for t in p.terms] == pytest.approx([0.02 / 1.72, 1.5 / 1.72, 0.2 / 1.72])
    assert sum(t.share for t in p.terms) == pytest.approx(1.0)


def test_predict_nothing_is_zero_with_zero_shares():
    p = predict(0, 0, 0, COSTS)
    assert p.total_ms == 0.0 and all(t.share == 0.0 and t.ms == 0.0 for t in p.terms)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_predict_refuses_counts_that_are_not_counts(bad):
    with pytest.raises(ValueError, match="must be a whole number >= 0"):
        predict(bad, 0, 0, COSTS)


@pytest.fixture(scope="module")
def wave_frames():
    """Three frames of a waving sphere against a still one, overlapping: frame 0 builds,
    frames 1 and 2 refit the waving sphere's tree and keep the still one's."""
    a = sphere_mesh(600, name="waving")
    b = sphere_mesh(400, name="still")
    bodies = [BodyInput("a", a, Pose(), Wave(amplitude=0.05)),
              BodyInput("b", b, Pose.from_axis_angle((0, 1, 0), 0.3, (1.2, 0.1, 0.0)))]
    pipe = FramePipeline(PipelineSettings(
        frame=FrameOptions(self_collision=True), update=UpdateMode.REFIT))
    return [pipe.step(bodies, t) for t in (0.0, 0.1, 0.2)]


def test_frame_counts_equal_the_frames_own_counters(wave_frames):
    first, second, _ = wave_frames
    assert first.refitted == [False, False] and first.rebuilt == [True, True]
    assert second.refitted == [True, False] and second.rebuilt == [False, False]
    for frame in wave_frames:
        nu, nbv, np_ = frame_counts(frame)
        results = [frame.result, *frame.self_results]
        assert nbv == sum(r.counters.n_bv_tests for r in results) > 0
        assert np_ == sum(r.counters.n_tri_tests for r in results) > 0
        expected_nu = sum(t.n_nodes for t, r in zip(frame.trees, frame.refitted) if r)
        assert nu == expected_nu
    assert frame_counts(first)[0] == 0
    assert frame_counts(second)[0] == second.trees[0].n_nodes


def test_frame_counts_of_a_frame_without_refit_record(wave_frames):
    old = dataclasses.replace(wave_frames[1], refitted=None, self_results=None)
    assert frame_counts(old) == (0, old.result.counters.n_bv_tests,
                                 old.result.counters.n_tri_tests)  # fmt: skip


@pytest.mark.parametrize("kind", ["aabb", "obb", "sphere", "kdop14", "rss"])
def test_unit_costs_are_positive_and_finite(kind):
    costs = measure_unit_costs(kind)
    assert costs.kind == kind
    for value in (costs.update_ns, costs.volume_test_ns, costs.primitive_test_ns):
        assert math.isfinite(value) and value > 0.0


def test_traced_unit_costs_time_the_traversal_with_its_trace(monkeypatch):
    # The viewer's frames record the per-level trace; their unit costs must be timed so.
    import core.collide.dispatch as dispatch

    seen = []
    real = dispatch.tree_query

    def spy(request, *args, **kwargs):
        seen.append(request.trace)
        return real(request, *args, **kwargs)

    monkeypatch.setattr(dispatch, "tree_query", spy)
    costs = measure_unit_costs("aabb", is_traced=True)
    assert costs.volume_test_ns > 0.0 and all(seen) and len(seen) > 1
    seen.clear()
    measure_unit_costs("aabb")
    assert seen[0] and not any(seen[1:])  # one traced query for the candidates, bare timings


def test_unit_costs_report_progress_and_cancel():
    seen = []
    progress = Progress(lambda done, total, what: seen.append((done, total, what)))
    measure_unit_costs("aabb", progress)
    assert seen[0][:2] == (0, 3) and seen[-1][:2] == (3, 3) and "aabb" in seen[-1][2]
    progress.cancel()
    with pytest.raises(Cancelled):
        measure_unit_costs("aabb", progress)


def test_unit_costs_name_an_unknown_kind():
    with pytest.raises(ValueError, match="unknown bounding volume 'box'"):
        measure_unit_costs("box")


@pytest.fixture(scope="module")
def cost_run():
    """The cost-model experiment at its quick size on two small spheres, A waving."""
    a = sphere_mesh(500, name="waving")
    b = sphere_mesh(300, name="still")
    scene = ExperimentScene(a, Pose(), b, Pose.from_axis_angle((0, 1, 0), 0.3, (1.2, 0.1, 0.0)),
                            deformer_a=Wave(amplitude=0.05), title="two small spheres")
    return run_experiment("cost-model", ExperimentOptions(sizes=(500,), scene=scene))


def test_cost_experiment_rows_are_the_model_applied(cost_run):
    names = [c.name for c in cost_run.columns]
    assert names[:4] == ["kind", "update_ns", "volume_test_ns", "primitive_test_ns"]
    assert [r[0] for r in cost_run.rows] == list(BV_KINDS)
    for kind, cu, cbv, cp, nu, nbv, np_, predicted, measured, error in cost_run.rows:
        assert nu > 0 and nbv > 0 and np_ > 0  # A deforms: its tree is refitted
        expected = predict(nu, nbv, np_, UnitCosts(kind, cu, cbv, cp)).total_ms
        assert predicted == pytest.approx(expected)
        assert measured > 0 and error == pytest.approx(100 * (predicted - measured) / measured)
    nus = {r[4] for r in cost_run.rows}
    assert len(nus) == 1  # the same refitted tree for every kind
    assert "two small spheres" in cost_run.reading
    assert f"median over the {len(BV_KINDS)} kinds" in cost_run.reading
    fig = make_figure(cost_run)
    assert [ax.get_ylabel() for ax in fig.axes] == ["unit cost (ns, log scale)",
                                                     "query time (ms)"]
    assert "Gottschalk" in " ".join(t.get_text() for t in fig.texts)


def test_cost_figure_says_why_a_kdop_test_costs_more(cost_run):
    """The figure showed a 6-DOP test at 10-19x an AABB test with no word why: the caption
    gives this run's ratios and the reason (B turned: each box on the other's k/2 slabs)."""
    costs = cost_run.summary["unit_costs"]
    fig = make_figure(cost_run)
    text = " ".join(t.get_text() for t in fig.texts).replace("\n", " ")
    ratio = costs["kdop6"]["volume_test_ns"] / costs["aabb"]["volume_test_ns"]
    assert f"6-DOP {ratio:.1f}x" in text
    assert "k/2 + k/2 interval tests" in text and "B is turned" in text


def test_kdop_rotated_test_is_the_two_box_projections():
    """The allocation-free k-DOP test gives the separating slab the two box projections give
    (B's box on A's slabs, then A's box on B's), on random turned pairs."""
    import numpy as np

    from core.bv import kdop
    from core.jit.kernel_args import frozen, frozen_args

    rng = np.random.default_rng(7)

    def box_on(row_box, row_dirs, rot, trans, dirs, offset):
        nd = dirs.shape[0]
        c = 0.5 * (row_box[:3] + row_box[nd:nd + 3])
        h = 0.5 * (row_box[nd:nd + 3] - row_box[:3])
        cw = rot @ c + trans
        for i, n in enumerate(dirs):
            mid, rad = n @ cw, np.abs(n @ rot) @ h
            if mid - rad > row_dirs[nd + i] or mid + rad < row_dirs[i]:
                return offset + i
        return -1

    for n_dirs in (6, 14, 26):
        dirs = frozen(kdop.DIRECTIONS[n_dirs])  # read-only, as the registry's kinds bind them
        nd = dirs.shape[0]
        seen = set()
        for _ in range(300):
            pts_a, pts_b = rng.normal(size=(2, 5, 3))
            ra = np.concatenate([(pts_a @ dirs.T).min(0), (pts_a @ dirs.T).max(0)])
            rb = np.concatenate([(pts_b @ dirs.T).min(0), (pts_b @ dirs.T).max(0)])
            q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
            rot = np.ascontiguousarray(q * np.sign(np.linalg.det(q)))
            trans = rng.normal(scale=2.0, size=3)
            want = box_on(rb, ra, rot, trans, dirs, 0)
            if want < 0:
                want = box_on(ra, rb, rot.T, -rot.T @ trans, dirs, nd)
            # Read-only inputs, as the traversal passes them: its compiled signature.
            got = kdop.overlap_dirs(*frozen_args((ra, rb, rot, trans)), 0.0, dirs)
            assert got == want
            seen.add(got >= nd if got >= 0 else None)
        assert seen == {None, False, True}  # overlaps, and separations by A's and B's slabs
