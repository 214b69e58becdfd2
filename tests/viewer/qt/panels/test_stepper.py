"""The traversal stepper in the window: dock, keys, 3-D overlays, agreement with the core."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QApplication

from core.bv import BV_KINDS
from core.lab import steps as core_steps
from core.lab.steps import StepOutcome, traversal_steps
from tests.viewer.colour_vision import VISIONS, delta_e, hex_rgb, simulate
from tests.viewer.conftest import settle, status_said
from tests.viewer.helpers import press_key, stepper_on
from viewer.control.stepping import HISTORY_LEVELS_UP
from viewer.qt.panels.stepper import OFF_TEXT
from viewer.render import stepper as render_stepper
from viewer.render.overlays import KIND_COLORS, KIND_LABELS
from viewer.render.style import (
    CULLED_COLOR,
    OVERLAP_COLOR,
    SEGMENT_COLOR,
    STEP_AXIS_COLOR,
    STEP_GAP_COLOR,
    STEP_LEAF_COLOR,
    TREE_A_COLOR,
    TREE_B_COLOR,
)


def _dock(window):
    return window.docks["stepper_dock"].panel


def _core_steps(window):
    return traversal_steps(window.model.frame)


def test_outcome_codes_mirror_the_core():
    assert render_stepper.CODE_CULLED == core_steps.CODE_CULLED
    assert render_stepper.CODE_SPLIT == core_steps.CODE_SPLIT
    assert render_stepper.CODE_LEAF_PAIR == core_steps.CODE_LEAF_PAIR


def test_step_keys_walk_from_the_root_pair_to_the_first_contact(window):
    dock = _dock(window)
    assert dock.note_label.text() == OFF_TEXT
    assert not dock.buttons["forward"].isEnabled()
    window.model.set_playing(True)
    dock = stepper_on(window)
    assert not window.model.is_playing  # starting the stepper pauses
    steps = _core_steps(window)
    n = len(steps)
    assert dock.position_label.text().startswith(f"test 1 of {n:,}, level 0")
    root = steps[0]
    assert root.outcome is StepOutcome.SPLIT  # the two spheres' roots overlap
    assert "they overlap" in dock.step_label.text()
    assert root.split_words[1:] in dock.step_label.text()
    press_key(window, Qt.Key.Key_Right)
    assert window.model.step_position == 1
    assert dock.position_label.text().startswith(f"test 2 of {n:,}, level {steps[1].level}")
    press_key(window, Qt.Key.Key_Left)
    assert window.model.step_position == 0
    # Forward a few tests one at a time, then on to the first contact as a student does:
    # the next pair of leaves, then the next contact (Right alone would take 1,409 presses).
    dock.buttons["forward"].click()
    dock.buttons["forward"].click()
    assert window.model.step_position == 2
    press_key(window, Qt.Key.Key_Home)
    assert window.model.step_position == 0
    first_leaf = steps.next_where(0, "leaf")
    press_key(window, Qt.Key.Key_P)
    assert window.model.step_position == first_leaf
    assert steps[first_leaf].outcome is StepOutcome.LEAF_PAIR
    first_contact = steps.next_where(-1, "contact")
    assert first_contact is not None and first_contact >= first_leaf
    if first_contact > first_leaf:
        press_key(window, Qt.Key.Key_T)
    assert window.model.step_position == first_contact
    step = steps[first_contact]
    assert step.outcome is StepOutcome.LEAF_PAIR and step.contact_pairs.shape[0] > 0
    text = dock.step_label.text()
    assert "both are leaves" in text
    assert f"{step.contact_pairs.shape[0]} in contact" in text
    a, b = (int(x) for x in step.contact_pairs[0])
    # The contact's kind in the legend's own words ("crossing"), not "touch": "touching"
    # is another kind.
    result = window.model.frame.result
    row = int(np.flatnonzero((result.pairs[:, 0] == a) & (result.pairs[:, 1] == b))[0])
    kind = KIND_LABELS[int(result.kinds[row])]
    assert "touch<" not in text
    if step.triangle_pairs.shape[0] <= 12:
        assert f"({a}, {b}) <b>{kind}</b>" in text
    assert f"(1 {kind})" in text or f"{kind}" in text.split("in contact</b>")[1]
    counters = step.counters
    assert f"{counters.n_contacts:,} contacts" in dock.counters_label.text()
    assert f"queue {step.queue_length:,}" in dock.counters_label.text()


@pytest.mark.parametrize("what,key", [("overlap", Qt.Key.Key_O), ("leaf", Qt.Key.Key_P),
                                      ("contact", Qt.Key.Key_T),
                                      ("level_end", Qt.Key.Key_E)])
def test_run_to_keys_stop_where_the_core_says(window, what, key):
    stepper_on(window)
    steps = _core_steps(window)
    expected, position = [], -1
    for _ in range(3):
        position = steps.next_where(max(position, 0) if position >= 0 else 0, what)
        if position is None:
            break
        expected.append(position)
    got = []
    for _ in range(len(expected)):
        press_key(window, key)
        got.append(window.model.step_position)
    assert got == expected and expected


def test_waiting_list_and_counts(window):
    dock = stepper_on(window)
    steps = _core_steps(window)
    position = steps.next_where(0, "level_end") + 3
    window.controller.stepper.step_to(position)
    step = steps[position]
    waiting = steps.waiting(position, 50)
    text = dock.waiting_label.text()
    assert text.startswith(f"{step.queue_length:,} waiting")
    d, a, b = waiting[0]
    assert f"L{d} ({a}, {b})" in text
    if step.queue_length > 50:
        assert text.endswith(f"and {step.queue_length - 50:,} more.")


def _choose_kind(qtbot, window, key):
    """Pick a bounding volume in the Pipeline dock as a user does; wait for its frame."""
    combo = window.docks["pipeline_dock"].panel.volume_choice.bv
    combo.setCurrentIndex(combo.findData(key))
    qtbot.waitUntil(lambda: not window.controller.frames.is_busy and window.model.frame is not None
                    and window.model.frame.request.bv == key, timeout=60_000)
    QApplication.processEvents()


@pytest.mark.parametrize("kind", list(BV_KINDS))
def test_stepping_to_the_end_gives_the_frames_counters(qtbot, window, kind):
    _choose_kind(qtbot, window, kind)
    dock = stepper_on(window)
    frame = window.model.frame
    steps = _core_steps(window)
    press_key(window, Qt.Key.Key_E)  # the key, once: to the end of the root level
    assert window.model.step_position == steps.next_where(0, "level_end")
    # Then straight to the last test (each level's redraw of the k-DOP faces costs seconds,
    # and the run-to keys are tested above).
    window.controller.stepper.step_to(len(steps) - 1)
    assert window.model.step_position == len(steps) - 1
    c = frame.result.counters
    text = dock.counters_label.text()
    assert text == (f"So far: {c.n_bv_tests:,} volume pairs tested, {c.n_bv_overlaps:,} of "
                    f"them overlapping, {c.n_leaf_pairs:,} leaf pairs, {c.n_tri_tests:,} "
                    f"triangle tests, {c.n_contacts:,} contacts; queue 0.")
    assert dock.waiting_label.text().startswith("No pair is waiting")
    # Switching the kind while stepping restarts on the new frame's root pair.
    other = "sphere" if kind != "sphere" else "aabb"
    _choose_kind(qtbot, window, other)
    assert window.model.step_position == 0
    assert window.model.steps is not None and len(window.model.steps) == len(
        traversal_steps(window.model.frame))


def _first_culled(steps):
    for i in range(len(steps)):
        if steps[i].outcome is StepOutcome.CULLED:
            return i
    raise AssertionError("no culled pair")


def _pixels_near(image, color, tol=12):
    rgb = image[..., :3].astype(int)
    target = np.array([int(color.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4)])
    return np.all(np.abs(rgb - target) <= tol, axis=-1)


def test_a_culled_step_draws_the_axis_the_intervals_and_the_gap(window):
    window.resize(1280, 800)
    stepper_on(window)
    steps = _core_steps(window)
    position = _first_culled(steps)
    window.controller.stepper.step_to(position)
    r = window.renderer
    assert r.cell_count("step_a") == 12 and r.cell_count("step_b") == 12  # one box each
    assert r.cell_count("step_interval_a") == 1 and r.cell_count("step_interval_b") == 1
    assert r.cell_count("step_gap") == 3  # the gap and a tick at each end
    assert r.cell_count("step_axis") > 1  # the shaft and the head's faces
    sep = window.controller.stepper.step_view().separation
    assert sep is not None and sep.gap > 0
    label = render_stepper.separation_label(sep)
    assert r.step_label_text == label
    assert label in _dock(window).step_label.text()
    # The volumes of the pairs decided before it under its ancestor a few levels up (the
    # current subtree) are drawn faint by outcome, each once.
    node_a, node_b, decided = steps.decided(position)
    _root, subtree = steps.subtree_before(position, HISTORY_LEVELS_UP)
    for code, name in ((0, "step_culled"), (1, "step_split"), (2, "step_leaf")):
        rows = subtree[decided[subtree] == code]
        step = steps[position]
        n_volumes = (np.setdiff1d(node_a[rows], [step.node_a]).shape[0]
                     + np.setdiff1d(node_b[rows], [step.node_b]).shape[0])
        assert r.cell_count(name) == 12 * n_volumes, name
    # The level's own overlays give way to the stepper's.
    assert r.cell_count("tree_a") == 0 and r.cell_count("overlap") == 0
    assert any("culled" in t for t in r.legend_texts)
    # Frame the pair and look at the pixels: the intervals are there in A's colour.
    window.plotter.reset_camera(bounds=r.polys["step_axis"].bounds, render=False)
    window.plotter.render()
    image = window.plotter.screenshot(return_img=True)
    assert _pixels_near(image, TREE_A_COLOR).sum() > 20
    assert _pixels_near(image, STEP_GAP_COLOR).sum() > 5


def test_turning_the_stepper_off_restores_the_normal_view(window):
    r = window.renderer
    before = {name: r.cell_count(name) for name in r.polys}
    legend = list(r.legend_texts)
    opacity = r.mesh_actors[0].prop.opacity
    stepper_on(window)
    window.controller.stepper.step_to(5)
    assert r.cell_count("step_a") > 0
    assert r.mesh_actors[0].prop.opacity < opacity  # fainter meshes show the axis inside
    press_key(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    assert not window.model.is_stepping
    assert {name: r.cell_count(name) for name in r.polys} == before
    assert r.legend_texts == legend and r.step_label_text == ""
    assert r.mesh_actors[0].prop.opacity == opacity


def test_only_the_contacts_found_so_far_are_drawn_while_stepping(window):
    r = window.renderer
    n_all = r.cell_count("contact_tris")
    assert n_all > 0
    stepper_on(window)
    assert r.cell_count("contact_tris") == 0  # the root pair: nothing found yet
    assert r.cell_count("contact_segments") == 0
    press_key(window, Qt.Key.Key_T)  # to the first contact
    steps = _core_steps(window)
    position = window.model.step_position
    found = np.asarray(window.model.frame.result.pairs)[steps.contacts_found(position)]
    assert found.shape[0] == steps[position].counters.n_contacts > 0
    distinct = len(set(found[:, 0].tolist())) + len(set(found[:, 1].tolist()))
    assert r.cell_count("contact_tris") == distinct
    assert r.cell_count("contact_segments") == found.shape[0]
    window.controller.stepper.step_to(len(steps) - 1)
    assert r.cell_count("contact_tris") == n_all


def test_arrow_keys_nudge_a_mesh_when_the_stepper_is_off(window):
    from viewer.state.display import Mode

    window.model.set_mode(Mode.MOVE)
    window.model.set_selected(1)
    before = window.model.bodies[1].pose.copy()
    press_key(window, Qt.Key.Key_Right)
    assert not np.allclose(window.model.bodies[1].pose, before)


def test_a_frame_without_a_trace_says_why(window):
    from core.pipeline import FramePipeline, PipelineSettings
    from core.request import CollisionRequest

    dock = stepper_on(window)
    pipe = FramePipeline(PipelineSettings(CollisionRequest(trace=False)))
    frame = pipe.step(window.controller.frames._inputs(), 0.0)
    window.model.set_frame(frame)  # as a recorded frame would be shown
    QApplication.processEvents()
    assert window.model.is_stepping and window.model.steps is None
    assert dock.note_label.text() == ("The stepper cannot walk this frame: this frame has no "
                                      "trace: turn tracing on.")
    assert dock.note_label.isVisible()
    assert not any(b.isEnabled() for b in dock.buttons.values())
    assert window.renderer.cell_count("step_a") == 0


def test_a_self_collision_frame_says_why(make_window):
    window = make_window("folding-tube")
    dock = stepper_on(window)
    assert dock.note_label.text().startswith("This is a self-collision frame")
    assert not dock.buttons["forward"].isEnabled()


def test_stepper_colours_stay_apart_for_every_colour_vision():
    # Everything on screen while stepping: the stepper's colours, the contact kinds and the
    # intersection segments.
    colours = [TREE_A_COLOR, TREE_B_COLOR, CULLED_COLOR, OVERLAP_COLOR, STEP_LEAF_COLOR,
               STEP_AXIS_COLOR, STEP_GAP_COLOR, SEGMENT_COLOR,
               *("#" + "".join(f"{c:02x}" for c in rgb) for rgb in KIND_COLORS.values())]
    for vision in VISIONS:
        shown = [simulate(hex_rgb(c), vision) for c in colours]
        for i in range(len(shown)):
            for j in range(i + 1, len(shown)):
                assert delta_e(shown[i], shown[j]) >= 18, (colours[i], colours[j], vision)


def test_new_frame_restarts_at_the_root_pair(qtbot, window):
    stepper_on(window)
    window.controller.stepper.step_to(7)
    assert window.model.step_position == 7
    window.controller.poses.translate_body(1, np.array([0.01, 0.0, 0.0]))
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.model.step_position == 0)
    assert status_said(window, "starts again")


def test_playing_turns_the_stepper_off(window):
    stepper_on(window)
    window.controller.stepper.step_to(3)
    window.model.set_playing(True)
    assert not window.model.is_stepping
    window.model.set_playing(False)
    assert window.renderer.cell_count("step_a") == 0
