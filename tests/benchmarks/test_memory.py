"""Memory of a benchmark size: bytes of trees against meshes, peak resident set of a child."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import memory, ours
from benchmarks.__main__ import _memory_lines
from benchmarks.scenes import sphere_case
from core.bvh import build_tree


def test_tree_bytes_count_the_tree_arrays_but_not_the_mesh_it_shares():
    mesh = sphere_case("1k", 1000).mesh
    tree = build_tree(mesh)
    every_array = [tree.first, tree.count, tree.parent, tree.depth, tree.prim_start,
                   tree.n_prims, tree.prim_ids, tree.bmin, tree.bmax, tree.level_nodes,
                   tree.level_start, tree.faces]  # fmt: skip
    shared = [a for a in every_array if np.shares_memory(a, mesh.faces)]
    expected = sum(a.nbytes for a in every_array) - sum(a.nbytes for a in shared)
    assert memory.tree_bytes(tree, mesh) == expected
    assert memory.mesh_bytes(mesh) >= mesh.vertices.nbytes + mesh.faces.nbytes



def test_the_benchmark_trees_take_no_more_bytes_than_their_meshes():
    # Issue 27, item 3: trees + volumes within 1x the meshes, the boxes still float64 (exact).
    mesh = sphere_case("10k", 10_000).mesh
    tree = ours.build_one(mesh)
    assert tree.leaf_size == ours.LEAF_SIZE > 1
    assert memory.tree_bytes(tree, mesh) <= memory.mesh_bytes(mesh)
    # What the lessons draw keeps one triangle a leaf: the engine's default is unchanged.
    assert build_tree(mesh).stats.leaf_size_max == 1


@pytest.fixture(scope="module")
def child_of_a_large_parent():
    """``measure_in_child("10k")`` once for the module, run while this process holds 768 MiB:
    a child process costs seconds (its imports, then the build), and both tests below read
    the same measurement."""
    parent_block = np.ones(768 * 2**20 // 8)
    m = memory.measure_in_child("10k")
    assert parent_block[-1] == 1.0
    return m


def test_a_child_process_reports_the_peak_of_one_size(child_of_a_large_parent):
    m = child_of_a_large_parent
    assert m["n_tris"] == sphere_case("10k", 10_000).n_tris
    mesh = sphere_case("10k", 10_000).mesh
    assert m["mesh_bytes"] == 2 * memory.mesh_bytes(mesh)
    # Both trees as built, and A's corners in its triangle order, which its refit reads
    # (Tree.corners: the faces' size).
    built = memory.tree_bytes(ours.build_one(mesh), mesh)
    assert m["structure_bytes"] == 2 * built + mesh.faces.nbytes
    # At 10k the imports (VTK through pyvista) can be the peak: the mesh work adds less.
    assert m["peak_rss_bytes"] >= m["baseline_rss_bytes"] > 20 * 2**20


def test_the_childs_peak_does_not_include_its_parents_memory(child_of_a_large_parent):
    # ru_maxrss survives exec: a child of a large parent reported the parent's peak (the
    # fixture's child ran while this process held 768 MiB).
    m = child_of_a_large_parent
    assert m["peak_rss_bytes"] < 600 * 2**20


def test_memory_lines_say_peak_and_ratio_or_why_not():
    results = {
        "10k": {"memory": {"mesh_bytes": 2**20, "structure_bytes": 3 * 2**20,
                           "peak_rss_bytes": 250 * 2**20, "baseline_rss_bytes": 100 * 2**20}},
        "100k": {"memory": {"error": "memory child for 100k exited 1: MemoryError"}},
    }  # fmt: skip
    lines = _memory_lines(results).splitlines()
    assert lines[1] == (
        "  10k: peak resident 250 MiB (after imports 100 MiB); meshes A+B 1.0 MiB, "
        "trees + volumes 3.0 MiB = 3.00x the meshes"
    )
    assert lines[2] == "  100k: memory child for 100k exited 1: MemoryError"
