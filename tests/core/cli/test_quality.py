"""``python -m core quality MESH [--split RULE] [--bv KIND] [--leaf-size K] [--tree FILE]
[--traversal-cost C] [--intersection-cost C] [--json]``, run in-process."""

from __future__ import annotations

import json

import pytest

from core.bvh import CostConstants, SplitRule, build_tree, tree_quality
from core.bvh.shape_measures import SWEPT_EPO_NOTE
from core.cli import main
from tests.core.helpers import run_cli

KEYS = ["mesh", "triangles", "bv", "split", "leaf_size", "constants", "sah", "epo",
        "sibling_overlap", "n_nodes", "n_leaves", "depth_min", "depth_max", "depth_histogram",
        "leaf_size_histogram", "memory_bytes", "mesh_bytes", "worst", "diagnosis",
        "seconds"]  # fmt: skip


def _strict(text: str) -> dict:
    def refuse(name):
        raise AssertionError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_json_keys_and_values(capsys, assets_dir, suzanne):
    mesh_path = assets_dir / "suzanne.obj"
    code, out, err = run_cli(capsys, "quality", mesh_path, "--json")
    assert code == 0 and err == ""
    report = _strict(out)
    assert list(report) == KEYS
    q = tree_quality(suzanne, build_tree(suzanne))
    assert report["mesh"] == str(mesh_path) and report["triangles"] == suzanne.n_faces
    assert (report["bv"], report["split"], report["leaf_size"]) == ("aabb", "midpoint", 1)
    assert report["constants"] == {"traversal": 1.0, "intersection": 1.0}
    assert report["sah"] == pytest.approx(q.sah, rel=1e-12)
    assert report["epo"] == pytest.approx(q.epo, rel=1e-12) and report["epo"] > 0
    assert report["sibling_overlap"] == pytest.approx(q.sibling_overlap, rel=1e-12)
    assert report["n_nodes"] == q.n_nodes and report["n_leaves"] == q.n_leaves
    assert report["depth_histogram"] == q.depth_histogram.tolist()
    assert sum(report["leaf_size_histogram"]) == report["n_leaves"]
    assert report["memory_bytes"] == q.memory_bytes and report["mesh_bytes"] == q.mesh_bytes
    assert list(report["worst"]) == ["sah", "epo", "sibling_overlap", "volume"]
    for metric, rows in report["worst"].items():
        assert len(rows) == 10
        assert [r["node"] for r in rows] == q.worst(metric, 10).tolist()
        assert all(set(r) == {"node", "depth", "triangles", "value"} for r in rows)
    assert report["worst"]["volume"][0] == {"node": 0, "depth": 0,
                                            "triangles": suzanne.n_faces,
                                            "value": pytest.approx(q.nodes.volume[0])}  # fmt: skip
    assert report["seconds"] >= 0.0


def test_options_reach_the_measures(capsys, assets_dir, suzanne):
    code, out, err = run_cli(capsys, "quality", assets_dir / "suzanne.obj", "--bv", "kdop14",
                             "--split", "sah", "--leaf-size", "4", "--traversal-cost", "2",
                             "--intersection-cost", "0.5", "--json")  # fmt: skip
    assert code == 0, err
    report = _strict(out)
    q = tree_quality(suzanne, build_tree(suzanne, SplitRule.SAH, 4), "kdop14",
                     CostConstants(2.0, 0.5))  # fmt: skip
    assert (report["bv"], report["split"], report["leaf_size"]) == ("kdop14", "sah", 4)
    assert report["constants"] == {"traversal": 2.0, "intersection": 0.5}
    assert report["sah"] == pytest.approx(q.sah, rel=1e-12)
    assert report["epo"] == pytest.approx(q.epo, rel=1e-12)
    assert max(i for i, c in enumerate(report["leaf_size_histogram"]) if c) <= 4


def test_swept_spheres_say_why_epo_is_null(capsys, assets_dir):
    code, out, _ = run_cli(capsys, "quality", assets_dir / "suzanne.obj", "--bv", "rss", "--json")
    report = _strict(out)
    assert code == 0 and report["epo"] is None and report["epo_note"] == SWEPT_EPO_NOTE
    assert report["sibling_overlap"] is None and "sibling_overlap_note" in report
    assert report["worst"]["epo"] == [] and report["sah"] > 1.0


def test_text_is_a_short_table(capsys, assets_dir, suzanne):
    code, out, err = run_cli(capsys, "quality", assets_dir / "suzanne.obj", "--bv", "obb")
    assert code == 0 and err == ""
    q = tree_quality(suzanne, build_tree(suzanne), "obb")
    lines = out.splitlines()
    assert lines[0] == f"mesh: {assets_dir / 'suzanne.obj'} ({suzanne.n_faces:,} triangles)"
    assert lines[1] == "tree: midpoint split, leaf size 1; measured with oriented box (OBB)"
    assert lines[2] == "costs: volume test C_t = 1, triangle test C_i = 1"
    assert lines[3].split()[:3] == ["SAH", "cost", f"{q.sah:.6g}"]
    assert lines[4].split()[:2] == ["EPO", f"{q.epo:.6g}"]
    assert any(line.startswith("worst by EPO: node ") for line in lines)
    assert len(lines) < 24  # 20, plus at most three reasons and their "more" line


def test_tree_file_round_trip_gives_the_same_measures(capsys, tmp_path, assets_dir):
    mesh_path = assets_dir / "suzanne.obj"
    for suffix in (".json", ".npz"):
        tree_file = tmp_path / f"suzanne{suffix}"
        assert run_cli(capsys, "tree", mesh_path, "--split", "median", "--leaf-size", "3",
                       "--out", tree_file)[0] == 0  # fmt: skip
        built = _strict(run_cli(capsys, "quality", mesh_path, "--split", "median", "--leaf-size",
                                "3", "--bv", "obb", "--json")[1])  # fmt: skip
        code, out, err = run_cli(capsys, "quality", mesh_path, "--tree", tree_file, "--bv", "obb",
                                 "--json")  # fmt: skip
        assert code == 0, err
        read = _strict(out)
        built.pop("seconds"), read.pop("seconds")
        # Read from a file: the file named, its violations counted, and each worst node
        # named by the file's id beside BVH Lab's (a tree we wrote keeps its ids).
        assert read.pop("tree") == str(tree_file) and read.pop("violations") == 0
        for rows in read["worst"].values():
            for row in rows:
                assert row.pop("internal_node") == row["node"]
        assert read == built


@pytest.mark.parametrize("argv, words", [
    (("{tmp}/missing.obj",), "missing.obj: no such file"),
    (("{mesh}", "--traversal-cost", "0"), "--traversal-cost must be a finite number > 0, got 0"),
    (("{mesh}", "--intersection-cost", "nan"), "--intersection-cost must be a finite number"),
    (("{mesh}", "--intersection-cost", "-1"), "--intersection-cost must be a finite number"),
    (("{mesh}", "--leaf-size", "0"), "--leaf-size must be at least 1, got 0"),
    (("{mesh}", "--tree", "{tmp}/none.json"), "none.json: no such file"),
    (("{mesh}", "--tree", "{tmp}/t.json", "--split", "sah"), "with --tree the tree comes from"),
    (("{mesh}", "--tree", "{tmp}/t.json", "--leaf-size", "2"), "with --tree the tree comes from"),
    (("{mesh}", "--tree", "{tmp}/other.json"), "other.json: "),
])  # fmt: skip
def test_errors_are_one_line_and_exit_2(capsys, tmp_path, assets_dir, argv, words):
    from core.bvh.treefile import write_tree
    from core.io import load_mesh

    spot = load_mesh(assets_dir / "spot.obj")
    write_tree(tmp_path / "other.json", build_tree(spot))  # a tree of another mesh
    argv = [a.format(mesh=assets_dir / "suzanne.obj", tmp=tmp_path) for a in argv]
    code, out, err = run_cli(capsys, "quality", *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and words in err, err


def test_unknown_kind_is_refused_by_the_parser(capsys, assets_dir):
    with pytest.raises(SystemExit) as caught:
        main(["quality", str(assets_dir / "suzanne.obj"), "--bv", "cube"])
    assert caught.value.code == 2
    assert "invalid choice: 'cube'" in capsys.readouterr().err


def test_help_states_the_constants_and_the_numbers(capsys):
    with pytest.raises(SystemExit):
        main(["quality", "--help"])
    text = capsys.readouterr().out
    for words in ("--traversal-cost C", "--intersection-cost C", "C_t", "C_i",
                  "MacDonald and Booth 1990", "Aila, Karras and Laine 2013", "sibling_overlap",
                  "leaf_size_histogram", "memory_bytes"):  # fmt: skip
        assert words in text, words
