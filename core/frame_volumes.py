"""The bounding volumes a frame's traversal tested, as plain arrays a viewer can draw later.

A :class:`FrameVolumes` holds only a kind's key, its label and both trees' volume rows: numpy
arrays and strings, so a stored frame carries the very boxes
that were tested and can be drawn without running the core again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


class TreeBoxRows:
    """The ``(k, 6)`` rows ``[bmin, bmax]`` of one or two trees' own boxes, joined only when
    read.

    The frame already holds the trees, so keeping their box arrays costs nothing, while
    joining them every frame did: W3 at 500k triangles, 34 ms a pipeline frame without the
    join and 81 ms with it (two 1M-node trees, 96 MB copied; measured with ``make bench``).

    Parameters
    ----------
    boxes : list of ((k, 3), (k, 3)) float64
        Each tree's ``bmin`` and ``bmax``.
    """

    def __init__(self, boxes):
        self._boxes = list(boxes)
        self._joined = {}

    def __len__(self) -> int:
        return len(self._boxes)

    def __getitem__(self, i: int) -> np.ndarray:
        """``(k, 6) float64`` rows of tree ``i``, read-only."""
        i = range(len(self._boxes))[i]
        if i not in self._joined:
            rows = np.concatenate(self._boxes[i], axis=1)
            rows.flags.writeable = False
            self._joined[i] = rows
        return self._joined[i]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getstate__(self):
        # A stored frame keeps the boxes, not the joined copies.
        return {"_boxes": self._boxes, "_joined": {}}


@dataclass(frozen=True, eq=False)
class FrameVolumes:
    """The volumes of one kind that a frame's traversal tested, for drawing.

    Only the kind's key, its label and the rows are stored; everything else about the kind
    (how it is drawn and said) is read from its registry row, :data:`core.bv.BV_KINDS`, so a
    stored frame stays small and a kind's facts live in one place.

    Attributes
    ----------
    name : str
        Registry key.
    label : str
        The kind's name for people.
    rows : sequence of (k, w) float64
        Volume rows of body A's and body B's tree (one tree: self-collision), in each body's
        local frame: a list, or :class:`TreeBoxRows` for the trees' own boxes.
    """

    name: str
    label: str
    rows: list = field(default_factory=list)

    def kind(self):
        """The registry row of :attr:`name` (:class:`core.bv.BVKind`)."""
        from core.bv import get_kind

        return get_kind(self.name)

    def wire(self, rows: np.ndarray) -> dict:
        """The kind's drawable records of some ``rows`` (its ``wire``: numpy only, no kernel
        runs): ``points (N, 3) float64``, ``line_sizes (c,) int64``, ``line_ids`` ``int64``."""
        return self.kind().wire(rows)

    @property
    def max_drawn(self) -> int | None:
        """Most volumes of the kind drawn per overlay (None: only the display's cap)."""
        return self.kind().max_drawn

    @property
    def noun(self) -> str:
        return self.kind().noun

    @property
    def noun_plural(self) -> str:
        return self.kind().noun_plural

    @property
    def pair_noun(self) -> str:
        return self.kind().pair_noun

    def separating_test(self, sep_id: int) -> str:
        """Which test of the kind separated a culled pair, in words."""
        return self.kind().separating_test(sep_id)


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
        None without trees; with one tree (self-collision), the tree's own boxes.
    """
    from core.bv import TREE_BOX_KIND, ObbFit, fit_volumes, get_kind

    if not trees:
        return None
    # One tree (self-collision) traverses the tree's own boxes, whatever kind is chosen.
    kind = get_kind(bv if len(trees) >= 2 else TREE_BOX_KIND)
    if kind.is_tree_box:
        # The tree's own refitted boxes are the AABBs the traversal tested.
        rows = TreeBoxRows([(t.bmin, t.bmax) for t in trees[:2]])
    else:
        method = ObbFit[obb_fit]
        rows = [fit_volumes(t, m, kind, method) for t, m in zip(trees[:2], meshes[:2])]
    return FrameVolumes(kind.name, kind.label, rows)


def volume_set(frame, bv: str, obb_fit: str = "SURFACE") -> FrameVolumes | None:
    """The volumes of kind ``bv`` of the frame's first two trees (cached by the core per tree
    and mesh, so this is the fit the traversal used).

    ``obb_fit`` names the ``ObbFit`` member of the ``"obb"`` kind: it must be the one the
    pipeline traversed with, or the boxes drawn are not the boxes tested."""
    return fitted_volumes(frame.trees, frame.meshes, bv, obb_fit)
