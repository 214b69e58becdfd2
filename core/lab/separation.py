"""Why a culled pair of a frame's traversal was culled, as geometry: the separating axis.

The kind's own ``separation`` hook (its registry row) gives the axis and both volumes'
intervals on it, in A's frame; this module turns them into world coordinates and words for
the stepper to draw beside a culled step (:mod:`core.lab.steps`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.lab.query_inputs import query_inputs
from core.lab.steps import PairStep, StepOutcome, TraversalSteps


@dataclass(frozen=True, eq=False)
class Separation:
    """Why a culled pair is culled, as geometry: the axis its test separated along.

    Attributes
    ----------
    axis : (3,) float64
        Unit vector in world coordinates, pointing from A's side to B's.
    origin : (3,) float64
        A point on the axis near the pair (world), where the arrow starts: just before
        both intervals, so they read as positive distances.
    interval_a, interval_b : (float, float)
        Projections of A's and of B's volume on the axis, signed distances from ``origin``.
    gap : float
        ``interval_b[0] - interval_a[1] > 0``: how far apart the projections are.
    words : str
        "A's axis 2 (y): A spans [0.10, 0.42], B spans [0.47, 0.90], gap 0.05".
    """

    axis: np.ndarray
    origin: np.ndarray
    interval_a: tuple
    interval_b: tuple
    gap: float
    words: str


def separation(frame_or_steps, step: PairStep) -> Separation | None:
    """The separating axis of a culled step, with both volumes' intervals on it.

    Parameters
    ----------
    frame_or_steps : core.pipeline.Frame or TraversalSteps
        The frame the step came from (its :class:`TraversalSteps` avoids rebuilding the
        query's inputs).
    step : PairStep

    Returns
    -------
    Separation or None
        None unless the step is CULLED.
    """
    if step.outcome is not StepOutcome.CULLED:
        return None
    inputs = (frame_or_steps.inputs if isinstance(frame_or_steps, TraversalSteps)
              else query_inputs(frame_or_steps))  # fmt: skip
    kind = inputs.kind
    if kind.separation is None:
        raise ValueError(f"the {kind.label} kind does not say how its test separates a pair")
    row_a = inputs.volumes[0][step.node_a]
    row_b = inputs.volumes[1][step.node_b]
    axis, ia, ib, through = kind.separation(row_a, row_b, inputs.rot, inputs.trans, step.sep_id)
    axis = np.asarray(axis, dtype=np.float64)
    ia, ib = (float(ia[0]), float(ia[1])), (float(ib[0]), float(ib[1]))
    if ib[0] < ia[0]:
        # Point the axis from A to B, so A's interval comes first.
        axis = -axis
        ia, ib = (-ia[1], -ia[0]), (-ib[1], -ib[0])
    # The arrow starts a tenth of the spanned length before the lower interval, on the line
    # through the point the kind chose near the pair.
    span = max(ib[1], ia[1]) - ia[0]
    start = ia[0] - 0.1 * span
    origin_local = np.asarray(through, dtype=np.float64)
    origin_local = origin_local + (start - float(axis @ origin_local)) * axis
    ia = (ia[0] - start, ia[1] - start)
    ib = (ib[0] - start, ib[1] - start)
    gap = ib[0] - ia[1]
    rot_a = np.asarray(inputs.pose_a.rotation, dtype=np.float64)
    origin = rot_a @ origin_local + np.asarray(inputs.pose_a.translation, dtype=np.float64)
    words = (f"{step.test_words}: A spans [{ia[0]:.3g}, {ia[1]:.3g}], B spans "
             f"[{ib[0]:.3g}, {ib[1]:.3g}], gap {gap:.3g}")  # fmt: skip
    if inputs.near_margin > 0.0:
        words += (f" (the test also asked for more than the near-contact margin "
                  f"{inputs.near_margin:.3g})")  # fmt: skip
    return Separation(axis=rot_a @ axis, origin=origin, interval_a=ia, interval_b=ib, gap=gap,
                      words=words)  # fmt: skip
