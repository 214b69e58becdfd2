"""Experiment ``partitions``: hierarchies against spatial partitions and the overlap-region
method of Yu, Lyu and Li (2018) as the triangle count grows.

The shape of the paper's table: one row per size, one group of columns per method, each
cell a query time with the candidate triangle pairs and the exact tests behind it. As in the
paper, a ~530-triangle teapot meets bodies of growing size, and every method starts from the
bare meshes (its tree, partition or grid is built inside the timed call). The runs are
:func:`core.partition.compare.time_methods`, which ``benchmarks.yu2018`` uses too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from core.experiments.base import (
    Column,
    Experiment,
    ExperimentOptions,
    ExperimentResult,
    ExperimentScene,
    Progress,
    scenes_result,
)
from core.experiments.common import FIGURE_WIDTH, loglog_slope, put_caption
from core.experiments.figure_room import caption_bottom, wrapped
from core.experiments.pairs import sentence_case, teapot_sphere_scene
from core.partition.compare import METHODS, pairs_disagreement, time_methods

Report = Callable[[int, int, str], None]

METHOD_NAMES = tuple(METHODS)
"""Every method, hierarchies first."""


def _method_columns(name: str) -> tuple[Column, ...]:
    label = METHODS[name].label
    cols = [Column(f"{name}_ms", "ms", f"{label}: one query from the bare meshes (building "
                                       f"included), median of the repeats."),
            Column(f"{name}_candidates", "pairs", f"{label}: triangle pairs left after "
                                                  f"culling."),
            Column(f"{name}_tests", "tests", f"{label}: exact triangle tests run.")]  # fmt: skip
    if METHODS[name].family == "hierarchy":
        cols.append(Column(f"{name}_volume_tests", "tests",
                           f"{label}: bounding-volume pairs tested."))  # fmt: skip
    return tuple(cols)


COLUMNS = (
    Column("triangles", "triangles", "Triangles of body A plus body B."),
    Column("triangles_a", "triangles", "Triangles of body A."),
    Column("triangles_b", "triangles", "Triangles of body B."),
    Column("contacts", "pairs", "Triangle pairs in contact (every method found the same "
                                "pairs)."),
) + tuple(c for name in METHOD_NAMES for c in _method_columns(name))
"""Every CSV column: one row per size, as in the paper's table; :func:`measure_partitions`'
rows are keyed by their names."""

SOURCE = (
    "Yu, Lyu & Li, \"A collision detection algorithm based on AABB and space division of the "
    "overlap region\", 2018"
)


def measure_partitions(
    scenes: Sequence[ExperimentScene],
    methods: Sequence[str] = METHOD_NAMES,
    repeats: int = 3,
    report: Report | None = None,
) -> list[dict]:
    """Every method on every pair.

    Parameters
    ----------
    scenes : sequence of ExperimentScene
        One per size, smallest first; the bodies are taken at rest (no deformer runs).
    methods : sequence of str
        Keys of :data:`core.partition.compare.METHODS`.
    repeats : int
    report : callable, optional
        ``report(done, total, what)`` before every run of every method.

    Returns
    -------
    list of dict
        One row per scene, keyed by the names of :data:`COLUMNS` (the columns of methods not
        run are absent).

    Raises
    ------
    RuntimeError
        The methods did not all find the same contact pairs (naming each one's count).
    """
    repeats = max(1, int(repeats))
    # one untimed round first (see time_methods' warm_up), then the timed ones
    total = len(methods) + len(scenes) * len(methods) * repeats
    done = 0
    rows = []
    for scene in scenes:
        mesh_a, mesh_b = scene.mesh_a, scene.mesh_b
        n = mesh_a.n_faces + mesh_b.n_faces

        def on_run(method, n=n):
            nonlocal done
            if report is not None:
                report(done, total, f"{n:,} triangles: {METHODS[method].label}")
            done += 1

        runs = time_methods(mesh_a, mesh_b, scene.pose_a, scene.pose_b, methods, repeats,
                            on_run, warm_up=scene is scenes[0])  # fmt: skip
        wrong = pairs_disagreement(runs)
        if wrong:
            raise RuntimeError(f"partitions: at {n:,} triangles {wrong}")
        row = {"triangles": n, "triangles_a": mesh_a.n_faces, "triangles_b": mesh_b.n_faces,
               "contacts": next(iter(runs.values())).n_contacts}  # fmt: skip
        for name, run in runs.items():
            row[f"{name}_ms"] = 1e3 * run.median_seconds
            row[f"{name}_candidates"] = run.n_candidates
            row[f"{name}_tests"] = run.n_tri_tests
            if METHODS[name].family == "hierarchy":
                row[f"{name}_volume_tests"] = run.n_volume_tests
        rows.append(row)
    return rows


def _methods_in(rows: list[dict]) -> list[str]:
    return [m for m in METHOD_NAMES if f"{m}_ms" in rows[0]]


MIN_FIT_SIZES = 3
"""Sizes a growth exponent is fitted on, at least: a line through two points always fits, so
two noisy times gave exponents like n^-0.55 (a Quick run, 500 and 2,000 triangles)."""

MIN_FIT_MS = 10.0
"""Times below this (ms) are left out of the fit: on a shared machine a query of a few
milliseconds moves by tens of percent from run to run, more than the growth it would show."""


def growth_slopes(rows: list[dict]) -> dict[str, float]:
    """Per method, the least-squares slope of log(time) against log(triangles): ``t ~ n^s``,
    on the sizes where that method took at least :data:`MIN_FIT_MS`; NaN with fewer than
    :data:`MIN_FIT_SIZES` of them (:func:`no_exponent_reason` says why)."""
    n = np.array([r["triangles"] for r in rows], dtype=np.float64)
    slopes = {}
    for m in _methods_in(rows):
        ms = np.array([r[f"{m}_ms"] for r in rows], dtype=np.float64)
        used = ms >= MIN_FIT_MS
        slopes[m] = (loglog_slope(n[used], ms[used]) if int(used.sum()) >= MIN_FIT_SIZES
                     else float("nan"))
    return slopes


def no_exponent_reason(rows: list[dict]) -> str:
    """Why some methods have no growth exponent ("" when every method has one): the sizes
    run and how many of them took :data:`MIN_FIT_MS` or more."""
    slopes = growth_slopes(rows)
    missing = [m for m, s in slopes.items() if not np.isfinite(s)]
    if not missing:
        return ""
    which = ("No method has" if len(missing) == len(slopes)
             else f"{len(missing)} of {len(slopes)} methods have")
    return (f"{which} a growth exponent: one is fitted only on {MIN_FIT_SIZES} or more sizes "
            f"with times of {MIN_FIT_MS:.0f} ms or more (this run: {len(rows)} "
            f"size{'' if len(rows) == 1 else 's'}, the slowest time "
            f"{max(r[f'{m}_ms'] for r in rows for m in missing):.2f} ms); a line through fewer "
            f"or shorter times shows timer noise, not growth.")


def plain_log_ticks(ax, values, min_ratio: float = 1.6) -> None:
    """Label the log x axis of ``ax`` at ``values`` only, as plain numbers ("8,530"), with
    no minor labels, dropping a value closer than ``min_ratio`` times to the last one kept:
    the default log labels put "3x10^3", "4x10^3", ... between the sizes and ran into each
    other."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

    kept = []
    for v in sorted(float(v) for v in values if v > 0):
        if not kept or v >= kept[-1] * min_ratio:
            kept.append(v)
    ax.xaxis.set_major_locator(FixedLocator(kept))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


_STYLE = {"hierarchy": "-", "partition": "--", "overlap region": "-."}


def draw_partitions(fig, rows: list[dict], scene_title: str, caption: str) -> None:
    """Query time and exact tests against the triangle count, log-log, one line per method
    (slope in the legend).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    rows : list of dict
        :func:`measure_partitions`' rows.
    scene_title : str
    caption : str
        Written under the panels.
    """
    fig.set_size_inches(FIGURE_WIDTH, 6.5)
    ax_time, ax_tests = fig.subplots(1, 2)
    n = [r["triangles"] for r in rows]
    slopes = growth_slopes(rows)
    for i, m in enumerate(_methods_in(rows)):
        method = METHODS[m]
        kw = {"color": f"C{i}", "linestyle": _STYLE[method.family], "marker": "o",
              "markersize": 4, "linewidth": 1.5}  # fmt: skip
        slope = f", time ~ n^{slopes[m]:.2f}" if np.isfinite(slopes[m]) else ""
        ax_time.plot(n, [r[f"{m}_ms"] for r in rows], label=f"{method.label}{slope}", **kw)
        ax_tests.plot(n, [max(r[f"{m}_tests"], 0.5) for r in rows], label=method.label, **kw)
    for ax in (ax_time, ax_tests):
        ax.set_xscale("log")
        ax.set_yscale("log")
        plain_log_ticks(ax, n)
        ax.set_xlabel("triangles of A + B", fontsize=9)
        ax.grid(alpha=0.3, which="both")
        ax.tick_params(labelsize=8)
    ax_time.set_ylabel("query time from the bare meshes (ms)", fontsize=9)
    ax_time.set_title("query time, median of the repeats", fontsize=10)
    ax_tests.set_ylabel("exact triangle tests", fontsize=9)
    ax_tests.set_title("exact triangle tests after culling", fontsize=10)
    ax_time.legend(fontsize=7, loc="upper left")
    title = wrapped(f"Hierarchies against spatial partitions: {scene_title}", fig, 12)
    fig.suptitle(title, fontsize=12)
    fig.subplots_adjust(left=0.08, right=0.98, top=0.88 - 0.035 * title.count("\n"),
                        wspace=0.25)  # fmt: skip
    put_caption(fig, caption, bottom=caption_bottom(fig, caption))


def partitions_reading(rows: list[dict]) -> str:
    """One paragraph on this run's numbers: who is fastest at the largest size and by how
    much, how each grows, and the contact check."""
    methods = _methods_in(rows)
    last = rows[-1]
    times = {m: last[f"{m}_ms"] for m in methods}
    fastest = min(times, key=times.get)
    slowest = max(times, key=times.get)
    label = {m: METHODS[m].label for m in methods}
    text = (
        f"At {last['triangles']:,} triangles ({last['triangles_a']:,} against "
        f"{last['triangles_b']:,}) the {label[fastest]} was fastest at {times[fastest]:.2f} ms "
        f"and the {label[slowest]} slowest at {times[slowest]:.2f} ms "
        f"({times[slowest] / max(times[fastest], 1e-9):.1f}x)."
    )
    if "aabb" in times and "overlap" in times:
        ratio = times["overlap"] / max(times["aabb"], 1e-9)
        faster = "faster" if ratio < 1.0 else "slower"
        text += (
            f" The overlap-region method took {ratio:.2f}x the AABB tree's time ({faster}), "
            f"running {last['overlap_tests']:,} exact tests after its pre-test dropped "
            f"{last['overlap_candidates'] - last['overlap_tests']:,} of "
            f"{last['overlap_candidates']:,} candidates; the AABB tree ran "
            f"{last['aabb_tests']:,}."
        )
    slopes = growth_slopes(rows)
    finite = {m: s for m, s in slopes.items() if np.isfinite(s)}
    if finite:
        lo = min(finite, key=finite.get)
        hi = max(finite, key=finite.get)
        text += (
            f" From {rows[0]['triangles']:,} to {last['triangles']:,} triangles the time grew "
            f"as n^{finite[lo]:.2f} for the {label[lo]} and as n^{finite[hi]:.2f} for the "
            f"{label[hi]}."
        )
    reason = no_exponent_reason(rows)
    if reason:
        text += " " + reason
    counts = ", ".join(f"{r['contacts']:,}" for r in rows)
    text += (f" All {len(methods)} methods found the same contact pairs at every size "
             f"({counts}).")  # fmt: skip
    return text


# -- the registry entry -------------------------------------------------------------------------

REPEATS = 3
"""Runs per method and size; the median is kept."""


def run_partitions(options: ExperimentOptions, progress: Progress) -> ExperimentResult:
    """Run the ``partitions`` experiment (see the module text)."""
    if options.scene is not None:
        scenes = [options.scene]
        title = options.scene.title
    else:
        sizes = options.sizes if options.sizes is not None else EXPERIMENT.default_sizes
        if min(sizes) < 16:
            raise ValueError(f"partitions sizes are triangles of the sphere, at least 16, got "
                             f"{min(sizes)}")  # fmt: skip
        scenes = [teapot_sphere_scene(n) for n in sorted(sizes)]
        title = f"a {scenes[0].mesh_a.n_faces}-triangle teapot against spheres"
    rows = measure_partitions(scenes, repeats=REPEATS, report=progress.report)
    reason = no_exponent_reason(rows)
    exponents = ("with each method's growth exponent in the legend" if not reason else
                 "with the growth exponent in the legend where one was fitted ("
                 f"{MIN_FIT_SIZES} or more sizes of {MIN_FIT_MS:.0f} ms or more)")
    caption = (f"{sentence_case(title)}: one query per method from the bare meshes (the "
               f"tree, partition or grid built inside the timed call, as the paper times them), "
               f"median of "
               f"{REPEATS} runs; log-log, {exponents}. "
               f"All methods found the same contact pairs. After {SOURCE}.")  # fmt: skip
    summary = {
        "triangles": [r["triangles"] for r in rows],
        "contacts": [r["contacts"] for r in rows],
        "ms": {m: [r[f"{m}_ms"] for r in rows] for m in _methods_in(rows)},
        "growth_exponents": growth_slopes(rows),
        "fastest": min(_methods_in(rows), key=lambda m: rows[-1][f"{m}_ms"]),
    }
    return scenes_result(EXPERIMENT, title, COLUMNS, rows, partitions_reading(rows), caption,
                         summary, draw_partitions)


EXPERIMENT = Experiment(
    name="partitions",
    title="Hierarchies against spatial partitions",
    source=SOURCE,
    sizes_meaning="triangles of the sphere the 530-triangle teapot meets",
    default_sizes=(2000, 8000, 32000, 128000),
    quick_sizes=(500, 2000),
    run=run_partitions,
    takes_scene=True,
)
