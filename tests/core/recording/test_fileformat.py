"""The .bvhrec file: every field of every frame comes back, and hostile files fail in one line."""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import stat
import zipfile

import numpy as np
import pytest

from core.frame_volumes import TreeBoxRows
from core.pipeline import BodyInput, FramePipeline, PipelineSettings, UpdateMode
from core.pose import Pose, rotation_matrix
from core.recording import (
    EventKind,
    Recording,
    RecordingCancelled,
    RecordingFileError,
    open_recording,
    save_recording,
)
from core.recording.fileformat import MANIFEST
from core.request import CollisionRequest, FrameOptions
from tests.core.helpers import npy_bytes, rewrite_zip
from tests.core.meshgen import sphere_mesh


def _wave(v, t):
    return v + 0.05 * np.sin(3.0 * v[:, ::-1] + t)


@pytest.fixture(scope="module")
def recording():
    """Frames with every extra on: OBB volumes, a BSP partition, self-collision, distance and
    containment; A deforms (new vertices every frame), B moves in, touches and leaves."""
    a, b = sphere_mesh(10), sphere_mesh(8, radius=0.6)
    settings = PipelineSettings(CollisionRequest(bv="obb", partition="bsp", trace=True),
                                update=UpdateMode.AUTO,
                                frame=FrameOptions(distance=True, containment=True,
                                                   self_collision=True))
    pipe = FramePipeline(settings)
    rec = Recording()
    for i, x in enumerate((3.0, 1.3, 1.1, 3.0)):
        pose = Pose(rotation_matrix((0, 0, 1), 0.1 * i), translation=(x, 0.1, 0))
        frame = pipe.step([BodyInput("a", a, deformer=_wave), BodyInput("b", b, pose)], 0.1 * i)
        rec.append(frame, ("a", "b"), UpdateMode.AUTO,
                   (EventKind.SCULPTED,) if i == 2 else ())
    # The trees' own boxes: TreeBoxRows.
    pipe.settings = PipelineSettings(CollisionRequest(trace=True))
    rec.append(pipe.step([BodyInput("a", a), BodyInput("b", b, Pose(translation=(1.2, 0, 0)))]),
               ("a", "b"), UpdateMode.REFIT)
    return rec


def assert_same(a, b, where="frame"):
    """Every field equal, recursively: arrays equal (value, dtype, shape), classes equal."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), where
    elif isinstance(a, TreeBoxRows):
        assert_same(a._boxes, b._boxes, where + ".boxes")
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            if f.init:
                assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), where
    else:
        assert a == b or isinstance(a, enum.Enum) and a is b, f"{where}: {a!r} != {b!r}"


@pytest.fixture(scope="module")
def saved(recording, tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "session.bvhrec"
    save_recording(recording, path)
    return path


def test_every_field_of_every_frame_comes_back(recording, saved):
    back = open_recording(saved)
    assert len(back) == len(recording)
    for i in range(len(recording)):
        assert_same(recording[i], back[i], f"frame {i}")
        assert back.body_keys(i) == recording.body_keys(i)
        assert back.update_mode(i) is recording.update_mode(i)
    assert back.events() == recording.events()
    assert any(e.kind is EventKind.SCULPTED for e in back.events())
    frame = back[1]
    assert frame.self_results is not None and frame.partition is not None
    assert frame.volumes.name == "obb" and isinstance(back[-1].volumes.rows, TreeBoxRows)
    assert not frame.meshes[0].vertices.flags.writeable


def test_shared_arrays_are_stored_once_and_shared_again(recording, saved):
    with zipfile.ZipFile(saved) as archive:
        members = [n for n in archive.namelist() if n.endswith(".npy")]
    # B's mesh and both faces arrays are one member each for the whole recording.
    assert len(members) < 60 * len(recording)
    back = open_recording(saved)
    assert back[0].meshes[1].vertices is back[3].meshes[1].vertices
    assert back[0].meshes[0].faces is back[2].meshes[0].faces
    assert back.nbytes <= recording.nbytes * 1.05


def test_the_file_is_a_numpy_archive_with_a_manifest(saved, recording):
    with np.load(saved, allow_pickle=False) as archive:
        manifest = json.loads(archive[MANIFEST])
        assert archive["a0"].shape[0] > 0
    assert manifest["format"] == "bvh-lab recording" and manifest["version"] == 2
    assert manifest["n_frames"] == len(manifest["frames"]) == len(recording)
    first = manifest["frames"][0]
    assert first["body_keys"] == ["a", "b"] and first["update"] == "AUTO"
    assert first["frame"]["class"] == "Frame"


def test_a_saved_file_gets_the_users_usual_permissions(saved):
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(saved.stat().st_mode) == 0o666 & ~mask


def test_progress_and_cancel(recording, tmp_path):
    seen = []
    path = save_recording(recording, tmp_path / "p.bvhrec",
                          progress=lambda d, t: seen.append((d, t)))
    assert seen[-1][0] == seen[-1][1] and len(seen) > 2
    opened = []
    open_recording(path, progress=lambda d, t: opened.append((d, t)))
    assert opened[-1] == (len(recording), len(recording))
    target = tmp_path / "kept.bvhrec"
    target.write_bytes(b"an older file")
    with pytest.raises(RecordingCancelled):
        save_recording(recording, target, cancel=lambda: True)
    assert target.read_bytes() == b"an older file"  # a cancel leaves the old file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.bvhrec", "p.bvhrec"]
    with pytest.raises(RecordingCancelled):
        open_recording(path, cancel=lambda: True)


def _first_member(saved, field="vertices"):
    manifest = json.loads(zipfile.ZipFile(saved).read(MANIFEST))
    mesh = manifest["frames"][0]["frame"]["fields"]["meshes"][0]["fields"]
    return mesh[field]["array"] + ".npy"


def _flip_middle_byte(saved, target):
    data = bytearray(saved.read_bytes())
    with zipfile.ZipFile(saved) as archive:
        info = archive.getinfo(_first_member(saved))
    at = info.header_offset + 30 + len(info.filename) + info.compress_size // 2
    data[at] ^= 0xFF
    target.write_bytes(bytes(data))
    return target


HOSTILE = {
    "truncated": (lambda s, t: t.write_bytes(s.read_bytes()[: len(s.read_bytes()) // 2]) and t,
                  r"damaged file \(truncated"),
    "flipped bytes": (_flip_middle_byte, "damaged file"),
    "garbage": (lambda s, t: t.write_bytes(b"\x00garbage" * 100) and t, "not a zip"),
    "no manifest": (lambda s, t: rewrite_zip(s, t, drop=MANIFEST),
                    r"not a recording \(no manifest"),
    "a member missing": (lambda s, t: rewrite_zip(s, t, drop=_first_member(s)),
                         "damaged file .*missing"),
    "version 3": (lambda s, t: rewrite_zip(s, t, lambda m: {**m, "version": 3}),
                  "made by format version 3 .* this app reads versions 1 to 2"),
    "garbage JSON": (lambda s, t: rewrite_zip(s, t, lambda m: b"{frames: [1, 2"),
                     "damaged file .*not valid JSON"),
    "nested too deeply": (lambda s, t: rewrite_zip(s, t, lambda m: ("[" * 100000).encode()),
                          "damaged file"),
    "another format": (lambda s, t: rewrite_zip(s, t, lambda m: {**m, "format": "other"}),
                       "not a recording"),
    "empty": (lambda s, t: rewrite_zip(s, t, lambda m: {**m, "frames": [], "n_frames": 0}),
              "the recording is empty"),
    "wrong shape": (lambda s, t: rewrite_zip(s, t, replace={
        _first_member(s): npy_bytes(np.zeros((4, 2)))}),
                    r"damaged file .*vertices must be float64 of shape \(n, 3\)"),
    "faces out of range": (lambda s, t: rewrite_zip(s, t, replace={
        _first_member(s, "faces"): npy_bytes(np.full((180, 3), 10**6, dtype=np.int32))}),
        "damaged file .*index outside|damaged file"),
    "header lies about size": (lambda s, t: rewrite_zip(s, t, replace={
        _first_member(s): npy_bytes(np.zeros((10**6, 3)))[:200]}), "damaged file .*declares shape"),
    "pickled objects": (lambda s, t: rewrite_zip(s, t, replace={
        _first_member(s): npy_bytes(np.array([{"x": 1}], dtype=object))}), "Python objects"),
    "a class not allowed": (lambda s, t: rewrite_zip(s, t, lambda m: {**m, "frames": [
        {**m["frames"][0], "frame": {"class": "Popen", "id": 0, "fields": {}}}],
        "n_frames": 1}), "'Popen' is not a class a frame holds"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_file_fails_in_one_line_naming_the_file(case, saved, tmp_path):
    make, words = HOSTILE[case]
    path = make(saved, tmp_path / "hostile.bvhrec")
    with pytest.raises(RecordingFileError, match=words) as info:
        open_recording(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(path))


def test_missing_files_and_empty_recordings(tmp_path):
    with pytest.raises(RecordingFileError, match="no such file"):
        open_recording(tmp_path / "none.bvhrec")
    with pytest.raises(RecordingFileError, match="not a regular file"):
        open_recording(tmp_path)
    with pytest.raises(RecordingFileError, match="the recording is empty, nothing to save"):
        save_recording(Recording(), tmp_path / "x.bvhrec")
    with pytest.raises(RecordingFileError, match="cannot write"):
        save_recording_of_one(tmp_path / "no-such-dir" / "x.bvhrec")


def save_recording_of_one(path):
    rec = Recording()
    pipe = FramePipeline()
    rec.append(pipe.step([BodyInput("a", sphere_mesh(4))]), ("a",), UpdateMode.REFIT)
    return save_recording(rec, path)


def _version_1_layout(manifest: dict) -> dict:
    """A version-2 manifest written the way version 1 wrote it: no ``frame_options`` object
    on a frame, its three keys on the frame's request instead."""
    options_by_id = {}
    for entry in manifest["frames"]:
        fields = entry["frame"]["fields"]
        options = fields.pop("frame_options")
        if "class" in options:
            options_by_id[options["id"]] = options["fields"]
        request = fields["request"]
        if "class" in request:  # the first frame with this request: later ones refer to it
            request["fields"].update(options_by_id[options.get("ref", options.get("id"))])
    return {**manifest, "version": 1}


def test_a_version_1_file_opens_with_its_request_keys_as_frame_options(recording, saved,
                                                                       tmp_path):  # fmt: skip
    old = rewrite_zip(saved, tmp_path / "old.bvhrec", _version_1_layout)
    with zipfile.ZipFile(old) as archive:
        manifest = json.loads(archive.read(MANIFEST))
    request = manifest["frames"][0]["frame"]["fields"]["request"]["fields"]
    assert manifest["version"] == 1 and request["distance"] is True
    assert "frame_options" not in manifest["frames"][0]["frame"]["fields"]
    back = open_recording(old)
    for i in range(len(recording)):
        assert_same(recording[i], back[i], f"frame {i}")
    assert back[0].frame_options == FrameOptions(self_collision=True, containment=True,
                                                 distance=True)
    assert back[-1].frame_options == FrameOptions()
    # A version-1 request key that is not a bool is damage, named like any other field.
    def spoil(m):
        m = _version_1_layout(m)
        m["frames"][0]["frame"]["fields"]["request"]["fields"]["distance"] = "yes"
        return m

    with pytest.raises(RecordingFileError, match=r"damaged file \(frame 0\.request\.distance "
                                                 r"must be true or false"):
        open_recording(rewrite_zip(saved, tmp_path / "bad.bvhrec", spoil))
    # A version-2 file has no frame-option keys on its request.
    def misplaced(m):
        m["frames"][0]["frame"]["fields"]["request"]["fields"]["distance"] = True
        return m

    with pytest.raises(RecordingFileError, match="CollisionRequest fields do not match "
                                                 "\\(field 'distance'\\)"):
        open_recording(rewrite_zip(saved, tmp_path / "v2.bvhrec", misplaced))
