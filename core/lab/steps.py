"""The tandem traversal of a frame, one volume-pair test at a time, explained.

A frame run with tracing on keeps every level's tested pairs and the test that culled each
(:class:`core.collide.trace.Trace`). That is enough to replay the traversal's decisions in
the order it made them: row by row, level by level (with two threads a level is the
concatenation of both halves' levels, which is exactly the trace's row order). Each pair's
outcome follows from its separating id and the two nodes: culled, split (which node, by the
descend rule of :func:`core.collide.traversal.descend_action`), or a pair of leaves whose
triangle pairs go to the exact test (as :func:`core.collide.tandem.expand_leaf_pairs` lists
them).

Stepping must stay fast on a 500k-triangle frame, whose traces hold millions of pairs: the
running counters are cumulative sums computed once with numpy, and a :class:`PairStep` is
built only when asked for.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from core.bv.registry import BVKind
from core.collide.budget import check_trace_rows
from core.collide.tandem import DescendRule
from core.collide.trace import OVERLAPPED, Counters
from core.collide.traversal import TREE_BOXES
from core.lab.heat import leaf_of_triangles
from core.lab.query_inputs import (
    QueryInputs,
    query_inputs,
    shown_volume,
    split_a_by_volume,
    volume_measures,
)


class StepOutcome(enum.Enum):
    """What the traversal decided for one pair of volumes (values are words for people)."""

    CULLED = "separated"
    SPLIT = "overlap, split"
    LEAF_PAIR = "overlap, two leaves"


#: Outcome codes of :meth:`TraversalSteps.decided`: ``OUTCOMES[code]``.
CODE_CULLED = 0
CODE_SPLIT = 1
CODE_LEAF_PAIR = 2
OUTCOMES = (StepOutcome.CULLED, StepOutcome.SPLIT, StepOutcome.LEAF_PAIR)

#: Which node a SPLIT step splits (:meth:`_StepTable.split_codes`).
SPLIT_A = 0
SPLIT_B = 1
SPLIT_BOTH = 2

#: What :meth:`TraversalSteps.next_where` can run to.
STOPS = ("overlap", "leaf", "contact", "level_end")


@dataclass(frozen=True, eq=False)
class PairStep:
    """One volume-pair test of the traversal and what came of it.

    Attributes
    ----------
    position : int
        0 .. n-1 in the traversal's real order (the trace's rows: level by level, row order).
    level : int
    node_a, node_b : int
        Node ids in A's tree and B's tree.
    outcome : StepOutcome
    sep_id : int
        The kind's id of the test that separated the pair; -1 unless CULLED.
    test_words : str
        The test that decided, in words ("A's axis 2 (y)", "slab 5 (direction (1, 1, 0))").
    split_words : str
        SPLIT: which node is split next and why; "" otherwise.
    children : tuple of (int, int)
        The pairs this step puts on the next level (SPLIT), in the order the traversal does.
    triangle_pairs : (p, 2) int64
        LEAF_PAIR: triangle ids (A, B) sent to the exact test; (0, 2) otherwise.
    contact_pairs : (c, 2) int64
        LEAF_PAIR: those of them in contact; (0, 2) otherwise.
    counters : Counters
        Running totals after this step.
    queue_length : int
        Pairs still waiting after this step: the rest of this level and the pairs put on the
        next level so far.
    """

    position: int
    level: int
    node_a: int
    node_b: int
    outcome: StepOutcome
    sep_id: int
    test_words: str
    split_words: str
    children: tuple
    triangle_pairs: np.ndarray
    contact_pairs: np.ndarray
    counters: Counters
    queue_length: int


def _fmt(x: float) -> str:
    return f"{x:.3g}"


class _StepTable:
    """The per-row arrays of a frame's traversal and the steps built from them on demand."""

    def __init__(self, frame, inputs: QueryInputs, file_ids=(None, None)):
        # (k,) int64 per body or None: the file's ids the words name a foreign tree's nodes by.
        self.file_ids = tuple(file_ids)
        result = frame.result
        trace = result.trace
        tree_a, tree_b = inputs.trees
        self.frame = frame
        self.inputs = inputs
        self.level_start = np.asarray(trace.level_start, dtype=np.int64)
        self.node_a = np.asarray(trace.node_a)
        self.node_b = np.asarray(trace.node_b)
        self.sep = np.asarray(trace.sep_axis)
        self.count_a = tree_a.count
        self.count_b = tree_b.count
        n = self.node_a.shape[0]
        is_leaf_a = self.count_a[self.node_a] > 0
        is_leaf_b = self.count_b[self.node_b] > 0
        overlapped = self.sep == OVERLAPPED
        is_leaf_pair = overlapped & is_leaf_a & is_leaf_b
        code = np.where(overlapped, CODE_SPLIT, CODE_CULLED).astype(np.int8)
        code[is_leaf_pair] = CODE_LEAF_PAIR
        self.code = code
        # Children on the next level: 4 when the split-both rule splits two inner nodes, else 2
        # (which of the two nodes is split does not change the count).
        is_split = code == CODE_SPLIT
        n_children = np.where(is_split, 2, 0).astype(np.int64)
        if inputs.rule is DescendRule.BOTH:
            n_children[is_split & ~is_leaf_a & ~is_leaf_b] = 4
        self.cum_children = np.cumsum(n_children)
        self.cum_overlaps = np.cumsum(overlapped, dtype=np.int64)
        self.leaf_rows = np.flatnonzero(is_leaf_pair)
        self.cum_leaf = np.cumsum(is_leaf_pair, dtype=np.int64)
        leaf_a = self.node_a[self.leaf_rows]
        leaf_b = self.node_b[self.leaf_rows]
        tri_per_leaf = (self.count_a[leaf_a].astype(np.int64)
                        * self.count_b[leaf_b].astype(np.int64))  # fmt: skip
        self.cum_tri = np.concatenate([[0], np.cumsum(tri_per_leaf)])
        # Each contact lies in exactly one leaf pair (the leaves partition each tree's
        # triangles): find it through the leaf of each face.
        pairs = np.asarray(result.pairs, dtype=np.int64).reshape(-1, 2)
        leaf_of_a = leaf_of_triangles(tree_a).astype(np.int64)
        leaf_of_b = leaf_of_triangles(tree_b).astype(np.int64)
        n_b = np.int64(self.count_b.shape[0])
        leaf_keys = leaf_a.astype(np.int64) * n_b + leaf_b
        order = np.argsort(leaf_keys, kind="stable")
        contact_keys = leaf_of_a[pairs[:, 0]] * n_b + leaf_of_b[pairs[:, 1]]
        where = np.searchsorted(leaf_keys[order], contact_keys)
        if pairs.shape[0] and (np.any(where >= leaf_keys.shape[0])
                               or np.any(leaf_keys[order][np.minimum(where, len(order) - 1)]
                                         != contact_keys)):  # fmt: skip
            raise ValueError("this frame's contacts do not lie in its traced leaf pairs: the "
                             "trace is not the one of these trees")  # fmt: skip
        contact_leaf = order[where] if pairs.shape[0] else np.empty(0, dtype=np.int64)
        by_leaf = np.argsort(contact_leaf, kind="stable")
        self.contacts_sorted = pairs[by_leaf]
        per_leaf = np.bincount(contact_leaf, minlength=self.leaf_rows.shape[0])
        self.cum_contacts = np.concatenate([[0], np.cumsum(per_leaf)])
        # The step that found each contact, in the frame's contact order (for drawing only
        # the contacts found so far).
        self.contact_step = self.leaf_rows[contact_leaf]
        self.n = n
        self.kind = inputs.kind
        self.parents_by_level = {}

    # -- positions -----------------------------------------------------------------------
    def level_of(self, i: int) -> int:
        return int(np.searchsorted(self.level_start, i, side="right") - 1)

    def check(self, i) -> int:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"step position must be an integer, got {type(i).__name__}")
        i = int(i)
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(f"step position {i} out of range 0..{self.n - 1}")
        return i

    def queue_length(self, i: int, d: int) -> int:
        end = int(self.level_start[d + 1])
        start = int(self.level_start[d])
        before = int(self.cum_children[start - 1]) if start > 0 else 0
        return end - i - 1 + int(self.cum_children[i]) - before

    def counters(self, i: int) -> Counters:
        n_leaf = int(self.cum_leaf[i])
        return Counters(n_bv_tests=i + 1, n_bv_overlaps=int(self.cum_overlaps[i]),
                        n_leaf_pairs=n_leaf, n_tri_tests=int(self.cum_tri[n_leaf]),
                        n_contacts=int(self.cum_contacts[n_leaf]))  # fmt: skip

    # -- one step --------------------------------------------------------------------------
    def children(self, a: int, b: int, action: str) -> tuple:
        tree_a, tree_b = self.inputs.trees
        if action == "a":
            c = int(tree_a.first[a])
            return ((c, b), (c + 1, b))
        if action == "b":
            c = int(tree_b.first[b])
            return ((a, c), (a, c + 1))
        ca, cb = int(tree_a.first[a]), int(tree_b.first[b])
        return tuple((ca + u, cb + v) for u in range(2) for v in range(2))

    def split_codes(self, rows: np.ndarray) -> np.ndarray:
        """``(r,) int8`` :data:`SPLIT_A`, :data:`SPLIT_B` or :data:`SPLIT_BOTH` of some SPLIT
        rows, by the rule of :meth:`split` (volumes compared once per distinct node)."""
        node_a, node_b = self.node_a[rows], self.node_b[rows]
        leaf_a, leaf_b = self.count_a[node_a] > 0, self.count_b[node_b] > 0
        rule = self.inputs.rule
        out = np.full(rows.shape[0], SPLIT_BOTH if rule is DescendRule.BOTH else SPLIT_A,
                      dtype=np.int8)  # fmt: skip
        if rule is DescendRule.LARGER_VOLUME:
            compare = ~leaf_a & ~leaf_b
            vol_a, tie_a = volume_measures(self.inputs, 0, node_a[compare])
            vol_b, tie_b = volume_measures(self.inputs, 1, node_b[compare])
            if self.inputs.code == TREE_BOXES:
                is_a = (vol_a > vol_b) | ((vol_a == vol_b) & (tie_a >= tie_b))
            else:
                is_a = vol_a >= vol_b
            out[compare] = np.where(is_a, SPLIT_A, SPLIT_B)
        out[leaf_b] = SPLIT_A
        out[leaf_a] = SPLIT_B
        return out

    def shown(self, side: int, node: int) -> int:
        """The id the words give node ``node`` of body ``side``: the file's for a tree read
        from a file, else ``node``."""
        ids = self.file_ids[side]
        return int(node) if ids is None else int(ids[node])

    def split(self, a: int, b: int) -> tuple[str, str]:
        """``(action, words)``: which node the descend rule splits ("a", "b", "both"); the
        words name nodes as :meth:`shown` does."""
        inputs = self.inputs
        noun = self.kind.noun
        a_id, b_id = self.shown(0, a), self.shown(1, b)
        if self.count_a[a] > 0:
            return "b", f"split B (node {b_id}): A (node {a_id}) is a leaf"
        if self.count_b[b] > 0:
            return "a", f"split A (node {a_id}): B (node {b_id}) is a leaf"
        if inputs.rule is DescendRule.BOTH:
            return "both", (f"split both A (node {a_id}) and B (node {b_id}): four children "
                            "pairs (split-both rule)")  # fmt: skip
        if inputs.rule is DescendRule.A_FIRST:
            return "a", (f"split A (node {a_id}): A is split until it is a leaf, then B "
                         "(A-first rule)")  # fmt: skip
        vol_a, vol_b = shown_volume(inputs, 0, a), shown_volume(inputs, 1, b)
        if split_a_by_volume(inputs, a, b):
            which, node, big, small = "A", a_id, vol_a, vol_b
        else:
            which, node, big, small = "B", b_id, vol_b, vol_a
        relation = "is larger" if big != small else "is as large (ties go to A)"
        return which.lower(), (f"split {which} (node {node}): its {noun} {relation}, volume "
                               f"{_fmt(big)} against {_fmt(small)} (larger-volume rule, "
                               "van den Bergen 1997)")  # fmt: skip

    def step(self, i: int) -> PairStep:
        i = self.check(i)
        d = self.level_of(i)
        a, b = int(self.node_a[i]), int(self.node_b[i])
        code = int(self.code[i])
        sep = int(self.sep[i])
        empty = np.empty((0, 2), dtype=np.int64)
        tri, hits, children, split_words = empty, empty, (), ""
        if code == CODE_CULLED:
            test_words = self.kind.separating_test(sep)
        else:
            test_words = f"no test separates the two {self.kind.noun_plural}: they overlap"
        if code == CODE_SPLIT:
            action, split_words = self.split(a, b)
            children = self.children(a, b, action)
        elif code == CODE_LEAF_PAIR:
            tri = self.triangle_pairs(a, b)
            k = int(self.cum_leaf[i]) - 1
            hits = self.contacts_sorted[self.cum_contacts[k]:self.cum_contacts[k + 1]]
        return PairStep(position=i, level=d, node_a=a, node_b=b, outcome=OUTCOMES[code],
                        sep_id=sep if code == CODE_CULLED else -1, test_words=test_words,
                        split_words=split_words, children=children, triangle_pairs=tri,
                        contact_pairs=hits, counters=self.counters(i),
                        queue_length=self.queue_length(i, d))  # fmt: skip

    def triangle_pairs(self, a: int, b: int) -> np.ndarray:
        """``(p, 2) int64`` in :func:`~core.collide.tandem.expand_leaf_pairs`' order (A's
        triangles outer, B's inner)."""
        tree_a, tree_b = self.inputs.trees
        ids_a = tree_a.prim_ids[tree_a.first[a]:tree_a.first[a] + tree_a.count[a]]
        ids_b = tree_b.prim_ids[tree_b.first[b]:tree_b.first[b] + tree_b.count[b]]
        return np.stack([np.repeat(ids_a, ids_b.shape[0]), np.tile(ids_b, ids_a.shape[0])],
                        axis=1).astype(np.int64)  # fmt: skip


class StepSequence(Sequence):
    """The steps of a traversal as a read-only sequence, each built when indexed (O(1))."""

    def __init__(self, table: _StepTable):
        self._table = table

    def __len__(self) -> int:
        return self._table.n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._table.step(k) for k in range(*i.indices(self._table.n))]
        return self._table.step(i)


@dataclass(frozen=True, eq=False)
class TraversalSteps:
    """Every volume-pair test of one frame's traversal, in order.

    Attributes
    ----------
    steps : StepSequence
        ``steps[i]`` is the :class:`PairStep` at position ``i`` (built on demand).
    kind : BVKind
        The kind the traversal tested.
    inputs : QueryInputs
        The volumes and pose it tested them with.
    """

    steps: StepSequence
    kind: BVKind
    inputs: QueryInputs = field(repr=False)
    _table: _StepTable = field(repr=False)

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, i) -> PairStep:
        return self.steps[i]

    @property
    def n_levels(self) -> int:
        return int(self._table.level_start.shape[0] - 1)

    @property
    def level_start(self) -> np.ndarray:
        """``(L + 1,) int64``: level d is positions ``level_start[d] : level_start[d + 1]``."""
        return self._table.level_start

    def columns(self) -> dict:
        """Every step at once as arrays, for writing them all (``python -m core contacts
        --steps``): the same order and the same decisions as ``steps[i]``, without building
        a :class:`PairStep` per step.

        Returns
        -------
        dict
            ``level``, ``node_a``, ``node_b`` ``(n,) int64``; ``code`` ``(n,) int8``
            (``CODE_CULLED``, ``CODE_SPLIT``, ``CODE_LEAF_PAIR``); ``sep_id`` ``(n,) int64``,
            the kind's test that culled the pair (-1 unless culled); ``split`` ``(n,) int8``,
            :data:`SPLIT_A`, :data:`SPLIT_B` or :data:`SPLIT_BOTH` for a SPLIT step, -1
            otherwise.
        """
        t = self._table
        level = np.repeat(np.arange(self.n_levels, dtype=np.int64), np.diff(t.level_start))
        split = np.full(t.n, -1, dtype=np.int8)
        rows = np.flatnonzero(t.code == CODE_SPLIT)
        split[rows] = t.split_codes(rows)
        return {"level": level, "node_a": t.node_a.astype(np.int64),
                "node_b": t.node_b.astype(np.int64), "code": t.code,
                "sep_id": np.where(t.code == CODE_CULLED, t.sep, -1).astype(np.int64),
                "split": split}  # fmt: skip

    def next_where(self, position: int, what: str) -> int | None:
        """The first position after ``position`` where the traversal stops for ``what``.

        Parameters
        ----------
        position : int
            Current position (-1: before the first step).
        what : {"overlap", "leaf", "contact", "level_end"}
            The next pair that overlaps (split or leaf pair), the next leaf pair, the next
            leaf pair with a contact, or the last pair of a level.

        Returns
        -------
        int or None
            None when no later step qualifies.
        """
        t = self._table
        if what not in STOPS:
            raise ValueError(f"cannot run to {what!r}: one of {', '.join(STOPS)}")
        start = int(position) + 1
        if start >= t.n:
            return None
        start = max(start, 0)
        if what == "level_end":
            d = t.level_of(start)
            return int(t.level_start[d + 1]) - 1
        if what == "overlap":
            hits = np.flatnonzero(t.code[start:] != CODE_CULLED)
            return int(start + hits[0]) if hits.size else None
        k = np.searchsorted(t.leaf_rows, start)
        if what == "leaf":
            return int(t.leaf_rows[k]) if k < t.leaf_rows.shape[0] else None
        per_leaf = np.diff(t.cum_contacts)
        hits = np.flatnonzero(per_leaf[k:] > 0)
        return int(t.leaf_rows[k + hits[0]]) if hits.size else None

    def waiting(self, position: int, limit: int = 50) -> list[tuple[int, int, int]]:
        """The pairs still waiting after step ``position``, in the order they will be tested.

        Parameters
        ----------
        position : int
            -1: before the first step (the pair of roots waits).
        limit : int
            Most pairs listed.

        Returns
        -------
        list of (level, node_a, node_b)
            The rest of this level, then the next level's pairs put there so far.
        """
        t = self._table
        if t.n == 0 or limit <= 0:
            return []
        if position < 0:
            return [(0, int(t.node_a[0]), int(t.node_b[0]))][:limit]
        i = t.check(position)
        d = t.level_of(i)
        end = int(t.level_start[d + 1])
        rows = range(i + 1, min(end, i + 1 + limit))
        out = [(d, int(t.node_a[r]), int(t.node_b[r])) for r in rows]
        if len(out) < limit and d + 1 < self.n_levels:
            produced = self._produced_on_next_level(d, i)
            out += [(d + 1, int(t.node_a[r]), int(t.node_b[r]))
                    for r in produced[: limit - len(out)]]  # fmt: skip
        return out

    def _produced_on_next_level(self, d: int, i: int) -> np.ndarray:
        """Rows of level ``d + 1`` whose parent is at position ``<= i``, in row order."""
        t = self._table
        parents = self._parents(d + 1)
        start = int(t.level_start[d + 1])
        return start + np.flatnonzero(parents <= i)

    def _parents(self, d: int) -> np.ndarray:
        """``(n_d,) int64`` position of each level-``d`` pair's parent (cached per level).

        Found by key, not by offset: with two threads a level is the concatenation of both
        halves' levels, not the children in their parents' order. A pair of nodes is reached
        by one chain of splits only, so keys are unique.
        """
        t = self._table
        if d in t.parents_by_level:
            return t.parents_by_level[d]
        tree_a, tree_b = self.inputs.trees
        n_b = np.int64(t.count_b.shape[0])
        lo, hi = int(t.level_start[d - 1]), int(t.level_start[d])
        rows = np.flatnonzero(t.code[lo:hi] == CODE_SPLIT) + lo
        node_a = t.node_a[rows].astype(np.int64)
        node_b = t.node_b[rows].astype(np.int64)
        which = t.split_codes(rows)
        keys, owners = [], []
        left_a = tree_a.first[node_a].astype(np.int64)
        left_b = tree_b.first[node_b].astype(np.int64)
        for is_split, children_a, children_b in (
            (which == SPLIT_A, (left_a, left_a + 1), (node_b, node_b)),
            (which == SPLIT_B, (node_a, node_a), (left_b, left_b + 1)),
            (which == SPLIT_BOTH, (left_a, left_a, left_a + 1, left_a + 1),
             (left_b, left_b + 1, left_b, left_b + 1)),
        ):  # fmt: skip
            for ca, cb in zip(children_a, children_b):
                keys.append(ca[is_split] * n_b + cb[is_split])
                owners.append(rows[is_split])
        keys = np.concatenate(keys)
        owners = np.concatenate(owners)
        order = np.argsort(keys)
        level = slice(int(t.level_start[d]), int(t.level_start[d + 1]))
        row_keys = t.node_a[level].astype(np.int64) * n_b + t.node_b[level]
        parents = owners[order][np.searchsorted(keys[order], row_keys)]
        t.parents_by_level[d] = parents
        return parents

    def contacts_found(self, position: int) -> np.ndarray:
        """Which of the frame's contacts the steps up to ``position`` (included) found.

        Parameters
        ----------
        position : int
            -1: before the first step (none found).

        Returns
        -------
        (c,) int64
            Rows of the frame's contacts (``result.pairs``, ``kinds``, ``segments``), in
            their order; ``c`` is the running ``n_contacts`` of step ``position``.
        """
        t = self._table
        if position < 0 or t.n == 0:
            return np.empty(0, dtype=np.int64)
        i = t.check(position)
        return np.flatnonzero(t.contact_step <= i).astype(np.int64)

    def decided(self, position: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pairs decided before ``position``, for drawing them faint.

        Returns
        -------
        node_a, node_b : (position,) int32
        outcome : (position,) int8
            ``CODE_CULLED``, ``CODE_SPLIT`` or ``CODE_LEAF_PAIR`` (``OUTCOMES[code]``).
        """
        t = self._table
        k = max(0, min(int(position), t.n))
        return t.node_a[:k], t.node_b[:k], t.code[:k]

    def subtree_before(self, position: int, levels_up: int) -> tuple[int, np.ndarray]:
        """The pairs decided before ``position`` under the same ancestor pair.

        The ancestor is the pair ``levels_up`` levels above the pair at ``position`` in the
        traversal's own tree (a split pair is the parent of the pairs it put on the next
        level); the rows returned are it and its descendants tested before ``position``.

        Parameters
        ----------
        position : int
        levels_up : int
            0: the pair itself (nothing before it is under it).

        Returns
        -------
        ancestor : int
            Position of the ancestor pair.
        rows : (k,) int64
            Positions before ``position`` under it (the ancestor included), in order.
        """
        t = self._table
        i = t.check(position)
        d = t.level_of(i)
        top = max(0, d - int(levels_up))
        ancestor = i
        first = int(t.level_start[top])
        rows = np.arange(first, i, dtype=np.int64)
        above = rows.copy()  # each row's ancestor, lifted one level at a time
        for level in range(d, top, -1):
            start = int(t.level_start[level])
            parents = self._parents(level)
            ancestor = int(parents[ancestor - start]) if ancestor >= start else ancestor
            at_level = above >= start
            above[at_level] = parents[above[at_level] - start]
        return ancestor, rows[above == ancestor]


def traversal_steps(frame, file_ids=(None, None)) -> TraversalSteps:
    """The pair tests of a frame's traversal of bodies A and B, in the order they ran.

    Parameters
    ----------
    frame : core.pipeline.Frame
        Run with tracing on (``request.trace``), two bodies.
    file_ids : pair of (k,) int64 or None
        For a body whose tree was read from a file, its ``ImportedTree.file_ids``: the
        steps' words (``split_words``) name its nodes by the file's ids. The steps' node
        fields stay BVH Lab's ids (what drawing and ``waiting`` use).

    Returns
    -------
    TraversalSteps

    Raises
    ------
    ValueError
        One line: the frame has no pair traversal (one body, self-collision) or no trace.
    PairBudgetError
        The trace has more rows than the request's ``pair_budget``
        (:func:`core.collide.budget.check_trace_rows`); a ValueError too.
    """
    result = frame.result
    if result is None:
        if frame.self_results:
            raise ValueError("stepping works on the traversal of two bodies, not on a "
                             "self-collision frame of one body")  # fmt: skip
        raise ValueError("this frame has no traversal of two bodies to step")
    if result.trace is None:
        raise ValueError("this frame has no trace: turn tracing on")
    if frame.request is None:
        raise ValueError("this frame does not say which request it ran with")
    check_trace_rows(frame, "to step through", "the stepper")
    inputs = query_inputs(frame)
    table = _StepTable(frame, inputs, file_ids)
    return TraversalSteps(steps=StepSequence(table), kind=inputs.kind, inputs=inputs,
                          _table=table)  # fmt: skip
