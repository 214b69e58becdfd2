"""The explicit near-contact margin: API, bounding-volume kinds, pipeline, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core import contacts
from core.bvh import SplitRule, build_trees
from core.cli import main
from core.collide import collide
from core.collide.bvquery import collide_bv
from core.collide.tandem import transform_points
from core.collide.tritri import ContactKind, tri_tri_distance_batch
from core.mesh import TriMesh
from core.pipeline import DEFAULT_REQUEST, BodyInput, FramePipeline, PipelineSettings
from core.pose import Pose, rotation_matrix
from tests.core.meshgen import sphere_mesh

ONE = np.array([[0, 1, 2]], dtype=np.int32)


def _triangle(z: float) -> TriMesh:
    v = np.array([[0.0, 0.0, z], [1.0, 0.0, z], [0.0, 1.0, z]])
    return TriMesh.from_arrays(v, ONE, f"tri{z}")


def test_margin_zero_is_exact_contact_only():
    a, b = _triangle(0.0), _triangle(0.01)
    result = contacts(a, b)
    assert result.n_contacts == 0
    assert result.near_pairs.shape == (0, 2) and result.margin == 0.0


@pytest.mark.parametrize(("margin", "expected"), [(0.005, []), (0.0101, [[0, 0]])])
def test_margin_reports_pairs_closer_than_it_with_their_distance(margin, expected):
    a, b = _triangle(0.0), _triangle(0.01)
    result = contacts(a, b, margin=margin)
    assert result.n_contacts == 0
    assert result.near_pairs.tolist() == expected
    if expected:
        assert result.near_distances[0] == pytest.approx(0.01, rel=1e-12)
        assert result.near_points[0, 0, 2] == pytest.approx(0.0, abs=1e-15)
        assert result.near_points[0, 1, 2] == pytest.approx(0.01, rel=1e-12)


def test_touching_pairs_are_contacts_not_near_pairs():
    a, b = _triangle(0.0), _triangle(0.0)
    result = contacts(a, b, margin=1.0)
    assert result.kinds.tolist() == [int(ContactKind.COPLANAR)]
    assert result.near_pairs.shape == (0, 2)


def _all_near_pairs(mesh_a, mesh_b, pose_b, margin):
    """Every pair within ``margin`` by testing all pairs (no traversal)."""
    vb = transform_points(mesh_b.vertices, np.ascontiguousarray(pose_b.rotation),
                          np.ascontiguousarray(pose_b.translation))  # fmt: skip
    ids_a, ids_b = np.meshgrid(np.arange(mesh_a.n_faces), np.arange(mesh_b.n_faces),
                               indexing="ij")  # fmt: skip
    pairs = np.stack([ids_a.ravel(), ids_b.ravel()], axis=1).astype(np.int32)
    dist = np.empty(len(pairs))
    points = np.empty((len(pairs), 2, 3))
    tri_tri_distance_batch(mesh_a.vertices, mesh_a.faces, vb, mesh_b.faces, pairs, dist, points)
    return pairs[(dist <= margin) & (dist > 0.0)]


@pytest.mark.parametrize("bv", [None, "obb", "sphere", "kdop14", "rss"])
def test_near_pairs_equal_all_pairs_search(bv):
    """The traversal inflates its volumes by the margin, so no near pair is culled: the same
    set as testing every pair, for the AABB tree and for other volume kinds."""
    a = sphere_mesh(12, 1.0, "a")
    b = sphere_mesh(10, 0.8, "b")
    pose_b = Pose(rotation_matrix((1, 2, 0.5), 0.7), (1.83, 0.1, -0.05))
    margin = 0.05
    expected = _all_near_pairs(a, b, pose_b, margin)
    assert len(expected) > 10
    tree_a, tree_b = build_trees([a, b], SplitRule.MIDPOINT, 1)
    if bv is None:
        result = collide(a, tree_a, b, tree_b, None, pose_b, margin=margin)
    else:
        result = collide_bv(a, tree_a, b, tree_b, None, pose_b, bv=bv, margin=margin)
    near = result.near_pairs
    assert sorted(map(tuple, near.tolist())) == sorted(map(tuple, expected.tolist()))
    assert (result.near_distances <= margin).all() and (result.near_distances > 0).all()
    # Without the margin the same query reports none of them.
    plain = collide(a, tree_a, b, tree_b, None, pose_b)
    assert plain.near_pairs.shape == (0, 2)
    assert plain.pairs.tolist() == result.pairs.tolist()


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf"), "wide"])
def test_bad_margin_is_a_one_line_error(bad):
    a, b = _triangle(0.0), _triangle(0.01)
    with pytest.raises(ValueError, match="margin") as info:
        contacts(a, b, margin=bad)
    assert "\n" not in str(info.value)


def test_pipeline_setting_reaches_the_frame():
    a, b = _triangle(0.0), _triangle(0.01)
    bodies = [BodyInput("a", a), BodyInput("b", b)]
    frame = FramePipeline(PipelineSettings(DEFAULT_REQUEST.replace(margin=0.02))).step(bodies)
    assert frame.result.near_pairs.tolist() == [[0, 0]]
    assert FramePipeline().step(bodies).result.near_pairs.shape == (0, 2)


def _write_obj(path, z):
    path.write_text(f"v 0 0 {z}\nv 1 0 {z}\nv 0 1 {z}\nf 1 2 3\n")
    return path


def test_cli_margin_json_and_text(capsys, tmp_path):
    a = _write_obj(tmp_path / "a.obj", 0.0)
    b = _write_obj(tmp_path / "b.obj", 0.01)
    assert main(["contacts", str(a), str(b), "--margin", "0.02", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pairs"] == []
    assert report["margin"] == 0.02
    assert report["near_pairs"] == [[0, 0]]
    assert report["near_distances"][0] == pytest.approx(0.01, rel=1e-12)
    assert main(["contacts", str(a), str(b), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["margin"] == 0.0 and report["near_pairs"] == []
    assert main(["contacts", str(a), str(b), "--margin", "0.02"]) == 0
    out = capsys.readouterr().out
    assert "near contacts (not touching, at most 0.02 apart): 1 triangle pairs" in out
    assert "distance 0.01" in out


@pytest.mark.parametrize(("extra", "message"), [
    (["--margin", "-1"], "--margin must be a finite distance >= 0"),
    (["--margin", "0.1", "--partition", "grid"], "--margin works with the tree traversal"),
])  # fmt: skip
def test_cli_bad_margin(capsys, tmp_path, extra, message):
    a = _write_obj(tmp_path / "a.obj", 0.0)
    b = _write_obj(tmp_path / "b.obj", 0.01)
    assert main(["contacts", str(a), str(b), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
