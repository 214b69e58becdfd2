"""The sat-axes experiment: the first separating axis against a plain-Python brute force,
the operation counts, and a quick run's rows and reading."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.experiments import (
    ExperimentOptions,
    ExperimentScene,
    make_figure,
    run_experiment,
    write_outputs,
)
from core.experiments.common import sphere_mesh
from core.experiments.sat_axes import (
    AXIS_NAMES,
    CROSS_OPS,
    FACE_A_OPS,
    FACE_B_OPS,
    SETUP_OPS,
    first_separating_axis,
    ops_per_test,
)
from core.pose import Pose, rotation_matrix


def _dot(u, v):
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


def _cross(u, v):
    return [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]


def _brute_first_axis(ca, axes_a, ha, cb, axes_b, hb, rot, trans, margin):
    """Project both boxes on each of the 15 axes, in the test's order, in plain Python."""
    a = [[axes_a[r][i] for r in range(3)] for i in range(3)]  # A's axes as vectors
    b = [[_dot(rot[r], [axes_b[k][j] for k in range(3)]) for r in range(3)] for j in range(3)]
    centre_b = [_dot(rot[r], cb) + trans[r] for r in range(3)]
    d = [centre_b[r] - ca[r] for r in range(3)]
    axes = a + b + [_cross(a[i], b[j]) for i in range(3) for j in range(3)]
    for k, axis in enumerate(axes):
        radius_a = sum((ha[i] + margin) * abs(_dot(a[i], axis)) for i in range(3))
        radius_b = sum(hb[j] * abs(_dot(b[j], axis)) for j in range(3))
        if abs(_dot(d, axis)) > radius_a + radius_b:
            return k
    return -1


def _random_rotation(rng):
    axis = rng.normal(size=3)
    return rotation_matrix(axis, rng.uniform(0.0, 2.0 * math.pi))


def test_first_separating_axis_equals_the_brute_force():
    rng = np.random.default_rng(14)
    n = 3000
    axes_a = np.stack([_random_rotation(rng) for _ in range(n)])
    axes_b = np.stack([_random_rotation(rng) for _ in range(n)])
    centre_a = rng.uniform(-1.0, 1.0, (n, 3))
    centre_b = rng.uniform(-1.0, 1.0, (n, 3))
    half_a = rng.uniform(0.05, 0.8, (n, 3))
    half_b = rng.uniform(0.05, 0.8, (n, 3))
    rot = _random_rotation(rng)
    trans = rng.uniform(-0.5, 0.5, 3)
    margin = 0.01
    found = first_separating_axis(centre_a, axes_a, half_a, centre_b, axes_b, half_b, rot,
                                  trans, margin)  # fmt: skip
    brute = [_brute_first_axis(centre_a[k].tolist(), axes_a[k].tolist(), half_a[k].tolist(),
                               centre_b[k].tolist(), axes_b[k].tolist(), half_b[k].tolist(),
                               rot.tolist(), trans.tolist(), margin) for k in range(n)]
    assert found.tolist() == brute
    # The sample reaches every kind of answer: overlap, face axes of both, cross axes.
    seen = set(brute)
    assert -1 in seen and seen & {0, 1, 2} and seen & {3, 4, 5}
    assert len(seen & set(range(6, 15))) >= 5


def test_first_separating_axis_of_two_known_boxes():
    eye = np.eye(3)[None]
    one = np.ones((1, 3))
    # Unit boxes 3 apart along y: A's y axis (id 1) separates; 1.5 apart: nothing does.
    for dy, expected in ((3.0, 1), (1.5, -1)):
        got = first_separating_axis(np.zeros((1, 3)), eye, one, np.array([[0.0, dy, 0.0]]),
                                    eye, one, np.eye(3), np.zeros(3))  # fmt: skip
        assert got.tolist() == [expected]
    # B turned 90 degrees about z (its y axis along A's x) and moved 3 along x: both A's x
    # and B's y separate; A's x (id 0) comes first in the order.
    rot = rotation_matrix((0.0, 0.0, 1.0), math.pi / 2)
    got = first_separating_axis(np.zeros((1, 3)), eye, one, np.zeros((1, 3)), eye, one, rot,
                                np.array([3.0, 0.0, 0.0]))  # fmt: skip
    assert got.tolist() == [0]


def test_operations_of_each_ending():
    face_a = SETUP_OPS + FACE_A_OPS
    assert ops_per_test(np.array([0]), full=True).tolist() == [face_a]
    assert ops_per_test(np.array([2]), full=False).tolist() == [SETUP_OPS + 3 * FACE_A_OPS]
    faces = SETUP_OPS + 3 * FACE_A_OPS + 3 * FACE_B_OPS
    assert ops_per_test(np.array([4]), full=True).tolist() == [faces - FACE_B_OPS]
    assert ops_per_test(np.array([-1]), full=False).tolist() == [faces]
    assert ops_per_test(np.array([6, 14, -1]), full=True).tolist() == [
        faces + CROSS_OPS, faces + 9 * CROSS_OPS, faces + 9 * CROSS_OPS]


@pytest.fixture(scope="module")
def quick():
    return run_experiment("sat-axes", ExperimentOptions(sizes=(1000,), frames=4))


def test_quick_run_rows_histogram_and_reading(quick):
    s = quick.summary
    assert s["frames"] == 4 and s["mismatched_pairs"] == 0 and s["checked_pairs"] > 1000
    rows = quick.rows
    assert len(rows) == 4 * 3 and [r[1] for r in rows[:3]] == ["obb", "aabb15", "aabb_lite"]
    names = [c.name for c in quick.columns]
    assert len(names) == 6 + 15 and names[6] == "sep_a_x" and names[-1] == "sep_az_x_bz"
    for row in rows:
        counts = row[6:]
        assert sum(counts) == row[3] <= row[2]  # every culled pair has its first axis
        if row[1] == "aabb_lite":
            assert not any(counts[6:])  # SAT lite never tests a cross axis
    for mode, index in (("obb", 0), ("aabb15", 1)):
        hist = [sum(r[6 + k] for r in rows[index::3]) for k in range(15)]
        assert hist == s["histogram"][mode]
    # SAT lite culls a subset of what 15 axes cull: it never tests fewer pairs.
    for full, lite in zip(rows[1::3], rows[2::3]):
        assert lite[2] >= full[2]
    assert s["extra_tests"] == s["tests"]["aabb_lite"] - s["tests"]["aabb15"] >= 0
    assert f"{s['extra_tests']:+,} box pairs" in quick.reading
    assert f"{100 * s['cross_share']['obb']:.1f} %" in quick.reading
    assert len(AXIS_NAMES) == 15


def test_one_size_only():
    with pytest.raises(ValueError, match="sat-axes takes one size"):
        run_experiment("sat-axes", ExperimentOptions(sizes=(1000, 2000), frames=1))


def test_figure_and_files(quick, tmp_path):
    fig = make_figure(quick)
    left, right = fig.axes
    assert [t.get_text() for t in left.get_xticklabels()] == list(AXIS_NAMES)
    assert left.get_ylabel() == "culled box pairs (%)" and "%" in right.get_ylabel()
    assert len(left.patches) == 2 * 15 + 1 and len(right.patches) == 3  # bars and the shading
    assert "van den Bergen" in " ".join(t.get_text() for t in fig.texts)
    paths = write_outputs(quick, tmp_path)
    assert paths["png"].read_bytes()[:4] == b"\x89PNG" and paths["svg"].stat().st_size > 0
    assert paths["csv"].read_text().startswith("# Which separating axis ends the box test\n")


def test_a_given_scene_with_scaled_poses_is_checked_pair_by_pair():
    """Poses with a scale: the traversal tests the scaled volumes, and so does the check."""
    a = sphere_mesh(300, name="a")
    b = sphere_mesh(200, name="b")
    scene = ExperimentScene(a, Pose(scale=1.5), b, Pose(scale=0.8, translation=(1.9, 0.2, 0.0)),
                            title="two scaled spheres")
    result = run_experiment("sat-axes", ExperimentOptions(sizes=(100,), scene=scene, frames=3))
    s = result.summary
    assert s["scene"] == "two scaled spheres" and s["checked_pairs"] > 100
    assert s["mismatched_pairs"] == 0
