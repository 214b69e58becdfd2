"""A frame's overlays built on the frame's lane, and whether the window may draw them.

The frame lane computes frame N+1 while the GUI thread draws frame N. Building the overlays
(:func:`viewer.render.overlays.build_overlays`: the level's volumes, the pairs, the contact
triangles) is Python and numpy work that held the interpreter lock on the GUI thread for 2-3 ms
a frame on bunny-bunny, time in which the next frame's core waited for the lock at each
compiled kernel's return. Built on the frame lane right after the core, with the view
choices as they were when the frame was asked for, they are ready when the frame arrives;
the window draws them only when those choices are still the ones shown
(:func:`usable_overlays`), and builds its own otherwise (a level moved, a box clicked, step
mode, a heat map that replaces the trees' boxes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from viewer.render.drawing_budget import LineBudget
from viewer.render.overlays import Overlays, build_overlays, tested_hidden
from viewer.state.display import Display


@dataclass(frozen=True)
class OverlayRequest:
    """The view choices the overlays are built for, besides the frame.

    Attributes
    ----------
    display : viewer.state.display.Display
    level : int or None
        Traversal level (None: all levels).
    hidden : frozenset of int
        Tested bodies (0 = A, 1 = B) the user hid.
    budget : viewer.render.drawing_budget.LineBudget or None
        The drawing budget as the window saw it when it asked for the frame. Not compared:
        the camera moves and the render-time fit changes from frame to frame, and overlays
        planned one frame earlier are as good an estimate as the window's own.
    """

    display: Display
    level: int | None
    hidden: frozenset
    budget: LineBudget | None = field(default=None, compare=False)


@dataclass(frozen=True)
class PreparedOverlays:
    """Overlays built for ``frame`` with ``request`` (no clicked box, every contact, the
    frame's own distance and inside test)."""

    frame: object
    request: OverlayRequest
    overlays: Overlays


def prepare_overlays(frame, request: OverlayRequest | None) -> PreparedOverlays | None:
    """Build ``frame``'s overlays for ``request`` (None: nothing is prepared)."""
    if request is None or frame is None:
        return None
    overlays = build_overlays(frame, request.display, request.level, None, request.hidden,
                              budget=request.budget)
    return PreparedOverlays(frame, request, overlays)


def usable_overlays(prepared: PreparedOverlays | None, frame, display: Display, level,
                    inspect, hidden, contact_ids, side) -> Overlays | None:
    """The prepared overlays when they are what :func:`build_overlays` would build now with
    these arguments (the same frame and choices, no clicked box, all contacts, and the
    frame's own distance and inside test), else None."""
    if (prepared is None or prepared.frame is not frame or frame is None or inspect is not None
            or contact_ids is not None):
        return None
    if side is not None and (side.late or side.distance is not frame.distance
                             or side.containment is not frame.containment):
        return None  # a side result computed beside the frames: not the frame's own
    request = prepared.request
    if (request.display != display or request.level != level
            or request.hidden != tested_hidden(hidden)):
        return None
    return prepared.overlays
