"""The traversal stepper in 3-D: one step of the tandem traversal as a few batched overlays.

Pure drawing from plain values (no Qt, no core): the controller turns the core's step into a
:class:`StepView` (node ids, outcome code, words, the separating axis as arrays) and this
module turns it into one PolyData per overlay kind (:data:`STEP_OVERLAY_NAMES`):

- ``step_a`` / ``step_b``: A's and B's volume of the pair under test, bold;
- ``step_culled``, ``step_split``, ``step_leaf``: the pairs decided before it under the
  same ancestor pair a few levels up (the current subtree), faint, by outcome (capped; the
  note says how many are not drawn);
- ``step_tris_a`` / ``step_tris_b``: a leaf pair's triangles, A's and B's, sent to the exact
  test (their edges, bold);
- ``step_axis``: for a culled pair, the separating axis as an arrow through the pair (a line
  and a cone);
- ``step_interval_a`` / ``step_interval_b``: the projections of A's and B's volume on it,
  thick segments;
- ``step_gap``: the gap between them, a segment with a tick at each end (its words are a
  label at the gap's middle, drawn by the scene renderer).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyvista as pv

# Mirrors of ``core.lab.steps``' outcome codes (``TraversalSteps.decided``); a test checks
# they agree.
CODE_CULLED = 0
CODE_SPLIT = 1
CODE_LEAF_PAIR = 2

OUTCOME_WORDS = {
    CODE_CULLED: "culled: the two volumes are apart",
    CODE_SPLIT: "overlap: one volume is split",
    CODE_LEAF_PAIR: "overlap of two leaves: their triangles are tested",
}

STEP_OVERLAY_NAMES = (
    "step_culled",
    "step_split",
    "step_leaf",
    "step_a",
    "step_b",
    "step_tris_a",
    "step_tris_b",
    "step_axis",
    "step_interval_a",
    "step_interval_b",
    "step_gap",
)
"""The stepper's overlays, in drawing order; each is one actor with this name."""

DECIDED_NAMES = {CODE_CULLED: "step_culled", CODE_SPLIT: "step_split",
                 CODE_LEAF_PAIR: "step_leaf"}

MAX_DECIDED_DRAWN = 200
"""Most volumes of each body drawn faint per outcome (the latest decided: they are near the
pair under test in the traversal's order); above it the canvas says how many are not drawn.
Each distinct volume is drawn once: the pairs of a level share their volumes. At 500 the
faint volumes of a deep level of two spheres hid the bold pair (1280x800 screenshot)."""

ARROW_MARGIN = 0.25
"""The axis arrow reaches past both intervals by this share of their joint extent."""

CONE_SHARE = 0.06
"""Length of the arrow's head as a share of the arrow's length."""

TICK_SHARE = 0.05
"""Half length of the ticks that close the gap, as a share of the arrow's length."""

LABEL_SHARE = 0.08
"""The separation's label is written this share of the arrow's length past its head, beside
the arrow (at the gap's middle it covered the gap it explains)."""

MAX_DECIMALS = 12


def shown_decimals(lo: float, hi: float, gap: float) -> int:
    """Decimals that show ``gap`` (``hi - lo`` > 0) with two significant digits and make the
    shown ``hi`` minus the shown ``lo`` equal the shown gap (``1.26 - 1.25`` was printed
    beside a gap of ``0.0075``)."""
    decimals = max(2, 1 - int(np.floor(np.log10(max(abs(gap), 1e-300)))))
    while decimals < MAX_DECIMALS:
        shown = float(f"{hi:.{decimals}f}") - float(f"{lo:.{decimals}f}")
        if f"{shown:.{decimals}f}" == f"{gap:.{decimals}f}":
            break
        decimals += 1
    return decimals


def separation_label(sep) -> str:
    """A culled pair's separation in words with enough digits: "A's axis 2 (y): A spans
    [0.1000, 1.2490], B spans [1.2565, 1.9000], gap 0.0075" (the shown spans subtract to the
    shown gap), with the core's words' test name and any note after the numbers."""
    (a_lo, a_hi), (b_lo, b_hi) = sorted(sep.interval_a), sorted(sep.interval_b)
    gap_lo, gap_hi = (a_hi, b_lo) if a_hi <= b_lo else (b_hi, a_lo)
    gap = gap_hi - gap_lo
    d = shown_decimals(gap_lo, gap_hi, gap)
    words = str(sep.words)
    test = words.split(": A spans", 1)[0]
    note_at = words.find(" (the test also")
    note = words[note_at:] if note_at >= 0 else ""
    return (f"{test}: A spans [{a_lo:.{d}f}, {a_hi:.{d}f}], B spans [{b_lo:.{d}f}, "
            f"{b_hi:.{d}f}], gap {gap:.{d}f}{note}")


def axis_name(axis) -> str:
    """"x", "y" or "z" when the world axis ``(3,)`` is one of them (either sign), else ""."""
    axis = np.asarray(axis, dtype=np.float64)
    axis = axis / max(float(np.linalg.norm(axis)), 1e-300)
    k = int(np.argmax(np.abs(axis)))
    return "xyz"[k] if abs(axis[k]) > 1.0 - 1e-9 else ""


@dataclass(frozen=True)
class StepView:
    """Everything the stepper dock, the pseudo-code panel and the canvas show of one step.

    Attributes
    ----------
    position, n_steps : int
        The pair under test (0-based) and how many pair tests the frame's traversal made.
    level, n_levels : int
    node_a, node_b : int
        The pair under test: node of A's tree, node of B's tree.
    outcome : int
        :data:`CODE_CULLED`, :data:`CODE_SPLIT` or :data:`CODE_LEAF_PAIR`.
    test_words : str
        The test that decided.
    split_words : str
        Which node is split next and why (a split); "".
    children : tuple of (int, int)
        Pairs this step puts on the next level.
    triangle_pairs, contact_pairs : (p, 2), (c, 2) int64
        A leaf pair's triangle pairs sent to the exact test, and those in contact.
    contact_kinds : (c,) int8
        Each contact pair's kind (the frame's ``result.kinds``: crossing, touching,
        coplanar; 0 when not known).
    counters : dict[str, int]
        Running totals after this step: ``n_bv_tests``, ``n_bv_overlaps``,
        ``n_leaf_pairs``, ``n_tri_tests``, ``n_contacts``.
    queue_length : int
        Pairs still waiting after this step.
    waiting : list of (level, node_a, node_b)
        The first of them, in order.
    decided_a, decided_b : (k,) int
        Pairs decided before this step.
    decided_outcome : (k,) int
        Only the pairs under ``history_root`` (the current subtree) are listed.
    history_root : tuple of (level, node_a, node_b) or None
        The ancestor pair the history is limited to.
    n_history_left : int
        Pairs decided earlier outside that subtree (not drawn).
    contact_ids : (c,) int64
        Rows of the frame's contacts found up to and including this step: only they are
        drawn while stepping, so the picture agrees with the running count.
    separation : core.lab.separation.Separation or None
        A culled pair's separating axis (None otherwise, or when the kind cannot say).
    noun, noun_plural : str
        How the kind's volumes are called.
    traversal_title : str
        The traversal's heading, with the papers it follows.
    traversal_lines : list of str
        The tandem traversal's pseudo-code.
    traversal_line : int
        Index of the line this step executes (-1: none).
    test_title : str
        The kind's overlap test's name.
    test_lines : list of str
    test_line : int
        Index of the test's deciding line (-1: none).
    """

    position: int
    n_steps: int
    level: int
    n_levels: int
    node_a: int
    node_b: int
    outcome: int
    test_words: str
    split_words: str = ""
    children: tuple = ()
    triangle_pairs: np.ndarray = field(default_factory=lambda: np.empty((0, 2), np.int64))
    contact_pairs: np.ndarray = field(default_factory=lambda: np.empty((0, 2), np.int64))
    contact_kinds: np.ndarray = field(default_factory=lambda: np.empty(0, np.int8))
    counters: dict = field(default_factory=dict)
    queue_length: int = 0
    waiting: list = field(default_factory=list)
    decided_a: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    decided_b: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    decided_outcome: np.ndarray = field(default_factory=lambda: np.empty(0, np.int8))
    history_root: tuple | None = None
    n_history_left: int = 0
    contact_ids: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    separation: object = None  # core.lab.separation.Separation: plain arrays and numbers
    noun: str = "volume"
    noun_plural: str = "volumes"
    traversal_title: str = ""
    traversal_lines: list = field(default_factory=list)
    traversal_line: int = -1
    test_title: str = ""
    test_lines: list = field(default_factory=list)
    test_line: int = -1


@dataclass
class StepOverlays:
    """The stepper's overlay geometry for one step.

    Attributes
    ----------
    polys : dict[str, pv.PolyData]
        One entry per name of :data:`STEP_OVERLAY_NAMES`.
    label_point : (3,) float64 or None
        Where the separation's words are written (past the arrow's head).
    label : str
    notes : list of str
        Canvas lines (decided pairs not drawn).
    """

    polys: dict = field(default_factory=dict)
    label_point: np.ndarray | None = None
    label: str = ""
    notes: list = field(default_factory=list)


def _line_cells(n_segments: int) -> np.ndarray:
    """``[2, 0, 1, 2, 2, 3, ...]``: ``n_segments`` lines over consecutive point pairs."""
    cells = np.empty((n_segments, 3), dtype=np.int64)
    cells[:, 0] = 2
    cells[:, 1] = np.arange(0, 2 * n_segments, 2)
    cells[:, 2] = cells[:, 1] + 1
    return cells.ravel()


def segments(points: np.ndarray) -> pv.PolyData:
    """``(2 s, 3)`` points as ``s`` line cells (point 2i to point 2i + 1)."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if points.shape[0] == 0:
        return pv.PolyData()
    return pv.PolyData(np.ascontiguousarray(points), lines=_line_cells(points.shape[0] // 2))


def _normal_to(axis: np.ndarray) -> np.ndarray:
    """A unit vector perpendicular to ``axis``."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(axis, helper)
    return u / np.linalg.norm(u)


def separation_polys(sep) -> tuple[dict, np.ndarray]:
    """The arrow, both intervals and the gap of a separating axis ``sep``
    (:class:`core.lab.separation.Separation`: axis, origin, intervals, gap, words; read only).

    Returns
    -------
    polys : dict[str, pv.PolyData]
        ``step_axis`` (1 line + the cone's faces), ``step_interval_a`` and
        ``step_interval_b`` (1 line each), ``step_gap`` (3 lines: the gap and a tick at
        each end).
    label_point : (3,) float64
        Past the arrow's head (:data:`LABEL_SHARE`), beside the arrow, not over the gap.
    """
    axis = np.asarray(sep.axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    origin = np.asarray(sep.origin, dtype=np.float64)
    (a_lo, a_hi), (b_lo, b_hi) = sorted(sep.interval_a), sorted(sep.interval_b)
    lo, hi = min(a_lo, b_lo), max(a_hi, b_hi)
    span = max(hi - lo, 1e-12)
    start, end = lo - ARROW_MARGIN * span, hi + ARROW_MARGIN * span
    length = end - start
    head = CONE_SHARE * length
    tip = origin + end * axis
    cone = pv.Cone(center=tip - 0.5 * head * axis, direction=axis, height=head,
                   radius=0.35 * head, resolution=16)
    # One PolyData: the shaft as a line cell, the head as the cone's polygons.
    points = np.concatenate([[origin + start * axis, tip - head * axis],
                             np.asarray(cone.points)])
    faces = np.asarray(cone.faces).copy()
    at = 0
    while at < faces.shape[0]:  # shift each polygon's point ids past the shaft's two points
        size = int(faces[at])
        faces[at + 1:at + 1 + size] += 2
        at += size + 1
    arrow = pv.PolyData(points, lines=np.array([2, 0, 1]), faces=faces)
    # The gap lies between the interval that ends first and the one that starts after it.
    gap_lo, gap_hi = (a_hi, b_lo) if a_hi <= b_lo else (b_hi, a_lo)
    u = _normal_to(axis) * TICK_SHARE * length
    p_lo, p_hi = origin + gap_lo * axis, origin + gap_hi * axis
    gap = segments(np.array([p_lo, p_hi, p_lo - u, p_lo + u, p_hi - u, p_hi + u]))
    polys = {
        "step_axis": arrow,
        "step_interval_a": segments(np.array([origin + a_lo * axis, origin + a_hi * axis])),
        "step_interval_b": segments(np.array([origin + b_lo * axis, origin + b_hi * axis])),
        "step_gap": gap,
    }
    return polys, tip + LABEL_SHARE * length * axis


def decided_nodes(node_ids: np.ndarray) -> np.ndarray:
    """``(u,) int64``: the distinct nodes of ``node_ids``, the most recently decided first."""
    reversed_ids = np.asarray(node_ids, dtype=np.int64)[::-1]
    _, first = np.unique(reversed_ids, return_index=True)
    return reversed_ids[np.sort(first)]


def build_step_overlays(view: StepView | None, pair_volumes,
                        leaf_triangles=None) -> StepOverlays:
    """The stepper's overlays for one step.

    Parameters
    ----------
    view : StepView or None
        None draws nothing (empty PolyData for every name).
    pair_volumes : callable
        ``pair_volumes(groups) -> pv.PolyData`` drawing the volumes of ``groups``, a list of
        ``(body 0 or 1, node ids (j,) int)``, as the frame's kind (its ``wire`` records) in
        world coordinates.
    leaf_triangles : callable or None
        ``leaf_triangles(body, triangle ids (t,) int64) -> pv.PolyData``: those triangles'
        edges in world coordinates (a leaf pair's triangles are drawn only with it).

    Returns
    -------
    StepOverlays
    """
    out = StepOverlays(polys={name: pv.PolyData() for name in STEP_OVERLAY_NAMES})
    if view is None:
        return out
    out.polys["step_a"] = pair_volumes([(0, np.array([view.node_a]))])
    out.polys["step_b"] = pair_volumes([(1, np.array([view.node_b]))])
    tris = np.asarray(view.triangle_pairs, dtype=np.int64).reshape(-1, 2)
    if view.outcome == CODE_LEAF_PAIR and leaf_triangles is not None and tris.shape[0]:
        for body, name in ((0, "step_tris_a"), (1, "step_tris_b")):
            out.polys[name] = leaf_triangles(body, np.unique(tris[:, body]))
    if view.history_root is not None and view.n_history_left:
        level, a, b = view.history_root
        out.notes.append(f"history: the pairs under pair ({a}, {b}) of level {level} are "
                         f"drawn faint, the {view.n_history_left:,} others tested earlier "
                         "are not")
    outcome = np.asarray(view.decided_outcome)
    for code, name in DECIDED_NAMES.items():
        rows = np.flatnonzero(outcome == code)
        groups, n_left = [], 0
        for body, column, current in ((0, view.decided_a, view.node_a),
                                      (1, view.decided_b, view.node_b)):
            nodes = decided_nodes(np.asarray(column)[rows])
            nodes = nodes[nodes != current]  # drawn bold, not faint under it
            n_left += max(0, nodes.shape[0] - MAX_DECIDED_DRAWN)
            groups.append((body, nodes[:MAX_DECIDED_DRAWN]))
        if n_left:
            out.notes.append(f"pairs decided earlier ({OUTCOME_WORDS[code].split(':')[0]}): "
                             f"{n_left:,} volumes not drawn")
        if rows.shape[0]:
            out.polys[name] = pair_volumes(groups)
    if view.separation is not None:
        polys, point = separation_polys(view.separation)
        out.polys.update(polys)
        out.label_point = point
        out.label = separation_label(view.separation)
    return out
