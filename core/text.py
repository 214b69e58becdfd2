"""Text from someone else's file, made safe to print.

A file's text (a caption, a key, a name) may hold control characters: NUL, a newline that
breaks a one-line message in two, or a terminal escape (``ESC ] 0 ; title BEL`` retitles the
terminal, ``ESC [ 31 m`` colours it). Every message that quotes a file goes through
:func:`printable` before it reaches a terminal, a log or a dialog.
"""

from __future__ import annotations

import re


def printable(text: str) -> str:
    """``text`` with control characters (terminal escapes, NUL, newlines) written as escapes.

    Idempotent: what it returns is printable, so a message escaped twice reads the same.
    """
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in text)  # fmt: skip


MAX_NESTING = 64
"""Arrays and tables (TOML) or arrays and objects (JSON) nested deeper than this are refused
before parsing. Lessons and manifests nest 4 or 5 deep. Python's parsers recurse once a
level: a file nested 100,000 deep ended in a RecursionError at the bottom of the stack,
where finalizers of unrelated objects that ran in that moment failed too (a full test run
reported them as unraisable exceptions)."""

_TOML_TOKENS = re.compile(
    r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]',
    re.S)
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)


def nests_deeper_than(text: str, limit: int = MAX_NESTING, syntax: str = "json") -> bool:
    """Whether brackets outside strings (and TOML comments) nest deeper than ``limit``.

    One regular-expression pass, no recursion; it stops at the first level past ``limit``.
    Unbalanced or badly quoted text is left to the parser, which names the mistake.

    Parameters
    ----------
    text : str
    limit : int
    syntax : {"json", "toml"}
    """
    tokens = {"json": _JSON_TOKENS, "toml": _TOML_TOKENS}[syntax]
    depth = 0
    for match in tokens.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return True
        elif token in "]}":
            depth -= 1
    return False
