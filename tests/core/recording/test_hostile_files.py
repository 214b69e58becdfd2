"""The hostile recording catalogue (``tests/hostile/recordings.py``) through the Python API and
the command line: every file is refused in one line naming it, the right exception type, exit
2, no traceback, and the command line runs under a 1.5 GB address-space limit."""

from __future__ import annotations

import io
import os
import resource
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from core.files import container
from core.recording import RecordingFileError, open_recording, recorded_settings, replay
from core.text import printable
from tests.cli_batch import run_batch
from tests.hostile.recordings import (
    HostileRecording,
    catalogue,
    deflated,
    good_recording,
    zeros_bomb,
    zip_bytes,
)

CASES = {case.name: case for case in catalogue()}
MEMORY_LIMIT = int(1.5 * 2**30)
"""Address space the command line may take (``RLIMIT_AS``)."""

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    return good_recording(tmp_path_factory.mktemp("good") / "good.bvhrec")


def test_the_catalogue_covers_every_class():
    assert len(CASES) >= 25
    for fragment in ("bomb", "encrypted", "compression", "duplicate", "header", "million",
                     "partition", "version-float", "version-true", "truncated", "nan",
                     "negative", "string", "kind"):  # fmt: skip
        assert any(fragment in name for name in CASES), fragment


@pytest.mark.parametrize("name", list(CASES))
def test_python_api_refuses_in_one_line_naming_the_file(name, good, tmp_path):
    case: HostileRecording = CASES[name]
    path = case.write(good, tmp_path)
    if case.stage == "replay":
        recording = open_recording(path)
        with pytest.raises(ValueError, match=r"\(cell, triangle\) entries") as info:
            replay(recording, recorded_settings(recording))
    else:
        with pytest.raises(RecordingFileError, match=case.words) as info:
            open_recording(path)
        assert str(info.value).startswith(printable(str(path)) + ": ")
    message = str(info.value)
    assert "\n" not in message and message.isprintable(), message


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_replay(path: Path) -> subprocess.CompletedProcess:
    """``python -m viewer --replay PATH`` in a child limited to :data:`MEMORY_LIMIT`."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    # The timeout only catches a hang (the 30 s, doubled for a loaded machine).
    return subprocess.run([sys.executable, "-m", "viewer", "--replay", str(path)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60,
                          preexec_fn=_limit_memory)  # fmt: skip


def test_the_command_line_replays_the_good_file_under_the_memory_limit(good):
    done = run_replay(good)
    assert done.returncode == 0, done.stderr
    assert "contacts identical in all 2 frames" in done.stdout


@pytest.fixture(scope="module")
def replayed(good, tmp_path_factory):
    """``python -m viewer --replay PATH`` on every case, in one child process limited to
    :data:`MEMORY_LIMIT` (:func:`tests.cli_batch.run_batch`): ``{name: (path, Ran)}``."""
    folder = tmp_path_factory.mktemp("hostile-recordings")
    paths = {}
    for name, case in CASES.items():
        (folder / name).mkdir()
        paths[name] = case.write(good, folder / name)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    ran = run_batch("viewer", [["--replay", str(paths[name])] for name in CASES], seconds=60,
                    env=env, preexec_fn=_limit_memory)  # fmt: skip
    return {name: (paths[name], done) for name, done in zip(CASES, ran)}


@pytest.mark.parametrize("name", list(CASES))
def test_command_line_exits_2_with_one_line(name, replayed):
    case = CASES[name]
    path, done = replayed[name]
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert lines[0].startswith(f"error: {printable(str(path))}: "), lines[0]
    assert lines[0].isprintable()
    import re

    assert re.search(case.words, lines[0]), lines[0]


# ---- the container's budgets, one by one -----------------------------------------------------


def test_a_member_is_inflated_in_chunks_and_stops_at_the_cap():
    """The count is on the bytes as they come: a member past the cap is not inflated whole
    before the check (the old reader inflated the whole member first)."""
    n = 64 * 2**20
    data = zip_bytes([zeros_bomb("big.npy", b"", n)])
    with zipfile.ZipFile(io.BytesIO(data)) as archive, archive.open("big.npy") as stream:
        with pytest.raises(container.ContainerLimitError,
                           match="too large: member 'big.npy' inflates past 1 MiB"):
            container.read_capped(archive, stream, "'big.npy'", 2**20)
        # What the stream gave: the cap and at most one chunk more, not the 64 MiB member.
        assert stream._left >= n - 2**20 - container.READ_CHUNK_BYTES


def test_the_file_budget_counts_inflated_bytes_across_members(tmp_path, monkeypatch):
    monkeypatch.setattr(container, "MAX_FILE_BYTES", 3 * 2**20)
    buffer = io.BytesIO()
    np.save(buffer, np.zeros(2**20 // 8))  # 1 MiB of data
    path = tmp_path / "three.zip"
    path.write_bytes(zip_bytes([deflated(f"a{i}.npy", buffer.getvalue()) for i in range(2)]))

    def read(archive, file):
        archive.inflated = 2**20  # as if another member were read already
        container.read_array(archive, "a0.npy")
        container.read_array(archive, "a1.npy")

    with pytest.raises(RecordingFileError, match=r"refused \(too large: member 'a1.npy' takes "
                                                 r"the file past 3 MiB"):
        container.open_container(path, read, RecordingFileError, "recording")


def test_saving_refuses_what_reading_would_refuse(tmp_path, monkeypatch):
    monkeypatch.setattr(container, "MAX_MEMBER_BYTES", 1000)
    with pytest.raises(RecordingFileError, match="too large to save"):
        container.write_container(tmp_path / "x.bvhrec", {"a0": np.zeros(1000)}, "{}",
                                  RecordingFileError, RuntimeError)
    assert not list(tmp_path.iterdir())


def test_a_good_npy_of_every_version_still_reads(tmp_path):
    arrays = {"v1": np.arange(6.0).reshape(2, 3), "empty": np.zeros((0, 3), np.int32),
              "scalar": np.float64(2.5), "fortran": np.asfortranarray(np.eye(3))}
    path = tmp_path / "ok.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asanyarray(array),
                                      version=(2, 0) if name == "v1" else None)
            archive.writestr(name + ".npy", buffer.getvalue())

    def read(archive, file):
        return {name: container.read_array(archive, name + ".npy") for name in arrays}

    back = container.open_container(path, read, RecordingFileError, "recording")
    for name, array in arrays.items():
        assert np.array_equal(back[name], array) and back[name].dtype == np.asarray(array).dtype
        assert not back[name].flags.writeable


def test_saving_refuses_more_frames_or_manifest_than_reading_takes(good, tmp_path, monkeypatch):
    from core.recording import fileformat, save_recording

    recording = open_recording(good)
    monkeypatch.setattr(fileformat, "MAX_FRAMES", 1)
    with pytest.raises(RecordingFileError, match="2 frames are too many to save"):
        save_recording(recording, tmp_path / "many.bvhrec")
    monkeypatch.setattr(fileformat, "MAX_FRAMES", 10)
    monkeypatch.setattr(container, "MAX_MANIFEST_BYTES", 1000)
    with pytest.raises(RecordingFileError, match="too large to save .manifest.json"):
        save_recording(recording, tmp_path / "long.bvhrec")
    assert not list(tmp_path.iterdir())
