"""Play a lesson off-screen and check what each step states (its ``expect`` table): the
test of every built-in lesson, and a lesson writer's check of their own.

Each step is applied through the controller as lecture mode applies it (its actions run:
frames played, the traversal stepped), drawn by the off-screen renderer at the lecture
size (its caption must fit the caption bar there, uncut), and its facts
(:func:`viewer.lessons.facts.lesson_facts`) and drawn overlays compared with its
``expect``. An experiment's figure is not run here: the step only asks for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from viewer.lessons import Lesson, load_lesson
from viewer.lessons.facts import drawn_boxes, unmet_expectations, visible_names

CHECK_SIZE = (1280, 800)
"""Window size the check draws at (lecture mode at 1280x800, the smaller projector)."""


@dataclass
class StepReport:
    """One step as played: its number, caption as shown, facts, what was drawn, the boxes
    drawn, and what of its ``expect`` did not hold (empty: all of it)."""

    number: int
    caption: str
    facts: dict
    visible: set
    boxes: int
    unmet: list = field(default_factory=list)
    image: object = None  # (h, w, 3) uint8 when pictures were asked for
    caption_rows: int = 0  # rows of the picture's bottom the caption bar takes


def play_lesson(name_or_lesson, size=CHECK_SIZE, before=None, pictures: bool = False,
                close: bool = True) -> list[StepReport]:
    """Play every step of a lesson (a built-in name, a ``.toml`` path or a
    :class:`~viewer.lessons.Lesson`) off-screen and report each.

    Parameters
    ----------
    size : (int, int)
        The picture's ``(width, height)``.
    before : callable, optional
        ``before(controller)`` runs first: the state the lesson is opened from (another
        lesson played, overlays the user toggled, ...).
    pictures : bool
        Keep each step's picture (``StepReport.image``).
    close : bool
        Close the lesson at the end (the user's settings come back).
    """
    from viewer.offscreen.lesson_video import OffscreenLesson
    from viewer.render.movie import grab_frame

    lesson = name_or_lesson if isinstance(name_or_lesson, Lesson) else load_lesson(
        name_or_lesson)
    reports = []
    with OffscreenLesson(size) as player:
        controller = player.controller
        asked: list = []
        controller.lessons.run_experiment_figure = (
            lambda name, sizes=(): asked.append(name) or True)
        if before is not None:
            before(controller)
        player.errors.clear()
        lessons = controller.lessons
        if not lessons.open_lesson(str(lesson.path)):
            raise ValueError(player.errors[-1] if player.errors else f"{lesson.path}: "
                             "cannot be opened")
        for index, step in enumerate(lesson.steps):
            if index and not lessons.next_step():
                raise ValueError(f"{lesson.path.name} step {index + 1}: "
                                 + (player.errors[-1] if player.errors else "not reached"))
            caption = player.caption(step)
            hint = f"{lesson.title}   ·   step {index + 1} of {len(lesson)}"
            player.draw(hint, caption)
            counts = player.renderer.cell_count
            facts = player.facts()
            unmet = unmet_expectations(step.expect, facts, counts)
            shown = " ".join(player.renderer.caption_bar.lines(size[0]))
            if shown != caption:
                unmet.append(f"caption: cut to {shown[-40:]!r} at {size[0]}x{size[1]}; say it "
                             "in fewer words")
            if step.experiment is not None and step.experiment.name not in asked:
                unmet.append(f"experiment: the {step.experiment.name} figure was not asked for")
            unmet.extend(player.errors)
            player.errors.clear()
            reports.append(StepReport(step.number, caption, facts, visible_names(counts),
                                      drawn_boxes(counts), unmet,
                                      grab_frame(player.plotter) if pictures else None,
                                      player.renderer.caption_bar.top_px()))
        if close:
            lessons.close_lesson()
    return reports


def lesson_problems(name_or_lesson, size=CHECK_SIZE) -> list[str]:
    """Every unmet expectation of a lesson, as ``"step N: ..."`` lines (empty: it holds)."""
    return [f"step {report.number}: {line}" for report in play_lesson(name_or_lesson, size)
            for line in report.unmet]
