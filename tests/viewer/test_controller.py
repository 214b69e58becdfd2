"""The controller without a window: scenes, frames off the GUI thread, poses, benchmark."""

from __future__ import annotations

import numpy as np
import pytest

from tests.viewer.helpers import windowless_controller
from viewer.scenes import SCENES


@pytest.mark.parametrize(
    "key", [k for k in SCENES if k != "bunny-bunny" and not SCENES[k].self_collision])
def test_every_scene_loads_and_runs_a_frame(key):
    model, controller = windowless_controller()
    assert controller.scenes.load_scene(key)
    assert len(model.bodies) >= 2
    frame = model.frame
    assert frame is not None and frame.result is not None
    assert frame.result.trace.n_levels > 1
    assert [m.n_faces for m in frame.meshes] == [b.rest.n_faces for b in model.bodies]
    controller.shutdown()


def test_bunny_bunny_scene_uses_the_full_bunny(load_asset):
    spec = SCENES["bunny-bunny"]
    assert [b.shape for b in spec.bodies] == ["stanford-bunny.obj"] * 2
    assert load_asset("stanford-bunny").n_faces == 69451
    assert spec.bodies[1].deformer is not None


def test_interlinked_tori_overlap_boxes_without_contacts():
    model, controller = windowless_controller()
    controller.scenes.load_scene("linked-tori")
    result = model.frame.result
    assert result.counters.n_bv_overlaps > 10
    assert result.counters.n_contacts == 0


def test_gap_slider_scales_the_outer_sphere_and_refits():
    model, controller = windowless_controller()
    controller.scenes.load_scene("concentric-spheres")
    outer = model.bodies[1]
    radius = np.linalg.norm(outer.rest.vertices, axis=1)
    np.testing.assert_allclose(radius, radius.max(), rtol=1e-2)
    gap = model.scene_param.apply
    np.testing.assert_allclose(model.frame.distance.distance, 0.01, rtol=1e-6)
    model.set_scene_param_value(0.1)
    new_radius = np.linalg.norm(model.bodies[1].rest.vertices, axis=1)
    np.testing.assert_allclose(new_radius / radius, gap.scale_for(0.1) / gap.scale_for(0.01),
                               rtol=1e-9)
    assert model.bodies[1].rest.faces is outer.original.faces
    assert model.frame.rebuilt[1] is False  # same faces: refit, not rebuild
    assert model.frame.result.counters.n_contacts == 0
    np.testing.assert_allclose(model.frame.distance.distance, 0.1, rtol=1e-6)


def test_translate_and_rotate_are_pose_changes_not_rebuilds():
    model, controller = windowless_controller()
    controller.scenes.load_scene("two-spheres")
    controller.poses.translate_body(1, (0.25, 0.0, 0.0))
    assert model.frame.rebuilt == [False, False]
    centre = controller.poses.centroid_world(1)
    controller.poses.rotate_body(1, (0, 0, 1), 0.5, centre)
    np.testing.assert_allclose(controller.poses.centroid_world(1), centre, atol=1e-12)
    assert model.frame.rebuilt == [False, False]
    np.testing.assert_allclose(model.frame.poses[1].as_matrix(), model.bodies[1].pose)


def test_stale_requests_collapse_into_one_pending_frame(qtbot):
    model, controller = windowless_controller(is_threaded=True)
    controller.frames.is_threaded = False
    controller.scenes.load_scene("two-spheres")
    controller.frames.is_threaded = True
    n_before = controller.frames.n_frames
    for i in range(10):
        controller.poses.translate_body(1, (0.01, 0.0, 0.0))  # each asks for a frame
        assert i == 0 or controller.frames.is_busy
    # No events were processed: the first request runs, the second waits, eight are dropped.
    assert controller.frames.n_dropped == 8
    qtbot.waitUntil(lambda: not controller.frames.is_busy, timeout=30_000)
    assert controller.frames.n_frames == n_before + 2
    np.testing.assert_allclose(model.frame.poses[1].as_matrix(), model.bodies[1].pose)
    controller.shutdown()


def test_worker_errors_become_messages(qtbot, monkeypatch):
    model, controller = windowless_controller(is_threaded=True)
    errors = []
    model.error.connect(lambda title, text: errors.append((title, text)))
    controller.frames.is_threaded = False
    controller.scenes.load_scene("two-spheres")
    controller.frames.is_threaded = True

    def broken(*_args, **_kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(controller.frames.pipe, "step", broken)
    frame = model.frame
    controller.frames.request_frame()
    qtbot.waitUntil(lambda: bool(errors), timeout=10_000)
    assert errors == [("Frame failed", "RuntimeError: boom")]
    assert model.frame is frame
    controller.shutdown()


def test_unknown_file_is_reported_with_its_name(tmp_path):
    model, controller = windowless_controller()
    controller.scenes.load_scene("two-spheres")
    errors = []
    model.error.connect(lambda title, text: errors.append(text))
    bodies = list(model.bodies)
    assert not controller.files.load_files([str(tmp_path / "missing.stl")])
    assert "missing.stl" in errors[0]
    assert model.bodies == bodies


def test_benchmark_reports_every_phase(capsys):
    from viewer.__main__ import main

    assert main(["--benchmark", "two-spheres", "--frames", "3"]) == 0
    out = capsys.readouterr().out
    for label in ("deform", "refit/rebuild", "traverse", "triangle tests", "overlay update",
                  "render", "whole frame", "frames/second"):
        assert label in out
    from viewer.bench.frame_rate import run_benchmark

    report = run_benchmark("two-spheres", n_frames=2, n_warmup=1)
    assert report["triangles"] == [1920, 1456]
    assert report["contacts"] > 0
    assert report["frame_ms"] >= report["core_ms"] > 0
    assert report["fps"] == pytest.approx(1e3 / report["frame_ms"])


def test_benchmark_with_another_volume_times_its_fit(capsys):
    from viewer.__main__ import main
    from viewer.bench.frame_rate import run_benchmark

    plain = run_benchmark("two-spheres", n_frames=2, n_warmup=1)
    report = run_benchmark("two-spheres", n_frames=2, n_warmup=1, bv="obb",
                           obb_fit="HULL_SURFACE", split="OBB")  # fmt: skip
    assert report["contacts"] == plain["contacts"] > 0
    assert plain["median_ms"]["fit"] == 0.0 < report["median_ms"]["fit"]
    assert report["core_ms"] >= report["median_ms"]["fit"] + report["median_ms"]["traverse"]
    assert main(["--benchmark", "two-spheres", "--frames", "2", "--bv", "kdop14"]) == 0
    out = capsys.readouterr().out
    assert "(kdop14, midpoint split)" in out and "volume fit" in out
