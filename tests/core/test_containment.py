"""Containment: closedness, winding number, one-way and pairwise answers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.bvh import build_tree
from core.collide import collide
from core.containment import (
    ContainmentKind,
    Relation,
    contained,
    containment_report,
    edge_stats,
    pair_containment,
    winding_number,
)
from core.mesh import TriMesh
from core.pose import Pose
from tests.core.helpers import write_obj
from tests.core.meshgen import sphere_mesh


def _collide(a, b, pose_a=None, pose_b=None):
    return collide(a, build_tree(a), b, build_tree(b), pose_a, pose_b)


def _open_cap(sphere: TriMesh, z_min: float) -> TriMesh:
    """The sphere without the triangles whose corners are all below ``z_min``."""
    keep = sphere.triangles[:, :, 2].max(axis=1) >= z_min
    return TriMesh.from_arrays(sphere.vertices, sphere.faces[keep], "cap")


def test_edge_stats_of_closed_open_and_non_manifold_meshes():
    sphere = sphere_mesh(8)
    stats = edge_stats(sphere)
    assert stats.is_closed
    assert stats.n_edges == 3 * sphere.n_faces // 2  # closed: every edge in two triangles
    # Removing the 16 triangles of the south polar fan opens a 16-edge hole.
    south_fan = np.flatnonzero((sphere.faces == sphere.n_vertices - 1).any(axis=1))
    keep = np.setdiff1d(np.arange(sphere.n_faces), south_fan)
    holed = TriMesh.from_arrays(sphere.vertices, sphere.faces[keep])
    assert len(south_fan) == 16
    assert edge_stats(holed).n_boundary_edges == 16
    assert not edge_stats(holed).is_closed
    # A third triangle on an existing edge makes it non-manifold.
    v = np.vstack([sphere.vertices, [[3.0, 0.0, 0.0]]])
    f0 = sphere.faces[0]
    fins = np.vstack([sphere.faces, [[f0[0], f0[1], len(v) - 1]]])
    stats = edge_stats(TriMesh.from_arrays(v, fins))
    assert stats.n_nonmanifold_edges == 1
    assert stats.n_boundary_edges == 2
    assert not stats.is_closed


def test_winding_number_is_one_inside_and_zero_outside():
    sphere = sphere_mesh(12)
    inside = np.array([[0.0, 0.0, 0.0], [0.5, 0.2, -0.3], [0.0, 0.0, 0.9]])
    outside = np.array([[2.0, 0.0, 0.0], [0.0, -1.5, 0.3], [10.0, 10.0, 10.0]])
    w_in = winding_number(sphere.vertices, sphere.faces, inside)
    w_out = winding_number(sphere.vertices, sphere.faces, outside)
    np.testing.assert_allclose(w_in, 1.0, atol=1e-9)
    np.testing.assert_allclose(w_out, 0.0, atol=1e-9)
    # Reversed winding: -1 inside.
    flipped = sphere.faces[:, ::-1]
    np.testing.assert_allclose(winding_number(sphere.vertices, flipped, inside), -1.0, atol=1e-9)


def test_winding_number_of_an_open_hemisphere_is_fractional():
    sphere = sphere_mesh(16)
    cap = _open_cap(sphere, 0.0)
    w = winding_number(cap.vertices, cap.faces, [[0.0, 0.0, 0.0]])[0]
    # The centre sees (about) half the sphere: solid angle 2 pi of 4 pi.
    assert 0.4 < w < 0.6


def test_small_sphere_inside_big_sphere():
    big = sphere_mesh(10, radius=2.0, name="big")
    small = sphere_mesh(6, radius=0.5, name="small")
    result = _collide(small, big)
    assert not result.in_contact
    c = contained(small, big)
    assert c.kind is ContainmentKind.INSIDE
    assert c.winding == pytest.approx(1.0, abs=1e-9)
    assert contained(big, small).kind is ContainmentKind.OUTSIDE
    assert containment_report(small, big, None, None, result) == "A is inside B"
    assert containment_report(big, small, None, None, _collide(big, small)) == "B is inside A"


def test_posed_sphere_moves_out_of_the_big_one():
    big = sphere_mesh(10, radius=2.0)
    small = sphere_mesh(6, radius=0.5)
    pose_big = Pose.from_axis_angle((0, 0, 1), 0.3, (1.0, -2.0, 0.5))
    # Off centre by 0.9: still inside (0.9 + 0.5 < 2 minus the facets' sag).
    near = Pose.from_axis_angle((1, 0, 0), 0.2, (1.9, -2.0, 0.5))
    far = Pose(np.eye(3), np.array([6.0, -2.0, 0.5]))
    assert not _collide(small, big, near, pose_big).in_contact
    assert contained(small, big, near, pose_big).kind is ContainmentKind.INSIDE
    result = _collide(small, big, far, pose_big)
    assert not result.in_contact
    assert contained(small, big, far, pose_big).kind is ContainmentKind.OUTSIDE
    pc = pair_containment(small, big, far, pose_big, result)
    assert pc.relation is Relation.APART
    assert pc.text == "apart"


def test_touching_spheres_are_in_contact():
    a = sphere_mesh(8)
    # B's leftmost corner onto A's rightmost one, exactly: a shift of (2, 0, 0) would leave
    # them sin(pi) = 1.2e-16 apart in y, and the exact test would rightly call that apart.
    right = a.vertices[np.argmax(a.vertices[:, 0])]
    left = a.vertices[np.argmin(a.vertices[:, 0])]
    pose_b = Pose(np.eye(3), right - left)
    result = _collide(a, a, None, pose_b)
    assert result.in_contact
    pc = pair_containment(a, a, None, pose_b, result)
    assert pc.relation is Relation.IN_CONTACT
    assert pc.text == "in contact"
    assert pc.a_in_b is None


def test_open_outer_mesh_is_undefined_with_boundary_count():
    sphere = sphere_mesh(8, radius=2.0)
    cap = _open_cap(sphere, 0.5)
    small = sphere_mesh(6, radius=0.3)
    expected_boundary = edge_stats(cap).n_boundary_edges
    assert expected_boundary == 16  # one ring of the 16-segment sphere
    c = contained(small, cap)
    assert c.kind is ContainmentKind.UNDEFINED
    assert np.isnan(c.winding)
    assert c.outer_edges.n_boundary_edges == 16
    assert "undefined for open meshes" in c.reason
    result = _collide(small, cap)
    assert not result.in_contact
    assert containment_report(small, cap, None, None, result) == (
        "undefined: B is open (16 boundary edges)"
    )
    # The open mesh inside a closed one is still inside.
    tiny_cap = _open_cap(sphere_mesh(8, radius=0.3), 0.0)
    big = sphere_mesh(10, radius=2.0)
    assert containment_report(tiny_cap, big, None, None, _collide(tiny_cap, big)) == (
        "A is inside B"
    )
    both_open = containment_report(tiny_cap, cap, None, None, _collide(tiny_cap, cap))
    assert both_open.startswith("undefined: A is open (")
    assert "B is open (16 boundary edges)" in both_open


def test_spot_inside_a_big_sphere(spot):
    lo, hi = spot.bounds
    centre = 0.5 * (lo + hi)
    radius = 1.5 * float(np.linalg.norm(hi - lo))
    big = sphere_mesh(16, radius=radius)
    pose_big = Pose(np.eye(3), centre)
    result = _collide(spot, big, None, pose_big)
    assert not result.in_contact
    assert edge_stats(spot).is_closed
    assert containment_report(spot, big, None, pose_big, result) == "A is inside B"
    # And a small sphere inside Spot's body.
    small = sphere_mesh(6, radius=0.02)
    body = Pose(np.eye(3), np.array([0.0, 0.35, 0.0]))
    w = winding_number(spot.vertices, spot.faces, body.translation[None, :])[0]
    assert w == pytest.approx(1.0, abs=1e-6)
    result = _collide(small, spot, body, None)
    assert not result.in_contact
    assert containment_report(small, spot, body, None, result) == "A is inside B"


def test_cli_reports_containment_in_json_and_text(tmp_path, capsys, assets_dir):
    from core.cli import main

    big, small = tmp_path / "big.obj", tmp_path / "small.obj"
    write_obj(big, sphere_mesh(10, radius=2.0))
    write_obj(small, sphere_mesh(6, radius=0.5))
    assert main(["contacts", str(small), str(big), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pairs"] == []
    assert report["containment"]["relation"] == "a_inside_b"
    assert report["containment"]["text"] == "A is inside B"
    assert report["containment"]["a_in_b"]["winding"] == pytest.approx(1.0, abs=1e-9)
    assert report["containment"]["b_in_a"]["kind"] == "outside"

    assert main(["contacts", str(big), str(small), "--translate-b", "0.3", "0", "0"]) == 0
    assert "containment: B is inside A" in capsys.readouterr().out

    # The teapot is open (1036 boundary edges): moved far from Spot, containment is undefined.
    teapot = assets_dir / "teapot.obj"
    argv = ["contacts", str(assets_dir / "spot.obj"), str(teapot), "--translate-b", "50", "0", "0"]
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["containment"]["relation"] == "undefined"
    assert report["containment"]["text"] == "undefined: B is open (1036 boundary edges)"
    assert report["containment"]["a_in_b"]["winding"] is None

    assert main(["contacts", str(small), str(big), "--translate-b", "2.4", "0", "0"]) == 0
    assert "containment: in contact" in capsys.readouterr().out
