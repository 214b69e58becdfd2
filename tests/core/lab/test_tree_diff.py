"""``python -m core diff MESH --tree A --tree B``: two trees of one mesh side by side (issue 28
item 2)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.cli import main
from core.io import load_mesh
from core.io.write import write_mesh
from core.lab.tree_diff import match_nodes, tree_from_spec

SPHERE = Path(__file__).resolve().parents[3] / "examples" / "contact-log" / "sphere-a.obj"


def _diff(capsys, mesh, *trees, json_out=True):
    argv = ["diff", str(mesh)]
    for tree in trees:
        argv += ["--tree", str(tree)]
    status = main(argv + (["--json"] if json_out else []))
    out, err = capsys.readouterr()
    return status, (json.loads(out) if json_out and status == 0 else out), err


@pytest.fixture
def rest_tree(tmp_path, capsys):
    path = tmp_path / "rest.json"
    assert main(["tree", str(SPHERE), "--out", str(path)]) == 0
    capsys.readouterr()
    return path


def test_a_tree_against_its_own_build_matches_every_node(capsys, rest_tree):
    status, report, _ = _diff(capsys, SPHERE, rest_tree, "build:midpoint")
    assert status == 0
    first, second = report["trees"]
    assert first["n_nodes"] == second["n_nodes"] == report["matched_nodes"]
    assert report["differ_most"] == [] and report["same_contacts"]
    assert first["query"] == second["query"]
    assert len(first["sah_per_level"]) == first["depth_max"] + 1
    assert sum(first["sah_per_level"]) == pytest.approx(first["sah"])


def test_two_split_rules_differ_in_shape_and_query_cost_not_in_contacts(capsys):
    status, report, _ = _diff(capsys, SPHERE, "build:midpoint", "build:sah")
    first, second = report["trees"]
    assert first["depth_max"] != second["depth_max"]
    assert first["query"]["volume_tests"] != second["query"]["volume_tests"]
    assert first["query"]["contacts"] == second["query"]["contacts"] > 0
    assert sum(first["depth_histogram"]) == first["n_leaves"] == 1920


def test_refitted_against_built_after_a_deformation_names_the_nodes_that_grew(
        tmp_path, capsys, rest_tree):
    mesh = load_mesh(SPHERE)
    moved = mesh.vertices.copy()
    bump = moved[:, 2] > 0.9  # the cap around +z is pulled out
    moved[bump] *= 1.3
    deformed = tmp_path / "deformed.obj"
    write_mesh(deformed, moved, mesh.faces)
    # Against a fresh build: the same contacts, another cost; matched nodes hold the same
    # triangles, so their tight boxes are equal.
    status, fresh, _ = _diff(capsys, deformed, f"refit:{rest_tree}", "build:midpoint")
    assert status == 0 and fresh["same_contacts"]
    assert fresh["trees"][0]["tree"] == "file rest.json refitted to the mesh"
    assert fresh["trees"][0]["sah"] != fresh["trees"][1]["sah"]
    # Against the tree as built (the file's boxes): every node matches, and the nodes that
    # grew most are the ones over the moved cap.
    status, report, _ = _diff(capsys, deformed, f"refit:{rest_tree}", rest_tree)
    assert report["matched_nodes"] == report["trees"][0]["n_nodes"]
    rows = report["differ_most"]
    assert rows, "a refitted tree after a deformation has nodes that differ"
    bumped = set(np.flatnonzero(bump[mesh.faces].any(axis=1)).tolist())
    source = tree_from_spec(f"refit:{rest_tree}", load_mesh(deformed))
    tree = source.tree
    ids = source.file_ids.tolist()
    for row in rows[:3]:
        node = ids.index(row["node_first"])
        under = tree.prim_ids[tree.prim_start[node]:tree.prim_start[node] + tree.n_prims[node]]
        assert bumped & set(under.tolist())  # the nodes that differ hold the moved cap
    corners = [r["corner_distance"] for r in rows]
    assert corners == sorted(corners, reverse=True)
    assert rows[0]["volume_ratio"] > 1.0  # grown in the refitted tree
    status, text, _ = _diff(capsys, deformed, f"refit:{rest_tree}", rest_tree,
                            json_out=False)
    assert "those whose boxes differ most:" in text and f"node {rows[0]['node_first']}" in text


def test_matching_is_by_triangle_set_not_by_node_id():
    mesh = load_mesh(SPHERE)
    a = tree_from_spec("build:midpoint", mesh).tree
    b = tree_from_spec("build:sah", mesh).tree
    nodes_a, nodes_b = match_nodes(a, b, mesh.n_faces)
    assert 0 < nodes_a.size < a.n_nodes  # the root and every leaf at least, not all
    for i, j in zip(nodes_a[:50], nodes_b[:50]):
        run_a = a.prim_ids[a.prim_start[i]:a.prim_start[i] + a.n_prims[i]]
        run_b = b.prim_ids[b.prim_start[j]:b.prim_start[j] + b.n_prims[j]]
        assert np.array_equal(np.sort(run_a), np.sort(run_b))


@pytest.mark.parametrize("trees,words", [
    (["build:midpoint"], "--tree must be given twice"),
    (["build:nonsense", "build:sah"], "--tree build:nonsense: unknown split rule"),
    (["build:sah:0", "build:sah"], "the leaf size must be at least 1"),
    (["build:sah:x", "build:sah"], "the leaf size must be a whole number"),
    (["missing.json", "build:sah"], "missing.json"),
])
def test_bad_trees_are_one_line(capsys, trees, words):
    status, _, err = _diff(capsys, SPHERE, *trees)
    assert status == 2 and words in err and err.count("\n") == 1
