"""The triangle test's box stage: the pairs of overlapping leaves whose corner boxes are apart
are left out before the exact test, and nothing else is."""

import numba
import numpy as np
import pytest

import core.collide.tandem as tandem
from core import contacts
from core.bvh import build_tree
from core.collide import collide
from core.collide.query import vertices_in_a
from core.collide.tandem import expand_leaf_pairs, overlapping_triangle_pairs
from core.collide.traversal import TREE_BOXES
from core.collide.traversal_driver import budgeted_traversal
from core.mesh import TriMesh
from core.pose import Pose
from tests.core.helpers import ROTATED, oracle_pairs
from tests.core.meshgen import triangle_soup


def _leaf_pairs(mesh_a, tree_a, mesh_b, tree_b, pose_b):
    rot = np.ascontiguousarray(pose_b.rotation)
    trans = np.ascontiguousarray(pose_b.translation)
    args = (TREE_BOXES, tree_a.first, tree_a.count, tree_a.bmin, tree_a.bmax, tree_a.bmin,
            tree_b.first, tree_b.count, tree_b.bmin, tree_b.bmax, tree_b.bmin,
            rot, trans, 1e-12, 0, False, False)  # fmt: skip
    traversal = budgeted_traversal(args, False, 10**7, None, (tree_a, tree_b), ("A", "B"), "q")
    return traversal.leaf_a, traversal.leaf_b, vertices_in_a(mesh_b, rot, trans)


def _boxes_meet(va, fa, vb, fb, pairs):
    """The pairs' corner boxes overlap (touching counts), computed with numpy."""
    tri_a = va[fa[pairs[:, 0]]]
    tri_b = vb[fb[pairs[:, 1]]]
    apart = (tri_a.max(1) < tri_b.min(1)).any(1) | (tri_b.max(1) < tri_a.min(1)).any(1)
    return ~apart


@pytest.mark.parametrize("leaf_size", [1, 3, 8])
@pytest.mark.parametrize("is_parallel", [False, True], ids=["one run", "a run per thread"])
def test_the_box_stage_keeps_exactly_the_pairs_whose_boxes_meet(leaf_size, is_parallel,
                                                                 monkeypatch):  # fmt: skip
    if is_parallel:
        if numba.get_num_threads() < 2:
            pytest.skip("numba runs one thread here")
        monkeypatch.setattr(tandem, "PARALLEL_MIN_LEAF_PAIRS", 1)
    a = triangle_soup(300, seed=21, name="a")
    b = triangle_soup(300, seed=22, name="b")
    tree_a, tree_b = build_tree(a, leaf_size=leaf_size), build_tree(b, leaf_size=leaf_size)
    leaf_a, leaf_b, vb = _leaf_pairs(a, tree_a, b, tree_b, ROTATED)
    # Leaves met in several pairs reuse the boxes computed at their first pair.
    assert np.unique(leaf_a).size < leaf_a.size and np.unique(leaf_b).size < leaf_b.size
    every = expand_leaf_pairs(leaf_a, leaf_b, tree_a.first, tree_a.count, tree_a.prim_ids,
                              tree_b.first, tree_b.count, tree_b.prim_ids)  # fmt: skip
    kept, n_candidates = overlapping_triangle_pairs(leaf_a, leaf_b, tree_a, tree_b, a.vertices,
                                                    a.faces, vb, b.faces)  # fmt: skip
    assert n_candidates == every.shape[0]
    expected = every[_boxes_meet(a.vertices, a.faces, vb, b.faces, every)]
    assert 0 < expected.shape[0] < every.shape[0] or leaf_size == 1
    assert np.array_equal(kept, expected)  # same pairs, same order
    assert kept.dtype == np.int32


@pytest.mark.parametrize("leaf_size", [1, 4, 8])
def test_contacts_with_several_triangles_a_leaf_match_the_oracle(leaf_size):
    a = triangle_soup(400, seed=5, size=0.1, name="a")
    b = triangle_soup(400, seed=6, size=0.1, name="b")
    expected = oracle_pairs(a, b, None, ROTATED)
    assert len(expected) > 20
    result = collide(a, build_tree(a, leaf_size=leaf_size), b, build_tree(b, leaf_size=leaf_size),
                     None, ROTATED)  # fmt: skip
    assert np.array_equal(result.pairs, expected)


def _touching_on_a_box_face():
    """Leaves of four triangles each; one pair of A and B meets only at a corner on the plane
    x = 1, where A's boxes end and B's begin (boxes touching, not overlapping)."""
    fan_a = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.5, 0.5, 0.5], [0.2, 0.9, 0.1],
                      [0.3, 0.1, 0.8]], dtype=float)  # fmt: skip
    faces_a = np.array([[0, 1, 2], [0, 2, 3], [0, 3, 4], [2, 4, 5]], dtype=np.int32)
    fan_b = np.array([[1, 0, 0], [2, 0, 0.5], [2, 1, 0], [3, 1, 1], [2.5, 0.2, 0.9],
                      [2.9, 0.8, 0.3]], dtype=float)  # fmt: skip
    faces_b = np.array([[0, 1, 2], [1, 2, 3], [1, 3, 4], [2, 4, 5]], dtype=np.int32)
    return TriMesh.from_arrays(fan_a, faces_a, "a"), TriMesh.from_arrays(fan_b, faces_b, "b")


def test_boxes_that_only_touch_keep_their_pair_and_the_corner_contact_is_found():
    a, b = _touching_on_a_box_face()
    expected = oracle_pairs(a, b)
    assert expected.tolist() == [[0, 0]]  # triangle 0 of each, at the corner (1, 0, 0)
    result = contacts(a, b, leaf_size=4)
    assert result.pairs.tolist() == [[0, 0]]
    assert result.counters.n_tri_tests == 16  # one leaf pair of 4 x 4 candidates


def test_one_ulp_past_the_box_face_is_disjoint():
    a, b = _touching_on_a_box_face()
    moved = b.vertices.copy()
    moved[0, 0] = np.nextafter(1.0, 2.0)  # B's corner one ulp past A's box face
    b_apart = b.with_vertices(moved)
    assert len(oracle_pairs(a, b_apart)) == 0
    assert contacts(a, b_apart, leaf_size=4).pairs.shape[0] == 0
    assert contacts(a, b_apart, None, Pose(), leaf_size=1).pairs.shape[0] == 0


def test_the_box_rows_hold_each_distinct_leafs_triangles_once_however_uneven_the_leaves():
    """A tree read from a file may hold one leaf of thousands of triangles beside many of one:
    the rows are the distinct leaves' triangles (here 1,000 + 5,000), not a row block of the
    biggest leaf per leaf (5,001,000 rows, 240 MB)."""
    count = np.ones(5002, dtype=np.int32)
    count[0] = 0  # the root
    count[1] = 1000
    leaf = np.concatenate([np.full(3, 1), np.arange(2, 5002), np.arange(2, 5002)]).astype(np.int32)
    slot_of, nodes, starts, most = tandem._leaf_slots(leaf, count, count.shape[0])
    assert most == 1000 and nodes.shape[0] == 5001 and nodes[0] == 1
    assert starts[-1] == 1000 + 5000
    assert np.array_equal(np.diff(starts), count[nodes])
    assert slot_of[0] == -1 and slot_of[1] == 0 and slot_of[5001] == 5000
