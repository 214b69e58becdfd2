"""Nothing lost: File > Export mesh, Save / Open session, the autosave and the crash restore."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PyQt6.QtWidgets import QDialogButtonBox, QLabel

from core.io import load_mesh
from core.pose import Pose
from core.session import open_session, peek_session
from tests.viewer.conftest import settle, status_said, wait_scene
from tests.viewer.helpers import wait_recorder_job
from viewer.control.autosave import AutosaveState
from viewer.control.deformers import deformer_fields
from viewer.control.session import current_vertices
from viewer.state.display import Mode


def sculpt_and_move(window) -> np.ndarray:
    """One brush stroke on body 0, body 1 moved; returns body 0's sculpted rest vertices."""
    c, body = window.controller, window.model.bodies[0]
    corner = Pose.from_matrix(body.pose).apply(np.asarray(body.rest.vertices[0]))
    c.sculpting.begin_stroke(0)
    c.sculpting.sculpt(0, corner, np.array([0.0, 0.0, 0.3]))
    c.sculpting.end_stroke(0)
    c.poses.translate_body(1, (0.1, 0.05, -0.02))
    return np.array(window.model.bodies[0].rest.vertices)


# ---- export mesh ----------------------------------------------------------------------------


def test_export_writes_the_current_triangles_in_each_format(qtbot, window, tmp_path):
    sculpted = sculpt_and_move(window)
    model = window.model
    model.set_deformer(1, "twist", {"amplitude": 0.6})
    model.set_time(0.4)
    settle(qtbot, window)
    for index in (0, 1):
        want = current_vertices(model.bodies[index], model.t, "world")
        faces = np.asarray(model.bodies[index].rest.faces)
        for suffix in (".obj", ".ply", ".stl"):
            path = tmp_path / f"body{index}{suffix}"
            assert window.session_menu.export_mesh(index, str(path), "world")
            wait_recorder_job(qtbot, window)
            assert window.last_error is None
            back = load_mesh(path)
            if suffix == ".stl":  # float32 corners, equal ones welded
                assert np.array_equal(back.vertices[back.faces],
                                      want[faces].astype(np.float32).astype(np.float64))
            else:
                assert back.vertices.tobytes() == want.tobytes()
                assert np.array_equal(back.faces, faces)
    # Body 0 exported is the sculpted shape (no deformer, identity pose here), not the loaded.
    assert np.array_equal(load_mesh(tmp_path / "body0.ply").vertices,
                          Pose.from_matrix(model.bodies[0].pose).apply(sculpted))
    assert not np.array_equal(sculpted, model.bodies[0].original.vertices)
    twisted = load_mesh(tmp_path / "body1.ply").vertices
    rest_world = Pose.from_matrix(model.bodies[1].pose).apply(model.bodies[1].rest.vertices)
    assert not np.allclose(twisted, rest_world)  # the deformer's shape at t, not the rest


def test_the_export_dialog_offers_world_and_local(qtbot, window, tmp_path):
    window.controller.poses.translate_body(1, (1.0, 2.0, 3.0))
    window.model.set_selected(1)
    dialog = window.session_menu.ask_export_mesh()
    assert dialog.body_combo.currentIndex() == 1 and dialog.world_radio.isChecked()
    assert any("World coordinates (the default)" in label.text()
               for label in dialog.findChildren(QLabel))
    path = tmp_path / "local.stl"
    dialog.path_edit.setText(str(path))
    assert dialog.format_combo.currentData() == ".stl"  # the suffix picks the format
    dialog.local_radio.setChecked(True)
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save).click()
    wait_recorder_job(qtbot, window)
    body = window.model.bodies[1]
    back = load_mesh(path)
    assert np.allclose(back.vertices[back.faces], np.asarray(body.rest.triangles), atol=1e-6)
    assert status_said(window, "local coordinates")


def test_a_bad_export_path_is_one_line_naming_it_and_the_app_goes_on(qtbot, window, tmp_path):
    bodies = list(window.model.bodies)
    for path, words in ((tmp_path / "no-such-folder" / "m.obj", "cannot write"),
                        (tmp_path / "m.docx", "cannot write '.docx'")):
        window.last_error = None
        assert window.session_menu.export_mesh(0, str(path), "world")
        wait_recorder_job(qtbot, window)
        title, text = window.last_error
        assert title == "Cannot export mesh" and text.startswith(str(path))
        assert words in text and "\n" not in text
    assert window.model.bodies == bodies
    window.controller.poses.translate_body(0, (0.1, 0, 0))
    settle(qtbot, window)  # still computing frames


# ---- sessions -------------------------------------------------------------------------------


def _picture(window):
    window.redraw()
    r = window.renderer
    counts = {name: r.cell_count(name) for name in ("contact_tris", "overlap", "tree_a",
                                                     "tree_b")}
    counts["meshes"] = [poly.n_cells for poly in r.mesh_polys]
    image = np.asarray(window.plotter.screenshot(return_img=True))[..., :3].astype(int)
    return counts, image


def test_save_change_open_brings_everything_back(qtbot, make_window, tmp_path):
    window = make_window("two-spheres")
    model = window.model
    sculpted = sculpt_and_move(window)
    wave = {field.name: field.default for field in deformer_fields("wave")}
    model.set_deformer(0, "wave", {**wave, "amplitude": 0.05})  # as the Deform dock sets it
    model.set_pipeline(bv="obb", split="MEDIAN", margin=0.01)
    model.set_display(show_culled=True, mesh_opacity=0.4)
    model.set_time(0.3)
    model.set_mode(Mode.SCULPT)
    window.plotter.camera.Azimuth(30)
    window.plotter.camera.zoom(1.3)
    settle(qtbot, window)
    model.set_level(3)
    settle(qtbot, window)
    before = _picture(window)
    camera = model.read_camera()
    fields = (model.pipeline, model.display, model.level, model.mode, model.t,
              model.scene_key, model.scene_title, [b.pose.tolist() for b in model.bodies],
              [(b.name, b.color, b.is_visible, b.deformer, b.deformer_params)
               for b in model.bodies])
    path = tmp_path / "mine.bvhsession"
    assert window.session_menu.ask_save_session_as(str(path))
    wait_recorder_job(qtbot, window)
    assert window.last_error is None and path.is_file()

    window.controller.scenes.load_scene("bunny-teapot")  # everything changes
    wait_scene(qtbot, window)
    model.set_pipeline(bv="sphere", split="MIDPOINT", margin=0.0)
    model.set_display(show_culled=False)
    model.set_mode(Mode.CAMERA)
    settle(qtbot, window)
    assert window.session_menu.ask_open_session(str(path))
    wait_recorder_job(qtbot, window)
    settle(qtbot, window)
    assert window.last_error is None
    assert (model.pipeline, model.display, model.level, model.mode, model.t, model.scene_key,
            model.scene_title, [b.pose.tolist() for b in model.bodies],
            [(b.name, b.color, b.is_visible, b.deformer, b.deformer_params)
             for b in model.bodies]) == fields
    assert model.bodies[0].rest.vertices.tobytes() == sculpted.tobytes()
    assert model.read_camera() == camera
    after = _picture(window)
    assert after[0] == before[0]  # the same actors with the same cell counts
    differ = np.abs(after[1] - before[1]).max(axis=2) > 8
    assert differ.mean() < 0.01, f"{differ.mean():.3%} of the pixels differ"
    # Save session (Ctrl+Alt+S) now writes to the opened file without asking.
    os.utime(path, (0, 0))
    assert window.session_menu.save_session()
    wait_recorder_job(qtbot, window)
    assert path.stat().st_mtime > 0


def _hostile(saved, target, change):
    with zipfile.ZipFile(saved) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            data = old.read(item.filename)
            if item.filename == "manifest.json":
                data = json.dumps(change(json.loads(data))).encode()
            new.writestr(item.filename, data)
    return target


@pytest.mark.parametrize("case", ["version 2", "unknown display choice", "bad split",
                                  "truncated"])
def test_a_bad_session_names_the_file_and_the_scene_stays(qtbot, window, tmp_path, case):
    saved = tmp_path / "good.bvhsession"
    window.controller.session.save_session(saved)
    wait_recorder_job(qtbot, window)
    target = tmp_path / "bad.bvhsession"
    if case == "truncated":
        target.write_bytes(saved.read_bytes()[:200])
    else:
        _hostile(saved, target, {
            "version 2": lambda m: {**m, "version": 2},
            "unknown display choice": lambda m: {**m, "display": {"show_everything": True}},
            "bad split": lambda m: {**m, "pipeline": {**m["pipeline"], "split": "COIN"}},
        }[case])
    model = window.model
    bodies, title, pipeline = list(model.bodies), model.scene_title, model.pipeline
    assert window.session_menu.ask_open_session(str(target))
    wait_recorder_job(qtbot, window)
    heading, text = window.last_error
    assert heading == "Cannot open session" and text.startswith(str(target))
    assert "\n" not in text
    assert model.bodies == bodies and model.scene_title == title and model.pipeline == pipeline


# ---- autosave and crash restore -------------------------------------------------------------


def test_autosave_after_changes_debounced(qtbot, window, state_home, monkeypatch):
    import viewer.control.session as session_control

    # A second of quiet instead of three: the same order of events, 6 s less waiting.
    quiet_ms = 1000
    monkeypatch.setattr(session_control, "AUTOSAVE_QUIET_MS", quiet_ms)
    autosave = state_home / "bvh-lab" / "autosave.bvhsession"
    lock = state_home / "bvh-lab" / "running.lock"
    assert json.loads(lock.read_text())["pid"] == os.getpid()
    assert not autosave.exists()  # nothing changed yet
    c = window.controller
    for _ in range(20):  # a drag: many changes in a row, one file after them
        c.poses.translate_body(1, (0.01, 0, 0))
    qtbot.waitUntil(lambda: c.session.n_autosaves == 1, timeout=60_000)
    session = open_session(autosave)
    assert np.array_equal(session.bodies[1].pose, window.model.bodies[1].pose)
    qtbot.wait(int(1.5 * quiet_ms))
    assert c.session.n_autosaves == 1  # no change, no further save
    window.model.set_pipeline(split="SAH")
    qtbot.waitUntil(lambda: c.session.n_autosaves == 2, timeout=60_000)
    assert open_session(autosave).pipeline["split"] == "SAH"
    window.close()  # a clean quit removes the running mark, keeps the autosave
    assert not lock.exists() and autosave.is_file()


HOLDER = r"""
import sys, time
from viewer.control.autosave import AutosaveState

state = AutosaveState(sys.argv[1])
state.take()
print(state.slot, flush=True)
if len(sys.argv) > 2:
    state.autosave_path.write_bytes(b"theirs")
    print("saved", flush=True)
time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 60)
"""


def _holder(state: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", HOLDER, str(state), *args],
                            stdout=subprocess.PIPE, text=True)


def test_another_live_app_keeps_its_slot_and_this_one_autosaves_in_the_next(tmp_path):
    state = tmp_path / "state"
    other = _holder(state, "60")
    try:
        assert other.stdout.readline().strip() == "0"
        assert other.stdout.readline().strip() == "saved"
        mine = AutosaveState(state)
        assert mine.take() is None and mine.has_lock and mine.slot == 1
        assert mine.autosave_path == state / "autosave-1.bvhsession"
        assert (state / "autosave.bvhsession").read_bytes() == b"theirs"
        assert json.loads((state / "running.lock").read_text())["pid"] == other.pid
        assert json.loads((state / "running-1.lock").read_text())["pid"] == os.getpid()
        second = AutosaveState(state)  # a second window of this process: a slot of its own
        assert second.take() is None and second.slot == 2
        second.release()
        mine.release()
        assert not (state / "running-1.lock").exists()
    finally:
        other.kill()
        other.wait()


#: An app process that takes a slot in each state folder named on its standard input, keeps
#: it (as a running app does) and prints the slot.
RACER = r"""
import sys
from viewer.control.autosave import AutosaveState

held = []
for line in sys.stdin:
    state = AutosaveState(line.strip())
    state.take()
    held.append(state)
    print(state.slot, flush=True)
"""


def test_two_apps_starting_together_never_share_a_slot(tmp_path):
    """20 races: two app processes, already running, are handed a new state folder at the
    same moment and both take a slot in it; the slots always differ. (Two processes for all
    the races: starting two per race spent seconds importing before each take, and their
    takes met less often.)"""
    apps = [subprocess.Popen([sys.executable, "-c", RACER], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        for trial in range(20):
            state = tmp_path / f"state-{trial}"
            for app in apps:
                app.stdin.write(f"{state}\n")
            for app in apps:
                app.stdin.flush()
            slots = sorted(app.stdout.readline().strip() for app in apps)
            assert slots == ["0", "1"], f"trial {trial}: {slots}"
    finally:
        for app in apps:
            app.kill()
            app.wait()


def test_each_crash_keeps_its_own_session_until_answered(tmp_path):
    state = tmp_path / "state"
    for _crash in range(2):
        app = _holder(state, "60")
        assert app.stdout.readline().strip() == "0"
        assert app.stdout.readline().strip() == "saved"
        app.kill()  # a crash: the lock file stays, the kernel drops the lock
        app.wait()
        time.sleep(1.1)  # crashed files are named by the second of their autosave
        # the next start moves slot 0's autosave aside, once per crash
        mine = AutosaveState(state)
        mine.take()
        mine.release()
    crashed = sorted(state.glob("crashed-*.bvhsession"))
    assert len(crashed) == 2 and all(p.read_bytes() == b"theirs" for p in crashed)


def test_a_read_only_state_folder_says_autosave_is_off(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    state = AutosaveState(blocker / "bvh-lab")
    assert state.take() is None and not state.has_lock
    assert state.problem.startswith(f"Autosave is off: cannot create {blocker / 'bvh-lab'}")


DRIVER = r"""
import sys
import numpy as np
from PyQt6.QtCore import QSettings, QTimer
from PyQt6.QtWidgets import QApplication
import viewer.control.session as session_control
from core.pose import Pose
from viewer.app import build_window

session_control.AUTOSAVE_QUIET_MS = 300  # the autosave after 0.3 s of quiet, not 3 s
app = QApplication(sys.argv[:1])
window = build_window(scene="two-spheres",
                      settings=QSettings(sys.argv[1], QSettings.Format.IniFormat))
window.show()

def act():
    if window.controller.scenes.is_scene_loading:  # the scene is prepared on a worker lane
        QTimer.singleShot(100, act)
        return
    c, body = window.controller, window.model.bodies[0]
    corner = Pose.from_matrix(body.pose).apply(np.asarray(body.rest.vertices[0]))
    c.sculpting.begin_stroke(0)
    c.sculpting.sculpt(0, corner, np.array([0.0, 0.0, 0.3]))
    c.sculpting.end_stroke(0)
    c.poses.translate_body(1, (0.1, 0.05, -0.02))
    np.save(sys.argv[2], np.asarray(window.model.bodies[0].rest.vertices))
    np.save(sys.argv[3], window.model.bodies[1].pose)

QTimer.singleShot(500, act)
app.exec()
"""


def test_after_a_crash_the_next_start_offers_the_sculpt_back(qtbot, tmp_path, state_home,
                                                              settings):
    autosave = state_home / "bvh-lab" / "autosave.bvhsession"
    sculpted, pose = tmp_path / "sculpted.npy", tmp_path / "pose.npy"
    app = subprocess.Popen([sys.executable, "-c", DRIVER, str(tmp_path / "child.ini"),
                            str(sculpted), str(pose)], env=dict(os.environ))

    def saved_the_sculpt() -> bool:
        assert app.poll() is None, "the app ended by itself"
        try:
            return sculpted.exists() and peek_session(autosave).n_sculpted == 1
        except ValueError:
            return False  # not written yet

    try:
        qtbot.waitUntil(saved_the_sculpt, timeout=180_000)
    finally:
        app.send_signal(signal.SIGKILL)
        app.wait()
    assert (state_home / "bvh-lab" / "running.lock").exists()  # left behind by the crash

    from viewer.app import build_window

    window = build_window(scene="bunny-teapot", settings=settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.session_menu.restore_box is not None, timeout=60_000)
    box = window.session_menu.restore_box
    text = box.text()
    assert text.startswith("BVH Lab stopped unexpectedly at ")
    assert ("Restore the session saved then (Two spheres overlapping, 2 bodies, sculpting "
            "kept)?") in text
    assert [b.text() for b in box.buttons()] == ["Restore", "Discard"]
    next(b for b in box.buttons() if b.text() == "Restore").click()
    wait_recorder_job(qtbot, window)
    settle(qtbot, window)
    model = window.model
    assert window.last_error is None
    assert model.scene_key == "two-spheres"
    assert model.bodies[0].rest.vertices.tobytes() == np.load(sculpted).tobytes()
    assert np.array_equal(model.bodies[1].pose, np.load(pose))
    # This run holds slot 0 now; the restored session became its autosave (answered: it is
    # not offered again, and nothing is lost if this run stops before its next autosave).
    lock = json.loads((state_home / "bvh-lab" / "running.lock").read_text())
    assert lock["pid"] == os.getpid()
    assert not list((state_home / "bvh-lab").glob("crashed-*.bvhsession"))
    assert peek_session(autosave).scene_title == "Two spheres overlapping"


def test_discard_deletes_the_crashed_session(qtbot, window, state_home, settings, monkeypatch):
    import viewer.control.session as session_control

    monkeypatch.setattr(session_control, "AUTOSAVE_QUIET_MS", 300)  # not 3 s of waiting
    window.controller.poses.translate_body(1, (0.2, 0, 0))
    qtbot.waitUntil(lambda: window.controller.session.n_autosaves == 1, timeout=60_000)
    # A crash, as the next start sees it: the lock file left behind, its lock dropped.
    state = window.controller.session.autosave_state
    state.has_lock = False
    os.close(state.lock_fd)
    state.lock_fd = None
    from viewer.app import build_window

    second = build_window(scene="two-spheres", settings=settings)
    qtbot.addWidget(second)
    second.show()
    qtbot.waitUntil(lambda: second.session_menu.restore_box is not None, timeout=60_000)
    assert "(Two spheres overlapping, 2 bodies)" in second.session_menu.restore_box.text()
    next(b for b in second.session_menu.restore_box.buttons()
         if b.text() == "Discard").click()
    assert not list((state_home / "bvh-lab").glob("crashed-*.bvhsession"))
