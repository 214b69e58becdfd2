"""Recording frames: a bounded in-memory store, its events, a file format and replay.

:class:`Recording` keeps the :class:`core.pipeline.Frame` records the pipeline produced, so a
frame can be drawn again, saved (:func:`save_recording`, :func:`open_recording`) and run again
with other settings (:func:`replay`).
"""

from core.recording.events import EventKind, RecordingEvent
from core.recording.store import Recording

__all__ = ["EventKind", "Recording", "RecordingEvent"]
