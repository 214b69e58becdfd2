"""A bounded, in-memory recording of the frames the pipeline produced.

A :class:`Recording` keeps every :class:`core.pipeline.Frame` appended to it, as it is (frames
are plain read-only data), until a cap in megabytes or in frames is passed; then the oldest
frames are dropped, like a ring. What one frame costs is counted per distinct array: frames
that share a vertex array, the faces or an unchanged tree do not pay for it twice.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from core.checks import instance, integer, real_number
from core.pipeline import Frame, UpdateMode
from core.recording.arrays import frame_arrays, owning_array
from core.recording.events import (
    USER_EVENT_KINDS,
    EventKind,
    FrameFacts,
    RecordingEvent,
    find_events,
)
from core.request import FRAME_OPTION_FIELDS, REQUEST_FIELDS

#: Bytes in a megabyte, as the status bar says it (SI, like file managers).
MEGABYTE = 1_000_000


@dataclass(frozen=True, eq=False)
class _Entry:
    frame: Frame
    body_keys: tuple
    update: UpdateMode
    facts: FrameFacts
    owner_ids: tuple  # ids of the arrays owning this frame's memory, each once


def _contact_count(frame: Frame) -> int:
    n = frame.result.n_contacts if frame.result is not None else 0
    for result in frame.self_results or ():
        n += result.n_contacts
    return n


def _settings_change(before: _Entry | None, frame: Frame, update: UpdateMode) -> str:
    """What changed in the request, the frame options and the update mode since ``before``,
    in words."""
    if before is None:
        return ""
    changes = []
    for names, old, new in ((REQUEST_FIELDS, before.frame.request, frame.request),
                            (FRAME_OPTION_FIELDS, before.frame.frame_options,
                             frame.frame_options)):  # fmt: skip
        if old is None or new is None or old == new:
            continue
        for name in names:
            a, b = getattr(old, name), getattr(new, name)
            if a != b:
                changes.append(f"{name} {_setting_words(a)} -> {_setting_words(b)}")
    if before.update is not update:
        changes.append(f"update {before.update.value} -> {update.value}")
    return ", ".join(changes)


def _setting_words(value) -> str:
    name = getattr(value, "name", None)
    return name.lower() if isinstance(name, str) and not isinstance(value, str) else str(value)


def _drift_rebuilds(before: _Entry | None, frame: Frame, keys: tuple, update: UpdateMode):
    """Keys whose tree AUTO rebuilt for drift, and their drift at the frame before.

    A rebuild counts only when nothing else explains it: the body was in the frame before with
    the same faces array (same topology), the split rule and leaf size did not change, and
    both frames ran AUTO (the pipeline's other reasons to build).
    """
    if before is None or update is not UpdateMode.AUTO or before.update is not UpdateMode.AUTO:
        return (), ()
    old_req, new_req = before.frame.request, frame.request
    if old_req is not None and new_req is not None and (
            (old_req.split, old_req.leaf_size) != (new_req.split, new_req.leaf_size)):
        return (), ()
    old_slot = {key: i for i, key in enumerate(before.body_keys)}
    rebuilt, drifts = [], []
    for i, key in enumerate(keys):
        if not frame.rebuilt[i] or key not in old_slot:
            continue
        j = old_slot[key]
        if before.frame.meshes[j].faces is not frame.meshes[i].faces:
            continue
        rebuilt.append(key)
        drifts.append(float(before.frame.drift[j]))
    return tuple(rebuilt), tuple(drifts)


def _check_limits(max_megabytes, max_frames) -> tuple[float, int]:
    megabytes = real_number(max_megabytes, "max_megabytes")
    if not (math.isfinite(megabytes) and megabytes > 0.0):
        raise ValueError(f"max_megabytes must be a finite number > 0, got {max_megabytes!r}")
    return megabytes, integer(max_frames, "max_frames", minimum=1)


class Recording:
    """The frames of a session, oldest first, within a memory and a frame cap.

    Parameters
    ----------
    max_megabytes : float
        Most megabytes (10^6 bytes) of arrays held; > 0. The newest frame is always kept,
        even alone above the cap.
    max_frames : int
        Most frames held; >= 1.

    Notes
    -----
    :meth:`append` runs on the GUI thread every live frame, so it costs O(arrays of that
    frame): each distinct array is tracked with a reference count instead of rescanning the
    frames held.
    """

    def __init__(self, max_megabytes: float = 512.0, max_frames: int = 3000):
        self._max_megabytes, self._max_frames = _check_limits(max_megabytes, max_frames)
        self._entries: deque[_Entry] = deque()
        self._held: dict[int, list] = {}  # id(owning array) -> [array, reference count]
        self._nbytes = 0
        self._n_dropped = 0
        self._events: list[RecordingEvent] | None = None

    # ---- filling -------------------------------------------------------------------------

    def append(self, frame: Frame, body_keys: Sequence[str], update: UpdateMode,
               user_events: Sequence[EventKind] = ()) -> int:  # fmt: skip
        """Keep one frame; drop the oldest ones if a cap is passed.

        Parameters
        ----------
        frame : Frame
        body_keys : sequence of str
            The key of each body, in the frame's order (one per mesh).
        update : UpdateMode
            How the trees were brought up to date.
        user_events : sequence of EventKind
            What the user did just before this frame: ``GRABBED``, ``SCULPTED``.

        Returns
        -------
        int
            The frame's position (``len(self) - 1``).

        Raises
        ------
        TypeError, ValueError
            One line naming the argument.
        """
        instance(frame, "frame", Frame)
        instance(update, "update", UpdateMode)
        if isinstance(body_keys, str):
            raise TypeError("body_keys must be a sequence of str, got str")
        keys = tuple(body_keys)
        for i, key in enumerate(keys):
            instance(key, f"body_keys[{i}]", str)
        if len(keys) != len(frame.meshes):
            raise ValueError(f"body_keys must name every body of the frame: got {len(keys)} "
                             f"keys for {len(frame.meshes)} bodies")  # fmt: skip
        told = tuple(user_events)
        for i, kind in enumerate(told):
            instance(kind, f"user_events[{i}]", EventKind)
            if kind not in USER_EVENT_KINDS:
                allowed = ", ".join(k.name for k in USER_EVENT_KINDS)
                raise ValueError(f"user_events[{i}] must be one of {allowed} (the others are "
                                 f"found from the frames), got {kind.name}")  # fmt: skip
        before = self._entries[-1] if self._entries else None
        rebuilt, drifts = _drift_rebuilds(before, frame, keys, update)
        facts = FrameFacts(n_contacts=_contact_count(frame), rebuilt_by_drift=rebuilt,
                           drift_before=drifts,
                           settings_changed=_settings_change(before, frame, update),
                           user_events=told)  # fmt: skip
        owners = {}
        for array in frame_arrays(frame):
            owner = owning_array(array)
            owners[id(owner)] = owner
        for key, owner in owners.items():
            slot = self._held.get(key)
            if slot is None:
                self._held[key] = [owner, 1]
                self._nbytes += owner.nbytes
            else:
                slot[1] += 1
        self._entries.append(_Entry(frame, keys, update, facts, tuple(owners)))
        self._events = None
        self._trim()
        return len(self._entries) - 1

    def _drop_oldest(self) -> None:
        entry = self._entries.popleft()
        for key in entry.owner_ids:
            slot = self._held[key]
            slot[1] -= 1
            if slot[1] == 0:
                self._nbytes -= slot[0].nbytes
                del self._held[key]
        self._n_dropped += 1
        self._events = None

    def _trim(self) -> None:
        cap = self._max_megabytes * MEGABYTE
        while len(self._entries) > 1 and (len(self._entries) > self._max_frames
                                          or self._nbytes > cap):  # fmt: skip
            self._drop_oldest()

    def clear(self) -> None:
        """Forget every frame (the count of dropped frames starts again too)."""
        self._entries.clear()
        self._held.clear()
        self._nbytes = 0
        self._n_dropped = 0
        self._events = None

    def set_limits(self, max_megabytes: float, max_frames: int) -> None:
        """Change the caps (checked first: a bad value changes nothing); drops the oldest
        frames if the recording is now above them."""
        self._max_megabytes, self._max_frames = _check_limits(max_megabytes, max_frames)
        self._trim()

    # ---- reading -------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    def _entry(self, position: int) -> _Entry:
        index = integer(position, "position")
        n = len(self._entries)
        if not -n <= index < n:
            held = f"0..{n - 1}" if n else "none: the recording is empty"
            raise IndexError(f"position {index} is out of range (frames held: {held})")
        return self._entries[index]

    def __getitem__(self, position: int) -> Frame:
        """The frame at ``position`` (0 = oldest held; negative counts from the newest)."""
        return self._entry(position).frame

    def body_keys(self, position: int) -> tuple[str, ...]:
        """The key of each body of the frame at ``position``."""
        return self._entry(position).body_keys

    def update_mode(self, position: int) -> UpdateMode:
        """How the trees of the frame at ``position`` were brought up to date."""
        return self._entry(position).update

    def user_events(self, position: int) -> tuple[EventKind, ...]:
        """What the app told :meth:`append` about the frame at ``position``."""
        return self._entry(position).facts.user_events

    def events(self) -> list[RecordingEvent]:
        """Every marker, sorted by position (found again only after a change)."""
        if self._events is None:
            self._events = find_events([e.facts for e in self._entries])
        return list(self._events)

    def next_event(self, position: int) -> int | None:
        """Position of the first event after ``position``, or None."""
        position = integer(position, "position")
        later = [e.position for e in self.events() if e.position > position]
        return min(later) if later else None

    def previous_event(self, position: int) -> int | None:
        """Position of the last event before ``position``, or None."""
        position = integer(position, "position")
        earlier = [e.position for e in self.events() if e.position < position]
        return max(earlier) if earlier else None

    @property
    def nbytes(self) -> int:
        """Bytes of arrays held, every distinct array's memory counted once."""
        return self._nbytes

    @property
    def n_dropped(self) -> int:
        """Oldest frames dropped to stay under the caps (since creation or :meth:`clear`)."""
        return self._n_dropped

    @property
    def max_megabytes(self) -> float:
        return self._max_megabytes

    @property
    def max_frames(self) -> int:
        return self._max_frames

    def summary(self) -> str:
        """Status-bar words, e.g. ``"recording 240 frames, 38.2 MB of 512 MB"``."""
        n = len(self._entries)
        text = (f"recording {n} frame{'' if n == 1 else 's'}, "
                f"{self._nbytes / MEGABYTE:.1f} MB of {self._max_megabytes:g} MB")
        if self._n_dropped:
            text += f" ({self._n_dropped} oldest dropped)"
        return text
