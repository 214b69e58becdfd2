"""Every command line in the README and docs/ names options that exist, and the examples run.

A command line is a ``python -m MODULE ...`` line in a fenced block (an optional ``$ `` prompt
and ``.venv/bin/`` are dropped) or in an inline code span. For each one the module's ``--help``
(the sub-command's, for ``python -m core SUB``) must list every ``--option`` it names. The
examples, lines whose files all exist once the lines before them in the same document ran,
are run in a scratch folder holding ``assets/`` and ``examples/`` and must succeed, in the
order the document gives them (``core tree ... --out spot.json`` makes the file the next line
measures). Lines that name placeholders (``MESH``, ``FILE``) or a reader's own files are
illustrations: only their options are checked.
"""

from __future__ import annotations

import contextlib
import io
import re
import runpy
import shlex
import sys
import warnings
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCUMENTS = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]

# Examples whose options are checked but that are not run, each with the reason.
NOT_RUN = {
    "benchmarks": "a benchmark takes minutes and is never run by pytest (docs/benchmarks.md)",
    "core experiment": "an experiment at its documented sizes takes minutes; "
                       "tests/core/experiments/ run every experiment at small sizes",
    "core.collide.exact": "a million exact-arithmetic pairs take minutes; tests/core run the "
                          "same fuzz at small sizes",
    "viewer": "opens the window, records or exports video; tests/viewer drive the same paths",
}

# What a command line may start with; anything else in a fenced block is not a command.
_PROMPT = re.compile(r"^(?:\$ )?(?:\.venv/bin/)?(python3? -m .*)$")


def _lines(text: str):
    """``(line number, line, is inside a fenced block)`` of every line but the fences."""
    is_fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            is_fenced = not is_fenced
        else:
            yield number, line, is_fenced


def _fenced_lines(text: str):
    """``(line number, command)`` of the command lines inside fenced blocks."""
    for number, line, is_fenced in _lines(text):
        match = _PROMPT.match(line.strip()) if is_fenced else None
        if match:
            yield number, match.group(1)


def _inline_spans(text: str):
    """``(line number, command)`` of ``python -m`` code spans outside fenced blocks."""
    for number, line, is_fenced in _lines(text):
        if not is_fenced:
            for match in re.finditer(r"`(python3? -m [^`]+)`", line):
                yield number, match.group(1)


def _words(command: str) -> list[str]:
    """The command's words after ``python -m``, without a trailing comment or a chained
    second command (``&& ...``)."""
    words = shlex.split(command, comments=True)
    if "&&" in words:
        words = words[:words.index("&&")]
    return words[2:]


def _commands():
    out = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        name = document.relative_to(REPO).as_posix()
        out += [(name, number, command, True) for number, command in _fenced_lines(text)]
        out += [(name, number, command, False) for number, command in _inline_spans(text)]
    return out


# Not ours to check: the venv and pytest lines of the set-up (their options are pip's and
# pytest's, and `make test` has just run them).
NOT_OURS = ("venv", "pytest")
COMMANDS = [entry for entry in _commands() if _words(entry[2])[0] not in NOT_OURS]


def _not_run_reason(words: list[str]) -> str | None:
    head = words[0]
    for key, reason in NOT_RUN.items():
        parts = key.split()
        if words[:len(parts)] == parts or head.split(".")[0] == key:
            return reason
    return None


def _run(words: list[str]) -> tuple[int, str]:
    """Run ``python -m WORDS`` in this process; (exit status, standard output)."""
    out = io.StringIO()
    argv = sys.argv
    sys.argv = [words[0], *words[1:]]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
                warnings.catch_warnings():
            # "found in sys.modules ... prior to execution": the test process imported the
            # module already; running it as __main__ again is what python -m does.
            warnings.simplefilter("ignore", RuntimeWarning)
            runpy.run_module(words[0], run_name="__main__", alter_sys=True)
        status = 0
    except SystemExit as stop:
        status = 0 if stop.code is None else stop.code if isinstance(stop.code, int) else 1
    finally:
        sys.argv = argv
    return status, out.getvalue()


_HELP: dict[tuple, str] = {}


def _help(words: list[str]) -> str:
    """``--help`` of the module, or of its sub-command for ``core SUB``."""
    key = tuple(words[:2]) if words[0] == "core" and len(words) > 1 and not \
        words[1].startswith("-") else (words[0],)
    if key not in _HELP:
        _status, text = _run([*key, "--help"])
        _HELP[key] = text
    return _HELP[key]


def _options(words: list[str]) -> list[str]:
    return sorted({word.strip("[]").split("=")[0] for word in words
                   if word.strip("[]").startswith("--")})


def test_the_documents_have_command_lines():
    names = {name for name, *_ in COMMANDS}
    assert {"README.md", "docs/command-line.md", "docs/tree-quality.md"} <= names
    assert len(COMMANDS) >= 40


@pytest.mark.parametrize("where,number,command,is_fenced", COMMANDS,
                         ids=[f"{name}:{number}" for name, number, *_ in COMMANDS])
def test_every_option_a_command_line_names_exists(where, number, command, is_fenced):
    words = _words(command)
    text = _help(words)
    assert text, f"{where}:{number}: `python -m {words[0]} --help` printed nothing"
    for option in _options(words):
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text), \
            f"{where}:{number}: {option} is not an option of python -m {' '.join(words[:2])}"


def _examples():
    """Per document, its fenced command lines in order, with whether each is run."""
    out = []
    for document in DOCUMENTS:
        name = document.relative_to(REPO).as_posix()
        lines = [(n, c) for n, c in _fenced_lines(document.read_text(encoding="utf-8"))
                 if _words(c)[0] not in NOT_OURS]
        if lines:
            out.append((name, lines))
    return out


def _is_placeholder(word: str) -> bool:
    return bool(re.fullmatch(r"[A-Z][A-Z0-9_]*(\.\.\.)?|\[.*|.*\]", word))


@pytest.mark.parametrize("where,lines", _examples(), ids=[name for name, _ in _examples()])
def test_the_examples_run(where, lines, tmp_path, monkeypatch):
    for folder in ("assets", "examples"):
        (tmp_path / folder).symlink_to(REPO / folder)
    monkeypatch.chdir(tmp_path)
    ran = 0
    for number, command in lines:
        words = _words(command)
        if _not_run_reason(words) or any(_is_placeholder(word) for word in words):
            continue
        outputs = {words[i + 1] for i, word in enumerate(words[:-1]) if word == "--out"}
        paths = [word for word in words[1:] if ("/" in word or re.search(r"\.\w{2,5}$", word))
                 and not word.startswith("-") and word not in outputs
                 and not re.fullmatch(r"[\d.,k]+", word)]
        if not all(Path(path).exists() for path in paths):
            continue  # a reader's own file (spot.obj, mine.json): an illustration
        status, _out = _run(words)
        assert status == 0, f"{where}:{number}: `{command}` exited with {status}"
        ran += 1
    if where in ("docs/command-line.md", "docs/tree-quality.md", "README.md"):
        assert ran >= 2, f"{where}: no example ran"
