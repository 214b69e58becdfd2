"""A pinned tree in the frame pipeline, and validation after every refit (Frame.validation)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from core.bvh import SplitRule, build_tree, refit_tree
from core.bvh.treefile_read import read_tree
from core.bvh.validate import ValidationReport, ViolationKind
from core.collide.brute import brute_force_pairs
from core.errors import TopologyChangedError
from core.pipeline import DEFAULT_REQUEST, BodyInput, FramePipeline, PipelineSettings, UpdateMode
from core.pose import Pose
from core.recording import Recording, open_recording, save_recording
from core.recording.codec import CodecError, FrameDecoder, FrameEncoder
from tests.core.helpers import as_foreign
from tests.core.meshgen import sphere_mesh

POSE_B = Pose(translation=(1.05, 0.2, 0.1))


@pytest.fixture(scope="module")
def meshes():
    return sphere_mesh(10), sphere_mesh(7, radius=0.6)


@pytest.fixture
def foreign(tmp_path, meshes):
    """Body A's tree as another engine wrote it (shuffled ids, children layout), read back."""
    path = tmp_path / "a.json"
    path.write_text(json.dumps(as_foreign(build_tree(meshes[0], SplitRule.SAH, 3), seed=2)))
    return read_tree(path, meshes[0])


def _wave(v, t):
    return v + 0.05 * np.sin(3.0 * v[:, ::-1] + t)


def _sorted(pairs):
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def _oracle(frame):
    vb = frame.meshes[1].vertices @ frame.poses[1].rotation.T + frame.poses[1].translation
    return brute_force_pairs(frame.meshes[0].vertices, frame.meshes[0].faces, vb,
                             frame.meshes[1].faces)  # fmt: skip


def test_pinned_tree_survives_every_settings_change(meshes, foreign):
    a, b = meshes
    pipe = FramePipeline(PipelineSettings(
        DEFAULT_REQUEST.replace(split=SplitRule.MIDPOINT, leaf_size=1)))
    pipe.pin_tree("a", foreign, a)
    assert pipe.pinned_keys == ("a",)
    bodies = [BodyInput("a", a), BodyInput("b", b, POSE_B)]
    first = pipe.step(bodies)
    assert first.rebuilt == [True, True]
    tree = first.trees[0]
    assert tree.first is foreign.tree.first and tree.bmin is foreign.tree.bmin
    for settings in (PipelineSettings(DEFAULT_REQUEST.replace(split=SplitRule.MEDIAN,
                                                              leaf_size=2)),
                     PipelineSettings(update=UpdateMode.REBUILD),
                     PipelineSettings(update=UpdateMode.AUTO, drift_threshold=0.0),
                     PipelineSettings(DEFAULT_REQUEST.replace(split=SplitRule.OBB,
                                                              leaf_size=7))):  # fmt: skip
        pipe.settings = settings
        frame = pipe.step(bodies)
        assert frame.trees[0].first is foreign.tree.first
        assert frame.rebuilt[0] is False
        assert frame.trees[1].leaf_size == settings.request.leaf_size  # B follows the settings
        assert np.array_equal(_sorted(frame.result.pairs), _oracle(frame))


def test_deformed_pinned_tree_is_refitted_not_rebuilt(meshes, foreign):
    a, b = meshes
    pipe = FramePipeline(PipelineSettings(update=UpdateMode.AUTO, drift_threshold=0.0,
                                          validate_after_refit=True))  # fmt: skip
    pipe.pin_tree("a", foreign, a)
    bodies = [BodyInput("a", a, deformer=_wave), BodyInput("b", b, POSE_B)]
    for t in (0.5, 1.0):
        frame = pipe.step(bodies, t)
        tree = frame.trees[0]
        assert tree.first is foreign.tree.first and frame.rebuilt[0] is (t == 0.5)
        expected = refit_tree(foreign.tree, frame.meshes[0])
        assert np.array_equal(tree.bmin, expected.bmin)
        assert np.array_equal(tree.bmax, expected.bmax)
        assert frame.validation[0].ok
        assert np.array_equal(_sorted(frame.result.pairs), _oracle(frame))


def test_file_bounds_are_used_as_read_broken_ones_included(tmp_path, meshes):
    a, b = meshes
    keys = as_foreign(build_tree(a, SplitRule.MIDPOINT, 2), seed=9)
    root = next(i for i, row in enumerate(keys["children"])
                if i not in {c for pair in keys["children"] for c in pair})  # fmt: skip
    leaf = next(i for i, row in enumerate(keys["children"]) if row == [-1, -1])
    keys["bounds"][leaf][3] -= 0.01  # one leaf's box no longer reaches its triangles' max x
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(keys))
    imported = read_tree(path, a)
    pipe = FramePipeline(PipelineSettings(validate_after_refit=True))
    pipe.pin_tree("a", imported, a)
    frame = pipe.step([BodyInput("a", a), BodyInput("b", b, POSE_B)])
    assert frame.trees[0].bmax is imported.tree.bmax
    report = frame.validation[0]
    ours = imported.node_of(leaf)
    assert [v.node for v in report.violations] == [ours]
    assert report.violations[0].kind is ViolationKind.TRIANGLE_OUTSIDE
    assert report.violations[0].size == pytest.approx(0.01)
    # The frame's check names the pinned tree's node by the file's id, as the file does.
    assert report.violations[0].text.startswith(f"node {leaf} (depth ")
    assert frame.validation[1].ok and imported.node_of(root) == 0
    assert "validate" in frame.timings


def test_pin_refuses_another_face_count_and_unpin_builds_again(meshes, foreign):
    a, b = meshes
    pipe = FramePipeline(PipelineSettings(
        DEFAULT_REQUEST.replace(split=SplitRule.MEDIAN, leaf_size=2)))
    with pytest.raises(ValueError, match=r"cannot pin a tree over 360 triangles to body 'b': "
                                         r"its mesh has 168 faces"):
        pipe.pin_tree("b", foreign, b)
    assert pipe.pinned_keys == ()
    pipe.pin_tree("a", foreign, a)
    bodies = [BodyInput("a", a), BodyInput("b", b, POSE_B)]
    pipe.step(bodies)
    with pytest.raises(TopologyChangedError, match="body 'a' has a pinned tree"):
        pipe.step([BodyInput("a", b), BodyInput("b", b, POSE_B)])
    assert pipe.unpin("a") is True and pipe.unpin("a") is False
    frame = pipe.step(bodies)
    assert frame.rebuilt[0] is True
    fresh = build_tree(a, SplitRule.MEDIAN, 2)
    assert np.array_equal(frame.trees[0].first, fresh.first)
    assert frame.validation is None


def test_validation_reports_reused_while_the_tree_is_unchanged(meshes):
    a, b = meshes
    pipe = FramePipeline(PipelineSettings(validate_after_refit=True))
    bodies = [BodyInput("a", a), BodyInput("b", b, POSE_B)]
    one, two = pipe.step(bodies), pipe.step(bodies)
    assert all(isinstance(r, ValidationReport) and r.ok for r in one.validation)
    assert two.validation[0] is one.validation[0]
    assert one.validation[0].nodes_checked == one.trees[0].n_nodes


def test_validation_round_trips_through_a_recording(tmp_path, meshes, foreign):
    a, b = meshes
    bmax = foreign.tree.bmax.copy()
    bmax[3] -= 0.02
    pipe = FramePipeline(PipelineSettings(validate_after_refit=True))
    pipe.pin_tree("a", dataclasses.replace(foreign.tree, bmax=bmax), a)
    rec = Recording()
    frame = pipe.step([BodyInput("a", a), BodyInput("b", b, POSE_B)])
    assert not frame.validation[0].ok
    rec.append(frame, ("a", "b"), UpdateMode.REFIT)
    back = open_recording(save_recording(rec, tmp_path / "r.bvhrec"))[0]
    for got, want in zip(back.validation, frame.validation):
        assert got.violations == want.violations
        assert np.array_equal(got.nodes(), want.nodes()) and got.nodes().dtype == np.int32
        assert (got.nodes_checked, got.n_found, got.summary()) == (
            want.nodes_checked, want.n_found, want.summary())


def test_a_frame_recorded_without_validation_still_decodes(meshes):
    a, b = meshes
    frame = FramePipeline().step([BodyInput("a", a), BodyInput("b", b, POSE_B)])
    encoder = FrameEncoder()
    tree = encoder.encode(frame)
    del tree["fields"]["validation"]  # as files written before the field existed
    back = FrameDecoder(encoder.arrays.__getitem__).decode(tree)
    assert back.validation is None and back.trees[0].n_nodes == frame.trees[0].n_nodes


def test_validation_of_a_frame_is_checked_when_decoded(meshes):
    a, b = meshes
    frame = FramePipeline(PipelineSettings(validate_after_refit=True)).step(
        [BodyInput("a", a), BodyInput("b", b, POSE_B)])
    encoder = FrameEncoder()
    tree = encoder.encode(frame)
    report = tree["fields"]["validation"][0]["fields"]
    encoder.arrays[report["bad_nodes"]["array"]] = np.array([10**6], dtype=np.int32)
    with pytest.raises(CodecError, match=r"validation\[0\]\.bad_nodes has an index outside"):
        FrameDecoder(encoder.arrays.__getitem__).decode(tree)


def test_pin_outlives_frames_without_the_body_and_forget(meshes, foreign):
    a, b = meshes
    pipe = FramePipeline()
    pipe.pin_tree("a", foreign, a)
    pipe.step([BodyInput("b", b)])  # a frame without body "a" drops its cache entry only
    pipe.forget()
    frame = pipe.step([BodyInput("a", a), BodyInput("b", b, POSE_B)])
    assert frame.trees[0].first is foreign.tree.first and frame.rebuilt[0] is True


def test_each_frame_names_the_tree_it_used_and_keeps_it_in_a_recording(tmp_path, meshes,
                                                                       foreign):
    a, b = meshes
    pipe = FramePipeline()
    bodies = [BodyInput("a", a), BodyInput("b", b, POSE_B)]
    own = pipe.step(bodies)
    assert own.tree_sources == [None, None]
    assert own.tree_words(0) == "BVH Lab's AABB tree (midpoint split)"
    pipe.pin_tree("a", foreign, a)
    pinned = pipe.step(bodies)
    assert pinned.tree_sources == ["tree from a.json", None]
    assert pinned.tree_words(0) == "tree from a.json"
    assert pipe.next_index == pinned.index + 1
    pipe.pin_tree("b", build_tree(b, SplitRule.SAH, 2), b, label="hand-made tree")
    assert pipe.step(bodies).tree_words(1) == "hand-made tree"
    rec = Recording()
    rec.append(pinned, ("a", "b"), UpdateMode.REFIT)
    back = open_recording(save_recording(rec, tmp_path / "r.bvhrec"))[0]
    assert back.tree_sources == ["tree from a.json", None]
    # A frame recorded before frames named their trees cannot tell whose tree it was.
    old = dataclasses.replace(own, tree_sources=None)
    assert old.tree_words(0) == "AABB tree (midpoint split), its source not recorded"
