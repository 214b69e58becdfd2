"""Where the autosave lives and how a crash is told from a clean quit.

The state directory is ``$XDG_STATE_HOME/bvh-lab`` (``~/.local/state/bvh-lab`` by default,
the XDG Base Directory specification's place for "state data that should persist between
restarts"). Each running window claims one *slot* there, numbered from 0:

* ``running.lock`` (slot 0; ``running-K.lock`` for slot K): the window's PID and start time
  (JSON), held open with an exclusive ``flock`` for the window's lifetime. The kernel drops
  the lock when the process ends, however it ends, so claiming is atomic (two apps starting
  together never share a slot: a read-then-write lock let both hold it) and no PID has to be
  guessed alive. A clean quit removes the file; a file left behind whose lock can be taken
  means its window stopped unexpectedly;
* ``autosave.bvhsession`` (``autosave-K.bvhsession``): that window's session, saved a few
  seconds after every change. Every window autosaves, each into its own slot;
* ``crashed-YYYYmmdd-HHMMSS-PID.bvhsession``: the autosave of a window that stopped
  unexpectedly, moved aside when its slot is claimed again: one file per crash, kept until
  the user answers (Restore or Discard), so a second crash never overwrites the first. A
  window offering one holds a lock on it, so two windows never offer the same file.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from core.files.safe_write import set_write_journal, sweep_journal, sweep_stale_parts
from core.session import SessionFileError, SessionSummary, peek_session

AUTOSAVE_NAME = "autosave.bvhsession"
LOCK_NAME = "running.lock"
CRASHED_PATTERN = "crashed-*.bvhsession"

MAX_WINDOWS = 16
"""Slots in one state directory: past this many running windows, a new one does not
autosave (and says so)."""


def default_state_dir() -> Path:
    """``$XDG_STATE_HOME/bvh-lab``, or ``~/.local/state/bvh-lab`` when it is unset or not
    absolute (the specification says to ignore a relative value)."""
    base = os.environ.get("XDG_STATE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / "bvh-lab"


@dataclass(frozen=True)
class CrashedSession:
    """A session a run that stopped unexpectedly left behind.

    Attributes
    ----------
    path : pathlib.Path
        The file to restore (``crashed-YYYYmmdd-HHMMSS-PID.bvhsession``).
    summary : core.session.SessionSummary
    pid : int
        The PID of the run that stopped.
    """

    path: Path
    summary: SessionSummary
    pid: int

    def question(self) -> str:
        """The crash-restore question, e.g. "BVH Lab stopped unexpectedly at 23:41. Restore
        the session saved then (Two spheres, 2 bodies, sculpting kept)?"."""
        saved = time.localtime(self.summary.saved_at)
        when = time.strftime("%H:%M", saved)
        if time.strftime("%Y-%m-%d", saved) != time.strftime("%Y-%m-%d"):
            when = time.strftime("%H:%M on %d %b %Y", saved)
        n = self.summary.n_bodies
        parts = [self.summary.scene_title or "meshes", f"{n} bod{'y' if n == 1 else 'ies'}"]
        if self.summary.n_sculpted:
            parts.append("sculpting kept")
        return (f"BVH Lab stopped unexpectedly at {when}. Restore the session saved then "
                f"({', '.join(parts)})?")


def _slot_names(slot: int) -> tuple[str, str]:
    """(lock file, autosave file) names of ``slot``; slot 0 keeps the names of one window."""
    if slot == 0:
        return LOCK_NAME, AUTOSAVE_NAME
    return f"running-{slot}.lock", f"autosave-{slot}.bvhsession"


def _try_lock(path: Path) -> int | None:
    """An fd of ``path`` (created if missing) holding an exclusive flock, or None if another
    open file holds it. Raises OSError if the file cannot be opened."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    try:  # the holder may have removed the file between our open and our lock: not a claim
        if os.fstat(fd).st_ino != os.stat(path).st_ino:
            os.close(fd)
            return None
    except FileNotFoundError:
        os.close(fd)
        return None
    return fd


def _read_fd(fd: int, max_bytes: int = 4096) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    return os.read(fd, max_bytes)


def _lock_pid(data: bytes) -> int:
    """The PID a lock file names (0 when it is unreadable: its writer is gone all the same)."""
    try:
        return int(json.loads(data.decode("utf-8"))["pid"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return 0


class AutosaveState:
    """The state directory as one window uses it: its slot's lock and autosave, and the
    crashed session it offers.

    Parameters
    ----------
    directory : path, optional
        Default :func:`default_state_dir`.

    Attributes
    ----------
    has_lock : bool
        This window holds a slot and autosaves.
    slot : int or None
    autosave_path, lock_path : pathlib.Path or None
        The slot's files (None without a slot).
    crashed_path : pathlib.Path or None
        The crashed session this window offers (locked until answered).
    problem : str or None
        Why this window does not autosave, in one line (a folder that cannot be written, no
        free slot), for the status bar.
    """

    def __init__(self, directory=None):
        self.directory = Path(directory) if directory is not None else default_state_dir()
        self.has_lock = False
        self.slot: int | None = None
        self.autosave_path: Path | None = None
        self.lock_path: Path | None = None
        self.lock_fd: int | None = None  # the open, flocked lock file
        self.crashed_path: Path | None = None
        self._crashed_fd: int | None = None
        self.problem: str | None = None

    def take(self) -> CrashedSession | None:
        """Claim a slot for this window; return a crashed session to offer, if any.

        The first free slot is taken. Its lock file left behind (not removed by a clean
        quit) means the window that held it stopped unexpectedly: that slot's autosave is
        moved to a ``crashed-...`` file of its own. Then the newest crashed session no other
        window is offering is claimed and returned (None if none is readable).
        """
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.problem = (f"Autosave is off: cannot create {self.directory}: "
                            f"{exc.strerror or exc}")
            return None
        # Temporary files of saves a killed process never finished (here or elsewhere).
        set_write_journal(self.directory / "writes")
        sweep_journal(self.directory / "writes")
        sweep_stale_parts(self.directory)
        try:
            self._claim_slot()
        except OSError as exc:
            self.problem = (f"Autosave is off: cannot write in {self.directory}: "
                            f"{exc.strerror or exc}")
            return None
        if self.has_lock and not os.access(self.directory, os.W_OK):
            self.problem = f"Autosave is off: {self.directory} is read-only"
        return self._claim_crashed()

    def _claim_slot(self) -> None:
        for slot in range(MAX_WINDOWS):
            lock_name, autosave_name = _slot_names(slot)
            lock_path = self.directory / lock_name
            fd = _try_lock(lock_path)
            if fd is None:
                continue  # another running window's slot
            previous = _read_fd(fd)
            autosave_path = self.directory / autosave_name
            if previous.strip() and autosave_path.is_file():  # left behind: a crash
                saved = time.localtime(autosave_path.stat().st_mtime)
                stamp = time.strftime("%Y%m%d-%H%M%S", saved)
                pid = _lock_pid(previous)
                os.replace(autosave_path, self.directory / f"crashed-{stamp}-{pid}.bvhsession")
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps({"pid": os.getpid(), "started": time.time(),
                                      "slot": slot}).encode(), 0)  # fmt: skip
            self.slot, self.lock_fd, self.has_lock = slot, fd, True
            self.lock_path, self.autosave_path = lock_path, autosave_path
            return
        self.problem = (f"Autosave is off: {MAX_WINDOWS} BVH Lab windows already autosave in "
                        f"{self.directory}")

    def _claim_crashed(self) -> CrashedSession | None:
        newest_first = sorted(self.directory.glob(CRASHED_PATTERN), reverse=True)
        for path in newest_first:
            try:
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                summary = peek_session(path)
            except (BlockingIOError, SessionFileError, OSError):
                os.close(fd)  # offered by another window, or unreadable: left as it is
                continue
            self.crashed_path, self._crashed_fd = path, fd
            pid = path.stem.rsplit("-", 1)[-1]
            return CrashedSession(path, summary, int(pid) if pid.isdigit() else 0)
        return None

    def release(self) -> None:
        """A clean quit: the slot's lock file goes (its autosave stays, for File > Open
        session); a crashed session not answered stays for the next start."""
        if self.lock_fd is not None:
            if self.has_lock and self.lock_path is not None:
                self.lock_path.unlink(missing_ok=True)
            os.close(self.lock_fd)
            self.lock_fd = None
        self.has_lock = False
        self._close_crashed()

    def _close_crashed(self) -> None:
        if self._crashed_fd is not None:
            os.close(self._crashed_fd)
            self._crashed_fd = None

    def discard_crashed(self) -> None:
        """The user chose not to restore: the crashed run's session is deleted."""
        if self.crashed_path is not None:
            self.crashed_path.unlink(missing_ok=True)
        self._close_crashed()
        self.crashed_path = None

    def restored_crashed(self) -> None:
        """The user restored the crashed session: it is answered, and becomes this window's
        autosave (the next autosave replaces it; a crash before that keeps it as before)."""
        if self.crashed_path is not None and self.has_lock and self.autosave_path is not None:
            try:
                os.replace(self.crashed_path, self.autosave_path)
            except OSError:
                return  # kept where it is, offered again at the next start: nothing lost
        self._close_crashed()
        self.crashed_path = None
