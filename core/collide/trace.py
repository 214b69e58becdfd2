"""What the tandem traversal did, level by level: the product the viewer draws."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Counters:
    """Work done by one query: the N of the cost model T = Nv·Cv + Np·Cp (+ Nu·Cu for updates).

    Attributes
    ----------
    n_bv_tests : int
        Box pairs tested (Nv).
    n_bv_overlaps : int
        Box pairs found overlapping.
    n_leaf_pairs : int
        Overlapping pairs of two leaves.
    n_tri_tests : int
        Exact triangle-triangle tests run (Np).
    n_contacts : int
        Triangle pairs in contact.
    """

    n_bv_tests: int = 0
    n_bv_overlaps: int = 0
    n_leaf_pairs: int = 0
    n_tri_tests: int = 0
    n_contacts: int = 0


#: Values of :attr:`Trace.sep_axis`: -1 means the pair overlapped; otherwise the id of the test
#: that separated it. For the AABB tree (:mod:`core.collide.tandem`) 0-2 are the x, y, z face
#: axes of A's box and 3-5 those of B's box (only tested under relative rotation); the other
#: bounding-volume kinds number their tests in their own modules (up to 14 for the 15-axis box
#: test, up to 25 for a 26-DOP).
OVERLAPPED = -1


@dataclass(frozen=True, eq=False)
class Trace:
    """The node pairs tested at every level of a tandem traversal.

    Level 0 is the pair of roots; a pair tested at level d that overlaps and is split puts
    its children pairs at level d + 1.

    Attributes
    ----------
    level_start : (L + 1,) int64
        Pairs of level d are rows ``level_start[d] : level_start[d + 1]``.
    node_a, node_b : (N,) int32
        Node ids of the pairs, in A's tree and B's tree.
    sep_axis : (N,) int8
        ``OVERLAPPED`` (-1) or the test that culled the pair (see above).
    leaf_pairs_per_level : (L,) int64
        Overlapping leaf-leaf pairs at each level (they go to the triangle tests).
    """

    level_start: np.ndarray
    node_a: np.ndarray
    node_b: np.ndarray
    sep_axis: np.ndarray
    leaf_pairs_per_level: np.ndarray

    @property
    def n_levels(self) -> int:
        return int(self.level_start.shape[0] - 1)

    def _rows(self, d: int) -> slice:
        if d < 0 or d >= self.n_levels:
            raise IndexError(f"traversal level {d} out of range 0..{self.n_levels - 1}")
        return slice(int(self.level_start[d]), int(self.level_start[d + 1]))

    def level(self, d: int) -> tuple[np.ndarray, np.ndarray]:
        """Pairs tested at level ``d``.

        Returns
        -------
        node_pairs : (p, 2) int32
            (node of A, node of B).
        overlapped : (p,) bool
        """
        rows = self._rows(d)
        pairs = np.stack([self.node_a[rows], self.node_b[rows]], axis=1)
        return pairs, self.sep_axis[rows] == OVERLAPPED

    def separating_axis(self, d: int) -> np.ndarray:
        """``(p,) int8`` separating axis of each pair at level ``d`` (-1 if it overlapped)."""
        return self.sep_axis[self._rows(d)]

    def pairs(self, level: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Pairs tested at traversal level ``level`` (clamped to the last level), or at every
        level in order (None).

        Returns
        -------
        node_pairs : (p, 2) int32
        overlapped : (p,) bool
        """
        if self.n_levels == 0:
            return np.empty((0, 2), np.int32), np.empty(0, bool)
        if level is not None:
            return self.level(min(level, self.n_levels - 1))
        parts = [self.level(d) for d in range(self.n_levels)]
        return (np.concatenate([p for p, _ in parts]), np.concatenate([o for _, o in parts]))

    def separations(self, level: int | None) -> np.ndarray:
        """``(p,) int8`` separating id of each pair of :meth:`pairs` (same rows), -1 where
        the pair overlapped."""
        if self.n_levels == 0:
            return np.empty(0, np.int8)
        if level is not None:
            return np.asarray(self.separating_axis(min(level, self.n_levels - 1)))
        return np.asarray(self.sep_axis)

    @property
    def tested_per_level(self) -> np.ndarray:
        """``(L,) int64``."""
        return np.diff(self.level_start)

    @property
    def overlapping_per_level(self) -> np.ndarray:
        """``(L,) int64``."""
        overlapped = (self.sep_axis == OVERLAPPED).astype(np.int64)
        sums = np.add.reduceat(overlapped, self.level_start[:-1]) if overlapped.size else overlapped
        # reduceat returns the element itself for an empty segment; levels are never empty.
        return sums.astype(np.int64)

    def summary(self, d: int) -> str:
        """One sentence about level ``d`` for a student."""
        tested = int(self.tested_per_level[d])
        overlap = int(self.overlapping_per_level[d])
        leaves = int(self.leaf_pairs_per_level[d])
        text = f"level {d}: {tested} pairs tested, {overlap} overlap"
        if leaves:
            text += f", {leaves} of them pairs of leaves sent to the triangle test"
        return text
