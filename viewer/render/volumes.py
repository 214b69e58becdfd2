"""Every bounding-volume kind drawn as what it is, batched: one PolyData per overlay kind.

The volumes come from the core's ``wire(rows)`` of the frame's kind, as plain line cells
(points, cell sizes, point ids; see ``core.bv._wire``): boxes, great circles, k-DOP face
polygons, swept-sphere outlines alike, so this module draws any kind without knowing which.
Also drawn here: partition cells (boxes), BSP splitting planes (one square per plane, 4 line
cells) and the closest-points segment of a distance query.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyvista as pv

from viewer.render.geometry import boxes_groups_polydata
from viewer.render.words import UNNAMED, KindWords

LINES_PER_PLANE = 4


@dataclass(frozen=True, eq=False)
class VolumeSet:
    """The volumes of one kind that a frame's traversal tested, for drawing.

    Attributes
    ----------
    name : str
        Registry key (passed through, never compared).
    label : str
    rows : list of (k, w) float64
        Volume rows of body A's and body B's tree (one tree: self-collision), in each body's
        local frame.
    wire : callable
        The kind's ``wire(rows) -> dict`` of drawable records: ``points (N, 3) float64``,
        ``line_sizes (c,) int64``, ``line_ids (line_sizes.sum(),) int64``.
    words : KindWords
        How the kind's volumes and separating tests are said.
    max_drawn : int or None
        Most volumes of the kind drawn per overlay (None: only the display's cap).
    boxes : list of ((k, 3), (k, 3)) float64, or None
        For the trees' own boxes: each tree's ``bmin`` and ``bmax``, whose side by side
        columns are ``rows``. The drawn nodes' rows are taken from them, never the whole
        ``(k, 6)`` join (see :func:`node_rows`).
    """

    name: str
    label: str
    rows: list = field(default_factory=list)
    wire: object = None
    words: KindWords = UNNAMED
    max_drawn: int | None = None
    boxes: list | None = None


def as_volume_set(volumes, trees=()) -> VolumeSet | None:
    """A frame's volumes (a core ``FrameVolumes``: key, label, rows, and the kind's ``wire``,
    words and drawing cap read from its registry row) as a :class:`VolumeSet`; a
    ``VolumeSet`` or None is returned as it is.

    ``trees``: the frame's trees. The rows of the trees' own boxes come as a sequence that
    joins a tree's ``bmin`` and ``bmax`` into ``(k, 6)`` rows when read (any sequence that
    is not a list or tuple); then the drawn nodes' rows are read from the trees' boxes
    instead (:attr:`VolumeSet.boxes`).
    """
    if volumes is None or isinstance(volumes, VolumeSet):
        return volumes
    words = KindWords(volumes.noun, volumes.noun_plural, volumes.pair_noun,
                      volumes.separating_test)  # fmt: skip
    rows = volumes.rows
    boxes = None
    if not isinstance(rows, (list, tuple)) and len(trees) >= len(rows):
        # Joining both bunny trees' 139k boxes each frame to draw a few hundred took 5-16 ms
        # of the overlay update (cProfile of update_frame, bunny-bunny).
        boxes = [(t.bmin, t.bmax) for t in trees[:len(rows)]]
    return VolumeSet(volumes.name, volumes.label, rows, volumes.wire, words,
                     volumes.max_drawn, boxes)  # fmt: skip


def frame_volume_set(frame) -> VolumeSet | None:
    """The volumes a frame's traversal tested, as a :class:`VolumeSet` (None: the frame has
    none, or no frame)."""
    if frame is None:
        return None
    return as_volume_set(frame.volumes, frame.trees)


def node_rows(volumes: VolumeSet, body: int, node_ids: np.ndarray) -> np.ndarray:
    """``(j, w) float64`` volume rows of some nodes of one body's tree."""
    node_ids = np.asarray(node_ids, dtype=np.int64)
    if volumes.boxes is not None:
        bmin, bmax = volumes.boxes[body]
        return np.concatenate([np.asarray(bmin)[node_ids], np.asarray(bmax)[node_ids]], axis=1)
    return np.asarray(volumes.rows[body])[node_ids]


def _transform(points: np.ndarray, pose: np.ndarray | None) -> np.ndarray:
    if pose is None:
        return points
    pose = np.asarray(pose, dtype=np.float64)
    return points @ pose[:3, :3].T + pose[:3, 3]


def _connectivity(sizes: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Legacy VTK cell array ``[n0, ids..., n1, ids...]`` from sizes ``(c,)`` and ids."""
    starts = np.cumsum(sizes + 1) - (sizes + 1)
    conn = np.empty(int(sizes.sum() + sizes.shape[0]), dtype=np.int64)
    is_size = np.zeros(conn.shape[0], dtype=bool)
    is_size[starts] = True
    conn[is_size] = sizes
    conn[~is_size] = ids
    return conn


def _merge(parts) -> pv.PolyData:
    """One PolyData from ``(points, sizes, ids)`` parts (ids local to each part)."""
    parts = [p for p in parts if p[0].shape[0]]
    if not parts:
        return pv.PolyData()
    offsets = np.cumsum([0] + [p[0].shape[0] for p in parts[:-1]])
    points = np.concatenate([p[0] for p in parts])
    sizes = np.concatenate([p[1] for p in parts])
    ids = np.concatenate([p[2] + o for p, o in zip(parts, offsets)])
    return pv.PolyData(np.ascontiguousarray(points), lines=_connectivity(sizes, ids))


_EMPTY = (np.empty((0, 3)), np.empty(0, np.int64), np.empty(0, np.int64))


# -- public ---------------------------------------------------------------------------------
def volume_parts(volumes: VolumeSet, body: int, node_ids: np.ndarray,
                 pose: np.ndarray | None):
    """Points (world), cell sizes and point ids of some nodes' volumes of one body.

    Parameters
    ----------
    volumes : VolumeSet
    body : int
        0 (A) or 1 (B).
    node_ids : (j,) int
    pose : (4, 4) float64 or None
        The body's world pose.
    """
    node_ids = np.asarray(node_ids, dtype=np.int64)
    if node_ids.shape[0] == 0:
        return _EMPTY
    rec = volumes.wire(node_rows(volumes, body, node_ids))
    points, sizes, ids = rec["points"], rec["line_sizes"], rec["line_ids"]
    return _transform(points, pose), sizes, ids


def volumes_groups_polydata(volumes: VolumeSet, groups) -> pv.PolyData:
    """Several groups of volumes as one PolyData.

    Parameters
    ----------
    volumes : VolumeSet
    groups : sequence of (body 0 or 1, node ids (j,) int, pose (4, 4) float64 or None)

    Returns
    -------
    pv.PolyData
        The line cells of each volume's ``wire`` record: 12 lines per box, 3 polylines per
        sphere, one per k-DOP face, 4 per swept sphere.
    """
    return _merge([volume_parts(volumes, body, ids, pose) for body, ids, pose in groups])


def cells_polydata(cells: np.ndarray, pose: np.ndarray | None) -> pv.PolyData:
    """Partition cells ``(q, 2, 3) float64`` (bmin, bmax in A's frame) as 12 lines each."""
    cells = np.asarray(cells, dtype=np.float64).reshape(-1, 2, 3)
    return boxes_groups_polydata([(cells[:, 0], cells[:, 1], pose)])


def planes_polydata(center: np.ndarray, normal: np.ndarray, extent: np.ndarray,
                    pose: np.ndarray | None) -> pv.PolyData:
    """Splitting planes as squares of half side ``extent``: 4 line cells each.

    Parameters
    ----------
    center, normal : (p, 3) float64
    extent : (p,) float64
    pose : (4, 4) float64 or None
    """
    p = np.asarray(center).shape[0]
    if p == 0:
        return pv.PolyData()
    normal = np.asarray(normal, dtype=np.float64)
    # Any vector not parallel to the normal gives an in-plane basis.
    helper = np.where(np.abs(normal[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
    u = np.cross(normal, helper)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = np.cross(normal, u)
    e = np.asarray(extent, dtype=np.float64)[:, None]
    signs = ((1, 1), (-1, 1), (-1, -1), (1, -1))
    corners = np.stack([center + su * e * u + sv * e * v for su, sv in signs], axis=1)
    ids = np.arange(4 * p, dtype=np.int64).reshape(p, 4)
    edges = np.stack([ids, np.roll(ids, -1, axis=1)], axis=2).reshape(-1, 2)
    cells = np.empty((edges.shape[0], 3), dtype=np.int64)
    cells[:, 0] = 2
    cells[:, 1:] = edges
    points = _transform(corners.reshape(-1, 3), pose)
    return pv.PolyData(np.ascontiguousarray(points), lines=cells.ravel())


def distance_polydata(point_a: np.ndarray, point_b: np.ndarray) -> pv.PolyData:
    """The segment between two closest points (world), with its two end points as vertices:
    2 points, 1 line cell and 2 vertex cells."""
    points = np.array([point_a, point_b], dtype=np.float64)
    return pv.PolyData(points, lines=np.array([2, 0, 1]), verts=np.array([1, 0, 1, 1]))
