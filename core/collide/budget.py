"""The pair budget of a query, its cancel flag and its progress.

A valid but very bad tree (leaves holding random triangles, exact boxes: every box spans the
mesh) makes the tandem traversal meet a number of overlapping volume pairs that grows like the
product of the two trees' sizes; with no limit a script reached 21 GB and was killed by the
kernel. Every buffer that grows with the pair count (the traversal's frontier, trace and leaf
pairs, the triangle pairs, the stepper's and the heat map's per-row arrays) is therefore
checked against a budget *before* it is grown, and a query that would pass it ends in one
:class:`~core.errors.PairBudgetError` line naming the tree and the budget.

The kernels cannot raise a Python exception with a message nor call back into Python, so they
share a small ``int64`` array with their caller (:class:`QueryControl`): they write their
progress into it after every level (or every :data:`CHECK_EVERY` overlaps of the depth-first
walk), read the cancel flag there, and leave a status code when they stop early. Both
threads of a split traversal (:func:`core.collide.traversal_driver.split_traversal`) count
into their own slot and compare the sum with the budget, so the budget is the query's, not
each thread's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.checks import integer
from core.errors import PairBudgetError, QueryCancelled

DEFAULT_PAIR_BUDGET = 50_000_000
"""Most overlapping volume pairs one query may meet (``CollisionRequest.pair_budget``).

Why 50 million: the level-by-level traversal with its trace holds about 30 bytes per
overlapping pair at its peak (measured on the Stanford bunny's random-order tree against
itself: 3.4 GB resident at 113 million overlaps, 200 MB of it the process); with the budget
that query stops at level 25 with 1.5 GB resident at its peak, and the triangle tests of as
many leaf pairs (about 70 bytes each) would stay within 3.5 GB: both fit the 24 GiB machine
several times over, and the traversal fits a 4 GiB address-space limit (a test runs it so).
Real scenes stay far below it: the bunny against itself at the same pose, the densest contact
among the shipped meshes, meets 2.6 million (911,703 contacts). A scene that
needs more (millions of triangles in full contact) sets a larger budget.
"""

NO_BUDGET = int(np.iinfo(np.int64).max)
"""The budget of the low-level walks when their caller sets none (tests, tools)."""

CHECK_EVERY = 1 << 18
"""Overlaps the depth-first walk makes between two looks at the budget and the cancel flag
(about a millisecond of work)."""

# Layout of the control array shared with the kernels (int64).
CANCEL = 0  #: set to non-zero to ask the kernels to stop
STATUS = 1  #: STATUS_* left by the kernel that stopped first
STOP_LEVEL = 2  #: the level where the budget was passed (-1: the depth-first walk)
BASE_LEVEL = 3  #: levels walked by the head before the split threads start
LEVEL_SEEN = 4  #: deepest level finished so far (progress)
OVERLAPS = 5  #: 5, 6, 7: overlapping pairs counted by slot 0 (head), 1 and 2 (split halves)
TESTS = 8  #: 8, 9, 10: pairs tested, same slots
N_SLOTS = 3
CONTROL_SIZE = 11

STATUS_DONE = 0
STATUS_OVER_BUDGET = 1
STATUS_CANCELLED = 2


class QueryControl:
    """Cancel flag and progress of a running query, shared with its kernels.

    Make one, pass it to the query (``control=``), call :meth:`cancel` from any thread; read
    :meth:`progress` from any thread while it runs. One control serves one query at a time
    (a frame's queries run one after the other and each starts its count afresh).

    Attributes
    ----------
    array : (CONTROL_SIZE,) int64
        What the kernels read and write (layout in this module).
    """

    def __init__(self):
        self.array = np.zeros(CONTROL_SIZE, dtype=np.int64)

    def cancel(self) -> None:
        """Ask the running query to stop at its next level (thread-safe: one store)."""
        self.array[CANCEL] = 1

    @property
    def is_cancelled(self) -> bool:
        return bool(self.array[CANCEL])

    def progress(self) -> tuple[int, int, int]:
        """``(deepest level finished, volume pairs tested, overlapping pairs)`` so far."""
        a = self.array
        return (int(a[LEVEL_SEEN]), int(a[TESTS:TESTS + N_SLOTS].sum()),
                int(a[OVERLAPS:OVERLAPS + N_SLOTS].sum()))  # fmt: skip

    def check_cancelled(self, what: str = "the query") -> None:
        """Raise :class:`~core.errors.QueryCancelled` if :meth:`cancel` was called."""
        if self.array[CANCEL]:
            raise QueryCancelled(f"{what} was cancelled")


def start_array(control: QueryControl | None) -> np.ndarray:
    """The control array for one traversal: the caller's with its counts reset, or a new one.

    The cancel flag is kept (a cancelled frame stays cancelled through its later queries).
    """
    if control is None:
        return np.zeros(CONTROL_SIZE, dtype=np.int64)
    array = control.array
    array[STATUS:] = 0
    return array


@njit(cache=True, nogil=True)
def over_budget(control, slot, n_tests, n_overlaps, budget, level):
    """Publish one slot's counts; True (status left in ``control``) when the walk must stop:
    cancelled, stopped by the other thread, or the query's overlaps passed ``budget``."""
    control[OVERLAPS + slot] = n_overlaps
    control[TESTS + slot] = n_tests
    if level > control[LEVEL_SEEN]:
        control[LEVEL_SEEN] = level
    if control[STATUS] != STATUS_DONE:
        return True
    if control[CANCEL] != 0:
        control[STATUS] = STATUS_CANCELLED
        return True
    total = control[OVERLAPS] + control[OVERLAPS + 1] + control[OVERLAPS + 2]
    if total > budget:
        control[STATUS] = STATUS_OVER_BUDGET
        control[STOP_LEVEL] = level
        return True
    return False


@njit(cache=True, nogil=True)
def leaf_triangle_pairs(leaf_a, leaf_b, count_a, count_b, same_tree):
    """How many triangle pairs the leaf pairs send to the exact test (``int``), before any is
    listed: ``count_a * count_b`` each, ``c (c - 1) / 2`` for a leaf against itself when
    ``same_tree``."""
    total = 0
    for k in range(leaf_a.shape[0]):
        ca = count_a[leaf_a[k]]
        if same_tree and leaf_a[k] == leaf_b[k]:
            total += ca * (ca - 1) // 2
        else:
            total += ca * count_b[leaf_b[k]]
    return total


def mean_relative_area(tree) -> float:
    """Mean over nodes of the box's surface area over the root's, from the tree's own boxes:
    about ``depth / k`` for a good tree (a level's boxes share the root's area), near 1/2 when
    every box spans the mesh (the SAH cost per node, MacDonald and Booth 1990). O(k).

    Measured on a 3,480-triangle sphere: 0.005 for its midpoint tree, 0.18 for the same tree
    with its leaves dealt triangles in random order. (The mean sibling overlap does not tell
    them apart: the random tree's lowest siblings are two small triangles far apart.)
    """
    ext = np.asarray(tree.bmax) - np.asarray(tree.bmin)
    area = ext[:, 0] * ext[:, 1] + ext[:, 1] * ext[:, 2] + ext[:, 2] * ext[:, 0]
    return float(area.mean() / area[0]) if area[0] > 0.0 else 1.0


def tree_name(tree, body: str | None, kind_label: str = "AABB") -> str:
    """A tree as people read it: ``tree.origin`` for a tree read from a file ("tree from
    random.json"), else "BVH Lab's AABB tree of body A" (``kind_label`` a registry label:
    "OBB", "AABB (SAT lite)" reads "AABB"; without a ``body``, "BVH Lab's AABB tree")."""
    origin = getattr(tree, "origin", "")
    if origin:
        return origin
    short = kind_label.split(" (")[0]
    return f"BVH Lab's {short} tree" + ("" if body is None else f" of body {body}")


def blamed(trees, names) -> tuple[str, str]:
    """Which tree a passed budget is about, and why, for the message.

    The tree whose boxes are much larger (:func:`mean_relative_area` at least twice the
    other's) is named alone ("its boxes overlap too much"); otherwise both ("their boxes overlap too
    much", or, for one tree against itself, "its boxes overlap too much").
    """
    if len(trees) == 1 or names[0] == names[1] and trees[0] is trees[1]:
        return names[0], "its boxes overlap too much"
    score = [mean_relative_area(t) for t in trees]
    if score[0] >= 2.0 * score[1]:
        return names[0], "its boxes overlap too much"
    if score[1] >= 2.0 * score[0]:
        return names[1], "its boxes overlap too much"
    return f"{names[0]} against {names[1]}", "their boxes overlap too much"


def raise_if_stopped(array: np.ndarray, budget: int, trees, names, what: str) -> None:
    """After a traversal: raise what its kernels' status says, else return.

    Parameters
    ----------
    array : (CONTROL_SIZE,) int64
    budget : int
    trees : tuple of Tree
        The one or two trees walked.
    names : tuple of str
        Their names (:func:`tree_name`).
    what : str
        The operation, for a cancel message ("the collision query of A and B").

    Raises
    ------
    PairBudgetError
    QueryCancelled
    """
    status = int(array[STATUS])
    if status == STATUS_CANCELLED:
        raise QueryCancelled(f"{what} was cancelled")
    if status == STATUS_OVER_BUDGET:
        level = int(array[STOP_LEVEL])
        name, detail = blamed(trees, names)
        raise PairBudgetError(name, budget, "overlapping volume pairs",
                              None if level < 0 else level, detail, what)  # fmt: skip


def check_budget(budget) -> int:
    """The pair budget as an int >= 1, or a one-line error naming ``pair_budget``."""
    return integer(budget, "pair_budget", minimum=1)


def check_trace_rows(frame, what: str, operation: str) -> None:
    """Refuse to replay a frame's trace of more rows than its request's pair budget.

    The stepper's table and the heat map hold about 50 bytes per traced pair (cumulative
    counters, per-row node data), twice the traversal's own: the same budget, in rows, keeps
    them within a few GB however the frame was made (a recorded frame too).

    Parameters
    ----------
    frame : core.pipeline.Frame
        With a traced pair query (``frame.result.trace``).
    what : str
        What would be built ("to step through", "to colour by work").
    operation : str
        Who asks ("the stepper", "the heat map").

    Raises
    ------
    PairBudgetError
    """
    trace = frame.result.trace
    request = frame.request
    budget = request.pair_budget if request is not None else DEFAULT_PAIR_BUDGET
    n_rows = int(np.asarray(trace.level_start)[-1])
    if n_rows <= budget:
        return
    trees = frame.trees[:2]
    from core.bv import BV_KINDS

    label = "AABB" if request is None else BV_KINDS[request.bv].label
    names = (tree_name(trees[0], "A", label), tree_name(trees[1], "B", label))
    name, detail = blamed(tuple(trees), names)
    raise PairBudgetError(name, budget, f"traced volume pairs {what}", None, detail, operation)
