"""Hostile files generated at test time (nothing big is stored): one module per format.

Each module's ``cases()`` yields :class:`Case` tuples ``(name, write, words, kind)``:
``write(folder) -> path`` makes the file, ``words`` is a fragment the one-line message must
hold, ``kind`` the class of defect (one GUI test opens one case of each class).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple


class Case(NamedTuple):
    """A hostile file: how to make it and what its one-line message must say."""

    name: str
    write: Callable[[Path], Path]
    words: str
    kind: str


def one_per_kind(cases) -> list[Case]:
    """The first case of each class of defect, in order."""
    seen: dict[str, Case] = {}
    for case in cases:
        seen.setdefault(case.kind, case)
    return list(seen.values())
