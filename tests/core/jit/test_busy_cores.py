"""Parallel kernels run on one thread while the machine's other cores are busy."""

import numba
import numpy as np
import pytest

import core.jit.busy_cores as busy_cores
from core import contacts
from core.bvh import build_tree, refit_tree
from core.jit.busy_cores import free_cores, runnable_elsewhere, threads_for_free_cores
from tests.core.helpers import ROTATED
from tests.core.meshgen import sphere_mesh


def _loadavg(tmp_path, running: int, name: str = "loadavg"):
    path = tmp_path / name
    path.write_text(f"0.52 0.61 0.70 {running}/412 12345\n", encoding="ascii")
    return str(path)


def test_the_runnable_count_leaves_out_the_caller(tmp_path):
    assert runnable_elsewhere(_loadavg(tmp_path, 1)) == 0
    assert runnable_elsewhere(_loadavg(tmp_path, 3)) == 2


@pytest.mark.parametrize("content", ["", "garbage", "0.1 0.2 0.3 x/12 9"])
def test_an_unreadable_load_file_counts_as_idle(tmp_path, content):
    path = tmp_path / "loadavg"
    path.write_text(content, encoding="ascii")
    assert runnable_elsewhere(str(path)) == 0
    assert runnable_elsewhere(str(tmp_path / "missing")) == 0


def test_free_cores_are_the_cores_not_taken_and_never_fewer_than_one(tmp_path):
    assert free_cores(2, _loadavg(tmp_path, 1)) == 2
    assert free_cores(2, _loadavg(tmp_path, 2)) == 1
    assert free_cores(2, _loadavg(tmp_path, 9)) == 1
    assert free_cores(8, _loadavg(tmp_path, 4)) == 5


@pytest.fixture
def two_threads(monkeypatch):
    """Two numba threads on a machine of two cores, and the choice on (tests/conftest.py
    turns it off for the other tests)."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has one thread on this machine")
    monkeypatch.delenv(busy_cores.KEEP_THREADS_ENV, raising=False)
    monkeypatch.setattr(busy_cores.os, "cpu_count", lambda: 2)
    before = numba.get_num_threads()
    numba.set_num_threads(2)
    yield
    numba.set_num_threads(before)


def test_a_busy_machine_runs_the_block_on_one_thread_and_restores_the_count(
        tmp_path, two_threads):  # fmt: skip
    with threads_for_free_cores(_loadavg(tmp_path, 3, "busy")) as n:
        assert n == 1 and numba.get_num_threads() == 1
    assert numba.get_num_threads() == 2
    with threads_for_free_cores(_loadavg(tmp_path, 1, "idle")) as n:
        assert n == 2 and numba.get_num_threads() == 2
    with pytest.raises(RuntimeError), threads_for_free_cores(_loadavg(tmp_path, 5, "again")):
        raise RuntimeError("the block failed")
    assert numba.get_num_threads() == 2


def test_queries_and_refits_give_the_same_answers_on_a_busy_machine(two_threads, monkeypatch):
    mesh = sphere_mesh(60)
    moved = mesh.with_vertices(mesh.vertices * 1.01)
    tree = build_tree(mesh, leaf_size=4)
    results = {}
    for busy in (0, 5):
        monkeypatch.setattr(busy_cores, "runnable_elsewhere", lambda path=None, b=busy: b)
        monkeypatch.setattr(busy_cores, "_last", {"at": -1.0, "busy": 0})
        with threads_for_free_cores() as n:
            assert n == (2 if busy == 0 else 1)
        refitted = refit_tree(tree, moved)
        result = contacts(mesh, moved, None, ROTATED, leaf_size=4)
        results[busy] = (refitted.bmin.copy(), refitted.bmax.copy(), result.pairs, result.counters)
    idle, busy = results[0], results[5]
    assert np.array_equal(idle[0], busy[0]) and np.array_equal(idle[1], busy[1])
    assert np.array_equal(idle[2], busy[2]) and idle[2].shape[0] > 0
    assert idle[3] == busy[3]


def test_kept_threads_turns_the_choice_off_inside_the_block_only(tmp_path, two_threads):
    busy = _loadavg(tmp_path, 3)
    with busy_cores.kept_threads(), threads_for_free_cores(busy) as n:
        assert n == 2
    with threads_for_free_cores(busy) as n:
        assert n == 1
