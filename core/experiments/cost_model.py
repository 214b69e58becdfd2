"""``cost-model``: ``T = Nu Cu + Nbv Cbv + Np Cp`` with unit costs measured on this machine,
predicted against measured query time for every bounding-volume kind.

Gottschalk, Lin and Manocha (1996), section 4.3, write the cost of a query as the number of
volume updates, volume tests and primitive tests, each times its unit cost, and explain the
choice of a volume by the trade-off: tighter volumes (fewer tests, ``Nbv`` and ``Np`` small)
cost more per test and per update (``Cbv``, ``Cu`` large). Here the unit costs of each kind
are measured on small spheres (:func:`core.lab.costmodel.measure_unit_costs`), the counts come
from a query on the scene (two overlapping bunnies by default), and the prediction is set
beside the query's measured time: how far a model fitted on one scene carries to another.
"""

from __future__ import annotations

import time

import numpy as np

from core.bv import BV_KINDS, get_kind
from core.bvh import SplitRule, build_trees
from core.bvh.refit import leaf_nodes
from core.collide.dispatch import tree_query
from core.experiments.base import Column, Experiment, ExperimentOptions, ExperimentResult, Progress
from core.experiments.common import FIGURE_WIDTH, bunny_pair_scene, put_caption
from core.experiments.figure_room import caption_bottom
from core.lab.costmodel import TERM_NAMES, measure_unit_costs, predict, update_volumes
from core.request import CollisionRequest

SOURCE = ("S. Gottschalk, M. C. Lin, D. Manocha, \"OBBTree: a hierarchical structure for rapid "
          "interference detection\", SIGGRAPH 1996, section 4.3 (the cost function "
          "T = Nu Cu + Nbv Cbv + Np Cp)")

#: Timed repeats of each kind's query; the median is kept.
REPEATS = 5

#: Time of the deformed bodies' update (``deformer(t)``) in a scene with deformers.
DEFORM_T = 0.25

COLUMNS = (
    Column("kind", "", "Bounding-volume kind (core.bv.BV_KINDS key)."),
    Column("update_ns", "ns", "Cu: refitting one node's volume, measured on the calibration "
                              "spheres."),
    Column("volume_test_ns", "ns", "Cbv: one volume-pair test of the traversal."),
    Column("primitive_test_ns", "ns", "Cp: one exact triangle-pair test."),
    Column("nu", "updates", "Nu: volumes refitted for the query (0 for rigid bodies)."),
    Column("nbv", "tests", "Nbv: volume pairs the query tested."),
    Column("np", "tests", "Np: triangle pairs the query tested."),
    Column("predicted_ms", "ms", "Nu Cu + Nbv Cbv + Np Cp."),
    Column("measured_ms", "ms", "Update, traversal and triangle tests of the query, median of "
                                "5 runs."),
    Column("error_pct", "%", "(predicted - measured) / measured."),
)


def run_cost_model(options: ExperimentOptions, progress: Progress) -> ExperimentResult:
    """Run the cost-model experiment (see the module docstring)."""
    sizes = options.sizes or EXPERIMENT.default_sizes
    if len(sizes) != 1:
        raise ValueError(f"cost-model takes one size (triangles per calibration sphere), got "
                         f"{len(sizes)}")  # fmt: skip
    calibration = sizes[0]
    if calibration < 16:
        raise ValueError(f"cost-model size is triangles per calibration sphere, at least 16, "
                         f"got {calibration}")  # fmt: skip
    progress.report(0, 1, "loading the scene")
    scene = options.scene if options.scene is not None else bunny_pair_scene()
    kinds = list(BV_KINDS)
    total = 2 * len(kinds)
    deformed = [d is not None for d in (scene.deformer_a, scene.deformer_b)]
    rest = [scene.mesh_a, scene.mesh_b]
    meshes = [m if d is None else m.with_vertices(d(m.vertices, DEFORM_T))
              for m, d in zip(rest, (scene.deformer_a, scene.deformer_b))]  # fmt: skip
    progress.report(0, total, "building the scene's trees")
    # A deformed body's tree is built on its rest shape and refitted to the deformed one, as
    # a frame does; a rigid body's is built once and only moved.
    built = build_trees(rest, SplitRule.MIDPOINT, 1)
    leaves = [leaf_nodes(t) for t in built]
    trees = [update_volumes(t, m, get_kind("aabb"), lv) if d else t
             for t, m, lv, d in zip(built, meshes, leaves, deformed)]  # fmt: skip
    rows, predictions, measured, costs_by_kind = [], {}, {}, {}
    for i, kind in enumerate(kinds):
        progress.report(i, total, f"measuring unit costs of {kind}")
        costs = measure_unit_costs(kind, progress=None, n_triangles=calibration)
        costs_by_kind[kind] = costs
    for i, kind in enumerate(kinds):
        progress.report(len(kinds) + i, total, f"timing the {kind} query on {scene.title}")
        bv = get_kind(kind)
        request = CollisionRequest(bv=kind)
        times, result = [], None
        for _ in range(REPEATS):
            progress.check()
            t0 = time.perf_counter()
            for tree, mesh, lv, d in zip(built, meshes, leaves, deformed):
                if d:
                    update_volumes(tree, mesh, bv, lv)
            update = time.perf_counter() - t0
            result = tree_query(request, meshes[0], trees[0], meshes[1], trees[1],
                                scene.pose_a, scene.pose_b)  # fmt: skip
            times.append(update + result.timings["traverse"] + result.timings["tritri"])
        nu = sum(int(t.n_nodes) for t, d in zip(trees, deformed) if d)
        c = result.counters
        prediction = predict(nu, c.n_bv_tests, c.n_tri_tests, costs_by_kind[kind])
        ms = 1e3 * float(np.median(times))
        predictions[kind], measured[kind] = prediction, ms
        costs = costs_by_kind[kind]
        error = 100.0 * (prediction.total_ms - ms) / ms if ms > 0 else float("nan")
        rows.append((kind, costs.update_ns, costs.volume_test_ns, costs.primitive_test_ns, nu,
                     c.n_bv_tests, c.n_tri_tests, prediction.total_ms, ms, error))  # fmt: skip
    progress.report(total, total, "done")
    summary = {
        "unit_costs": {k: {"update_ns": c.update_ns, "volume_test_ns": c.volume_test_ns,
                           "primitive_test_ns": c.primitive_test_ns}
                       for k, c in costs_by_kind.items()},
        "predicted_ms": {k: p.total_ms for k, p in predictions.items()},
        "measured_ms": dict(measured),
        "error_pct": {r[0]: r[9] for r in rows},
        "scene": scene.title,
        "calibration_triangles": calibration,
    }
    reading = _cost_reading(summary, predictions, scene.title, any(deformed))
    caption = (f"Left: unit costs measured on two spheres of about {calibration:,} triangles "
               f"(median of 5 runs each). {kdop_cost_words(costs_by_kind)} Right: predicted "
               f"query time (stacked by term) beside "
               f"the measured one, on {scene.title}. After {SOURCE}.")

    def draw(fig) -> None:
        _draw_costs(fig, kinds, costs_by_kind, predictions, measured, caption)

    return ExperimentResult(name=EXPERIMENT.name, title=EXPERIMENT.title, columns=COLUMNS,
                            rows=rows, reading=reading, caption=caption, summary=summary,
                            draw=draw, seconds=0.0)  # fmt: skip


def kdop_cost_words(costs_by_kind: dict) -> str:
    """Why a k-DOP volume test costs more than an AABB test, with this run's ratios ("" when
    no k-DOP or no AABB was measured).

    The calibration's B is turned (as in most frames), and a k-DOP's slabs are fixed in its
    own body's frame: the test carries B's box into A's frame and projects it on A's k/2
    directions, then A's box on B's k/2 (:func:`core.bv.kdop.overlap_dirs`), where the AABB's
    SAT lite projects on 6 axes sharing one relative rotation."""
    aabb = costs_by_kind.get("aabb")
    # The k-DOPs are the kinds with fixed slab directions; k is their row width.
    kdops = sorted((get_kind(k) for k in costs_by_kind if "directions" in get_kind(k).parameters),
                   key=lambda kind: kind.width)  # fmt: skip
    if aabb is None or not kdops or not aabb.volume_test_ns > 0:
        return ""
    ratios = ", ".join(f"{kind.width}-DOP "
                       f"{costs_by_kind[kind.name].volume_test_ns / aabb.volume_test_ns:.1f}x"
                       for kind in kdops)  # fmt: skip
    return (f"A k-DOP volume test costs more than an AABB test ({ratios} here) because B is "
            f"turned: its slabs are not A's, so each box is carried into the other's frame "
            f"and projected on all k/2 of the other's directions (k/2 + k/2 interval tests, "
            f"3 + 3 for a 6-DOP, 13 + 13 for a 26-DOP), where the AABB test projects on 6 "
            f"axes through one relative rotation.")


def _cost_reading(s: dict, predictions: dict, title: str, is_deformed: bool) -> str:
    errors = s["error_pct"]
    measured, predicted = s["measured_ms"], s["predicted_ms"]
    abs_errors = {k: abs(e) for k, e in errors.items()}
    median = float(np.median(list(abs_errors.values())))
    worst = max(abs_errors, key=abs_errors.get)
    fastest = min(measured, key=measured.get)
    fastest_predicted = min(predicted, key=predicted.get)
    pick = ("the model picks the same kind" if fastest == fastest_predicted
            else f"the model would have picked {fastest_predicted} "
                 f"({measured[fastest_predicted]:.1f} ms measured)")  # fmt: skip
    dominant = {}
    for kind, p in predictions.items():
        top = max(p.terms, key=lambda t: t.share)
        dominant.setdefault(top.name, []).append(kind)
    terms = "; ".join(f"{name} dominate for {', '.join(kinds)}"
                      for name, kinds in dominant.items())  # fmt: skip
    costs = s["unit_costs"]
    cheap = min(costs, key=lambda k: costs[k]["volume_test_ns"])
    dear = max(costs, key=lambda k: costs[k]["volume_test_ns"])
    tests = {kind: p.terms[1].count for kind, p in predictions.items()}
    trade = (f"{costs[cheap]['volume_test_ns']:.0f} ns ({cheap}, {tests[cheap]:,} tests) to "
             f"{costs[dear]['volume_test_ns']:.0f} ns ({dear}, {tests[dear]:,} tests)")
    if tests[dear] < tests[cheap]:
        trade += ": the paper's trade-off, a dearer test buying fewer tests"
    else:
        trade += ": here the dearest test did not even buy fewer tests"
    update = ("" if not is_deformed else
              " The deformed bodies' refit is the Nu term, measured with the query.")
    return (
        f"On {title}, the predictions from unit costs measured on small spheres missed the "
        f"measured query time by {median:.0f} % (median over the {len(errors)} kinds); the "
        f"largest miss "
        f"was {worst} ({errors[worst]:+.0f} %: {predicted[worst]:.1f} ms predicted, "
        f"{measured[worst]:.1f} ms measured). A volume test cost from {trade}. By the "
        f"prediction, "
        f"{terms}. The fastest query was {fastest} ({measured[fastest]:.1f} ms), and {pick}."
        f"{update} Misses come from what the model leaves out: memory traffic that grows "
        f"with the scene (the spheres fit in cache, the bunnies' trees do not), the "
        f"traversal's two threads, and timer noise on a shared machine.")


def _draw_costs(fig, kinds, costs, predictions, measured, caption) -> None:
    fig.set_size_inches(FIGURE_WIDTH, 6.6)
    left, right = fig.subplots(1, 2)
    x = np.arange(len(kinds))
    colours = ("#9467bd", "#1f77b4", "#ff7f0e")
    width = 0.27
    for k, (attr, name) in enumerate(zip(("update_ns", "volume_test_ns", "primitive_test_ns"),
                                         ("Cu, one update", "Cbv, one volume test",
                                          "Cp, one triangle test"))):  # fmt: skip
        values = [getattr(costs[kind], attr) for kind in kinds]
        left.bar(x + (k - 1) * width, values, width=width, color=colours[k], label=name)
    left.set_yscale("log")
    left.set_xticks(x, kinds, rotation=60, fontsize=8.5)
    left.set_ylabel("unit cost (ns, log scale)")
    left.set_title("Unit costs measured on this machine", fontsize=10)
    left.legend(fontsize=8, frameon=False, loc="upper left")
    left.set_ylim(top=left.get_ylim()[1] * 6)  # room for the legend above the bars
    bottom = np.zeros(len(kinds))
    for k, name in enumerate(TERM_NAMES):
        values = np.array([predictions[kind].terms[k].ms for kind in kinds])
        right.bar(x - 0.2, values, width=0.4, bottom=bottom, color=colours[k],
                  label=f"predicted: {name}")  # fmt: skip
        bottom += values
    right.bar(x + 0.2, [measured[kind] for kind in kinds], width=0.4, color="#555555",
              label="measured")  # fmt: skip
    right.set_xticks(x, kinds, rotation=60, fontsize=8.5)
    right.set_ylabel("query time (ms)")
    right.set_title("Predicted (left bar) and measured (right bar)", fontsize=10)
    right.legend(fontsize=8, frameon=False, loc="upper left")
    top = max(max(bottom), max(measured.values()))
    right.set_ylim(0, top * 1.45)
    fig.suptitle("Cost model T = Nu·Cu + Nbv·Cbv + Np·Cp", fontsize=12)
    fig.subplots_adjust(left=0.07, right=0.98, top=0.9, wspace=0.25)
    # The kinds' names stand at 60 degrees under the bars: about half an inch more than the
    # flat labels caption_bottom leaves room for.
    put_caption(fig, caption, bottom=min(0.5, max(0.26, caption_bottom(fig, caption)
                                                   + 0.5 / fig.get_figheight())))


EXPERIMENT = Experiment(
    name="cost-model",
    title="Cost model: predicted against measured",
    source=SOURCE,
    sizes_meaning="triangles per calibration sphere (one size)",
    default_sizes=(3000,),
    quick_sizes=(1000,),
    run=run_cost_model,
    takes_scene=True,
)
