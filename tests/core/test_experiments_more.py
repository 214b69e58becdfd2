"""The ``splits``, ``refit`` and ``partitions`` experiments: their numbers equal direct calls
of the core and the oracle, their readings quote this run's numbers, cancel stops them."""

from __future__ import annotations

import numpy as np
import pytest

from core.bvh import SplitRule, build_tree, tree_quality
from core.collide.brute import brute_force_pairs
from core.collide.query import collide
from core.deform import Twist, Wave
from core.experiments import pairs as scenes
from core.experiments.partitions import measure_partitions, partitions_reading
from core.experiments.refit import (
    DeformingPair,
    cost_ratios,
    measure_refit,
    refit_reading,
)
from core.experiments.splits import RULE_LABELS, measure_splits, splits_reading
from core.partition import b_in_a_frame
from core.partition.compare import METHODS, MethodRun, pairs_disagreement, run_method
from core.partition.overlap_region import YU_POSE, yu_teapot
from core.pose import Pose


def _oracle_pairs(mesh_a, pose_a, mesh_b, pose_b) -> np.ndarray:
    """Brute-force contact pairs, B in A's frame as every query computes it."""
    vb = b_in_a_frame(mesh_b, pose_a, pose_b)
    return brute_force_pairs(mesh_a.vertices, mesh_a.faces, vb, mesh_b.faces)


class _Stop(Exception):
    pass


@pytest.fixture(scope="module")
def small_spheres():
    return scenes.sphere_pair(300)


# -- splits -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def split_rows(small_spheres):
    return measure_splits([small_spheres], repeats=1)


def test_splits_has_a_row_per_rule_with_the_tree_quality_numbers(split_rows, small_spheres):
    mesh_a, pose_a, mesh_b, pose_b = small_spheres
    assert [r["rule"] for r in split_rows] == [r.name.lower() for r in SplitRule]
    oracle = _oracle_pairs(mesh_a, pose_a, mesh_b, pose_b)
    assert oracle.shape[0] > 0
    for row in split_rows:
        rule = SplitRule[row["rule"].upper()]
        tree = build_tree(mesh_a, rule)
        quality = tree_quality(mesh_a, tree)
        assert row["sah_a"] == pytest.approx(quality.sah, rel=1e-12)
        assert row["epo_a"] == pytest.approx(quality.epo, rel=1e-12)
        assert row["depth_a"] == quality.depth_max
        assert row["nodes_a"] == quality.n_nodes
        direct = collide(mesh_a, tree, mesh_b, build_tree(mesh_b, rule), pose_a, pose_b)
        assert row["volume_tests"] == direct.counters.n_bv_tests
        assert row["tri_tests"] == direct.counters.n_tri_tests
        assert row["contacts"] == oracle.shape[0]
        assert row["build_ms"] > 0 and row["query_ms"] > 0
        assert row["triangles"] == mesh_a.n_faces + mesh_b.n_faces


def test_splits_rules_differ_and_the_reading_quotes_them(split_rows):
    # The rules build different trees: not one number copied into every row.
    assert len({round(r["sah_a"], 9) for r in split_rows}) >= 3
    assert len({r["volume_tests"] for r in split_rows}) >= 3
    text = splits_reading(split_rows)
    best = min(split_rows, key=lambda r: r["sah_a"])
    label = RULE_LABELS[SplitRule[best["rule"].upper()]]
    assert f"the {label} rule gives the lowest SAH cost ({best['sah_a']:.1f}" in text
    fewest = min(split_rows, key=lambda r: r["volume_tests"])
    assert f"({fewest['volume_tests']:,};" in text
    assert f"same {split_rows[0]['contacts']:,} contacts" in text


def test_splits_reading_changes_with_the_numbers(split_rows):
    changed = [dict(r) for r in split_rows]
    for r in changed:
        if r["rule"] == "median":
            r["sah_a"] = 0.5  # now the cheapest by far
    assert splits_reading(changed) != splits_reading(split_rows)
    assert "the median rule gives the lowest SAH cost (0.5 " in splits_reading(changed)
    deep = max(split_rows, key=lambda r: r["depth_a"])
    assert f"to {deep['depth_a']} (" in splits_reading(split_rows)


def test_splits_stops_when_progress_raises(small_spheres):
    calls = []

    def report(done, total, what):
        calls.append((done, total, what))
        if len(calls) == 3:
            raise _Stop

    with pytest.raises(_Stop):
        measure_splits([small_spheres], repeats=2, report=report)
    assert len(calls) == 3 and calls[0][1] == len(SplitRule) * 6


# -- refit --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def deforming():
    a = scenes.sphere_of(400)
    b = scenes.sphere_of(300)
    return DeformingPair(a, Pose.identity(), b, scenes.SPHERE_POSE_B,
                         Twist(amplitude=1.5, speed=1.0), Wave(amplitude=0.08))


@pytest.fixture(scope="module")
def refit_rows(deforming):
    return measure_refit([deforming], frames=12, drift_threshold=0.05)


def test_refit_rows_per_mode_and_frame(refit_rows, deforming):
    assert len(refit_rows) == 3 * 12
    assert [r["mode"] for r in refit_rows[::12]] == ["refit", "rebuild", "auto"]
    by = {m: [r for r in refit_rows if r["mode"] == m] for m in ("refit", "rebuild", "auto")}
    for rows in by.values():
        assert [r["frame"] for r in rows] == list(range(12))
        assert rows[0]["rebuilt"] == 1 and rows[0]["sah_drift"] == 1.0
    # REBUILD builds fresh trees every frame: no drift, ever.
    assert all(r["sah_drift"] == 1.0 and r["rebuilt"] == 1 for r in by["rebuild"])
    # REFIT never rebuilds after the first frame, and the twist makes its SAH drift.
    assert all(r["rebuilt"] == 0 for r in by["refit"][1:])
    assert max(r["sah_drift"] for r in by["refit"]) > 1.05
    # AUTO rebuilt at least once after the first frame, and only when the drift passed.
    assert any(r["rebuilt"] for r in by["auto"][1:])
    # Same contacts in every mode and frame (checked inside too).
    for f in range(12):
        assert len({by[m][f]["contacts"] for m in by}) == 1


def test_refit_rebuild_frame_equals_a_fresh_query(refit_rows, deforming):
    """Frame 7 of REBUILD: the volume tests and contacts of a query on fresh trees of the
    deformed meshes, and the contacts of the oracle."""
    from core.experiments.refit import FPS

    f = 7
    row = [r for r in refit_rows if r["mode"] == "rebuild"][f]
    a = deforming.mesh_a.with_vertices(deforming.deformer_a(deforming.mesh_a.vertices, f / FPS))
    b = deforming.mesh_b.with_vertices(deforming.deformer_b(deforming.mesh_b.vertices, f / FPS))
    direct = collide(a, build_tree(a), b, build_tree(b), deforming.pose_a, deforming.pose_b)
    assert row["volume_tests"] == direct.counters.n_bv_tests
    assert row["contacts"] == _oracle_pairs(a, deforming.pose_a, b, deforming.pose_b).shape[0]
    assert row["sah"] == pytest.approx(build_tree(a).stats.sah_cost, rel=1e-12)


def test_refit_reading_quotes_the_measured_ratio(refit_rows):
    (ratio,) = cost_ratios(refit_rows)
    refit = [r["update_ms"] for r in refit_rows if r["mode"] == "refit" and r["frame"] > 0]
    rebuild = [r["update_ms"] for r in refit_rows if r["mode"] == "rebuild" and r["frame"] > 0]
    assert ratio.update_ratio == pytest.approx(np.median(rebuild) / np.median(refit))
    text = refit_reading(refit_rows, threshold=0.05)
    assert f"rebuilding cost {ratio.update_ratio:.1f}x as much" in text
    assert f"the ratio is {ratio.frame_ratio:.1f}x" in text
    assert "ten times" in text
    assert f"AUTO rebuilt {len(ratio.auto_rebuilds)} times" in text


def test_refit_verdict_follows_the_ratio(refit_rows):
    fast = [dict(r) for r in refit_rows]
    for r in fast:
        if r["mode"] == "rebuild":
            r["update_ms"] = 1000.0 * max(x["update_ms"] for x in refit_rows)
    assert "more than van den Bergen's" in refit_reading(fast)
    near = [dict(r) for r in refit_rows]
    refit_median = np.median([r["update_ms"] for r in near
                              if r["mode"] == "refit" and r["frame"] > 0])  # fmt: skip
    for r in near:
        if r["mode"] == "rebuild":
            r["update_ms"] = 9.0 * refit_median
    assert "agrees with van den Bergen's" in refit_reading(near)


def test_refit_needs_two_frames(deforming):
    with pytest.raises(ValueError, match="frames must be at least 2"):
        measure_refit([deforming], frames=1)


def test_refit_stops_when_progress_raises(deforming):
    seen = []

    def report(done, total, what):
        seen.append(what)
        if done == 4:
            raise _Stop

    with pytest.raises(_Stop):
        measure_refit([deforming], frames=50, report=report)
    assert len(seen) == 5 and "frame 2 of 50" in seen[-1]


# -- partitions ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def yu_pairs():
    small = yu_teapot(scenes.teapot())
    return [(small, Pose.identity(), scenes.sphere_of(n), YU_POSE) for n in (300, 1200)]


@pytest.fixture(scope="module")
def partition_rows(yu_pairs):
    return measure_partitions(yu_pairs, repeats=1)


def test_partitions_every_method_finds_the_oracles_contacts(partition_rows, yu_pairs):
    assert len(partition_rows) == 2
    for row, (a, pa, b, pb) in zip(partition_rows, yu_pairs):
        oracle = _oracle_pairs(a, pa, b, pb)
        assert row["contacts"] == oracle.shape[0] > 0
        assert row["triangles"] == a.n_faces + b.n_faces
        for m in METHODS:
            run = run_method(m, a, b, pa, pb)
            assert np.array_equal(run.pairs, oracle), m
            assert row[f"{m}_candidates"] == run.n_candidates, m
            assert row[f"{m}_tests"] == run.n_tri_tests, m
            assert row[f"{m}_tests"] >= row["contacts"] and row[f"{m}_ms"] > 0
        assert row["aabb_volume_tests"] > 0 and row["obb_volume_tests"] > 0
        # the pre-test of the overlap region only drops candidates
        assert row["overlap_tests"] <= row["overlap_candidates"]


def test_partitions_reading_quotes_this_run(partition_rows):
    text = partitions_reading(partition_rows)
    last = partition_rows[-1]
    fastest = min(METHODS, key=lambda m: last[f"{m}_ms"])
    assert f"the {METHODS[fastest].label} was fastest at {last[f'{fastest}_ms']:.2f} ms" in text
    assert f"running {last['overlap_tests']:,} exact tests" in text
    assert "All 7 methods found the same contact pairs" in text


def test_methods_that_disagree_are_named():
    pairs = np.array([[0, 1], [2, 3]], np.int32)
    runs = {
        "aabb": MethodRun("aabb", np.ones(1), pairs, 5, 2, 2),
        "grid": MethodRun("grid", np.ones(1), pairs[:1], 0, 4, 4),
    }
    assert pairs_disagreement(runs) == "the methods found different contacts: aabb 2, grid 1"
    runs["grid"] = MethodRun("grid", np.ones(1), pairs.copy(), 0, 4, 4)
    assert pairs_disagreement(runs) == ""


def test_partitions_stops_when_progress_raises(yu_pairs):
    seen = []

    def report(done, total, what):
        seen.append((done, total))
        if done == 2:
            raise _Stop

    with pytest.raises(_Stop):
        measure_partitions(yu_pairs, repeats=2, report=report)
    assert seen[-1] == (2, 2 * 7 * 2)
