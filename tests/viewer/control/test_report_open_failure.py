"""How opening a file on the job thread ended, said once for recordings, sessions and
contact logs."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from core.recording import RecordingCancelled
from viewer.control.recording import report_open_failure
from viewer.control.worker import JobCancelled


class _FileError(ValueError):
    pass


def _model():
    said = []
    signal = lambda kind: SimpleNamespace(emit=lambda *words: said.append((kind, *words)))  # noqa: E731
    return SimpleNamespace(message=signal("message"), error=signal("error")), said


@pytest.mark.parametrize("error, heard", [
    (None, []),
    (JobCancelled("x"), [("message", "Opening a.bin cancelled")]),
    (RecordingCancelled("x"), [("message", "Opening a.bin cancelled")]),
    (_FileError("/d/a.bin: not a recording"), [("error", "Title", "/d/a.bin: not a recording")]),
    (OSError("disk full"), [("error", "Title", f"{Path('/d/a.bin')}: disk full")]),
])
def test_each_ending_is_said_once(error, heard):
    model, said = _model()
    is_opened = report_open_failure(model, "Title", Path("/d/a.bin"), error, _FileError,
                                    "Opening a.bin cancelled")
    assert is_opened is (error is None)
    assert said == heard
