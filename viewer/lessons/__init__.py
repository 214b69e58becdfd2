"""Lessons: TOML files of steps a teacher plays in lecture mode or exports to a video.

:mod:`viewer.lessons.schema` holds a file's keys, limits and records;
:mod:`viewer.lessons.reading` reads a file and :mod:`viewer.lessons.checking` checks it;
:mod:`viewer.lessons.views` turns a named view into a camera; :mod:`viewer.lessons.writing`
writes a step back (Lessons > Save current state as a lesson step). The five built-in
lessons ship in ``builtin/``.
"""

from __future__ import annotations

from pathlib import Path

from viewer.lessons.reading import parse_lesson, read_lesson
from viewer.lessons.schema import (
    DEFAULT_HOLD_SECONDS,
    NAMED_VIEWS,
    STEP_KEYS,
    CameraSpec,
    ExperimentSpec,
    Lesson,
    LessonError,
    LessonStep,
)

BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"
"""Where the built-in lessons ship (package data)."""

BUILTIN_LESSONS = {
    "aabb-levels": "An AABB tree, level by level",
    "tandem-traversal": "The tandem traversal, step by step",
    "aabb-vs-obb": "AABB against OBB in parallel close proximity",
    "refit-vs-rebuild": "Refit against rebuild under deformation",
    "partitions-vs-hierarchies": "Spatial partitions against hierarchies",
}
"""The built-in lessons by name (their file is ``builtin/NAME.toml``), with their titles."""


def lesson_path(name_or_path) -> Path:
    """The file of a built-in lesson's name, or ``name_or_path`` as a path (a ``.toml``
    file). Raises :class:`LessonError` naming it when it is neither."""
    text = str(name_or_path)
    if text in BUILTIN_LESSONS:
        return BUILTIN_DIR / f"{text}.toml"
    path = Path(text).expanduser()
    if path.suffix.lower() != ".toml":
        raise LessonError(f"{text}: not a built-in lesson ({', '.join(BUILTIN_LESSONS)}) nor "
                          "a .toml lesson file")
    if not path.is_file():
        raise LessonError(f"{text}: " + ("not a regular file" if path.exists()
                                         else "no such lesson file"))
    return path


def load_lesson(name_or_path) -> Lesson:
    """A built-in lesson by name, or a lesson file. Raises :class:`LessonError`."""
    return read_lesson(lesson_path(name_or_path))


__all__ = ["BUILTIN_DIR", "BUILTIN_LESSONS", "DEFAULT_HOLD_SECONDS", "NAMED_VIEWS", "STEP_KEYS",
           "CameraSpec", "ExperimentSpec", "Lesson", "LessonError", "LessonStep",
           "lesson_path", "load_lesson", "parse_lesson", "read_lesson"]
