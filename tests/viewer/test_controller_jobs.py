"""The controller is its jobs composed: each job's methods live in one module of
``viewer.control`` and no job silently overrides another's."""

from __future__ import annotations

from PyQt6.QtCore import QObject

from viewer.controller import Controller

JOB_MODULES = {
    "viewer.control.scenes": {"load_scene", "swap_to_b"},
    "viewer.control.files": {"load_files", "load_files_async", "read_files"},
    "viewer.control.poses": {"translate_body", "rotate_body", "end_drag", "centroid_world",
                             "body_size"},
    "viewer.control.sculpt": {"begin_stroke", "sculpt", "end_stroke", "undo_stroke",
                              "reset_rest"},
    "viewer.control.frames": {"request_frame", "step_sync", "is_busy", "is_frame_running",
                              "side_inputs"},
    "viewer.control.animation": {"step_time"},
    "viewer.control.recording": {"scrub_to", "step_recorded", "play_recording", "go_live",
                                 "save_recording", "open_recording", "replay_with",
                                 "jump_to_event", "clear_recording", "set_recording_limits"},
    "viewer.control.stepping": {"start_stepper", "stop_stepper", "step_to", "step_by",
                                "step_restart", "step_run_to", "step_view",
                                "traversal_pseudocode"},
    "viewer.control.session": {"export_mesh", "session_snapshot", "save_session",
                               "open_session", "apply_session", "start_autosave",
                               "discard_crashed_session"},
    "viewer.control.analysis": {"heat_for", "ghost_view", "is_ghost_building",
                                "cross_check_engine", "cross_check_frame", "is_cross_checking",
                                "crosscheck_view"},
    "viewer.control.inspecting": {"request_quality", "check_invariants",
                                  "set_validate_after_refit", "open_tree_file",
                                  "open_tree_file_async", "use_own_tree", "save_tree_file",
                                  "save_tree_file_async", "tree_file_ids", "set_quality_on"},
    "viewer.control.lessons": {"open_lesson", "close_lesson", "lesson_step", "next_step",
                               "previous_step", "go_to_step", "apply_step_state", "set_figure",
                               "run_experiment_figure", "current_step_values",
                               "save_lesson_step"},
    "viewer.control.exporting": {"is_exporting", "cancel_export", "start_movie",
                                 "add_movie_frame", "movie_backlog", "finish_movie",
                                 "save_web_page", "export_frame_data"},
    "viewer.control.experiments": {"experiment_catalogue", "run_experiment_named",
                                   "cancel_experiment", "is_experiment_running",
                                   "current_experiment_scene", "save_experiment_outputs",
                                   "experiment_figure",
                                   "save_experiment_data"},
    "viewer.control.costs": {"unit_costs_of", "refresh_cost_view"},
    "viewer.control.kernels": {"start_kernel_compile", "missing_kernels"},
}


def _jobs():
    return [c for c in Controller.__mro__[1:] if c.__module__.startswith("viewer.control.")]


def test_each_public_method_lives_in_its_job_module():
    for module, names in JOB_MODULES.items():
        for name in names:
            owner = next(c for c in Controller.__mro__ if name in vars(c))
            assert owner.__module__ == module, name
    assert {c.__module__ for c in _jobs()} == set(JOB_MODULES)


def test_no_two_jobs_define_the_same_method_and_none_overrides_qt():
    # In a class composed of mixins the first in the MRO wins silently; a name defined twice
    # would make one job's method disappear.
    seen = {}
    for job in _jobs():
        for name in vars(job):
            if name.startswith("__"):
                continue
            assert name not in seen, f"{name}: {seen.get(name)} and {job.__name__}"
            assert not hasattr(QObject, name), f"{job.__name__}.{name} shadows QObject's"
            seen[name] = job.__name__
    # The composition itself adds only construction and shutdown.
    own = {n for n in vars(Controller) if not n.startswith("__")}
    assert own <= {"shutdown", "staticMetaObject"}
