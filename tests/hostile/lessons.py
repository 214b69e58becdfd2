"""Hostile lesson files (TOML), made at test time: the big ones sparse or generated.

:func:`cases` yields :class:`tests.hostile.Case` tuples; ``words`` is a fragment of the
one-line :class:`viewer.lessons.LessonError` the file must give, through ``read_lesson``,
``python -m viewer --lesson FILE --export OUT`` (after ``error: ``, exit status 2) and
Lessons > Open alike. Every message is printable: a control character of the file is an
escape in it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from tests.hostile import Case

STEP = '[[step]]\ncaption = "Two spheres."\nscene = "two-spheres"\n'
MESH_STEP = '[[step]]\ncaption = "A mesh."\nmeshes = {names}\n'
TRIANGLE_OBJ = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"


def _text(text: str | bytes, name: str = "hostile.toml", mesh: bool = False
          ) -> Callable[[Path], Path]:
    """A lesson of ``text`` (``mesh``: with a one-triangle ``m.obj`` beside it)."""

    def write(folder: Path) -> Path:
        if mesh:
            (folder / "m.obj").write_text(TRIANGLE_OBJ)
        path = folder / name
        path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
        return path

    return write


def _sparse(size: int) -> Callable[[Path], Path]:
    """A lesson of ``size`` bytes that takes no disk space: a step, then a hole of NULs."""

    def write(folder: Path) -> Path:
        path = folder / "sparse.toml"
        with open(path, "wb") as out:
            out.write(STEP.encode())
            out.truncate(size)
        return path

    return write


def _meshes(names: list[str]) -> str:
    return "[" + ", ".join(f'"{n}"' for n in names) + "]"


def cases() -> Iterator[Case]:
    """Every hostile lesson of the catalogue."""
    # Size: read at most the cap and one byte more.
    yield Case("1 GiB sparse file", _sparse(2**30), "larger than 1 MiB", "size")
    yield Case("1 MiB and one byte of comment", _text(STEP + "#" * (2**20) + "\n"),
               "larger than 1 MiB", "size")
    yield Case("a caption of 100,000 characters", _text(
        '[[step]]\ncaption = "' + "x" * 100_000 + '"\n'), "100,000 characters; text holds at "
        "most 2,000", "size")
    yield Case("an unknown key of 100,000 characters", _text(STEP + "k" * 100_000 + " = 1\n"),
               "unknown key", "size")
    # Nesting: one line, not a RecursionError.
    yield Case("arrays nested 100,000 deep", _text(STEP + "level = " + "[" * 100_000
                                                   + "]" * 100_000 + "\n"),
               "nest too deeply", "nesting")
    yield Case("inline tables nested 100,000 deep", _text(
        STEP + "camera = " + "{ a = " * 100_000 + "1" + " }" * 100_000 + "\n"),
        "nest too deeply", "nesting")
    # Numbers beyond what Python reads, or a float holds.
    yield Case("a 5,000-digit integer", _text(STEP + "level = " + "9" * 5000 + "\n"),
               "4300 digits", "digits")
    yield Case("a 400-digit hold", _text(STEP + "hold = " + "9" * 400 + "\n"),
               "key 'hold': a 400-digit number is not a number", "digits")
    yield Case("a 400-digit camera coordinate", _text(
        STEP + "camera = { position = [" + "9" * 400 + ", 0, 0], focal_point = [0, 0, 0], "
        "up = [0, 1, 0] }\n"), "key 'camera.position'", "digits")
    # Counts and durations.
    yield Case("hold 1e300", _text(STEP + "hold = 1e300\n"), "a step is held at most 120",
               "count")
    yield Case("hold inf", _text(STEP + "hold = inf\n"), "inf is not a number", "count")
    yield Case("play_frames 10^12", _text(STEP + "play_frames = 1000000000000\n"),
               "is more than 3,000", "count")
    yield Case("step_pairs 10^12", _text(STEP + "step_pairs = 1000000000000\n"),
               "is more than 10,000,000", "count")
    yield Case("level 10^12", _text(STEP + "level = 1000000000000\n"), "is not a level",
               "count")
    yield Case("experiment size 10^12", _text(
        STEP + 'experiment = { name = "pcp", sizes = [1000000000000] }\n'),
        "at most 500,000 each", "count")
    yield Case("nine experiment sizes", _text(
        STEP + 'experiment = { name = "pcp", sizes = [1, 2, 3, 4, 5, 6, 7, 8, 9] }\n'),
        "at most 8 sizes", "count")
    yield Case("10,000 steps", _text(STEP * 10_000), "10,000 steps; a lesson has at most 500",
               "count")
    # Mesh references: capped per step and per lesson.
    yield Case("one mesh 20,000 times in a step", _text(
        MESH_STEP.format(names=_meshes(["m.obj"] * 20_000)), mesh=True),
        "20,000 mesh files; a step opens at most 16", "meshes")
    yield Case("one mesh in 70 steps", _text(
        (MESH_STEP.format(names=_meshes(["m.obj"])) + STEP) * 70, mesh=True),
        "more than 64 mesh files named in the lesson", "meshes")
    yield Case("a mesh name too long for the system", _text(
        MESH_STEP.format(names=_meshes(["n" * 300 + ".obj"]))), "is not a usable file name",
        "meshes")
    # Control characters: refused in text, escaped in every message.
    yield Case("a caption with a terminal title escape", _text(
        '[[step]]\ncaption = "\\u001b]0;pwned\\u0007 and \\u001b[31mred"\n'),
        "holds the control character U+001B", "escape")
    yield Case("a caption with NUL", _text('[[step]]\ncaption = "a\\u0000b"\n'),
               "holds the control character U+0000", "escape")
    yield Case("a mesh name with NUL", _text(MESH_STEP.format(names='["m\\u0000.obj"]')),
               "holds the control character U+0000", "escape")
    yield Case("a file name with escapes", _text('[[step]]\ncaption = 1\n',
                                                 name="evil\x1b]0;pwned\x07.toml"),
               "evil\\x1b]0;pwned\\x07.toml line 2: step 1 key 'caption'", "escape")
    yield Case("a wrong value with escapes", _text(STEP + 'view = "\\u001b[2J"\n'),
               "'\\x1b[2J' is not a named view", "escape")
    # Types and encodings.
    yield Case("not UTF-8", _text(b"\xff\xfe" + STEP.encode("utf-16-le")),
               "not a text file (UTF-8)", "type")
    yield Case("camera NaN", _text(STEP + "camera = { position = [nan, 0, 0], focal_point = "
                                   "[0, 0, 0], up = [0, 1, 0] }\n"),
               "is not three numbers [x, y, z], each finite", "type")
    yield Case("steps not tables", _text("step = [1, 2, 3]\n"),
               "must be written as [[step]] tables", "type")
