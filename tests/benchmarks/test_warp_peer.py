"""The warp peer's contact sets against the brute-force oracle, rigid and deformed."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.compare import ContactsDisagree, require_agreement
from benchmarks.scenes import sphere_case, w1_pose
from benchmarks.w3_deform import frame_vertices
from core.collide.brute import brute_force_pairs

wp = pytest.importorskip("warp")


@pytest.fixture(scope="module")
def peer():
    from benchmarks.peers.warp_peer import WarpPeer

    return WarpPeer()


@pytest.fixture(scope="module")
def case():
    return sphere_case("1k", 1000)


def _oracle(va, faces, vb):
    pairs = brute_force_pairs(va, faces, vb, faces)
    return {tuple(p) for p in np.asarray(pairs).tolist()}


def test_rigid_query_matches_brute_force(peer, case):
    mesh, pose = case.mesh, w1_pose()
    a = peer.build(mesh.vertices, mesh.faces)
    b = peer.build(mesh.vertices, mesh.faces)
    found = peer.pairs(peer.query(a, np.eye(4), b, pose.as_matrix()))
    expected = _oracle(mesh.vertices, mesh.faces, pose.apply(mesh.vertices))
    assert len(expected) > 50
    assert {tuple(p) for p in found.tolist()} == expected


def test_refit_frames_match_brute_force(peer, case):
    mesh, pose = case.mesh, w1_pose()
    a = peer.build(mesh.vertices, mesh.faces)
    b = peer.build(mesh.vertices, mesh.faces)
    for frame in (3, 29):
        v = frame_vertices(mesh.vertices, frame)
        a = peer.refit(a, peer.prepare_vertices(v))
        found = peer.pairs(peer.query(a, np.eye(4), b, pose.as_matrix()))
        assert {tuple(p) for p in found.tolist()} == _oracle(
            v, mesh.faces, pose.apply(mesh.vertices)
        )


def test_a_pair_that_is_apart_stops_the_run(case):
    mesh, pose = case.mesh, w1_pose()
    tris_a, tris_b = mesh.triangles, pose.apply(mesh.triangles)
    ours = np.array(sorted(_oracle(mesh.vertices, mesh.faces, pose.apply(mesh.vertices))))
    require_agreement("warp", "W1 1k", ours, ours, tris_a, tris_b)  # same sets: no error
    # Face 0 of A sits at a pole, far from B: a made-up extra pair there is apart.
    apart = np.array([[0, int(ours[0, 1])]])
    with pytest.raises(ContactsDisagree, match=r"warp W1 1k: .*found by only the peer"):
        require_agreement("warp", "W1 1k", ours, np.vstack([ours, apart]), tris_a, tris_b)
