"""Lesson files: every mistake names the file, the line and the key; the built-in lessons
parse; a saved step reads back."""

from __future__ import annotations

import pytest

from viewer.lessons import (
    BUILTIN_LESSONS,
    LessonError,
    lesson_path,
    load_lesson,
    parse_lesson,
    read_lesson,
)
from viewer.lessons.writing import lesson_with_step, step_text

GOOD_STEP = '[[step]]\ncaption = "Two spheres."\nscene = "two-spheres"\n'

# (name, lesson text, line, words the message must hold besides the file name and line)
BROKEN = [
    ("split rule", GOOD_STEP + "\n[[step]]\ncaption = \"b\"\nsplit = \"median3\"\n", 7,
     ["step 2 key 'split'", "'median3' is not a split rule", "midpoint", "sah"]),
    ("unknown step key", GOOD_STEP + "levle = 3\n", 4,
     ["step 1 key 'levle'", "unknown key", "level"]),
    ("unknown top key", 'titel = "x"\n' + GOOD_STEP, 1, ["key 'titel'", "unknown key"]),
    ("scene", '[[step]]\ncaption = "a"\n\nscene = "two-sphere"\n', 4,
     ["step 1 key 'scene'", "'two-sphere' is not a built-in scene", "two-spheres"]),
    ("bv", GOOD_STEP + 'bv = "box"\n', 4, ["key 'bv'", "'box' is not a bounding-volume kind",
                                          "aabb", "obb"]),
    ("update", GOOD_STEP + 'update = "sometimes"\n', 4, ["key 'update'", "refit, rebuild, auto"]),
    ("level negative", GOOD_STEP + "level = -1\n", 4, ["key 'level'", "-1 is not a level"]),
    ("level word", GOOD_STEP + 'level = "deep"\n', 4, ["key 'level'", "\"all\""]),
    ("view", GOOD_STEP + 'view = "sideways"\n', 4, ["key 'view'", "not a named view", "top"]),
    ("camera vector", GOOD_STEP + "camera = { position = [1, 2], focal_point = [0, 0, 0], "
     "up = [0, 1, 0] }\n", 4, ["key 'camera.position'", "not three numbers"]),
    ("camera sub-table key", GOOD_STEP + "\n[step.camera]\nposition = [0, 0, 5]\n"
     "focal_point = [0, 0, 0]\nup = [0, 1, 0]\nzoom = 2\n", 9,
     ["key 'camera.zoom'", "unknown key"]),
    ("camera missing up", GOOD_STEP + "camera = { position = [0, 0, 5], focal_point = [0, 0, 0] "
     "}\n", 4, ["key 'camera.up'", "missing"]),
    ("play frames", GOOD_STEP + "play_frames = 2.5\n", 4, ["key 'play_frames'", "not a count"]),
    ("step pairs", GOOD_STEP + "step_pairs = -3\n", 4, ["key 'step_pairs'", "not a count"]),
    ("step until", GOOD_STEP + 'step_until = "leaves"\n', 4,
     ["key 'step_until'", "'leaves' is not a stepper stop", "overlap, leaf, contact"]),
    ("hold", GOOD_STEP + "hold = 0\n", 4, ["key 'hold'", "more than 0"]),
    ("scene param range", '[[step]]\ncaption = "a"\nscene = "concentric-spheres"\n'
     "scene_param = 5.0\n", 4, ["key 'scene_param'", "outside the gap slider"]),
    ("scene param without slider", GOOD_STEP + "scene_param = 0.1\n", 4,
     ["key 'scene_param'", "has no slider"]),
    ("experiment sizes", GOOD_STEP + 'experiment = { name = "pcp", sizes = [0] }\n', 4,
     ["key 'experiment.sizes'", "whole numbers"]),
    ("experiment name", GOOD_STEP + 'experiment = { name = "pcb" }\n', 4,
     ["key 'experiment.name'", "'pcb' is not an experiment", "pcp", "refit", "partitions"]),
    ("experiment key", GOOD_STEP + 'experiment = { name = "pcp", size = [3] }\n', 4,
     ["key 'experiment.size'", "unknown key"]),
    ("missing caption", GOOD_STEP + '\n[[step]]\nlevel = 2\n', 5,
     ["step 2", "no caption"]),
    ("empty caption", '[[step]]\ncaption = "  "\n', 2, ["key 'caption'", "not empty"]),
    ("scene and meshes", GOOD_STEP + 'meshes = ["a.obj"]\n', 4,
     ["key 'meshes'", "not both"]),
    ("missing mesh file", '[[step]]\ncaption = "a"\nmeshes = ["nowhere.obj"]\n', 3,
     ["key 'meshes'", "no file 'nowhere.obj'"]),
    ("no steps", 'title = "empty"\n', 1, ["no steps"]),
    ("syntax", GOOD_STEP + "level = = 2\n", 4, ["not valid TOML"]),
    ("expect key", GOOD_STEP + "expect = { contact = 156 }\n", 4,
     ["step 1 key 'expect.contact'", "unknown key", "contacts", "volume_tests"]),
    ("expect count", GOOD_STEP + "expect = { contacts = -1 }\n", 4,
     ["step 1 key 'expect.contacts'", "-1 is not a count"]),
    ("expect level", GOOD_STEP + 'expect = { level = "deep" }\n', 4,
     ["key 'expect.level'", "not a level"]),
    ("expect flag", GOOD_STEP + 'expect = { culled = "yes" }\n', 4,
     ["key 'expect.culled'", "true or false"]),
    ("expect visible name", GOOD_STEP + 'expect = { visible = ["A box"] }\n', 4,
     ["key 'expect.visible'", "'A box' is not a name of what is drawn", "A boxes",
      "separating axis"]),
    ("expect kind", GOOD_STEP + 'expect = { kind = "box" }\n', 4,
     ["key 'expect.kind'", "not a bounding-volume kind", "aabb"]),
    ("expect table", GOOD_STEP + "expect = 156\n", 4, ["key 'expect'", "must be a table"]),
    ("expect long list", GOOD_STEP + "expect = { hidden = [" + '"A boxes", ' * 13 + "] }\n", 4,
     ["key 'expect.hidden'", "at most 12 names"]),
    ("expect sub-table key", GOOD_STEP + "\n[step.expect]\ncontacts = 1\nlevl = 2\n", 7,
     ["key 'expect.levl'", "unknown key"]),
    ("caption number", '[[step]]\ncaption = "{volume_test} tests"\n', 2,
     ["step 1 key 'caption'", "'{volume_test}' is not a number the caption can show",
      "volume_tests", "update_ms"]),
    ("caption brace", '[[step]]\ncaption = "a { b"\n', 2,
     ["step 1 key 'caption'", "{{ and }} for braces"]),
]


@pytest.mark.parametrize("name, text, line, words", BROKEN, ids=[b[0] for b in BROKEN])
def test_every_mistake_names_the_file_the_line_and_the_key(tmp_path, name, text, line, words):
    path = tmp_path / "aabb-levels.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LessonError) as info:
        read_lesson(path)
    message = str(info.value)
    assert message.startswith(f"aabb-levels.toml line {line}: "), message
    assert "\n" not in message
    for word in words:
        assert word in message, message


def test_a_wrong_choice_lists_the_right_ones_in_the_issues_words(tmp_path):
    text = "\n".join(["[[step]]", 'caption = "one"', 'scene = "two-spheres"', "",
                      "[[step]]", 'caption = "two"', "", "[[step]]", 'caption = "three"',
                      "level = 2", "", "", "", 'split = "median3"'])
    with pytest.raises(LessonError, match=r"^aabb-levels\.toml line 14: step 3 key 'split': "
                       r"'median3' is not a split rule; choose one of midpoint, median, "):
        parse_lesson(text, tmp_path / "aabb-levels.toml")


def test_a_lesson_that_is_no_file_or_name_is_one_line(tmp_path):
    with pytest.raises(LessonError, match="not a built-in lesson"):
        lesson_path("no-such-lesson")
    with pytest.raises(LessonError, match="no such lesson file"):
        lesson_path(str(tmp_path / "missing.toml"))
    (tmp_path / "binary.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(LessonError, match="binary.toml: not a text file"):
        read_lesson(tmp_path / "binary.toml")


@pytest.mark.parametrize("name", list(BUILTIN_LESSONS))
def test_the_built_in_lessons_parse_with_a_caption_on_every_step(name):
    lesson = load_lesson(name)
    assert lesson.title == BUILTIN_LESSONS[name]
    assert len(lesson) >= 5
    assert lesson.steps[0].opens_scene, "the first step opens the lesson's scene"
    for step in lesson.steps:
        assert len(step.caption.split()) >= 8, step.caption


def test_mesh_paths_are_relative_to_the_lesson_file(tmp_path):
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "a.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    (tmp_path / "lessons").mkdir()
    path = tmp_path / "lessons" / "mine.toml"
    path.write_text('[[step]]\ncaption = "a"\nmeshes = ["../meshes/a.obj", "../meshes/a.obj"]\n')
    lesson = read_lesson(path)
    assert lesson.steps[0].meshes == ((tmp_path / "meshes" / "a.obj").resolve(),) * 2


def test_a_written_step_reads_back_to_the_same_values(tmp_path):
    values = {"caption": 'Quotes " and \\ back-slashes, é', "scene": "concentric-spheres",
              "scene_param": 0.00125, "bv": "obb", "split": "sah", "obb_fit": "surface",
              "descend": "both", "update": "auto", "partition": "grid", "level": "all"}
    camera = {"position": [1.5, -2.0, 3e-5], "focal_point": [0.0, 0.1, 0.2],
              "up": [0.0, 1.0, 0.0], "view_angle": 25.0}
    text = lesson_with_step(None, "Mine", step_text(values, camera))
    text = lesson_with_step(text, "ignored", step_text({**values, "level": 3}, None))
    lesson = parse_lesson(text, tmp_path / "mine.toml")
    assert lesson.title == "Mine" and len(lesson) == 2
    first = lesson.steps[0]
    assert first.caption == values["caption"]
    assert (first.scene, first.scene_param, first.bv, first.split, first.obb_fit,
            first.descend, first.update, first.partition, first.level) == (
        "concentric-spheres", 0.00125, "obb", "SAH", "SURFACE", "BOTH", "auto", "grid", "all")
    assert first.camera.position == (1.5, -2.0, 3e-5) and first.camera.view_angle == 25.0
    assert lesson.steps[1].level == 3 and lesson.steps[1].camera is None
