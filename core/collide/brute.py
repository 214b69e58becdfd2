"""Brute-force O(n m) contact oracle in numpy, for tests only.

Every pair of triangles whose closed bounding boxes overlap is sent to the exact triangle
test :func:`core.collide.tritri.tri_tri_batch`. The box prefilter is plain numpy and shares
nothing with the traversals (trees, bounding-volume kinds, partitions), and it is exact: the
boxes are the triangles' coordinate ranges, compared without arithmetic, and two triangles
that share a point have overlapping closed boxes. So the oracle answers "which pairs touch"
exactly as the triangle test would if it were run on all ``n m`` pairs, which is what every
accelerated path must reproduce. The triangle test itself is refereed by the rational
arithmetic of :mod:`core.collide.exact`, not by this module.
"""

from __future__ import annotations

import numpy as np

from core.collide.tritri import check_kinds, tri_tri_batch

__all__ = ["brute_force_contacts", "brute_force_pairs"]

# Kind code of DISJOINT, equal to core.collide.tritri.ContactKind.DISJOINT.
DISJOINT = 0


def _candidate_blocks(tris_a, tris_b, chunk_pairs):
    """Yield ``(ids_a, ids_b)`` int64 arrays of pairs whose closed boxes overlap."""
    bmin_a = tris_a.min(axis=1)
    bmax_a = tris_a.max(axis=1)
    bmin_b = tris_b.min(axis=1).T.copy()
    bmax_b = tris_b.max(axis=1).T.copy()
    n_rows = max(1, chunk_pairs // max(1, len(tris_b)))
    for start in range(0, len(tris_a), n_rows):
        rows = slice(start, start + n_rows)
        overlap = (bmin_a[rows, 0, None] <= bmax_b[0]) & (bmax_a[rows, 0, None] >= bmin_b[0])
        for axis in (1, 2):
            overlap &= bmin_a[rows, axis, None] <= bmax_b[axis]
            overlap &= bmax_a[rows, axis, None] >= bmin_b[axis]
        ids_a, ids_b = np.nonzero(overlap)
        yield ids_a.astype(np.int64) + start, ids_b.astype(np.int64)


def brute_force_contacts(
    va, fa, vb, fb, chunk_pairs: int = 4_000_000
) -> tuple[np.ndarray, np.ndarray]:
    """All contacting face pairs of two meshes and their kinds, by testing every pair.

    Parameters
    ----------
    va : (na, 3) float64
        Vertices of mesh A.
    fa : (ma, 3) int
        Faces of mesh A.
    vb : (nb, 3) float64
        Vertices of mesh B, in A's frame.
    fb : (mb, 3) int
        Faces of mesh B.
    chunk_pairs : int
        Pairs box-tested per numpy block (memory about ``chunk_pairs`` bytes per temporary).

    Returns
    -------
    pairs : (c, 2) int64
        Face ids ``(a, b)``, sorted lexicographically.
    kinds : (c,) int8
        The exact kinds, with the codes of ``ContactKind``.

    Raises
    ------
    ValueError
        If a candidate pair is outside the exact test's range.
    """
    va = np.ascontiguousarray(va, dtype=np.float64)
    vb = np.ascontiguousarray(vb, dtype=np.float64)
    fa = np.ascontiguousarray(fa, dtype=np.int32)
    fb = np.ascontiguousarray(fb, dtype=np.int32)
    tris_a = va[fa]
    tris_b = vb[fb]
    all_pairs, all_kinds = [], []
    for ids_a, ids_b in _candidate_blocks(tris_a, tris_b, chunk_pairs):
        if len(ids_a) == 0:
            continue
        ids = np.stack([ids_a, ids_b], axis=1)
        kinds = np.empty(len(ids), dtype=np.int8)
        segs = np.empty((len(ids), 2, 3))
        tri_tri_batch(va, fa, vb, fb, ids, kinds, segs)
        check_kinds(kinds, ids)
        keep = kinds != DISJOINT
        all_pairs.append(np.stack([ids_a[keep], ids_b[keep]], axis=1))
        all_kinds.append(kinds[keep])
    if not all_pairs:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int8)
    pairs = np.concatenate(all_pairs)
    kinds = np.concatenate(all_kinds)
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    return pairs[order], kinds[order]


def brute_force_pairs(va, fa, vb, fb, chunk_pairs: int = 4_000_000) -> np.ndarray:
    """All contacting face pairs ``(c, 2) int64``, sorted lexicographically (a, then b).

    See :func:`brute_force_contacts` for the parameters.
    """
    return brute_force_contacts(va, fa, vb, fb, chunk_pairs)[0]
