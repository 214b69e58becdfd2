"""Text from someone else's file, made safe to print.

A file's text (a caption, a key, a name) may hold control characters: NUL, a newline that
breaks a one-line message in two, or a terminal escape (``ESC ] 0 ; title BEL`` retitles the
terminal, ``ESC [ 31 m`` colours it). Every message that quotes a file goes through
:func:`printable` before it reaches a terminal, a log or a dialog.
"""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` with control characters (terminal escapes, NUL, newlines) written as escapes.

    Idempotent: what it returns is printable, so a message escaped twice reads the same.
    """
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in text)  # fmt: skip
