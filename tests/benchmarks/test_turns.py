"""W1's and W3's target sides timed in turns (benchmarks.targets.turn_peers), a peer with a
thread pool of its own in a block after them."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import ours, w1_rigid, w3_deform
from benchmarks.peers import PeerAdapter
from benchmarks.scenes import W3_N_FRAMES, sphere_case
from benchmarks.targets import OURS, turn_peers
from benchmarks.timing import PeerHistory, measure_alternating


class _Recording(PeerAdapter):
    """A peer that finds no contact and writes each of its calls into a shared log."""

    can_refit = True

    def __init__(self, name: str, log: list, has_thread_pool: bool = False):
        self.name, self.log, self.has_thread_pool = name, log, has_thread_pool

    def build(self, vertices, faces, model=None):
        return vertices

    def refit(self, model, vertices):
        self.log.append(f"{self.name} refit")
        return vertices

    def frame_model(self, vertices, faces, model):
        self.log.append(f"{self.name} rebuild")
        return vertices

    def query(self, model_a, pose_a, model_b, pose_b):
        return np.zeros((0, 2), np.int32)

    def pairs(self, raw):
        return raw


@pytest.fixture(scope="module")
def case():
    return sphere_case("1k", 1000)


def test_each_rounds_input_is_made_once_and_given_to_every_run():
    made, calls = [], []

    def inputs(i):
        made.append(i)
        return f"frame {i}"

    runs = {name: (lambda arg, name=name: calls.append((name, arg))) for name in "ab"}
    timed = measure_alternating(runs, repeats=3, inputs=inputs)
    assert made == [0, 0, 1, 2]  # the warm-ups' round 0, then one per round
    assert calls[:2] == [("a", "frame 0"), ("b", "frame 0")]
    assert calls[2:] == [("a", "frame 0"), ("b", "frame 0"), ("b", "frame 1"),
                         ("a", "frame 1"), ("a", "frame 2"), ("b", "frame 2")]  # fmt: skip
    assert timed["a"][0].n == timed["b"][0].n == 3


def test_turn_peers_are_each_workloads_target_peers_without_a_thread_pool():
    log: list = []
    fcl, warp = _Recording("fcl-OBBRSS", log), _Recording("warp", log)
    meshlib = _Recording("meshlib", log, has_thread_pool=True)
    coal = _Recording("coal-AABB", log)
    peers = [coal, meshlib, warp, fcl]
    assert turn_peers("W1", peers) == [fcl]  # MeshLib's W1 target: in a block
    assert turn_peers("W2", peers) == [fcl]
    assert turn_peers("W3", peers) == [warp]


def test_w3_times_our_refit_frame_in_turns_with_the_target_peer_only(case, monkeypatch):
    log: list = []
    refit = ours.refit

    def logged_refit(*args):
        log.append("ours refit")
        return refit(*args)

    monkeypatch.setattr(ours, "refit", logged_refit)
    warp = _Recording("warp", log)
    meshlib = _Recording("meshlib", log, has_thread_pool=True)
    out = w3_deform.run(case, [meshlib, warp], lambda line: None, PeerHistory(), frame_stride=5)
    n = len(out.frames)
    assert n == W3_N_FRAMES // 5
    # Ours and warp's refit frame: one warm-up each, then n rounds, the first one rotating.
    pair = ["ours refit", "warp refit"]
    rounds = [name for r in range(n) for name in (pair if r % 2 == 0 else pair[::-1])]
    assert log[: 2 * (n + 1)] == pair + rounds
    # The 1-thread column, MeshLib's frames and warp's rebuild frame, each in a block.
    rest = log[2 * (n + 1):]
    assert rest == ["ours refit"] * (n + 1) + ["meshlib rebuild"] * (n + 1) + [
        "meshlib refit"] * (n + 1) + ["warp rebuild"] * (n + 1)  # fmt: skip
    timings = out.timings["w3_refit_frame"]
    assert timings[OURS].n == timings["warp"].n == timings["meshlib"].n == n
    assert out.timings["w3_rebuild_frame"]["warp"].n == n
    assert out.timings["refit"][OURS].n == n  # the warm-up frame's refit is not counted
    # Both found no contact; ours did: the check counts what the fake peer missed.
    assert out.checks["warp refit"].n_missing == sum(out.n_contacts) > 0


def test_w1_times_the_kinds_in_turns_with_fcl_and_checks_them(case, monkeypatch):
    log: list = []
    query = ours.query

    def logged_query(*args, **kwargs):
        log.append("aabb")
        return query(*args, **kwargs)

    monkeypatch.setattr(ours, "query", logged_query)

    class Fcl(_Recording):
        def query(self, model_a, pose_a, model_b, pose_b):
            self.log.append("fcl")
            return np.zeros((0, 2), np.int32)

    monkeypatch.setattr(w1_rigid, "TARGET_MIN_ROUNDS", 3)
    out = w1_rigid.run(case, [Fcl("fcl-OBBRSS", log)], 2, lambda line: None, PeerHistory())
    # The table's blocks: per thread count, fast and trace queries, one warm-up + 2 each.
    assert log[:12] == ["aabb"] * 12
    # Then the turns of aabb, obb, obb:OBB and fcl: warm-ups, and three rounds (the targets'
    # least, more than the size's 2 repeats), rotating.
    assert log[12:] == ["aabb", "fcl", "aabb", "fcl", "fcl", "aabb", "fcl", "aabb"]
    assert set(out.kinds) == {"aabb", *w1_rigid.RIGID_KINDS}
    assert all(samples.n == 3 for samples in out.kinds.values())
    assert out.timings["w1_query"]["fcl-OBBRSS"].n == 3
    assert out.checks["fcl-OBBRSS"].n_missing == out.counters["n_contacts"] > 0
