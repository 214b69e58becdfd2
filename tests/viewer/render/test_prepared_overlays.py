"""Overlays built on the frame's lane are what the GUI thread would build, and are drawn only
when they were built for the frame and the choices shown."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from viewer.render.overlays import OVERLAY_NAMES, build_overlays
from viewer.render.prepared_overlays import OverlayRequest, prepare_overlays, usable_overlays
from viewer.state.display import Display
from viewer.state.side_results import ShownSide


@pytest.fixture(scope="module")
def sphere_frames():
    """Two real frames of the two-spheres scene (computed once)."""
    from viewer.controller import Controller
    from viewer.model import ViewerModel

    model = ViewerModel()
    controller = Controller(model, is_threaded=False)
    assert controller.scenes.load_scene("two-spheres")
    first = model.frame
    controller.frames.request_frame()
    assert model.frame is not first
    return first, model.frame


def _same_geometry(a, b) -> None:
    assert a.notes == b.notes and a.n_contact_tris == b.n_contact_tris
    assert a.n_by_kind == b.n_by_kind
    for name in OVERLAY_NAMES:
        pa, pb = a.polys[name], b.polys[name]
        assert (pa.n_points, pa.n_cells) == (pb.n_points, pb.n_cells), name
        assert np.array_equal(np.asarray(pa.points), np.asarray(pb.points)), name


@pytest.mark.parametrize("level", [0, 2, None])
def test_prepared_overlays_equal_the_ones_built_when_drawing(sphere_frames, level):
    frame = sphere_frames[0]
    display = Display(show_parents=True, show_culled=True)
    prepared = prepare_overlays(frame, OverlayRequest(display, level, frozenset({1})))
    _same_geometry(prepared.overlays, build_overlays(frame, display, level, None, {1}))


def test_they_are_drawn_only_for_their_frame_and_choices(sphere_frames):
    frame, newer = sphere_frames
    display = Display()
    prepared = prepare_overlays(frame, OverlayRequest(display, 1, frozenset()))
    own = ShownSide(frame.distance, frame.containment)
    usable = usable_overlays(prepared, frame, display, 1, None, set(), None, own)
    assert usable is prepared.overlays
    assert usable_overlays(prepared, frame, display, 1, None, {0, 5}, None, None) is None
    refused = {
        "another frame": (newer, display, 1, None, set(), None, own),
        "another level": (frame, display, 2, None, set(), None, own),
        "other choices": (frame, replace(display, show_culled=True), 1, None, set(), None,
                          own),
        "a body hidden since": (frame, display, 1, None, {0}, None, own),
        "a clicked box": (frame, display, 1, object(), set(), None, own),
        "the stepper's contacts": (frame, display, 1, None, set(), np.arange(2), own),
        "a side result from an older frame": (
            frame, display, 1, None, set(), None,
            ShownSide(object(), None, "from frame 3")),
    }
    for why, args in refused.items():
        assert usable_overlays(prepared, *args) is None, why
    assert usable_overlays(None, frame, display, 1, None, set(), None, own) is None
    assert prepare_overlays(frame, None) is None


def test_while_playing_the_window_draws_the_lanes_overlays_until_a_choice_changes(
        qtbot, window):
    from tests.viewer.conftest import settle

    model, renderer = window.model, window.renderer
    frames = window.controller.frames
    before = renderer.n_prepared_drawn
    model.is_playing = True
    try:
        frames.request_frame()
        settle(qtbot, window)
        assert frames.prepared_overlays.frame is model.frame
        assert renderer.n_prepared_drawn == before + 1
        assert renderer.last_overlays is frames.prepared_overlays.overlays
        # The level moved after the frame was asked for: built for the new level instead.
        level = 0 if model.level != 0 else 1
        model.set_level(level)
        settle(qtbot, window)
        assert renderer.last_overlays is not frames.prepared_overlays.overlays
        _same_geometry(renderer.last_overlays,
                       build_overlays(model.frame, model.display, level, None, set()))
    finally:
        model.set_playing(False)
