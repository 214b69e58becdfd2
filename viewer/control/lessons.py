"""Lessons: open a lesson file, go to a step, apply it to the model, save the current state
as a new step.

Going to step *i* applies the state the steps 1..*i* build up (the last scene opened, the
choices and level set since, the camera set since that scene), so Previous shows what a
student saw the first time; only step *i*'s own actions run (play frames, step the
traversal, show an experiment's figure). The actions start on the first frame of the new
state: the stepper walks the frame it is shown.

A lesson plays the same from any prior state: its first step starts from
:data:`LESSON_START` (every setting and overlay a step does not set has this documented
default, listed in docs/lessons.md), so what the user had on before does not leak
into it; closing the lesson gives the user's settings back (:class:`UserSettings`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
from PyQt6.QtCore import QObject, pyqtSignal

from core.files.safe_write import replace_file
from core.pose import Pose
from viewer.lessons import Lesson, LessonError, LessonStep, load_lesson, parse_lesson
from viewer.lessons.reading import read_lesson_text
from viewer.lessons.views import named_camera
from viewer.lessons.writing import lesson_with_step, step_text
from viewer.scenes import SCENES
from viewer.state.display import DEFAULT_LEVEL, CameraView, Display
from viewer.state.pipeline import PipelineChoice, UpdateChoice

FRAME_DT = 1.0 / 30.0
"""Animation time of one played frame (the window's 30 Hz clock)."""

BOX_OVERLAYS = ("show_tree_a", "show_tree_b", "show_overlap")
"""Display switches a step's ``boxes`` turns on or off together."""

CHOICE_KEYS = ("bv", "split", "obb_fit", "descend", "partition")
"""Step keys that are pipeline choices of the same name in the model."""


class LessonSignals(QObject):
    """What the lesson job announces (the Lessons menu, lecture mode and the canvas listen).

    ``lesson_changed(Lesson or None)``, ``step_changed(int or None)`` (0 for step 1),
    ``figure_changed(result or None)``: an experiment's result to show over the canvas
    (it has ``draw(figure)``, ``title`` and ``caption``).
    """

    lesson_changed = pyqtSignal(object)
    step_changed = pyqtSignal(object)
    figure_changed = pyqtSignal(object)


LESSON_PIPELINE_KEYS = ("bv", "split", "obb_fit", "descend", "partition", "update",
                        "drift_threshold", "margin", "distance", "containment")
"""Pipeline choices a lesson fixes at every step (the scene keeps its self-collision)."""

LESSON_START = {
    "choices": {"bv": "aabb", "split": "MIDPOINT", "obb_fit": "SURFACE",
                "descend": "LARGER_VOLUME", "partition": "none"},
    "update": "refit",
    "level": DEFAULT_LEVEL,
    "boxes": True,
    "view": "default",
}
"""What a lesson's first step starts from where the step does not say otherwise: axis-aligned
boxes, midpoint split, surface-fitted OBBs, the larger-volume descent rule, no partition,
refit, level 5 (the level a scene opens at), both trees' boxes and the overlapping pairs
drawn, the scene's default view. Every other overlay and pipeline choice is the app's
default (:data:`LESSON_DISPLAY`, :class:`~viewer.state.pipeline.PipelineChoice`): no
parents, no culled pairs, no heat map, no ghost tree, contacts drawn, the mesh half
transparent; the stepper and step mode off; the animation at time 0 of the scene."""

LESSON_DISPLAY = Display()
"""The overlays of a lesson step other than its ``boxes`` (the app's defaults)."""


@dataclasses.dataclass(frozen=True)
class StepState:
    """The state steps 1..i build up from :data:`LESSON_START`.

    ``played`` is the number of frames the steps before step i played since its scene was
    opened (step i starts at that time of the animation)."""

    source: tuple | None  # ("scene", key) or ("meshes", paths); None: the scene as it is
    scene_param: float | None
    choices: dict
    update: str
    level: object
    boxes: bool
    view: str | None
    camera: object
    played: int = 0


def step_state(lesson: Lesson, index: int) -> StepState:
    """The state after step ``index`` (0 for the first) of ``lesson``."""
    source = scene_param = camera = None
    view = LESSON_START["view"]
    update, level, boxes = LESSON_START["update"], LESSON_START["level"], LESSON_START["boxes"]
    choices: dict = dict(LESSON_START["choices"])
    played = 0
    for number, step in enumerate(lesson.steps[: index + 1]):
        if step.opens_scene:
            source = ("scene", step.scene) if step.scene else ("meshes", step.meshes)
            scene_param, camera, played = None, None, 0  # a new scene: its slider, time 0
            view = LESSON_START["view"]
        if step.scene_param is not None:
            scene_param = step.scene_param
        for key in CHOICE_KEYS:
            if getattr(step, key) is not None:
                choices[key] = getattr(step, key)
        if step.update is not None:
            update = step.update
        if step.level is not None:
            level = step.level
        if step.boxes is not None:
            boxes = step.boxes
        if step.view is not None:
            view, camera = step.view, None
        if step.camera is not None:
            view, camera = None, step.camera
        if number < index:
            played += step.play_frames
    return StepState(source, scene_param, choices, update, level, boxes, view, camera, played)


@dataclasses.dataclass(frozen=True)
class UserSettings:
    """What the user had set before a lesson opened, given back when it closes."""

    pipeline: PipelineChoice
    display: Display
    level: object
    is_step_mode: bool

    @classmethod
    def of(cls, model) -> UserSettings:
        return cls(model.pipeline, model.display, model.level, model.is_step_mode)


class LessonPlaying:
    """The controller's lesson job: ``open_lesson``, ``close_lesson``, ``go_to_step``,
    ``next_step``, ``previous_step``, ``save_lesson_step`` and ``run_experiment_figure``.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    frames, scenes, files, animation, stepper
        The jobs a step's actions use: ``request_frame`` / ``step_sync`` / ``is_busy``,
        ``load_scene``, ``load_files``, ``step_time``, ``start_stepper`` / ``step_to`` /
        ``stop_stepper``.
    start_job : callable
        The recording job's ``start_job`` (an experiment figure runs as its job).
    go_live : callable, optional
        The recording job's ``go_live``: a step shows the live frame, not a recorded one
        the timeline was scrubbed to (its played frames would not be shown).
    """

    def __init__(self, model, frames, scenes, files, animation, stepper,
                 start_job, go_live=None) -> None:
        self.model = model
        self._frames = frames
        self._scenes = scenes
        self._files = files
        self._animation = animation
        self._stepper = stepper
        self._start_job = start_job  # the recording job's
        self._go_live = go_live  # the recording job's
        self._user_settings: UserSettings | None = None  # given back by close_lesson
        self.lesson: Lesson | None = None
        self.lesson_index: int | None = None
        self.lesson_signals = LessonSignals()
        self.figure = None  # the experiment result shown over the canvas
        self._lesson_source = None  # the StepState.source the lesson loaded last
        self._pending_step: LessonStep | None = None  # actions waiting for the new frame
        self._frames_left = 0
        self.model.frame_ready.connect(self._on_frame_for_lesson)
        self.model.scene_changed.connect(self._on_scene_for_lesson)

    # -- opening ----------------------------------------------------------------------------
    def open_lesson(self, name_or_path) -> bool:
        """Open a built-in lesson by name or a lesson file and go to its first step. A bad
        file shows one message naming the file, the line and the key; nothing changes."""
        try:
            lesson = load_lesson(name_or_path)
        except LessonError as exc:
            self.model.error.emit("Cannot open lesson", str(exc))
            return False
        if self.lesson is None:
            self._user_settings = UserSettings.of(self.model)
        self.lesson, self.lesson_index = lesson, None
        self._lesson_source = None
        self.lesson_signals.lesson_changed.emit(lesson)
        self.model.message.emit(f"Lesson: {lesson.title} ({len(lesson)} steps). PageDown: "
                                "next step, PageUp: previous.")
        return self.go_to_step(0)

    def close_lesson(self) -> None:
        """Leave the lesson: the scene stays as it is; the pipeline choices (update mode
        included), overlays, level and step mode the user had before it opened come back."""
        was_open = self.lesson is not None
        self.lesson, self.lesson_index = None, None
        self._pending_step, self._frames_left = None, 0
        self.set_figure(None)
        settings, self._user_settings = self._user_settings, None
        if was_open and settings is not None:
            model = self.model
            if model.is_stepping:
                self._stepper.stop_stepper()
            model.set_pipeline(**{key: getattr(settings.pipeline, key)
                                  for key in LESSON_PIPELINE_KEYS})
            model.set_display(**dataclasses.asdict(settings.display))
            model.set_level(settings.level)
            model.set_step_mode(settings.is_step_mode)
        self.lesson_signals.lesson_changed.emit(None)
        self.lesson_signals.step_changed.emit(None)

    def lesson_step(self) -> LessonStep | None:
        """The step shown, or None without a lesson."""
        if self.lesson is None or self.lesson_index is None:
            return None
        return self.lesson.steps[self.lesson_index]

    # -- moving -----------------------------------------------------------------------------
    def next_step(self) -> bool:
        """The next step (False at the last one, which says so)."""
        if self.lesson is None:
            self.model.message.emit("No lesson is open (Lessons menu).")
            return False
        if self.lesson_index is not None and self.lesson_index + 1 >= len(self.lesson):
            self.model.message.emit(f"Last step of '{self.lesson.title}'.")
            return False
        return self.go_to_step(0 if self.lesson_index is None else self.lesson_index + 1)

    def previous_step(self) -> bool:
        """The step before (False at the first)."""
        if self.lesson is None or not self.lesson_index:
            if self.lesson is not None:
                self.model.message.emit("First step of the lesson.")
            return False
        return self.go_to_step(self.lesson_index - 1)

    def go_to_step(self, index: int, run_actions: bool = True) -> bool:
        """Apply step ``index`` (0 for the first): its state, then (``run_actions``) its
        actions once its first frame is there. False (and the scene as it was) if its scene
        cannot be opened. The video export runs the actions itself (``run_actions=False``)."""
        if self.lesson is None or not 0 <= index < len(self.lesson):
            return False
        if not self.apply_step_state(index):
            return False
        self.lesson_index = index
        step = self.lesson.steps[index]
        self.set_figure(None)
        self.lesson_signals.step_changed.emit(index)
        self._pending_step, self._frames_left = (step if run_actions else None), 0
        if self._frames.is_threaded:
            self._frames.request_frame()
        else:
            self._frames.step_sync()
        return True

    def apply_step_state(self, index: int) -> bool:
        """Put the state of steps 1..``index`` into the model (no actions): every setting
        and overlay a lesson fixes, from :data:`LESSON_START` where no step set it."""
        state = step_state(self.lesson, index)
        model = self.model
        model.set_playing(False)
        if self._go_live is not None:
            self._go_live()  # played frames and the stepper work on the live frame
        if model.is_stepping:
            self._stepper.stop_stepper()
        model.set_step_mode(False)
        if state.source is not None and (state.source != self._lesson_source
                                         or not model.bodies):
            kind, what = state.source
            is_loaded = (self._scenes.load_scene(what, wait=True) if kind == "scene"
                         else self._files.load_files([str(p) for p in what], replace_scene=True))
            if not is_loaded:
                return False
            self._lesson_source = state.source
            model.set_playing(False)
        if state.scene_param is not None:
            model.set_scene_param_value(state.scene_param)
        defaults = PipelineChoice()
        changes = {key: getattr(defaults, key) for key in LESSON_PIPELINE_KEYS}
        changes.update(state.choices)
        changes["update"] = UpdateChoice(state.update)
        model.set_pipeline(**changes)
        model.set_time(state.played * FRAME_DT)
        model.set_level(None if state.level == "all" else int(state.level))
        model.set_display(**dict(dataclasses.asdict(LESSON_DISPLAY),
                                 **dict.fromkeys(BOX_OVERLAYS, state.boxes)))
        camera = state.camera
        if camera is not None:
            angle = camera.view_angle if camera.view_angle is not None else 30.0
            model.restore_camera(CameraView(camera.position, camera.focal_point, camera.up,
                                            angle))
        elif state.view is not None and model.bodies:
            position, focal, up, angle = named_camera(state.view, self._world_points())
            model.restore_camera(CameraView(position, focal, up, angle))
        return True

    def _world_points(self) -> np.ndarray:
        """``(n, 3) float64`` every shown body's rest vertices at its pose (a named view
        frames them)."""
        parts = [Pose.from_matrix(b.pose).apply(np.asarray(b.rest.vertices))
                 for b in self.model.bodies if b.is_visible]
        return np.concatenate(parts) if parts else np.zeros((1, 3))

    def _on_scene_for_lesson(self) -> None:
        """A scene the lesson did not open (File menu, a session): the next step reloads
        its own."""
        if self.model.scene_key is None or self._lesson_source != ("scene",
                                                                    self.model.scene_key):
            self._lesson_source = None

    def _on_frame_for_lesson(self, frame) -> None:
        """The actions of the step just applied, once its first frame is there."""
        if frame is None:
            return
        if self._frames_left > 0:
            self._frames_left -= 1
            if self._frames_left > 0:
                self._animation.step_time(FRAME_DT)
                return
            # The last played frame: the step's other actions run on it.
        step = self._pending_step
        if step is None or (self._frames.is_threaded and self._frames.is_busy):
            return
        self._pending_step = None
        if step.play_frames:
            self._frames_left = step.play_frames
            self._pending_step = dataclasses.replace(step, play_frames=0)
            self._animation.step_time(FRAME_DT)
            return
        if step.step_pairs is not None:
            self._stepper.start_stepper()
            self._stepper.step_to(step.step_pairs)
            if step.step_until is not None:
                self._stepper.step_run_to(step.step_until)
            # The pair the caption talks about, framed: a few levels deep it was a speck
            # (tandem lesson step 5, in the window and in exported videos alike).
            self._stepper.frame_new_pair()
        if step.experiment is not None:
            self.run_experiment_figure(step.experiment.name, step.experiment.sizes)

    # -- experiments ------------------------------------------------------------------------
    def set_figure(self, result) -> None:
        """Show an experiment's result over the canvas (None: hide it)."""
        self.figure = result
        self.lesson_signals.figure_changed.emit(result)

    def run_experiment_figure(self, name: str, sizes=()) -> bool:
        """Run experiment ``name`` with ``sizes`` (empty: its quick sizes) in the job thread
        with progress and Cancel; its figure is then shown over the canvas."""
        try:
            from core.experiments import EXPERIMENTS, Progress
        except ImportError:
            self.model.error.emit("Cannot show the experiment",
                                  "this build of BVH Lab has no experiments")
            return False
        if name not in EXPERIMENTS:
            self.model.error.emit("Cannot show the experiment", f"this build of BVH Lab has "
                                  f"no {name!r} experiment (it has {', '.join(EXPERIMENTS)})")
            return False
        sizes = tuple(sizes) or quick_sizes(name)
        index = self.lesson_index

        def work(progress, cancelled):
            def report(done, total, _what):
                if cancelled():
                    tracker.cancel()
                progress(done, total)

            tracker = Progress(report)
            return experiment_result(name, sizes, tracker)

        def done(result, error):
            if error is None and self.lesson_index == index:
                self.set_figure(result)
            elif error is not None and type(error).__name__ not in ("Cancelled",
                                                                      "JobCancelled"):
                self.model.error.emit("Experiment failed", f"{name}: {error}")

        return self._start_job(f"Running the {name} experiment", work, done)

    # -- saving -----------------------------------------------------------------------------
    def current_step_values(self, caption: str) -> tuple[dict, dict | None]:
        """``(values, camera)`` of a lesson step that brings back the state now (see
        :func:`viewer.lessons.writing.step_text`). Raises ValueError without a built-in
        scene (meshes opened from files have no path a lesson could name)."""
        model = self.model
        if model.scene_key is None or model.scene_key not in SCENES:
            raise ValueError("only a built-in scene can be saved as a lesson step; open one "
                             "from File > Built-in scenes")
        pipeline = model.pipeline
        values = {"caption": " ".join(caption.split()), "scene": model.scene_key,
                  "bv": pipeline.bv, "split": pipeline.split.lower(),
                  "obb_fit": pipeline.obb_fit.lower(), "descend": pipeline.descend.lower(),
                  "update": pipeline.update.value, "partition": pipeline.partition,
                  "level": "all" if model.level is None else int(model.level)}
        shown = [getattr(model.display, name) for name in BOX_OVERLAYS]
        if len(set(shown)) == 1:  # mixed switches have no word in a lesson: left as they are
            values["boxes"] = bool(shown[0])
        if SCENES[model.scene_key].param is not None:
            values["scene_param"] = float(model.scene_param_value)
        view = model.read_camera()
        camera = None if view is None else {
            "position": [float(x) for x in view.position],
            "focal_point": [float(x) for x in view.focal_point],
            "up": [float(x) for x in view.view_up], "view_angle": float(view.view_angle)}
        return values, camera

    def save_lesson_step(self, path, caption: str, title: str = "") -> bool:
        """Append a step with the current scene, choices, level, update mode, camera and
        ``caption`` to the lesson file ``path`` (a new lesson called ``title`` if it does not
        exist). The file is checked before and after: a broken lesson is not written to."""
        path = Path(path)
        if not caption.strip():
            self.model.error.emit("Cannot save the lesson step", "the caption is empty: say "
                                  "what this step shows")
            return False
        try:
            values, camera = self.current_step_values(caption)
            existing = read_lesson_text(path) if path.exists() else None
            if existing is not None:
                parse_lesson(existing, path)
            text = lesson_with_step(existing, title or path.stem.replace("-", " "),
                                    step_text(values, camera))
            lesson = parse_lesson(text, path)
            replace_file(path, lambda stream: stream.write(text.encode("utf-8")))
        except LessonError as exc:
            self.model.error.emit("Cannot save the lesson step", str(exc))
            return False
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            self.model.error.emit("Cannot save the lesson step", f"{path}: {reason}")
            return False
        self.model.message.emit(f"Saved step {len(lesson)} of {path.name}")
        return True


def has_experiment(name: str) -> bool:
    """This build runs experiment ``name``."""
    try:
        from core.experiments import EXPERIMENTS
    except ImportError:
        return False
    return name in EXPERIMENTS


def quick_sizes(name: str) -> tuple:
    """The sizes experiment ``name`` runs in seconds (empty if there is no such
    experiment)."""
    try:
        from core.experiments import EXPERIMENTS
    except ImportError:
        return ()
    experiment = EXPERIMENTS.get(name)
    return () if experiment is None else tuple(experiment.quick_sizes)


def experiment_result(name: str, sizes, progress=None):
    """Run experiment ``name`` with ``sizes`` on the calling thread and return its result
    (``draw(figure)``, ``title``, ``caption``, ``reading``)."""
    from core.experiments import ExperimentOptions, run_experiment

    return run_experiment(name, ExperimentOptions(sizes=tuple(sizes)), progress)
