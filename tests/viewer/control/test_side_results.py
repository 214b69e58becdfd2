"""The frame path holds only what the frame needs (issue 25, items 2 and 3): the Pipeline
dock's optional analyses, the distance and inside test beside the frame tagged with their
frame, the ghost while frames stream, pipelined frames, and the slow frame in words."""

from __future__ import annotations

import dataclasses
import functools
from types import SimpleNamespace

import pytest

from core.bv import ObbFit
from core.bvh.tree import DERIVED_FIELDS
from tests.viewer.helpers import windowless_controller
from viewer.control import frames
from viewer.control.analysis import fresh_ghost
from viewer.control.frame_budget import INLINE_ANALYSIS_S, slow_frame_words
from viewer.control.worker import Tag
from viewer.qt.panels.pipeline import PipelinePanel
from viewer.qt.panels.stats import relation_text
from viewer.render.overlays import build_overlays
from viewer.scenes import SCENES
from viewer.state.display import Display
from viewer.state.side_results import shown_side


def _later(frame, n=2):
    """The same bodies ``n`` frames later, without side results of its own."""
    return dataclasses.replace(frame, index=frame.index + n, distance=None, containment=None)


def test_dock_choices_write_the_model_and_reach_the_request(qtbot):
    model, controller = windowless_controller()
    controller.scenes.load_scene("concentric-spheres")
    panel = PipelinePanel(model, controller)
    qtbot.addWidget(panel)
    checks = panel.analyses.checks
    # Today's defaults: distance and inside test on, self-collision as the scene says.
    assert checks["distance"].isChecked() and checks["containment"].isChecked()
    assert not checks["self"].isChecked() and not checks["ghost"].isChecked()
    checks["distance"].setChecked(False)
    assert model.pipeline.distance is False
    assert controller.frames.side_inputs() == (False, True, False)
    checks["self"].setChecked(True)
    assert model.is_self_collision is True  # one source: the pipeline choice
    # Two meshes: self-collision is an analysis, run beside the frame and merged into it.
    assert controller.frames.side_inputs() == (False, True, True)
    assert model.frame.frame_options.self_collision is False
    assert model.frame.self_results is not None and len(model.frame.self_results) == 2
    assert model.side.self_results is model.frame.self_results
    checks["ghost"].setChecked(True)
    assert model.display.show_ghost is True
    checks["heat"].setChecked(True)
    assert model.display.heat_map == "work"
    # The cost of each: the last measured, with its frame.
    cost = model.analysis_costs["containment"]
    assert panel.analyses.row_text("containment") == f"inside test (apart) — {cost.text()}"
    assert cost.text().endswith(f"(frame {cost.frame_index})")
    assert panel.analyses.costs["containment"].text() == cost.text()
    assert "not measured yet" in panel.analyses.row_text("ghost")
    controller.shutdown()


def test_with_distance_off_no_distance_is_computed(monkeypatch):
    import core.pipeline

    calls = []
    real = core.pipeline.min_distance

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    # The frame and the side job make the one call core.pipeline.frame_analyses.
    monkeypatch.setattr(core.pipeline, "min_distance", counted)
    model, controller = windowless_controller()
    controller.scenes.load_scene("concentric-spheres")
    assert model.frame.result.n_contacts == 0
    assert model.frame.distance is not None and calls  # on: measured beside each frame
    n_calls = len(calls)
    # The core's frame itself never carries them: they run beside it.
    options = model.frame.frame_options
    assert options.distance is False and options.containment is False
    model.set_pipeline(distance=False)
    assert len(calls) == n_calls
    assert model.frame.distance is None and "distance" not in model.frame.timings
    assert model.frame.containment is not None  # the other choice still runs
    assert model.side is not None and model.side.distance is None
    controller.shutdown()


def test_a_side_result_older_than_the_shown_frame_says_from_frame_n():
    model, controller = windowless_controller()
    controller.scenes.load_scene("concentric-spheres")
    computed_on = model.frame
    side = model.side
    assert side.frame_index == computed_on.index
    later = _later(computed_on)
    shown = shown_side(later, model.side, {})
    assert shown.distance is side.distance
    assert shown.late == f"from frame {computed_on.index}"
    notes = build_overlays(later, Display(), None, side=shown).notes
    assert f"minimum distance {side.distance.distance:.4g} (purple line, from frame " \
           f"{computed_on.index})" in notes
    assert f"no contact: A is inside B (from frame {computed_on.index})" in notes
    assert relation_text(later, later.result, shown).endswith(
        f"A is inside B (from frame {computed_on.index})")
    # The frame's own: no mark; a recorded frame finds its own result among those kept.
    assert shown_side(computed_on, side).late == ""
    bare = dataclasses.replace(computed_on, distance=None, containment=None)
    assert shown_side(bare, None, model.side_by_frame).distance is side.distance
    controller.shutdown()


def test_a_side_result_of_another_scene_or_other_choices_is_dropped():
    model, controller = windowless_controller()
    controller.scenes.load_scene("concentric-spheres")
    frame = model.frame
    result = frames.side_results(None, frame, True, True)
    generation = controller.frames._generation

    def arrive(tag):
        controller.frames._on_side_done(frame, result, SimpleNamespace(tag=tag))

    model.set_side(None)
    arrive(Tag("distance and inside test", frame.index, generation - 1, (True, True, False)))
    assert model.side is None  # an older scene's
    arrive(Tag("distance and inside test", frame.index, generation, (True, False, False)))
    assert model.side is None  # other choices
    assert controller.frames.n_side_dropped == 2
    arrive(Tag("distance and inside test", frame.index, generation, (True, True, False)))
    assert model.side is not None
    # Turning a choice off forgets the result it was computed with.
    model.set_pipeline(containment=False)
    assert model.side is None or model.side.inputs == (True, False, False)
    controller.scenes.load_scene("two-spheres")
    assert model.side is None or model.side.generation == controller.frames._generation
    controller.shutdown()


def _threaded_two_spheres(qtbot):
    """A windowless controller running frames on its worker, two-spheres loaded and its
    first frame in."""
    model, controller = windowless_controller(is_threaded=True)
    controller.scenes.load_scene("two-spheres")
    qtbot.waitUntil(lambda: not controller.frames.is_busy and model.frame is not None,
                    timeout=60_000)
    return model, controller


def test_the_next_frame_starts_before_the_previous_is_drawn(qtbot):
    model, controller = _threaded_two_spheres(qtbot)
    running_when_drawn = []
    model.frame_ready.connect(
        lambda _f: running_when_drawn.append(controller.frames.is_frame_running))
    controller.poses.translate_body(1, (0.01, 0.0, 0.0))
    controller.poses.translate_body(1, (0.01, 0.0, 0.0))  # wanted while the first runs
    qtbot.waitUntil(lambda: not controller.frames.is_busy and len(running_when_drawn) >= 2,
                    timeout=60_000)
    # The first frame was drawn while the wanted one already ran; the last had none after it.
    assert running_when_drawn[0] is True
    assert running_when_drawn[-1] is False
    controller.shutdown()


def test_the_ghost_completes_while_frames_keep_coming(qtbot):
    model, controller = windowless_controller(is_threaded=True)
    controller.scenes.load_scene("spot-twist-torus")
    model.set_display(show_ghost=True)
    model.set_playing(True)
    qtbot.waitUntil(lambda: controller.analysis.ghost_view() is not None, timeout=120_000)
    n_frames = controller.frames.n_frames
    ghost = controller.analysis.ghost_view()
    # Builds keep finishing while frames keep coming, each shown as of its own frame.
    qtbot.waitUntil(lambda: controller.frames.n_frames > n_frames + 2
                    and controller.analysis.ghost_view().frame.index > ghost.frame.index,
                    timeout=120_000)
    assert model.is_playing
    newer = controller.analysis.ghost_view()
    assert newer.frame.index <= model.frame.index
    assert model.analysis_costs["ghost"].frame_index >= newer.frame.index
    model.set_playing(False)
    controller.shutdown()


def test_a_slow_frame_says_what_took_the_time():
    model, controller = windowless_controller()
    controller.scenes.load_scene("two-spheres")
    frame = model.frame
    slow = dataclasses.replace(
        frame, request=frame.request.replace(bv="obb", obb_fit=ObbFit.SURFACE),
        timings={"deform": 0.0, "update": 0.010, "fit": 0.952, "traverse": 0.020,
                 "tritri": 0.003, "total": 0.985})
    words = slow_frame_words(slow, "auto")
    assert words.startswith(f"Frame {frame.index} is slow (985 ms against a budget of 100 ms)")
    assert ("fitting oriented boxes: 952 ms a frame — update 'auto' refits OBBs by PCA of the "
            "surface every frame; choose AABB or refit for speed") in words
    assert slow_frame_words(frame, "refit") == ""  # within the budget: nothing to say
    controller.shutdown()


def test_the_frame_path_puts_the_slow_words_in_the_model(monkeypatch):
    monkeypatch.setattr(frames, "slow_frame_words",
                        functools.partial(slow_frame_words, budget_s=0.0))
    model, controller = windowless_controller()
    messages = []
    model.message.connect(messages.append)
    controller.scenes.load_scene("two-spheres")
    assert model.slow_frame.startswith(f"Frame {model.frame.index} is slow")
    assert model.slow_frame in messages
    controller.shutdown()


@pytest.mark.parametrize("key", ["distance", "containment"])
def test_a_side_choice_never_runs_inside_the_frame(key):
    model, controller = windowless_controller()
    controller.scenes.load_scene("concentric-spheres")
    assert getattr(controller.frames.pipe.settings.frame, key) is False
    controller.shutdown()


def test_a_saved_recording_carries_the_side_results_with_their_frame(qtbot, tmp_path):
    from core.recording import open_recording, save_recording

    model, controller = windowless_controller(is_threaded=True)
    controller.scenes.load_scene("concentric-spheres")
    qtbot.waitUntil(lambda: not controller.frames.is_busy and model.side is not None,
                    timeout=60_000)
    recorded = controller.recorder.recording[len(controller.recorder.recording) - 1]
    assert recorded.distance is None  # the frame ran without it: it ran beside
    copy = frames.recording_with_side_results(controller.recorder.recording, model.side_by_frame)
    saved = copy[len(copy) - 1]
    assert saved.index == recorded.index == model.side.frame_index
    assert saved.distance is model.side.distance
    assert saved.containment.text == "A is inside B"
    assert saved.timings["distance"] == model.side.seconds["distance"]
    path = tmp_path / "apart.bvhrec"
    save_recording(copy, path)  # the recording schema accepts it
    opened = open_recording(path)
    back = opened[len(opened) - 1]
    assert back.index == recorded.index
    assert back.distance.distance == pytest.approx(saved.distance.distance)
    controller.shutdown()


def test_a_heat_map_over_the_frame_budget_is_counted_beside_the_frames(qtbot):
    model, controller = _threaded_two_spheres(qtbot)
    model.set_analysis_cost("heat", 5_000.0, 0)  # it took 5 s last time: not when drawing
    first = model.frame
    heat, note = controller.analysis.heat_for(first)
    assert heat is None and note.startswith(f"of frame {first.index}: counting beside")
    qtbot.waitUntil(lambda: controller.analysis.heat_for(first)[0] is not None, timeout=60_000)
    assert model.analysis_costs["heat"].frame_index == first.index
    model.set_analysis_cost("heat", 5_000.0, first.index)
    controller.poses.translate_body(1, (0.01, 0.0, 0.0))
    qtbot.waitUntil(lambda: not controller.frames.is_busy and model.frame is not first,
                    timeout=60_000)
    heat, note = controller.analysis.heat_for(model.frame)  # the older frame's meanwhile, marked
    assert heat is not None and note.startswith(f"from frame {first.index}")
    controller.shutdown()


def test_the_next_refit_leaves_the_side_jobs_snapshot_as_it_was():
    # The side lane reads a delivered frame's meshes and trees while the next frame refits:
    # a refit makes new arrays and never writes the ones a delivered frame holds.
    model, controller = windowless_controller()
    controller.scenes.load_scene("spot-twist-torus")
    model.set_playing(False)
    frame = model.frame
    before = [(t.bmin.copy(), t.bmax.copy()) for t in frame.trees]
    vertices = [m.vertices.copy() for m in frame.meshes]
    controller.animation.step_time(0.25)
    assert model.frame is not frame and model.frame.trees[0] is not frame.trees[0]
    for (bmin, bmax), tree in zip(before, frame.trees):
        assert (tree.bmin == bmin).all() and (tree.bmax == bmax).all()
    for old, mesh in zip(vertices, frame.meshes):
        assert (mesh.vertices == old).all()
    controller.shutdown()


def test_the_side_job_stops_past_its_time_budget_before_the_inside_test(monkeypatch):
    """The distance and inside test run under a time budget checked between the two: past it
    the inside test is not started and the failure names the budget."""
    from viewer.control.worker import Budget, JobBudgetExceeded, Workers

    model, controller = windowless_controller()
    controller.scenes.load_scene("concentric-spheres")
    frame = model.frame
    started = []
    monkeypatch.setattr("core.pipeline.pair_containment",
                        lambda *args, **kwargs: started.append(True))
    outcome = []

    def slow_side(control, *args):
        control._job.started -= 2 * frames.SIDE_SECONDS  # as if the distance took that long
        return frames.side_results(control, *args)

    Workers(inline=True).lane("side").submit(
        slow_side, frame, True, True, tag=Tag("distance and inside test", frame.index),
        on_result=lambda result, job: outcome.append(result),
        on_error=lambda error, job: outcome.append(error),
        budget=Budget(seconds=frames.SIDE_SECONDS))
    assert isinstance(outcome[0], JobBudgetExceeded) and not started
    assert f"{frames.SIDE_SECONDS:g} s" in str(outcome[0])
    controller.shutdown()


def test_a_heat_map_too_long_to_count_while_drawing_is_counted_beside_the_frames(qtbot):
    # Under the 100 ms frame budget but over the inline share: drawing plus the count would
    # block the GUI thread past 100 ms on a big scene.
    model, controller = _threaded_two_spheres(qtbot)
    model.set_analysis_cost("heat", 1e3 * INLINE_ANALYSIS_S * 2, 0)
    first = model.frame
    heat, note = controller.analysis.heat_for(first)
    assert heat is None and note.startswith(f"of frame {first.index}: counting beside")
    model.set_analysis_cost("heat", 1e3 * INLINE_ANALYSIS_S / 2, 0)
    controller.poses.translate_body(1, (0.01, 0.0, 0.0))
    qtbot.waitUntil(lambda: not controller.frames.is_busy and model.frame is not first,
                    timeout=60_000)
    heat, note = controller.analysis.heat_for(model.frame)  # cheap again: counted at once
    assert heat is not None and note == ""
    controller.shutdown()


def test_a_ghost_comes_with_its_levels_derived_on_its_lane():
    model, controller = windowless_controller()
    controller.scenes.load_scene("two-spheres")
    ghost = fresh_ghost(model.frame)
    for tree in ghost.trees:
        # Read off the GUI thread: drawing the ghost's levels derives nothing more.
        assert set(DERIVED_FIELDS) <= set(tree.__dict__["_derived"])
    controller.shutdown()


def test_self_collision_of_two_meshes_runs_beside_the_frame(qtbot):
    model, controller = _threaded_two_spheres(qtbot)
    model.set_pipeline(self_collision=True)
    qtbot.waitUntil(lambda: (not controller.frames.is_busy and model.side is not None
                             and model.side.self_results is not None), timeout=60_000)
    frame = model.frame
    recorded = controller.recorder.recording[len(controller.recorder.recording) - 1]
    # The frame ran without it ...
    assert frame.frame_options.self_collision is False and "self" not in recorded.timings
    assert recorded.self_results is None
    side = model.side  # ... and it ran beside
    assert side.inputs[2] is True and len(side.self_results) == 2
    assert model.analysis_costs["self"].frame_index == side.frame_index
    if side.frame_index == frame.index:  # still the newest: merged in, reads as its own
        assert frame.self_results is side.self_results
    controller.shutdown()


def test_self_collision_of_one_mesh_stays_the_frames_query():
    model, controller = windowless_controller()
    controller.scenes.load_scene(next(k for k, spec in SCENES.items() if spec.self_collision))
    frame = model.frame
    assert len(frame.meshes) == 1 and frame.frame_options.self_collision is True
    assert frame.self_results is not None and "self" in frame.timings
    assert controller.frames.side_inputs()[2] is False
    controller.shutdown()
