"""Saving a file so that a failure never leaves half of it: write under a temporary name
beside the target, then rename over it (:func:`replace_file`). Every file BVH Lab writes (its
zip containers, trees, meshes, tables, lessons, figures) goes through here.

A temporary file is named ``NAME.PID.XXXXXXXX.part`` (the writer's process id in it) and is
removed on every exit path the process lives through: an exception or a cancel (``finally``),
a normal exit or a quit on SIGTERM (``atexit``). A process killed outright cannot remove it,
so the next write of the same name removes the leftovers of writers no longer alive, and a
program that keeps a journal (:func:`set_write_journal`; the app keeps one in its state
directory) sweeps them wherever they are at its next start (:func:`sweep_journal`).
"""

from __future__ import annotations

import atexit
import glob
import os
import stat
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def _read_umask() -> int:
    """The process's file-creation mask (reading it means setting it, so set it back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once at import: ``os.umask`` is process-wide, and saving runs in a worker thread.
_UMASK = _read_umask()

NEW_FILE_MODE = 0o666 & ~_UMASK
"""Permissions of a file this app saves: what any new file of the user gets."""


PART_SUFFIX = ".part"

_in_progress: set[str] = set()  # temporary files this process is writing now
_in_progress_lock = threading.Lock()
_journal: list[Path] = []  # [folder] where each write in progress is noted, when one is set


@atexit.register
def _remove_in_progress() -> None:
    """At exit (a normal one, or a quit on SIGTERM), no temporary file of ours stays."""
    with _in_progress_lock:
        for name in _in_progress:
            Path(name).unlink(missing_ok=True)
        _in_progress.clear()


def set_write_journal(folder) -> None:
    """Note every temporary file in ``folder`` while it is written (one small file each,
    removed with it), so a later :func:`sweep_journal` finds what a killed process left;
    None stops noting."""
    _journal[:] = [] if folder is None else [Path(folder)]


def _is_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def _writer_pid(part: Path) -> int | None:
    """The PID in ``NAME.PID.XXXXXXXX.part``, or None for a name we did not make."""
    if not part.name.endswith(PART_SUFFIX):
        return None
    pieces = part.name[: -len(PART_SUFFIX)].rsplit(".", 2)
    return int(pieces[1]) if len(pieces) == 3 and pieces[1].isdigit() else None


def _remove_if_stale(part: Path) -> bool:
    pid = _writer_pid(part)
    if pid is None or _is_alive(pid):
        return False
    try:
        if stat.S_ISREG(os.lstat(part).st_mode):
            part.unlink()
            return True
    except OSError:
        pass
    return False


def sweep_stale_parts(folder, name: str | None = None) -> int:
    """Remove the temporary files in ``folder`` (of target ``name``, or of any) whose writer
    is no longer alive; returns how many were removed."""
    pattern = f"{glob.escape(name)}.*{PART_SUFFIX}" if name else f"*{PART_SUFFIX}"
    return sum(_remove_if_stale(part) for part in Path(folder).glob(pattern))


def sweep_journal(folder) -> int:
    """Remove what writers no longer alive left, as noted in the journal ``folder``
    (:func:`set_write_journal`): their temporary files and the notes; returns how many
    temporary files were removed."""
    removed = 0
    try:
        notes = list(Path(folder).glob("*.note"))
    except OSError:
        return 0
    for note in notes:
        pid = note.name.split(".", 1)[0]
        if not pid.isdigit() or _is_alive(int(pid)):
            continue
        try:
            part = Path(note.read_text(encoding="utf-8", errors="replace")[:4096])
        except OSError:
            continue
        removed += _remove_if_stale(part)
        note.unlink(missing_ok=True)
    return removed


def _file_kind_words(mode: int) -> str:
    for test, words in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                        (stat.S_ISSOCK, "a socket")):  # fmt: skip
        if test(mode):
            return words
    return "not a regular file"


def writable_target(path: Path) -> Path:
    """The file a save to ``path`` replaces: ``path`` itself, or the file a symbolic link
    names (the link stays a link).

    Raises
    ------
    OSError
        ``path`` (or what it links to) exists and is not a regular file (a device, a FIFO,
        a folder): replacing it would destroy it, so it is refused.
    """
    path = Path(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    if not stat.S_ISREG(mode):
        raise OSError(f"{path} is {_file_kind_words(mode)}, not a regular file: refused to "
                      "write over it")
    return target


def replace_file(path: Path, write: Callable[[BinaryIO], None]) -> None:
    """Write a file under a temporary name beside ``path``, then rename it over ``path``.

    A failure (or an exception from ``write``, such as a cancel) leaves an existing file as
    it was and no temporary file behind (see the module docstring for the other exit paths).
    The new file gets the permissions any new file of the user gets (0o666 less the umask):
    ``mkstemp`` alone would make it owner-only.

    Parameters
    ----------
    path : pathlib.Path
        A regular file or a new name; a symbolic link writes the file it names.
    write : callable
        ``write(stream)`` writes the whole content to the binary stream.

    Raises
    ------
    OSError
        The folder is missing or not writable, the disk is full, ``path`` is not a regular
        file ...
    """
    path = writable_target(path)
    sweep_stale_parts(path.parent, path.name)
    made = temp = note = None
    try:
        fd, made = tempfile.mkstemp(prefix=f"{path.name}.{os.getpid()}.", suffix=PART_SUFFIX,
                                    dir=path.parent)  # fmt: skip
        temp = made
        with _in_progress_lock:
            _in_progress.add(made)
        if _journal:
            note = _write_note(_journal[0], made)
        with os.fdopen(fd, "wb") as stream:
            write(stream)
        os.chmod(temp, NEW_FILE_MODE)
        os.replace(temp, path)
        temp = None  # renamed: nothing to remove
    finally:
        if temp is not None:
            Path(temp).unlink(missing_ok=True)
        with _in_progress_lock:
            _in_progress.discard(made)
        if note is not None:
            note.unlink(missing_ok=True)


def _write_note(folder: Path, temp: str) -> Path | None:
    """The journal's note of ``temp`` (None when the journal cannot be written: the write
    goes on, only a later sweep would miss it)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        note = folder / f"{os.getpid()}.{Path(temp).name}.note"
        note.write_text(temp, encoding="utf-8")
        return note
    except OSError:
        return None
