"""Where the autosave lives and how a crash is told from a clean quit.

The state directory is ``$XDG_STATE_HOME/bvh-lab`` (``~/.local/state/bvh-lab`` by default,
the XDG Base Directory specification's place for "state data that should persist between
restarts"). It holds:

* ``autosave.bvhsession``: the session, saved a few seconds after every change;
* ``running.lock``: the running app's PID and start time (JSON). A clean quit removes it, so
  a lock left behind whose PID is no longer alive means the app stopped unexpectedly;
* ``crashed.bvhsession``: the autosave of a run that stopped unexpectedly, moved aside at the
  next start so that the new run's autosave cannot overwrite it before the user answers.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from core.session import SessionFileError, SessionSummary, peek_session

AUTOSAVE_NAME = "autosave.bvhsession"
LOCK_NAME = "running.lock"
CRASHED_NAME = "crashed.bvhsession"


def default_state_dir() -> Path:
    """``$XDG_STATE_HOME/bvh-lab``, or ``~/.local/state/bvh-lab`` when it is unset or not
    absolute (the specification says to ignore a relative value)."""
    base = os.environ.get("XDG_STATE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / "bvh-lab"


def is_pid_alive(pid: int) -> bool:
    """Whether a process with ``pid`` exists (signal 0 checks without sending anything)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, owned by someone else
    except OSError:
        return False
    return True


def is_app_alive(pid: int) -> bool:
    """Whether ``pid`` is alive and may be a BVH Lab (a Python process).

    After a crash and a reboot the lock's PID may belong to an unrelated program; where
    ``/proc`` tells the command line, only a Python process counts as a running app.
    """
    if not is_pid_alive(pid):
        return False
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().lower()
    except OSError:
        return True  # no /proc (or not allowed): trust the PID
    # An empty command line: a process between fork and exec, or one hiding it; trust it.
    return not command or b"python" in command or b"bvh-lab" in command


@dataclass(frozen=True)
class CrashedSession:
    """A session a run that stopped unexpectedly left behind.

    Attributes
    ----------
    path : pathlib.Path
        The file to restore (``crashed.bvhsession``).
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


class AutosaveState:
    """The state directory of one running app: its lock, its autosave, a crash left behind.

    Parameters
    ----------
    directory : path, optional
        Default :func:`default_state_dir`.
    """

    def __init__(self, directory=None):
        self.directory = Path(directory) if directory is not None else default_state_dir()
        self.autosave_path = self.directory / AUTOSAVE_NAME
        self.lock_path = self.directory / LOCK_NAME
        self.crashed_path = self.directory / CRASHED_NAME
        self.has_lock = False
        self.other_pid: int | None = None  # another live app holding the lock

    def _lock_pid(self) -> int | None:
        try:
            data = json.loads(self.lock_path.read_text(encoding="utf-8"))
            return int(data["pid"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            return 0  # an unreadable lock: its writer is gone

    def take(self) -> CrashedSession | None:
        """Claim the directory for this process; return the crashed session, if any.

        A lock whose PID is alive (another BVH Lab window) leaves this process without
        autosave (``has_lock`` False, ``other_pid`` set). A lock whose PID is gone means the
        previous run stopped unexpectedly: its autosave is moved to ``crashed.bvhsession``
        and returned (None if it left no readable autosave).
        """
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError:
            return None
        pid = self._lock_pid()
        # Another window of this process (tests build several) or another running app.
        if pid is not None and (pid == os.getpid() or is_app_alive(pid)):
            self.other_pid = pid
            return None
        crashed = None
        if pid is not None and self.autosave_path.is_file():
            try:
                os.replace(self.autosave_path, self.crashed_path)
                crashed = CrashedSession(self.crashed_path, peek_session(self.crashed_path), pid)
            except (OSError, SessionFileError):
                crashed = None
        try:
            self.lock_path.write_text(json.dumps({"pid": os.getpid(), "started": time.time()}),
                                      encoding="utf-8")
            self.has_lock = True
        except OSError:
            self.has_lock = False
        return crashed

    def release(self) -> None:
        """A clean quit: the lock goes (the autosave stays, for File > Open session)."""
        if self.has_lock and self._lock_pid() == os.getpid():
            self.lock_path.unlink(missing_ok=True)
        self.has_lock = False

    def discard_crashed(self) -> None:
        """The user chose not to restore: the crashed run's session is deleted."""
        self.crashed_path.unlink(missing_ok=True)
