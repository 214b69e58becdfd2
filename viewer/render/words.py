"""Words for what is drawn, as plain values: how the volumes of the frame's kind are called
and which test separated a culled pair, and how a tree node is named (pure: no pyvista, no
Qt, no core).

The words themselves belong to each bounding-volume kind (its registry row in the core:
``noun``, ``noun_plural``, ``pair_noun``, ``separating_test``); :mod:`viewer.words.kinds` copies
them into a :class:`KindWords`, which reaches the drawing code inside the frame's volumes
(``VolumeSet.words``). This module only says what to print when there is nothing to name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

OVERLAPPED = -1
"""Mirror of ``core.collide.trace.OVERLAPPED`` (a test checks they agree)."""


@dataclass(frozen=True)
class KindWords:
    """How one bounding-volume kind is named on screen.

    Attributes
    ----------
    noun, plural, pairs : str
        One volume, several, a pair of them in a sentence ("sphere", "spheres", "sphere
        pairs"). The defaults name no kind: what the legend says before the first frame.
    separating_test : callable or None
        ``separating_test(sep_id: int) -> str``: the kind's test that culled a pair, in
        words; None: "test <id>".
    """

    noun: str = "volume"
    plural: str = "volumes"
    pairs: str = "volume pairs"
    separating_test: Callable[[int], str] | None = None

    def separation(self, sep_id: int) -> str:
        """Which test separated a culled pair, in words ("A's axis 2 (y)", "slab 5
        (direction (1, 1, 0))", "centre distance"); "overlapping" for :data:`OVERLAPPED`."""
        sep_id = int(sep_id)
        if sep_id == OVERLAPPED:
            return "overlapping"
        if self.separating_test is None:
            return f"test {sep_id}"
        return self.separating_test(sep_id)


UNNAMED = KindWords()
"""The words when no frame says which kind was tested."""


def node_label(node: int, file_ids=None) -> str:
    """A tree node as people read it: the FILE'S id for a tree read from a file, with BVH
    Lab's own id beside it when the two differ ("68 (BVH Lab's 6587)"); else "6587".

    One wording for every table and caption, so a node reads the same everywhere (the
    Quality table and the caption named 6587 where the outliner and the Invariants table
    named 68).

    Parameters
    ----------
    node : int
        BVH Lab's node id (breadth-first layout).
    file_ids : (k,) int64 or None
        ``file_ids[node]`` is the node's id in the file (``ImportedTree.file_ids``); None
        for a tree BVH Lab built.
    """
    return ids_text(shown_node_id(node, file_ids), node)


def ids_text(shown_id: int, node: int) -> str:
    """``"68 (BVH Lab's 6587)"``: the id people see, BVH Lab's beside it when they differ."""
    shown_id, node = int(shown_id), int(node)
    return str(node) if shown_id == node else f"{shown_id} (BVH Lab's {node})"


def shown_node_id(node: int, file_ids=None) -> int:
    """The id :func:`node_label` puts first: the file's for a tree read from a file."""
    node = int(node)
    if file_ids is None or not 0 <= node < len(file_ids):
        return node
    return int(file_ids[node])
