"""The events a recording marks on its timeline, found from the frames it holds.

Derived events (first contact, most contacts, a drift rebuild, a settings change) are computed
from small per-frame facts kept at :meth:`core.recording.store.Recording.append` time, so
finding them again after the oldest frames were dropped is O(frames) over plain numbers, with
no array touched.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass


class EventKind(enum.Enum):
    """What happened at a marked frame; the value is the words shown to people."""

    FIRST_CONTACT = "first contact"
    """The recording's first frame with contacts (the oldest frame if it has contacts)."""
    CONTACT_AGAIN = "contact again"
    """A later frame with contacts after one without: the bodies touch again (every one of
    these was labelled "first contact" before)."""
    CONTACT_PEAK = "most contacts"
    """The first frame with the recording's highest contact count (when it is above 0)."""
    REBUILD = "tree rebuilt (drift)"
    """AUTO rebuilt a tree because its SAH drift passed the threshold."""
    GRABBED = "body moved"
    """The user moved a body (told by the app)."""
    SCULPTED = "body sculpted"
    """The user sculpted a body (told by the app)."""
    OPENED = "settings changed"
    """The request, the frame options or the update mode differs from the frame before."""


#: Kinds the app tells :meth:`Recording.append`; the others are found from the frames.
USER_EVENT_KINDS = (EventKind.GRABBED, EventKind.SCULPTED)


@dataclass(frozen=True)
class RecordingEvent:
    """A marker on the timeline.

    Attributes
    ----------
    position : int
        Index into the recording (0 = oldest frame held).
    kind : EventKind
    text : str
        One line for a tooltip, e.g. ``"first contact: 12 triangle pairs"``.
    """

    position: int
    kind: EventKind
    text: str


@dataclass(frozen=True)
class FrameFacts:
    """What the events of one recorded frame are found from (numbers and words only).

    Attributes
    ----------
    n_contacts : int
        Contacting triangle pairs of A and B plus every body's self-contacts.
    rebuilt_by_drift : tuple of str
        Keys of the bodies whose tree AUTO rebuilt for drift at this frame.
    drift_before : tuple of float
        The SAH drift each of those trees had at the frame before (what passed the threshold
        is the drift of this frame's refit, which the pipeline does not keep; the last kept
        value says how far it had come).
    settings_changed : str
        Empty, or what changed since the frame before ("bounding volume aabb -> obb").
    user_events : tuple of EventKind
    """

    n_contacts: int
    rebuilt_by_drift: tuple = ()
    drift_before: tuple = ()
    settings_changed: str = ""
    user_events: tuple = ()


def _pairs_words(n: int) -> str:
    return f"{n} triangle pair" + ("" if n == 1 else "s")


def find_events(facts: Sequence[FrameFacts]) -> list[RecordingEvent]:
    """Every event of a run of frames, sorted by position (then by kind's order).

    Parameters
    ----------
    facts : sequence of FrameFacts
        One per frame held, oldest first.

    Returns
    -------
    list of RecordingEvent
    """
    events = []
    peak_position, peak = None, 0
    has_touched = False
    for position, fact in enumerate(facts):
        previous = facts[position - 1].n_contacts if position else 0
        if fact.n_contacts > 0 and previous == 0:
            kind = EventKind.CONTACT_AGAIN if has_touched else EventKind.FIRST_CONTACT
            events.append(RecordingEvent(position, kind,
                                         f"{kind.value}: {_pairs_words(fact.n_contacts)}"))
            has_touched = True
        if fact.n_contacts > peak:
            peak_position, peak = position, fact.n_contacts
        for key, drift in zip(fact.rebuilt_by_drift, fact.drift_before):
            events.append(RecordingEvent(
                position, EventKind.REBUILD,
                f"tree of {key} rebuilt: its SAH drift passed the threshold "
                f"({drift:.0%} at the frame before)"))
        if fact.settings_changed:
            events.append(RecordingEvent(position, EventKind.OPENED,
                                         f"settings changed: {fact.settings_changed}"))
        for kind in fact.user_events:
            events.append(RecordingEvent(position, kind, kind.value))
    if peak_position is not None:
        events.append(RecordingEvent(peak_position, EventKind.CONTACT_PEAK,
                                     f"most contacts: {_pairs_words(peak)}"))
    order = {kind: i for i, kind in enumerate(EventKind)}
    events.sort(key=lambda e: (e.position, order[e.kind]))
    return events
