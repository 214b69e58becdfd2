"""``python -m core validate MESH --tree FILE [--max-listed N] [--json]`` and the violation
count and file ids of ``python -m core quality MESH --tree FILE``, run in-process."""

from __future__ import annotations

import json

import pytest

from core.cli import main
from tests.core.helpers import FOREIGN, FOUR, run_cli


@pytest.fixture
def four_obj(tmp_path):
    """The four triangles of ``FOUR`` as an OBJ file."""
    path = tmp_path / "four.obj"
    lines = [f"v {x:g} {y:g} {z:g}" for x, y, z in FOUR.vertices.tolist()]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in FOUR.faces.tolist()]
    path.write_text("\n".join(lines) + "\n")
    return path


def _tree_file(tmp_path, edit=None):
    keys = json.loads(FOREIGN)
    if edit is not None:
        edit(keys)
    path = tmp_path / "theirs.json"
    path.write_text(json.dumps(keys))
    return path


def _broken(keys):
    """Two hand-made mistakes: node 6's box ends at z = 1.5, so its child 0 (triangle 2 at
    z = 2) sticks out by 0.5 along +z; leaf 5's box ends at x = 2.75, so its triangle 3
    (x up to 3) sticks out by 0.25 along +x."""
    keys["bounds"][6] = [0, 0, 0, 1, 1, 1.5]
    keys["bounds"][5] = [2, 0, 2, 2.75, 1, 2]


def test_a_valid_tree_exits_0(capsys, tmp_path, four_obj):
    tree = _tree_file(tmp_path)
    code, out, err = run_cli(capsys, "validate", four_obj, "--tree", tree)
    assert (code, err) == (0, "")
    assert out == f"{tree} over {four_obj}: tree OK: 7 nodes checked\n"


def test_each_violation_is_one_line_naming_the_files_node(capsys, tmp_path, four_obj):
    tree = _tree_file(tmp_path, _broken)
    code, out, err = run_cli(capsys, "validate", four_obj, "--tree", tree)
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        f"{tree} over {four_obj}: 2 violations in 2 nodes; largest 0.5",
        "node 6 (depth 1): child 0 sticks out by 0.5 along +z",
        "node 5 (depth 2): triangle 3 sticks out by 0.25 along +x",
    ]


def test_json_lists_the_violations(capsys, tmp_path, four_obj):
    tree = _tree_file(tmp_path, _broken)
    code, out, err = run_cli(capsys, "validate", four_obj, "--tree", tree, "--json")
    assert (code, err) == (1, "")
    report = json.loads(out)
    assert report["ok"] is False and report["nodes"] == 7 and report["tree"] == str(tree)
    assert (report["violations_total"], report["violations_truncated"]) == (2, False)
    child, triangle = report["violations"]
    # "node" and "child" are the file's ids (BVH Lab's are 1 and 3 for nodes 6 and 0).
    assert child == {"node": 6, "internal_node": 1, "depth": 1, "kind": "child_outside",
                     "child": 0, "triangle": None, "axis": "+z", "size": 0.5,
                     "text": "node 6 (depth 1): child 0 sticks out by 0.5 along +z"}
    assert triangle["node"] == 5 and triangle["kind"] == "triangle_outside"
    assert (triangle["triangle"], triangle["child"], triangle["axis"]) == (3, None, "+x")
    assert triangle["size"] == 0.25
    code, out, _ = run_cli(capsys, "validate", four_obj, "--tree", _tree_file(tmp_path), "--json")
    assert code == 0 and json.loads(out)["violations"] == []


def test_max_listed_caps_the_lines_not_the_count(capsys, tmp_path, four_obj):
    tree = _tree_file(tmp_path, _broken)
    code, out, _ = run_cli(capsys, "validate", four_obj, "--tree", tree, "--max-listed", "1")
    assert code == 1
    assert out.splitlines()[1:] == ["node 6 (depth 1): child 0 sticks out by 0.5 along +z",
                                    "... and 1 more (--max-listed N lists more)"]  # fmt: skip


@pytest.mark.parametrize("argv, words", [
    (["--tree", "missing.json"], "missing.json: no such file"),
    (["--tree", "theirs.txt"], "theirs.txt: no such file"),  # any suffix: read by content
    (["--tree", "theirs.json", "--max-listed", "-1"], "--max-listed must be at least 0"),
])  # fmt: skip
def test_a_bad_file_or_option_is_one_line_and_exit_2(capsys, tmp_path, four_obj, argv, words,
                                                     monkeypatch):  # fmt: skip
    _tree_file(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "validate", four_obj, *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and words in err, err


def test_a_tree_file_that_cannot_be_read_names_its_node(capsys, tmp_path, four_obj):
    # A shared child: exit 2 (not a tree), the node reached twice named by the file's id.
    tree = _tree_file(tmp_path, lambda keys: keys["children"].__setitem__(1, [5, 0]))
    code, _, err = run_cli(capsys, "validate", four_obj, "--tree", tree)
    assert code == 2
    assert err == (f"error: {tree}: node 0 is reached twice (a shared child): it is the child "
                   "of nodes 1 and 6\n")  # fmt: skip


def test_tree_is_required(capsys, four_obj):
    with pytest.raises(SystemExit) as caught:
        main(["validate", str(four_obj)])
    assert caught.value.code == 2
    assert "--tree" in capsys.readouterr().err


def test_quality_of_a_tree_file_counts_violations_and_names_file_ids(capsys, tmp_path,
                                                                     four_obj):  # fmt: skip
    tree = _tree_file(tmp_path, _broken)
    code, out, err = run_cli(capsys, "quality", four_obj, "--tree", tree, "--json")
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert report["violations"] == 2 and report["tree"] == str(tree)
    # The worst nodes by volume: the root is file node 4 (BVH Lab's 0).
    root = report["worst"]["volume"][0]
    assert (root["node"], root["internal_node"], root["depth"]) == (4, 0, 0)
    assert list(root) == ["node", "internal_node", "depth", "triangles", "value"]
    file_of = [4, 6, 1, 0, 3, 5, 2]  # BVH Lab's node i is the file's file_of[i]
    for rows in report["worst"].values():
        assert all(r["node"] == file_of[r["internal_node"]] for r in rows)
    code, out, _ = run_cli(capsys, "quality", four_obj, "--tree", tree)
    assert code == 0
    assert f"tree: from {tree} (node ids are the file's)" in out
    assert ("invariants: 2 violations, boxes that do not enclose their children or triangles "
            "(python -m core validate lists them)") in out  # fmt: skip
    code, out, _ = run_cli(capsys, "quality", four_obj, "--tree", _tree_file(tmp_path), "--json")
    assert code == 0 and json.loads(out)["violations"] == 0
