"""The timeline: every live frame recorded, scrubbing to an event marker redraws that frame,
keys step and jump, Live goes back, Space plays the recording while scrubbed."""

from __future__ import annotations

import numpy as np
from PyQt6.QtCore import QPoint, QPointF, Qt
from PyQt6.QtWidgets import QApplication

from core.lab.inspect import inspect_node
from tests.viewer.conftest import click, drag, qt_point, settle, wait_scene
from tests.viewer.helpers import N_STEPS, STEP, record_approach
from viewer.qt.window.timeline import MARKER_STYLES, frame_label_text
from viewer.state.display import Mode


def n_contacts(frame) -> int:
    return 0 if frame.result is None else frame.result.n_contacts


def key(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
    qtbot.keyClick(window.plotter, key, modifier)
    QApplication.processEvents()


def test_every_live_frame_is_recorded_and_the_label_says_live(qtbot, window):
    record_approach(qtbot, window)
    recording = window.model.recording
    assert len(recording) == N_STEPS + 1
    assert window.model.cursor is None
    assert window.timeline.label.text() == f"live ({N_STEPS + 1} frames recorded)"
    assert window.timeline.slider.maximum() == N_STEPS
    # The recorded frames are the ones drawn live: B's translation step by step.
    xs = [recording[i].poses[1].translation[0] for i in range(len(recording))]
    np.testing.assert_allclose(np.diff(xs), STEP)
    assert window.status_line.recording_label.text() == recording.summary()
    assert window.status_line.recording_label.text().startswith(f"recording {N_STEPS + 1} frames")


def test_scrubbing_to_the_first_contact_marker_draws_that_frames_contacts(qtbot, window):
    record_approach(qtbot, window)
    recording = window.model.recording
    counts = [n_contacts(recording[i]) for i in range(len(recording))]
    first = next(i for i, n in enumerate(counts) if n > 0)
    assert counts[:first] == [0] * first and 0 < first < N_STEPS
    markers = window.timeline.slider.markers
    assert [m.position for m in markers if m.kind == "FIRST_CONTACT"] == [first]
    marker = next(m for m in markers if m.kind == "FIRST_CONTACT")
    assert window.timeline.slider.marker_at(window.timeline.slider.x_of(first)) == marker
    assert "first contact" in marker.text

    # The user drags the slider's handle to the marker.
    slider = window.timeline.slider
    slider.setSliderDown(True)
    slider.setValue(first)
    slider.setSliderDown(False)
    QApplication.processEvents()
    assert window.model.cursor == first
    assert window.model.frame is recording[first]
    assert window.timeline.label.text() == f"frame {first + 1} of {N_STEPS + 1} (recorded)"
    shown = recording[first].result
    assert window.renderer.cell_count("contact_segments") == shown.n_contacts > 0
    assert window.renderer.cell_count("contact_tris") == (shown.faces_a().size
                                                          + shown.faces_b().size)
    # The mesh of B stands where it was then, not at its live pose.
    np.testing.assert_allclose(np.asarray(window.renderer.mesh_actors[1].user_matrix)[:3, 3],
                               recording[first].poses[1].translation)
    # The Stats dock shows the recorded frame's totals, the level slider its levels.
    stats = window.docks["stats_dock"].panel
    assert f"contacts = {shown.n_contacts:,}" in stats.totals.text()
    levels = window.docks["levels_dock"].panel
    assert levels.slider.maximum() == shown.trace.n_levels
    assert stats.table.rowCount() == shown.trace.n_levels

    # One frame back: no contact drawn there.
    window.controller.recorder.step_recorded(-1)
    assert window.model.cursor == first - 1
    assert window.renderer.cell_count("contact_segments") == 0


def test_keys_step_jump_and_go_live(qtbot, window):
    record_approach(qtbot, window)
    n = N_STEPS + 1
    actions = window.recording_actions
    assert actions["step_back"].shortcut().toString() == "Shift+Left"
    assert actions["step_forward"].shortcut().toString() == "Shift+Right"
    assert actions["previous_event"].shortcut().toString() == "Ctrl+Shift+Left"
    assert actions["next_event"].shortcut().toString() == "Ctrl+Shift+Right"
    assert actions["reverse"].shortcut().toString() == "Shift+Space"
    assert actions["live"].shortcut().toString() == "L"
    shift = Qt.KeyboardModifier.ShiftModifier
    key(qtbot, window, Qt.Key.Key_Left, shift)
    assert window.model.cursor == n - 1
    key(qtbot, window, Qt.Key.Key_Left, shift)
    key(qtbot, window, Qt.Key.Key_Left, shift)
    assert window.model.cursor == n - 3
    key(qtbot, window, Qt.Key.Key_Right, shift)
    assert window.model.cursor == n - 2
    assert window.timeline.label.text() == f"frame {n - 1} of {n} (recorded)"
    key(qtbot, window, Qt.Key.Key_Right, shift)
    assert window.model.cursor == n - 1
    recording = window.model.recording
    first_contact = next(e.position for e in recording.events() if e.kind.name == "FIRST_CONTACT")
    assert recording.previous_event(n - 1) == first_contact < n - 1
    key(qtbot, window, Qt.Key.Key_Left, Qt.KeyboardModifier.ControlModifier | shift)
    assert window.model.cursor == first_contact
    assert window.model.frame is recording[first_contact]
    key(qtbot, window, Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier | shift)
    assert window.model.cursor == (recording.next_event(first_contact) or first_contact)

    live = window.model.live_frame
    key(qtbot, window, Qt.Key.Key_L)
    assert window.model.cursor is None
    settle(qtbot, window)
    assert window.model.frame is window.model.live_frame
    assert window.model.live_frame is not live  # going live computes a fresh frame
    assert window.timeline.label.text().startswith("live")
    assert not window.timeline.live_button.isEnabled()


def test_live_button_and_space_plays_the_recording_while_scrubbed(qtbot, window):
    record_approach(qtbot, window)
    n = N_STEPS + 1
    window.controller.recorder.scrub_to(0)
    assert window.timeline.live_button.isEnabled()
    window.toggle_play()  # Space: the recording plays, not the live animation
    assert window.model.playback == 1 and not window.model.is_playing
    assert window.timeline.play_button.text() == "Pause"
    qtbot.waitUntil(lambda: window.model.cursor == n - 1, timeout=10_000)
    qtbot.waitUntil(lambda: window.model.playback == 0, timeout=5_000)
    window.timeline.reverse_button.click()
    assert window.model.playback == -1
    qtbot.waitUntil(lambda: window.model.cursor == 0, timeout=10_000)
    qtbot.mouseClick(window.timeline.live_button, Qt.MouseButton.LeftButton)
    assert window.model.cursor is None
    settle(qtbot, window)
    assert len(window.model.recording) >= n


def test_a_drag_while_scrubbed_goes_live_and_marks_the_recording(qtbot, window):
    record_approach(qtbot, window)
    window.controller.recorder.scrub_to(1)
    window.controller.poses.translate_body(1, (0.1, 0.0, 0.0))
    assert window.model.cursor is None
    window.controller.poses.end_drag(1)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: any(e.kind.name == "GRABBED"
                                for e in window.model.recording.events()), timeout=10_000)
    assert any(m.kind == "GRABBED" for m in window.timeline.slider.markers)


def test_a_new_scene_clears_the_recording(qtbot, window):
    record_approach(qtbot, window)
    window.controller.recorder.scrub_to(2)
    window.controller.scenes.load_scene("two-spheres")
    wait_scene(qtbot, window)
    assert window.model.cursor is None
    settle(qtbot, window)
    assert len(window.model.recording) <= 1  # at most the new scene's first frame


def test_the_marker_tooltip_and_styles_differ_by_shape_and_colour(qtbot, window):
    # "contact again" is the first contact's mark drawn hollow: filled or not tells them apart
    shapes = {(style.shape, style.is_hollow) for style in MARKER_STYLES.values()}
    colours = {(style.rgb, style.is_hollow) for style in MARKER_STYLES.values()}
    assert len(shapes) == len(colours) == len(MARKER_STYLES)
    assert frame_label_text(None, 0) == "live"
    assert frame_label_text(36, 240) == "frame 37 of 240 (recorded)"
    assert frame_label_text(None, 1) == "live (1 frame recorded)"  # not "1 frames"
    assert frame_label_text(None, 2) == "live (2 frames recorded)"
    record_approach(qtbot, window)
    slider = window.timeline.slider
    marker = slider.markers[0]
    # The marker is painted where the tooltip finds it: its colour at its place.
    image = slider.grab().toImage()
    x = int(round(slider.x_of(marker.position)))
    y = 1 + 9 // 2 + 1
    colour = image.pixelColor(QPoint(x * image.width() // slider.width(),
                                     y * image.height() // slider.height()))
    rgb = MARKER_STYLES[marker.kind].rgb
    assert max(abs(colour.red() - rgb[0]), abs(colour.green() - rgb[1]),
               abs(colour.blue() - rgb[2])) < 40


def test_memory_limit_is_applied_and_remembered(qtbot, window, settings):
    record_approach(qtbot, window)
    assert window.recording_menu.apply_recording_limits(64, 3)
    assert len(window.model.recording) == 3
    assert window.model.recording.n_dropped == N_STEPS + 1 - 3
    assert float(settings.value("recording/max_megabytes")) == 64
    assert int(settings.value("recording/max_frames")) == 3
    assert not window.recording_menu.apply_recording_limits(-1, 3)
    assert "max_megabytes" in window.last_error[1]
    assert len(window.model.recording) == 3


def test_a_mouse_drag_in_move_mode_goes_live_and_puts_a_body_moved_marker(qtbot, window):
    record_approach(qtbot, window)
    window.controller.recorder.scrub_to(1)
    window.model.set_mode(Mode.MOVE)
    # B is drawn where it was in recorded frame 1; that is where the user grabs it.
    start = qt_point(window, window.model.recording[1].poses[1].translation)
    drag(window.plotter, start, start + QPointF(40.0, 0.0))
    assert window.model.cursor is None
    settle(qtbot, window)
    qtbot.waitUntil(lambda: [m.kind for m in window.timeline.slider.markers].count("GRABBED")
                    == 1, timeout=10_000)
    grabbed = next(m for m in window.timeline.slider.markers if m.kind == "GRABBED")
    assert grabbed.position == len(window.model.recording) - 1
    assert "moved" in grabbed.text


def test_choosing_another_bounding_volume_while_scrubbed_goes_live(qtbot, window):
    record_approach(qtbot, window)
    window.controller.recorder.scrub_to(2)
    window.model.set_pipeline(bv="obb")
    assert window.model.cursor is None
    settle(qtbot, window)
    assert window.model.frame.request.bv == "obb"


def test_the_inspector_follows_the_recorded_frame(qtbot, window):
    record_approach(qtbot, window)
    recording = window.model.recording
    last = len(recording) - 1
    window.controller.recorder.scrub_to(last)
    # A point of the lens where the two spheres cross: its boxes are tested at many levels.
    click(window.plotter, qt_point(window, (0.0, 0.05, 0.7)))
    info = window.model.inspect
    assert info is not None and info.levels_tested
    window.controller.recorder.scrub_to(last - 1)
    after = window.model.inspect
    assert after is not None and after is not info
    assert after.triangle == info.triangle and after.depth == info.depth
    # What the inspector says is the box's pair tests in the recorded frame shown.
    expected = inspect_node(recording[last - 1], info.body, info.triangle,
                            window.model.level,
                            depth=info.depth)
    assert repr(after) == repr(expected)
    assert repr(after) != repr(info)


def test_record_frames_off_keeps_nothing_and_is_remembered(qtbot, window, settings):
    record_approach(qtbot, window)
    action = window.recording_actions["record"]
    assert action.isCheckable() and action.isChecked()
    action.trigger()
    assert not window.model.is_recording
    window.controller.poses.translate_body(1, (0.1, 0.0, 0.0))
    settle(qtbot, window)
    assert len(window.model.recording) == N_STEPS + 1
    window.save_settings()
    assert str(settings.value("recording/enabled")).lower() == "false"


def test_speed_choice_sets_the_playback_speed(qtbot, window):
    speed = window.timeline.speed
    assert [speed.itemText(i) for i in range(speed.count())] == ["0.25×", "0.5×", "1×", "2×",
                                                                 "4×"]
    speed.setCurrentIndex(speed.findText("4×"))
    assert window.model.playback_speed == 4.0
    record_approach(qtbot, window)
    window.timeline.play_button.click()
    assert window.model.playback == 1 and window.model.playback_speed == 4.0
    qtbot.waitUntil(lambda: window.model.playback == 0, timeout=10_000)
    assert window.model.cursor == N_STEPS


def test_a_frame_whose_bodies_changed_meanwhile_is_shown_but_not_recorded(qtbot, window):
    record_approach(qtbot, window)
    messages = []
    window.model.message.connect(messages.append)
    frame = window.model.recording[0]
    window.model.bodies.append(window.model.bodies[0])  # one more body than the frame has
    window.controller.recorder.record_frame(frame)
    window.model.bodies.pop()
    assert len(window.model.recording) == N_STEPS + 1
    assert any(m.startswith(f"Frame {frame.index} not recorded: body_keys") for m in messages)


def test_the_media_icons_are_looked_up_once_per_style(qtbot):
    from PyQt6.QtWidgets import QStyle, QWidget

    from viewer.qt.window import timeline

    first, second = QWidget(), QWidget()
    qtbot.addWidget(first)
    qtbot.addWidget(second)
    pause = QStyle.StandardPixmap.SP_MediaPause
    icon = timeline.standard_icon(first, pause)
    assert not icon.isNull()
    assert timeline.standard_icon(second, pause).cacheKey() == icon.cacheKey()
    assert (first.style().name(), pause) in timeline._STANDARD_ICONS
