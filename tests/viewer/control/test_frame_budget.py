"""A frame past its pair budget shows one line naming the operation, the tree and the budget
(not a bare "MemoryError"), keeps nothing of the failed query, and the app stays usable; a long
frame shows its progress in the job dialog, whose Cancel stops it."""

from __future__ import annotations

from core.collide.budget import LEVEL_SEEN, OVERLAPS, TESTS
from core.pipeline import PipelineSettings
from tests.viewer.conftest import settle
from viewer.control import frame_watch


def _with_budget(controller, budget):
    """Make every frame's request carry ``budget`` (the viewer has no widget for it)."""
    settings = type(controller.frames).next_settings

    def patched():
        s = settings(controller.frames)
        return PipelineSettings(s.request.replace(pair_budget=budget), s.update,
                                s.drift_threshold, s.validate_after_refit)  # fmt: skip

    controller.frames.next_settings = patched


def test_a_frame_past_its_budget_says_so_in_one_line_and_the_app_goes_on(qtbot, window):
    errors = []
    window.model.error.connect(lambda title, text: errors.append((title, text)))
    controller = window.controller
    before = window.model.frame
    _with_budget(controller, 5)
    controller.frames.request_frame()
    qtbot.waitUntil(lambda: bool(errors) and not controller.frames.is_busy, timeout=60_000)
    title, text = errors[-1]
    assert title == "Frame failed"
    assert text.startswith("The collision query failed: BVH Lab's AABB tree of body A against "
                           "BVH Lab's AABB tree of body B: more than 5 overlapping volume "
                           "pairs at level ")  # fmt: skip
    assert "\n" not in text and "MemoryError" not in text
    assert controller.frames._frame_watch.control is None  # no reference to the failed query
    assert window.model.frame is before
    del controller.frames.next_settings  # the default budget again
    n_frames = controller.frames.n_frames
    controller.frames.request_frame()
    settle(qtbot, window)
    qtbot.waitUntil(lambda: controller.frames.n_frames > n_frames, timeout=60_000)
    assert window.model.frame is not before and window.model.frame.result is not None


def test_a_long_frame_shows_progress_and_cancel_stops_it(qtbot, window, monkeypatch):
    controller = window.controller
    watch = controller.frames._frame_watch
    shown, closed = [], []
    window.model.job_progress.connect(lambda words, done, total: shown.append((words, total)))
    window.model.job_finished.connect(closed.append)
    monkeypatch.setattr(frame_watch, "SHOW_AFTER_S", 0.0)
    control = watch.start()
    watch._tick()
    # Nothing tested yet: a busy bar and what the frame does first, not "0 of 50,000,000".
    assert shown[-1] == ("Frame: traversal not started after 0 s: the trees are refitted or "
                         "built first", 0)
    control.array[TESTS] = 12  # the traversal's first level came back
    control.array[OVERLAPS] = 7
    control.array[LEVEL_SEEN] = 1
    watch._tick()
    assert shown[-1][0].startswith("Frame: traversal level 1, overlapping volume "
                                   "pairs against the pair budget")  # fmt: skip
    assert shown[-1][1] == controller.frames.pipe.settings.request.pair_budget
    controller.recorder.cancel_job()  # the job dialog's Cancel
    assert control.is_cancelled
    watch.stop()
    assert closed == [frame_watch.WORDS] and watch.control is None
    assert not controller.frames.cancel_frame()  # no frame in flight any more
