"""``python -m viewer --lesson NAME --export FILE.mp4`` (or ``.gif``): a lesson rendered
off-screen to a video, step by step.

Each step is drawn as lecture mode draws it (large text, the caption bar with the step's
caption) through the same controller and render layer as the window, one frame at a time
with no event loop: the step's still is held ``hold`` seconds, played frames become video
frames, the traversal stepper's pair tests are shown one after the other, and an
experiment's figure is a still over the view. Progress goes to stderr, one line per step,
with control characters of the lesson's text escaped (a caption cannot retitle or recolour
the terminal).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from viewer.control.error_log import printable
from viewer.lessons import Lesson, LessonError, load_lesson

DEFAULT_SIZE = (1280, 720)
"""Video size: 720p, what slides and course pages embed."""

DEFAULT_FPS = 15.0
"""Frames per second: played frames run at half the app's 30 Hz clock, smooth enough, and a
held step costs half the frames (a GIF of a lesson stays a few MB)."""

MAX_PAIR_FRAMES = 24
"""At most this many pair tests of the stepper are shown on the way to the step's pair
(evenly spaced); each is held :data:`PAIR_SECONDS`."""

PAIR_SECONDS = 0.25


class LessonVideoError(ValueError):
    """A lesson that cannot be exported: one line naming the lesson, file or option."""


def parse_size(text: str) -> tuple[int, int]:
    """``"WIDTHxHEIGHT"`` -> ``(width, height)``; ValueError naming the option."""
    try:
        width, height = (int(part) for part in str(text).lower().split("x"))
    except ValueError:
        raise LessonVideoError(f"--size {text!r}: write WIDTHxHEIGHT, e.g. 1280x720") from None
    if not (16 <= width <= 7680 and 16 <= height <= 4320):
        raise LessonVideoError(f"--size {text}: each side from 16 to 7680x4320 pixels")
    return width, height


def export_lesson(name_or_path, path, size=DEFAULT_SIZE, fps: float = DEFAULT_FPS,
                  say: Callable[[str], None] | None = None, on_frame=None) -> dict:
    """Render lesson ``name_or_path`` (a built-in lesson's name or a ``.toml`` file) to
    ``path`` (``.mp4`` or ``.gif``). A step's caption is drawn once its state is reached;
    the frames on the way to it (frames played, pair tests stepped) say where the picture
    is (:func:`transit_caption`). ``on_frame(record)``, optional, is told of every frame
    written (see :func:`_render`).

    Returns
    -------
    dict
        ``{"path", "lesson", "steps", "frames", "size", "fps"}``.

    Raises
    ------
    LessonVideoError
        A bad lesson, path, size or fps, a scene that cannot be opened, or an experiment
        that cannot run (one line).
    """
    from viewer.render.movie import MovieError, MovieWriter, check_movie_path

    say = say or (lambda text: print(printable(text), file=sys.stderr, flush=True))
    try:
        lesson = load_lesson(name_or_path)
        check_movie_path(path)
        writer = MovieWriter(path, fps=fps, size=tuple(size))
    except (LessonError, MovieError) as exc:
        raise LessonVideoError(str(exc)) from None
    try:
        n_frames = _render(lesson, writer, tuple(size), fps, say, on_frame)
        out = writer.close()
    except MovieError as exc:
        writer.abort()
        raise LessonVideoError(str(exc)) from None
    except BaseException:
        writer.abort()
        raise
    say(f"wrote {out} ({n_frames} frames, {n_frames / fps:.1f} s)")
    return {"path": str(out), "lesson": lesson.title, "steps": len(lesson), "frames": n_frames,
            "size": tuple(size), "fps": fps}


def transit_caption(what: str, done: int, total: int) -> str:
    """The caption of a video frame on the way to a step's state (frames played, pair tests
    stepped): the step's own caption describes the state reached, so it waits for it."""
    return f"{what} {done:,} of {total:,}…"


class OffscreenLesson:
    """A controller, a model and an off-screen renderer drawing as lecture mode draws at
    ``size`` ``(width, height)``: what the video export and the lesson check play lessons
    on, one frame at a time with no event loop. Use as a context manager (it closes the
    plotter and stops the controller)."""

    def __init__(self, size) -> None:
        import pyvista as pv
        from PyQt6.QtCore import QCoreApplication
        from vtkmodules.vtkCommonCore import vtkLogger

        from viewer.controller import Controller
        from viewer.model import ViewerModel
        from viewer.render import SceneRenderer
        from viewer.render.camera import apply_camera, read_camera
        from viewer.render.lecture import lecture_scale
        from viewer.render.scene import set_default_view

        # The controller's timers need an application object, even without an event loop.
        self._app = QCoreApplication.instance() or QCoreApplication([])
        # Without a display VTK renders off-screen all the same, after a warning on stderr
        # ("bad X server connection") that would read like a failure among progress lines.
        vtkLogger.SetStderrVerbosity(vtkLogger.VERBOSITY_ERROR)
        self.size = tuple(size)
        self.model = model = ViewerModel()
        self.controller = Controller(model, is_threaded=False)
        self.errors: list[str] = []
        model.error.connect(lambda title, text: self.errors.append(f"{title}: {text}"))
        self.plotter = plotter = pv.Plotter(off_screen=True, window_size=list(size))
        self.renderer = renderer = SceneRenderer(plotter)
        renderer.set_presentation_scale(lecture_scale(size[1]))
        renderer.set_note_visible(False)

        def on_scene():
            renderer.set_bodies(model.bodies, model.scene_title, model.display.mesh_opacity,
                                model.display.is_full_resolution)
            set_default_view(plotter)

        def on_camera_wanted():
            model.camera = read_camera(plotter)

        model.scene_changed.connect(on_scene)
        model.camera_restored.connect(lambda view: apply_camera(plotter, view))
        model.camera_wanted.connect(on_camera_wanted)
        plotter.show(auto_close=False, interactive=False)

    def step_view(self):
        return self.controller.stepper.step_view() if self.model.is_stepping else None

    def facts(self) -> dict:
        """:func:`viewer.lessons.facts.lesson_facts` of the state now."""
        from viewer.lessons.facts import lesson_facts

        return lesson_facts(self.model, self.step_view())

    def caption(self, step) -> str:
        """``step``'s caption with its numbers filled in from the frame shown."""
        from viewer.lessons.facts import fill_caption

        return fill_caption(step.caption, self.facts())

    def draw(self, hint: str, caption: str) -> None:
        """Draw the state now with ``caption`` and ``hint`` in the caption bar."""
        model = self.model
        # The meshes were made when the scene opened, perhaps before the step set its
        # overlays: their opacity follows the display as the window's do.
        self.renderer.set_mesh_opacity(model.display.mesh_opacity)
        # The caption first: the legend places itself clear of the caption bar as it was
        # last placed (drawn after it, the legend sat over the caption in exported frames).
        self.renderer.set_caption(caption, hint)
        self.renderer.update_frame(model.frame, model.display, model.level,
                                   step=self.step_view())
        self.plotter.render()

    def close(self) -> None:
        self.plotter.close()
        self.controller.shutdown()

    def __enter__(self) -> OffscreenLesson:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _render(lesson: Lesson, writer, size, fps: float, say, on_frame=None) -> int:
    """Write ``lesson``'s frames to ``writer``; ``on_frame(record)`` (optional) is told of
    each frame written: ``{"step", "caption", "is_reached", "t", "position"}`` (the
    stepper's pair, None when off), so a test can check each frame's caption against its
    state."""
    from viewer.control.lessons import FRAME_DT, experiment_result, has_experiment
    from viewer.render.lecture import figure_image
    from viewer.render.movie import grab_frame

    n_written = 0
    with OffscreenLesson(size) as player:
        model, controller, renderer = player.model, player.controller, player.renderer
        shown = {"caption": "", "step": None, "is_reached": False}

        def draw(hint: str, caption: str, index: int, is_reached: bool) -> None:
            player.draw(hint, caption)
            shown.update(caption=caption, step=index, is_reached=is_reached)

        def emit(n: int = 1) -> None:
            nonlocal n_written
            image = grab_frame(player.plotter)
            for _ in range(max(1, n)):
                writer.append(image)
                if on_frame is not None:
                    on_frame(dict(shown, t=float(model.t), position=model.step_position))
            n_written += max(1, n)

        controller.lessons.lesson = lesson
        for index, step in enumerate(lesson.steps):
            say(f"step {index + 1} of {len(lesson)}: {step.caption[:60]}"
                f"{'…' if len(step.caption) > 60 else ''}")
            if not controller.lessons.go_to_step(index, run_actions=False):
                raise LessonVideoError(f"{lesson.path.name} step {index + 1}: "
                                       + (player.errors[-1] if player.errors
                                          else "cannot be applied"))
            hint = f"{lesson.title}   ·   step {index + 1} of {len(lesson)}"
            hold = max(1, round(step.hold * fps))
            # On the way to the step's state (frames played, pair tests stepped) the caption
            # says where the picture is; the step's own caption comes with its state.
            for played in range(1, step.play_frames + 1):
                model.set_time(model.t + FRAME_DT)
                controller.frames.step_sync()
                draw(hint, transit_caption("Playing the animation: frame", played,
                                           step.play_frames), index, False)
                emit()
            if step.step_pairs is not None:
                controller.stepper.start_stepper()
                target = min(step.step_pairs, max(0, controller.stepper.n_steps() - 1))
                stops = sorted({round(target * k / MAX_PAIR_FRAMES)
                                for k in range(MAX_PAIR_FRAMES + 1)}) if target else [0]
                for position in stops[:-1]:
                    controller.stepper.step_to(position)
                    draw(hint, transit_caption("Stepping the traversal: pair test",
                                               position + 1, target + 1), index, False)
                    emit(max(1, round(PAIR_SECONDS * fps)))
                controller.stepper.step_to(target)
                if step.step_until is not None:
                    draw(hint, transit_caption("Stepping the traversal: pair test",
                                               target + 1, target + 1) + " on to the next "
                         + step.step_until.replace("_", " "), index, False)
                    emit(max(1, round(PAIR_SECONDS * fps)))
                    controller.stepper.step_run_to(step.step_until)
            draw(hint, player.caption(step), index, True)
            if step.experiment is not None and not has_experiment(step.experiment.name):
                say(f"  this build of BVH Lab has no {step.experiment.name!r} experiment: "
                    "the step is shown without its figure")
            elif step.experiment is not None:
                sizes = step.experiment.sizes or _quick_sizes(step.experiment.name)
                say(f"  running the {step.experiment.name} experiment (sizes "
                    f"{', '.join(str(s) for s in sizes)})")
                try:
                    result = experiment_result(step.experiment.name, sizes)
                except (ImportError, ValueError) as exc:
                    raise LessonVideoError(f"{lesson.path.name} step {index + 1}: experiment "
                                           f"{step.experiment.name!r}: {exc}") from None
                bottom = renderer.caption_bar.top_px() + 8
                renderer.show_figure(figure_image(
                    result, int(0.92 * size[0]), max(60, int(0.96 * (size[1] - bottom)))),
                    bottom)
                player.plotter.render()
            emit(hold)
            renderer.show_figure(None)
    return n_written


def _quick_sizes(name: str) -> tuple:
    from viewer.control.lessons import quick_sizes

    return quick_sizes(name)


def main_export(lesson: str, path: str, size_text: str | None, fps: float | None) -> int:
    """``--lesson NAME --export FILE``: 0 written, 2 a bad lesson, file or option (one line
    on stderr)."""
    try:
        size = parse_size(size_text) if size_text else DEFAULT_SIZE
        export_lesson(lesson, path, size, DEFAULT_FPS if fps is None else fps)
    except LessonVideoError as exc:
        print(printable(f"error: {exc}"), file=sys.stderr, flush=True)
        return 2
    return 0
