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
                  say: Callable[[str], None] | None = None) -> dict:
    """Render lesson ``name_or_path`` (a built-in lesson's name or a ``.toml`` file) to
    ``path`` (``.mp4`` or ``.gif``).

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
        n_frames = _render(lesson, writer, tuple(size), fps, say)
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


def _render(lesson: Lesson, writer, size, fps: float, say) -> int:
    import pyvista as pv
    from PyQt6.QtCore import QCoreApplication

    # The controller's timers need an application object, even without an event loop.
    app = QCoreApplication.instance() or QCoreApplication([])  # noqa: F841

    from vtkmodules.vtkCommonCore import vtkLogger

    from viewer.control.lessons import FRAME_DT, experiment_result, has_experiment
    from viewer.controller import Controller
    from viewer.model import ViewerModel
    from viewer.render import SceneRenderer
    from viewer.render.camera import apply_camera, read_camera
    from viewer.render.lecture import figure_image, lecture_scale
    from viewer.render.scene import set_default_view
    from viewer.state.display import CameraView

    # Without a display VTK renders off-screen all the same, after a warning on stderr
    # ("bad X server connection") that would read like a failure among the progress lines.
    vtkLogger.SetStderrVerbosity(vtkLogger.VERBOSITY_ERROR)
    model = ViewerModel()
    controller = Controller(model, is_threaded=False)
    errors: list[str] = []
    model.error.connect(lambda title, text: errors.append(f"{title}: {text}"))
    plotter = pv.Plotter(off_screen=True, window_size=list(size))
    renderer = SceneRenderer(plotter)
    scale = lecture_scale(size[1])
    renderer.set_presentation_scale(scale)
    renderer.set_note_visible(False)

    def on_scene():
        renderer.set_bodies(model.bodies, model.scene_title, model.display.mesh_opacity,
                            model.display.is_full_resolution)
        set_default_view(plotter)

    def on_camera_wanted():
        model.camera = CameraView(**read_camera(plotter))

    model.scene_changed.connect(on_scene)
    model.camera_restored.connect(lambda view: apply_camera(
        plotter, view.position, view.focal_point, view.view_up, view.view_angle,
        view.is_parallel, view.parallel_scale))
    model.camera_wanted.connect(on_camera_wanted)
    n_written = 0

    def draw(hint: str, caption: str) -> None:
        step_view = controller.stepper.step_view() if model.is_stepping else None
        renderer.update_frame(model.frame, model.display, model.level, step=step_view)
        renderer.set_caption(caption, hint)
        plotter.render()

    def emit(n: int = 1) -> None:
        nonlocal n_written
        from viewer.render.movie import grab_frame

        image = grab_frame(plotter)
        for _ in range(max(1, n)):
            writer.append(image)
        n_written += max(1, n)

    try:
        plotter.show(auto_close=False, interactive=False)
        controller.lessons.lesson = lesson
        for index, step in enumerate(lesson.steps):
            say(f"step {index + 1} of {len(lesson)}: {step.caption[:60]}"
                f"{'…' if len(step.caption) > 60 else ''}")
            if not controller.lessons.go_to_step(index, run_actions=False):
                raise LessonVideoError(f"{lesson.path.name} step {index + 1}: "
                                       + (errors[-1] if errors else "cannot be applied"))
            hint = f"{lesson.title}   ·   step {index + 1} of {len(lesson)}"
            hold = max(1, round(step.hold * fps))
            draw(hint, step.caption)
            for _ in range(step.play_frames):
                model.set_time(model.t + FRAME_DT)
                controller.frames.step_sync()
                draw(hint, step.caption)
                emit()
            if step.step_pairs is not None:
                controller.stepper.start_stepper()
                target = min(step.step_pairs, max(0, controller.stepper.n_steps() - 1))
                shown = sorted({round(target * k / MAX_PAIR_FRAMES)
                                for k in range(MAX_PAIR_FRAMES + 1)}) if target else [0]
                for position in shown[:-1]:
                    controller.stepper.step_to(position)
                    draw(hint, step.caption)
                    emit(max(1, round(PAIR_SECONDS * fps)))
                controller.stepper.step_to(target)
                if step.step_until is not None:
                    draw(hint, step.caption)
                    emit(max(1, round(PAIR_SECONDS * fps)))
                    controller.stepper.step_run_to(step.step_until)
                draw(hint, step.caption)
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
                draw(hint, step.caption)
                bottom = renderer.caption_bar.top_px() + 8
                renderer.show_figure(figure_image(
                    result, int(0.92 * size[0]), max(60, int(0.96 * (size[1] - bottom)))),
                    bottom)
                plotter.render()
            emit(hold)
            renderer.show_figure(None)
    finally:
        plotter.close()
        controller.shutdown()
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
