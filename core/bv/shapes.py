"""What a kind's rows are as geometry: one plain record per family of shapes.

A kind's ``shape(rows)`` (its registry row's :attr:`core.bv.BVKind.shape`) reads its own row
layout and answers one of these records, so code that measures volumes (the tree-quality
metrics of :mod:`core.bvh.metrics`) works on boxes, slabs or balls and never on a kind's
column numbers. A kind whose rows are one of these shapes in another layout (a box stored as
centre and half extents) needs nothing outside its module; a kind of a new shape family adds
a record here and its measures in :mod:`core.bvh.metrics`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Boxes:
    """Axis-aligned boxes: ``bmin, bmax (j, 3) float64``."""

    bmin: np.ndarray
    bmax: np.ndarray


@dataclass(frozen=True)
class OrientedBoxes:
    """Oriented boxes: ``centre (j, 3)``, ``axes (j, 3, 3)`` (column ``i`` of ``axes[n]`` is
    box ``n``'s axis ``i``), ``half (j, 3)`` half-lengths along them, float64."""

    centre: np.ndarray
    axes: np.ndarray
    half: np.ndarray


@dataclass(frozen=True)
class Slabs:
    """Intersections of slabs along fixed unit directions (k-DOPs): ``directions (d, 3)``,
    ``lo, hi (j, d) float64`` (``lo <= x . direction <= hi``); the first three directions are
    the axes, so their slabs are the box."""

    directions: np.ndarray
    lo: np.ndarray
    hi: np.ndarray


@dataclass(frozen=True)
class Balls:
    """Balls: ``centre (j, 3)``, ``radius (j,)`` float64."""

    centre: np.ndarray
    radius: np.ndarray


@dataclass(frozen=True)
class SweptRectangles:
    """Rectangles swept by a ball (a segment when one half-length is 0): ``centre (j, 3)``,
    ``axes (j, 3, 3)`` (columns 0 and 1 span the rectangle), ``half (j, 2)``, ``radius (j,)``
    float64."""

    centre: np.ndarray
    axes: np.ndarray
    half: np.ndarray
    radius: np.ndarray
