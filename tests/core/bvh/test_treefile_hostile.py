"""The hostile tree catalogue (tests/hostile/trees.py) through the Python API and the command
line under a 1.5 GiB address-space limit, and reading that stays linear however deep the
tree: a chain a million levels deep reads, and one with a cycle at its bottom is refused."""

from __future__ import annotations

import resource
import subprocess
import sys
import threading
import zipfile

import numpy as np
import pytest

from core.bvh import treefile_walk
from core.bvh.treefile import TreeFileError
from core.bvh.treefile_read import read_tree
from core.io.write import write_mesh
from core.mesh import TriMesh
from tests.cli_batch import run_batch
from tests.hostile.trees import cases, chain_keys

M = 8
CASES = list(cases(M))
ADDRESS_SPACE = 1536 * 2**20
DEEP = 1_000_000


def _mesh(m: int) -> TriMesh:
    vertices = np.random.default_rng(0).random((3 * m, 3))
    return TriMesh.from_arrays(vertices, np.arange(3 * m).reshape(m, 3), f"mesh{m}")


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _validate(mesh_path, tree_path, timeout=30):
    """``python -m core validate MESH --tree FILE`` in a child limited to 1.5 GiB."""
    return subprocess.run([sys.executable, "-m", "core", "validate", str(mesh_path), "--tree",
                           str(tree_path)], capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_limit_memory)  # fmt: skip


def test_the_catalogue_is_large_and_covers_every_class():
    assert len(CASES) >= 30
    assert len({c.name for c in CASES}) == len(CASES)
    kinds = {c.kind for c in CASES}
    assert {"duplicate key", "version", "wrong type", "not finite", "range", "long number",
            "huge count", "deep chain", "cycle", "shared child", "npz dtype", "npz members",
            "npz header", "truncated", "empty", "not JSON", "format"} <= kinds


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_tree_fails_in_one_line_through_the_api(tmp_path, case):
    path = case.write(tmp_path)
    with pytest.raises(TreeFileError) as caught:
        read_tree(path, _mesh(M))
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and message.isprintable(), message
    assert case.words in message, message


@pytest.fixture(scope="module")
def validated(tmp_path_factory):
    """``python -m core validate MESH --tree FILE`` on every case, in one child process
    limited to 1.5 GiB (:func:`tests.cli_batch.run_batch`): ``{case name: (path, Ran)}``."""
    folder = tmp_path_factory.mktemp("hostile-trees")
    mesh = write_mesh(folder / "mesh.ply", *_arrays(M))
    paths = {}
    for case in CASES:
        (folder / case.name).mkdir()
        paths[case.name] = case.write(folder / case.name)
    ran = run_batch("core", [["validate", str(mesh), "--tree", str(paths[c.name])]
                             for c in CASES], seconds=30, preexec_fn=_limit_memory)
    return {c.name: (paths[c.name], done) for c, done in zip(CASES, ran)}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_tree_fails_in_one_line_on_the_command_line(validated, case):
    path, done = validated[case.name]
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].isprintable(), done.stderr
    assert str(path) in lines[0] and case.words in lines[0], lines[0]
    assert "\x1b" not in done.stderr


def _arrays(m: int):
    mesh = _mesh(m)
    return mesh.vertices, mesh.faces


def _write_chain(path, m: int, change=None):
    keys = {k: np.asarray(v) for k, v in chain_keys(m).items()}
    if change is not None:
        change(keys)
    with open(path, "wb") as out:
        np.savez(out, **keys)
    return path


def test_a_chain_a_million_deep_reads_and_one_with_a_cycle_is_refused(tmp_path):
    mesh = _mesh(DEEP + 1)
    imported = read_tree(_write_chain(tmp_path / "chain.npz", DEEP + 1), mesh)
    assert imported.tree.max_depth == DEEP and imported.tree.n_nodes == 2 * DEEP + 1
    assert imported.tree.stats.depth_max == DEEP
    deep = next(c for c in cases(DEEP + 1) if c.name == "deep-cycle.npz")
    with pytest.raises(TreeFileError, match=r"deep-cycle\.npz: node 0 is reached twice \(a "
                                            r"cycle\)"):  # fmt: skip
        read_tree(deep.write(tmp_path), mesh)


def test_a_chain_a_million_deep_on_the_command_line_under_the_memory_limit(tmp_path):
    mesh = write_mesh(tmp_path / "big.ply", *_arrays(DEEP + 1))
    deep = next(c for c in cases(DEEP + 1) if c.name == "deep-cycle.npz")
    done = _validate(mesh, deep.write(tmp_path), timeout=120)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "(a cycle)" in done.stderr
    done = _validate(mesh, _write_chain(tmp_path / "chain.npz", DEEP + 1), timeout=120)
    assert done.returncode == 0, done.stderr
    assert "tree OK: 2,000,001 nodes checked" in done.stdout


def _lines_run(function, *args) -> int:
    """How many lines of Python ``function(*args)`` runs (in any module)."""
    count = 0

    def trace(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return trace

    sys.settrace(trace)
    threading.settrace(trace)
    try:
        function(*args)
    finally:
        sys.settrace(None)
        threading.settrace(None)
    return count


def test_reading_runs_no_python_loop_over_levels_or_nodes(tmp_path):
    # The Python work of reading a chain is the same 500 or 50,000 levels deep: the walks
    # over nodes run compiled and linear (steps <= 3 k). Reading level by level ran lines for
    # every level (and counted all k nodes at each: quadratic, 12-19 s at 200k deep).
    small, large = 500, 50_000
    paths = {m: _write_chain(tmp_path / f"chain{m}.npz", m + 1) for m in (small, large)}
    meshes = {m: _mesh(m + 1) for m in (small, large)}
    read_tree(paths[small], meshes[small])  # compiled (or loaded from the cache) once
    lines = {m: _lines_run(read_tree, paths[m], meshes[m]) for m in (small, large)}
    # The container inflates members in 1 MiB chunks (core.files.container): a few dozen lines a
    # chunk, so the bound grows with the bytes inflated, never with the levels (a loop over
    # levels or nodes would add 50,000 lines and more).
    inflated_mib = sum(info.file_size for info in zipfile.ZipFile(paths[large]).infolist())
    assert lines[large] < lines[small] + 200 + 40 * (inflated_mib / 2**20 + 1), lines

    keys = chain_keys(large + 1)
    k = keys["nodes"]
    *_, steps = treefile_walk.breadth_first(keys["children"], 0)
    assert steps <= 3 * k
    times_child = np.bincount(keys["children"][keys["children"] >= 0], minlength=k)
    assert treefile_walk.peel(keys["children"], times_child)[1] <= 3 * k
    left = np.where(keys["count"] > 0, 0, keys["children"][:, 0])
    left[: k // 2] = np.arange(1, k // 2 * 2, 2)  # a layout with children after parents
    *_, steps = treefile_walk.subtree_runs(left.astype(np.int64), np.zeros(k, bool)
                                           | (np.arange(k) >= k // 2), np.ones(k, np.int64))
    assert steps == 2 * k


@pytest.mark.parametrize("command", ["quality", "contacts"])
def test_quality_and_contacts_refuse_a_hostile_tree_in_one_escaped_line(tmp_path, command):
    mesh = write_mesh(tmp_path / "mesh.ply", *_arrays(M))
    case = next(c for c in CASES if c.name == "escape.json")
    path = case.write(tmp_path)
    args = (["quality", str(mesh), "--tree", str(path)] if command == "quality" else
            ["contacts", str(mesh), str(mesh), "--tree-a", str(path)])  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "core", *args], capture_output=True,
                          text=True, timeout=30, preexec_fn=_limit_memory)  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].isprintable() and "\x1b" not in done.stderr, lines
    assert str(path) in lines[0] and case.words in lines[0], lines[0]


def test_a_file_name_with_control_characters_is_escaped_in_the_message(tmp_path):
    path = tmp_path / "evil\x1b]0;title\x07\n.json"
    path.write_text("{")
    with pytest.raises(TreeFileError) as caught:
        read_tree(path, _mesh(M))
    message = str(caught.value)
    assert message.isprintable() and "\n" not in message
    assert "evil\\x1b]0;title\\x07\\n.json: not JSON" in message
    assert caught.value.path == str(path)  # the path itself, for code that opens it again
