"""What the inspector shows for a clicked triangle: the box above it and its pair tests.

The app's inspector (a click on a body) and the tests read one :class:`NodeInspection` of a
frame, live or recorded; the render layer draws the box and its partners from it and the
Levels panel words it, neither recomputes anything.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.collide.trace import OVERLAPPED


@dataclass(frozen=True)
class NodeTest:
    """One pair test of the inspected node.

    Attributes
    ----------
    level : int
        The traversal level of the test.
    partner : int
        The node of the other column (the other tree, or the same tree in self-collision).
    is_overlap : bool
    sep : int
        The trace's separating id, -1 if the pair overlapped.
    separation : str
        That test in words ("A's axis 2 (y)"); "" if the pair overlapped.
    """

    level: int
    partner: int
    is_overlap: bool
    sep: int
    separation: str


@dataclass(frozen=True)
class NodeInspection:
    """The inspected box of one body and its pair tests in one frame.

    Attributes
    ----------
    body : int
        0 (A) or 1 (B).
    node : int
        The box: the ancestor at tree depth ``depth`` of the leaf holding ``triangle``.
    depth : int
        Its tree depth.
    n_prims : int
        Triangles under it.
    triangle : int
        The clicked triangle.
    level : int or None
        The traversal level whose partners are listed (None: every level).
    partners : tuple of int
        The nodes it was tested against at ``level``.
    partner_overlaps : tuple of bool
        Per partner, whether the pair overlapped.
    partner_seps : tuple of int
        Per partner, the trace's separating id (-1 if the pair overlapped).
    partner_separations : tuple of str
        Per partner, that test in words ("overlapping" for an overlapping pair).
    kind : str or None
        The traversal's registry key; None for the self-traversal of the tree's own boxes.
    noun : str
        What one volume of that kind is called.
    levels_tested : tuple of int
        The traversal levels where the box was in a tested pair.
    tests : tuple of NodeTest
        Its pair tests at every traversal level, in trace order (so by level).
    """

    body: int
    node: int
    depth: int
    n_prims: int
    triangle: int
    level: int | None
    partners: tuple = ()
    partner_overlaps: tuple = ()
    partner_seps: tuple = ()
    partner_separations: tuple = ()
    kind: str | None = None
    noun: str = "volume"
    levels_tested: tuple = ()
    tests: tuple = ()


def _separation_words(volumes, sep_id: int) -> str:
    """Which test separated a culled pair, in words; "overlapping" for an overlapping pair
    (the kind's ``separating_test``, "test <id>" when the frame names no kind)."""
    sep_id = int(sep_id)
    if sep_id == OVERLAPPED:
        return "overlapping"
    if volumes is None:
        return f"test {sep_id}"
    return volumes.separating_test(sep_id)


def node_tests(trace, node: int, body: int, is_self: bool = False,
               volumes=None) -> tuple[NodeTest, ...]:
    """Every pair test of one node, at every traversal level, from the trace.

    The traversal level of a test and the node's tree depth differ (with the larger-volume
    rule a box at depth 5 may be tested at levels 9 to 11), so the inspector lists the tests
    by level instead of looking only at the level equal to the depth.

    Parameters
    ----------
    trace : core.collide.trace.Trace
    node : int
        Node id in the tree of ``body``.
    body : int
        0 (column ``node_a``) or 1 (``node_b``).
    is_self : bool
        One tree against itself: the node may be in either column.
    volumes : core.frame_volumes.FrameVolumes or None
        The traversal's volumes, whose kind says the separating tests.

    Returns
    -------
    tuple of NodeTest
        One per pair test, in trace order (so by level).
    """
    node_a, node_b = np.asarray(trace.node_a), np.asarray(trace.node_b)
    if is_self:
        in_a = node_a == node
        rows = np.flatnonzero(in_a | (node_b == node))
        partners = np.where(in_a[rows], node_b[rows], node_a[rows])
    else:
        column, other = (node_a, node_b) if body == 0 else (node_b, node_a)
        rows = np.flatnonzero(column == node)
        partners = other[rows]
    levels = np.searchsorted(np.asarray(trace.level_start), rows, side="right") - 1
    seps = np.asarray(trace.sep_axis)[rows]
    return tuple(NodeTest(int(d), int(p), int(x) < 0, int(x),
                          "" if int(x) < 0 else _separation_words(volumes, int(x)))
                 for d, p, x in zip(levels, partners, seps))


def _clicked_node(tree, tri_id: int, depth: int | None) -> int | None:
    """The ancestor at tree depth ``depth`` of the leaf holding ``tri_id`` (the leaf when
    None or deeper than it); None when no leaf holds it."""
    where = np.flatnonzero(np.asarray(tree.prim_ids) == tri_id)
    if where.size == 0:
        return None
    pos = int(where[0])
    leaves = np.flatnonzero(np.asarray(tree.count) > 0)
    starts = np.asarray(tree.first)[leaves]
    counts = np.asarray(tree.count)[leaves]
    inside = (starts <= pos) & (pos < starts + counts)
    node = int(leaves[np.flatnonzero(inside)[0]])
    if depth is not None:
        while int(tree.depth[node]) > depth and int(tree.parent[node]) >= 0:
            node = int(tree.parent[node])
    return node


def inspect_node(frame, body: int, tri_id: int, level: int | None,
                 depth: int | None = None) -> NodeInspection | None:
    """What the inspector shows for a clicked triangle of body 0 or 1.

    The clicked box is the ancestor, at tree depth ``depth`` (default: the chosen level's
    number, the depth the tree overlays draw), of the leaf holding triangle ``tri_id`` (the
    deepest leaf when both are None or deeper than the leaf). Its partners are those of
    traversal level ``level``; the window passes the depth of the first click when the level
    changes, so the same box stays inspected while the level slider moves.

    Parameters
    ----------
    frame : core.pipeline.Frame or None
    body : int
    tri_id : int
    level : int or None
    depth : int or None

    Returns
    -------
    NodeInspection or None
        None when there is no frame or no tree. With one body and self-collision, the
        partners are the boxes of the same tree it was paired with.
    """
    is_self = frame is not None and len(frame.trees) == 1 and frame.shown_result() is not None
    if frame is None or body > 1 or (len(frame.trees) < 2 and not (is_self and body == 0)):
        return None
    tree = frame.trees[body]
    node = _clicked_node(tree, tri_id, level if depth is None else depth)
    if node is None:
        return None
    result = frame.shown_result()
    trace = result.trace if result is not None else None
    # The self-traversal tests the tree's own boxes: its frame's volumes are those boxes.
    volumes = frame.volumes
    kind = volumes.name if volumes is not None and not is_self else None
    partners: list[int] = []
    overlaps: list[bool] = []
    seps: list[int] = []
    levels_tested: list[int] = []
    tests: tuple[NodeTest, ...] = ()
    if trace is not None and trace.n_levels:
        pairs, overlapped = trace.pairs(level)
        sep_ids = trace.separations(level)
        if is_self:
            # Either column may hold the box; its partner is the other one of the pair.
            first, second = pairs[:, 0] == node, pairs[:, 1] == node
            partners = ([int(p) for p in pairs[first, 1]]
                        + [int(p) for p in pairs[second & ~first, 0]])
            overlaps = ([bool(o) for o in overlapped[first]]
                        + [bool(o) for o in overlapped[second & ~first]])
            seps = ([int(x) for x in sep_ids[first]]
                    + [int(x) for x in sep_ids[second & ~first]])
        else:
            mine = pairs[:, body] == node
            partners = [int(p) for p in pairs[mine, 1 - body]]
            overlaps = [bool(o) for o in overlapped[mine]]
            seps = [int(x) for x in sep_ids[mine]]
        # With the larger-volume rule a box is not always tested at the level equal to its
        # depth: list every level where it was.
        column = trace.node_a if body == 0 else trace.node_b
        rows = np.flatnonzero(np.asarray(column) == node)
        if is_self:
            rows = np.flatnonzero((np.asarray(trace.node_a) == node)
                                  | (np.asarray(trace.node_b) == node))
        levels_tested = sorted({int(d) for d in
                                np.searchsorted(trace.level_start, rows, side="right") - 1})
        tests = node_tests(trace, node, body, is_self, volumes)
    return NodeInspection(
        body=body, node=node, depth=int(tree.depth[node]), n_prims=int(tree.n_prims[node]),
        triangle=int(tri_id), level=level, partners=tuple(partners),
        partner_overlaps=tuple(overlaps), partner_seps=tuple(seps),
        partner_separations=tuple(_separation_words(volumes, x) for x in seps), kind=kind,
        noun=volumes.noun if volumes is not None else "volume",
        levels_tested=tuple(levels_tested), tests=tests)
