"""Area, volume, sibling overlap and the EPO kernel's description of each shape family of
:mod:`core.bv.shapes`: what :func:`core.bvh.metrics.tree_quality` measures a kind's rows with.

A kind's rows are measured as the shape its registry row's ``shape`` says they are (a record
of :mod:`core.bv.shapes`); no kind is named here. Which shapes have which measure, and why:

=====================  ====================  ==================  ====================
shape (kinds today)    area, volume          EPO                 sibling overlap
=====================  ====================  ==================  ====================
Boxes (aabb, aabb15)   exact                 exact (clipping)    exact
OrientedBoxes (obb)    exact                 exact (clipping)    exact (clipping)
Slabs (kdop6 ... 26)   exact (face solver)   exact (clipping)    exact (face solver)
Balls (sphere, pss)    exact                 exact (disc area)   exact (lens formula)
SweptRectangles        exact (Steiner)       not defined here    not defined here
(lss, rss)
=====================  ====================  ==================  ====================

A capsule or rounded rectangle cuts a triangle's plane along a curve that is neither a line
nor one circle, and two of them intersect in a solid without a closed-form volume: rather
than an approximation presented as the measure, those values are NaN with a note
(:data:`SWEPT_EPO_NOTE`, :data:`SWEPT_OVERLAP_NOTE`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.bv.shapes import Balls, Boxes, OrientedBoxes, Slabs, SweptRectangles
from core.bvh.polytope import polytope_measures

SWEPT_EPO_NOTE = (
    "EPO is not computed for capsules (LSS) and rounded rectangles (RSS): the part of a "
    "triangle inside one is bounded by curves that are neither lines nor one circle, so it "
    "has no exact clipping"
)
SWEPT_OVERLAP_NOTE = (
    "sibling overlap is not computed for capsules (LSS) and rounded rectangles (RSS): the "
    "intersection of two swept spheres has no closed-form volume"
)


def _frozen(array, dtype=np.float64) -> np.ndarray:
    """A read-only C-ordered view (a copy only if needed) of ``array``: numba compiles a kernel
    apart for writable and read-only arrays, and the warmed cache holds the read-only one (a
    tree read from a file or rows passed in by a caller would otherwise cost a compile of
    tens of seconds on first use)."""
    out = np.ascontiguousarray(array, dtype=dtype).view()
    out.flags.writeable = False
    return out


# -- geometry of each family of kinds ----------------------------------------------------------


@dataclass
class _Shapes:
    """What the metrics need of one kind's rows: areas, volumes, sibling intersection volumes
    and the EPO kernel's description of each volume (or a note why there is none)."""

    area: np.ndarray
    volume: np.ndarray
    overlap_volume: np.ndarray  # (q,) for the internal nodes, in their order
    query_box: np.ndarray | None = None
    normals: np.ndarray | None = None
    offsets: np.ndarray | None = None
    balls: np.ndarray | None = None
    epo_note: str = ""
    overlap_note: str = ""


_BOX_NORMALS = np.concatenate([np.eye(3), -np.eye(3)])[None]  # (1, 6, 3)


def _boxes(shape: Boxes, left, right) -> _Shapes:
    bmin, bmax = shape.bmin, shape.bmax
    ext = bmax - bmin
    lo = np.maximum(bmin[left], bmin[right])
    hi = np.minimum(bmax[left], bmax[right])
    return _Shapes(
        area=2.0 * (ext[:, 0] * ext[:, 1] + ext[:, 1] * ext[:, 2] + ext[:, 2] * ext[:, 0]),
        volume=np.prod(ext, axis=1),
        overlap_volume=np.prod(np.clip(hi - lo, 0.0, None), axis=1),
        query_box=np.concatenate([bmin, bmax], axis=1),
        normals=_BOX_NORMALS,
        offsets=np.concatenate([bmax, -bmin], axis=1),
    )


def _oriented_boxes(shape: OrientedBoxes, left, right) -> _Shapes:
    centre = shape.centre
    axes = shape.axes.transpose(0, 2, 1)  # row j = box axis j
    half = shape.half
    proj = np.einsum("kij,kj->ki", axes, centre)
    normals = np.concatenate([axes, -axes], axis=1)  # (k, 6, 3)
    offsets = np.concatenate([proj + half, half - proj], axis=1)
    reach = np.einsum("kji,kj->ki", np.abs(axes), half)  # half extent of the world box
    h0, h1, h2 = half[:, 0], half[:, 1], half[:, 2]
    both_normals = np.concatenate([normals[left], normals[right]], axis=1)
    both_offsets = np.concatenate([offsets[left], offsets[right]], axis=1)
    _, overlap = polytope_measures(_frozen(both_normals), _frozen(both_offsets),
                                   _frozen(centre[left]),
                                   _frozen(np.linalg.norm(half[left], axis=1)))  # fmt: skip
    return _Shapes(
        area=8.0 * (h0 * h1 + h1 * h2 + h2 * h0),
        volume=8.0 * h0 * h1 * h2,
        overlap_volume=overlap,
        query_box=np.concatenate([centre - reach, centre + reach], axis=1),
        normals=np.ascontiguousarray(normals),
        offsets=np.ascontiguousarray(offsets),
    )


def _kdops(shape: Slabs, left, right) -> _Shapes:
    dirs = shape.directions
    normals = np.concatenate([dirs, -dirs])[None]  # (1, k, 3)
    offsets = np.ascontiguousarray(np.concatenate([shape.hi, -shape.lo], axis=1))
    # The first three directions are the axes: their slabs are the k-DOP's box.
    lo, hi = shape.lo[:, 0:3], shape.hi[:, 0:3]
    box = np.concatenate([lo, hi], axis=1)
    centre = 0.5 * (lo + hi)
    radius = 0.5 * np.linalg.norm(hi - lo, axis=1)
    area, volume = polytope_measures(_frozen(normals), _frozen(offsets), _frozen(centre),
                                     _frozen(radius))  # fmt: skip
    # Two k-DOPs on the same directions meet in the k-DOP of the tighter slab sides.
    _, overlap = polytope_measures(_frozen(normals),
                                   _frozen(np.minimum(offsets[left], offsets[right])),
                                   _frozen(centre[left]), _frozen(radius[left]))  # fmt: skip
    return _Shapes(area=area, volume=volume, overlap_volume=overlap, query_box=box,
                   normals=normals, offsets=offsets)  # fmt: skip


def lens_volume(r1, r2, d):
    """Volume of the intersection of two balls, ``(q,) float64``.

    Parameters
    ----------
    r1, r2 : (q,) float64
        Radii.
    d : (q,) float64
        Distance of the centres.
    """
    r1, r2, d = (np.asarray(x, dtype=np.float64) for x in (r1, r2, d))
    small = np.minimum(r1, r2)
    out = np.where(d <= np.abs(r1 - r2), 4.0 / 3.0 * np.pi * small**3, 0.0)
    is_lens = (d < r1 + r2) & (d > np.abs(r1 - r2))
    dd, a, b = d[is_lens], r1[is_lens], r2[is_lens]
    # Two spherical caps (the classic lens volume, e.g. Weisstein, "Sphere-Sphere Intersection").
    caps = np.pi * (a + b - dd) ** 2 * (dd * dd + 2.0 * dd * (a + b) - 3.0 * (a - b) ** 2)
    out[is_lens] = caps / (12.0 * dd)
    return out


def _balls(shape: Balls, left, right) -> _Shapes:
    centre, radius = shape.centre, shape.radius
    gap = np.linalg.norm(centre[left] - centre[right], axis=1)
    return _Shapes(
        area=4.0 * np.pi * radius**2,
        volume=4.0 / 3.0 * np.pi * radius**3,
        overlap_volume=lens_volume(radius[left], radius[right], gap),
        query_box=np.concatenate([centre - radius[:, None], centre + radius[:, None]], axis=1),
        balls=np.ascontiguousarray(np.column_stack([centre, radius])),
    )


def _swept(shape: SweptRectangles, left, _right) -> _Shapes:
    h0, h1, r = shape.half[:, 0], shape.half[:, 1], shape.radius
    a, b = 2.0 * h0, 2.0 * h1
    # Steiner's formulas for a rectangle a x b swept by a ball of radius r (as ssv.volume).
    return _Shapes(
        area=2.0 * a * b + 2.0 * np.pi * r * (a + b) + 4.0 * np.pi * r * r,
        volume=2.0 * r * a * b + np.pi * r * r * (a + b) + 4.0 / 3.0 * np.pi * r**3,
        overlap_volume=np.full(left.shape[0], np.nan),
        epo_note=SWEPT_EPO_NOTE,
        overlap_note=SWEPT_OVERLAP_NOTE,
    )


#: The measures of each shape family of :mod:`core.bv.shapes`.
_MEASURES = {Boxes: _boxes, OrientedBoxes: _oriented_boxes, Slabs: _kdops, Balls: _balls,
             SweptRectangles: _swept}


def _shapes(kind, rows, left, right) -> _Shapes:
    if kind.shape is None:
        raise ValueError(f"bounding volume {kind.name!r} has no shape in its registry row "
                         "(BVKind.shape): its tree quality cannot be measured")
    shape = kind.shape(rows)
    measures = _MEASURES.get(type(shape))
    if measures is None:
        raise ValueError(f"bounding volume {kind.name!r}: no measures for its shape "
                         f"{type(shape).__name__} (core.bvh.metrics knows "
                         f"{', '.join(t.__name__ for t in _MEASURES)})")
    return measures(shape, left, right)

