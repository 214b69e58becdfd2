"""A lesson plays the same from any prior state (its first step starts from a defined
state) and closing it gives the user's settings back."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from viewer.control.lessons import LESSON_START
from viewer.controller import Controller
from viewer.lessons import BUILTIN_LESSONS
from viewer.model import ViewerModel
from viewer.offscreen.lesson_check import play_lesson
from viewer.state.pipeline import UpdateChoice


def _new_controller():
    model = ViewerModel()
    controller = Controller(model, is_threaded=False)
    controller.lessons.run_experiment_figure = lambda name, sizes=(): True
    return controller


@pytest.fixture
def controller(qapp):
    controller = _new_controller()
    yield controller
    controller.shutdown()


def fresh(controller) -> None:
    """The app as it starts."""


def after_the_tandem_lesson(controller) -> None:
    """The tandem lesson played to its end and left open (boxes off, descend both, the
    stepper on)."""
    lessons = controller.lessons
    assert lessons.open_lesson("tandem-traversal")
    while lessons.next_step():
        pass


def after_the_user_changed_things(controller) -> None:
    """Another scene, the overlays, kind, update mode, level changed, the timeline
    scrubbed."""
    model = controller.model
    controller.scenes.load_scene("two-spheres", wait=True)
    model.set_pipeline(bv="sphere", split="SAH", descend="BOTH", partition="grid",
                       update=UpdateChoice.AUTO, margin=0.05)
    model.set_display(show_tree_a=False, show_parents=True, show_culled=True,
                      show_contacts=False, heat_map="work", mesh_opacity=0.2)
    model.set_level(2)
    model.set_step_mode(True)
    for _ in range(3):
        controller.animation.step_time(0.1)
    model.set_cursor(0)


PRIOR_STATES = (fresh, after_the_tandem_lesson, after_the_user_changed_things)


def _settings_per_step(controller, name) -> list:
    """What each step of lesson ``name`` puts on screen, as comparable values."""
    model, lessons = controller.model, controller.lessons
    assert lessons.open_lesson(name)
    out = []
    for index in range(len(lessons.lesson)):
        if index:
            assert lessons.next_step()
        result = model.shown_result()
        out.append((model.scene_key, round(model.scene_param_value, 9), model.pipeline,
                    model.display, model.level, round(model.t, 9), model.is_step_mode,
                    model.step_position, model.cursor,
                    None if result is None else dataclasses.astuple(result.counters),
                    None if model.camera is None else tuple(
                        round(x, 6) for v in (model.camera.position, model.camera.focal_point)
                        for x in v)))
    return out


@pytest.mark.parametrize("name", list(BUILTIN_LESSONS))
def test_a_lesson_puts_the_same_settings_on_screen_from_any_prior_state(qapp, name):
    played = []
    for prior in PRIOR_STATES:
        controller = _new_controller()
        try:
            prior(controller)
            played.append(_settings_per_step(controller, name))
        finally:
            controller.shutdown()
    for other, prior in zip(played[1:], PRIOR_STATES[1:]):
        for step, (mine, theirs) in enumerate(zip(played[0], other)):
            assert theirs == mine, (prior.__name__, f"step {step + 1}")


@pytest.mark.parametrize("name", list(BUILTIN_LESSONS))
def test_a_lesson_draws_the_same_pictures_from_any_prior_state(qapp, name):
    # Above the caption bar: a caption may show a measured time ({update_ms}).
    played = [play_lesson(name, size=(400, 250), before=prior, pictures=True)
              for prior in PRIOR_STATES]
    for other, prior in zip(played[1:], PRIOR_STATES[1:]):
        for step, (mine, theirs) in enumerate(zip(played[0], other)):
            rows = 250 - max(mine.caption_rows, theirs.caption_rows)
            assert np.array_equal(mine.image[:rows], theirs.image[:rows]), (
                prior.__name__, f"step {step + 1}")
            assert _without_times(mine.caption) == _without_times(theirs.caption)


def _without_times(caption: str) -> str:
    """A caption with its measured milliseconds blanked (they differ from run to run)."""
    return re.sub(r"[0-9.,]+ ms\b", "… ms", caption)


def test_aabb_against_obb_starts_without_every_box_at_every_depth(qapp):
    # From a fresh start its first step drew every box of every depth (61,948 boxes, over a
    # second a frame); the step that talks about boxes shows one level.
    reports = play_lesson("aabb-vs-obb", size=(320, 200))
    assert reports[0].boxes == 0
    assert all(report.boxes <= 2000 for report in reports)


def test_the_first_step_starts_from_the_documented_defaults(controller):
    model = controller.model
    after_the_user_changed_things(controller)
    path_text = '[[step]]\ncaption = "Only a scene."\nscene = "two-spheres"\n'
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bare.toml"
        path.write_text(path_text, encoding="utf-8")
        assert controller.lessons.open_lesson(str(path))
    for key, value in LESSON_START["choices"].items():
        assert getattr(model.pipeline, key) == value
    assert model.pipeline.update.value == LESSON_START["update"]
    assert model.pipeline.margin == 0.0
    assert model.level == LESSON_START["level"]
    assert model.display.show_tree_a and model.display.show_overlap
    assert not model.display.show_parents and not model.display.show_culled
    assert model.display.show_contacts and model.display.heat_map == "off"
    assert not model.is_step_mode and not model.is_stepping and model.t == 0.0


def test_closing_a_lesson_gives_the_user_settings_back(controller):
    model = controller.model
    controller.scenes.load_scene("two-spheres", wait=True)
    model.set_pipeline(bv="sphere", update=UpdateChoice.REBUILD, descend="BOTH")
    model.set_display(show_parents=True, show_contacts=False, mesh_opacity=0.3)
    model.set_level(3)
    pipeline, display = model.pipeline, model.display
    lessons = controller.lessons
    assert lessons.open_lesson("refit-vs-rebuild")
    while lessons.next_step():
        pass
    assert model.pipeline.update is UpdateChoice.AUTO
    lessons.close_lesson()
    assert model.pipeline == pipeline  # the update mode the lesson set to auto included
    assert model.display == display and model.level == 3
    assert not model.is_stepping


def test_opening_a_second_lesson_keeps_the_settings_from_before_the_first(controller):
    model = controller.model
    controller.scenes.load_scene("two-spheres", wait=True)
    model.set_pipeline(update=UpdateChoice.REBUILD)
    assert controller.lessons.open_lesson("tandem-traversal")
    assert controller.lessons.open_lesson("refit-vs-rebuild")
    controller.lessons.next_step()
    controller.lessons.close_lesson()
    assert model.pipeline.update is UpdateChoice.REBUILD
