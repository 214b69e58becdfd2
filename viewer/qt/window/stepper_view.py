"""The window's side of the traversal stepper: its keys (Stepper menu), the docks and mesh
opacity while stepping, the pair kept readable on the canvas, and the canvas note.

The stepper itself is the controller's job (:mod:`viewer.control.stepping`); the Stepper dock
(:mod:`viewer.qt.panels.stepper`) shows its step. This part ties the two to the window's
actions, layout and canvas.
"""

from __future__ import annotations

from viewer.qt.panels.levels import level_text, tree_depth_text
from viewer.qt.panels.stepper import position_text
from viewer.qt.window import layout

STEP_MESH_OPACITY = 0.25
"""Most mesh opacity while the traversal stepper is on (the display's own comes back when it
is turned off)."""

MIN_PAIR_SHARE = 0.1
"""In lecture mode the stepper's pair is framed when it spans less than this share of the
view's height (Stepper > Frame the pair does it at any size)."""


class StepperView:
    """The stepper's keys, docks and canvas in ``window`` (a
    :class:`viewer.qt.main_window.MainWindow` whose docks, renderer and lecture mode are
    made). :meth:`bind_actions` takes the Stepper menu's actions once they exist."""

    def __init__(self, window):
        self.window = window
        self.model = window.model
        self.controller = window.controller
        self._panel = window.docks["stepper_dock"].panel
        self._was_stepping = False
        self._framed_pair = None  # (steps id, position, lesson, lecture) last followed
        self.toggle_action = None
        self.actions = {}

    def bind_actions(self, toggle_action, step_actions: dict) -> None:
        """Take the Stepper menu's entries: Ctrl+T and the step keys (by the rest of their
        id: ``"restart"``, ``"forward"``, ...)."""
        self.toggle_action = toggle_action
        self.actions = step_actions
        self.actions["restart"].setEnabled(True)  # Home also turns the stepper on
        self.sync_actions()

    def toggle(self) -> None:
        """Ctrl+T: the stepper on (raising its dock) or off."""
        if self.model.is_stepping:
            self.controller.stepper.stop_stepper()
        else:
            self.window.docks["stepper_dock"].raise_()
            self.controller.stepper.start_stepper()

    def step_key(self, key: str) -> None:
        """A stepper key (Stepper menu): Home also turns the stepper on."""
        if key == "restart" and not self.model.is_stepping:
            self.window.docks["stepper_dock"].raise_()
        self._panel.press(key)

    def sync_actions(self) -> None:
        """The step keys are enabled only while the stepper is on, so that Left and Right
        still nudge a selected mesh in Move mode otherwise (a disabled shortcut lets the key
        through to the canvas)."""
        is_on = self.model.is_stepping
        self.toggle_action.setChecked(is_on)
        has_steps = is_on and self.model.steps is not None
        for key, action in self.actions.items():
            action.setEnabled(key == "restart" or has_steps)

    def mesh_opacity(self, opacity: float) -> float:
        """The meshes' opacity: the display's, at most :data:`STEP_MESH_OPACITY` while
        stepping."""
        return min(opacity, STEP_MESH_OPACITY) if self.model.is_stepping else opacity

    def on_stepper(self) -> None:
        """The stepper turned on or off, or moved: keys, docks, mesh opacity, redraw."""
        self.sync_actions()
        is_stepping = self.model.is_stepping
        if is_stepping and not self._was_stepping and not self.window.lecture.is_on:
            # Turned on (a key, the dock, a lesson): the step and its pseudo-code in view.
            layout.show_stepper_docks(self.window)
        self._was_stepping = is_stepping
        # The axis and the intervals run through the pair, inside the meshes: fainter meshes
        # while stepping let them show (measured on the two-spheres screenshot: at 0.55 the
        # intervals inside the spheres were barely visible).
        self.window.renderer.set_mesh_opacity(self.mesh_opacity(self.model.display.mesh_opacity))
        self.window.redraw()

    def follow_pair(self) -> None:
        """Keep the stepper's pair readable without a key: in a lesson it is framed at every
        new pair (the camera keeps the direction the lesson gave it); in lecture mode when it
        is smaller than :data:`MIN_PAIR_SHARE` of the view's height or off the view (at test
        1,410 of Two spheres it was a 40 px speck of a 800 px projector view)."""
        if not self.model.is_stepping or self.model.steps is None:
            self._framed_pair = None
            return
        in_lesson = self.controller.lessons.lesson is not None
        is_lecture = self.window.lecture.is_on
        key = (id(self.model.steps), self.model.step_position, in_lesson, is_lecture)
        if key == self._framed_pair:
            return
        self._framed_pair = key
        if in_lesson or (is_lecture and not self._is_pair_readable()):
            self.controller.stepper.frame_new_pair()

    def _is_pair_readable(self) -> bool:
        """Whether the stepper's pair spans at least :data:`MIN_PAIR_SHARE` of the view's
        height (or width) with its centre in the view."""
        bounds = self.controller.stepper.pair_bounds()
        if bounds is None:
            return True
        x0, y0, x1, y1 = self.window.renderer.box_on_screen(*bounds)
        width, height = self.window.plotter.renderer.GetSize()
        is_in_view = 0 <= 0.5 * (x0 + x1) <= width and 0 <= 0.5 * (y0 + y1) <= height
        return is_in_view and max(x1 - x0, y1 - y0) >= MIN_PAIR_SHARE * height

    def on_step_mode(self, is_on: bool) -> None:
        if is_on and self.model.is_stepping:
            self.controller.stepper.stop_stepper()  # the level step mode and the stepper exclude
        self.window.redraw()

    def step_note(self) -> str:
        """Canvas note: the stepper's position, the step-mode sentence, or the current
        level."""
        model = self.model
        levels = self.window.docks["levels_dock"].panel
        if model.is_stepping:
            view = self.controller.stepper.step_view()
            if view is None:
                return "stepper: " + (model.steps_note or "preparing the pair tests…")
            return f"stepper: {position_text(view)}"
        if model.is_step_mode:
            sentence = levels.current_sentence()
            found = self.controller.stepper.level_contact_ids(model.frame, model.level)
            result = model.shown_result()
            if found is not None and result is not None:
                # Only these are drawn: the frame's total would contradict the picture.
                sentence += (f" Contacts found by the end of this level: {found.shape[0]:,} "
                             f"of {result.counters.n_contacts:,}.")
            return sentence
        n = model.n_levels()
        if n == 0:
            return ""
        if model.level is None:
            return f"all {n} traversal levels; every tree depth"
        frame = model.frame
        depths = [tree_depth_text(frame, i, model.level) for i in range(len(frame.trees))]
        where = (f"boxes at {depths[0][3:]}" if len(set(depths)) == 1 else
                 f"boxes of A {depths[0]}, of B {depths[1]}")
        return f"{level_text(model.level, n)}; {where}"
