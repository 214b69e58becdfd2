"""What the main window remembers between runs (QSettings): geometry and dock layout, the
last scene, the update mode and drift threshold, the brush, the recording's caps and switch,
the display switches, the pipeline choices and which optional analyses run (the Pipeline dock's
distance and inside test, the heat map and the ghost tree)."""

from __future__ import annotations

from viewer.control.frames import FrameRunning
from viewer.qt.panels.levels import HEAT_CHOICES
from viewer.qt.window.layout import LAYOUT_VERSION
from viewer.scenes import DEFAULT_SCENE, SCENES
from viewer.state.pipeline import UpdateChoice
from viewer.words.choices import bv_choices, obb_fit_choices, partition_choices, split_choices

DEFAULT_RECORDING_MB = 512.0
"""Default memory cap of the recording (MB); the Memory limit dialog changes it."""

DEFAULT_RECORDING_FRAMES = 3000
"""Default frame cap of the recording: 100 s at 30 frames a second."""

DISPLAY_FIELDS = ("show_tree_a", "show_tree_b", "show_parents", "show_overlap", "show_culled",
                  "show_contacts", "heat_log", "show_ghost")
"""The display switches remembered between runs (the heat map's log scale and the ghost tree
are analyses a user switches on for a session of work, like the Pipeline dock's)."""

HEAT_MAPS = frozenset(value for value, _words, _tip in HEAT_CHOICES)
"""The heat map choices a saved value may take (one saved by another version is ignored)."""

PIPELINE_SWITCHES = ("distance", "containment")
"""The Pipeline dock's optional analyses remembered between runs (self-collision is not: each
built-in scene says whether it is one mesh against itself)."""


def pipeline_choice_names() -> dict[str, set[str]]:
    """Pipeline choices remembered between runs: model field -> the values offered now."""
    return {
        "bv": {key for key, _l, _d in bv_choices()},
        "partition": {key for key, _l in partition_choices()},
        "obb_fit": {name for name, _l, _t in obb_fit_choices()},
        "split": {name for name, _l, _t in split_choices()},
        "descend": set(FrameRunning.descend_rules()),
    }


def restore_settings(window) -> bool:
    """Apply what ``window.settings`` remembers to the window, its model and controller.

    Returns
    -------
    bool
        Whether a dock layout of this :data:`LAYOUT_VERSION` was restored.
    """
    s, model, controller = window.settings, window.model, window.controller
    geometry = s.value("geometry")
    if geometry is not None:
        window.restoreGeometry(geometry)  # Qt moves a window saved off-screen back onto it
    state = s.value("window_state")
    # restoreState refuses a state saved with another LAYOUT_VERSION (the old layout).
    is_restored = state is not None and window.restoreState(state, LAYOUT_VERSION)
    try:
        limits = (float(s.value("recording/max_megabytes", DEFAULT_RECORDING_MB)),
                  int(s.value("recording/max_frames", DEFAULT_RECORDING_FRAMES)))
    except (TypeError, ValueError):
        limits = (DEFAULT_RECORDING_MB, DEFAULT_RECORDING_FRAMES)
    if limits != controller.recorder.recording_limits:
        controller.recorder.set_recording_limits(*limits)
    is_recording = str(s.value("recording/enabled", "true")).lower() == "true"
    window.recording_actions["record"].setChecked(is_recording)
    model.is_recording = is_recording
    update = s.value("update_mode")
    if update in {c.value for c in UpdateChoice}:
        model.set_pipeline(update=UpdateChoice(update))
    try:
        model.set_pipeline(drift_threshold=float(s.value("drift_threshold", 0.25)))
        model.set_brush(float(s.value("brush_radius", model.brush_radius)),
                        float(s.value("brush_strength", model.brush_strength)))
    except (TypeError, ValueError):
        pass
    for field in DISPLAY_FIELDS:
        value = s.value(f"display/{field}")
        if value is not None:
            model.set_display(**{field: str(value).lower() == "true"})
    heat_map = s.value("display/heat_map")
    if heat_map is not None and str(heat_map) in HEAT_MAPS:
        model.set_display(heat_map=str(heat_map))
    for field in PIPELINE_SWITCHES:
        value = s.value(f"pipeline/{field}")
        if value is not None:
            model.set_pipeline(**{field: str(value).lower() == "true"})
    # Names the current build offers; a value saved by another version is ignored.
    for field, names in pipeline_choice_names().items():
        value = s.value(f"pipeline/{field}")
        if value is not None and str(value) in names:
            model.set_pipeline(**{field: str(value)})
    return is_restored


def last_scene(settings) -> str:
    """The scene of the last run, or the default one when it is not offered any more."""
    key = settings.value("last_scene", DEFAULT_SCENE)
    return key if key in SCENES else DEFAULT_SCENE


def save_settings(window) -> None:
    """Write what :func:`restore_settings` reads."""
    s, model = window.settings, window.model
    s.setValue("geometry", window.saveGeometry())
    s.setValue("window_state", window.saveState(LAYOUT_VERSION))
    if model.scene_key is not None:
        s.setValue("last_scene", model.scene_key)
    s.setValue("update_mode", model.pipeline.update.value)
    s.setValue("drift_threshold", model.pipeline.drift_threshold)
    s.setValue("brush_radius", model.brush_radius)
    s.setValue("brush_strength", model.brush_strength)
    s.setValue("recording/enabled", bool(model.is_recording))
    for field in DISPLAY_FIELDS:
        s.setValue(f"display/{field}", bool(getattr(model.display, field)))
    s.setValue("display/heat_map", model.display.heat_map)
    for field in PIPELINE_SWITCHES:
        s.setValue(f"pipeline/{field}", bool(getattr(model.pipeline, field)))
    for field in pipeline_choice_names():
        s.setValue(f"pipeline/{field}", getattr(model.pipeline, field))
    s.sync()
