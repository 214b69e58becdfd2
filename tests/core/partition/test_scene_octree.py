"""Scene octree over object OBBs (Zhou et al. 2009): same pairs as all-pairs OBB tests, correct
start nodes as objects move, fewer visited nodes than a search from the root."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.partition.scene_octree import (
    SceneOBBs,
    SceneOctree,
    SceneOctreeParams,
    brute_force_obb_pairs,
    demo_scene,
    local_obbs,
    obb_from_vertices,
    obb_overlap,
    triangle_contacts,
)
from core.pose import Pose


@pytest.fixture(scope="module")
def scene():
    meshes, poses = demo_scene(60, seed=3)
    return meshes, poses, local_obbs(meshes)


def moved(poses, rng, step):
    return [
        Pose(p.rotation, p.translation + rng.normal(0.0, step, 3)) for p in poses
    ]  # fmt: skip


def test_obb_fit_contains_the_vertices(scene):
    meshes, _, _ = scene
    for mesh in meshes[:10]:
        c, axes, half = obb_from_vertices(mesh.vertices)
        assert np.allclose(axes.T @ axes, np.eye(3))
        local = (mesh.vertices - c) @ axes
        assert np.all(np.abs(local) <= half + 1e-12)


def test_sat_against_known_boxes():
    eye = np.eye(3)[None]
    rot = Pose.from_axis_angle((0, 0, 1), np.pi / 4).rotation[None]
    half = np.ones((1, 3))
    # unit boxes 2.2 apart overlap only when one is turned 45 degrees (its corner reaches 1.41)
    apart = SceneOBBs(np.array([[0.0, 0, 0], [2.2, 0, 0]]), np.concatenate([eye, eye]),
                      np.concatenate([half, half]))  # fmt: skip
    turned = SceneOBBs(apart.center, np.concatenate([eye, rot]), apart.half)
    assert not obb_overlap(apart, 0, 1)
    assert obb_overlap(turned, 0, 1)
    # an edge-edge case: two boxes turned about different axes, separated only by a cross axis
    r1 = Pose.from_axis_angle((1, 0, 0), np.pi / 4).rotation[None]
    r2 = Pose.from_axis_angle((0, 1, 0), np.pi / 4).rotation[None]
    edge = SceneOBBs(np.array([[0.0, 0, 0], [0.0, 0, 2.0 * np.sqrt(2) + 0.01]]),
                     np.concatenate([r1, r2]), np.concatenate([half, half]))  # fmt: skip
    assert not obb_overlap(edge, 0, 1)


def test_pairs_equal_brute_force_and_fewer_nodes(scene):
    meshes, poses, (lc, la, lh) = scene
    rng = np.random.default_rng(0)
    obbs = SceneOBBs.from_local(lc, la, lh, poses)
    tree = SceneOctree(obbs, SceneOctreeParams(max_depth=4, capacity=2))
    assert tree.n_nodes > 9
    record = tree.query(obbs)
    expected = brute_force_obb_pairs(obbs, tree.margin)
    assert len(expected) > 3
    assert np.array_equal(record.pairs, expected)
    for _ in range(5):
        poses = moved(poses, rng, 0.3)
        obbs = SceneOBBs.from_local(lc, la, lh, poses)
        record = tree.query(obbs, previous=record.start_node)
        baseline = tree.query(obbs, from_root=True)
        expected = brute_force_obb_pairs(obbs, tree.margin)
        assert np.array_equal(record.pairs, expected)
        assert np.array_equal(baseline.pairs, expected)
        assert record.n_visited_nodes < baseline.n_visited_nodes
        assert record.n_node_tests < baseline.n_node_tests


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), step=st.floats(0.01, 3.0))
def test_start_node_follows_the_object(scene, seed, step):
    meshes, poses, (lc, la, lh) = scene
    obbs = SceneOBBs.from_local(lc, la, lh, poses)
    tree = SceneOctree(obbs, SceneOctreeParams(max_depth=4, capacity=2))
    record = tree.query(obbs)
    rng = np.random.default_rng(seed)
    new_obbs = SceneOBBs.from_local(lc, la, lh, moved(poses, rng, step))
    lo, hi = new_obbs.aabbs(2.0 * tree.margin)
    incremental = tree.query(new_obbs, previous=record.start_node)
    for i in range(len(meshes)):
        node, _ = tree.locate(lo[i], hi[i], 0)
        assert incremental.start_node[i] == node
        # the node holds the box and no child of it does
        if node != 0:
            assert np.all(lo[i] > tree.bmin[node]) and np.all(hi[i] < tree.bmax[node])
        f = tree.first_child[node]
        if f >= 0:
            for c in range(f, f + 8):
                assert not (np.all(lo[i] > tree.bmin[c]) and np.all(hi[i] < tree.bmax[c]))


def test_triangle_level_on_overlapping_pairs(scene):
    meshes, poses, (lc, la, lh) = scene
    obbs = SceneOBBs.from_local(lc, la, lh, poses)
    tree = SceneOctree(obbs)
    record = tree.query(obbs)
    hits = triangle_contacts(meshes, poses, record.pairs)
    assert set(hits) <= {tuple(p) for p in record.pairs.tolist()}
    assert all(r.n_contacts > 0 for r in hits.values())
