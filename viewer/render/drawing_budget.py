"""How many boxes a drawing may hold so that rendering it stays inside the GUI thread's budget.

Every level of a big tree is hundreds of thousands of boxes; the display's box cap (20,000 per
overlay) keeps the first of them, the biggest. On this machine's software renderer (llvmpipe,
2 cores) rendering every level of big-bunny at that cap took 180-230 ms, past the 100 ms the
GUI thread may be blocked. A lower fixed cap is no answer: the cost of a box is not its 12
segments but mostly the pixels its lines cover. Over 126 drawings of three scenes at 1280x800
(big-bunny, bunny-bunny, two-spheres; every level and levels 5-30, caps 1,000-20,000, culled
pairs on and off), with each box's pixels estimated as :meth:`ViewScale.edge_pixels` does, a
render took

    10 ms + 0.086 us a line segment + 4.7 ns a pixel of line (length x width)

within 9 ms for all but three drawings, which took 12-18 ms more than it said; with the
segment count alone it missed by up to 46 ms (the big boxes a low cap keeps cost several
times a small one). So each box's cost is estimated from its size on screen, the three
coefficients are refitted from the window's own renders (:class:`RenderCost`: another
machine or window size has other ones), and a drawing whose estimate passes
:data:`RENDER_BUDGET_S` keeps the same share of each of its layers, first boxes first, so
that it fits (:meth:`LineBudget.plan`); the canvas says what was left out and why.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from viewer.render.volumes import frame_volume_set, node_rows

RENDER_BUDGET_S = 0.05
"""Render time a drawing is planned to fit: half of the 100 ms the GUI thread may be blocked.
The rest is for building the overlays and the ghost, the panels and the events of the same
turn (15-30 ms on big-bunny once the budget cut the boxes), and for the estimate's error:
with 60 ms, a paused step of big-bunny with the ghost rendered in 72 ms and blocked 107."""

MIN_KEPT = 64
"""Boxes (or pairs) every layer keeps whatever the estimate: the first of them are the top of
the tree, the part a student reads; 64 boxes cost well under a millisecond."""

PRIOR = (0.010, 0.0855e-6, 4.75e-9)
"""(seconds a render, a line segment, a pixel of line): the fit on this machine quoted in
the module docstring, where the window's fit starts before any render was measured."""

_FIT_RENDERS = 40
"""Renders the coefficients are fitted to: the newest ones, so a resized window or another
scene is followed within a second of playing."""

_PRIOR_WEIGHT_S = 0.01
"""The prior counts as much as one render in which each term took 10 ms: a few measured
renders move the coefficients, each in proportion to its part of those renders' time."""


@dataclass(frozen=True)
class ViewScale:
    """Where the camera looks from and how many pixels a unit of length covers there.

    Attributes
    ----------
    position : (3,) float64
    direction : (3,) float64
        Unit vector the camera looks along.
    pixels_per_unit : float
        Perspective: pixels covered by one unit of length at distance one (the view's
        height over twice the tangent of half its angle). Parallel: pixels per unit anywhere.
    is_parallel : bool
    width, height : int
        The view in pixels.
    """

    position: tuple
    direction: tuple
    pixels_per_unit: float
    is_parallel: bool
    width: int
    height: int

    @classmethod
    def from_renderer(cls, renderer) -> ViewScale:
        """The view of a ``vtkRenderer`` as it is now."""
        camera = renderer.GetActiveCamera()
        width, height = (max(1, int(n)) for n in renderer.GetSize())
        position = np.asarray(camera.GetPosition(), dtype=np.float64)
        direction = np.asarray(camera.GetFocalPoint(), dtype=np.float64) - position
        direction /= max(float(np.linalg.norm(direction)), 1e-300)
        is_parallel = bool(camera.GetParallelProjection())
        if is_parallel:
            per_unit = height / (2.0 * max(camera.GetParallelScale(), 1e-300))
        else:
            per_unit = height / (2.0 * np.tan(np.radians(camera.GetViewAngle()) / 2.0))
        return cls(tuple(position), tuple(direction), float(per_unit), is_parallel, width,
                   height)

    def edge_pixels(self, bmin: np.ndarray, bmax: np.ndarray, pose: np.ndarray) -> np.ndarray:
        """Estimated on-screen length of the 12 edges of each box.

        Parameters
        ----------
        bmin, bmax : (n, 3) float
            Boxes in their body's frame.
        pose : (4, 4) float64
            The body's pose.

        Returns
        -------
        (n,) float64
            The edges' length seen square-on at the box centre's depth (an upper bound of
            the projection: the fit's pixel coefficient absorbs the mean foreshortening),
            at most 12 view diagonals: a line is clipped to the view.
        """
        lo = np.asarray(bmin, dtype=np.float64)
        hi = np.asarray(bmax, dtype=np.float64)
        length = 4.0 * (hi - lo).sum(axis=1)
        diagonal = float(np.hypot(self.width, self.height))
        if self.is_parallel:
            pixels = length * self.pixels_per_unit
        else:
            centres = (lo + hi) * 0.5 @ pose[:3, :3].T + pose[:3, 3]
            depth = (centres - np.asarray(self.position)) @ np.asarray(self.direction)
            # A box at or behind the camera plane: clipped to the view, counted as full.
            pixels = np.where(depth > 0, length * self.pixels_per_unit
                              / np.maximum(depth, 1e-300), np.inf)
        return np.minimum(pixels, 12.0 * diagonal)


@dataclass(frozen=True)
class LineBudget:
    """The render-time estimate of one drawing and the budget it is planned to fit.

    Immutable, so the frame's lane may plan with it while the GUI thread refits the
    coefficients.

    Attributes
    ----------
    view : ViewScale
    base_s, per_segment_s, per_pixel_s : float
        Seconds of a render without lines, of a line segment, of a pixel of line.
    budget_s : float
        Render time the drawing is planned to fit.
    tree_copies : tuple of (float, int)
        Line width and dashes per segment (0: solid) of each layer drawn besides the
        overlays that holds the same boxes as the trees' layers (the ghost, the node heat
        map): planned with them, drawn with :attr:`LinePlan.tree_kept` boxes.
    widths : tuple of (str, float)
        Each overlay's line width in pixels as the scene draws it (lecture mode widens
        them).
    """

    view: ViewScale
    base_s: float = PRIOR[0]
    per_segment_s: float = PRIOR[1]
    per_pixel_s: float = PRIOR[2]
    budget_s: float = RENDER_BUDGET_S
    tree_copies: tuple = ()
    widths: tuple = ()

    def width(self, name: str) -> float:
        """Line width of the overlay ``name`` in pixels (:attr:`widths`; 1 when not given)."""
        return float(dict(self.widths).get(name, 1.0))

    def box_costs(self, bmin: np.ndarray, bmax: np.ndarray, pose: np.ndarray,
                  segments: int, width: float) -> np.ndarray:
        """Estimated render seconds of each box drawn with ``segments`` line segments of
        ``width`` pixels: ``(n,) float64``."""
        return (segments * self.per_segment_s
                + width * self.per_pixel_s * self.view.edge_pixels(bmin, bmax, pose))

    def plan(self, layers: list[np.ndarray]) -> tuple[list[int], float]:
        """How many of each layer's first items to draw.

        Parameters
        ----------
        layers : list of (n_i,) float64
            Each layer's items' estimated seconds, in drawing order (first kept first).

        Returns
        -------
        kept : list of int
            ``n_i`` for every layer when the whole drawing fits :attr:`budget_s`; else the
            same share of every layer (at least :data:`MIN_KEPT` items), the largest that
            fits.
        seconds : float
            The estimated render time of what is kept.
        """
        sizes = [len(costs) for costs in layers]
        totals = [float(np.sum(costs)) for costs in layers]
        if self.base_s + sum(totals) <= self.budget_s:
            return sizes, self.base_s + sum(totals)
        sums = [np.concatenate([[0.0], np.cumsum(costs)]) for costs in layers]

        def kept_at(share: float) -> list[int]:
            return [min(n, max(MIN_KEPT, int(share * n))) for n in sizes]

        def seconds(kept: list[int]) -> float:
            return self.base_s + sum(float(s[k]) for s, k in zip(sums, kept, strict=True))

        low, high = 0.0, 1.0  # seconds(kept_at(share)) grows with share
        for _ in range(40):
            middle = 0.5 * (low + high)
            if seconds(kept_at(middle)) <= self.budget_s:
                low = middle
            else:
                high = middle
        kept = kept_at(low)
        return kept, seconds(kept)


@dataclass(frozen=True)
class LinePlan:
    """What a planned drawing keeps (attached to its overlays).

    Attributes
    ----------
    segments, pixels : float
        Estimated line segments and pixels of line (length x width) of the kept overlays and
        tree copies: the features a render's time is fitted to.
    seconds : float
        The estimated render time.
    tree_kept : int or None
        Boxes each tree layer keeps, for the layers drawn elsewhere with the same boxes
        (:attr:`LineBudget.tree_copies`); None: as many as the box cap allows.
    budget_s : float or None
        The budget that cut the drawing (None: it fit).
    """

    segments: float = 0.0
    pixels: float = 0.0
    seconds: float = 0.0
    tree_kept: int | None = None
    budget_s: float | None = None


class RenderCost:
    """The render-time coefficients of :class:`LineBudget`, refitted after each render.

    A ridge fit of ``render_s ~ base + segments * a + pixels * b`` over the newest
    :data:`_FIT_RENDERS` renders, pulled toward :data:`PRIOR`; each coefficient stays
    between a tenth and ten times its prior.
    """

    def __init__(self, prior: tuple = PRIOR):
        self.prior = np.asarray(prior, dtype=np.float64)
        self.coefficients = self.prior.copy()
        self._renders: deque = deque(maxlen=_FIT_RENDERS)

    def budget(self, view: ViewScale, widths: tuple = (), tree_copies: tuple = (),
               budget_s: float = RENDER_BUDGET_S) -> LineBudget:
        """A :class:`LineBudget` for ``view`` with the coefficients as they are now."""
        base, segment, pixel = (float(c) for c in self.coefficients)
        return LineBudget(view, base, segment, pixel, float(budget_s), tuple(tree_copies),
                          tuple(widths))

    def observe(self, plan: LinePlan | None, render_s: float) -> None:
        """Refit with one render of a planned drawing (None: nothing planned, not fitted)."""
        if plan is None or not np.isfinite(render_s) or render_s <= 0:
            return
        self._renders.append((1.0, float(plan.segments), float(plan.pixels),
                              min(float(render_s), 1.0)))
        rows = np.asarray(self._renders)
        # Scaled so that each coefficient is 1 at the prior: x @ s is seconds.
        x = rows[:, :3] * self.prior
        weight = _PRIOR_WEIGHT_S ** 2
        lhs = x.T @ x + weight * np.eye(3)
        rhs = x.T @ rows[:, 3] + weight * np.ones(3)
        scale = np.clip(np.linalg.solve(lhs, rhs), 0.1, 10.0)
        self.coefficients = self.prior * scale


COPY_LAYER = "tree copy"
"""The name of a :class:`Layer` that is planned but drawn elsewhere (the ghost, the node
heat map: :attr:`LineBudget.tree_copies`)."""


@dataclass(frozen=True)
class Layer:
    """One overlay's boxes or box pairs, in drawing order, before the budget.

    Attributes
    ----------
    name : str
        The overlay (``"tree_a"``, ``"parents"``, ``"overlap"``, ...), or :data:`COPY_LAYER`.
    what : str
        What its items are, for the canvas note ("boxes of A", "culled pairs").
    ids : (n,) int64 or (n, 2) int64
        Node ids of ``body``'s tree, or (A node, B node) pairs when ``body`` is None; already
        cut to the display's box cap.
    total : int
        Items before the box cap.
    body : int or None
    width : float
        Line width in pixels.
    dashes : int
        Dashes each segment is drawn as (0: solid): as many segments, half the pixels.
    """

    name: str
    what: str
    ids: np.ndarray
    total: int
    body: int | None
    width: float
    dashes: int = 0


def plan_layers(budget: LineBudget | None, frame, trees, poses,
                layers: list[Layer], hidden=frozenset()) -> tuple[list[int], LinePlan | None]:
    """How many items of each layer a drawing keeps, and the plan's features.

    Parameters
    ----------
    budget : LineBudget or None
        None keeps every item (an export, a test: nothing waits on the GUI thread).
    frame : core.pipeline.Frame
        Its volumes say how many segments a volume is drawn with.
    trees : sequence of two trees
        Their ``bmin``, ``bmax`` size each volume on screen.
    poses : sequence of (4, 4) float64
    layers : list of Layer
    hidden : frozenset of int
        Bodies whose half of each pair is not drawn.

    Returns
    -------
    kept : list of int
    plan : LinePlan or None
    """
    if budget is None:
        return [len(layer.ids) for layer in layers], None
    segments = _segments_per_volume(frame)

    def costs_of(body: int, ids: np.ndarray, layer: Layer) -> tuple[np.ndarray, np.ndarray]:
        tree = trees[body]
        ink = 0.5 if layer.dashes else 1.0
        pixels = budget.view.edge_pixels(np.asarray(tree.bmin)[ids], np.asarray(tree.bmax)[ids],
                                         poses[body]) * (layer.width * ink)
        pieces = segments * max(1, layer.dashes)
        return pieces * budget.per_segment_s + budget.per_pixel_s * pixels, pixels

    costs, pixels, n_segments = [], [], []
    for layer in layers:
        ids = np.asarray(layer.ids, dtype=np.int64)
        if layer.body is not None:
            parts = [(layer.body, ids)]
        else:
            parts = [(i, ids[:, i]) for i in (0, 1) if i not in hidden]
        cost, pixel = np.zeros(len(ids)), np.zeros(len(ids))
        for body, node_ids in parts:
            c, p = costs_of(body, node_ids, layer)
            cost += c
            pixel += p
        costs.append(cost)
        pixels.append(np.concatenate([[0.0], np.cumsum(pixel)]))
        n_segments.append(segments * max(1, layer.dashes) * len(parts))
    kept, seconds = budget.plan(costs)
    is_cut = any(k < len(layer.ids) for k, layer in zip(kept, layers, strict=True))
    tree_kept = [k for k, layer in zip(kept, layers, strict=True)
                 if layer.name in ("tree_a", "tree_b", COPY_LAYER)]
    plan = LinePlan(
        segments=float(sum(k * n for k, n in zip(kept, n_segments, strict=True))),
        pixels=float(sum(p[k] for p, k in zip(pixels, kept, strict=True))),
        seconds=seconds,
        tree_kept=(max(tree_kept) if is_cut and tree_kept else None),
        budget_s=budget.budget_s if is_cut else None)
    return kept, plan


def _segments_per_volume(frame) -> int:
    """Line segments one volume of the frame's kind is drawn with (12 for a box)."""
    volumes = frame_volume_set(frame)
    if volumes is None or volumes.boxes is not None or not volumes.rows:
        return 12
    rows = node_rows(volumes, 0, np.zeros(1, dtype=np.int64))
    sizes = np.asarray(volumes.wire(rows)["line_sizes"])
    return max(1, int((sizes - 1).sum()))
