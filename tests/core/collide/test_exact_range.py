"""Pairs outside the exact test's range are rejected with one line, in the query and the CLI;
pairs inside it are decided exactly at any magnitude."""

from __future__ import annotations

import numpy as np
import pytest

from core import contacts
from core.cli import main
from core.collide.tritri import ContactKind, tri_tri
from core.mesh import TriMesh

ONE = np.array([[0, 1, 2]], dtype=np.int32)
FLAT = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
# Crosses FLAT; its first coordinate is the one made tiny below.
UPRIGHT = [[0.25, 0.25, -1.0], [0.25, 0.5, 1.0], [0.5, 0.25, 1.0]]


def _mesh(corners, name):
    return TriMesh.from_arrays(np.array(corners, dtype=float), ONE, name)


def test_query_rejects_a_pair_spanning_too_many_binades():
    tiny = [list(c) for c in UPRIGHT]
    tiny[0][0] = 1e-80  # 2^-265 next to coordinates of 1: beyond the 2^-240 spread
    with pytest.raises(ValueError, match=r"face pair \(A, B\) \(0, 0\) is outside") as info:
        contacts(_mesh(FLAT, "a"), _mesh(tiny, "b"))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("log_scale", [-1000, -500, 0, 200])
def test_query_is_exact_at_every_magnitude(log_scale):
    # The query itself stops at core.mesh.MAX_ABS_COORDINATE (2**240: its box and distance
    # arithmetic overflows past it); the triangle test alone goes further, below.
    scale = 2.0**log_scale
    a = _mesh(np.array(FLAT) * scale, "a")
    b = _mesh(np.array(UPRIGHT) * scale, "b")
    result = contacts(a, b)
    assert result.pairs.tolist() == [[0, 0]] and result.kinds.tolist() == [1]
    lifted = np.array(UPRIGHT) * scale
    lifted[:, 2] = np.abs(lifted[:, 2]) + np.spacing(scale)  # all above the plane now
    assert contacts(a, _mesh(lifted, "b")).n_contacts == 0


@pytest.mark.parametrize("log_scale", [-1060, 500, 1000, 1020])
def test_triangle_test_is_exact_at_every_magnitude(log_scale):
    scale = 2.0**log_scale
    flat, upright = np.array(FLAT) * scale, np.array(UPRIGHT) * scale
    assert tri_tri(flat, upright)[0] is ContactKind.CROSSING
    lifted = upright.copy()
    lifted[:, 2] = np.abs(lifted[:, 2]) + np.spacing(scale)
    assert tri_tri(flat, lifted)[0] is ContactKind.DISJOINT


def test_query_past_the_coordinate_bound_is_one_line():
    scale = 2.0**500
    with pytest.raises(ValueError, match=r"mesh_a: .*2\*\*240") as info:
        contacts(_mesh(np.array(FLAT) * scale, "a"), _mesh(np.array(UPRIGHT) * scale, "b"))
    assert "\n" not in str(info.value)


def test_cli_reports_out_of_range_in_one_line(capsys, tmp_path):
    a = tmp_path / "a.obj"
    b = tmp_path / "b.obj"
    a.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    b.write_text("v 1e-80 0.25 -1\nv 0.25 0.5 1\nv 0.5 0.25 1\nf 1 2 3\n")
    assert main(["contacts", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: face pair (A, B) (0, 0) is outside the exact triangle test")
    assert err.count("\n") == 1
