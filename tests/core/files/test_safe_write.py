"""Saves never destroy what is not a regular file and never leave a temporary file for good."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from core.files.safe_write import (
    replace_file,
    set_write_journal,
    sweep_journal,
    sweep_stale_parts,
    writable_target,
)


def test_refuses_to_write_over_a_fifo_and_a_folder(tmp_path):
    fifo = tmp_path / "talk.bvhrec"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="talk.bvhrec is a FIFO, not a regular file: refused"):
        replace_file(fifo, lambda stream: stream.write(b"x"))
    assert fifo.is_fifo()
    folder = tmp_path / "folder.bvhsession"
    folder.mkdir()
    with pytest.raises(OSError, match="is a folder"):
        replace_file(folder, lambda stream: stream.write(b"x"))
    assert folder.is_dir() and not list(tmp_path.glob("*.part"))


def test_refuses_a_device_node():
    with pytest.raises(OSError, match="/dev/null is a character device"):
        writable_target(Path("/dev/null"))


def test_a_symbolic_link_writes_the_file_it_names(tmp_path):
    real = tmp_path / "real.bvhsession"
    real.write_bytes(b"old")
    link = tmp_path / "link.bvhsession"
    link.symlink_to(real)
    replace_file(link, lambda stream: stream.write(b"new"))
    assert link.is_symlink() and real.read_bytes() == b"new"


def test_a_failed_write_leaves_nothing(tmp_path):
    target = tmp_path / "a.bin"
    target.write_bytes(b"old")

    def broken(stream):
        stream.write(b"half")
        raise RuntimeError("cancelled")

    with pytest.raises(RuntimeError):
        replace_file(target, broken)
    assert target.read_bytes() == b"old" and sorted(tmp_path.iterdir()) == [target]


KILLED_WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from core.files.safe_write import replace_file, set_write_journal

    set_write_journal(sys.argv[2])

    def slow(stream):
        stream.write(b"x" * 1_000_000)
        stream.flush()
        print("writing", flush=True)
        time.sleep(120)

    replace_file(Path(sys.argv[1]), slow)
""")


def _kill_midway(target: Path, journal: Path, how: int) -> subprocess.Popen:
    writer = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(target), str(journal)],
                              stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[3])
    assert writer.stdout.readline().strip() == "writing"
    writer.send_signal(how)
    writer.wait(timeout=60)
    return writer


def test_a_killed_save_is_swept_by_the_next_write_and_the_journal(tmp_path):
    target, journal = tmp_path / "big.bvhrec", tmp_path / "journal"
    _kill_midway(target, journal, signal.SIGKILL)
    left = list(tmp_path.glob("big.bvhrec.*.part"))
    assert len(left) == 1 and left[0].stat().st_size == 1_000_000  # SIGKILL: nothing runs
    assert sweep_journal(journal) == 1 and not left[0].exists()
    assert not list(journal.iterdir())
    _kill_midway(target, journal, signal.SIGKILL)
    assert len(list(tmp_path.glob("big.bvhrec.*.part"))) == 1
    replace_file(target, lambda stream: stream.write(b"done"))  # the next save of the name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.bvhrec", "journal"]


def test_sweeps_leave_a_live_writers_file_and_other_files(tmp_path):
    mine = tmp_path / f"x.bin.{os.getpid()}.abcdefgh.part"
    mine.write_bytes(b"in progress")
    foreign = tmp_path / "notes.part"
    foreign.write_bytes(b"someone else's")
    assert sweep_stale_parts(tmp_path) == 0
    assert mine.exists() and foreign.exists()


def test_a_terminated_save_removes_its_temporary_file(tmp_path):
    script = textwrap.dedent("""
        import signal, sys, threading, time
        from pathlib import Path
        from core.files.safe_write import replace_file

        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # as the app quits on SIGTERM

        def slow(stream):
            stream.write(b"x" * 1000)
            stream.flush()
            print("writing", flush=True)
            time.sleep(120)

        threading.Thread(target=replace_file, args=(Path(sys.argv[1]), slow),
                         daemon=True).start()
        while True:
            time.sleep(0.05)
    """)
    writer = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "t.bin")],
                              stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[3])
    assert writer.stdout.readline().strip() == "writing"
    writer.send_signal(signal.SIGTERM)
    assert writer.wait(timeout=60) == 0
    deadline = time.monotonic() + 5
    while list(tmp_path.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not list(tmp_path.iterdir())


def test_journal_set_is_used(tmp_path):
    set_write_journal(tmp_path / "j")
    try:
        replace_file(tmp_path / "y.bin", lambda stream: stream.write(b"1"))
        assert not list((tmp_path / "j").iterdir())  # the note goes with the write
    finally:
        set_write_journal(None)
