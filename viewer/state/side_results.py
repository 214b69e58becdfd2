"""Results computed beside the frame: minimum distance and the inside test of bodies A and B,
and self-collision when the scene has two or more bodies (in a one-mesh scene it is the frame's
own query).

When A and B do not touch, the distance and the inside test can cost more than the frame
itself (1,588 ms + 1,006 ms a frame on nefertiti × ogre), so they do not run inside the frame:
the controller runs them on their own lane of the worker, on the finished frame's meshes,
trees and poses (a snapshot the next frame does not change: a refit makes new arrays), one at
a time and always for the newest frame. The views show the newest finished one with the
frame it was computed on: "from frame N" when that is older than the frame shown.

Plain data only (no core, no Qt): the model holds it and the render layer reads it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

MAX_KEPT_SIDE_RESULTS = 256
"""Side results kept per scene, newest last, so that a recorded frame shown from the timeline
finds its own; older ones are forgotten (each holds two closest points and a few numbers)."""


@dataclass(frozen=True, eq=False)
class SideResult:
    """The distance and inside test of one frame's bodies A and B.

    Attributes
    ----------
    frame_index : int
        The frame whose meshes, trees and poses they were computed on.
    generation : int
        The scene's identity when it was computed (bodies added, removed or swapped bump it).
    inputs : tuple
        The choices it was computed with, ``(distance on, inside test on, self-collision
        beside the frame on)``.
    distance : core.distance.DistanceResult or None
        None when not chosen, or when A and B touch.
    containment : core.containment.PairContainment or None
        None when not chosen, or when A and B touch.
    seconds : dict[str, float]
        What each took: ``"distance"``, ``"containment"``, ``"self"`` (the keys of the ones
        that ran).
    self_results : list of core.collide.query.CollisionResult or None
        Each body against itself, one per body; None when not chosen.
    """

    frame_index: int
    generation: int
    inputs: tuple
    distance: object = None
    containment: object = None
    seconds: dict = field(default_factory=dict)
    self_results: object = None

    def late_words(self, frame) -> str:
        """``"from frame N"`` when computed on a frame other than ``frame``, else ``""``."""
        if frame is None or int(frame.index) == self.frame_index:
            return ""
        return f"from frame {self.frame_index}"


@dataclass(frozen=True)
class ShownSide:
    """What the views show of the distance and the inside test for one frame.

    Attributes
    ----------
    distance, containment : object or None
        The frame's own, or a side result's.
    late : str
        ``"from frame N"`` when they come from an older frame than the one shown, else "".
    """

    distance: object = None
    containment: object = None
    late: str = ""

    @property
    def is_empty(self) -> bool:
        return self.distance is None and self.containment is None


def _in_contact(frame) -> bool:
    return bool(frame.result is not None and frame.result.in_contact)


def shown_side(frame, side: SideResult | None, kept: dict | None = None) -> ShownSide:
    """The distance and inside test to show with ``frame``.

    The frame's own when it carries them (a frame recorded with them, or one the side result
    was merged into); else the side result of that very frame from ``kept``
    (``frame_index -> SideResult``); else the newest ``side`` if it is of an older frame, with
    ``late`` = "from frame N". Nothing when A and B touch in ``frame`` (a distance of apart
    bodies would be wrong there) or the side result is of a later frame than the one shown (a
    recorded frame shown from the timeline). The controller drops side results of another
    scene or other choices before they reach here.
    """
    if frame is None:
        return ShownSide()
    own = ShownSide(frame.distance, frame.containment)
    if not own.is_empty or _in_contact(frame) or len(frame.meshes) < 2:
        return own
    index = int(frame.index)
    exact = (kept or {}).get(index)
    if exact is not None:
        return ShownSide(exact.distance, exact.containment)
    if side is None or side.frame_index > index:
        return own
    return ShownSide(side.distance, side.containment, side.late_words(frame))


def carries_side_results(frame) -> bool:
    """``frame`` holds a distance, an inside test or self-collision results of its own: it
    computed them, or a side result was merged into it (:func:`merged_frame`)."""
    return (frame.distance is not None or frame.containment is not None
            or frame.self_results is not None)


def merged_frame(frame, side: SideResult):
    """``frame`` with ``side``'s distance, inside test and self-collision as its own, and
    their times among its phases (``timings["distance"]``, ``["containment"]``, ``["self"]``),
    for a frame shown while it is still the newest (and a recorded frame saved with them): the
    frame then reads as it did when the frame computed them itself. ``total`` stays the
    frame's own core time."""
    timings = dict(frame.timings)
    timings.update(side.seconds)
    self_results = frame.self_results if side.self_results is None else side.self_results
    return dataclasses.replace(frame, distance=side.distance, containment=side.containment,
                               self_results=self_results, timings=timings)
