"""Verified lessons: a step states what must hold when it is shown (``expect``), captions
show this frame's numbers, and every built-in lesson, played off-screen, meets every
expectation of every step."""

from __future__ import annotations

import pytest

from viewer.lessons import BUILTIN_LESSONS, load_lesson, parse_lesson
from viewer.lessons.facts import CAPTION_FIELDS, fill_caption, unmet_expectations
from viewer.offscreen.lesson_check import lesson_problems, play_lesson


@pytest.mark.parametrize("name", list(BUILTIN_LESSONS))
def test_every_built_in_lesson_meets_every_expectation_of_every_step(qapp, name):
    assert lesson_problems(name) == []


@pytest.mark.parametrize("name", list(BUILTIN_LESSONS))
def test_every_built_in_step_states_what_its_caption_relies_on(name):
    for step in load_lesson(name).steps:
        assert step.expect, f"{name} step {step.number} has no expect"


def test_a_wrong_expectation_is_reported_with_its_step(qapp, tmp_path):
    path = tmp_path / "wrong.toml"
    path.write_text('[[step]]\ncaption = "Two spheres."\nscene = "two-spheres"\nlevel = 2\n'
                    'expect = { contacts = 155, level = 3, culled = true, '
                    'visible = ["separating axis"], hidden = ["A boxes"], '
                    'most_boxes = 1 }\n', encoding="utf-8")
    problems = lesson_problems(path, size=(320, 200))
    assert problems == [
        "step 1: contacts: 156 shown, 155 expected",
        "step 1: level: 2 shown, 3 expected",
        "step 1: culled: None shown, True expected",
        "step 1: visible: separating axis not drawn",
        "step 1: hidden: A boxes drawn",
        problems[5],
    ]
    assert problems[5].startswith("step 1: most_boxes: ") and "more than 1" in problems[5]


def test_a_caption_shows_the_numbers_of_the_frame_shown():
    facts = {"volume_tests": 69831, "update_ms": 0.6412, "contacts": 0, "kind": "obb",
             "level": "all", "frame": 12}
    assert fill_caption("{volume_tests} box tests, {update_ms} ms, {contacts} contacts, "
                        "{kind} at level {level} (frame {frame}); {{braces}}", facts) == (
        "69,831 box tests, 0.64 ms, 0 contacts, obb at level all (frame 12); {braces}")
    assert fill_caption("{triangle_tests} tests", {}) == "… tests"  # no frame yet
    assert fill_caption("no numbers", facts) == "no numbers"


def test_update_ms_above_and_time_are_checked():
    facts = {"update_ms": 0.0, "time": 0.5000000001}
    assert unmet_expectations({"time": 0.5}, facts) == []
    assert unmet_expectations({"update_ms_above": 0.0}, facts) == [
        "update_ms_above: the update took 0.00 ms, not more than 0"]
    assert unmet_expectations({"visible": ("contacts",)}, facts) == [
        "visible: no picture was drawn to check"]


def test_lessons_whose_claims_are_numbers_show_them_in_the_caption():
    def captions(name):
        return [step.caption for step in load_lesson(name).steps]

    obb = captions("aabb-vs-obb")
    # This scene's AABB and OBB volume-test counts, not another experiment's figure.
    for index in (1, 2, 3):
        assert "{volume_tests}" in obb[index]
    assert "hundred times" not in obb[2]
    assert "hug" not in obb[3] and "stick out" in obb[3]  # as they do at the level shown
    refit = captions("refit-vs-rebuild")
    for index in (1, 3, 4):
        assert "{update_ms}" in refit[index]
    assert "{volume_tests}" in refit[2] and "{volume_tests}" in refit[3]
    # Lesson 1's level-1 step describes the larger-volume rule the traversal runs.
    levels = captions("aabb-levels")
    assert "larger" in levels[2] and "cut in two" not in levels[2]
    for name in BUILTIN_LESSONS:
        for caption in captions(name):
            fill_caption(caption, {})  # every field is one the caption can show
            assert set(CAPTION_FIELDS)  # the names docs/lessons.md lists


def test_expect_reads_into_plain_values(tmp_path):
    lesson = parse_lesson('[[step]]\ncaption = "a"\nscene = "two-spheres"\n'
                          'expect = { contacts = 156, level = 5, culled = true, '
                          'visible = ["A boxes", "separating axis"], time = 1 }\n',
                          tmp_path / "x.toml")
    assert lesson.steps[0].expect == {"contacts": 156, "level": 5, "culled": True,
                                      "visible": ("A boxes", "separating axis"), "time": 1.0}


def test_the_check_plays_the_steps_actions(qapp):
    reports = play_lesson("tandem-traversal", size=(320, 200))
    assert reports[2].facts["culled"] and "separating axis" in reports[2].visible
    assert reports[4].facts["leaf_pair"]
    assert "3,603 box tests" in reports[5].caption and "156 triangle pairs" in \
        reports[5].caption


def test_a_caption_cut_by_the_caption_bar_is_reported(qapp, tmp_path):
    path = tmp_path / "long.toml"
    path.write_text('[[step]]\ncaption = "' + "A caption far too long to read. " * 12 + '"\n'
                    'scene = "two-spheres"\nexpect = { contacts = 156 }\n', encoding="utf-8")
    problems = lesson_problems(path)
    assert len(problems) == 1 and problems[0].startswith("step 1: caption: cut to ")
