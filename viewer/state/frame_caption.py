"""Which frame and which trees a number on screen comes from, in words.

Plain Python over the frame record (no core call, no Qt), shared by the controller (the
invariant check's caption) and the panels' header lines (:mod:`viewer.qt.panels.common`):
"frame 37, A: tree from mine.json, B: BVH Lab's AABB tree (midpoint split)".
"""

from __future__ import annotations

BODY_LETTERS = ("A", "B")


def tree_words(frame, body: int) -> str:
    """Which tree body ``body`` used in ``frame`` (``Frame.tree_words``): "tree from
    mine.json" for a tree pinned from a file, "BVH Lab's AABB tree (midpoint split)"."""
    return frame.tree_words(body)


def frame_caption(frame, bodies=None) -> str:
    """``"frame 37, A: tree from mine.json, B: BVH Lab's AABB tree (midpoint split)"``:
    the frame's number and the tree of each of ``bodies`` (default: A and B, or the one
    tree of a self-collision frame)."""
    n_trees = len(frame.trees)
    if n_trees == 1:
        return f"frame {frame.index}, tree: {tree_words(frame, 0)}"
    if bodies is None:
        bodies = range(min(2, n_trees))
    trees = [f"{BODY_LETTERS[b]}: {tree_words(frame, b)}" for b in bodies if b < n_trees]
    return ", ".join([f"frame {frame.index}", *trees])
