"""What the stepper shows deep in a walk (issue 26): the pair framed and clear of the legend,
the history limited to the current subtree, the tested triangles, the contact kinds' words,
the culled pair's label, the Stepper and Pseudo-code docks together, and step mode's
contacts."""

from __future__ import annotations

import re

import numpy as np
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QApplication

from core.lab.separation import separation
from core.lab.steps import StepOutcome, traversal_steps
from tests.viewer.helpers import press_key, stepper_on
from viewer.control.stepping import HISTORY_LEVELS_UP
from viewer.render.stepper import separation_label
from viewer.render.style import NOTE_FONT_PX

DEEP_TEST = 1_409
"""Position of test 1,410 of Two spheres (level 17), where the pair was a speck."""


def _pair_display_box(window):
    """``(x0, y0, x1, y1)`` display pixels around the drawn pair under test."""
    r = window.renderer
    lo = np.min([np.asarray(r.polys[n].bounds)[0::2] for n in ("step_a", "step_b")], axis=0)
    hi = np.max([np.asarray(r.polys[n].bounds)[1::2] for n in ("step_a", "step_b")], axis=0)
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                        for z in (lo[2], hi[2])])
    points = np.array([r.world_to_display(c)[:2] for c in corners])
    return (*points.min(axis=0), *points.max(axis=0))


def _legend_box(window):
    actor = window.renderer.legend
    w, h = window.plotter.renderer.GetSize()
    x0, y0 = actor.GetPosition()
    dx, dy = actor.GetPosition2()
    return x0 * w, y0 * h, (x0 + dx) * w, (y0 + dy) * h


def test_history_is_the_current_subtree(window):
    stepper_on(window)
    window.controller.stepper.step_to(DEEP_TEST)
    steps = traversal_steps(window.model.frame)
    _root, rows = steps.subtree_before(DEEP_TEST, HISTORY_LEVELS_UP)
    node_a, node_b, decided = steps.decided(DEEP_TEST)
    step = steps[DEEP_TEST]
    r = window.renderer
    n_drawn = 0
    for code, name in ((0, "step_culled"), (1, "step_split"), (2, "step_leaf")):
        mine = rows[decided[rows] == code]
        n_volumes = (np.setdiff1d(node_a[mine], [step.node_a]).shape[0]
                     + np.setdiff1d(node_b[mine], [step.node_b]).shape[0])
        assert r.cell_count(name) == 12 * n_volumes, name
        n_drawn += n_volumes
    # A few levels of one subtree, not the 870 volumes of everything tested before.
    assert 0 < n_drawn <= 2 * 4 * 2 ** HISTORY_LEVELS_UP
    note = window.renderer.note.GetText(0)
    assert f"the {DEEP_TEST - rows.shape[0]:,} others tested earlier are not" in note


def test_frame_the_pair_key_makes_the_pair_large(window):
    window.resize(1280, 800)
    stepper_on(window)
    window.controller.stepper.step_to(DEEP_TEST)
    QApplication.processEvents()
    view_h = window.plotter.renderer.GetSize()[1]
    x0, y0, x1, y1 = _pair_display_box(window)
    assert y1 - y0 < 0.15 * view_h  # a speck in the default view
    press_key(window, Qt.Key.Key_F)
    window.plotter.render()
    x0, y0, x1, y1 = _pair_display_box(window)
    assert y1 - y0 > 0.3 * view_h
    w, h = window.plotter.renderer.GetSize()
    assert abs(0.5 * (x0 + x1) - 0.5 * w) < 0.1 * w and abs(0.5 * (y0 + y1) - 0.5 * h) < 0.1 * h


def test_the_legend_keeps_clear_of_the_pair(window):
    window.resize(1280, 800)
    stepper_on(window)
    window.controller.stepper.step_to(DEEP_TEST)
    window.controller.stepper.frame_pair()
    r = window.renderer
    window.plotter.render()
    # Move the camera so that the pair lands where the legend stands by default.
    lx0, ly0, lx1, ly1 = _legend_box(window)
    assert r.canvas_legend.corner == "top right"
    bx0, by0, bx1, by1 = _pair_display_box(window)
    centre_display = np.array([0.5 * (bx0 + bx1), 0.5 * (by0 + by1)])
    depth = r.world_to_display(np.zeros(3))[2]
    centre = r.display_to_world(*centre_display, depth)
    target = r.display_to_world(0.5 * (lx0 + lx1), 0.5 * (ly0 + ly1), depth)
    camera = window.plotter.camera
    shift = np.asarray(centre) - np.asarray(target)
    camera.position = tuple(np.asarray(camera.position) + shift)
    camera.focal_point = tuple(np.asarray(camera.focal_point) + shift)
    window.plotter.render()
    point = r.step_pair_display_point()
    assert lx0 < point[0] < lx1 and ly0 < point[1] < ly1  # where the legend was
    assert r.canvas_legend.corner == "bottom right"
    lx0, ly0, lx1, ly1 = _legend_box(window)
    assert not (lx0 <= point[0] <= lx1 and ly0 <= point[1] <= ly1)


def test_a_leaf_pair_draws_its_triangles(window):
    stepper_on(window)
    position = window.controller.stepper.step_run_to("leaf")
    view = window.controller.stepper.step_view()
    assert view.position == position and view.triangle_pairs.shape[0] > 0
    r = window.renderer
    for body, name in ((0, "step_tris_a"), (1, "step_tris_b")):
        assert r.cell_count(name) == 3 * np.unique(view.triangle_pairs[:, body]).shape[0]
    window.controller.stepper.step_by(-1 if position else 1)
    if window.controller.stepper.step_view().outcome != 2:
        assert r.cell_count("step_tris_a") == 0 and r.cell_count("step_tris_b") == 0


def test_the_lecture_caption_counts_the_contacts_found_so_far(window):
    total = window.model.frame.result.counters.n_contacts
    assert total > 0
    caption = window.caption.state_caption()
    assert f"{total:,} triangle pairs in contact" in caption and "touch" not in caption
    stepper_on(window)
    window.controller.stepper.step_to(5)  # test 6: nothing found yet
    caption = window.caption.state_caption()
    assert "0 contacts found so far" in caption
    assert f"{total:,}" not in caption and "touch" not in caption


def _label_numbers(text):
    match = re.search(r"A spans \[(\S+), (\S+)\], B spans \[(\S+), (\S+)\], gap (\S+)", text)
    assert match, text
    return match.groups()


def test_the_culled_labels_numbers_subtract_to_the_gap(window):
    steps = traversal_steps(window.model.frame)
    n_core_wrong = 0
    n_culled = 0
    for position in range(len(steps)):
        step = steps[position]
        if step.outcome is not StepOutcome.CULLED:
            continue
        sep = separation(steps, step)
        n_culled += 1
        a_lo, a_hi, b_lo, b_hi, gap = _label_numbers(separation_label(sep))
        decimals = len(gap.split(".")[1])
        assert f"{float(b_lo) - float(a_hi):.{decimals}f}" == gap, position
        assert abs(float(gap) - sep.gap) <= 0.6 * 10.0 ** -decimals
        core = re.search(r"A spans \[(\S+), (\S+)\], B spans \[(\S+), (\S+)\], gap (\S+)",
                         sep.words).groups()
        n_core_wrong += abs(float(core[2]) - float(core[1]) - float(core[4])) > 1e-9
    assert n_culled > 100
    assert n_core_wrong > 0  # the rounded words this label replaces did not add up


def _label_font_size(window):
    actor = window.plotter.actors["step_label-labels"]
    return actor.GetMapper().GetInputAlgorithm().GetTextProperty().GetFontSize()


def test_the_culled_label_scales_stands_beside_the_arrow_and_names_the_axis(window):
    stepper_on(window)
    stepper = window.controller.stepper
    steps = traversal_steps(window.model.frame)
    position = next(i for i in range(len(steps))
                    if steps[i].outcome is StepOutcome.CULLED and i > 100)
    stepper.step_to(position)
    r = window.renderer
    view = stepper.step_view()
    sep = view.separation
    assert r.step_label_text == separation_label(sep)
    assert separation_label(sep) in window.docks["stepper_dock"].panel.step_label.text()
    desk = _label_font_size(window)
    assert desk == max(8, round(NOTE_FONT_PX * r.text_scale))
    r.set_presentation_scale(2.0)  # lecture mode on a screen twice the reference height
    assert _label_font_size(window) == max(8, round(NOTE_FONT_PX * r.text_scale * 2.0))
    r.set_presentation_scale(1.0)
    # Beside the arrow, past its head: not over the gap it explains.
    axis = np.asarray(sep.axis) / np.linalg.norm(sep.axis)
    along = float((r.last_step_overlays.label_point - np.asarray(sep.origin)) @ axis)
    arrow_end = float((np.asarray(r.polys["step_axis"].points) @ axis).max()
                      - np.asarray(sep.origin) @ axis)
    assert along > arrow_end > max(sep.interval_b)
    letter = "xyz"[int(np.argmax(np.abs(axis)))]
    assert f"culled: separated along {letter}" in window.caption.state_caption()
    # A pair that is not culled has no label: the last one's words go.
    stepper.step_to(window.controller.stepper.step_run_to("overlap"))
    assert r.step_label_text == "" and "step_label-labels" not in window.plotter.actors


def test_stepping_shows_the_stepper_and_the_pseudocode_together(window):
    window.resize(1280, 760)
    window.reset_layout()
    QApplication.processEvents()
    stepper, code = window.docks["stepper_dock"], window.docks["pseudocode_dock"]
    window.docks["levels_dock"].raise_()
    QApplication.processEvents()
    press_key(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    for _ in range(5):
        QApplication.processEvents()
    assert window.model.is_stepping
    assert code not in window.tabifiedDockWidgets(stepper)
    for dock in (stepper, code):
        assert dock.isVisible() and not dock.visibleRegion().isEmpty(), dock.windowTitle()
        assert dock.height() > 150, dock.windowTitle()
    # Pseudo-code lines wrap instead of running off the right edge.
    lines = code.panel.traversal
    assert lines.horizontalScrollBar().maximum() == 0
    width = lines.viewport().width()
    for i in range(lines.count()):
        assert lines.visualItemRect(lines.item(i)).right() <= width


def test_step_mode_shows_the_contacts_reached_by_its_level(window):
    r = window.renderer
    n_all = r.cell_count("contact_tris")
    assert n_all > 0
    window.model.set_step_mode(True)  # reveal one level at a time, from level 0
    window.redraw()
    assert window.model.level == 0
    assert r.cell_count("contact_tris") == 0  # the root pair reaches no leaf pair
    steps = traversal_steps(window.model.frame)
    result = window.model.frame.result
    for level in range(steps.n_levels):
        window.model.set_level(level)
        window.redraw()
        found = steps.contacts_found(int(steps.level_start[level + 1]) - 1)
        pairs = np.asarray(result.pairs)[found]
        distinct = len(set(pairs[:, 0].tolist())) + len(set(pairs[:, 1].tolist()))
        assert r.cell_count("contact_tris") == distinct, level
        assert (f"Contacts found by the end of this level: {found.shape[0]:,} of "
                f"{result.counters.n_contacts:,}.") in " ".join(r.note.GetText(0).split())
    assert r.cell_count("contact_tris") == n_all


def test_a_lesson_frames_the_pair_it_steps_to(qtbot, window, monkeypatch):
    window.resize(1280, 800)
    lessons = window.controller.lessons
    stepper = window.controller.stepper
    framed = []
    real_frame_pair = stepper.frame_pair

    def frame_pair():
        framed.append(window.model.step_position)
        return real_frame_pair()

    monkeypatch.setattr(stepper, "frame_pair", frame_pair)  # what frame_new_pair calls
    assert lessons.open_lesson("tandem-traversal")
    qtbot.waitUntil(lambda: window.model.is_stepping and window.model.steps is not None,
                    timeout=60_000)
    # The deepest pair the lesson steps to (a leaf pair: a speck in the lesson's view).
    index = max((i for i, step in enumerate(lessons.lesson.steps)
                 if step.step_pairs is not None),
                key=lambda i: lessons.lesson.steps[i].step_pairs)
    framed.clear()
    lessons.go_to_step(index)
    position = lessons.lesson.steps[index].step_pairs
    qtbot.waitUntil(lambda: window.model.step_position is not None
                    and window.model.step_position >= position, timeout=60_000)
    QApplication.processEvents()
    window.redraw()  # the window follows the pair too, and must not frame it again
    # Each pair the step passes through is framed once, the lesson's own last.
    assert framed[-1] == window.model.step_position and len(framed) == len(set(framed))
    assert not stepper.frame_new_pair()  # framed already
    # Another camera move (a lesson's own camera on going back to a step): framed again.
    window.model.restore_camera(window.model.read_camera())
    framed.clear()
    assert stepper.frame_new_pair() and framed == [window.model.step_position]
    window.plotter.render()
    view_h = window.plotter.renderer.GetSize()[1]
    x0, y0, x1, y1 = _pair_display_box(window)
    assert y1 - y0 > 0.3 * view_h


def test_in_lecture_mode_a_pair_too_small_to_read_is_framed(qtbot, window):
    stepper_on(window)
    window.lecture.enter()
    QApplication.processEvents()
    view_h = window.plotter.renderer.GetSize()[1]
    x0, y0, x1, y1 = _pair_display_box(window)
    assert y1 - y0 > 0.1 * view_h  # the root pair: the camera stays where it was
    camera = window.plotter.camera.position
    window.controller.stepper.step_to(1)
    assert window.plotter.camera.position == camera
    window.controller.stepper.step_to(DEEP_TEST)  # a speck in that view: framed
    x0, y0, x1, y1 = _pair_display_box(window)
    assert y1 - y0 > 0.3 * view_h
    window.lecture.leave()


def test_the_stepper_legend_lists_only_what_the_step_draws(window):
    """A culled step names its separating axis and gap; a leaf step (no axis, no gap) does
    not list them, nor an outcome no earlier pair had."""
    from core.lab.steps import CODE_CULLED, CODE_LEAF_PAIR

    stepper_on(window)
    steps = traversal_steps(window.model.frame)
    _a, _b, codes = steps.decided(len(steps))
    culled = int(np.flatnonzero(codes == CODE_CULLED)[0])
    leaf = int(np.flatnonzero(codes == CODE_LEAF_PAIR)[0])
    stepper = window.controller.stepper
    stepper.step_to(culled)
    QApplication.processEvents()
    rows = " | ".join(window.renderer.canvas_legend.texts())
    assert "separating axis" in rows and "gap between the two extents" in rows
    stepper.step_to(leaf)
    QApplication.processEvents()
    rows = " | ".join(window.renderer.canvas_legend.texts())
    assert "separating axis" not in rows and "gap between" not in rows
    assert "under test" in rows
    for name, words in (("step_culled", "culled (apart)"), ("step_split", "overlap, split"),
                        ("step_leaf", "two leaves")):
        assert (words in rows) == (window.renderer.cell_count(name) > 0), name
