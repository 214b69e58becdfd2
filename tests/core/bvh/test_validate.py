"""validate_tree: trees we build pass; each broken invariant is listed with its node and size."""

import dataclasses

import numpy as np
import pytest

from core.bvh import SplitRule, build_tree, refit_tree
from core.bvh.validate import ValidationReport, Violation, ViolationKind, validate_tree
from tests.core.meshgen import sphere_mesh, triangle_soup


@pytest.fixture(scope="module")
def sphere():
    return sphere_mesh(8)


@pytest.fixture(scope="module")
def tree(sphere):
    return build_tree(sphere, SplitRule.MIDPOINT, 2)


def _with(tree, **arrays):
    """The tree with some arrays replaced (copies, so the module's tree stays intact)."""
    return dataclasses.replace(tree, **arrays)


def _internal_with_depth(tree, depth):
    nodes = tree.nodes_at_depth(depth)
    return int(nodes[tree.count[nodes] == 0][0])


@pytest.mark.parametrize("rule", list(SplitRule))
@pytest.mark.parametrize("leaf_size", [1, 4])
def test_every_built_tree_is_valid(rule, leaf_size):
    mesh = triangle_soup(300, seed=3)
    tree = build_tree(mesh, rule, leaf_size)
    report = validate_tree(tree, mesh.vertices)
    assert report.ok and report.violations == ()
    assert report.nodes_checked == tree.n_nodes
    assert report.nodes().shape == (0,)
    assert report.summary() == f"tree OK: {tree.n_nodes:,} nodes checked"


def test_single_leaf_tree_is_valid():
    mesh = triangle_soup(1)
    report = validate_tree(build_tree(mesh), mesh.vertices)
    assert report.ok and report.summary() == "tree OK: 1 node checked"


def test_refitted_tree_is_valid_and_stale_boxes_are_not(sphere, tree):
    moved = sphere.vertices.copy()
    vertex = int(sphere.faces[5, 0])
    moved[vertex] += [0.25, 0.0, 0.0]
    deformed = sphere.with_vertices(moved)
    # The boxes were fitted to the rest pose: in the deformed pose the moved vertex is out.
    stale = validate_tree(tree, deformed.vertices)
    assert not stale.ok
    assert {v.kind for v in stale.violations} == {ViolationKind.TRIANGLE_OUTSIDE}
    # The leaves holding the vertex whose box it now passes (others reach further in +x).
    holders = [leaf for leaf in np.flatnonzero(tree.count > 0)
               if vertex in sphere.faces[tree.prim_ids[tree.first[leaf]:tree.first[leaf]
                                                       + tree.count[leaf]]]
               and moved[vertex, 0] > tree.bmax[leaf, 0]]  # fmt: skip
    assert holders and set(stale.nodes().tolist()) == set(holders)
    worst = stale.violations[0]
    expected = moved[vertex, 0] - tree.bmax[worst.node, 0]
    assert worst.size == pytest.approx(expected)
    assert "along +x" in worst.text and worst.text.startswith(f"node {worst.node} (depth ")
    assert validate_tree(refit_tree(tree, deformed), deformed.vertices).ok


def test_parent_box_too_small_lists_the_child_that_sticks_out(sphere, tree):
    node = _internal_with_depth(tree, 3)
    bmax = tree.bmax.copy()
    bmax[node, 1] -= 0.125
    report = validate_tree(_with(tree, bmax=bmax), sphere.vertices)
    assert [v.node for v in report.violations] == [node] * len(report.violations)
    assert {v.kind for v in report.violations} == {ViolationKind.CHILD_OUTSIDE}
    worst = report.violations[0]
    assert worst.size == pytest.approx(0.125)
    left = int(tree.first[node])
    sticking = left if tree.bmax[left, 1] == tree.bmax[node, 1] else left + 1
    assert worst.text == f"node {node} (depth 3): child {sticking} sticks out by 0.125 along +y"
    assert (worst.child, worst.axis, worst.triangle) == (sticking, "+y", -1)
    assert report.summary().endswith("; largest 0.125")
    assert report.nodes().tolist() == [node]
    assert report.nodes().dtype == np.int32


def test_leaf_box_too_small_names_the_triangle(sphere, tree):
    leaf = int(np.flatnonzero(tree.count > 0)[7])
    bmin = tree.bmin.copy()
    bmin[leaf, 2] += 0.01
    report = validate_tree(_with(tree, bmin=bmin), sphere.vertices)
    (violation,) = report.violations
    assert violation.kind is ViolationKind.TRIANGLE_OUTSIDE and violation.node == leaf
    assert violation.size == pytest.approx(0.01)
    tris = tree.prim_ids[tree.first[leaf]:tree.first[leaf] + tree.count[leaf]]
    lowest = tris[np.argmin(sphere.vertices[sphere.faces[tris]][:, :, 2].min(axis=1))]
    assert f": triangle {lowest} sticks out by 0.01 along -z" in violation.text
    assert (violation.triangle, violation.axis, violation.child) == (lowest, "-z", -1)
    assert report.summary() == "1 violation in 1 node; largest 0.01"


def test_sorted_by_size_then_node_and_capped(sphere, tree):
    # Shrink every box about its centre: every node violates, by different amounts.
    centre = 0.5 * (tree.bmin + tree.bmax)
    report = validate_tree(_with(tree, bmin=centre - 0.25 * (centre - tree.bmin),
                                 bmax=centre + 0.25 * (tree.bmax - centre)),
                           sphere.vertices, max_listed=10)  # fmt: skip
    assert len(report.violations) == 10 and report.n_found > 10
    keys = [(-v.size, v.node) for v in report.violations]
    assert keys == sorted(keys)
    assert report.nodes().shape == (tree.n_nodes,)
    assert "(the 10 largest listed)" in report.summary()


def test_nan_box_is_infinitely_far_out(sphere, tree):
    bmin = tree.bmin.copy()
    bmin[0, 0] = np.nan
    report = validate_tree(_with(tree, bmin=bmin), sphere.vertices)
    assert report.violations[0].node == 0 and report.violations[0].size == np.inf
    assert "not a number" in report.violations[0].text


def test_prim_ids_not_a_permutation(sphere, tree):
    prim_ids = tree.prim_ids.copy()
    prim_ids[3] = prim_ids[4]
    report = validate_tree(_with(tree, prim_ids=prim_ids), sphere.vertices)
    kinds = {v.kind for v in report.violations}
    assert ViolationKind.PERMUTATION in kinds
    (perm,) = [v for v in report.violations if v.kind is ViolationKind.PERMUTATION]
    assert perm.node == -1 and perm.size == 0.0
    assert "1 repeated" in perm.text and "1 missing" in perm.text
    assert -1 not in report.nodes()


def _set(array, index, value):
    array[index] = value
    return array


@pytest.mark.parametrize("what, change, words", [
    ("parent", lambda a: _set(a, 5, 0), "parent is 0"),
    ("depth", lambda a: _set(a, 4, 9), "depth 9 is not"),
    ("first", lambda a: _set(a, 0, 0), "are not nodes after it"),
    ("n_prims", lambda a: _set(a, 1, 3), "is not the union"),
    ("level_nodes", lambda a: a[::-1].copy(), "another level"),
    ("level_start", lambda a: a[:-1].copy(), "level_start"),
])  # fmt: skip
def test_topology_problems_are_named(sphere, tree, what, change, words):
    array = change(getattr(tree, what).copy())
    report = validate_tree(_with(tree, **{what: array}), sphere.vertices)
    assert not report.ok
    topo = [v for v in report.violations if v.kind is ViolationKind.TOPOLOGY]
    assert topo and any(words in v.text for v in topo), [v.text for v in topo]


def test_arrays_of_the_wrong_length_are_one_whole_tree_problem(sphere, tree):
    report = validate_tree(_with(tree, parent=tree.parent[:-1].copy()), sphere.vertices)
    (violation,) = report.violations
    assert violation.node == -1 and violation.kind is ViolationKind.TOPOLOGY
    assert "parent" in violation.text


def test_file_ids_are_named(sphere, tree):
    bmax = tree.bmax.copy()
    bmax[2, 0] -= 0.5
    file_ids = np.arange(tree.n_nodes, dtype=np.int64) * 10 + 7
    report = validate_tree(_with(tree, bmax=bmax), sphere.vertices, file_ids=file_ids)
    # One id per node: the file's, for the node at fault and for the child that sticks out.
    violation = report.violations[0]
    child_file_id = int(tree.first[2]) * 10 + 7 + 10 * (violation.child - int(tree.first[2]))
    assert violation.text.startswith(f"node 27 (depth 1): child {child_file_id} sticks out")
    assert violation.node == 2 and violation.child in (int(tree.first[2]),
                                                       int(tree.first[2]) + 1)  # fmt: skip
    same = validate_tree(_with(tree, bmax=bmax), sphere.vertices,
                         file_ids=np.arange(tree.n_nodes, dtype=np.int64))  # fmt: skip
    assert same.violations[0].text.startswith("node 2 (depth 1): ")


def test_bad_arguments_raise(sphere, tree):
    with pytest.raises(ValueError, match="vertices must be of shape"):
        validate_tree(tree, sphere.vertices[:, :2])
    with pytest.raises(ValueError, match="only 3 vertices"):
        validate_tree(tree, sphere.vertices[:3])


def test_report_is_plain_data():
    violation = Violation(3, ViolationKind.TOPOLOGY, 0.0, "node 3 (depth 1): x")
    report = ValidationReport((violation,), 7, 0.001)
    assert report.n_found == 1 and not report.ok and report.nodes().tolist() == [3]
    assert report.summary() == "1 violation in 1 node; topology inconsistent"
    assert ViolationKind.CHILD_OUTSIDE.value == "child sticks out of its parent"
