"""Sets of triangle pairs as the cross-check and the contact-log audit compare them.

A pair set is a ``(n, 2) int32`` array of (A triangle, B triangle) rows, unique and sorted.
:func:`checked_pairs` makes one from a caller's pairs (refusing ids outside the meshes with a
one-line message naming the input), :func:`pairs_not_in` and :func:`rows_not_in` subtract one
set from another.
"""

from __future__ import annotations

import numpy as np

__all__ = ["checked_pairs", "pairs_not_in", "rows_not_in", "unique_pairs"]


def unique_pairs(pairs) -> np.ndarray:
    """``pairs`` (anything ``(n, 2)``-shaped of integers) as unique sorted ``(c, 2) int32``."""
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if p.shape[0] == 0:
        return np.empty((0, 2), dtype=np.int32)
    return np.unique(p, axis=0).astype(np.int32)


def rows_not_in(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(n,) bool``: which rows of ``a`` are not in ``b`` (both ``(n, 2)`` int32, unique)."""
    if a.shape[0] == 0 or b.shape[0] == 0:
        return np.ones(a.shape[0], dtype=bool)
    key_a = a[:, 0].astype(np.int64) << 32 | a[:, 1].astype(np.int64)
    key_b = b[:, 0].astype(np.int64) << 32 | b[:, 1].astype(np.int64)
    return ~np.isin(key_a, key_b)


def pairs_not_in(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rows of ``a`` not in ``b`` (both ``(n, 2)`` int32, unique), sorted."""
    return a[rows_not_in(a, b)]


def checked_pairs(pairs, name: str, n_a: int, n_b: int) -> np.ndarray:
    """``pairs`` as unique sorted ``(c, 2) int32``, or a one-line ValueError naming it.

    Parameters
    ----------
    pairs : (c, 2) array_like of int
        Triangle of A, triangle of B per row.
    name : str
        The input as the message names it (``"pairs"``, ``"'pairs'"``, ...).
    n_a, n_b : int
        Triangles of A and of B: an id outside ``[0, n)`` is refused.
    """
    p = np.asarray(pairs)
    if p.size and not np.issubdtype(p.dtype, np.integer):
        raise ValueError(f"{name} must be integer triangle ids, got {p.dtype}")
    p = p.reshape(-1, 2) if p.size else np.empty((0, 2), dtype=np.int64)
    for column, n, body in ((0, n_a, "A"), (1, n_b, "B")):
        bad = np.flatnonzero((p[:, column] < 0) | (p[:, column] >= n))
        if bad.size:
            raise ValueError(f"{name}[{bad[0]}] names triangle {int(p[bad[0], column])} of "
                             f"{body}, which has {n:,} triangles")
    return unique_pairs(p)
