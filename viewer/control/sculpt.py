"""Brush strokes on a body's rest shape, one undo history per body."""

from __future__ import annotations

import numpy as np

from core.deform import BrushHistory, brush_pull
from core.pose import Pose


class Sculpting:
    """The controller's sculpt job: ``begin_stroke``, ``sculpt``, ``undo_stroke``,
    ``reset_rest``.

    ``model.set_rest`` asks for the next frame. A stroke while a recorded frame is shown goes
    live first, and its end marks the recording.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    recording : viewer.control.recording.FrameRecording
        Its ``go_live_before_editing`` and ``mark_sculpted``.
    body_size : callable
        The pose job's ``body_size`` (the brush scales by it).
    """

    def __init__(self, model, recording, body_size) -> None:
        self.model = model
        self._recording = recording
        self._body_size = body_size  # the pose job's
        self._histories: dict[str, BrushHistory] = {}
        self._stroke_sizes: dict[int, float] = {}  # body index -> its size when the stroke began

    def forget_strokes(self) -> None:
        """Drop every body's undo history (the scene was replaced)."""
        self._histories.clear()

    def n_strokes(self, key: str) -> int:
        """How many strokes on the body keyed ``key`` can be undone (0: none, or not sculpted)."""
        history = self._histories.get(key)
        return 0 if history is None else len(history)

    def begin_stroke(self, index: int) -> None:
        """Remember body ``index``'s rest vertices, so the stroke that starts can be undone."""
        self._recording.go_live_before_editing()
        body = self.model.bodies[index]
        self._histories.setdefault(body.key, BrushHistory()).push(body.rest.vertices)
        self._stroke_sizes[index] = self._body_size(index)

    def sculpt(self, index: int, center_world, drag_world) -> None:
        """Pull the rest vertices of body ``index`` near ``center_world`` along ``drag_world``.

        The brush radius is ``model.brush_radius`` times the body's size when the stroke
        began (its bounds took 10 ms of each mouse move on the 278k-triangle bunny, and a
        brush that grew with the pulled shape would not be the brush the user chose).
        """
        body = self.model.bodies[index]
        inv = Pose.from_matrix(body.pose).inverse()
        center = inv.apply(np.asarray(center_world, dtype=np.float64))
        drag = inv.apply_vectors(np.asarray(drag_world, dtype=np.float64))
        size = self._stroke_sizes.get(index)
        radius = self.model.brush_radius * (self._body_size(index) if size is None else size)
        vertices = brush_pull(body.rest.vertices, center, drag, radius,
                              self.model.brush_strength)
        self.model.set_rest(index, body.rest.with_vertices(vertices))

    def end_stroke(self, index: int) -> None:
        """The stroke on body ``index`` ended: the recording marks the frame it left."""
        self._stroke_sizes.pop(index, None)
        if 0 <= index < len(self.model.bodies):
            self._recording.mark_sculpted()

    def undo_stroke(self, index: int | None = None) -> bool:
        """Undo the last stroke on body ``index`` (default: the selected body, else any)."""
        candidates = [index] if index is not None else (
            [self.model.selected] if self.model.selected >= 0 else
            range(len(self.model.bodies)))
        for i in candidates:
            body = self.model.bodies[i]
            history = self._histories.get(body.key)
            if history is not None and len(history):
                self.model.set_rest(i, body.rest.with_vertices(history.undo()))
                self.model.message.emit(f"Undid a stroke on {body.name}")
                return True
        self.model.message.emit("Nothing to undo")
        return False

    def reset_rest(self, index: int) -> None:
        """Give body ``index`` back the shape it was loaded with, forgetting its strokes."""
        body = self.model.bodies[index]
        self._histories.pop(body.key, None)
        self.model.set_rest(index, body.original)
