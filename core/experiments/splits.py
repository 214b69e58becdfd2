"""Experiment ``splits``: every split rule on one scene, side by side.

For each :class:`core.bvh.SplitRule` both bodies' AABB trees are built, measured
(:func:`core.bvh.metrics.tree_quality`: SAH cost, MacDonald and Booth 1990; EPO, Aila, Karras
and Laine 2013; leaf depth) and queried (the tandem traversal and the exact triangle tests,
trees built beforehand). Times are medians of a few repeats, and the queries take turns rule
after rule: two cores shared with other work make a single run noisy by tens of percent.

The scene is two overlapping Stanford bunnies (decimated to a smaller size; two spheres for a
size above the bunny's 69,451 triangles), or any two posed meshes given to the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from core.bvh import SplitRule, build_tree, tree_quality
from core.collide.query import collide
from core.experiments.base import (
    Column,
    Experiment,
    ExperimentOptions,
    ExperimentResult,
    ExperimentScene,
    Progress,
    scenes_result,
)
from core.experiments.common import FIGURE_WIDTH, put_caption
from core.experiments.figure_room import caption_bottom, wrapped
from core.experiments.pairs import (
    BUNNY_TRIANGLES,
    SIZED_SCENE_MEANING,
    scenes_title,
    size_labels,
    sized_scene,
)
from core.mesh import TriMesh

Report = Callable[[int, int, str], None]
"""``report(done, total, what)``: progress; raises to cancel."""

RULE_LABELS = {
    SplitRule.MIDPOINT: "midpoint",
    SplitRule.MEDIAN: "median",
    SplitRule.MEAN: "mean",
    SplitRule.SAH: "SAH",
    SplitRule.LBVH: "LBVH",
    SplitRule.OBB: "OBB",
}
"""Short label of each rule on the figure's axes."""

COLUMNS = (
    Column("scene", "", "The two bodies."),
    Column("triangles", "triangles", "Triangles of body A plus body B."),
    Column("rule", "", "Split rule, as --split takes it."),
    Column("build_ms", "ms", "Building both trees, median of the repeats."),
    Column("sah_a", "tests", "SAH cost of A's tree: expected volume + triangle tests of a query "
                             "reaching the root (C_t = C_i = 1)."),
    Column("sah_b", "tests", "SAH cost of B's tree."),
    Column("epo_a", "tests", "EPO of A's tree (Aila, Karras & Laine 2013), C_t = C_i = 1."),
    Column("epo_b", "tests", "EPO of B's tree."),
    Column("depth_a", "levels", "Deepest leaf of A's tree (root at depth 0)."),
    Column("depth_b", "levels", "Deepest leaf of B's tree."),
    Column("nodes_a", "nodes", "Nodes of A's tree."),
    Column("volume_tests", "tests", "Volume pairs the tandem traversal tested."),
    Column("tri_tests", "tests", "Exact triangle tests at the overlapping leaf pairs."),
    Column("contacts", "pairs", "Triangle pairs in contact (the same for every rule)."),
    Column("query_ms", "ms", "Traversal and triangle tests (trees already built), median of "
                             "the repeats."),
)
"""Every CSV column, in order; :func:`measure_splits`' rows are keyed by their names."""

SOURCE = (
    "van den Bergen 1997 (midpoint); Gottschalk, Lin & Manocha 1996 (mean, OBB); Wald 2007 "
    "(SAH); Karras 2012 (LBVH); MacDonald & Booth 1990 (SAH cost); Aila, Karras & Laine 2013 "
    "(EPO)"
)


@dataclass(frozen=True)
class _Quality:
    sah: float
    epo: float
    depth: int
    nodes: int


def _median_seconds(fn: Callable[[], object], repeats: int, tick: Callable[[], None]):
    """Run ``fn`` ``repeats`` times; ``(median seconds, last value)``."""
    seconds, value = [], None
    for _ in range(repeats):
        tick()
        t0 = time.perf_counter()
        value = fn()
        seconds.append(time.perf_counter() - t0)
    return float(np.median(seconds)), value


def measure_splits(
    scenes: Sequence[ExperimentScene],
    rules: Sequence[SplitRule] = tuple(SplitRule),
    repeats: int = 3,
    report: Report | None = None,
) -> list[dict]:
    """Build, measure and query both trees with every rule, for every pair of bodies.

    Parameters
    ----------
    scenes : sequence of ExperimentScene
        One per size; the deformers are not used (the bodies are measured at rest).
    rules : sequence of SplitRule
    repeats : int
        Builds and queries timed per rule; the median is kept.
    report : callable, optional
        ``report(done, total, what)``, called before every build, measure and query.

    Returns
    -------
    list of dict
        One row per (scene, rule), keyed by the names of :data:`COLUMNS`.

    Raises
    ------
    RuntimeError
        Two rules found a different number of contacts in one scene (each rule's traversal
        is exact, so this is a bug, not noise).
    """
    repeats = max(1, int(repeats))
    # per rule: builds, two quality passes (or one), queries
    total = len(scenes) * len(rules) * (2 * repeats + 2)
    done = 0

    def tick(what: str) -> Callable[[], None]:
        def step():
            nonlocal done
            if report is not None:
                report(done, total, what)
            done += 1
        return step

    rows = []
    for scene in scenes:
        n = scene.mesh_a.n_faces + scene.mesh_b.n_faces

        def words(rule, what, n=n):
            return f"{RULE_LABELS.get(rule, rule.name.lower())} split, {n:,} triangles: {what}"

        built = {rule: _build_and_measure(scene, rule, repeats,
                                          lambda what, rule=rule: tick(words(rule, what)))
                 for rule in rules}  # fmt: skip
        # The queries take turns, rule after rule, so a slow spell of a shared machine falls
        # on every rule rather than on one (queries of a few ms are what it disturbs most).
        seconds = {rule: [] for rule in rules}
        for _ in range(repeats):
            for rule in rules:
                tick(words(rule, "querying"))()
                _, tree_a, tree_b = built[rule]
                t0 = time.perf_counter()
                collide(scene.mesh_a, tree_a, scene.mesh_b, tree_b, scene.pose_a, scene.pose_b)
                seconds[rule].append(time.perf_counter() - t0)
        for rule in rules:
            built[rule][0]["query_ms"] = 1e3 * float(np.median(seconds[rule]))
        mine = [built[rule][0] for rule in rules]
        rows.extend(mine)
        contacts = {r["rule"]: r["contacts"] for r in mine}
        if len(set(contacts.values())) > 1:
            found = ", ".join(f"{rule} {c:,}" for rule, c in contacts.items())
            raise RuntimeError(f"splits: the split rules found different contacts ({found})")
    return rows


def _build_and_measure(scene: ExperimentScene, rule: SplitRule, repeats: int, tick):
    """Build both trees with ``rule`` (median time of ``repeats``), measure them and run one
    query for the counts: ``(row without query_ms, tree_a, tree_b)``."""
    mesh_a, pose_a, mesh_b, pose_b = scene.mesh_a, scene.pose_a, scene.mesh_b, scene.pose_b
    build_s, (tree_a, tree_b) = _median_seconds(
        lambda: (build_tree(mesh_a, rule), build_tree(mesh_b, rule)), repeats, tick("building"))
    tick("measuring the trees")()
    qa = _quality(mesh_a, tree_a)
    tick("measuring the trees")()
    # The same mesh gives the same tree (the builds are deterministic): measured once.
    qb = qa if mesh_b is mesh_a else _quality(mesh_b, tree_b)
    # Counts only; the timed queries follow, every rule in turn. This first call also loads
    # the traversal kernels from the cache, which is not a query cost.
    counters = collide(mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b).counters
    row = {
        "scene": scene.title, "triangles": mesh_a.n_faces + mesh_b.n_faces,
        "rule": rule.name.lower(),
        "build_ms": 1e3 * build_s, "sah_a": qa.sah, "sah_b": qb.sah, "epo_a": qa.epo,
        "epo_b": qb.epo, "depth_a": qa.depth, "depth_b": qb.depth, "nodes_a": qa.nodes,
        "volume_tests": counters.n_bv_tests, "tri_tests": counters.n_tri_tests,
        "contacts": counters.n_contacts,
    }  # fmt: skip
    return row, tree_a, tree_b


def _quality(mesh: TriMesh, tree) -> _Quality:
    q = tree_quality(mesh, tree)
    return _Quality(sah=q.sah, epo=q.epo, depth=q.depth_max, nodes=q.n_nodes)


PANELS = (
    ("build_ms", "build time, both trees (ms)"),
    ("sah_a", "SAH cost of tree A (expected tests)"),
    ("epo_a", "EPO of tree A (expected tests)"),
    ("depth_a", "depth of tree A (levels)"),
    ("volume_tests", "query: volume tests (box pairs)"),
    ("query_ms", "query time (ms)"),
)
"""``(column, panel title with unit)`` of the six panels."""


def draw_splits(fig, rows: list[dict], scene_title: str, caption: str) -> None:
    """One bar panel per measure, the rules along x, one bar colour per size.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    rows : list of dict
        :func:`measure_splits`' rows.
    scene_title : str
    caption : str
        Written under the panels.
    """
    fig.set_size_inches(FIGURE_WIDTH, 7.0)
    rules = list(dict.fromkeys(r["rule"] for r in rows))
    sizes = list(dict.fromkeys(r["triangles"] for r in rows))
    labels = size_labels(rows)
    width = 0.8 / len(sizes)
    axes = fig.subplots(2, 3)
    colours = [f"C{i}" for i in range(len(sizes))]
    x = np.arange(len(rules))
    for ax, (column, title) in zip(axes.flat, PANELS):
        for k, size in enumerate(sizes):
            by_rule = {r["rule"]: r[column] for r in rows if r["triangles"] == size}
            values = [by_rule.get(rule, np.nan) for rule in rules]
            # One size: a colour per rule, the same in every panel, and the values on the
            # bars (a slide is read from afar). Several sizes: a colour per size.
            colour = [f"C{i}" for i in range(len(rules))] if len(sizes) == 1 else colours[k]
            bars = ax.bar(x + (k - 0.5 * (len(sizes) - 1)) * width, values, width,
                          color=colour, label=labels[size])  # fmt: skip
            if len(sizes) == 1:
                ax.bar_label(bars, fmt=_value_format(values), fontsize=7, padding=1)
        ax.set_title(title, fontsize=10)
        ax.set_xticks(x, [RULE_LABELS[SplitRule[r.upper()]] for r in rules], fontsize=8,
                      rotation=25, ha="right")  # fmt: skip
        ax.margins(y=0.15)
        ax.tick_params(axis="y", labelsize=8)
        ax.grid(axis="y", alpha=0.3)
    title = wrapped(f"Split rules side by side: {scene_title}", fig, 12)
    fig.suptitle(title, fontsize=12)
    top = 0.9 - 0.035 * title.count("\n")
    if len(sizes) > 1:
        # Above the panels, not in one: a size's scene may be a long name.
        handles, names = axes.flat[0].get_legend_handles_labels()
        legend_rows = 1 if len(sizes) <= 2 else len(sizes)
        fig.legend(handles, names, loc="upper center", ncol=1 if len(sizes) > 2 else 2,
                   fontsize=8, bbox_to_anchor=(0.5, top + 0.01), frameon=False)  # fmt: skip
        top -= 0.03 * legend_rows + 0.04  # the legend, then the panels' titles
    fig.subplots_adjust(left=0.07, right=0.98, top=top, hspace=0.4, wspace=0.3)
    put_caption(fig, caption, bottom=caption_bottom(fig, caption))


def _value_format(values) -> str:
    """Bar labels: whole numbers for counts and large values, else two decimals."""
    finite = [v for v in values if np.isfinite(v)]
    is_large = bool(finite) and max(abs(v) for v in finite) >= 100
    if is_large or all(float(v).is_integer() for v in finite):
        return "{:,.0f}"
    return "{:.2f}"


def _best(rows: list[dict], column: str) -> dict:
    return min(rows, key=lambda r: r[column])


def _rule(row: dict) -> str:
    return RULE_LABELS[SplitRule[row["rule"].upper()]]


def splits_reading(rows: list[dict]) -> str:
    """One paragraph on this run's numbers: the best rule per measure and how far the others
    are, for the largest scene."""
    size = max(r["triangles"] for r in rows)
    at = [r for r in rows if r["triangles"] == size]
    by = {r["rule"]: r for r in at}
    cheap = _best(at, "sah_a")
    fewest = _best(at, "volume_tests")
    fast_q, slow_q = _best(at, "query_ms"), max(at, key=lambda r: r["query_ms"])
    fast_b, slow_b = _best(at, "build_ms"), max(at, key=lambda r: r["build_ms"])
    mid = by.get("midpoint", at[0])
    text = [f"On {size:,} triangles the {_rule(cheap)} rule gives the lowest SAH cost "
            f"({cheap['sah_a']:.1f} expected tests against {mid['sah_a']:.1f} for "
            f"{_rule(mid)})"]  # fmt: skip
    if fewest is cheap:
        text.append(f" and the fewest volume tests ({fewest['volume_tests']:,}; "
                    f"{_rule(mid)} {mid['volume_tests']:,}).")  # fmt: skip
    else:
        text.append(f", the {_rule(fewest)} rule the fewest volume tests "
                    f"({fewest['volume_tests']:,}; {_rule(mid)} {mid['volume_tests']:,}).")
    text.append(
        f" The fastest query was {_rule(fast_q)} at {fast_q['query_ms']:.2f} ms, the slowest "
        f"{_rule(slow_q)} at {slow_q['query_ms']:.2f} ms "
        f"({slow_q['query_ms'] / max(fast_q['query_ms'], 1e-12):.1f}x)"
    )
    if fast_q is not fewest:
        text.append(f"; the fewest volume tests ({_rule(fewest)}, "
                    f"{fewest['query_ms']:.2f} ms) did not make the fastest query here")
    text.append(
        f". Building is cheapest with {_rule(fast_b)} ({fast_b['build_ms']:.1f} ms for both "
        f"trees) and dearest with {_rule(slow_b)} ({slow_b['build_ms']:.1f} ms, "
        f"{slow_b['build_ms'] / max(fast_b['build_ms'], 1e-12):.1f}x)."
    )
    if cheap is not fewest:
        text.append(
            f" The SAH ranks {_rule(cheap)} first but {_rule(fewest)} needed the fewest "
            f"volume tests: the SAH models one query from outside, not two trees walked "
            f"together."
        )
    deep = max(at, key=lambda r: r["depth_a"])
    shallow = min(at, key=lambda r: r["depth_a"])
    text.append(f" Trees range from {shallow['depth_a']} levels ({_rule(shallow)}) to "
                f"{deep['depth_a']} ({_rule(deep)}).")  # fmt: skip
    epo_best = min((r for r in at if np.isfinite(r["epo_a"])), key=lambda r: r["epo_a"],
                   default=None)  # fmt: skip
    if epo_best is not None:
        text.append(f" EPO is lowest for {_rule(epo_best)} ({epo_best['epo_a']:.2f}).")
    text.append(f" Every rule found the same {at[0]['contacts']:,} contacts.")
    return "".join(text)


# -- the registry entry -------------------------------------------------------------------------

REPEATS = 5
"""Builds and queries timed per rule; the median is kept."""


def run_splits(options: ExperimentOptions, progress: Progress) -> ExperimentResult:
    """Run the ``splits`` experiment (see the module text)."""
    if options.scene is not None:
        scenes = [options.scene]
    else:
        sizes = options.sizes if options.sizes is not None else EXPERIMENT.default_sizes
        scenes = [sized_scene(n) for n in sizes]
    rows = measure_splits(scenes, repeats=REPEATS, report=progress.report)
    title = scenes_title(s.title for s in scenes)
    caption = (f"Every split rule on {title}: both AABB trees built (one triangle per leaf), "
               f"measured and queried; times are medians of {REPEATS} runs. After {SOURCE}.")
    largest = [r for r in rows if r["triangles"] == rows[-1]["triangles"]]
    summary = {
        "triangles": [r["triangles"] for r in rows[::len(largest)]],
        "sah": {r["rule"]: r["sah_a"] for r in largest},
        "volume_tests": {r["rule"]: r["volume_tests"] for r in largest},
        "query_ms": {r["rule"]: r["query_ms"] for r in largest},
        "lowest_sah": min(largest, key=lambda r: r["sah_a"])["rule"],
        "fewest_volume_tests": min(largest, key=lambda r: r["volume_tests"])["rule"],
        "contacts": largest[0]["contacts"],
    }
    return scenes_result(EXPERIMENT, title, COLUMNS, rows, splits_reading(rows), caption, summary,
                         draw_splits)


EXPERIMENT = Experiment(
    name="splits",
    title="Split rules side by side",
    source=SOURCE,
    sizes_meaning=SIZED_SCENE_MEANING,
    default_sizes=(BUNNY_TRIANGLES,),
    quick_sizes=(2000,),
    run=run_splits,
    takes_scene=True,
)
