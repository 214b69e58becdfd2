"""The one traversal kernel: its named record, and what it must reach for every kind.

The expectations are stated from the trees alone: with every volume grown past the scene
(nothing can be culled) the walk must reach every leaf pair exactly once; each level must be
the children of the previous level's overlapping pairs under the descend rule; and running
the levels on one thread, in parallel, or split between two threads must record the same
levels.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import core.collide.traversal_driver as driver
from core.bv import BV_KINDS, fit_volumes
from core.bvh import build_tree
from core.collide import DescendRule, collide, self_collide
from core.collide.budget import NO_BUDGET, start_array
from core.collide.bvquery import collide_bv
from core.collide.selfcollide import self_traverse
from core.collide.tandem import traverse
from core.collide.traversal import TREE_BOXES, TraversalRecord, traverse_levels
from core.jit.kernel_args import frozen, frozen_args
from core.pose import Pose
from tests.core.meshgen import sphere_mesh

#: Larger than any coordinate of the test meshes: no volume test can separate anything.
HUGE_MARGIN = 1e6
NO_STOP = np.iinfo(np.int64).max


@pytest.fixture(scope="module")
def two_spheres():
    a = sphere_mesh(12)
    b = sphere_mesh(10, radius=0.8)
    pose_b = Pose.from_axis_angle((1, 2, 3), 0.5, (0.9, 0.1, 0.0))
    return a, build_tree(a), b, build_tree(b), pose_b


def _leaves(tree) -> np.ndarray:
    return np.flatnonzero(np.asarray(tree.count) > 0)


def _run(code, tree_a, tree_b, vol_a, vol_b, rot, trans, margin, rule, is_self=False,
         record=True, parallel_min=10**9):  # fmt: skip
    # Read-only inputs, as the core passes them (core.jit.kernel_args): the warmed signature.
    roots = frozen(np.zeros(1, dtype=np.int32))
    args = frozen_args((code, tree_a.first, tree_a.count, tree_a.bmin, tree_a.bmax, vol_a,
                        tree_b.first, tree_b.count, tree_b.bmin, tree_b.bmax, vol_b, rot, trans))
    return traverse_levels(*args, margin, rule, is_self, record, parallel_min, roots,
                           roots, NO_STOP, NO_BUDGET, start_array(None), 0)  # fmt: skip


def _kind_args(kind, tree_a, mesh_a, tree_b, mesh_b):
    """``code, vol_a, vol_b`` of a registry kind, or of the trees' own boxes for None."""
    if kind is None:
        return TREE_BOXES, tree_a.bmin, tree_b.bmin
    return (BV_KINDS[kind].code, fit_volumes(tree_a, mesh_a, kind),
            fit_volumes(tree_b, mesh_b, kind))  # fmt: skip


KINDS = [None, *BV_KINDS]


def test_kernel_returns_a_named_record(two_spheres):
    a, tree_a, b, tree_b, pose_b = two_spheres
    rot = np.ascontiguousarray(pose_b.rotation)
    trans = np.ascontiguousarray(pose_b.translation)
    rec = traverse(tree_a.first, tree_a.count, tree_a.bmin, tree_a.bmax, tree_b.first,
                   tree_b.count, tree_b.bmin, tree_b.bmax, rot, trans, 0.0, 0, True)  # fmt: skip
    assert isinstance(rec, TraversalRecord)
    assert rec._fields == ("leaf_a", "leaf_b", "counts", "level_start", "trace_a", "trace_b",
                           "trace_sep", "level_leaves", "rest_a", "rest_b")  # fmt: skip
    n_levels = rec.level_leaves.shape[0]
    assert rec.level_start.shape == (n_levels + 1,) and rec.level_start[0] == 0
    assert rec.trace_a.dtype == np.int32 and rec.trace_sep.dtype == np.int8
    assert rec.counts.tolist() == [rec.trace_a.shape[0], int((rec.trace_sep == -1).sum()),
                                   rec.leaf_a.shape[0]]  # fmt: skip
    assert rec.level_leaves.sum() == rec.leaf_a.shape[0] > 0
    assert rec.rest_a.shape == (0,) and rec.rest_b.shape == (0,)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k or "tree-boxes")
@pytest.mark.parametrize("rule", list(DescendRule), ids=lambda r: r.name.lower())
def test_nothing_culled_reaches_every_leaf_pair_once(two_spheres, kind, rule):
    a, tree_a, b, tree_b, pose_b = two_spheres
    code, vol_a, vol_b = _kind_args(kind, tree_a, a, tree_b, b)
    rot = np.ascontiguousarray(pose_b.rotation)
    trans = np.ascontiguousarray(pose_b.translation)
    rec = _run(code, tree_a, tree_b, vol_a, vol_b, rot, trans, HUGE_MARGIN, int(rule))
    found = Counter(zip(rec.leaf_a.tolist(), rec.leaf_b.tolist(), strict=True))
    expected = {(int(i), int(j)) for i in _leaves(tree_a) for j in _leaves(tree_b)}
    assert set(found) == expected
    assert max(found.values()) == 1
    assert np.all(rec.trace_sep == -1)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k or "tree-boxes")
@pytest.mark.parametrize("rule", [DescendRule.BOTH, DescendRule.A_FIRST],
                         ids=lambda r: r.name.lower())  # fmt: skip
def test_each_level_is_the_children_of_the_last_overlaps(two_spheres, kind, rule):
    a, tree_a, b, tree_b, pose_b = two_spheres
    code, vol_a, vol_b = _kind_args(kind, tree_a, a, tree_b, b)
    rot = np.ascontiguousarray(pose_b.rotation)
    trans = np.ascontiguousarray(pose_b.translation)
    rec = _run(code, tree_a, tree_b, vol_a, vol_b, rot, trans, 0.0, int(rule))
    ls = rec.level_start
    assert rec.trace_a[: ls[1]].tolist() == [0] and rec.trace_b[: ls[1]].tolist() == [0]
    for d in range(len(ls) - 2):
        rows = slice(ls[d], ls[d + 1])
        expected = []
        leaves = 0
        for na, nb, sep in zip(rec.trace_a[rows], rec.trace_b[rows], rec.trace_sep[rows],
                               strict=True):  # fmt: skip
            if sep >= 0:
                continue
            is_leaf_a, is_leaf_b = tree_a.count[na] > 0, tree_b.count[nb] > 0
            kids_a = [na] if is_leaf_a else [tree_a.first[na], tree_a.first[na] + 1]
            kids_b = [nb] if is_leaf_b else [tree_b.first[nb], tree_b.first[nb] + 1]
            if is_leaf_a and is_leaf_b:
                leaves += 1
            elif rule == DescendRule.BOTH or is_leaf_a or is_leaf_b:
                expected += [(ca, cb) for ca in kids_a for cb in kids_b]
            else:
                expected += [(ca, nb) for ca in kids_a]
        nxt = slice(ls[d + 1], ls[d + 2])
        got = list(zip(rec.trace_a[nxt].tolist(), rec.trace_b[nxt].tolist(), strict=True))
        assert got == [(int(x), int(y)) for x, y in expected]
        assert rec.level_leaves[d] == leaves


@pytest.mark.parametrize("rule", list(DescendRule), ids=lambda r: r.name.lower())
def test_self_traversal_reaches_every_unordered_leaf_pair_once(rule):
    mesh = sphere_mesh(10)
    tree = build_tree(mesh)
    rec = self_traverse(tree.first, tree.count, tree.bmin, tree.bmax, HUGE_MARGIN, int(rule),
                        True)  # fmt: skip
    assert isinstance(rec, TraversalRecord)
    found = Counter(zip(rec.leaf_a.tolist(), rec.leaf_b.tolist(), strict=True))
    leaves = _leaves(tree).tolist()
    expected = {(i, j) for i in leaves for j in leaves if i <= j}
    assert {(min(p), max(p)) for p in found} == expected
    assert len(found) == len(expected) and max(found.values()) == 1
    # A node against itself is no volume test; every other pair is one.
    is_self = rec.trace_a == rec.trace_b
    assert rec.counts[0] == int((~is_self).sum())
    assert rec.counts[1] == rec.trace_a.shape[0]


def _levels(trace):
    """Per level: the multiset of (node a, node b, separating id)."""
    return [sorted(zip(*(x.tolist() for x in (*trace.level(d)[0].T, trace.separating_axis(d))),
                       strict=True))
            for d in range(trace.n_levels)]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k or "tree-boxes")
def test_one_thread_parallel_and_split_runs_record_the_same_levels(two_spheres, kind,
                                                                   monkeypatch):  # fmt: skip
    a, tree_a, b, tree_b, pose_b = two_spheres

    def run():
        if kind is None:
            return collide(a, tree_a, b, tree_b, None, pose_b, trace=True)
        return collide_bv(a, tree_a, b, tree_b, None, pose_b, bv=kind, trace=True)

    monkeypatch.setattr(driver, "SPLIT_FRONTIER", 10**12)
    monkeypatch.setattr(driver, "PARALLEL_MIN_PAIRS", 10**12)
    serial = run()
    monkeypatch.setattr(driver, "PARALLEL_MIN_PAIRS", 1)
    parallel = run()
    monkeypatch.setattr(driver, "SPLIT_FRONTIER", 3)
    split = run()
    assert serial.counters.n_contacts > 0
    for other in (parallel, split):
        assert np.array_equal(other.pairs, serial.pairs)
        assert other.counters == serial.counters
        assert np.array_equal(other.trace.level_start, serial.trace.level_start)
        assert np.array_equal(other.trace.leaf_pairs_per_level,
                              serial.trace.leaf_pairs_per_level)  # fmt: skip
        assert _levels(other.trace) == _levels(serial.trace)
    # Without a split, the parallel levels are written in the same order as the serial ones.
    assert np.array_equal(parallel.trace.node_a, serial.trace.node_a)
    assert np.array_equal(parallel.trace.sep_axis, serial.trace.sep_axis)


def test_self_collision_parallel_levels_equal_serial(monkeypatch):
    import core.collide.selfcollide as selfcollide

    mesh = sphere_mesh(12)
    v = mesh.vertices
    # Pinch the sphere through itself so there are contacts to find.
    moved = mesh.with_vertices(v * np.where(v[:, :1] > 0, -0.3, 1.0) + [0.0, 0.0, 0.0])
    tree = build_tree(moved)
    monkeypatch.setattr(selfcollide, "PARALLEL_MIN_PAIRS", 10**12)
    serial = self_collide(moved, tree, trace=True)
    monkeypatch.setattr(selfcollide, "PARALLEL_MIN_PAIRS", 1)
    parallel = self_collide(moved, tree, trace=True)
    assert serial.counters.n_bv_tests > 0
    assert parallel.counters == serial.counters
    assert np.array_equal(parallel.pairs, serial.pairs)
    assert np.array_equal(parallel.trace.node_a, serial.trace.node_a)
    assert np.array_equal(parallel.trace.node_b, serial.trace.node_b)
    assert np.array_equal(parallel.trace.sep_axis, serial.trace.sep_axis)


POSES = {
    "rotated": Pose.from_axis_angle((1, 2, 3), 0.5, (0.9, 0.1, 0.0)),
    "translated": Pose.from_axis_angle((0, 0, 1), 0.0, (0.7, -0.2, 0.1)),
    "identity": Pose(),
}


@pytest.mark.parametrize("pose", POSES, ids=str)
@pytest.mark.parametrize("rule", list(DescendRule), ids=lambda r: r.name.lower())
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k or "tree-boxes")
def test_depth_first_walk_finds_the_level_loops_leaf_pairs_and_counts(two_spheres, kind, rule,
                                                                      pose):  # fmt: skip
    """The fast mode's walk (depth first) tests the same pairs as the level loop."""
    from core.collide.depthfirst import traverse_depth_first
    from core.collide.query import relative_pose

    a, tree_a, b, tree_b, _ = two_spheres
    code, vol_a, vol_b = _kind_args(kind, tree_a, a, tree_b, b)
    rel = relative_pose(None, POSES[pose])
    rot, trans = np.ascontiguousarray(rel.rotation), np.ascontiguousarray(rel.translation)
    levels = _run(code, tree_a, tree_b, vol_a, vol_b, rot, trans, 1e-9, int(rule), record=False)
    roots = frozen(np.zeros(1, dtype=np.int32))
    args = frozen_args((code, tree_a.first, tree_a.count, tree_a.bmin, tree_a.bmax, vol_a,
                        tree_b.first, tree_b.count, tree_b.bmin, tree_b.bmax, vol_b, rot, trans))
    walk = traverse_depth_first(*args, 1e-9, int(rule), roots, roots, NO_BUDGET,
                                start_array(None), 0)  # fmt: skip
    assert levels.counts[0] > 1
    assert np.array_equal(walk.counts, levels.counts)
    assert Counter(zip(walk.leaf_a.tolist(), walk.leaf_b.tolist())) == Counter(
        zip(levels.leaf_a.tolist(), levels.leaf_b.tolist()))


def test_depth_first_obb_walk_without_rotation_culls_as_the_rotated_arithmetic():
    """With B only translated the depth-first walk tests OBBs without the 27 products of the
    rotation (core.bv.obb.relative_frame_unrotated); the level loop keeps them. Two nearly
    coincident spheres (the W2 workload: most pairs end a hair apart) give the same counts
    and leaf pairs both ways."""
    from core.collide.depthfirst import traverse_depth_first

    a = sphere_mesh(40)
    b = a.with_vertices(a.vertices * 1.001)
    tree_a, tree_b = build_tree(a), build_tree(b)
    code, vol_a, vol_b = _kind_args("obb", tree_a, a, tree_b, b)
    roots = frozen(np.zeros(1, dtype=np.int32))
    for trans in (np.zeros(3), np.array([3e-4, -1e-4, 2e-4])):
        rot = np.eye(3)
        levels = _run(code, tree_a, tree_b, vol_a, vol_b, rot, trans, 0.0, 0, record=False)
        args = frozen_args((code, tree_a.first, tree_a.count, tree_a.bmin, tree_a.bmax, vol_a,
                            tree_b.first, tree_b.count, tree_b.bmin, tree_b.bmax, vol_b, rot,
                            trans))  # fmt: skip
        walk = traverse_depth_first(*args, 0.0, 0, roots, roots, NO_BUDGET, start_array(None),
                                    0)  # fmt: skip
        assert levels.counts[0] > 1000 and levels.counts[1] < levels.counts[0]
        assert np.array_equal(walk.counts, levels.counts)
        assert Counter(zip(walk.leaf_a.tolist(), walk.leaf_b.tolist())) == Counter(
            zip(levels.leaf_a.tolist(), levels.leaf_b.tolist()))


@pytest.mark.parametrize("kind", [None, "obb"], ids=lambda k: k or "tree-boxes")
def test_fast_query_on_one_thread_and_split_equals_the_trace_query(kind, monkeypatch):
    """Fast mode walks depth first (the whole walk on one thread; a volume kind's walk below
    the split on two, the trees' own boxes always on one): the same contacts and counters as
    the trace mode's level loop, on a tree large enough that the leaf and stack buffers
    grow."""
    a = sphere_mesh(72)
    b = sphere_mesh(64, radius=0.9)
    tree_a, tree_b = build_tree(a), build_tree(b)
    pose_b = Pose.from_axis_angle((1, 2, 3), 0.6, (0.5, 0.0, 0.0))

    def run(trace):
        if kind is None:
            return collide(a, tree_a, b, tree_b, None, pose_b, trace=trace)
        return collide_bv(a, tree_a, b, tree_b, None, pose_b, bv=kind, trace=trace)

    reference = run(True)
    assert reference.counters.n_leaf_pairs > 1024
    monkeypatch.setattr(driver.numba, "get_num_threads", lambda: 1)
    one_thread = run(False)
    monkeypatch.setattr(driver.numba, "get_num_threads", lambda: 2)
    monkeypatch.setattr(driver, "SPLIT_FRONTIER", 3)
    pool, handed = driver._pool(), []

    class CountingPool:
        def submit(self, *args, **kwargs):
            handed.append(args[0])
            return pool.submit(*args, **kwargs)

    monkeypatch.setattr(driver, "_pool", CountingPool)
    split = run(False)
    # The trees' own boxes: a box test costs less than the hand-off to the second thread.
    assert handed == ([] if kind is None else [driver.traverse_depth_first] * 2)
    for fast in (one_thread, split):
        assert fast.trace is None
        assert np.array_equal(fast.pairs, reference.pairs)
        assert np.array_equal(fast.kinds, reference.kinds)
        assert fast.counters == reference.counters
