"""``python -m viewer --lesson NAME --export FILE``: a lesson rendered off-screen to an MP4
or a GIF, each step held with its caption drawn in."""

from __future__ import annotations

import os
import subprocess
import sys

import imageio.v2 as imageio
import numpy as np
import pytest

from viewer.offscreen.lesson_video import LessonVideoError, export_lesson, parse_size

# Step 1 held 0.5 s (2 frames at 4 fps); step 2 plays 3 frames then is held 2; step 3 shows
# pair tests 0 and 1 (one frame each) on the way to pair 2, then is held 2: 11 frames.
LESSON = """title = "Tiny"

[[step]]
caption = "Two spheres, level one."
scene = "two-spheres"
level = 1
view = "front"
hold = 0.5

[[step]]
caption = "Three frames of play."
play_frames = 3
hold = 0.5

[[step]]
caption = "Two pair tests in."
step_pairs = 2
hold = 0.5
"""
N_FRAMES = 11
FPS = 4
SIZE = (160, 128)


@pytest.fixture
def lesson_file(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(LESSON, encoding="utf-8")
    return path


def _run(*args):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "viewer", *args], capture_output=True,
                          text=True, env=env, timeout=None)


def test_a_lesson_exports_to_mp4_with_every_step(lesson_file, tmp_path):
    out = tmp_path / "tiny.mp4"
    done = _run("--lesson", str(lesson_file), "--export", str(out), "--size", "160x128",
                "--fps", str(FPS))
    assert done.returncode == 0, done.stderr
    assert "step 1 of 3" in done.stderr and "step 3 of 3" in done.stderr
    assert f"{N_FRAMES} frames" in done.stderr
    head = out.read_bytes()[:12]
    assert head[4:8] == b"ftyp"
    reader = imageio.get_reader(out)
    try:
        assert reader.count_frames() == N_FRAMES
        first = reader.get_data(0)
    finally:
        reader.close()
    assert first.shape[:2] == (SIZE[1], SIZE[0])


def test_a_lesson_exports_to_gif_with_its_caption_drawn_in(lesson_file, tmp_path):
    out = tmp_path / "tiny.gif"
    result = export_lesson(lesson_file, out, SIZE, FPS, say=lambda _t: None)
    assert result["frames"] == N_FRAMES and result["steps"] == 3
    assert out.read_bytes()[:6] == b"GIF89a"
    frames = imageio.mimread(out)
    durations = []
    reader = imageio.get_reader(out)
    for i in range(len(frames)):
        durations.append(reader.get_meta_data(i).get("duration", 0))
    reader.close()
    # Equal frames in a row may be stored once with a longer delay: the time adds up.
    assert sum(durations) == pytest.approx(N_FRAMES * 1000 / FPS, abs=10 * len(frames))
    first = np.asarray(frames[0])[..., :3]
    assert first.shape[:2] == (SIZE[1], SIZE[0])
    # The caption bar: dark text on a light bar in the bottom fifth of the frame.
    bottom = first[int(0.8 * SIZE[1]):]
    assert (bottom.sum(axis=2) < 200).any() and (bottom.min(axis=2) > 230).any()


def test_a_bad_lesson_or_path_is_one_line_and_exit_2(lesson_file, tmp_path):
    done = _run("--lesson", "no-such-lesson", "--export", str(tmp_path / "x.mp4"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no-such-lesson: not a built-in lesson" in done.stderr
    broken = tmp_path / "broken.toml"
    broken.write_text('[[step]]\ncaption = "a"\nplay_frames = "ten"\n')
    done = _run("--lesson", str(broken), "--export", str(tmp_path / "x.gif"))
    assert done.returncode == 2
    assert done.stderr == ("error: broken.toml line 3: step 1 key 'play_frames': 'ten' is not "
                           "a count; write a whole number from 0\n")
    done = _run("--lesson", str(lesson_file), "--export", str(tmp_path / "x.avi"))
    assert done.returncode == 2 and done.stderr.startswith("error: ") and ".avi" in done.stderr
    assert not (tmp_path / "x.avi").exists()
    done = _run("--export", str(tmp_path / "x.mp4"))
    assert done.returncode == 2 and "--lesson" in done.stderr


def test_the_size_option_is_checked():
    assert parse_size("640x400") == (640, 400)
    for bad in ("640", "axb", "8x8"):
        with pytest.raises(LessonVideoError, match="--size"):
            parse_size(bad)


TANDEM_LIKE = """title = "Walk"

[[step]]
caption = "Two spheres at rest."
scene = "two-spheres"
level = 1
hold = 0.5

[[step]]
caption = "Four frames later."
play_frames = 4
hold = 0.5

[[step]]
caption = "Both boxes of this pair are leaves."
step_pairs = 40
step_until = "leaf"
hold = 0.5
"""


def test_an_exported_caption_appears_only_with_its_state(qapp, tmp_path):
    # The tandem MP4 said "both boxes are leaves" over the large pairs tested on the way.
    path = tmp_path / "walk.toml"
    path.write_text(TANDEM_LIKE, encoding="utf-8")
    records = []
    export_lesson(path, tmp_path / "walk.gif", SIZE, FPS, say=lambda _text: None,
                  on_frame=records.append)
    lesson_captions = {"Two spheres at rest.", "Four frames later.",
                       "Both boxes of this pair are leaves."}
    for step in range(3):
        frames = [r for r in records if r["step"] == step]
        reached = [r for r in frames if r["is_reached"]]
        final = (reached[-1]["t"], reached[-1]["position"])
        assert reached and len(reached) == len(frames) - sum(1 for r in frames
                                                             if not r["is_reached"])
        for record in frames:
            if record["caption"] in lesson_captions:
                # A step's caption is drawn only over the state it describes.
                assert record["is_reached"] and (record["t"], record["position"]) == final
            else:
                assert not record["is_reached"]
                assert record["caption"].startswith(("Playing the animation: frame",
                                                     "Stepping the traversal: pair test"))
    walked = [r for r in records if r["step"] == 2 and not r["is_reached"]]
    assert len({r["position"] for r in walked}) > 1  # the walk is shown, captioned as such
    played = [r for r in records if r["step"] == 1 and not r["is_reached"]]
    assert [r["caption"] for r in played] == [f"Playing the animation: frame {k} of 4…"
                                              for k in (1, 2, 3, 4)]


def test_a_lesson_frames_the_stepper_pair_off_screen_too(qapp):
    """The exported video (and the off-screen check) frames the pair a step talks about: at
    the tandem lesson's leaf step it was a speck in a corner of the picture; and its legend
    stays off the caption."""
    from viewer.lessons import load_lesson
    from viewer.offscreen.lesson_video import OffscreenLesson

    lesson = load_lesson("tandem-traversal")
    index = max((i for i, step in enumerate(lesson.steps) if step.step_pairs is not None),
                key=lambda i: lesson.steps[i].step_pairs)
    with OffscreenLesson((640, 400)) as player:
        lessons = player.controller.lessons
        assert lessons.open_lesson(str(lesson.path))
        for _ in range(index):
            assert lessons.next_step()
        player.draw("", player.caption(lesson.steps[index]))
        r = player.renderer
        lo = np.min([np.asarray(r.polys[n].bounds)[0::2] for n in ("step_a", "step_b")], axis=0)
        hi = np.max([np.asarray(r.polys[n].bounds)[1::2] for n in ("step_a", "step_b")], axis=0)
        corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                            for z in (lo[2], hi[2])])
        ys = [r.world_to_display(c)[1] for c in corners]
        assert max(ys) - min(ys) > 0.3 * 400
        # The legend keeps clear of the caption bar drawn in the same frame (it sat over it
        # when the bar was placed after the legend).
        x0, y0 = r.legend.GetPosition()
        assert y0 * 400 >= r.caption_bar.top_px()
