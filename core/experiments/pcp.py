"""``pcp``: volume tests against the gap of two concentric spheres, for every kind.

Gottschalk, Lin and Manocha (1996), section 5 ("parallel close proximity"): when two surfaces
run parallel at a small distance ``gap``, the traversal must descend until the volumes around
patches of both surfaces are thinner than the gap. The paper's argument: an axis-aligned box
(or a sphere) around a curved patch of size ``s`` is about ``s`` thick along the normal (it
converges linearly), so it separates at ``s ~ gap`` and about ``1 / gap^2`` pairs are tested;
an oriented box fitted to the patch is about ``s^2`` thick (it converges quadratically), so it
separates at ``s ~ sqrt(gap)`` and about ``1 / gap`` pairs are tested: slopes near -2 for AABBs
and spheres, near -1 for OBBs on log-log axes.

Once a volume around a single triangle is thicker than the gap, halving the gap adds few pairs:
the counts bend to a plateau. The slope is fitted on the points before the bend
(:func:`fit_range`); finer spheres push the bend to smaller gaps.
"""

from __future__ import annotations

import numpy as np

from core.bv import BV_KINDS
from core.bvh import SplitRule, build_trees
from core.collide.dispatch import tree_query
from core.experiments.base import Column, Experiment, ExperimentOptions, ExperimentResult, Progress
from core.experiments.common import (
    FIGURE_WIDTH,
    concentric_spheres,
    gap_words,
    loglog_slope,
    put_caption,
    sphere_rings,
)
from core.request import CollisionRequest

SOURCE = ("S. Gottschalk, M. C. Lin, D. Manocha, \"OBBTree: a hierarchical structure for rapid "
          "interference detection\", SIGGRAPH 1996, section 5 (parallel close proximity)")

#: Gaps of the run: the paper's four decades 1e-1 ... 1e-4, with the half decades between
#: (a line through seven points shows a bend that four would hide).
GAPS = tuple(10.0 ** (-e / 2.0) for e in range(2, 9))

#: A count below this fraction of the kind's count at the smallest gap is in the regime the
#: paper's argument describes; above it the traversal has reached the leaves (a volume around
#: one triangle is thicker than the gap) and halving the gap adds few pairs. Measured on
#: 20k-50k triangles per sphere: the AABB and OBB counts run along straight lines up to about
#: a third of their plateau, then bend.
FIT_BELOW_PLATEAU = 1.0 / 3.0

COLUMNS = (
    Column("triangles", "triangles", "Triangles of each sphere."),
    Column("gap", "", "Distance between the two surfaces (inner sphere radius 1)."),
    Column("kind", "", "Bounding-volume kind (core.bv.BV_KINDS key)."),
    Column("volume_tests", "tests", "Volume pairs the tandem traversal tested."),
    Column("leaf_pairs", "pairs", "Overlapping leaf pairs handed to the triangle test."),
    Column("contacts", "pairs", "Triangle pairs in contact (the spheres never touch: 0)."),
    Column("in_fit", "", "Whether the point is in the kind's slope fit (below a third of its "
                         "count at the smallest gap)."),
    Column("traverse_ms", "ms", "Time of the traversal, one run."),
)


def fit_range(tests) -> np.ndarray:
    """Which points of one kind's counts the slope is fitted on, ``(len(GAPS),) bool``.

    The points below :data:`FIT_BELOW_PLATEAU` of the count at the smallest gap; at least the
    two widest gaps (a slope needs two points; with fewer in the regime the fit is that of
    the two widest gaps, and the reading says the spheres are too coarse).
    """
    tests = np.asarray(tests, dtype=np.float64)
    keep = tests < FIT_BELOW_PLATEAU * tests[-1]
    keep[:2] = True
    # Only the run from the widest gap on: a count that dips below the threshold again after
    # the bend is noise, not the regime.
    return np.logical_and.accumulate(keep)


def _line_style(kind: str) -> dict:
    """Solid lines for the kinds the paper discusses, dashed for the rest."""
    if kind in ("aabb", "obb", "sphere"):
        return {"linewidth": 2.2, "linestyle": "-"}
    return {"linewidth": 1.2, "linestyle": "--"}


def run_pcp(options: ExperimentOptions, progress: Progress) -> ExperimentResult:
    """Run the parallel-close-proximity experiment (see the module docstring)."""
    asked = tuple(options.sizes) if options.sizes is not None else EXPERIMENT.default_sizes
    for size in asked:
        if size < 16:
            raise ValueError(f"pcp sizes are triangles per sphere, at least 16, got {size}")
    # Sizes that give the same sphere (1000 and 1010: the same rings) run once, smallest first.
    by_rings = {}
    for size in sorted(asked):
        by_rings.setdefault(sphere_rings(size), size)
    sizes = tuple(by_rings.values())
    kinds = list(BV_KINDS)
    total = len(sizes) * len(GAPS) * len(kinds)
    done = 0
    rows = []
    counts: dict[tuple[int, str], list[int]] = {}
    actual_sizes = []
    # One throwaway query per kind on tiny spheres: the first call of a kernel in a process
    # loads it from the cache (measured: about 100 ms), which the first row's time held.
    small_a, small_b = concentric_spheres(64, GAPS[0])
    small_trees = build_trees([small_a, small_b], SplitRule.MIDPOINT, 1)
    for kind in kinds:
        tree_query(CollisionRequest(bv=kind), small_a, small_trees[0], small_b, small_trees[1])
    for size in sizes:
        for gap in GAPS:
            progress.report(done, total, f"{size:,} triangles: building trees at gap "
                                         f"{gap_words(gap)}")  # fmt: skip
            inner, outer = concentric_spheres(size, gap)
            tree_a, tree_b = build_trees([inner, outer], SplitRule.MIDPOINT, 1)
            if gap == GAPS[0]:
                actual_sizes.append(inner.n_faces)
            for kind in kinds:
                progress.report(done, total, f"{kind} at gap {gap_words(gap)}, "
                                             f"{inner.n_faces:,} triangles")  # fmt: skip
                result = tree_query(CollisionRequest(bv=kind), inner, tree_a, outer, tree_b)
                c = result.counters
                rows.append([inner.n_faces, gap, kind, c.n_bv_tests, c.n_leaf_pairs,
                             c.n_contacts, False, 1e3 * result.timings["traverse"]])  # fmt: skip
                counts.setdefault((inner.n_faces, kind), []).append(c.n_bv_tests)
                done += 1
    progress.report(total, total, "fitting slopes")
    fitted = {key: fit_range(tests) for key, tests in counts.items()}
    for row in rows:
        row[6] = bool(fitted[(row[0], row[2])][GAPS.index(row[1])])
    rows = [tuple(row) for row in rows]
    slopes = {n: {kind: loglog_slope(np.array(GAPS)[fitted[(n, kind)]],
                                     np.array(counts[(n, kind)])[fitted[(n, kind)]])
                  for kind in kinds} for n in actual_sizes}  # fmt: skip
    n_contacts = sum(r[5] for r in rows)
    reading = _pcp_reading(actual_sizes, slopes, n_contacts, len(rows), counts, fitted)
    caption = (f"Volume tests of one query against the gap between two concentric spheres "
               f"(the outer one the inner one scaled so that each facet is parallel to its "
               f"twin and the surfaces are gap apart), log-log, least-squares slope per kind "
               f"in the legend, fitted on the filled points. The paper predicts about -2 for "
               f"AABBs and spheres and about -1 for OBBs. After {SOURCE}.")  # fmt: skip
    summary = {
        "slopes": dict(slopes[actual_sizes[-1]]),
        "slopes_by_size": {str(n): dict(s) for n, s in slopes.items()},
        "contacts": int(n_contacts),
        "gaps": list(GAPS),
        "triangles": list(actual_sizes),
    }

    def draw(fig) -> None:
        _draw_pcp(fig, actual_sizes, kinds, counts, fitted, slopes, caption)

    return ExperimentResult(name=EXPERIMENT.name, title=EXPERIMENT.title, columns=COLUMNS,
                            rows=rows, reading=reading, caption=caption, summary=summary,
                            draw=draw, seconds=0.0)  # fmt: skip


def _draw_pcp(fig, sizes, kinds, counts, fitted, slopes, caption) -> None:
    """One log-log panel per sphere size, one line per kind, its slope in the legend; filled
    markers are the points the slope is fitted on."""
    from matplotlib import colormaps

    fig.set_size_inches(FIGURE_WIDTH, 6.4)
    colours = colormaps["tab20"].colors
    axes = fig.subplots(1, len(sizes), squeeze=False, sharey=True)[0]
    gaps = np.array(GAPS)
    for ax, n in zip(axes, sizes):
        for i, kind in enumerate(kinds):
            colour = colours[(2 * i) % 20 if i < 10 else 2 * (i - 10) + 1]
            tests = np.array(counts[(n, kind)])
            label = f"{kind:<7} slope {slopes[n][kind]:+.2f}".replace("-", "\u2212")
            ax.loglog(gaps, tests, color=colour, label=label, **_line_style(kind))
            fit = fitted[(n, kind)]
            ax.plot(gaps[fit], tests[fit], "o", color=colour, markersize=4)
            ax.plot(gaps[~fit], tests[~fit], "o", markerfacecolor="white", color=colour,
                    markersize=4)  # fmt: skip
        ax.set_xlabel("gap between the spheres (inner radius 1)")
        ax.set_title(f"{n:,} triangles per sphere", fontsize=10)
        ax.invert_xaxis()  # the gap closes from left to right
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("volume tests per query (tests)")
    handles, labels = axes[-1].get_legend_handles_labels()
    title = "slope on filled points" if len(sizes) == 1 else \
        f"slope at {sizes[-1]:,} triangles,\non filled points"  # fmt: skip
    fig.legend(handles, labels, loc="center right", title=title, frameon=False,
               prop={"family": "monospace", "size": 8.5}, title_fontsize=8.5)  # fmt: skip
    fig.suptitle("Parallel close proximity: volume tests against the gap", fontsize=12)
    fig.subplots_adjust(left=0.08, right=0.76, top=0.9, wspace=0.08)
    put_caption(fig, caption, bottom=0.24)


def _pcp_reading(sizes, slopes, n_contacts, n_queries, counts, fitted) -> str:
    """The paragraph that reads this run's slopes against the paper's."""
    n = sizes[-1]
    s = slopes[n]
    steep = sorted(s, key=lambda k: s[k])
    words = ", ".join(f"{k} {s[k]:+.2f}" for k in steep)
    aabb, obb, sphere = s["aabb"], s["obb"], s["sphere"]
    if aabb < obb and sphere < obb:
        verdict = (
            f"As the paper argues, the axis-aligned boxes ({aabb:+.2f}) and the spheres "
            f"({sphere:+.2f}) grow steeper than the oriented boxes ({obb:+.2f}): a box or "
            "sphere around a curved patch of size s is about s thick along the normal, so "
            "the traversal descends until s is below the gap (about 1/gap^2 pairs), while a "
            "tight-fitting OBB is only about s^2 thick and separates the surfaces at "
            "s ~ sqrt(gap) (about 1/gap pairs)")
    else:
        verdict = (f"Unlike the paper, the oriented boxes ({obb:+.2f}) are not flatter than "
                   f"the axis-aligned boxes ({aabb:+.2f}) and spheres ({sphere:+.2f}) here")
    ratio = counts[(n, "aabb")][0] / max(1, counts[(n, "obb")][0])
    widest = (f"at the widest gap the AABBs needed {ratio:.0f} times the OBBs' tests")
    coarse = [k for k in s if int(np.count_nonzero(fitted[(n, k)])) <= 2
              and counts[(n, k)][1] >= FIT_BELOW_PLATEAU * counts[(n, k)][-1]]  # fmt: skip
    bend = (" Every kind's count bends to a plateau at small gaps, once a volume around one "
            "triangle is thicker than the gap; the slopes are fitted before the bend (filled "
            "points).")
    if coarse:
        bend += (f" For {', '.join(coarse)} the bend comes before the second gap: their "
                 "slopes are those of the two widest gaps, and finer spheres would show "
                 "more of the line.")
    same = _same_counts(counts, n)
    if same:
        bend += (" Kinds that tested exactly the same pairs draw one line: "
                 + "; ".join(", ".join(group) for group in same) + ".")
    touch = ("No query found a contact, as it must: the spheres do not touch." if n_contacts == 0
             else f"{n_contacts} contacts were reported although the spheres do not touch: "
                  "a bug in the triangle test or the sphere generator.")  # fmt: skip
    return (f"Slopes of volume tests against the gap on {n:,} triangles per sphere, steepest "
            f"first: {words} (paper: about -2 for AABBs and spheres, about -1 for OBBs). "
            f"{verdict}; {widest}.{bend} {touch} ({n_queries} queries.)")


def _same_counts(counts, n) -> list[list[str]]:
    """Groups of two or more kinds whose counts are equal at every gap (at size ``n``)."""
    groups: dict[tuple, list[str]] = {}
    for (size, kind), tests in counts.items():
        if size == n:
            groups.setdefault(tuple(tests), []).append(kind)
    return [group for group in groups.values() if len(group) > 1]


EXPERIMENT = Experiment(
    name="pcp",
    title="Parallel close proximity",
    source=SOURCE,
    sizes_meaning="triangles per sphere",
    default_sizes=(10000, 50000),
    quick_sizes=(20000,),
    run=run_pcp,
)

__all__ = ["EXPERIMENT", "GAPS", "fit_range", "run_pcp"]
