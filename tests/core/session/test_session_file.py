"""The .bvhsession file: everything comes back, and hostile files fail in one line."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from core.deform.base import Axis
from core.files.container import MANIFEST
from core.session import (
    CameraState,
    Session,
    SessionBody,
    SessionCancelled,
    SessionFileError,
    open_session,
    peek_session,
    save_session,
)
from tests.core.helpers import npy_bytes, rewrite_zip
from tests.core.meshgen import sphere_mesh

PIPELINE = {"update": "AUTO", "drift_threshold": 0.4, "split": "SAH", "descend": "BOTH",
            "bv": "obb", "partition": "octree", "obb_fit": "HULL_SURFACE", "margin": 0.01}


def _session() -> Session:
    a, b = sphere_mesh(8), sphere_mesh(6, radius=0.5, name="small")
    sculpted = a.with_vertices(np.array(a.vertices) * 1.1 + 1e-3 / 3)
    pose = np.eye(4)
    pose[:3, 3] = (0.7, 0.1 / 3, -0.2)
    pose[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    return Session(
        bodies=(SessionBody("ball", sculpted, a, np.eye(4), "#0072b2", True, "twist",
                            {"amplitude": 0.5, "axis": Axis.Z, "speed": 0.25}, True),
                SessionBody("small", b, b, pose, "#009e73", False)),
        scene_key="two-spheres", scene_title="Two spheres", scene_description="d",
        scene_param_value=0.25, is_self_collision=False, t=1.75, is_playing=True,
        pipeline=dict(PIPELINE), display={"show_culled": True, "mesh_opacity": 0.3,
                                          "box_cap": 500},
        level=7, mode="sculpt", selected=1,
        camera=CameraState((1.0, 2.0, 3.0), (0.0, 0.1, 0.0), (0.0, 0.0, 1.0), 25.0, True, 1.5))


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    return save_session(_session(), tmp_path_factory.mktemp("s") / "scene.bvhsession")


def test_everything_comes_back(saved):
    want, got = _session(), open_session(saved)
    for a, b in zip(want.bodies, got.bodies):
        assert a.rest.vertices.tobytes() == b.rest.vertices.tobytes()  # bit-exact
        assert np.array_equal(a.rest.faces, b.rest.faces) and b.rest.faces.dtype == np.int32
        assert a.original.vertices.tobytes() == b.original.vertices.tobytes()
        assert np.array_equal(a.pose, b.pose)
        assert (a.name, a.color, a.is_visible, a.deformer, a.is_sculpted) == (
            b.name, b.color, b.is_visible, b.deformer, b.is_sculpted)
    twist = got.bodies[0].deformer_params
    assert twist["axis"] is Axis.Z and twist["amplitude"] == 0.5
    assert got.bodies[1].original is got.bodies[1].rest  # not sculpted: stored once
    for name in ("scene_key", "scene_title", "scene_description", "scene_param_value",
                 "is_self_collision", "t", "is_playing", "pipeline", "display", "level", "mode",
                 "selected", "camera"):
        assert getattr(got, name) == getattr(want, name), name
    assert got.saved_at > 0


def test_the_file_is_a_numpy_archive_with_a_manifest(saved):
    with np.load(saved, allow_pickle=False) as archive:
        manifest = json.loads(archive[MANIFEST])
        assert archive["a0"].shape[1] == 3
    assert manifest["format"] == "bvh-lab session" and manifest["version"] == 1
    assert manifest["bodies"][0]["deformer_params"]["axis"] == "z"
    assert manifest["pipeline"]["split"] == "SAH" and manifest["camera"]["view_angle"] == 25.0
    summary = peek_session(saved)
    assert (summary.scene_title, summary.n_bodies, summary.n_sculpted) == ("Two spheres", 2, 1)


def test_cancel_and_bad_paths_keep_the_old_file(tmp_path):
    target = tmp_path / "kept.bvhsession"
    target.write_bytes(b"older")
    with pytest.raises(SessionCancelled):
        save_session(_session(), target, cancel=lambda: True)
    assert target.read_bytes() == b"older" and len(list(tmp_path.iterdir())) == 1
    with pytest.raises(SessionFileError, match="cannot write"):
        save_session(_session(), tmp_path / "none" / "x.bvhsession")
    with pytest.raises(SessionFileError, match="no bodies"):
        save_session(Session(bodies=()), tmp_path / "x.bvhsession")
    with pytest.raises(SessionFileError, match="no such file"):
        open_session(tmp_path / "missing.bvhsession")


def _member(saved, key="vertices", body=0):
    manifest = json.loads(zipfile.ZipFile(saved).read(MANIFEST))
    return manifest["bodies"][body][key] + ".npy"


def _body(change):
    def edit(m):
        m["bodies"][0] = change(dict(m["bodies"][0]))
        return m
    return edit


def _vertices(saved):
    return np.array(open_session(saved).bodies[0].rest.vertices)


def _huge_manifest(s, t):
    with zipfile.ZipFile(t, "w", compression=zipfile.ZIP_DEFLATED) as new:
        new.writestr(MANIFEST, b" " * (17 * 2**20))  # compresses to a few kB
    return t


def _bomb(s, t):
    rewrite_zip(s, t)
    with zipfile.ZipFile(t, "a", compression=zipfile.ZIP_DEFLATED) as new:
        new.writestr("a99.npy", b"\0" * 1024)
        new.infolist()[-1].file_size = 5 * 2**30  # declares 5 GiB
    return t


HOSTILE = {
    "truncated": (lambda s, t: t.write_bytes(s.read_bytes()[: len(s.read_bytes()) // 2]) and t,
                  r"damaged file \(truncated"),
    "not a zip": (lambda s, t: t.write_bytes(b"\x00garbage" * 100) and t,
                  r"not a session \(not a zip"),
    "a recording": (lambda s, t: rewrite_zip(s, t, lambda m: {**m, "format": "bvh-lab recording"}),
                    "not a session"),
    "version 2": (lambda s, t: rewrite_zip(s, t, lambda m: {**m, "version": 2}),
                  "made by format version 2 .* this app reads version 1"),
    "no manifest": (lambda s, t: rewrite_zip(s, t, drop=MANIFEST), r"not a session \(no manifest"),
    "garbage JSON": (lambda s, t: rewrite_zip(s, t, lambda m: b'{"bodies": [1'), "not valid JSON"),
    "no bodies": (lambda s, t: rewrite_zip(s, t, lambda m: {**m, "bodies": []}),
                  "holds no bodies"),
    "a body missing its array": (lambda s, t: rewrite_zip(s, t, drop=_member(s)),
                                 r"body 0.vertices: array member a0.npy is missing"),
    "faces out of range": (lambda s, t: rewrite_zip(s, t, replace={
        _member(s, "faces"): npy_bytes(np.full((224, 3), 10**6, dtype=np.int32))}),
        "body 0: .*face"),
    "NaN vertices": (lambda s, t: rewrite_zip(s, t, replace={
        _member(s): npy_bytes(np.where(np.arange(3) == 1, np.nan, _vertices(s)))}),
        "body 0.vertices has a coordinate that is not finite"),
    "float32 vertices": (lambda s, t: rewrite_zip(s, t, replace={
        _member(s): npy_bytes(_vertices(s).astype(np.float32))}),
        r"body 0.vertices must be float64 of shape \(n, 3\), got float32"),
    "pickled objects": (lambda s, t: rewrite_zip(s, t, replace={
        _member(s): npy_bytes(np.array([{"x": 1}], dtype=object))}), "Python objects"),
    "header lies about size": (lambda s, t: rewrite_zip(s, t, replace={
        _member(s): npy_bytes(np.zeros((10**6, 3)))[:300]}), "declares shape"),
    "huge manifest": (_huge_manifest, "manifest.json declares 17 MiB"),
    "arrays declare 5 GiB": (_bomb, "too large"),
    "a shearing pose": (lambda s, t: rewrite_zip(s, t, _body(lambda b: {
        **b, "pose": [[1, 0.5, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]})),
        "body 0: .*rotation"),
    "unknown deformer": (lambda s, t: rewrite_zip(s, t, _body(lambda b: {
        **b, "deformer": "explode"})), "unknown deformer 'explode'"),
    "bad deformer setting": (lambda s, t: rewrite_zip(s, t, _body(lambda b: {
        **b, "deformer_params": {"axis": "w"}})), "deformer twist: axis must be one of"),
    "unknown split rule": (lambda s, t: rewrite_zip(s, t, lambda m: {
        **m, "pipeline": {**m["pipeline"], "split": "RANDOM"}}), "pipeline.split is 'RANDOM'"),
    "negative margin": (lambda s, t: rewrite_zip(s, t, lambda m: {
        **m, "pipeline": {**m["pipeline"], "margin": -1}}), "pipeline.margin is -1.0"),
    "unknown mode": (lambda s, t: rewrite_zip(s, t, lambda m: {**m, "mode": "paint"}),
                     "mode is 'paint'"),
    "camera not numbers": (lambda s, t: rewrite_zip(s, t, lambda m: {
        **m, "camera": {**m["camera"], "position": [1, "x", 2]}}),
        "camera.position must be three finite numbers"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_file_fails_in_one_line_naming_the_file(case, saved, tmp_path):
    make, words = HOSTILE[case]
    path = make(saved, tmp_path / "hostile.bvhsession")
    with pytest.raises(SessionFileError, match=words) as info:
        open_session(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(path))
