"""The errors the app caught: the log of their tracebacks, and each told in one line.

Qt-free, so the controllers (which may not import widgets) and the widgets' last line of
defence (:mod:`viewer.qt.window.error_guard`) share it. The log is
``$XDG_STATE_HOME/bvh-lab/errors.log`` beside the autosave (see
:mod:`viewer.control.autosave`): the place for "state data that should persist between
restarts", which a user can attach to a report. Help > Error log shows it.

An operation that may fail with someone else's file wraps itself in :func:`operation`, so the
one line the user reads names it and the file ("Opening recording talk.bvhrec: ..."), not
only the exception's text.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import threading
import traceback
from pathlib import Path

from core.text import printable
from viewer.control.autosave import default_state_dir

LOG_NAME = "errors.log"

MAX_LOG_BYTES = 1_000_000
"""The log is moved to ``errors.log.1`` (replacing an older one) when it grows past this:
two files of at most about 1 MB each, whatever a session throws at it."""

MAX_LINE_CHARS = 300
"""The one line shown to the user is cut to this many characters (a file's text inside an
exception message may be long, and a status bar or a message box is no place for it)."""

_OPERATION_ATTRIBUTE = "bvh_lab_operation"


def default_log_path() -> Path:
    """``$XDG_STATE_HOME/bvh-lab/errors.log``."""
    return default_state_dir() / LOG_NAME


@contextlib.contextmanager
def operation(what: str, path=None):
    """Name the operation (and file) an exception raised inside the block belongs to.

    The innermost block names it: an outer one does not overwrite what an inner one set.

    Parameters
    ----------
    what : str
        The operation in words, e.g. ``"Opening recording"``.
    path : str or os.PathLike, optional
        The file it reads or writes.
    """
    try:
        yield
    except BaseException as exc:
        if getattr(exc, _OPERATION_ATTRIBUTE, None) is None:
            with contextlib.suppress(AttributeError, TypeError):
                setattr(exc, _OPERATION_ATTRIBUTE, (what, None if path is None else str(path)))
        raise


def _viewer_function(tb) -> str | None:
    """The outermost function of the viewer's own code in a traceback, as words
    (``open_recording_file`` -> ``open recording file``): the slot that was running."""
    for frame, _line in traceback.walk_tb(tb):
        module = frame.f_globals.get("__name__", "")
        if (module.startswith("viewer.") and module != __name__
                and not frame.f_code.co_name.startswith("<")):  # a lambda says nothing
            return frame.f_code.co_name.strip("_").replace("_", " ")
    return None


def one_line(exc: BaseException) -> str:
    """What went wrong, as one printable line naming the operation and the file.

    Parameters
    ----------
    exc : BaseException

    Returns
    -------
    str
        ``"<operation> <file>: <message>"``; the operation is the one :func:`operation`
        recorded, else the viewer's function that was running; the message is the
        exception's first line (with its type where the text alone would not say what it
        is, e.g. a bare ``KeyError: 'x'``).
    """
    what, path = getattr(exc, _OPERATION_ATTRIBUTE, None) or (None, None)
    if what is None:
        function = _viewer_function(exc.__traceback__)
        what = f"Running {function}" if function else "An operation"
    if path is None and isinstance(exc, OSError) and exc.filename is not None:
        path = os.fsdecode(exc.filename)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if not text or type(exc).__module__ == "builtins" and not isinstance(exc, OSError | ValueError):
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    where = f" {Path(path).name}" if path else ""
    line = printable(f"{what}{where} failed: {text}")
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"


class ErrorLog:
    """An append-only text file of the errors caught, each with its traceback.

    Writing never raises: a log that cannot be written (read-only folder, full disk) is
    reported by :attr:`last_write_error` and the app goes on.

    Parameters
    ----------
    path : path-like, optional
        Default :func:`default_log_path`.
    max_bytes : int
        Past this the file is rotated to ``<name>.1`` (:data:`MAX_LOG_BYTES`).
    """

    def __init__(self, path=None, max_bytes: int = MAX_LOG_BYTES) -> None:
        self.path = Path(path) if path is not None else default_log_path()
        self.max_bytes = int(max_bytes)
        self.last_write_error: str | None = None
        self._lock = threading.Lock()

    def write(self, exc: BaseException, where: str) -> None:
        """Append one entry: the time, where it was caught, the one line and the traceback."""
        stamp = datetime.datetime.now().isoformat(timespec="seconds")
        body = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        entry = f"--- {stamp} ({where}) {one_line(exc)}\n{body}\n"
        with self._lock:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                if self.path.exists() and self.path.stat().st_size > self.max_bytes:
                    os.replace(self.path, self.path.with_name(self.path.name + ".1"))
                with open(self.path, "a", encoding="utf-8", errors="backslashreplace") as out:
                    out.write(entry)
                self.last_write_error = None
            except OSError as err:
                self.last_write_error = f"cannot write the error log {self.path}: {err.strerror}"

    def tail(self, max_chars: int = 200_000) -> str:
        """The end of the log (at most ``max_chars``), or ``""`` when there is none."""
        try:
            with open(self.path, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - max_chars))
                return f.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
