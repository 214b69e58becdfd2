"""The controller is its jobs composed as attributes, not mixins: each job is a plain class in
one module of ``viewer.control``, made with what it uses, and it reads nothing it was not given."""

from __future__ import annotations

import ast
import inspect
import textwrap

from PyQt6.QtCore import QObject

from viewer.controller import Controller
from viewer.model import ViewerModel

# Controller attribute -> (its module, public methods callers use).
JOBS = {
    "scenes": ("viewer.control.scenes", {"load_scene", "swap_to_b", "replace_scene"}),
    "files": ("viewer.control.files", {"load_files", "load_files_async", "read_files"}),
    "poses": ("viewer.control.poses", {"translate_body", "rotate_body", "end_drag",
                                       "centroid_world", "body_size"}),
    "sculpting": ("viewer.control.sculpt", {"begin_stroke", "sculpt", "end_stroke",
                                            "undo_stroke", "reset_rest", "forget_strokes"}),
    "frames": ("viewer.control.frames", {"request_frame", "step_sync", "is_busy",
                                         "is_frame_running", "side_inputs", "new_pipeline"}),
    "animation": ("viewer.control.animation", {"step_time"}),
    "recorder": ("viewer.control.recording", {"scrub_to", "step_recorded", "play_recording",
                                              "go_live", "save_recording", "open_recording",
                                              "replay_with", "jump_to_event",
                                              "clear_recording", "set_recording_limits",
                                              "record_frame", "start_job"}),
    "stepper": ("viewer.control.stepping", {"start_stepper", "stop_stepper", "step_to",
                                            "step_by", "step_restart", "step_run_to",
                                            "step_view", "traversal_pseudocode"}),
    "session": ("viewer.control.session", {"export_mesh", "session_snapshot", "save_session",
                                           "open_session", "apply_session", "start_autosave",
                                           "discard_crashed_session"}),
    "analysis": ("viewer.control.analysis", {"heat_for", "ghost_view", "is_ghost_building",
                                             "cross_check_engine", "cross_check_frame",
                                             "is_cross_checking", "crosscheck_view"}),
    "inspector": ("viewer.control.inspecting", {"request_quality", "check_invariants",
                                                "set_validate_after_refit", "open_tree_file",
                                                "open_tree_file_async", "use_own_tree",
                                                "save_tree_file", "save_tree_file_async",
                                                "tree_file_ids", "set_quality_on",
                                                "inspect_node"}),
    "lessons": ("viewer.control.lessons", {"open_lesson", "close_lesson", "lesson_step",
                                           "next_step", "previous_step", "go_to_step",
                                           "apply_step_state", "set_figure",
                                           "run_experiment_figure", "current_step_values",
                                           "save_lesson_step"}),
    "exporter": ("viewer.control.exporting", {"is_exporting", "cancel_export", "start_movie",
                                              "add_movie_frame", "movie_backlog",
                                              "finish_movie", "save_web_page",
                                              "export_frame_data"}),
    "experiments": ("viewer.control.experiments", {"experiment_catalogue",
                                                   "run_experiment_named", "cancel_experiment",
                                                   "is_experiment_running",
                                                   "current_experiment_scene",
                                                   "save_experiment_outputs",
                                                   "experiment_figure",
                                                   "save_experiment_data"}),
    "costs": ("viewer.control.costs", {"unit_costs_of", "refresh_cost_view"}),
    "kernels": ("viewer.control.kernels", {"start_kernel_compile", "missing_kernels"}),
}


def _job_classes(qtbot):
    controller = Controller(ViewerModel(), is_threaded=False)
    try:
        return {name: type(getattr(controller, name)) for name in JOBS}
    finally:
        controller.shutdown()


def test_the_controller_has_no_mixin_bases_and_adds_only_construction_and_shutdown():
    assert Controller.__bases__ == (QObject,)
    own = {n for n in vars(Controller) if not n.startswith("__")}
    assert own <= {"shutdown", "staticMetaObject"}


def test_each_job_is_a_plain_class_in_its_module_with_its_methods(qtbot):
    for name, cls in _job_classes(qtbot).items():
        module, methods = JOBS[name]
        assert cls.__module__ == module, name
        assert cls.__bases__ == (object,), f"{cls.__name__} has bases {cls.__bases__}"
        assert methods <= set(vars(cls)), f"{name}: {sorted(methods - set(vars(cls)))}"


def _read_but_not_given(cls) -> set[str]:
    """The ``self.NAME`` reads in ``cls``'s methods whose NAME the class neither assigns
    (``self.NAME = ...``) nor defines (a method, property or class attribute)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    own = set(vars(cls))
    reads = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id == "self"):
            (own if isinstance(node.ctx, ast.Store) else reads).add(node.attr)
    return reads - own


def test_no_job_reads_an_attribute_it_was_not_given(qtbot):
    for name, cls in _job_classes(qtbot).items():
        assert _read_but_not_given(cls) == set(), f"{name} ({cls.__name__})"
        parameters = set(inspect.signature(cls.__init__).parameters)
        assert "controller" not in parameters and "host" not in parameters, name


def test_the_check_sees_a_read_of_the_host_a_mixin_would_make():
    class Mixin:
        def __init__(self, model):
            self.model = model

        def run(self):
            self.model.set_time(0.0)
            self.request_frame()  # the host's: not given

    assert _read_but_not_given(Mixin) == {"request_frame"}
