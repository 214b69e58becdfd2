"""``python -m core tree MESH [--split RULE] [--leaf-size K] --out FILE``."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from core.bvh import SplitRule, build_tree
from core.bvh.treefile_read import read_tree
from core.cli import main
from tests.core.helpers import assert_same_tree, run_cli


@pytest.mark.parametrize("suffix, options, rule, leaf_size, words", [
    (".json", ("--split", "sah", "--leaf-size", "4"), SplitRule.SAH, 4, "SAH split, leaf size 4"),
    (".npz", (), SplitRule.MIDPOINT, 1, "midpoint split, leaf size 1"),
    (".json", ("--split", "obb", "--leaf-size", "2"), SplitRule.OBB, 2, "OBB split, leaf size 2"),
])  # fmt: skip
def test_writes_our_tree_and_says_so_in_one_line(capsys, tmp_path, assets_dir, suzanne, suffix,
                                                 options, rule, leaf_size, words):  # fmt: skip
    out = tmp_path / f"suzanne{suffix}"
    code, text, err = run_cli(capsys, "tree", assets_dir / "suzanne.obj", *options, "--out", out)
    assert code == 0, err
    tree = build_tree(suzanne, rule, leaf_size)
    assert text == f"wrote {tree.n_nodes:,} nodes of suzanne.obj ({words}) to {out}\n"
    assert err == ""
    imported = read_tree(out, suzanne)
    assert_same_tree(tree, imported.tree)
    assert imported.split is rule and imported.tree.leaf_size == leaf_size


@pytest.mark.parametrize("argv, words", [
    (("{mesh}", "--out", "{tmp}/t.txt"), "t.txt: unknown tree file type '.txt'; use .json or .npz"),
    (("{tmp}/missing.obj", "--out", "{tmp}/t.json"), "missing.obj: no such file"),
    (("{mesh}", "--leaf-size", "0", "--out", "{tmp}/t.json"), "--leaf-size must be at least 1"),
    (("{mesh}", "--out", "{tmp}"), "is a directory; --out names the file to write"),
    (("{mesh}", "--out", "{tmp}/no/such/dir/t.json"), "cannot write: No such file or directory"),
])  # fmt: skip
def test_errors_are_one_line_and_exit_2(capsys, tmp_path, assets_dir, argv, words):
    argv = [a.format(mesh=assets_dir / "suzanne.obj", tmp=tmp_path) for a in argv]
    code, text, err = run_cli(capsys, "tree", *argv)
    assert code == 2 and text == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and words in err, err
    assert not list(tmp_path.glob("*.part")) and not (tmp_path / "t.json").exists()


def test_out_is_required(capsys, assets_dir):
    with pytest.raises(SystemExit) as caught:
        main(["tree", str(assets_dir / "suzanne.obj")])
    assert caught.value.code == 2
    assert "--out" in capsys.readouterr().err


def test_runs_as_a_module(tmp_path, assets_dir, suzanne):
    out = tmp_path / "t.npz"
    done = subprocess.run([sys.executable, "-m", "core", "tree", str(assets_dir / "suzanne.obj"),
                           "--split", "median", "--out", str(out)],
                          capture_output=True, text=True, env=os.environ.copy())  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("wrote ") and "(median split, leaf size 1)" in done.stdout
    tree = read_tree(out, suzanne).tree
    assert np.array_equal(tree.first, build_tree(suzanne, SplitRule.MEDIAN).first)
