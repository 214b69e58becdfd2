"""Replay: the recorded settings reproduce the counters; every other kind, the contacts."""

from __future__ import annotations

import numpy as np
import pytest

from core.bv import BV_KINDS
from core.bvh import SplitRule
from core.collide.brute import brute_force_pairs
from core.collide.tandem import DescendRule
from core.pipeline import DEFAULT_REQUEST, BodyInput, FramePipeline, PipelineSettings, UpdateMode
from core.pose import Pose, rotation_matrix
from core.recording import (
    Recording,
    RecordingCancelled,
    open_recording,
    recorded_settings,
    replay,
    save_recording,
)
from core.request import CollisionRequest, FrameOptions
from tests.core.meshgen import sphere_mesh


def _wave(v, t):
    return v + 0.08 * np.sin(4.0 * v[:, ::-1] + 3.0 * t)


@pytest.fixture(scope="module")
def recording():
    a, b = sphere_mesh(10), sphere_mesh(8, radius=0.7)
    pipe = FramePipeline(PipelineSettings(CollisionRequest(trace=True)))
    rec = Recording()
    for i, x in enumerate((2.5, 1.6, 1.4, 1.2, 1.5)):
        frame = pipe.step([BodyInput("a", a, deformer=_wave),
                           BodyInput("b", b, Pose(rotation_matrix((1, 1, 0), 0.4), (x, 0.05, 0)))],
                          0.2 * i)
        rec.append(frame, ("a", "b"), UpdateMode.REFIT)
    assert sum(rec[i].result.n_contacts > 0 for i in range(len(rec))) >= 3
    return rec


def test_the_recorded_contacts_are_the_oracle_s(recording):
    for i in range(len(recording)):
        frame = recording[i]
        va = frame.meshes[0].vertices
        vb = frame.poses[1].apply(frame.meshes[1].vertices)
        oracle = brute_force_pairs(va, frame.meshes[0].faces, vb, frame.meshes[1].faces)
        assert np.array_equal(oracle, frame.result.pairs)


def test_the_recorded_settings_reproduce_every_counter(recording):
    report = replay(recording, recorded_settings(recording))
    assert report.all_identical and report.mismatches == []
    assert [r.frame for r in report.rows] == [recording[i].index for i in range(len(recording))]
    for row in report.rows:
        assert (row.bv_tests, row.tri_tests) == (row.recorded_bv_tests, row.recorded_tri_tests)
        assert row.time_ms > 0 and row.recorded_time_ms > 0
    assert report.settings.startswith("aabb, midpoint split")


@pytest.mark.parametrize("bv", [k for k in BV_KINDS if k != "aabb"])
def test_every_other_kind_gives_identical_contacts(recording, bv):
    report = replay(recording, PipelineSettings(CollisionRequest(bv=bv, trace=True)))
    assert report.all_identical, report.mismatches
    assert report.settings.startswith(bv)
    if bv in ("obb", "sphere", "rss"):  # kdop6 is the AABB again: the same tests
        assert any(r.bv_tests != r.recorded_bv_tests for r in report.rows)


@pytest.mark.parametrize("request_change, change", [
    ({"split": SplitRule.SAH}, {}), ({"descend": DescendRule.BOTH}, {}),
    ({}, {"update": UpdateMode.REBUILD}), ({}, {"update": UpdateMode.AUTO, "drift_threshold": 0.0}),
])  # fmt: skip
def test_other_splits_updates_and_descend_rules_give_identical_contacts(recording,
                                                                        request_change, change):
    report = replay(recording, PipelineSettings(DEFAULT_REQUEST.replace(**request_change),
                                                **change))
    assert report.all_identical


def test_a_changed_contact_is_flagged(recording, tmp_path):
    """Move B in one recorded frame (through the file): the replay's contacts differ there."""
    import dataclasses

    moved = Recording()
    for i in range(len(recording)):
        frame = recording[i]
        if i == 3:
            pairs = frame.result.pairs[1:]
            result = dataclasses.replace(frame.result, pairs=pairs, kinds=frame.result.kinds[1:],
                                         segments=frame.result.segments[1:])
            frame = dataclasses.replace(frame, result=result)
        moved.append(frame, recording.body_keys(i), recording.update_mode(i))
    path = save_recording(moved, tmp_path / "changed.bvhrec")
    report = replay(open_recording(path), PipelineSettings(DEFAULT_REQUEST.replace(bv="obb")))
    assert not report.all_identical
    assert report.mismatches == [recording[3].index]


def test_self_contacts_are_compared_when_recorded():
    mesh = sphere_mesh(8)

    def fold(v, t):
        return v * np.array([1.0, 1.0, 0.05]) + np.array([0, 0, 0.2]) * np.sign(v[:, :1])

    pipe = FramePipeline(PipelineSettings(frame=FrameOptions(self_collision=True)))
    rec = Recording()
    rec.append(pipe.step([BodyInput("a", mesh, deformer=fold),
                          BodyInput("b", mesh, Pose(translation=(3, 0, 0)))]), ("a", "b"),
               UpdateMode.REFIT)  # fmt: skip
    report = replay(rec, PipelineSettings(DEFAULT_REQUEST.replace(bv="sphere")))
    assert report.all_identical


def test_progress_cancel_and_bad_arguments(recording):
    seen = []
    replay(recording, PipelineSettings(), progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (len(recording), len(recording))
    with pytest.raises(RecordingCancelled):
        replay(recording, PipelineSettings(), cancel=lambda: True)
    with pytest.raises(TypeError, match="settings must be a PipelineSettings"):
        replay(recording, "obb")
    with pytest.raises(TypeError, match="recording must be a Recording"):
        replay([], PipelineSettings())
