"""Per-node diagnosis and search (issue 28 item 4): a node found by id or triangle, its path
to the root with each ancestor's measures, and why the worst nodes are bad, in words."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.bvh import build_tree, tree_quality
from core.bvh.diagnosis import (
    NodeSearchError,
    diagnose_worst,
    find_node,
    path_to_root,
    why_bad,
)
from core.cli import main
from core.mesh import TriMesh

SPHERE = Path(__file__).resolve().parents[3] / "examples" / "contact-log" / "sphere-a.obj"


def _strip():
    """A row of unit right triangles along x, and far out one sliver 40 long and 0.5 high."""
    vertices, faces = [], []
    for i in range(8):
        base = len(vertices)
        vertices += [(i, 0, 0), (i + 1, 0, 0), (i, 1, 0)]
        faces.append((base, base + 1, base + 2))
    base = len(vertices)
    vertices += [(20, 0, 0), (60, 0, 0), (40, 0.5, 0)]
    faces.append((base, base + 1, base + 2))
    return TriMesh(np.asarray(vertices, float), np.asarray(faces))


def test_a_long_thin_triangle_and_a_leaf_far_larger_than_its_sibling_are_named():
    mesh = _strip()
    tree = build_tree(mesh)
    leaf = find_node(tree, triangle=8)
    reasons = " | ".join(why_bad(mesh, tree, leaf))
    assert "triangle 8 is long and thin: longest edge 80x its height" in reasons
    assert "x the volume of its sibling" not in reasons  # flat boxes: no volume to compare
    assert tree.count[leaf] > 0 and 8 in tree.prim_ids[tree.prim_start[leaf]:
                                                       tree.prim_start[leaf] + tree.count[leaf]]


def test_overlapping_children_and_a_loose_box_are_named(tmp_path, capsys):
    path = tmp_path / "padded.json"
    assert main(["tree", str(SPHERE), "--out", str(path)]) == 0
    capsys.readouterr()
    data = json.loads(path.read_text())
    data["bounds"][5] = [x * 3 for x in data["bounds"][5]]  # node 5's box three times larger
    path.write_text(json.dumps(data))
    assert main(["quality", str(SPHERE), "--tree", str(path), "--node", "5", "--json"]) == 0
    report = json.loads(capsys.readouterr()[0])
    why = report["path"][0]["why"]
    assert any("loose" in w for w in why) and report["path"][0]["node"] == 5
    assert [row["depth"] for row in report["path"]] == list(
        range(report["path"][0]["depth"], -1, -1))
    assert report["path"][-1]["node"] == 0  # the root, by the file's id
    parent = report["path"][1]["node"]
    assert any(row["node"] == parent and any("overlap" in w for w in row["why"])
               for row in report["diagnosis"]) or report["diagnosis"]


def test_the_worst_nodes_get_reasons_and_a_path_walks_to_the_root():
    from core.io import load_mesh

    mesh = load_mesh(SPHERE)
    tree = build_tree(mesh)
    quality = tree_quality(mesh, tree)
    rows = diagnose_worst(mesh, tree, quality)
    assert rows and all(row["why"] for row in rows)
    assert any("overlap by" in w for row in rows for w in row["why"])
    path = path_to_root(tree, find_node(tree, triangle=5))
    assert path[-1] == 0 and all(tree.parent[a] == b for a, b in zip(path, path[1:]))


def test_search_errors_name_the_option():
    tree = build_tree(_strip())
    with pytest.raises(NodeSearchError, match=r"--node 99: the tree has nodes 0 to"):
        find_node(tree, node_id=99)
    with pytest.raises(NodeSearchError, match=r"--triangle 9: the mesh has triangles 0 to 8"):
        find_node(tree, triangle=9)
    with pytest.raises(NodeSearchError, match="not both"):
        find_node(tree, node_id=1, triangle=1)
    with pytest.raises(NodeSearchError, match="no node of the file has this id"):
        find_node(tree, node_id=7, file_ids=np.arange(tree.n_nodes) + 100)


def test_the_text_report_lists_the_path_and_why(capsys):
    assert main(["quality", str(SPHERE), "--triangle", "5"]) == 0
    text = capsys.readouterr()[0]
    assert "path to the root:" in text and "  why: " in text and "why node " in text
    assert main(["quality", str(SPHERE), "--triangle", "99999"]) == 2
    assert "--triangle 99999: the mesh has triangles 0 to 1919" in capsys.readouterr()[1]
