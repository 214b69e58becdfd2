"""What a collision query is asked to do: one frozen record for ``contacts()``, the frame
pipeline and the command line.

Every choice a query takes lives here once, validated once, so the three callers cannot drift
apart (before, each had its own keyword arguments and checks). Per-frame choices that are not
part of a query stay out of it: the analyses only the frame pipeline runs are
:class:`FrameOptions`, and how a deformed tree is brought up to date is
:class:`core.pipeline.PipelineSettings`, which holds both records.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from core.bv.obb_fit import ObbFit
from core.bvh.tree import SplitRule
from core.checks import instance, integer
from core.collide.budget import DEFAULT_PAIR_BUDGET, check_budget
from core.collide.query import check_margin
from core.collide.tandem import DescendRule
from core.settings import DEFAULT_TOLERANCES, Tolerances


@dataclass(frozen=True)
class CollisionRequest:
    """One collision query's choices, with documented defaults.

    Attributes
    ----------
    bv : str
        Key of :data:`core.bv.BV_KINDS` the traversal tests. ``"aabb"`` traverses the tree's
        own boxes; any other kind fits its volumes on the same topology
        (:func:`core.collide.bvquery.collide_bv`; timed as ``"fit"``).
    obb_fit : ObbFit
        How the ``"obb"`` kind chooses each box's axes.
    split : SplitRule
        Split rule of the trees the query builds.
    leaf_size : int
        Most triangles per leaf, at least 1.
    descend : DescendRule
        Which node of an overlapping pair is split.
    trace : bool
        Record the per-level trace (the viewer needs it; benchmarks and scripts turn it off:
        the contacts are the same).
    tol : Tolerances
    margin : float
        Near-contact distance ``D >= 0``: also report the triangle pairs that do not touch
        but are at most ``D`` apart. 0 (default): exact contacts only.
    partition : str or None
        A key of :data:`core.partition.PARTITION_KINDS`: ``contacts()`` and the command line
        find the candidate pairs with that spatial partition instead of the trees; the frame
        pipeline runs it beside the trees (``Frame.partition``, its cells drawn). None: trees
        only.
    partition_params : tuple of (str, value)
        The partition kind's settings (``cell_size``, ``max_depth``, ``capacity`` ...), given
        as a dict or as pairs and stored as sorted pairs (so a request stays hashable);
        empty: the kind's defaults.
    pair_budget : int
        Most overlapping volume pairs one traversal may meet, and most triangle pairs it may
        send to the exact test (default :data:`core.collide.budget.DEFAULT_PAIR_BUDGET`,
        50 million: about 1.5 GB at the traversal's peak). A query that would pass it ends in
        a one-line :class:`core.errors.PairBudgetError` naming the tree, before its buffers
        grow past it; the stepper and the heat map refuse a trace of more rows.
    """

    bv: str = "aabb"
    obb_fit: ObbFit = ObbFit.SURFACE
    split: SplitRule = SplitRule.MIDPOINT
    leaf_size: int = 1
    descend: DescendRule = DescendRule.LARGER_VOLUME
    trace: bool = False
    tol: Tolerances = DEFAULT_TOLERANCES
    margin: float = 0.0
    partition: str | None = None
    partition_params: tuple = ()
    pair_budget: int = DEFAULT_PAIR_BUDGET

    def __post_init__(self):
        from core.bv import BV_KINDS
        from core.partition import PARTITION_KINDS, make_params

        for name, cls in (("split", SplitRule), ("descend", DescendRule),
                          ("obb_fit", ObbFit), ("tol", Tolerances)):  # fmt: skip
            instance(getattr(self, name), name, cls)
        integer(self.leaf_size, "leaf_size", minimum=1)
        object.__setattr__(self, "pair_budget", check_budget(self.pair_budget))
        _check_bools(self, ("trace",))
        if self.bv not in BV_KINDS:
            raise ValueError(f"bv must be one of {', '.join(BV_KINDS)}, got {self.bv!r}")
        object.__setattr__(self, "margin", check_margin(self.margin))
        if self.partition is not None and self.partition not in PARTITION_KINDS:
            raise ValueError(f"partition must be None or one of {', '.join(PARTITION_KINDS)}, "
                             f"got {self.partition!r}")  # fmt: skip
        try:
            params = dict(self.partition_params)
        except (TypeError, ValueError):
            what = type(self.partition_params).__name__
            raise TypeError(f"partition_params must be a dict of settings, got {what}") from None
        if params and self.partition is None:
            raise ValueError("partition_params need a partition kind (partition is None)")
        if params:
            make_params(self.partition, **params)  # names the unknown setting in one line
        object.__setattr__(self, "partition_params", tuple(sorted(params.items())))

    def replace(self, **changes) -> CollisionRequest:
        """A copy with some fields changed (validated again); unknown names raise TypeError."""
        names = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown and unknown[0] in FRAME_OPTION_FIELDS:
            raise TypeError(f"CollisionRequest has no field {unknown[0]!r}: it is a frame "
                            f"option (FrameOptions, PipelineSettings.frame)")  # fmt: skip
        if unknown:
            raise TypeError(f"CollisionRequest has no field {unknown[0]!r}; fields: "
                            f"{', '.join(sorted(names))}")  # fmt: skip
        return CollisionRequest(**{**{n: getattr(self, n) for n in names}, **changes})


def _check_bools(record, names) -> None:
    """Each named field of ``record`` a bool (numpy's too): one line naming the field."""
    for name in names:
        value = getattr(record, name)
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be a bool, got {type(value).__name__}")


@dataclass(frozen=True)
class FrameOptions:
    """The analyses of a frame beyond the contact query, which only the frame pipeline runs
    (:class:`core.pipeline.FramePipeline`, held by ``PipelineSettings.frame``).

    ``core.contacts()`` answers the contact query of two meshes only and refuses these
    (:data:`core.FRAME_OPTIONS` names the call that answers each for one pair).

    Attributes
    ----------
    self_collision : bool
        Also test every body against itself (``Frame.self_results``).
    containment : bool
        When A and B do not touch, decide whether one is inside the other
        (``Frame.containment``).
    distance : bool
        When A and B do not touch, find their minimum distance and closest points
        (``Frame.distance``; bounded with RSS volumes, :data:`DISTANCE_BV`).
    """

    self_collision: bool = False
    containment: bool = False
    distance: bool = False

    def __post_init__(self):
        _check_bools(self, FRAME_OPTION_FIELDS)

    def replace(self, **changes) -> FrameOptions:
        """A copy with some fields changed (validated again); unknown names raise TypeError."""
        unknown = sorted(set(changes) - set(FRAME_OPTION_FIELDS))
        if unknown:
            raise TypeError(f"FrameOptions has no field {unknown[0]!r}; fields: "
                            f"{', '.join(FRAME_OPTION_FIELDS)}")  # fmt: skip
        return FrameOptions(**{**{n: getattr(self, n) for n in FRAME_OPTION_FIELDS}, **changes})


FRAME_OPTION_FIELDS = ("self_collision", "containment", "distance")
"""Field names of :class:`FrameOptions`, in order."""

DISTANCE_BV = "rss"
"""Kind that bounds the distance query: PQP's rectangle swept spheres (Larsen et al. 2000),
the tightest distance bound of the registry."""

REQUEST_FIELDS = tuple(f.name for f in fields(CollisionRequest))
"""Field names of :class:`CollisionRequest`, in order."""
