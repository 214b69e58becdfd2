"""``python -m viewer --record`` and ``--replay``: names, options and JSON keys as documented."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from viewer.__main__ import main

SCENE = "cloth-sphere"  # deforms every frame and always has contacts


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "cloth.bvhrec"
    assert main(["--scene", SCENE, "--frames", "4", "--record", str(path)]) == 0
    return path


def test_record_prints_one_line_and_writes_a_recording(recorded, tmp_path, capsys):
    from core.recording import open_recording

    path = tmp_path / "again.bvhrec"
    assert main(["--scene", SCENE, "--frames", "3", "--record", str(path)]) == 0
    out = capsys.readouterr().out.strip()
    assert "\n" not in out
    assert out.startswith(f"recorded 3 frames of {SCENE} to {path}: ") and out.endswith(" s")
    assert "MB in memory" in out and "MB on disk" in out
    back = open_recording(path)
    assert len(back) == 3
    # The scene's deformer ran: every frame has vertices of its own.
    assert back[0].meshes[0].vertices is not back[1].meshes[0].vertices
    assert back[1].t > back[0].t


def test_replay_json_keys_and_exact_counters_with_the_recorded_settings(recorded, capsys):
    assert main(["--replay", str(recorded), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {"frames", "recorded", "all_identical", "settings"} <= set(report)
    assert len(report["frames"]) == 4 and report["all_identical"] is True
    for row, old in zip(report["frames"], report["recorded"]):
        assert set(row) == {"frame", "bv_tests", "tri_tests", "time_ms", "contacts_identical"}
        assert row["contacts_identical"] is True and row["frame"] == old["frame"]
        assert (row["bv_tests"], row["tri_tests"]) == (old["bv_tests"], old["tri_tests"])


@pytest.mark.parametrize("options", [
    ["--bv", "obb", "--obb-fit", "vertices"], ["--bv", "sphere", "--split", "sah"],
    ["--update", "rebuild", "--descend", "both"],
])  # fmt: skip
def test_replay_with_other_settings_keeps_the_contacts(recorded, options, capsys):
    assert main(["--replay", str(recorded), "--json", *options]) == 0
    report = json.loads(capsys.readouterr().out)
    assert all(row["contacts_identical"] for row in report["frames"])
    assert options[1] in report["settings"]


def test_replay_table_without_json(recorded, capsys):
    assert main(["--replay", str(recorded), "--bv", "kdop14"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"replay of {recorded} with kdop14, midpoint split")
    assert "volume tests" in out and out.rstrip().endswith("(recorded -> replayed)")


def test_a_contact_difference_exits_1_and_is_flagged(recorded, tmp_path, capsys):
    import dataclasses

    from core.pipeline import UpdateMode
    from core.recording import Recording, open_recording, save_recording

    source = open_recording(recorded)
    changed = Recording()
    for i in range(len(source)):
        frame = source[i]
        if i == 2:
            result = frame.result
            frame = dataclasses.replace(frame, result=dataclasses.replace(
                result, pairs=result.pairs[1:], kinds=result.kinds[1:],
                segments=result.segments[1:]))
        changed.append(frame, source.body_keys(i), UpdateMode.REFIT)
    path = save_recording(changed, tmp_path / "changed.bvhrec")
    assert main(["--replay", str(path), "--bv", "obb", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["all_identical"] is False and report["mismatches"] == [source[2].index]
    assert [r["contacts_identical"] for r in report["frames"]] == [True, True, False, True]
    assert main(["--replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "DIFFERENT" in out and "CONTACTS DIFFER in 1 of 4 frames" in out


@pytest.mark.parametrize("argv, words", [
    (["--scene", "nope", "--frames", "2", "--record", "{tmp}/x.bvhrec"], "invalid choice"),
    (["--frames", "2", "--record", "{tmp}/x.bvhrec"], "--record needs --scene"),
    (["--scene", SCENE, "--frames", "0", "--record", "{tmp}/x.bvhrec"], "at least 1"),
    (["--scene", SCENE, "--frames", "2", "--record", "{tmp}/no/x.bvhrec"], "cannot write"),
    (["--scene", SCENE, "--frames", "2", "--record", "{tmp}"], "is a directory"),
    (["--replay", "{tmp}/none.bvhrec", "--json"], "no such file"),
    (["--replay", "{tmp}/garbage.bvhrec"], "not a recording"),
    (["--replay", "{tmp}/garbage.bvhrec", "--bv", "nope"], "invalid choice"),
    (["--replay", "{tmp}/garbage.bvhrec", "--descend", "sideways"], "invalid choice"),
])  # fmt: skip
def test_bad_files_and_options_are_one_line_and_exit_2(argv, words, tmp_path, capsys):
    (tmp_path / "garbage.bvhrec").write_bytes(b"not a zip at all")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "\n" not in err and err.startswith("error: ") and words in err
    assert captured.out == ""
    assert not (tmp_path / "x.bvhrec").exists()


def test_the_command_lines_run_as_a_program(tmp_path):
    path = tmp_path / "p.bvhrec"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run([sys.executable, "-m", "viewer", "--scene", "two-spheres", "--frames",
                          "2", "--record", str(path)], capture_output=True, text=True, env=env,
                         check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("recorded 2 frames of two-spheres")
    run = subprocess.run([sys.executable, "-m", "viewer", "--replay", str(path), "--bv", "obb",
                          "--json"], capture_output=True, text=True, env=env, check=False)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert [r["contacts_identical"] for r in report["frames"]] == [True, True]


def test_a_reopened_frame_redraws_as_the_recorded_one(tmp_path):
    """Every overlay of a frame opened from a file has the cells of the frame as recorded, and
    the off-screen picture is the same."""
    import numpy as np
    import pyvista as pv

    from core.pipeline import BodyInput, FramePipeline, PipelineSettings, UpdateMode
    from core.pose import Pose
    from core.recording import Recording, open_recording, save_recording
    from core.request import CollisionRequest, FrameOptions
    from tests.core.meshgen import sphere_mesh
    from viewer.render.overlays import build_overlays
    from viewer.state.display import Display

    pipe = FramePipeline(PipelineSettings(CollisionRequest(bv="obb", trace=True),
                                          frame=FrameOptions(self_collision=True)))
    frame = pipe.step([BodyInput("a", sphere_mesh(12)),
                       BodyInput("b", sphere_mesh(10, radius=0.6), Pose(translation=(1.2, 0, 0)))])
    recording = Recording()
    recording.append(frame, ("a", "b"), UpdateMode.REFIT)
    back = open_recording(save_recording(recording, tmp_path / "one.bvhrec"))[0]

    def draw(f, name):
        out = build_overlays(f, Display(show_culled=True), 3)
        plotter = pv.Plotter(off_screen=True, window_size=(320, 240))
        for mesh, pose in zip(f.meshes, f.poses):
            plotter.add_mesh(pv.PolyData(pose.apply(mesh.vertices)), color="white")
        for key, poly in out.polys.items():
            if poly.n_points:
                plotter.add_mesh(poly, color="red", name=key)
        plotter.camera_position = [(0.6, -4, 2), (0.6, 0, 0), (0, 0, 1)]
        image = plotter.screenshot(str(tmp_path / name), return_img=True)
        plotter.close()
        return {k: int(v.n_cells) for k, v in out.polys.items()}, out.notes, image

    cells, notes, image = draw(frame, "recorded.png")
    cells_back, notes_back, image_back = draw(back, "reopened.png")
    assert cells == cells_back and notes == notes_back
    assert sum(cells.values()) > 0
    assert np.count_nonzero(image.sum(axis=2)) > 1000
    assert np.array_equal(image, image_back)
