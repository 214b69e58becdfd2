"""Heat maps: per-triangle and per-node work counted from the trace equals a brute count."""

import numpy as np
import pytest

from core.bvh import SplitRule, build_tree
from core.bvh.quality import sah_cost
from core.collide.trace import OVERLAPPED
from core.lab.heat import (
    NEEDS_TRACE,
    NEEDS_TWO_MESHES,
    HeatUnavailable,
    frame_heat,
    leaf_of_triangles,
    sah_share,
)
from core.pipeline import BodyInput, FramePipeline, PipelineSettings
from core.pose import Pose
from core.request import CollisionRequest
from tests.core.meshgen import sphere_mesh


def brute_heat(trace, tree_a, tree_b):
    """Walk the trace row by row, the slow obvious way."""
    trees = (tree_a, tree_b)
    out = []
    for body in (0, 1):
        tree, other = trees[body], trees[1 - body]
        m = tree.prim_ids.shape[0]
        vol = np.zeros(m, np.int64)
        tri = np.zeros(m, np.int64)
        visits = np.zeros(tree.n_nodes, np.int64)
        for row in range(trace.node_a.shape[0]):
            mine = int((trace.node_a, trace.node_b)[body][row])
            theirs = int((trace.node_a, trace.node_b)[1 - body][row])
            visits[mine] += 1
            if tree.count[mine] > 0:
                for t in tree.triangles_under(mine):
                    vol[t] += 1
                    if trace.sep_axis[row] == OVERLAPPED and other.count[theirs] > 0:
                        tri[t] += int(other.count[theirs])
        out.append((vol, tri, visits))
    return out


@pytest.fixture(scope="module")
def frame():
    a = sphere_mesh(14, name="a")
    b = sphere_mesh(12, radius=0.8, name="b")
    pipe = FramePipeline(PipelineSettings(
        CollisionRequest(trace=True, leaf_size=3, split=SplitRule.MEDIAN)))
    return pipe.step([BodyInput("a", a), BodyInput("b", b, Pose(np.eye(3), (1.1, 0.3, 0.0)))])


def test_heat_equals_brute_count(frame):
    result = frame.result
    assert result.counters.n_contacts > 0, "the spheres must touch"
    heat = frame_heat(frame)
    expected = brute_heat(result.trace, *frame.trees)
    for body in (0, 1):
        vol, tri, visits = expected[body]
        got = heat.bodies[body]
        assert np.array_equal(got.volume_tests, vol)
        assert np.array_equal(got.triangle_tests, tri)
        assert np.array_equal(got.node_visits, visits)
        assert np.array_equal(got.work, vol + tri)
        assert got.volume_tests.dtype == np.int64 and got.triangle_tests.dtype == np.int64
        # Every triangle test has one triangle of A and one of B; every volume test a node of each.
        assert got.triangle_tests.sum() == result.counters.n_tri_tests
        assert got.node_visits.sum() == result.counters.n_bv_tests
    # Some triangles did no work at all and some did: the colour bar spans something.
    work = heat.bodies[0].work
    assert work.min() == 0 and work.max() > 0


def test_leaf_of_triangles_is_the_leaf_that_holds_it(frame):
    tree = frame.trees[0]
    leaf = leaf_of_triangles(tree)
    for node in np.flatnonzero(tree.count > 0):
        assert np.all(leaf[tree.triangles_under(node)] == node)


def test_sah_share_adds_up_to_the_sah_cost(frame):
    tree = frame.trees[0]
    share = sah_share(tree)
    assert share.shape == (tree.n_nodes,) and np.isclose(share.sum(), 100.0)
    ext = tree.bmax - tree.bmin
    area = ext[:, 0] * ext[:, 1] + ext[:, 1] * ext[:, 2] + ext[:, 2] * ext[:, 0]
    # share * total / A(root) is each node's term of sah_cost: the terms add up to it.
    total = np.where(tree.count > 0, area * tree.count, area).sum()
    assert np.isclose(share.sum() / 100.0 * total / area[0],
                      sah_cost(tree.bmin, tree.bmax, tree.count))
    assert share[0] == pytest.approx(100.0 * area[0] / total)


def test_frame_without_trace_says_so():
    a, b = sphere_mesh(8, name="a"), sphere_mesh(8, name="b")
    pipe = FramePipeline(PipelineSettings(CollisionRequest(trace=False)))
    frame = pipe.step([BodyInput("a", a), BodyInput("b", b)])
    with pytest.raises(HeatUnavailable, match="needs the traversal trace: turn on Trace"):
        frame_heat(frame)
    assert NEEDS_TRACE.startswith("needs the traversal trace: turn on Trace")


def test_one_mesh_says_so():
    a = sphere_mesh(8, name="a")
    frame = FramePipeline(PipelineSettings(CollisionRequest(trace=True))).step([BodyInput("a", a)])
    with pytest.raises(HeatUnavailable) as err:
        frame_heat(frame)
    assert str(err.value) == NEEDS_TWO_MESHES


def test_unknown_heat_name(frame):
    with pytest.raises(ValueError, match="heat map 'hot'"):
        frame_heat(frame).values(0, "hot")


def test_flat_tree_shares_by_count():
    from core.mesh import TriMesh

    flat = TriMesh(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], float),
                   np.array([[0, 1, 2], [1, 3, 2]], np.int32))
    # A flat mesh in z has boxes of area dx*dy > 0; squash it to a line to make them all 0.
    line = flat.with_vertices(flat.vertices * np.array([1.0, 0.0, 0.0]))
    tree = build_tree(line, SplitRule.MEDIAN, 1)
    assert np.allclose(sah_share(tree), 100.0 / tree.n_nodes)


def test_sah_share_is_the_quality_metrics_node_term(frame):
    # core.bvh.metrics computes each node's SAH term (with its EPO kernel, too slow for every
    # frame); the heat map's numpy share must be the same numbers, in percent.
    from core.bvh.metrics import CostConstants, tree_quality

    for mesh, tree in zip(frame.meshes, frame.trees):
        quality = tree_quality(mesh, tree, "aabb", CostConstants(1.0, 1.0))
        assert np.allclose(sah_share(tree), 100.0 * quality.nodes.sah / quality.sah)
