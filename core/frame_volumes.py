"""The bounding volumes a frame's traversal tested, as plain arrays a viewer can draw later.

A :class:`FrameVolumes` holds only a kind's key, its label, both trees' volume rows and (for a
k-DOP) its slab directions: numpy arrays and strings, so a stored frame carries the very boxes
that were tested and can be drawn without running the core again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, eq=False)
class FrameVolumes:
    """The volumes of one kind that a frame's traversal tested, for drawing.

    Attributes
    ----------
    name : str
        Registry key (``"aabb"``, ``"obb"``, ``"kdop14"``, ...).
    label : str
        The kind's name for people.
    rows : list of (k, w) float64
        Volume rows of body A's and body B's tree, in each body's local frame.
    dirs : (nd, 3) float64 or None
        Slab directions of a k-DOP (its faces are solved from ``rows`` and these).
    """

    name: str
    label: str
    rows: list = field(default_factory=list)
    dirs: np.ndarray | None = None

    def wire(self, rows: np.ndarray) -> dict:
        """The kind's drawable records of some ``rows`` (``core.bv`` kind ``wire``: numpy
        only, no kernel runs)."""
        from core.bv import get_kind

        return get_kind(self.name).wire(rows)


def fitted_volumes(trees, meshes, bv: str, obb_fit: str = "SURFACE") -> FrameVolumes | None:
    """The volumes of kind ``bv`` of the first two trees (cached by the core per tree and
    mesh, so this is the fit the traversal used).

    Parameters
    ----------
    trees : sequence of Tree
    meshes : sequence of TriMesh
        The meshes the trees were fitted to (local coordinates).
    bv : str
        A key of :data:`core.bv.BV_KINDS`.
    obb_fit : str
        Name of the ``ObbFit`` member of the ``"obb"`` kind: it must be the one the traversal
        used, or the boxes drawn are not the boxes tested.

    Returns
    -------
    FrameVolumes or None
        None with fewer than two trees.
    """
    from core.bv import ObbFit, fit_volumes, get_kind
    from core.bv.kdop import DIRECTIONS

    if len(trees) < 2:
        return None
    kind = get_kind(bv)
    if kind.name in ("aabb", "aabb15"):
        # The tree's own refitted boxes are the AABBs the traversal tested.
        rows = [np.concatenate([t.bmin, t.bmax], axis=1) for t in trees[:2]]
    else:
        method = ObbFit[obb_fit]
        rows = [fit_volumes(t, m, kind, method) for t, m in zip(trees[:2], meshes[:2])]
    dirs = None
    if kind.name.startswith("kdop"):
        dirs = DIRECTIONS[int(kind.name[4:])]
    return FrameVolumes(kind.name, kind.label, rows, dirs)


def volume_set(frame, bv: str, obb_fit: str = "SURFACE") -> FrameVolumes | None:
    """The volumes of kind ``bv`` of the frame's first two trees (cached by the core per tree
    and mesh, so this is the fit the traversal used).

    ``obb_fit`` names the ``ObbFit`` member of the ``"obb"`` kind: it must be the one the
    pipeline traversed with, or the boxes drawn are not the boxes tested."""
    return fitted_volumes(frame.trees, frame.meshes, bv, obb_fit)
