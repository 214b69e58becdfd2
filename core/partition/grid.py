"""Uniform grid over the triangles of both meshes: every triangle lands in each cell its
inflated box overlaps.

The grid is sparse: only occupied cells exist, found by sorting ``cell * m + triangle`` keys,
so a fine grid over a large scene costs memory in proportion to the entries, not the cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from core.mesh import TriMesh
from core.partition.base import Partition, build_over_mesh
from core.partition.limits import CELL_SCALE_RANGE, MAX_ENTRIES, check_real, too_many_entries
from core.settings import DEFAULT_TOLERANCES, Tolerances

__all__ = ["GridParams", "build", "default_cell_size"]

# Keys are ``cell * m + triangle`` in int64: the grid must keep that below 2**62.
_KEY_LIMIT = 2**62


@dataclass(frozen=True)
class GridParams:
    """Grid settings.

    Attributes
    ----------
    cell_size : float or None
        Edge of the cubic cells. None: ``cell_scale`` times the mean triangle size (the mean
        of the longest side of the triangles' boxes).
    cell_scale : float
        With ``cell_size`` None. At 1 a typical triangle spans one or two cells per axis.
    """

    cell_size: float | None = None
    cell_scale: float = 1.0

    def __post_init__(self):
        if self.cell_size is not None:
            check_real(self.cell_size, "cell_size (positive)", 0.0, 1e300, low_open=True)
        check_real(self.cell_scale, "cell_scale", *CELL_SCALE_RANGE)


def default_cell_size(bmin: np.ndarray, bmax: np.ndarray, cell_scale: float) -> float:
    """``cell_scale`` times the mean longest side of boxes ``(m, 3) float64``."""
    return cell_scale * float(np.mean(np.max(bmax - bmin, axis=1)))


@njit(cache=True, nogil=True)
def _grid_keys(bmin, bmax, origin, cell, dims):
    """``cell_id * m + triangle`` of every (cell, triangle) entry, ``(e,) int64``."""
    m = bmin.shape[0]
    lo = np.empty((m, 3), dtype=np.int64)
    hi = np.empty((m, 3), dtype=np.int64)
    total = 0
    for t in range(m):
        n = 1
        for k in range(3):
            # floor((x - origin) / cell) is monotone in x, so two overlapping boxes share a cell.
            a = int(np.floor((bmin[t, k] - origin[k]) / cell))
            b = int(np.floor((bmax[t, k] - origin[k]) / cell))
            lo[t, k] = min(max(a, 0), dims[k] - 1)
            hi[t, k] = min(max(b, 0), dims[k] - 1)
            n *= hi[t, k] - lo[t, k] + 1
        total += n
    keys = np.empty(total, dtype=np.int64)
    c = 0
    for t in range(m):
        for z in range(lo[t, 2], hi[t, 2] + 1):
            for y in range(lo[t, 1], hi[t, 1] + 1):
                for x in range(lo[t, 0], hi[t, 0] + 1):
                    keys[c] = (x + dims[0] * (y + dims[1] * z)) * m + t
                    c += 1
    return keys


@njit(cache=True, nogil=True)
def _leaves_from_keys(keys, m, origin, cell, dims):
    """Leaf CSR and cell boxes from sorted keys."""
    e = keys.shape[0]
    n_leaves = 0
    prev = -1
    for j in range(e):
        cid = keys[j] // m
        if cid != prev:
            n_leaves += 1
            prev = cid
    leaf_start = np.empty(n_leaves + 1, dtype=np.int64)
    tri_ids = np.empty(e, dtype=np.int32)
    lmin = np.empty((n_leaves, 3))
    lmax = np.empty((n_leaves, 3))
    q = -1
    prev = -1
    for j in range(e):
        cid = keys[j] // m
        tri_ids[j] = keys[j] - cid * m
        if cid != prev:
            q += 1
            leaf_start[q] = j
            prev = cid
            ix = cid % dims[0]
            iy = (cid // dims[0]) % dims[1]
            iz = cid // (dims[0] * dims[1])
            lmin[q, 0] = origin[0] + ix * cell
            lmin[q, 1] = origin[1] + iy * cell
            lmin[q, 2] = origin[2] + iz * cell
            for k in range(3):
                lmax[q, k] = lmin[q, k] + cell
    leaf_start[n_leaves] = e
    return leaf_start, tri_ids, lmin, lmax


def build_from_boxes(
    tris, bmin, bmax, cen, n_a: int, params: GridParams, margin: float = 0.0
) -> Partition:
    """Grid over triangles given with their inflated boxes.

    Parameters
    ----------
    tris : (m, 3, 3) float64
        Unused (the boxes decide); kept for the common build signature.
    bmin, bmax, cen : (m, 3) float64
    n_a : int
    margin : float
        Unused: the boxes are already inflated.
    params : GridParams

    Returns
    -------
    Partition

    Raises
    ------
    ValueError
        A cell size that is not positive, or so small that the cell keys would overflow.
    """
    del tris, cen, margin
    m = bmin.shape[0]
    cell = params.cell_size
    if cell is None:
        cell = default_cell_size(bmin, bmax, params.cell_scale)
    cell = float(cell)
    if not np.isfinite(cell) or cell <= 0.0:
        raise ValueError(f"grid cell size must be positive, got {cell}")
    origin = bmin.min(axis=0)
    dims = np.floor((bmax.max(axis=0) - origin) / cell).astype(np.int64) + 1
    n_cells = int(dims[0]) * int(dims[1]) * int(dims[2])
    if n_cells * max(m, 1) >= _KEY_LIMIT:
        raise ValueError(f"grid of {dims.tolist()} cells is too fine for {m} triangles")
    lo = np.clip(np.floor((bmin - origin) / cell), 0, dims - 1).astype(np.int64)
    hi = np.clip(np.floor((bmax - origin) / cell), 0, dims - 1).astype(np.int64)
    n_entries = int(np.prod(hi - lo + 1, axis=1).sum()) if m else 0
    if n_entries > MAX_ENTRIES:
        raise too_many_entries(n_entries)
    keys = _grid_keys(bmin, bmax, origin, cell, dims)
    keys.sort()
    leaf_start, tri_ids, lmin, lmax = _leaves_from_keys(keys, m, origin, cell, dims)
    q = leaf_start.shape[0] - 1
    return Partition(
        kind="grid", n_a=n_a, n_tris=m, leaf_start=leaf_start, leaf_tri_ids=tri_ids,
        leaf_bmin=lmin, leaf_bmax=lmax, leaf_depth=np.zeros(q, dtype=np.int32), n_nodes=q,
        stats={"cell_size": cell, "dims": tuple(int(d) for d in dims), "n_entries": keys.size},
    )  # fmt: skip


def build(
    mesh: TriMesh,
    params: GridParams | None = None,
    *,
    n_a: int | None = None,
    tol: Tolerances = DEFAULT_TOLERANCES,
) -> Partition:
    """Uniform grid over a mesh's triangles (the first ``n_a`` are A's when combined)."""
    return build_over_mesh(build_from_boxes, mesh, params or GridParams(), n_a, tol)
