"""Recording frames: a bounded in-memory store, its events, a file format and replay.

:class:`Recording` keeps the :class:`core.pipeline.Frame` records the pipeline produced, so a
frame can be drawn again, saved (:func:`save_recording`, :func:`open_recording`) and run again
with other settings (:func:`replay`).
"""

from core.recording.events import EventKind, RecordingEvent
from core.recording.fileformat import (
    RecordingCancelled,
    RecordingFileError,
    open_recording,
    save_recording,
)
from core.recording.replay import ReplayReport, ReplayRow, recorded_settings, replay
from core.recording.store import Recording

__all__ = [
    "EventKind",
    "Recording",
    "RecordingCancelled",
    "RecordingEvent",
    "RecordingFileError",
    "ReplayReport",
    "ReplayRow",
    "open_recording",
    "recorded_settings",
    "replay",
    "save_recording",
]
