"""Which of a frame's collision results the view shows: one rule for the overlays, the level
slider, the Stats dock, the caption, the status line and the frame tables."""

from __future__ import annotations


def shown_result(frame):
    """The collision result the view shows for ``frame``.

    Bodies 0 and 1 when there are two; the first body against itself when the frame has
    self-collision results and only one body; else None (also for no frame).
    """
    if frame is None:
        return None
    if frame.result is not None:
        return frame.result
    self_results = getattr(frame, "self_results", None)
    if self_results:
        return self_results[0]
    return None
