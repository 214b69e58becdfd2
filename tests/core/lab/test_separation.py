"""The separating axis of every culled pair really separates the two volumes, for every kind."""

import numpy as np
import pytest

from core.bv import BV_KINDS
from core.lab.separation import separation
from core.lab.steps import StepOutcome, traversal_steps
from core.pipeline import BodyInput, FramePipeline, PipelineSettings
from core.pose import Pose, rotation_matrix
from core.request import CollisionRequest
from tests.core.meshgen import sphere_mesh


def _twist(rest, t):
    """A pure deformer: twists the sphere about z."""
    angle = 0.8 * rest[:, 2]
    c, s = np.cos(angle), np.sin(angle)
    out = rest.copy()
    out[:, 0] = c * rest[:, 0] - s * rest[:, 1]
    out[:, 1] = s * rest[:, 0] + c * rest[:, 1]
    return out


def _random_frame(bv, seed, margin=0.0):
    rng = np.random.default_rng(seed)
    poses = []
    for _ in range(2):
        rot = rotation_matrix(rng.normal(size=3), rng.uniform(0.0, np.pi))
        poses.append(Pose(rot, rng.uniform(-0.3, 0.3, 3)))
    direction = rng.normal(size=3)
    direction /= np.linalg.norm(direction)
    pose_b = Pose(poses[1].rotation, poses[0].translation + rng.uniform(1.2, 1.8) * direction)
    deformer = _twist if seed % 2 else None
    bodies = [BodyInput("a", sphere_mesh(9), poses[0], deformer),
              BodyInput("b", sphere_mesh(7, radius=0.7), pose_b)]  # fmt: skip
    request = CollisionRequest(bv=bv, trace=True, leaf_size=2, margin=margin)
    return FramePipeline(PipelineSettings(request)).step(bodies, 0.3)


def _projections(kind, row, pose, sep):
    points = pose.apply(kind.wire(row[None])["points"])
    return (points - sep.origin) @ sep.axis


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("bv", list(BV_KINDS))
def test_every_culled_pair_is_separated_along_the_reported_axis(bv, seed):
    frame = _random_frame(bv, seed)
    steps = traversal_steps(frame)
    kind = steps.kind
    culled = [steps[i] for i in range(len(steps))
              if steps[i].outcome is StepOutcome.CULLED]  # fmt: skip
    assert culled, "the scene must cull some pairs"
    vol_a, vol_b = steps.inputs.volumes
    scale = 4.0
    for step in culled[:400]:
        sep = separation(steps, step)
        assert sep.axis.shape == (3,) and sep.origin.shape == (3,)
        assert np.linalg.norm(sep.axis) == pytest.approx(1.0, abs=1e-12)
        (a0, a1), (b0, b1) = sep.interval_a, sep.interval_b
        assert a0 <= a1 < b0 <= b1
        assert sep.gap > 0.0 and sep.gap == b0 - a1
        assert sep.words.startswith(step.test_words + ": A spans [")
        tol = 1e-9 * scale
        pa = _projections(kind, vol_a[step.node_a], frame.poses[0], sep)
        pb = _projections(kind, vol_b[step.node_b], frame.poses[1], sep)
        assert pa.min() >= a0 - tol and pa.max() <= a1 + tol, step
        assert pb.min() >= b0 - tol and pb.max() <= b1 + tol, step


def test_the_same_frame_gives_the_same_geometry_from_the_frame_or_its_steps():
    frame = _random_frame("obb", 3)
    steps = traversal_steps(frame)
    step = steps[steps.next_where(-1, "overlap") + 1]
    i = next(i for i in range(len(steps)) if steps[i].outcome is StepOutcome.CULLED)
    one, two = separation(frame, steps[i]), separation(steps, steps[i])
    assert np.array_equal(one.axis, two.axis) and one.interval_a == two.interval_a
    assert separation(steps, steps[0]) is None  # the roots overlap
    assert step is not None


def test_words_name_the_test_and_the_near_contact_margin():
    frame = _random_frame("kdop14", 4, margin=0.01)
    steps = traversal_steps(frame)
    i = next(i for i in range(len(steps)) if steps[i].outcome is StepOutcome.CULLED)
    sep = separation(steps, steps[i])
    assert "slab" in sep.words and "gap" in sep.words
    assert "near-contact margin 0.01" in sep.words
    assert sep.gap > 0.01
