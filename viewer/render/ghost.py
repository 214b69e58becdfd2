"""The ghost of a fresh tree, and the triangle pairs two engines disagree on.

``ghost``: the volumes of a tree built afresh on the frame's current vertices (same split
rule and leaf size), at the tree depth the refitted volumes are drawn at, as grey dashed
lines over them: where a refitted box is much bigger than the ghost beside it, the refit has
drifted (van den Bergen 1997: refitting keeps the topology, so boxes grow as the mesh
deforms). Dashes are made in geometry (each edge cut into :data:`DASHES_PER_SEGMENT` pieces,
every other kept): OpenGL 2 line stipple is gone from VTK's renderer.

``crosscheck``: the outline of every triangle of a pair that only one engine reports.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyvista as pv
from vtkmodules.util.numpy_support import vtk_to_numpy

from viewer.render.geometry import boxes_groups_polydata
from viewer.render.volumes import as_volume_set, volumes_groups_polydata

DASHES_PER_SEGMENT = 4
"""Dashes drawn along each straight piece of a volume's outline (a box edge: 4 dashes)."""


@dataclass(frozen=True, eq=False)
class GhostView:
    """A fresh tree per body, for drawing (made by the controller).

    Attributes
    ----------
    frame : object
        The frame whose vertices the trees were built on.
    trees : list of Tree
    volumes : FrameVolumes or VolumeSet or None
        The fresh trees' volumes of the frame's kind (None: their own boxes).
    sah_refit, sah_fresh : list of float
        SAH cost of each body's refitted tree and of its fresh tree.
    """

    frame: object
    trees: list
    volumes: object
    sah_refit: list
    sah_fresh: list

    def sah_text(self) -> str:
        """"SAH refitted / fresh: A 41.2 / 33.0, B 12.0 / 11.9" (short: it is a legend row,
        and the legend's widest row sets how much of the view it covers)."""
        parts = [f"{'AB'[i]} {r:.1f} / {f:.1f}"
                 for i, (r, f) in enumerate(zip(self.sah_refit, self.sah_fresh))]
        return "SAH refitted / fresh: " + ", ".join(parts)


def dashed(poly: pv.PolyData, n_dashes: int = DASHES_PER_SEGMENT) -> pv.PolyData:
    """Every straight piece of every line cell of ``poly`` as ``n_dashes`` separate dashes.

    Returns
    -------
    pv.PolyData
        Line cells only: ``n_dashes`` per segment of the input's polylines.
    """
    if poly.n_cells == 0:
        return pv.PolyData()
    # Every pair of consecutive point ids of a cell is a segment; the pairs that straddle two
    # cells are not. (A Python loop over the cells took 50 ms of the GUI thread for the
    # 40,000 boxes of big-bunny's ghost at every level.)
    lines = poly.GetLines()
    conn = vtk_to_numpy(lines.GetConnectivityArray()).astype(np.int64)
    offsets = vtk_to_numpy(lines.GetOffsetsArray()).astype(np.int64)
    is_inside = np.ones(max(conn.shape[0] - 1, 0), dtype=bool)
    is_inside[offsets[1:-1] - 1] = False
    a = np.asarray(poly.points)[conn[:-1][is_inside]]
    b = np.asarray(poly.points)[conn[1:][is_inside]]
    # Segment k of an edge cut in 2 n pieces: pieces 0, 2, 4, ... are drawn.
    t0 = np.arange(n_dashes, dtype=np.float64) * 2.0 / (2 * n_dashes)
    t1 = t0 + 1.0 / (2 * n_dashes)
    p0 = a[:, None, :] + (b - a)[:, None, :] * t0[None, :, None]
    p1 = a[:, None, :] + (b - a)[:, None, :] * t1[None, :, None]
    points = np.stack([p0, p1], axis=2).reshape(-1, 3)
    m = points.shape[0] // 2
    lines = np.empty((m, 3), dtype=np.int64)
    lines[:, 0] = 2
    lines[:, 1] = 2 * np.arange(m)
    lines[:, 2] = 2 * np.arange(m) + 1
    return pv.PolyData(np.ascontiguousarray(points), lines=lines.ravel())


_LAST_GHOST: list = [None, None, None]
"""``[ghost, key, poly]`` of the last :func:`build_ghost`: a ghost is built beside the frames
and ends less often than they come, and every redraw drew the same ghost again (10 ms of the
GUI thread per frame on the 278k-triangle bunny, its dashes cut in a Python loop)."""


def build_ghost(ghost: GhostView | None, level: int | None, poses, hidden=frozenset(),
                cap: int = 20_000) -> pv.PolyData:
    """Dashed volumes of the fresh trees at tree depth ``level`` (clamped; None: all).

    The same ghost with the same level, poses, hidden bodies and cap gives the same
    PolyData object again (drawn by copy, never changed)."""
    if ghost is None:
        return pv.PolyData()
    key = (level, frozenset(hidden), int(cap),
           tuple(np.asarray(p, dtype=np.float64).tobytes() for p in poses))
    if _LAST_GHOST[0] is ghost and _LAST_GHOST[1] == key:
        return _LAST_GHOST[2]
    poly = _build_ghost(ghost, level, poses, hidden, cap)
    _LAST_GHOST[:] = [ghost, key, poly]
    return poly


def _ghost_node_ids(ghost: GhostView, level: int | None, hidden) -> list:
    """``[(body, ids (k,) int)]``: every node of each shown body's fresh tree drawn at tree
    depth ``level`` (None: all), before the cap."""
    return [(body, np.asarray(tree.level_nodes) if level is None else
             np.asarray(tree.nodes_at_depth(min(level, tree.max_depth))))
            for body, tree in enumerate(ghost.trees[:2]) if body not in hidden]


def ghost_box_counts(ghost: GhostView | None, level: int | None, hidden=frozenset(),
                     cap: int = 20_000) -> tuple[int, int]:
    """``(drawn, total)`` ghost boxes at ``level``: each body draws at most ``cap`` of its
    fresh tree's boxes (the Display settings' box cap), so ``drawn < total`` says the ghost
    on screen is not the whole tree."""
    if ghost is None:
        return 0, 0
    sizes = [len(ids) for _body, ids in _ghost_node_ids(ghost, level, hidden)]
    return sum(min(n, int(cap)) for n in sizes), sum(sizes)


def _build_ghost(ghost: GhostView, level: int | None, poses, hidden, cap: int) -> pv.PolyData:
    # With the trees, the drawn nodes' box rows are read from them; without, every frame joined
    # both fresh trees' boxes (94 ms a frame on the GUI thread for the 560k-node trees of
    # big-bunny, cProfile of the interactive benchmark).
    volumes = as_volume_set(ghost.volumes, ghost.trees)
    groups = [(body, ids[:cap], poses[body])
              for body, ids in _ghost_node_ids(ghost, level, hidden)]
    if volumes is None:
        poly = boxes_groups_polydata([(ghost.trees[b].bmin[ids], ghost.trees[b].bmax[ids], pose)
                                      for b, ids, pose in groups])  # fmt: skip
    else:
        poly = volumes_groups_polydata(volumes, groups)
    return dashed(poly)


def build_crosscheck(frame, check, poses) -> pv.PolyData:
    """Outlines of the triangles of every pair only one engine reports (3 lines each).

    ``check``: a ``core.lab.crosscheck.CrossCheck`` (duck-typed: ``only_ours``, ``only_theirs``
    ``(p, 2)`` triangle ids of A and B).
    """
    if check is None or frame is None or len(frame.meshes) < 2:
        return pv.PolyData()
    pairs = np.concatenate([np.asarray(check.only_ours), np.asarray(check.only_theirs)])
    if pairs.shape[0] == 0:
        return pv.PolyData()
    corners = []
    for body in (0, 1):
        mesh = frame.meshes[body]
        tris = mesh.vertices[mesh.faces[np.unique(pairs[:, body])]]
        corners.append(tris @ poses[body][:3, :3].T + poses[body][:3, 3])
    tris = np.concatenate(corners)
    points = tris.reshape(-1, 3)
    base = 3 * np.arange(tris.shape[0], dtype=np.int64)
    edges = np.stack([np.stack([base, base + 1], 1), np.stack([base + 1, base + 2], 1),
                      np.stack([base + 2, base], 1)], axis=1).reshape(-1, 2)  # fmt: skip
    lines = np.concatenate([np.full((edges.shape[0], 1), 2, np.int64), edges], axis=1)
    return pv.PolyData(np.ascontiguousarray(points), lines=lines.ravel())
