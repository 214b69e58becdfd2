"""Reading a lesson file: at most :data:`~viewer.lessons.schema.MAX_LESSON_BYTES` of a
regular file, parsed as TOML and checked (:mod:`viewer.lessons.checking`) into a
:class:`~viewer.lessons.schema.Lesson`; every mistake one
:class:`~viewer.lessons.schema.LessonError`.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

try:  # Python 3.11+ has tomllib; 3.10 (Ubuntu 22.04's python3) gets the same parser as tomli
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

from core.text import MAX_NESTING, nests_deeper_than
from viewer.lessons.checking import LessonChecker
from viewer.lessons.schema import (
    MAX_LESSON_BYTES,
    Lesson,
    LessonError,
)


def parse_lesson(text: str, path) -> Lesson:
    """The lesson in ``text`` (read from ``path``, which names it in errors and anchors
    relative mesh paths). Raises :class:`LessonError`."""
    path = Path(path)
    if len(text) > MAX_LESSON_BYTES:
        raise LessonError(f"{path.name}: {len(text):,} characters; a lesson file holds at most "
                          f"{MAX_LESSON_BYTES // 2**20} MiB")
    if nests_deeper_than(text, MAX_NESTING, "toml"):
        raise LessonError(f"{path.name}: not valid TOML: arrays or tables nest too deeply "
                          f"(more than {MAX_NESTING} levels)")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = re.search(r"\(at line (\d+), column \d+\)", message)
        line = int(match.group(1)) if match else 1
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", message)
        raise LessonError(f"{path.name} line {line}: not valid TOML: {reason}") from None
    except RecursionError:
        raise LessonError(f"{path.name}: not valid TOML: arrays or tables nest too deeply"
                          ) from None
    except ValueError as exc:  # an integer of more digits than Python converts (4300)
        reason = str(exc).split(";")[0].strip() or "a value cannot be read"
        raise LessonError(f"{path.name}: not valid TOML: {reason}") from None
    try:
        return LessonChecker(path, text).lesson(data)
    except RecursionError:  # a value nested deeper than a message can quote it
        raise LessonError(f"{path.name}: a value nests too deeply") from None


def read_lesson_text(path) -> str:
    """The text of the lesson file ``path``: at most :data:`MAX_LESSON_BYTES` of it is read
    (a bigger file is refused without reading the rest), and only from a regular file.
    Raises :class:`LessonError`."""
    path = Path(path)
    try:
        # Non-blocking, so that a FIFO named .toml cannot hang the open; refused below.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as stream:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                raise LessonError(f"{path}: not a regular file")
            data = stream.read(MAX_LESSON_BYTES + 1)
    except FileNotFoundError:
        raise LessonError(f"{path}: no such lesson file") from None
    except (OSError, ValueError) as exc:
        if isinstance(exc, LessonError):
            raise
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise LessonError(f"{path}: cannot be read ({reason})") from None
    if len(data) > MAX_LESSON_BYTES:
        raise LessonError(f"{path.name}: larger than {MAX_LESSON_BYTES // 2**20} MiB; a lesson "
                          f"file holds at most {MAX_LESSON_BYTES // 2**20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise LessonError(f"{path.name}: not a text file (UTF-8)") from None


def read_lesson(path) -> Lesson:
    """Read (:func:`read_lesson_text`) and check the lesson file ``path``. Raises
    :class:`LessonError`."""
    return parse_lesson(read_lesson_text(path), path)
