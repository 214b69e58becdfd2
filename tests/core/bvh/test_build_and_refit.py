"""Tree invariants for every split rule and leaf size; refit; quality drift."""

import dataclasses

import numpy as np
import pytest

from core.bvh import SplitRule, build_tree, build_trees, refit_tree, tree_drift
from core.bvh.build import build_topology, face_boxes
from core.bvh.tree import DERIVED_FIELDS, levels_of
from core.errors import TopologyChangedError
from core.mesh import TriMesh
from tests.core.meshgen import sphere_mesh, triangle_soup

RULES = list(SplitRule)
LEAF_SIZES = [1, 2, 5]


def _node_boxes_from_triangles(tree, mesh):
    """Reference boxes: min/max over the corners of the triangles under each node."""
    tri = mesh.vertices[mesh.faces]
    lo = np.empty((tree.n_nodes, 3))
    hi = np.empty((tree.n_nodes, 3))
    for node in range(tree.n_nodes):
        corners = tri[tree.triangles_under(node)].reshape(-1, 3)
        lo[node] = corners.min(axis=0)
        hi[node] = corners.max(axis=0)
    return lo, hi


def check_invariants(tree, mesh):
    m = mesh.n_faces
    k = tree.n_nodes
    assert np.array_equal(np.sort(tree.prim_ids), np.arange(m)), "prim_ids is not a permutation"
    assert tree.parent[0] == -1 and tree.depth[0] == 0 and tree.n_prims[0] == m
    leaf = tree.count > 0
    assert leaf.sum() == tree.stats.n_leaves
    assert k == 2 * leaf.sum() - 1, "a binary tree has 2L - 1 nodes"
    assert tree.count[leaf].max() <= tree.leaf_size
    assert tree.count[leaf].sum() == m
    internal = np.flatnonzero(~leaf)
    left = tree.first[internal]
    # Children are stored after the parent, in pairs, and point back to it.
    assert np.all(left > internal)
    assert np.array_equal(tree.parent[left], internal)
    assert np.array_equal(tree.parent[left + 1], internal)
    assert np.array_equal(tree.depth[left], tree.depth[internal] + 1)
    assert np.array_equal(tree.n_prims[left] + tree.n_prims[left + 1], tree.n_prims[internal])
    assert np.array_equal(tree.prim_start[left], tree.prim_start[internal])
    assert np.array_equal(tree.prim_start[left + 1], tree.prim_start[left] + tree.n_prims[left])
    assert np.all(tree.n_prims[left] > 0) and np.all(tree.n_prims[left + 1] > 0)
    assert np.array_equal(tree.first[leaf], tree.prim_start[leaf])
    # Parent boxes contain their children's.
    for child in (left, left + 1):
        assert np.all(tree.bmin[internal] <= tree.bmin[child])
        assert np.all(tree.bmax[internal] >= tree.bmax[child])
    # Every box is the tight box of the triangles under it.
    lo, hi = _node_boxes_from_triangles(tree, mesh)
    assert np.array_equal(tree.bmin, lo) and np.array_equal(tree.bmax, hi)
    # Levels group every node once, by depth.
    assert np.array_equal(np.sort(tree.level_nodes), np.arange(k))
    for d in range(tree.max_depth + 1):
        assert np.all(tree.depth[tree.nodes_at_depth(d)] == d)
    assert tree.stats.depth_max == tree.max_depth
    assert tree.nodes_at_depth(tree.max_depth + 1).size == 0


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name.lower())
@pytest.mark.parametrize("leaf_size", LEAF_SIZES)
def test_invariants_on_soup(rule, leaf_size):
    mesh = triangle_soup(400, seed=3)
    check_invariants(build_tree(mesh, rule, leaf_size), mesh)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name.lower())
def test_invariants_on_real_mesh(rule, spot):
    check_invariants(build_tree(spot, rule, 1), spot)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name.lower())
def test_identical_centres_fall_back_to_equal_split(rule):
    # 64 copies of one triangle: no rule can separate them by position, every one must
    # still terminate with a balanced tree (the equal-split fallback).
    v = np.tile(np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]]), (64, 1))
    f = np.arange(64 * 3).reshape(64, 3)
    mesh = TriMesh.from_arrays(v, f)
    tree = build_tree(mesh, rule, 1)
    check_invariants(tree, mesh)
    assert tree.max_depth == 6


def test_single_triangle_tree_is_one_leaf():
    mesh = TriMesh.from_arrays([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    tree = build_tree(mesh)
    assert tree.n_nodes == 1 and tree.count[0] == 1 and tree.max_depth == 0


def test_degenerate_triangles_are_kept():
    v = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
    f = np.array([[0, 1, 2], [0, 0, 3], [0, 3, 4], [1, 3, 4]])  # collinear, repeated, two good
    mesh = TriMesh.from_arrays(v, f)
    assert mesh.n_degenerate == 2
    check_invariants(build_tree(mesh, SplitRule.SAH, 1), mesh)


def test_midpoint_rule_splits_at_box_midpoint():
    # Triangles at x = 0, 1, 2, 10: the root box spans [0, 10.5]; the midpoint 5.25 puts
    # three triangles left and one right (an object median would put two and two).
    xs = [0.0, 1.0, 2.0, 10.0]
    v = np.concatenate([[[x, 0, 0], [x + 0.5, 0, 0], [x, 0.5, 0]] for x in xs])
    mesh = TriMesh.from_arrays(v, np.arange(12).reshape(4, 3))
    tree = build_tree(mesh, SplitRule.MIDPOINT, 1)
    left = tree.first[0]
    assert sorted(tree.triangles_under(left).tolist()) == [0, 1, 2]
    assert tree.triangles_under(left + 1).tolist() == [3]
    median = build_tree(mesh, SplitRule.MEDIAN, 1)
    assert median.n_prims[median.first[0]] == 2


def test_median_rule_is_balanced():
    mesh = triangle_soup(1000, seed=1)
    tree = build_tree(mesh, SplitRule.MEDIAN, 1)
    assert tree.stats.depth_max - tree.stats.depth_min <= 1


def test_sah_has_the_lowest_cost_on_uneven_soup():
    mesh = triangle_soup(2000, seed=5, clustered=True)
    costs = {r: build_tree(mesh, r, 1).stats.sah_cost for r in RULES}
    assert costs[SplitRule.SAH] <= min(costs.values()) * 1.0001


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name.lower())
def test_refit_equals_fresh_fit_on_same_topology(rule):
    mesh = sphere_mesh(24)
    tree = build_tree(mesh, rule, 2)
    rng = np.random.default_rng(0)
    moved = mesh.with_vertices(mesh.vertices * 1.3 + rng.normal(0, 0.05, mesh.vertices.shape))
    refitted = refit_tree(tree, moved)
    lo, hi = _node_boxes_from_triangles(tree, moved)
    assert np.array_equal(refitted.bmin, lo) and np.array_equal(refitted.bmax, hi)
    # Topology is shared, the original boxes are untouched.
    assert refitted.first is tree.first and refitted.prim_ids is tree.prim_ids
    assert not np.array_equal(tree.bmin, refitted.bmin)
    check_invariants(refitted, moved)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name.lower())
def test_refit_on_two_threads_equals_fresh_fit(rule, monkeypatch):
    """The root's two subtrees refit side by side (both runs of node ids checked)."""
    import core.bvh.refit as refit

    mesh = sphere_mesh(24)
    tree = build_tree(mesh, rule, 1)
    assert refit._subtree_ranges(tree.first, tree.count).shape == (2, 2)
    monkeypatch.setattr(refit, "_PARALLEL_REFIT_MIN", 0)
    moved = mesh.with_vertices(mesh.vertices * 1.1 + np.sin(mesh.vertices[:, ::-1]) * 0.05)
    refitted = refit_tree(tree, moved)
    lo, hi = _node_boxes_from_triangles(tree, moved)
    assert np.array_equal(refitted.bmin, lo) and np.array_equal(refitted.bmax, hi)


def _reversed_ids(tree):
    """``tree`` with node ``i`` renumbered ``k - 1 - i``: every child now comes before its parent
    (each pair of children stays adjacent, left and right swapped)."""
    k = tree.n_nodes
    old_of_new = np.arange(k - 1, -1, -1)
    is_leaf = tree.count[old_of_new] > 0
    first = np.where(is_leaf, tree.first[old_of_new], k - 2 - tree.first[old_of_new])
    parent = np.where(tree.parent[old_of_new] < 0, -1, k - 1 - tree.parent[old_of_new])
    return dataclasses.replace(
        tree, first=first.astype(np.int32), count=tree.count[old_of_new],
        parent=parent.astype(np.int32), depth=tree.depth[old_of_new],
        prim_start=tree.prim_start[old_of_new], n_prims=tree.n_prims[old_of_new],
        bmin=tree.bmin[old_of_new], bmax=tree.bmax[old_of_new],
        level_nodes=(k - 1 - tree.level_nodes).astype(np.int32),
    )  # fmt: skip


def test_refit_of_a_tree_whose_children_come_first_equals_fresh_fit():
    """The one-pass refit needs children after their parents; other orders refit by levels."""
    mesh = sphere_mesh(24)
    tree = _reversed_ids(build_tree(mesh, SplitRule.MIDPOINT, 2))
    assert (tree.first[tree.count == 0] < np.flatnonzero(tree.count == 0)).all()
    moved = mesh.with_vertices(mesh.vertices * 0.7 + 0.1)
    refitted = refit_tree(tree, moved)
    lo, hi = _node_boxes_from_triangles(tree, moved)
    assert np.array_equal(refitted.bmin, lo) and np.array_equal(refitted.bmax, hi)


def test_refit_of_changed_topology_raises():
    mesh = sphere_mesh(12)
    tree = build_tree(mesh)
    flipped = TriMesh.from_arrays(mesh.vertices, mesh.faces[:, ::-1])
    with pytest.raises(TopologyChangedError):
        refit_tree(tree, flipped)
    fewer = TriMesh.from_arrays(mesh.vertices, mesh.faces[:-1])
    with pytest.raises(TopologyChangedError):
        refit_tree(tree, fewer)
    # Equal faces in another array are the same topology.
    same = TriMesh.from_arrays(mesh.vertices, mesh.faces.copy())
    refit_tree(tree, same)


def test_drift_is_zero_after_build_and_grows_with_deformation():
    mesh = sphere_mesh(32)
    tree = build_tree(mesh)
    assert tree_drift(tree) == 0.0
    assert tree_drift(tree, refit_tree(tree, mesh)) == pytest.approx(0.0, abs=1e-12)
    rng = np.random.default_rng(2)
    drifts = []
    for noise in (0.01, 0.05, 0.2):
        moved = mesh.with_vertices(mesh.vertices + rng.normal(0, noise, mesh.vertices.shape))
        drifts.append(tree_drift(tree, refit_tree(tree, moved)))
    assert 0.0 < drifts[0] < drifts[1] < drifts[2]


def test_drift_is_scale_invariant():
    mesh = sphere_mesh(16)
    tree = build_tree(mesh)
    big = refit_tree(tree, mesh.with_vertices(mesh.vertices * 1000.0))
    assert tree_drift(tree, big) == pytest.approx(0.0, abs=1e-9)


def test_build_trees_matches_serial_builds():
    meshes = [sphere_mesh(20), triangle_soup(300, seed=4)]
    together = build_trees(meshes, SplitRule.SAH, 2)
    for mesh, tree in zip(meshes, together):
        alone = build_tree(mesh, SplitRule.SAH, 2)
        assert np.array_equal(tree.prim_ids, alone.prim_ids)
        assert np.array_equal(tree.bmin, alone.bmin)


def test_face_boxes_match_numpy():
    mesh = triangle_soup(100, seed=8)
    lo, hi = face_boxes(mesh.vertices, mesh.faces)
    tri = mesh.triangles
    assert np.array_equal(lo, tri.min(axis=1)) and np.array_equal(hi, tri.max(axis=1))


def test_leaf_size_must_be_positive():
    with pytest.raises(ValueError, match="leaf_size"):
        build_tree(sphere_mesh(8), leaf_size=0)


def test_obb_rule_cuts_across_the_long_axis_of_a_rotated_rod():
    """A rod along a diagonal direction: its AABB's longest axis is a coordinate axis, but the
    OBB rule (Gottschalk et al. 1996) must cut across the rod itself, at the mean."""
    rng = np.random.default_rng(5)
    base = sphere_mesh(16)
    stretched = base.vertices * np.array([6.0, 0.4, 0.4])
    axis = np.array([1.0, 1.0, 0.3]) / np.linalg.norm([1.0, 1.0, 0.3])
    # Rotation taking x onto the rod direction.
    v = np.cross([1.0, 0.0, 0.0], axis)
    c = axis[0]
    vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    rot = np.eye(3) + vx + vx @ vx / (1.0 + c)
    mesh = TriMesh.from_arrays(stretched @ rot.T + rng.normal(size=3), base.faces)
    tree = build_tree(mesh, SplitRule.OBB)
    check_invariants(tree, mesh)
    centres = mesh.vertices[mesh.faces].mean(axis=1)
    proj = (centres - centres.mean(axis=0)) @ axis
    left = tree.triangles_under(tree.first[0])
    right = tree.triangles_under(tree.first[0] + 1)
    # Every triangle of one child lies before every triangle of the other along the rod.
    lo, hi = sorted([proj[left], proj[right]], key=np.mean)
    assert lo.max() <= hi.min() + 1e-9
    # Cut at the mean of the centres: the mean falls between the two sides.
    assert lo.max() <= proj.mean() <= hi.min() + 1e-9
    # The rod is 15 times longer than wide: far fewer levels than a bad split would need.
    assert tree.stats.depth_max <= 3 * np.log2(mesh.n_faces)


@pytest.mark.parametrize("leaf_size", LEAF_SIZES)
@pytest.mark.parametrize("rule", RULES)
def test_a_tree_holds_no_derivable_array_until_read_and_derives_the_builders(rule, leaf_size):
    mesh = sphere_mesh(12)
    tree = build_tree(mesh, rule, leaf_size)
    held = {id(a) for a in tree.held_arrays()}
    assert held == {id(a) for a in (tree.first, tree.count, tree.prim_ids, tree.bmin, tree.bmax,
                                    tree.faces)}  # fmt: skip
    # What the query and the refit read is all a refitted tree holds either: those, and the
    # triangles' corners in the tree's order, which the refit reads (Tree.corners).
    moved = mesh.with_vertices(mesh.vertices * 1.5)
    assert len(refit_tree(tree, moved).held_arrays()) == len(held) + 1
    held.add(id(tree.corners))
    pmin, pmax = face_boxes(mesh.vertices, mesh.faces)
    made = build_topology(pmin, pmax, int(rule), leaf_size, mesh.vertices, mesh.faces)
    level_nodes, level_start = levels_of(made[3])
    for name, want in zip(DERIVED_FIELDS, (*made[2:6], level_nodes, level_start), strict=True):
        got = getattr(tree, name)
        assert got.dtype == want.dtype and np.array_equal(got, want), name
        assert not got.flags.writeable, name
    assert len(tree.held_arrays()) == len(held) + len(DERIVED_FIELDS)
    # Read once, kept: a refit of the same topology shares them.
    refitted = refit_tree(tree, moved)
    assert all(getattr(refitted, name) is getattr(tree, name) for name in DERIVED_FIELDS)


def test_the_refit_reads_the_corners_in_tree_order_made_once_per_triangle_order():
    from core.bvh.scramble import scrambled_tree

    mesh = sphere_mesh(12)
    tree = build_tree(mesh, leaf_size=4)
    assert "corners" not in tree.__dict__.get("_derived", {})  # made when first read
    moved = mesh.with_vertices(mesh.vertices * 1.5)
    refitted = refit_tree(tree, moved)
    corners = refitted.corners
    assert np.array_equal(corners, mesh.faces[tree.prim_ids])
    assert corners.dtype == np.int32 and not corners.flags.writeable
    # One array for the built tree and every refit of it, counted once by each holder.
    again = refit_tree(refitted, mesh)
    assert again.corners is corners and tree.corners is corners
    assert sum(a is corners for a in again.held_arrays()) == 1
    # Boxes as a fresh build fits them.
    assert np.array_equal(again.bmin, tree.bmin) and np.array_equal(again.bmax, tree.bmax)
    # Another triangle order over the same nodes shares the store, not the order.
    other = scrambled_tree(tree, mesh, seed=1)
    assert not np.array_equal(other.prim_ids, tree.prim_ids)
    assert np.array_equal(other.corners, mesh.faces[other.prim_ids])
    assert tree.corners is not other.corners
    assert np.array_equal(tree.corners, mesh.faces[tree.prim_ids])


def test_a_tree_given_one_derivable_array_keeps_it_and_counts_each_array_once():
    mesh = sphere_mesh(8)
    built = build_tree(mesh)
    parent = built.parent.copy()  # read: built derives all six
    tree = built.replaced(parent=parent)
    assert np.array_equal(tree.parent, built.parent) and tree.parent is not built.parent
    assert tree.depth is built.depth  # the same topology shares what was derived
    held = tree.held_arrays()
    # first, count, prim_ids, bmin, bmax, faces and the six, each once.
    assert len(held) == len({id(a) for a in held}) == 6 + len(DERIVED_FIELDS)


def test_a_tree_given_a_derivable_array_derives_only_the_others():
    mesh = sphere_mesh(8)
    built = build_tree(mesh)
    tree = built.replaced(parent=built.parent.copy())
    given = tree.parent
    fresh = build_tree(mesh).replaced(parent=given)
    assert fresh.depth is not None and fresh.parent is given
    assert len(fresh.held_arrays()) == 6 + len(DERIVED_FIELDS)
    assert "parent" not in fresh.__dict__["_derived"]


def test_arrays_derived_on_a_refit_serve_the_tree_it_came_from_and_every_later_refit(
        monkeypatch):  # fmt: skip
    import core.bvh.tree as tree_module

    mesh = sphere_mesh(12)
    built = build_tree(mesh)
    first_refit = refit_tree(built, mesh.with_vertices(mesh.vertices * 1.1))
    calls = []
    real = tree_module.derive_arrays
    monkeypatch.setattr(tree_module, "derive_arrays",
                        lambda first, count: calls.append(1) or real(first, count))
    levels = first_refit.level_nodes  # as the viewer reads a frame's refitted tree
    later = refit_tree(built, mesh.with_vertices(mesh.vertices * 1.2))
    assert built.level_nodes is levels and later.level_nodes is levels
    assert all(getattr(later, name) is getattr(built, name) for name in DERIVED_FIELDS)
    assert len(calls) == 1
    # Another topology derives its own.
    other = build_tree(sphere_mesh(8))
    assert other.level_nodes is not levels and len(calls) == 2
