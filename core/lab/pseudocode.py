"""The tandem traversal and each kind's overlap test as pseudo-code, with the line a step runs.

Plain strings for a panel to show beside the stepper: the traversal as the literature writes
it, breadth first as :func:`core.collide.traversal.traverse_levels` runs it (a queue of node
pairs; van den Bergen 1998, "Efficient collision detection of complex deformable models using
AABB trees", and Gottschalk, Lin, Manocha 1996, "OBBTree", section 5), and per kind the
overlap test that decided each pair. Lines are numbered from 1 as they are shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.bv.registry import BVKind, get_kind
from core.lab.steps import PairStep, StepOutcome


@dataclass(frozen=True)
class Listing:
    """A titled block of pseudo-code.

    Attributes
    ----------
    title : str
        The heading, with the paper it follows.
    lines : tuple of str
        Line ``k`` (from 1) is ``lines[k - 1]``; indentation is part of the text.
    """

    title: str
    lines: tuple

    def numbered(self) -> list[str]:
        """The lines as shown: ``" 3  text"``."""
        width = len(str(len(self.lines)))
        return [f"{k:>{width}}  {text}" for k, text in enumerate(self.lines, start=1)]


TRAVERSAL = Listing(
    "Tandem traversal, breadth first (van den Bergen 1998; Gottschalk, Lin, Manocha 1996)",
    (
        "queue ← [(root of A, root of B)]",
        "while queue is not empty:",
        "    (a, b) ← take the first pair of queue",
        "    if not overlap(volume(a), volume(b)):",
        "        continue                      ▹ culled: nothing below a and b can touch",
        "    if a and b are both leaves:",
        "        for each triangle s of a, t of b: exact test(s, t)",
        "        continue",
        "    if the descend rule splits a:     ▹ b is a leaf, or a's volume is larger",
        "        append (a.left, b), (a.right, b) to queue",
        "    else if it splits b:",
        "        append (a, b.left), (a, b.right) to queue",
        "    else:                             ▹ split-both rule",
        "        append the four pairs of a's and b's children to queue",
    ),
)

#: Traversal lines (1-based).
LINE_POP = 3
LINE_TEST = 4
LINE_CULL = 5
LINE_LEAVES = 7
LINE_SPLIT_A = 10
LINE_SPLIT_B = 12
LINE_SPLIT_BOTH = 14


def lines_for(step: PairStep) -> tuple[int, ...]:
    """Every traversal line ``step`` runs, in order: the pop, the test, then its branch."""
    if step.outcome is StepOutcome.CULLED:
        return (LINE_POP, LINE_TEST, LINE_CULL)
    if step.outcome is StepOutcome.LEAF_PAIR:
        return (LINE_POP, LINE_TEST, 6, LINE_LEAVES, 8)
    branch = line_for(step)
    checks = {LINE_SPLIT_A: (9,), LINE_SPLIT_B: (9, 11), LINE_SPLIT_BOTH: (9, 11, 13)}[branch]
    return (LINE_POP, LINE_TEST, 6) + checks + (branch,)


def line_for(step: PairStep) -> int:
    """The traversal line where ``step`` ends: the cull, the leaves' exact tests, or the
    split of A, of B, or of both (read from the children it put on the queue)."""
    if step.outcome is StepOutcome.CULLED:
        return LINE_CULL
    if step.outcome is StepOutcome.LEAF_PAIR:
        return LINE_LEAVES
    if len(step.children) == 4:
        return LINE_SPLIT_BOTH
    if all(a == step.node_a for a, _ in step.children):
        return LINE_SPLIT_B
    return LINE_SPLIT_A


# -- the overlap tests ---------------------------------------------------------------------
_SAT_HEAD = (
    "R ← Aᵀ·rot·B;  T ← Aᵀ·(rot·c_B + t − c_A)     ▹ B's box in A's box frame",
    "for i in 1..3:                                 ▹ A's face axes",
    "    if |T_i| > a_i + Σ_j b_j |R_ij|: return separated on A's axis i",
    "for j in 1..3:                                 ▹ B's face axes",
    "    if |T · R_j| > Σ_i a_i |R_ij| + b_j: return separated on B's axis j",
)

SAT15 = Listing(
    "Separating axis test, 15 axes (Gottschalk, Lin, Manocha 1996, section 4)",
    _SAT_HEAD + (
        "for i in 1..3, j in 1..3:                      ▹ edge–edge axes A_i × B_j",
        "    if |T · (A_i × B_j)| > r_A + r_B: return separated on A_i × B_j",
        "return overlap",
    ),
)

SAT_LITE = Listing(
    "SAT lite, the 6 face axes (van den Bergen 1997, section 5.1)",
    _SAT_HEAD + (
        "return overlap          ▹ may let a separated pair through, never misses one",
    ),
)

SPHERE = Listing(
    "Sphere test (centre line)",
    (
        "d ← |rot·c_B + t − c_A|                       ▹ distance of the centres",
        "if d > r_A + r_B: return separated along the centre line",
        "return overlap",
    ),
)

KDOP = Listing(
    "k-DOP slab test (Klosowski et al. 1998)",
    (
        "shift B's slabs by n_i · t; under rotation, project each body's box on the other's "
        "slabs",
        "for i in 1..k/2:                               ▹ A's slab directions n_i",
        "    if B's interval on n_i misses [dmin_A,i, dmax_A,i]: return separated on slab i",
        "if B is rotated:",
        "    for i in 1..k/2:                           ▹ B's slab directions",
        "        if A's interval on n_i misses B's slab i: return separated on B's slab i",
        "return overlap",
    ),
)

SWEPT_SPHERE = Listing(
    "Swept-sphere distance test (Larsen, Gottschalk, Lin, Manocha 2000, PQP)",
    (
        "if the boxes around both volumes are separated (15 axes): return separated",
        "d ← distance between the two cores (segments or rectangles)",
        "if d > r_A + r_B: return separated by the swept-sphere distance",
        "return overlap",
    ),
)

POINT_SWEPT_SPHERE = Listing(
    "Point swept sphere test (PQP)",
    (
        "d ← |rot·c_B + t − c_A|",
        "if d > r_A + r_B: return separated along the centre line",
        "return overlap",
    ),
)

#: The listings by the name a registry row gives in :attr:`core.bv.BVKind.listing`.
LISTINGS = {"sat_lite": SAT_LITE, "sat15": SAT15, "sphere": SPHERE, "kdop": KDOP,
            "point_swept_sphere": POINT_SWEPT_SPHERE, "swept_sphere": SWEPT_SPHERE}


def overlap_listing(kind: str | BVKind) -> Listing:
    """The overlap test of a kind as pseudo-code."""
    kind = get_kind(kind)
    try:
        return LISTINGS[kind.listing]
    except KeyError:
        raise ValueError(f"no pseudo-code for the {kind.label} test yet") from None


def test_line_for(kind: str | BVKind, step: PairStep) -> int:
    """The line of ``kind``'s test that decided ``step``: the check of the separating axis,
    slab or distance for a culled pair, the final "overlap" line otherwise."""
    listing = overlap_listing(kind)
    last = len(listing.lines)
    if step.outcome is not StepOutcome.CULLED:
        return last
    sep = step.sep_id
    if listing is SAT15 or listing is SAT_LITE:
        if sep < 3:
            return 3
        if sep < 6:
            return 5
        return 7
    if listing is KDOP:
        n_dirs = get_kind(kind).width // 2
        return 3 if sep < n_dirs else 6
    if listing is SWEPT_SPHERE:
        return 1 if sep == 1 else 3
    return 2  # sphere, point swept sphere: the centre line
