"""The invariant check of the shown trees, in plain words for the Quality panel and the canvas."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class ViolationRow:
    """One broken invariant, in plain words for the Quality panel and the canvas.

    Attributes
    ----------
    body : int
        0 (A) or 1 (B).
    node : int
        Node id in the tree as the app holds it (-1: the whole tree).
    shown_id : int
        The id people see: the FILE'S node id for a tree read from a file, else ``node``.
    what : str
        What is wrong, e.g. "child sticks out of its parent".
    size : float
        How far outside, mesh units (0 for topology).
    text : str
        One line naming the node and the problem.
    part : str
        What sticks out, as the check names it: ``"child 75"`` (the file's id for a tree
        read from a file) or ``"triangle 1234"``; "" when the violation names neither.
    axis : str
        The axis and side it sticks out the most along, ``"+x"`` ... ``"-z"``; "" when there
        is none (topology, or a box that is not a number).
    """

    body: int
    node: int
    shown_id: int
    what: str
    size: float
    text: str
    part: str = ""
    axis: str = ""


@dataclass(frozen=True)
class TreeCheck:
    """The last invariant check of the shown trees.

    Attributes
    ----------
    violations : tuple of ViolationRow
        Largest first.
    summaries : tuple of str
        One line per checked tree, e.g. "tree of A: 3 violations in 2 nodes; largest 0.01".
    frame_index : int
        Index of the frame whose trees were checked.
    is_every_refit : bool
        The check came with the frame (the "after every refit" setting), not on demand.
    bad_nodes : dict[int, (j,) int]
        Per body, every node with a violation, listed or not (drawn in red).
    n_found : dict[int, int]
        Per body, the violations found, listed or not (the check lists the largest 1,000);
        empty: as many as listed.
    caption : str
        Which trees were checked, in words: "frame 37, A: tree from mine.json, B: BVH Lab's
        AABB tree (midpoint split)", or for a tree checked as its file was read, "tree from
        mine.json as read, rest pose".
    """

    violations: tuple = ()
    summaries: tuple = ()
    frame_index: int = -1
    is_every_refit: bool = False
    bad_nodes: dict = field(default_factory=dict)
    n_found: dict = field(default_factory=dict)
    caption: str = ""

    def counts(self) -> dict[int, int]:
        """Per body with a violation, how many were found (the count the summaries give)."""
        counts: dict[int, int] = {}
        for v in self.violations:
            counts[v.body] = counts.get(v.body, 0) + 1
        for body, n in self.n_found.items():
            if n:
                counts[body] = max(int(n), counts.get(body, 0))
        return counts

    def status(self) -> str:
        """The status-bar line: "tree of A: 3 violations — see the Quality panel" (or the
        summaries when every tree is fine). It counts every violation found, as the
        panel's summaries do, not only the listed ones."""
        if not self.violations:
            return "; ".join(self.summaries)
        counts = self.counts()
        parts = [f"tree of {'AB'[b]}: {n:,} violation{'s' if n != 1 else ''}"
                 for b, n in sorted(counts.items())]
        return "; ".join(parts) + " — see the Quality panel (Invariants)"

    def nodes(self, body: int):
        """``(j,) int64`` distinct node ids of body ``body`` with a violation."""
        if body in self.bad_nodes:
            return np.asarray(self.bad_nodes[body], dtype=np.int64)
        ids = sorted({v.node for v in self.violations if v.body == body and v.node >= 0})
        return np.asarray(ids, dtype=np.int64)
