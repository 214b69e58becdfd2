"""The last line of defence: an exception no code caught is shown, logged, and survived.

PyQt6 hands an exception that escapes a slot (or a Python override of a Qt virtual) to
``sys.excepthook``; while that is Python's default hook it then calls ``qFatal()``, which
aborts the process (SIGABRT) and loses every change since the last autosave. With
:func:`install` the hook logs the traceback (:class:`viewer.control.error_log.ErrorLog`),
shows one line naming the operation and the file in the window, and returns, so the event
loop goes on. Exceptions escaping a worker thread (``threading.excepthook``) take the same
road; their message is carried to the GUI thread by a queued signal, since widgets may only be
touched there.

The guard does not undo what the failed slot had done before it raised: the readers validate
a file completely before anything reaches the model, so a bad file leaves the scene as it was.
"""

from __future__ import annotations

import sys
import threading

from PyQt6.QtCore import QObject, Qt, pyqtSignal
from PyQt6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QVBoxLayout,
)

from viewer.control.error_log import ErrorLog, one_line


class _Relay(QObject):
    """Carries a caught error's line to the GUI thread (a queued connection across threads)."""

    caught = pyqtSignal(str)


class ErrorGuard:
    """The installed hooks and what they report to.

    Parameters
    ----------
    show : callable
        ``show(line)``, called on the GUI thread with the one line to show the user.
    log : ErrorLog

    Attributes
    ----------
    lines : list of str
        The last lines shown this session, oldest first (at most :attr:`MAX_KEPT_LINES`).
    """

    MAX_KEPT_LINES = 100

    def __init__(self, show, log: ErrorLog) -> None:
        self.show = show
        self.log = log
        self.lines: list[str] = []
        self._relay = _Relay()
        self._relay.caught.connect(self._show)
        self._previous = (sys.excepthook, threading.excepthook)
        self._is_showing = False

    def handle(self, exc: BaseException, where: str) -> None:
        """Log ``exc`` and show its line in the window (from any thread)."""
        try:
            self.log.write(exc, where)
            line = one_line(exc)
            if self.log.last_write_error:
                line += f" ({self.log.last_write_error})"
        except Exception as inner:  # the guard itself must not raise into Qt
            line = f"An operation failed: {exc!r} (and reporting it failed: {inner!r})"
        print(line, file=sys.stderr, flush=True)
        self._relay.caught.emit(line)

    def _show(self, line: str) -> None:
        self.lines.append(line)
        del self.lines[: -self.MAX_KEPT_LINES]
        if self._is_showing:  # failed while showing a failure: the log and stderr have it
            return
        self._is_showing = True
        try:
            self.show(line)
        except Exception as inner:
            print(f"showing the error failed too: {inner!r}", file=sys.stderr, flush=True)
        finally:
            self._is_showing = False

    def _excepthook(self, exc_type, exc, tb) -> None:
        if exc is None:
            exc = exc_type()
        if exc.__traceback__ is None:
            exc = exc.with_traceback(tb)
        if isinstance(exc, KeyboardInterrupt):
            self._previous[0](exc_type, exc, tb)
            return
        self.handle(exc, "in the window")

    def _thread_hook(self, args) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "a worker"
        self.handle(args.exc_value, f"in the worker thread {name}")

    def install(self) -> ErrorGuard:
        """Replace ``sys.excepthook`` and ``threading.excepthook``; returns self."""
        sys.excepthook = self._excepthook
        threading.excepthook = self._thread_hook
        return self

    def uninstall(self) -> None:
        """Put the hooks that were there before back."""
        sys.excepthook, threading.excepthook = self._previous


def install(window: QMainWindow, log: ErrorLog) -> ErrorGuard:
    """Guard the running app (see the module docstring).

    Parameters
    ----------
    window : viewer.qt.main_window.MainWindow
        Its ``show_error`` (a non-blocking message box and the status bar) shows the line.
    log : ErrorLog

    Returns
    -------
    ErrorGuard
    """

    def show(line: str) -> None:
        window.show_error("An operation failed", f"{line}\n\nYour scene is as it was. The "
                          f"details are in the error log ({log.path}): Help > Error log.")

    window.error_log = log  # Help > Error log shows the file the guard writes
    return ErrorGuard(show, log).install()


def error_log_dialog(parent, log: ErrorLog) -> QDialog:
    """Help > Error log: the log's path and its last entries, read-only and selectable.

    Parameters
    ----------
    parent : QWidget
    log : ErrorLog

    Returns
    -------
    QDialog
        Not yet shown; the caller opens it.
    """
    dialog = QDialog(parent)
    dialog.setObjectName("error_log_dialog")
    dialog.setWindowTitle("Error log")
    text = log.tail()
    where = QLabel(f"Errors caught this session and before, newest last: {log.path}"
                   if text else f"No error has been logged (the log would be {log.path}).")
    where.setWordWrap(True)
    where.setTextInteractionFlags(where.textInteractionFlags()
                                  | Qt.TextInteractionFlag.TextSelectableByMouse)
    view = QPlainTextEdit(text)
    view.setObjectName("error_log_text")
    view.setReadOnly(True)
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    view.moveCursor(view.textCursor().MoveOperation.End)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(where)
    layout.addWidget(view)
    layout.addWidget(buttons)
    dialog.resize(900, 520)
    return dialog
