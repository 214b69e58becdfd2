"""``python -m core contacts A B --tree-a FILE --tree-b FILE`` (the query with trees read
from files, as the app runs a pinned tree) and ``--steps FILE.jsonl`` (every volume-pair
test, in order), run in-process."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.bvh import SplitRule, build_tree
from core.bvh.treefile_read import read_tree
from core.cli.steps import DEFAULT_MAX_STEPS
from core.collide.brute import brute_force_pairs
from core.io import load_mesh
from core.lab.steps import traversal_steps
from core.pipeline import DEFAULT_REQUEST, BodyInput, FramePipeline, PipelineSettings
from core.pose import Pose
from tests.core.helpers import as_foreign, run_cli, write_obj
from tests.core.meshgen import sphere_mesh

TRANSLATE_B = (1.05, 0.2, 0.1)


@pytest.fixture
def files(tmp_path):
    """Two sphere meshes as OBJ files, and each one's tree as another engine would write it
    (shuffled ids, children layout)."""
    paths = {"a": write_obj(tmp_path / "a.obj", sphere_mesh(10)),
             "b": write_obj(tmp_path / "b.obj", sphere_mesh(7, radius=0.6))}  # fmt: skip
    for key, seed, rule in (("a", 2, SplitRule.SAH), ("b", 3, SplitRule.MEDIAN)):
        mesh = load_mesh(paths[key])
        tree_path = tmp_path / f"{key}.json"
        tree_path.write_text(json.dumps(as_foreign(build_tree(mesh, rule, 3), seed=seed)))
        paths[f"tree_{key}"] = tree_path
    return paths


def _pinned_frame(files, pins, pose_b, request_changes=None):
    """The frame the app computes with the given bodies' trees pinned (read from files)."""
    mesh_a, mesh_b = load_mesh(files["a"]), load_mesh(files["b"])
    pipe = FramePipeline(PipelineSettings(DEFAULT_REQUEST.replace(**(request_changes or {}))))
    imported = {}
    for key, mesh in (("a", mesh_a), ("b", mesh_b)):
        if key in pins:
            imported[key] = read_tree(files[f"tree_{key}"], mesh)
            pipe.pin_tree(key, imported[key], mesh)
    frame = pipe.step([BodyInput("a", mesh_a), BodyInput("b", mesh_b, pose_b)])
    return frame, imported


def test_both_trees_from_files_give_the_apps_pinned_answer(capsys, files):
    code, out, err = run_cli(capsys, "contacts", files["a"], files["b"], "--tree-a",
                             files["tree_a"], "--tree-b", files["tree_b"], "--translate-b",
                             *TRANSLATE_B, "--json")  # fmt: skip
    assert (code, err) == (0, "")
    report = json.loads(out)
    frame, _ = _pinned_frame(files, ("a", "b"), Pose(translation=TRANSLATE_B))
    assert report["pairs"] == frame.result.pairs.tolist() and len(report["pairs"]) > 10
    assert report["counters"]["bv_tests"] == frame.result.counters.n_bv_tests
    k = json.loads(files["tree_a"].read_text())["nodes"]
    assert report["tree_a"] == {"file": str(files["tree_a"]), "nodes": k,
                                "text": f"tree from {files['tree_a']} ({k} nodes)"}  # fmt: skip
    assert report["tree_b"]["file"] == str(files["tree_b"])
    assert report["split"] is None and report["leaf_size"] is None
    # And the files' trees find the contacts the oracle finds.
    mesh_a, mesh_b = load_mesh(files["a"]), load_mesh(files["b"])
    expected = brute_force_pairs(mesh_a.vertices, mesh_a.faces,
                                 mesh_b.vertices + np.array(TRANSLATE_B), mesh_b.faces)
    got = np.array(report["pairs"])
    assert np.array_equal(got[np.lexsort((got[:, 1], got[:, 0]))], expected)


def test_one_tree_file_with_a_scaled_b_and_the_text_says_which_tree(capsys, files):
    code, out, err = run_cli(capsys, "contacts", files["a"], files["b"], "--tree-b",
                             files["tree_b"], "--scale-b", 1.5, "--translate-b", *TRANSLATE_B,
                             "--split", "median", "--json")  # fmt: skip
    assert (code, err) == (0, "")
    report = json.loads(out)
    frame, _ = _pinned_frame(files, ("b",), Pose(translation=TRANSLATE_B, scale=1.5),
                             {"split": SplitRule.MEDIAN})  # fmt: skip
    assert report["pairs"] == frame.result.pairs.tolist() and len(report["pairs"]) > 10
    assert report["counters"]["bv_tests"] == frame.result.counters.n_bv_tests
    assert report["tree_a"] == {"file": None, "nodes": None, "text": "BVH Lab's AABB tree "
                                "(median split, leaf size 1)"}  # fmt: skip
    code, out, _ = run_cli(capsys, "contacts", files["a"], files["b"], "--tree-b",
                           files["tree_b"], "--scale-b", 1.5, "--translate-b", *TRANSLATE_B)
    lines = out.splitlines()
    assert lines[0].endswith(", BVH Lab's AABB tree (midpoint split, leaf size 1)")
    k = json.loads(files["tree_b"].read_text())["nodes"]
    assert lines[1].endswith(f", tree from {files['tree_b']} ({k} nodes)")


def test_a_broken_leaf_box_is_used_as_given(capsys, files, tmp_path):
    # As a pinned tree in the app: the file's boxes exactly, so a leaf box moved away from
    # its triangle loses that triangle's contacts (python-fcl would find them).
    mesh_a = load_mesh(files["a"])
    frame, imported = _pinned_frame(files, ("a",), Pose(translation=TRANSLATE_B))
    lost_triangle = int(frame.result.pairs[0, 0])
    tree = imported["a"].tree
    slot = int(np.flatnonzero(tree.prim_ids == lost_triangle)[0])
    leaf = int(np.flatnonzero((tree.count > 0) & (tree.first <= slot)
                              & (slot < tree.first + tree.count))[0])  # fmt: skip
    keys = json.loads(files["tree_a"].read_text())
    keys["bounds"][imported["a"].file_id(leaf)] = [100, 100, 100, 100, 100, 100]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(keys))
    code, out, _ = run_cli(capsys, "contacts", files["a"], files["b"], "--tree-a", broken,
                           "--translate-b", *TRANSLATE_B, "--json")  # fmt: skip
    assert code == 0
    pairs = json.loads(out)["pairs"]
    app, _ = _pinned_frame({**files, "tree_a": broken}, ("a",), Pose(translation=TRANSLATE_B))
    assert pairs == app.result.pairs.tolist()
    assert lost_triangle not in {a for a, _ in pairs}
    assert 0 < len(pairs) < len(frame.result.pairs) and mesh_a.n_faces == 360


@pytest.mark.parametrize("argv, words", [
    (["--partition", "grid", "--tree-a", "A.json"], "--tree-a works with the tree traversal, "
     "not with --partition"),
    (["--partition", "grid", "--steps", "s.jsonl"], "--steps works with the tree traversal"),
    (["--tree-a", "A.json", "--tree-b", "B.json", "--split", "sah"], "--split and --leaf-size "
     "choose how BVH Lab builds a tree; with --tree-a and --tree-b both trees come from files"),
    (["--tree-a", "missing.json"], "missing.json: no such file"),
    (["--tree-a", "B.json"], "the tree is over 168 triangles but the mesh"),
    (["--max-steps", "-1"], "--max-steps must be at least 0"),
])  # fmt: skip
def test_conflicting_or_bad_options_are_one_line(capsys, files, monkeypatch, argv, words):
    monkeypatch.chdir(files["a"].parent)
    files["tree_a"].rename(files["a"].parent / "A.json")
    files["tree_b"].rename(files["a"].parent / "B.json")
    code, out, err = run_cli(capsys, "contacts", files["a"], files["b"], *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and words in err, err


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_steps_are_the_steppers_order_with_the_files_ids(capsys, files, tmp_path):
    steps_path = tmp_path / "steps.jsonl"
    code, out, err = run_cli(capsys, "contacts", files["a"], files["b"], "--tree-a",
                             files["tree_a"], "--translate-b", *TRANSLATE_B, "--steps",
                             steps_path, "--json")  # fmt: skip
    assert (code, err) == (0, "")
    report = json.loads(out)
    lines = _lines(steps_path)
    # One line per volume test the report counts.
    assert len(lines) == report["counters"]["bv_tests"] > 100
    assert report["steps"] == {"file": str(steps_path), "lines": len(lines)}
    assert all(list(line) == ["level", "node_a", "node_b", "result", "test", "split"]
               for line in lines)  # fmt: skip
    # The app's stepper on the same pinned frame: the same pairs in the same order, A's
    # nodes by the file's ids.
    frame, imported = _pinned_frame(files, ("a",), Pose(translation=TRANSLATE_B))
    steps = traversal_steps(frame)
    file_of = imported["a"].file_ids
    assert len(steps) == len(lines)
    for i in range(0, len(steps), 7):
        step, line = steps[i], lines[i]
        assert (line["level"], line["node_a"], line["node_b"]) == (
            step.level, int(file_of[step.node_a]), step.node_b)
        assert line["result"] == ("culled" if step.sep_id >= 0 else "overlap")
        assert line["test"] == (step.test_words if step.sep_id >= 0 else None)
        if step.split_words:
            assert line["split"] == step.split_words.split()[1]  # "split A (node 3): ..."
        else:
            assert line["split"] is None
    assert lines[0]["node_a"] == int(file_of[0]) and lines[0]["level"] == 0
    # Given the file's ids, the stepper's words name A's nodes by them too.
    named = traversal_steps(frame, (file_of, None))
    split_a = next(i for i in range(len(steps)) if steps[i].split_words.startswith("split A")
                   and file_of[steps[i].node_a] != steps[i].node_a)  # fmt: skip
    assert named[split_a].split_words.startswith(
        f"split A (node {int(file_of[steps[split_a].node_a])}): ")
    assert steps[split_a].split_words.startswith(f"split A (node {steps[split_a].node_a}): ")
    assert named[split_a].node_a == steps[split_a].node_a  # the fields stay BVH Lab's
    assert {line["result"] for line in lines} == {"overlap", "culled"}
    assert {line["split"] for line in lines} >= {"A", "B", None}


def test_steps_over_the_budget_are_refused_before_writing(capsys, files, tmp_path):
    steps_path = tmp_path / "steps.jsonl"
    code, out, err = run_cli(capsys, "contacts", files["a"], files["b"], "--translate-b",
                             *TRANSLATE_B, "--steps", steps_path, "--max-steps", 10)  # fmt: skip
    assert code == 2 and out == "" and not steps_path.exists()
    assert err.startswith("error: --steps: the traversal made ") and err.count("\n") == 1
    assert "volume-pair tests, more than --max-steps 10 (about " in err
    assert "raise --max-steps to write them all" in err
    assert DEFAULT_MAX_STEPS == 5_000_000
