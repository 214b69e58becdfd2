"""Every step of the built-in lessons applies through the controller (no window, no video),
and a saved step brings back the same state."""

from __future__ import annotations

import numpy as np
import pytest

from viewer.control.lessons import step_state
from viewer.controller import Controller
from viewer.lessons import BUILTIN_LESSONS
from viewer.model import ViewerModel
from viewer.state.display import CameraView


@pytest.fixture
def controller(qapp):
    model = ViewerModel()
    controller = Controller(model, is_threaded=False)
    errors = []
    model.error.connect(lambda title, text: errors.append(f"{title}: {text}"))
    controller.errors = errors
    # The figure job is checked on its own (it runs an experiment): here only who asks.
    controller.asked_figures = []
    controller.lessons.run_experiment_figure = (
        lambda name, sizes=(): controller.asked_figures.append((name, tuple(sizes))) or True)
    yield controller
    controller.shutdown()


@pytest.mark.parametrize("name", list(BUILTIN_LESSONS))
def test_every_step_of_a_built_in_lesson_applies(controller, name):
    model = controller.model
    assert controller.lessons.open_lesson(name), controller.errors
    lesson = controller.lessons.lesson
    for index, step in enumerate(lesson.steps):
        if index:
            assert controller.lessons.next_step(), controller.errors
        assert controller.lessons.lesson_index == index
        state = step_state(lesson, index)
        assert model.frame is not None
        assert model.scene_key == state.source[1]
        for key, value in state.choices.items():
            assert getattr(model.pipeline, key) == value, (index, key)
        if state.update is not None:
            assert model.pipeline.update.value == state.update
        if state.level is not None:
            assert model.level == (None if state.level == "all" else state.level)
        if state.scene_param is not None:
            assert model.scene_param_value == pytest.approx(state.scene_param)
        if state.view is not None or state.camera is not None:
            assert isinstance(model.camera, CameraView)
        if step.step_until is not None:
            position = model.step_position
            assert position >= step.step_pairs
            assert position == model.steps.next_where(step.step_pairs, step.step_until)
        elif step.step_pairs is not None:
            assert model.is_stepping and model.step_position == min(
                step.step_pairs, controller.stepper.n_steps() - 1)
        else:
            assert not model.is_stepping
        if step.experiment is not None:
            assert controller.asked_figures[-1][0] == step.experiment.name
    assert not controller.errors
    assert not controller.lessons.next_step()  # the last step says so and stays
    assert controller.lessons.lesson_index == len(lesson) - 1


def test_previous_brings_back_the_state_of_the_step_before(controller):
    model = controller.model
    controller.lessons.open_lesson("aabb-vs-obb")
    controller.lessons.go_to_step(3)
    assert model.pipeline.bv == "obb" and model.scene_param_value == pytest.approx(1e-3)
    controller.lessons.previous_step()
    controller.lessons.previous_step()
    assert controller.lessons.lesson_index == 1
    assert model.pipeline.bv == "aabb" and model.scene_param_value == pytest.approx(1e-2)


def test_played_frames_advance_the_clock(controller):
    controller.lessons.open_lesson("refit-vs-rebuild")
    t0 = controller.model.t
    controller.lessons.next_step()  # plays 15 frames
    assert controller.model.t == pytest.approx(t0 + 15 / 30.0)
    assert controller.model.pipeline.update.value == "refit"


def test_the_refit_lesson_shows_a_new_pose_at_every_played_step(controller):
    # The twist has a period of 60 frames: 30 frames a step ended in the rest pose each time,
    # so the steps' pictures were the same.
    model, lessons = controller.model, controller.lessons
    lessons.open_lesson("refit-vs-rebuild")
    poses = []
    for index, step in enumerate(lessons.lesson.steps):
        if index:
            lessons.next_step()
        if index == 0 or step.play_frames:
            poses.append(np.asarray(model.frame.meshes[0].vertices).copy())
    for i, pose in enumerate(poses):
        for other in poses[i + 1:]:
            assert np.abs(pose - other).max() > 1e-3


def test_played_frames_play_after_the_timeline_was_scrubbed(controller):
    # A recorded frame on screen kept the live frames from being shown, so the lesson never
    # saw the frames it asked for and played nothing.
    model, lessons = controller.model, controller.lessons
    controller.scenes.load_scene("spot-twist-torus", wait=True)
    for _ in range(3):
        controller.animation.step_time(1 / 30)
    assert len(model.recording) >= 2
    model.set_cursor(0)  # the user scrubbed the timeline back
    assert lessons.open_lesson("refit-vs-rebuild")
    assert model.cursor is None  # the lesson shows the live frame
    lessons.next_step()
    assert model.t == pytest.approx(15 / 30.0)
    assert model.frame.t == pytest.approx(15 / 30.0)


def test_a_broken_lesson_changes_nothing(controller, tmp_path):
    controller.scenes.load_scene("linked-tori")
    path = tmp_path / "broken.toml"
    path.write_text('[[step]]\ncaption = "a"\nscene = "two-spheres"\nbv = "cube"\n')
    assert not controller.lessons.open_lesson(str(path))
    assert controller.errors == [
        "Cannot open lesson: broken.toml line 4: step 1 key 'bv': 'cube' is not a "
        "bounding-volume kind; choose one of " + controller.errors[0].split("one of ")[1]]
    assert controller.model.scene_key == "linked-tori" and controller.lessons.lesson is None


def test_the_saved_state_reads_back_to_the_same_state(controller, tmp_path):
    model = controller.model
    controller.scenes.load_scene("concentric-spheres")
    model.set_scene_param_value(0.003)
    model.set_pipeline(bv="kdop18" if "kdop18" in _bv_keys() else "sphere", split="SAH",
                       descend="BOTH", partition="octree")
    model.set_level(4)
    view = CameraView((3.0, 2.0, 5.0), (0.1, 0.0, -0.2), (0.0, 1.0, 0.0), 28.0)
    model.restore_camera(view)
    path = tmp_path / "saved.toml"
    assert controller.lessons.save_lesson_step(path, "The state to keep.", "My lesson"), \
        controller.errors
    model.set_level(2)
    assert controller.lessons.save_lesson_step(path, "Second step.")
    saved = {f: getattr(model.pipeline, f) for f in ("bv", "split", "descend", "partition",
                                                     "obb_fit", "update")}

    fresh = ViewerModel()
    other = Controller(fresh, is_threaded=False)
    try:
        other.scenes.load_scene("two-spheres")
        assert other.lessons.open_lesson(str(path))
        assert other.lessons.lesson.title == "My lesson" and len(other.lessons.lesson) == 2
        assert fresh.scene_key == "concentric-spheres"
        assert fresh.scene_param_value == pytest.approx(0.003)
        assert {f: getattr(fresh.pipeline, f) for f in saved} == saved
        assert fresh.level == 4
        assert fresh.camera == view
        other.lessons.next_step()
        assert fresh.level == 2
    finally:
        other.shutdown()


def test_a_state_from_mesh_files_cannot_be_saved(controller, tmp_path):
    mesh = tmp_path / "tri.obj"
    mesh.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    assert controller.files.load_files([str(mesh), str(mesh)])
    assert not controller.lessons.save_lesson_step(tmp_path / "x.toml", "caption")
    assert "only a built-in scene" in controller.errors[-1]
    assert not (tmp_path / "x.toml").exists()


def test_a_step_is_not_appended_to_a_broken_lesson(controller, tmp_path):
    controller.scenes.load_scene("two-spheres")
    path = tmp_path / "old.toml"
    path.write_text("[[step]]\ncaption = 'a'\nlevle = 2\n")
    assert not controller.lessons.save_lesson_step(path, "new step")
    assert "old.toml line 3: step 1 key 'levle'" in controller.errors[-1]
    assert path.read_text() == "[[step]]\ncaption = 'a'\nlevle = 2\n"


def test_a_step_is_not_appended_to_a_huge_file(controller, tmp_path):
    """The existing file is read only up to the lesson limit (a 1 GiB sparse file reached
    2.2 GB when read whole)."""
    controller.scenes.load_scene("two-spheres")
    path = tmp_path / "huge.toml"
    with open(path, "wb") as out:
        out.truncate(2**30)
    assert not controller.lessons.save_lesson_step(path, "new step")
    assert "huge.toml: larger than 1 MiB" in controller.errors[-1]
    assert path.stat().st_size == 2**30


def _bv_keys():
    from viewer.words.choices import bv_choices

    return [key for key, _l, _d in bv_choices()]
