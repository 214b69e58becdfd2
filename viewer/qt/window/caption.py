"""The canvas's caption bar and lesson figure: a lesson step's caption (or, in lecture mode,
the state in words) with the keys under it, and an experiment's figure drawn over the view."""

from __future__ import annotations

from viewer.lessons.facts import fill_caption, lesson_facts
from viewer.qt.panels.stepper import caption_words
from viewer.qt.window.lecture import KEYS_LESSON_DESK
from viewer.render.lecture import figure_image


class CanvasCaption:
    """The caption and figure of ``window`` (a :class:`viewer.qt.main_window.MainWindow`)."""

    def __init__(self, window):
        self.window = window
        self._figure_drawn_for = None  # (result id, view size, scale) of the figure shown

    def state_caption(self) -> str:
        """The current state in words (lecture mode's caption without a lesson)."""
        model = self.window.model
        note = self.window.step_note()
        shown = model.shown_result() if model.frame is not None else None
        words = f"{model.scene_title}: {note}" if note else model.scene_title
        view = self.window.controller.stepper.step_view() if model.is_stepping else None
        if view is not None:
            # While stepping, the contacts found so far: the frame's total contradicted the
            # stepper ("156 pairs touch" at a test where it had found none).
            words += f"; {caption_words(view)}"
        elif shown is not None:
            # "in contact": "touching" is one of the contact kinds (the legend's yellow).
            n = shown.counters.n_contacts
            words += (f"; {n:,} triangle pairs in contact" if n else
                      "; no triangle pairs in contact")
        return words + "."

    def refresh(self) -> None:
        """The caption bar: the lesson step's caption (and where in the lesson), or in lecture
        mode the state in words; the keys under it."""
        step = self.window.controller.lessons.lesson_step()
        if step is not None:
            lesson = self.window.controller.lessons.lesson
            # The step's numbers ({volume_tests}, {update_ms}, ...) of the frame shown.
            stepper = self.window.controller.stepper
            caption = fill_caption(step.caption, lesson_facts(
                self.window.model, stepper.step_view() if self.window.model.is_stepping
                else None))
            keys = self.window.lecture.key_hint() if self.window.lecture.is_on else KEYS_LESSON_DESK
            hint = f"{lesson.title}, step {step.number} of {len(lesson)}   ·   {keys}"
        elif self.window.lecture.is_on:
            caption, hint = self.state_caption(), self.window.lecture.key_hint()
        else:
            caption, hint = "", ""
        self.window.renderer.set_caption(caption, hint)

    def update_figure(self) -> None:
        """Draw the lesson's experiment figure over the canvas at the canvas's size (above
        the caption bar), or take it away."""
        result = self.window.controller.lessons.figure
        if result is None:
            self._figure_drawn_for = None
            self.window.renderer.show_figure(None)
            self.window.redraw()
            return
        width, height = (int(x) for x in self.window.plotter.ren_win.GetSize())
        key = (id(result), width, height, self.window.lecture.scale)
        if key != self._figure_drawn_for:
            self.refresh()
            bottom = self.window.renderer.caption_bar.top_px() + 8
            image = figure_image(result, int(0.92 * width),
                                 max(100, int(0.96 * (height - bottom))))
            self.window.renderer.show_figure(image, bottom)
            self._figure_drawn_for = key
        self.window.redraw()
