"""The lecture caption shows the numbers a lesson step's caption names, from the frame
shown (not a separate experiment's figure)."""

from __future__ import annotations

from tests.viewer.conftest import settle


def test_the_lecture_caption_shows_this_scenes_volume_tests(qtbot, window):
    controller = window.controller
    assert controller.lessons.open_lesson("aabb-vs-obb")
    settle(qtbot, window)
    window.lecture.enter()
    for index in (1, 3):
        controller.lessons.go_to_step(index)
        settle(qtbot, window)
        window.refresh_caption()
        caption, _hint = window.renderer.caption_bar.texts()
        caption = caption.replace("\n", " ")
        n_tests = window.model.shown_result().counters.n_bv_tests
        assert f"{n_tests:,} box tests" in caption, caption
        assert "{" not in caption
    assert window.model.pipeline.bv == "obb"
    window.lecture.leave()
    controller.lessons.close_lesson()
