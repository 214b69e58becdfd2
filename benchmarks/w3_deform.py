"""W3, deformable: A ripples, ``r = 1 + 0.05 sin(4 pi z - 2 pi f / 50)``, B as in W1.

Per frame ``f`` the new vertices of A come from ``core.deform.DEFORMERS["radial_wave"]``
at ``t = f / 50`` (untimed, the same arrays for everyone). A frame is timed from those
vertices to the contact pairs:

* ours, refit:   ``TriMesh.with_vertices`` + ``refit_tree`` + ``collide``
* ours, rebuild: ``TriMesh.with_vertices`` + ``build_tree`` (``ours.build_one``) + ``collide``
* a peer, rebuild: build A's model + query (B's model is kept: B only moves rigidly)
* coal, refit: marshal the vertices + replace-model refit + query
* ours, pipeline: ``FramePipeline.step`` (update REFIT, trace off and on), the path the
  viewer takes; its ``total - deform`` time (it also refits B's tree every frame).

The refit alone is recorded as the ``refit`` phase (for coal without the marshalling).
A peer that spends more than ``history.frames_budget_s`` on the frames of one size (warm-up
frame included) is stopped and the table says after how many frames.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from benchmarks import ours
from benchmarks.compare import PairCheck, compare_pairs, merge_checks, require_agreement
from benchmarks.peers import PeerAdapter
from benchmarks.scenes import W3_N_FRAMES, SphereCase, w1_pose
from benchmarks.timing import PeerHistory, Samples, numba_threads
from benchmarks.w1_rigid import THREAD_COUNTS, _ms, ours_column
from core.deform import DEFORMERS
from core.pipeline import BodyInput, FramePipeline, PipelineSettings, UpdateMode
from core.pose import Pose
from core.request import CollisionRequest

FRAME_RATE = 50.0


@dataclass
class W3Result:
    """Per-frame timings of W3 at one size.

    Attributes
    ----------
    timings : dict of phase -> column -> Samples
        Phases ``"refit"``, ``"w3_refit_frame"``, ``"w3_rebuild_frame"``,
        ``"w3_marshal"`` (coal's numpy -> StdVec_Vec3s conversion per frame).
    checks : dict of peer name/mode -> PairCheck
        Summed over the frames.
    frames : list of int
    n_contacts : list of int
        Our contact count per frame.
    """

    timings: dict[str, dict[str, Samples]] = field(default_factory=dict)
    checks: dict[str, PairCheck] = field(default_factory=dict)
    frames: list[int] = field(default_factory=list)
    n_contacts: list[int] = field(default_factory=list)


def frame_vertices(rest: np.ndarray, frame: int) -> np.ndarray:
    """Vertices of A at ``frame``, ``(n, 3) float64``."""
    return DEFORMERS["radial_wave"]()(rest, frame / FRAME_RATE)


def _pipeline_frames(
    mesh, pose_b, frames: list[int], is_trace: bool, ours_pairs: dict, checks: dict
) -> Samples:
    """Time ``FramePipeline.step`` per frame without its deform phase; check its contacts."""
    deformer = DEFORMERS["radial_wave"]()
    pipe = FramePipeline(PipelineSettings(
        CollisionRequest(trace=is_trace), update=UpdateMode.REFIT))
    bodies = [BodyInput("A", mesh, Pose(), deformer), BodyInput("B", mesh, pose_b, None)]
    pipe.step(bodies, frames[0] / FRAME_RATE)  # builds both trees (not a per-frame cost)
    samples, found = Samples(), []
    for f in frames:
        frame = pipe.step(bodies, f / FRAME_RATE)
        samples.seconds.append(frame.timings["total"] - frame.timings["deform"])
        found.append(compare_pairs(ours_pairs[f], ours.pairs(frame.result)))
    checks[f"pipeline (trace={is_trace}) vs direct"] = merge_checks(found)
    return samples


def _agree(peer: PeerAdapter, where: str, ours_pairs, raw, tris_a, tris_b) -> None:
    """Stop the run when a peer that must agree with us differs by a pair that is apart."""
    if peer.must_agree:
        require_agreement(peer.name, where, ours_pairs, peer.pairs(raw), tris_a, tris_b)


def run(
    case: SphereCase,
    peers: list[PeerAdapter],
    log: Callable[[str], None],
    history: PeerHistory,
    frame_stride: int = 1,
    trees=None,
    peer_models: dict | None = None,
) -> W3Result:
    mesh = case.mesh
    rest, faces = mesh.vertices, mesh.faces
    pose_b = w1_pose()
    eye, pose_b_m = np.eye(4), pose_b.as_matrix()
    tree_a0, tree_b = trees if trees else (ours.build_one(mesh), ours.build_one(mesh))
    leaves = ours.leaves_of(tree_a0)
    tris_b = pose_b.apply(mesh.triangles)
    out = W3Result(frames=list(range(0, W3_N_FRAMES, frame_stride)))
    for phase in (
        "refit",
        "w3_refit_frame",
        "w3_rebuild_frame",
        "w3_pipeline_frame",
        "w3_pipeline_trace_frame",
        "w3_marshal",
    ):
        out.timings[phase] = {}
    ours_pairs: dict[int, np.ndarray] = {}

    for n_threads in THREAD_COUNTS:
        col = ours_column(n_threads)
        refit_s, refit_frame, rebuild_frame = Samples(), Samples(), Samples()
        with numba_threads(n_threads):
            # Warm up the refit kernels (compiled on first use, not part of a frame).
            ours.refit(tree_a0, mesh.with_vertices(frame_vertices(rest, 0)), leaves)
            tree_a = tree_a0
            for f in out.frames:
                v = frame_vertices(rest, f)
                t0 = time.perf_counter()
                mesh_f = mesh.with_vertices(v)
                t1 = time.perf_counter()
                tree_a = ours.refit(tree_a, mesh_f, leaves)
                t2 = time.perf_counter()
                result = ours.query(mesh_f, tree_a, mesh, tree_b, pose_b)
                t3 = time.perf_counter()
                refit_s.seconds.append(t2 - t1)
                refit_frame.seconds.append(t3 - t0)
                if n_threads == THREAD_COUNTS[0]:
                    ours_pairs[f] = ours.pairs(result)
                    out.n_contacts.append(int(result.counters.n_contacts))
            for f in out.frames:
                v = frame_vertices(rest, f)
                t0 = time.perf_counter()
                mesh_f = mesh.with_vertices(v)
                tree_f = ours.build_one(mesh_f)
                ours.query(mesh_f, tree_f, mesh, tree_b, pose_b)
                rebuild_frame.seconds.append(time.perf_counter() - t0)
            for phase, is_trace in (
                ("w3_pipeline_frame", False),
                ("w3_pipeline_trace_frame", True),
            ):
                out.timings[phase][col] = _pipeline_frames(
                    mesh, pose_b, out.frames, is_trace, ours_pairs, out.checks
                )
        out.timings["refit"][col] = refit_s
        out.timings["w3_refit_frame"][col] = refit_frame
        out.timings["w3_rebuild_frame"][col] = rebuild_frame
        log(
            f"  W3 {case.label} {col}: refit {refit_s.median * 1e3:.2f} ms, refit frame "
            f"{refit_frame.median * 1e3:.2f} ms, rebuild frame {rebuild_frame.median * 1e3:.2f}"
            f" ms, pipeline frame {out.timings['w3_pipeline_frame'][col].median * 1e3:.2f} ms"
        )

    for peer in peers:
        note = history.skip_note(peer.name, "w3_frame", case.n_tris, history.frames_budget_s)
        if note:
            out.timings["w3_rebuild_frame"][peer.name] = Samples(note=note)
            log(f"  W3 {case.label} {peer.name}: rebuild frame {note}")
            continue
        model_b = (peer_models or {}).get(peer.name, (None, None))[1]
        if model_b is None:
            model_b = peer.build(rest, faces, peer.new_model())
        # One untimed frame first: set-up of inputs and caches, as ours is warmed up. It
        # counts against the budget.
        t0 = time.perf_counter()
        peer.query(peer.frame_model(rest, faces, peer.new_model()), eye, model_b, pose_b_m)
        spent = time.perf_counter() - t0
        # Rebuild every frame.
        samples, checks = Samples(), []
        for f in out.frames:
            if spent > history.frames_budget_s:
                samples.note = (
                    f"stopped after {samples.n} frames (> {history.frames_budget_s:.0f} s)"
                )
                break
            v = frame_vertices(rest, f)
            empty = peer.new_model()
            t0 = time.perf_counter()
            model_a = peer.frame_model(v, faces, empty)
            raw = peer.query(model_a, eye, model_b, pose_b_m)
            elapsed = time.perf_counter() - t0
            samples.seconds.append(elapsed)
            spent += elapsed
            checks.append(compare_pairs(ours_pairs[f], peer.pairs(raw), v[faces], tris_b))
            _agree(peer, f"W3 {case.label} rebuild frame {f}", ours_pairs[f], raw, v[faces], tris_b)
        out.timings["w3_rebuild_frame"][peer.name] = samples
        history.record(peer.name, "w3_frame", case.n_tris, samples.median)
        out.checks[f"{peer.name} rebuild"] = merge_checks(checks)
        msg = f"  W3 {case.label} {peer.name}: rebuild frame {_ms(samples)}"
        if peer.can_refit:
            model_a = peer.build(rest, faces, peer.new_model())
            peer.query(model_a, eye, model_b, pose_b_m)
            refit_s, frame_s, marshal_s, checks = Samples(), Samples(), Samples(), []
            for f in out.frames:
                v = frame_vertices(rest, f)
                t0 = time.perf_counter()
                prepared = peer.prepare_vertices(v)
                t1 = time.perf_counter()
                model_a = peer.refit(model_a, prepared)
                t2 = time.perf_counter()
                raw = peer.query(model_a, eye, model_b, pose_b_m)
                t3 = time.perf_counter()
                marshal_s.seconds.append(t1 - t0)
                refit_s.seconds.append(t2 - t1)
                frame_s.seconds.append(t3 - t0)
                checks.append(compare_pairs(ours_pairs[f], peer.pairs(raw), v[faces], tris_b))
                where = f"W3 {case.label} refit frame {f}"
                _agree(peer, where, ours_pairs[f], raw, v[faces], tris_b)
            out.timings["refit"][peer.name] = refit_s
            out.timings["w3_refit_frame"][peer.name] = frame_s
            out.timings["w3_marshal"][peer.name] = marshal_s
            out.checks[f"{peer.name} refit"] = merge_checks(checks)
            msg += (
                f", refit {refit_s.median * 1e3:.2f} ms (+ marshal {marshal_s.median * 1e3:.2f}"
                f" ms), refit frame {frame_s.median * 1e3:.2f} ms"
            )
        check = out.checks[f"{peer.name} rebuild"]
        log(msg + f", pairs {check.short() if check else '-'}")
    return out
