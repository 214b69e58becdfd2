"""``sat-axes``: which of the 15 separating axes ends each box test, and what SAT lite costs.

van den Bergen (1998), "Efficient collision detection of complex deformable models using AABB
trees", section 3: two boxes are disjoint iff one of 15 axes separates them (Gottschalk et
al. 1996): the 3 face normals of A, the 3 of B, and the 9 cross products of an edge of A with
an edge of B, tested in that order. "SAT lite" tests only the 6 face axes: every test is
cheaper, but a pair only a cross axis separates is not culled, and its children are tested
further down.

Over a set of frames (two ellipsoids, B turning; or a given scene) this experiment takes every
box pair the traversal tested, finds for each culled pair the first of the 15 axes that
separates it (:func:`first_separating_axis`, checked against the traversal's own record), and
runs the AABB tree's traversal with the 15-axis test and with SAT lite to count the extra box
tests lite costs and the arithmetic it saves (:data:`SETUP_OPS` ... :data:`CROSS_OPS`).
"""

from __future__ import annotations

import math

import numpy as np

from core.bv import fit_volumes, get_kind
from core.bv._geom import ROUND
from core.bv.shapes import OrientedBoxes
from core.bvh import SplitRule, build_trees
from core.collide.bvquery import collide_bv
from core.collide.query import box_margin, relative_pose, rigid_body
from core.experiments.base import Column, Experiment, ExperimentOptions, ExperimentResult, Progress
from core.experiments.common import FIGURE_WIDTH, put_caption, sphere_mesh
from core.pose import Pose
from core.settings import DEFAULT_TOLERANCES

SOURCE = ("G. van den Bergen, \"Efficient collision detection of complex deformable models "
          "using AABB trees\", Journal of Graphics Tools 2(4), 1998, section 3 (the separating "
          "axis test and SAT lite); the 15 axes after Gottschalk, Lin, Manocha, SIGGRAPH 1996")

#: Axis names in the order of the test (``core.bv.obb.sat15`` ids 0-14).
AXIS_NAMES = ("A·x", "A·y", "A·z", "B·x", "B·y", "B·z") + tuple(
    f"A{i}×B{j}" for i in "xyz" for j in "xyz")

# Arithmetic of one box test, counted operation by operation (a multiply, an add or subtract,
# an abs and a compare count one each) from the code that runs it:
#: B's box in A's frame for an AABB pair (core/bv/aabb.py ``_relative_frame``: B's centre 6,
#: T 27), the six half-lengths with A's margin (15) and |R| + ROUND (18).
SETUP_OPS = 66
#: One face axis of A (core/bv/obb.py ``sat6``: ``|t0| > a0 + b0 q00 + b1 q01 + b2 q02``).
FACE_A_OPS = 8
#: One face axis of B (``|t . r_j| > sum_i a_i q_ij + b_j``: 3 mul, 2 add, abs, 3 mul,
#: 3 add, compare).
FACE_B_OPS = 13
#: One cross axis (``sat15``: ``|t2 r10 - t1 r20| > a1 q20 + a2 q10 + b1 q02 + b2 q01``).
CROSS_OPS = 12

#: Default frames: B makes one full turn.
DEFAULT_FRAMES = 24

#: A time difference below this (percent) is reported as none: repeated runs of the same
#: traversal on this shared two-core machine differ by a few percent.
NOISE_PCT = 5.0

#: Repeats of each timed traversal (the median is kept).
TIMING_REPEATS = 3

COLUMNS = (
    Column("frame", "", "Frame number (B turned by 360 degrees * frame / frames)."),
    Column("traversal", "", "obb: oriented boxes, 15 axes; aabb15: the AABB tree, 15 axes; "
                            "aabb_lite: the AABB tree, SAT lite (6 face axes)."),
    Column("volume_tests", "tests", "Box pairs tested."),
    Column("culled", "tests", "Box pairs an axis separated."),
    Column("ops", "operations", "Arithmetic of all its box tests (operation counts in the "
                                "module docstring of core.experiments.sat_axes)."),
    Column("traverse_ms", "ms", "Traversal time without recording, median of 3."),
) + tuple(Column(f"sep_{name.replace('·', '_').replace('×', '_x_').lower()}", "pairs",
                 f"Culled pairs that axis {name} separated first.") for name in AXIS_NAMES)


def ops_per_test(sep: np.ndarray, full: bool) -> np.ndarray:
    """Arithmetic operations of each box test from the axis that ended it.

    Parameters
    ----------
    sep : (n,) int
        -1 (overlapping: every axis evaluated) or the separating axis id (0-14).
    full : bool
        The 15-axis test (else SAT lite, 6 axes).

    Returns
    -------
    (n,) int64
    """
    sep = np.asarray(sep, dtype=np.int64)
    last = np.where(sep < 0, 14 if full else 5, sep)  # the last axis evaluated
    n_a = np.minimum(last, 2) + 1
    n_b = np.clip(last - 2, 0, 3)
    n_cross = np.clip(last - 5, 0, 9)
    return SETUP_OPS + FACE_A_OPS * n_a + FACE_B_OPS * n_b + CROSS_OPS * n_cross


def boxes_from_rows(rows: np.ndarray, kind: str):
    """``(centre (n, 3), axes (n, 3, 3), half (n, 3))`` of AABB rows ``(n, 6)`` (bmin,
    bmax) or OBB rows ``(n, 15)``; ``axes[:, :, i]`` is the box's i-th axis."""
    shape = get_kind(kind).shape(rows)
    if isinstance(shape, OrientedBoxes):
        return shape.centre, shape.axes, shape.half
    centre = 0.5 * (shape.bmin + shape.bmax)
    axes = np.broadcast_to(np.eye(3), (centre.shape[0], 3, 3))
    return centre, axes, 0.5 * (shape.bmax - shape.bmin)


def first_separating_axis(centre_a, axes_a, half_a, centre_b, axes_b, half_b, rot, trans,
                          margin: float = 0.0) -> np.ndarray:
    """The first of the 15 axes that separates each pair of boxes, as the traversal orders
    them (A's 3 face axes, B's 3, then ``a_i x b_j`` as ``6 + 3 i + j``).

    The same inequalities as :func:`core.bv.obb.sat15` (Ericson 2005, 4.4.1), with its
    ``|R| + ROUND`` guard, vectorised over pairs.

    Parameters
    ----------
    centre_a : (n, 3) float64
    axes_a : (n, 3, 3) float64
        ``axes_a[k, :, i]`` is the i-th unit axis of A's box k (A's frame).
    half_a : (n, 3) float64
    centre_b, axes_b, half_b
        B's boxes in B's frame.
    rot : (3, 3) float64
    trans : (3,) float64
        ``x_A = rot x_B + trans``.
    margin : float
        Added to A's half-lengths (the traversal's round-off pad).

    Returns
    -------
    (n,) int8
        -1 where no axis separates.
    """
    rot = np.asarray(rot, dtype=np.float64)
    rb = np.einsum("ij,njk->nik", rot, axes_b)  # B's axes in A's frame, as columns
    r = np.einsum("nji,njk->nik", axes_a, rb)  # R[i, j] = a_i . b_j
    d = centre_b @ rot.T + trans - centre_a
    t = np.einsum("nji,nj->ni", axes_a, d)  # T in A's box frame
    q = np.abs(r) + ROUND
    a = half_a + margin
    b = half_b
    tests = np.empty((r.shape[0], 15), dtype=bool)
    for i in range(3):
        tests[:, i] = np.abs(t[:, i]) > a[:, i] + np.einsum("nj,nj->n", b, q[:, i, :])
    for j in range(3):
        proj = np.einsum("ni,ni->n", t, r[:, :, j])
        tests[:, 3 + j] = np.abs(proj) > np.einsum("ni,ni->n", a, q[:, :, j]) + b[:, j]
    for i in range(3):
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        for j in range(3):
            j1, j2 = (j + 1) % 3, (j + 2) % 3
            lhs = np.abs(t[:, i2] * r[:, i1, j] - t[:, i1] * r[:, i2, j])
            rhs = (a[:, i1] * q[:, i2, j] + a[:, i2] * q[:, i1, j]
                   + b[:, j1] * q[:, i, j2] + b[:, j2] * q[:, i, j1])
            tests[:, 6 + 3 * i + j] = lhs > rhs
    first = np.argmax(tests, axis=1).astype(np.int8)
    first[~tests.any(axis=1)] = -1
    return first


def _scene(options: ExperimentOptions, size: int):
    """``(mesh_a, pose_a, mesh_b, pose_b, deformer_a, deformer_b, words)`` of the run."""
    if options.scene is not None:
        s = options.scene
        return (s.mesh_a, s.pose_a, s.mesh_b, s.pose_b, s.deformer_a, s.deformer_b,
                s.title)  # fmt: skip
    sphere = sphere_mesh(size, name="ellipsoid")
    # Unequal half-axes: a turning ellipsoid changes its boxes (a sphere's would not).
    ellipsoid = sphere.with_vertices(sphere.vertices * np.array([1.5, 1.0, 0.7]))
    pose_b = Pose(translation=np.array([1.7, 0.35, 0.1]))
    words = f"two ellipsoids of {ellipsoid.n_faces:,} triangles, B turning"
    return ellipsoid, Pose(), ellipsoid, pose_b, None, None, words


def _turned(pose: Pose, angle: float) -> Pose:
    """``pose`` with a turn by ``angle`` about a tilted axis through its origin first."""
    return pose.compose(Pose.from_axis_angle((0.3, 1.0, 0.2), angle))


def run_sat_axes(options: ExperimentOptions, progress: Progress) -> ExperimentResult:
    """Run the separating-axis experiment (see the module docstring)."""
    sizes = options.sizes or EXPERIMENT.default_sizes
    if len(sizes) != 1:
        raise ValueError(f"sat-axes takes one size (triangles per ellipsoid), got {len(sizes)}")
    size = sizes[0]
    if size < 16:
        raise ValueError(f"sat-axes size is triangles per ellipsoid, at least 16, got {size}")
    frames = DEFAULT_FRAMES if options.frames is None else int(options.frames)
    if frames < 1:
        raise ValueError(f"frames must be at least 1, got {frames}")
    mesh_a, pose_a, mesh_b, pose_b, deform_a, deform_b, words = _scene(options, size)
    progress.report(0, frames, "building the trees")
    trees = None
    rows = []
    hist = {kind: np.zeros(15, dtype=np.int64) for kind in ("obb", "aabb15")}
    totals = {mode: np.zeros(4) for mode in ("obb", "aabb15", "aabb_lite")}
    checked = mismatched = 0
    for f in range(frames):
        progress.report(f, frames, f"frame {f + 1} of {frames}: box tests")
        t = f / 24.0
        ma = mesh_a if deform_a is None else mesh_a.with_vertices(deform_a(mesh_a.vertices, t))
        mb = mesh_b if deform_b is None else mesh_b.with_vertices(deform_b(mesh_b.vertices, t))
        if trees is None or deform_a is not None or deform_b is not None:
            trees = build_trees([ma, mb], SplitRule.MIDPOINT, 1)
        # A scaled pose's scale goes into the mesh once here, as the query would do on every
        # call: the volumes checked below are then the very ones the traversal tested.
        ma, tree_a, pa = rigid_body(ma, trees[0], pose_a)
        mb, tree_b, pb = rigid_body(mb, trees[1], _turned(pose_b, 2.0 * math.pi * f / frames))
        rel = relative_pose(pa, pb)
        pad = box_margin(tree_a, tree_b, DEFAULT_TOLERANCES)
        for mode, bv in (("obb", "obb"), ("aabb15", "aabb15"), ("aabb_lite", "aabb")):
            progress.check()
            # The row traversal for all three (collide_bv), so lite and full differ only in
            # the box test: "aabb" through a request would take the tree's own box kernel.
            result = collide_bv(ma, tree_a, mb, tree_b, pa, pb, bv=bv, trace=True)
            sep = result.trace.sep_axis
            culled = sep >= 0
            times = []
            for _ in range(TIMING_REPEATS):
                timed = collide_bv(ma, tree_a, mb, tree_b, pa, pb, bv=bv)
                times.append(timed.timings["traverse"])
            ms = 1e3 * float(np.median(times))
            ops = int(ops_per_test(sep, full=mode != "aabb_lite").sum())
            counts = np.bincount(sep[culled].astype(np.int64), minlength=15)
            if mode in hist:
                hist[mode] += counts
                # The traversal's record against the first axis found independently here.
                kind = "obb" if mode == "obb" else "aabb"
                na = result.trace.node_a[culled]
                nb = result.trace.node_b[culled]
                rows_a = fit_volumes(tree_a, ma, bv)[na]
                rows_b = fit_volumes(tree_b, mb, bv)[nb]
                found = first_separating_axis(*boxes_from_rows(rows_a, kind),
                                              *boxes_from_rows(rows_b, kind),
                                              rel.rotation, rel.translation, pad)  # fmt: skip
                checked += int(found.shape[0])
                mismatched += int(np.count_nonzero(found != sep[culled]))
            totals[mode] += (result.counters.n_bv_tests, int(culled.sum()), ops, ms)
            rows.append((f, mode, result.counters.n_bv_tests, int(culled.sum()), ops, ms,
                         *(int(c) for c in counts)))  # fmt: skip
    progress.report(frames, frames, "done")
    summary = _sat_axes_summary(hist, totals, checked, mismatched, frames, words)
    reading = _sat_axes_reading(summary)
    caption = (f"Left: the first of the 15 separating axes that culled each box pair, "
               f"{frames} frames of {words}. Right: SAT lite (6 face axes) against the full "
               f"15-axis test on the AABB tree: box tests, arithmetic (operations counted from "
               f"the test's code) and measured traversal time. After {SOURCE}.")

    def draw(fig) -> None:
        _draw_sat_axes(fig, hist, totals, caption)

    return ExperimentResult(name=EXPERIMENT.name, title=EXPERIMENT.title, columns=COLUMNS,
                            rows=rows, reading=reading, caption=caption, summary=summary,
                            draw=draw, seconds=0.0)  # fmt: skip


def _sat_axes_summary(hist, totals, checked, mismatched, frames, words) -> dict:
    lite, full = totals["aabb_lite"], totals["aabb15"]
    cross = {k: int(h[6:].sum()) for k, h in hist.items()}
    culled = {k: int(h.sum()) for k, h in hist.items()}
    return {
        "frames": frames,
        "scene": words,
        "histogram": {k: h.tolist() for k, h in hist.items()},
        "cross_share": {k: cross[k] / culled[k] if culled[k] else 0.0 for k in hist},
        "tests": {m: int(v[0]) for m, v in totals.items()},
        "ops": {m: int(v[2]) for m, v in totals.items()},
        "ms": {m: float(v[3]) for m, v in totals.items()},
        "extra_tests": int(lite[0] - full[0]),
        "ops_saved": int(full[2] - lite[2]),
        "lite_pays_off_ms": bool(lite[3] < full[3]),
        "checked_pairs": int(checked),
        "mismatched_pairs": int(mismatched),
    }


def _sat_axes_reading(s: dict) -> str:
    tests, ops, ms = s["tests"], s["ops"], s["ms"]
    share = s["cross_share"]
    hist = s["histogram"]
    top = {k: AXIS_NAMES[int(np.argmax(h))] for k, h in hist.items()}
    extra = s["extra_tests"]
    extra_pct = 100.0 * extra / max(1, tests["aabb15"])
    ops_pct = 100.0 * (ops["aabb_lite"] - ops["aabb15"]) / max(1, ops["aabb15"])
    time_pct = 100.0 * (ms["aabb_lite"] - ms["aabb15"]) / max(1e-9, ms["aabb15"])
    if abs(time_pct) < NOISE_PCT:
        verdict = (f"made no difference beyond the {NOISE_PCT:.0f} % timings wander on a "
                   "shared machine: the extra tests ate what the skipped axes saved")
    else:
        verdict = "paid off" if ms["aabb_lite"] < ms["aabb15"] else "did not pay off"
    check = (f"The first axis computed here agreed with the traversal's own record on all "
             f"{s['checked_pairs']:,} culled pairs." if s["mismatched_pairs"] == 0 else
             f"The first axis computed here disagreed with the traversal's record on "
             f"{s['mismatched_pairs']:,} of {s['checked_pairs']:,} culled pairs (round-off "
             f"at a tie).")  # fmt: skip
    return (
        f"Over {s['frames']} frames of {s['scene']}, a cross axis was the first to separate "
        f"{100 * share['obb']:.1f} % of the culled OBB pairs and {100 * share['aabb15']:.1f} % "
        f"of the culled AABB pairs; the most frequent first axis was {top['obb']} for OBBs and "
        f"{top['aabb15']} for AABBs: the six face axes do most of the culling, which is what "
        f"lets SAT lite skip the other nine. On the AABB tree SAT lite tested {extra:+,} box "
        f"pairs ({extra_pct:+.1f} %) "
        f"against the 15-axis test, the pairs only a cross axis separates and their children, "
        f"while skipping the cross axes changed the arithmetic by {ops_pct:+.1f} % "
        f"({ops['aabb_lite']:,} against {ops['aabb15']:,} operations, counting {SETUP_OPS} to "
        f"set a test up, {FACE_A_OPS} per face axis of A, {FACE_B_OPS} of B, {CROSS_OPS} per "
        f"cross axis). Measured, the traversal took {ms['aabb_lite']:.1f} ms with lite and "
        f"{ms['aabb15']:.1f} ms with 15 axes ({time_pct:+.1f} %): here SAT lite {verdict}. "
        f"{check}")


def _draw_sat_axes(fig, hist, totals, caption) -> None:
    fig.set_size_inches(FIGURE_WIDTH, 6.4)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [2.3, 1]})
    x = np.arange(15)
    for offset, (kind, label, colour) in zip((-0.2, 0.2), (
            ("obb", "oriented boxes (OBB)", "#2ca02c"),
            ("aabb15", "AABB tree, B turned", "#1f77b4"))):  # fmt: skip
        h = hist[kind]
        share = 100.0 * h / max(1, h.sum())
        left.bar(x + offset, share, width=0.4, color=colour, label=label)
    left.axvspan(5.5, 14.5, color="#eeeeee", zorder=0)
    left.text(10.0, left.get_ylim()[1] * 0.92, "cross axes: SAT lite skips these",
              ha="center", fontsize=9, color="#555555")  # fmt: skip
    left.set_xticks(x, AXIS_NAMES, rotation=60, fontsize=8.5)
    left.set_xlim(-0.6, 14.6)
    left.set_xlabel("first separating axis, in the order tested")
    left.set_ylabel("culled box pairs (%)")
    left.legend(fontsize=8.5, loc="upper right", bbox_to_anchor=(1.0, 0.88), frameon=False)
    left.set_title("Which axis ends the test", fontsize=10)
    full, lite = totals["aabb15"], totals["aabb_lite"]
    groups = ("box tests", "arithmetic", "time")
    values = [100.0 * lite[i] / max(1e-12, full[i]) for i in (0, 2, 3)]
    bars = right.bar(np.arange(3), values, color=["#1f77b4", "#ff7f0e", "#9467bd"], width=0.6)
    right.axhline(100.0, color="black", linewidth=1.0, linestyle="--")
    for bar, value in zip(bars, values):
        right.text(bar.get_x() + bar.get_width() / 2, value + 1.5, f"{value:.0f} %",
                   ha="center", fontsize=9)  # fmt: skip
    right.set_xticks(np.arange(3), groups)
    right.set_ylabel("SAT lite, % of the 15-axis test's")
    right.set_ylim(0, max(values + [100.0]) * 1.18)
    right.set_title("SAT lite against 15 axes (AABB tree)", fontsize=10)
    fig.subplots_adjust(left=0.07, right=0.98, top=0.9, wspace=0.3)
    fig.suptitle("Separating axes of the box test", fontsize=12)
    put_caption(fig, caption, bottom=0.31)


EXPERIMENT = Experiment(
    name="sat-axes",
    title="Which separating axis ends the box test",
    source=SOURCE,
    sizes_meaning="triangles per ellipsoid (one size)",
    default_sizes=(20000,),
    quick_sizes=(2000,),
    run=run_sat_axes,
    takes_scene=True,
)

