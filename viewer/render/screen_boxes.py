"""Where things are drawn on the screen, as boxes in display pixels: what the canvas legend
keeps clear (:func:`viewer.render.legend.pick_corner`).

An actor's box is its world bounds' eight corners projected with the camera; a corner text's
box is its lines measured at its font size (about 0.6 of the size a character, 1.25 a line).
"""

from __future__ import annotations

import numpy as np

CHAR_WIDTH_EM = 0.6
"""Width of an average Arial character, in ems (the corner texts' font)."""

LINE_HEIGHT_EM = 1.25


def actor_boxes(renderer, actors) -> list[tuple[float, float, float, float]]:
    """``(x0, y0, x1, y1)`` display pixels (y up) of each visible actor in ``actors`` that
    draws something, clipped to the view; an actor behind the camera is left out.

    Parameters
    ----------
    renderer : vtkRenderer
    actors : iterable of vtkProp3D
    """
    corners = []
    for actor in actors:
        if actor is None or not actor.GetVisibility():
            continue
        bounds = actor.GetBounds()
        if bounds is None or not np.all(np.isfinite(bounds)) or bounds[0] > bounds[1]:
            continue
        x, y, z = bounds[0:2], bounds[2:4], bounds[4:6]
        corners.append([(a, b, c) for a in x for b in y for c in z])
    if not corners:
        return []
    width, height = renderer.GetSize()
    if width <= 0 or height <= 0:
        return []
    camera = renderer.GetActiveCamera()
    matrix = camera.GetCompositeProjectionTransformMatrix(width / height, -1.0, 1.0)
    m = np.array([[matrix.GetElement(i, j) for j in range(4)] for i in range(4)])
    points = np.asarray(corners, dtype=np.float64)  # (k, 8, 3)
    clip = points @ m[:3, :3].T + m[:3, 3]
    w = points @ m[3, :3] + m[3, 3]
    boxes = []
    for c, ww in zip(clip, w):
        if np.any(ww <= 1e-12):
            continue  # a corner behind the camera: no sensible screen box
        x = (c[:, 0] / ww + 1.0) * 0.5 * width
        y = (c[:, 1] / ww + 1.0) * 0.5 * height
        x0, x1 = max(0.0, x.min()), min(float(width), x.max())
        y0, y1 = max(0.0, y.min()), min(float(height), y.max())
        if x1 > x0 and y1 > y0:
            boxes.append((float(x0), float(y0), float(x1), float(y1)))
    return boxes


def text_box(text: str, font_px: float, corner: str, view: tuple[int, int],
             margin: float = 5.0) -> tuple[float, float, float, float] | None:
    """``(x0, y0, x1, y1)`` display pixels of a corner text of ``font_px`` in ``corner``
    ("upper_left", "lower_left", ...) of a ``view = (width, height)``; None without text."""
    lines = [line for line in (text or "").splitlines()]
    while lines and not lines[-1].strip():
        lines.pop()
    if not any(line.strip() for line in lines):
        return None
    w = CHAR_WIDTH_EM * font_px * max(len(line) for line in lines)
    h = LINE_HEIGHT_EM * font_px * len(lines)
    x0 = margin if corner.endswith("left") else view[0] - margin - w
    y0 = view[1] - margin - h if corner.startswith("upper") else margin
    return (float(x0), float(y0), float(x0 + w), float(y0 + h))
