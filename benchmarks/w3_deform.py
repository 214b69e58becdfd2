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
Every way through a frame gets one untimed warm-up frame (frame 0), then each frame once. A
peer whose warm-up frame shows that the frames of one size would take more than
``history.frames_budget_s`` times fewer of them, and the table says how many.

Our refit frame with up to 2 threads and the refit frame of W3's target peers (warp) are timed
in turns, frame by frame (``benchmarks.timing.measure_alternating``): under the competing load a
thread gets a whole core or a share of one for 50-150 ms at a time, and two blocks timed one
after the other could give the ratio's sides different shares.
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
from benchmarks.targets import OURS, turn_peers
from benchmarks.timing import PeerHistory, Samples, measure_alternating, numba_threads
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


@dataclass
class _Contender:
    """One way through a W3 frame, as one call on a frame's input (``_FrameInput``).

    Attributes
    ----------
    step : callable
        ``step(frame_input)``: the timed call, from the frame's vertices to its contacts.
    results : dict of frame -> object
        What each frame's call found (ours: a ``CollisionResult``; a peer: its raw answer).
    parts : dict of phase -> list of float
        Seconds of a phase inside each call (``"refit"``, ``"w3_marshal"``), warm-up first.
    """

    step: Callable[[_FrameInput], object]
    results: dict = field(default_factory=dict)
    parts: dict[str, list[float]] = field(default_factory=dict)

    def part(self, phase: str) -> Samples:
        """A phase's seconds over the timed frames (the warm-up call's dropped)."""
        return Samples(seconds=self.parts.get(phase, [])[1:])


@dataclass(frozen=True)
class _FrameInput:
    """A frame's input, made once, untimed, for every contender: A's vertices and an empty
    model per peer (``PeerAdapter.new_model``, untimed set-up)."""

    frame: int
    vertices: np.ndarray
    empty_models: dict


def _ours_refit(mesh, tree_a0, mesh_b, tree_b, pose_b, leaves) -> _Contender:
    """Our refit frame: ``with_vertices`` + ``refit_tree`` + ``collide``."""
    state = {"tree": tree_a0}
    refit_s: list[float] = []

    def step(frame: _FrameInput) -> None:
        mesh_f = mesh.with_vertices(frame.vertices)
        t0 = time.perf_counter()
        state["tree"] = ours.refit(state["tree"], mesh_f, leaves)
        refit_s.append(time.perf_counter() - t0)
        out.results[frame.frame] = ours.query(mesh_f, state["tree"], mesh_b, tree_b, pose_b)

    out = _Contender(step, parts={"refit": refit_s})
    return out


def _peer_rebuild(peer: PeerAdapter, faces, model_b, pose_b_m) -> _Contender:
    """A peer's rebuild frame: A's model built from the frame's vertices, then the query."""
    eye = np.eye(4)

    def step(frame: _FrameInput) -> None:
        model_a = peer.frame_model(frame.vertices, faces, frame.empty_models.get(peer.name))
        out.results[frame.frame] = peer.query(model_a, eye, model_b, pose_b_m)

    out = _Contender(step)
    return out


def _peer_refit(peer: PeerAdapter, rest, faces, model_b, pose_b_m) -> _Contender:
    """A peer's refit frame: the vertices marshalled, the model refitted, then the query."""
    eye = np.eye(4)
    state = {"model": peer.build(rest, faces, peer.new_model())}
    marshal_s: list[float] = []
    refit_s: list[float] = []

    def step(frame: _FrameInput) -> None:
        t0 = time.perf_counter()
        prepared = peer.prepare_vertices(frame.vertices)
        t1 = time.perf_counter()
        state["model"] = peer.refit(state["model"], prepared)
        t2 = time.perf_counter()
        out.results[frame.frame] = peer.query(state["model"], eye, model_b, pose_b_m)
        marshal_s.append(t1 - t0)
        refit_s.append(t2 - t1)

    out = _Contender(step, parts={"refit": refit_s, "w3_marshal": marshal_s})
    return out


def run(
    case: SphereCase,
    peers: list[PeerAdapter],
    log: Callable[[str], None],
    history: PeerHistory,
    frame_stride: int = 1,
    trees=None,
    peer_models: dict | None = None,
) -> W3Result:
    """Time W3's frames at one size.

    Our refit frame with up to 2 threads (the target's side) is timed in turns with the
    refit frame of each W3 target's peer (``benchmarks.targets.turn_peers``), frame by frame:
    both sides of the ratio see the same machine. Every other column is timed in a block of
    its own.
    """
    mesh = case.mesh
    rest, faces = mesh.vertices, mesh.faces
    pose_b = w1_pose()
    pose_b_m = pose_b.as_matrix()
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

    paired = turn_peers("W3", peers)

    def time_frames(contenders: dict[str, _Contender], budgets_s: dict,
                    rebuilding: list[PeerAdapter]) -> dict[str, Samples]:  # fmt: skip
        """Each contender over every frame, in turns, with its budget (seconds); the peers
        ``rebuilding`` get their empty models with each frame's input."""

        def frame_input(i: int) -> _FrameInput:
            f = out.frames[i]
            empties = {peer.name: peer.new_model() for peer in rebuilding}
            return _FrameInput(f, frame_vertices(rest, f), empties)

        timed = measure_alternating({name: c.step for name, c in contenders.items()},
                                    len(out.frames), budgets_s, inputs=frame_input)
        return {name: samples for name, (samples, _) in timed.items()}

    def ours_contender() -> _Contender:
        return _ours_refit(mesh, tree_a0, mesh, tree_b, pose_b, leaves)

    models_b: dict[str, object] = {}

    def model_b_of(peer: PeerAdapter):
        """B's model of ``peer``, made once for its turns and its blocks."""
        if peer.name not in models_b:
            models_b[peer.name] = _model_b(peer, peer_models, rest, faces)
        return models_b[peer.name]

    # The target's two sides, in turns: ours up to 2 threads and each paired peer's refit
    # frame (its rebuild frame where it cannot refit). Not both of a peer's frames: its
    # rebuild between two of ours left ours cold (the W3 100k frame, idle: 4.0 ms in turns
    # with warp's rebuild and refit frames, 3.1-3.4 ms in turns with its refit frame alone,
    # which was the faster of warp's two at every size: 8 against 31 ms at 100k).
    budget = history.frames_budget_s
    contenders = {OURS: ours_contender()}
    budgets: dict[str, float] = {}
    for peer in paired:
        note = history.skip_note(peer.name, "w3_frame", case.n_tris, budget)
        if note:
            continue
        mode = _turn_mode(peer)
        contenders[f"{peer.name} {mode}"] = _peer_frames(peer, mode, rest, faces,
                                                         model_b_of(peer), pose_b_m)  # fmt: skip
        budgets[f"{peer.name} {mode}"] = budget
    with numba_threads(THREAD_COUNTS[0]):
        turns = time_frames(contenders, budgets, paired)
    ours_run = contenders.pop(OURS)
    ours_pairs = {f: ours.pairs(r) for f, r in ours_run.results.items()}
    out.n_contacts = [int(ours_run.results[f].counters.n_contacts) for f in out.frames]

    for n_threads in THREAD_COUNTS:
        col = ours_column(n_threads)
        with numba_threads(n_threads):
            if col == OURS:
                frames_s, run_ = turns[OURS], ours_run
            else:
                run_ = ours_contender()
                frames_s = time_frames({col: run_}, {}, [])[col]
            out.timings["w3_refit_frame"][col] = frames_s
            out.timings["refit"][col] = run_.part("refit")
            rebuild_frame = Samples()
            for f in out.frames:
                v = frame_vertices(rest, f)
                t0 = time.perf_counter()
                mesh_f = mesh.with_vertices(v)
                tree_f = ours.build_one(mesh_f)
                ours.query(mesh_f, tree_f, mesh, tree_b, pose_b)
                rebuild_frame.seconds.append(time.perf_counter() - t0)
            out.timings["w3_rebuild_frame"][col] = rebuild_frame
            for phase, is_trace in (
                ("w3_pipeline_frame", False),
                ("w3_pipeline_trace_frame", True),
            ):
                out.timings[phase][col] = _pipeline_frames(
                    mesh, pose_b, out.frames, is_trace, ours_pairs, out.checks
                )
        log(
            f"  W3 {case.label} {col}: refit {out.timings['refit'][col].median * 1e3:.2f} ms, "
            f"refit frame {frames_s.median * 1e3:.2f} ms"
            + (f" (in turns with {', '.join(p.name for p in paired)})"
               if col == OURS and paired else "")  # fmt: skip
            + f", rebuild frame {rebuild_frame.median * 1e3:.2f} ms, pipeline frame "
            f"{out.timings['w3_pipeline_frame'][col].median * 1e3:.2f} ms"
        )

    for peer in peers:
        note = history.skip_note(peer.name, "w3_frame", case.n_tris, budget)
        if note:
            out.timings["w3_rebuild_frame"][peer.name] = Samples(note=note)
            log(f"  W3 {case.label} {peer.name}: rebuild frame {note}")
            continue
        modes = {"rebuild": "w3_rebuild_frame", "refit": "w3_refit_frame"}
        runs, timed = {}, {}
        for mode in ("rebuild", "refit") if peer.can_refit else ("rebuild",):
            turned = f"{peer.name} {mode}"
            if turned in contenders:
                runs[mode], timed[mode] = contenders[turned], turns[turned]
                continue
            runs[mode] = _peer_frames(peer, mode, rest, faces, model_b_of(peer), pose_b_m)
            timed[mode] = time_frames({mode: runs[mode]}, {mode: budget}, [peer])[mode]
        msg = f"  W3 {case.label} {peer.name}:"
        for mode, contender in runs.items():
            samples = timed[mode]
            out.timings[modes[mode]][peer.name] = samples
            checks = []
            for f in out.frames[: samples.n]:
                raw, v = contender.results[f], frame_vertices(rest, f)
                checks.append(compare_pairs(ours_pairs[f], peer.pairs(raw), v[faces], tris_b))
                _agree(peer, f"W3 {case.label} {mode} frame {f}", ours_pairs[f], raw, v[faces],
                       tris_b)  # fmt: skip
            out.checks[f"{peer.name} {mode}"] = merge_checks(checks)
            msg += f" {mode} frame {_ms(samples)},"
            if mode == "refit":
                out.timings["refit"][peer.name] = contender.part("refit")
                out.timings["w3_marshal"][peer.name] = contender.part("w3_marshal")
                msg += (f" refit {_ms(contender.part('refit'))} (+ marshal "
                        f"{_ms(contender.part('w3_marshal'))}),")  # fmt: skip
        history.record(peer.name, "w3_frame", case.n_tris, timed["rebuild"].median)
        check = out.checks[f"{peer.name} rebuild"]
        log(msg + f" pairs {check.short() if check else '-'}")
    return out


def _turn_mode(peer: PeerAdapter) -> str:
    """The frame a paired peer takes turns with ours in: ``"refit"`` where it can."""
    return "refit" if peer.can_refit else "rebuild"


def _peer_frames(peer: PeerAdapter, mode: str, rest, faces, model_b, pose_b_m) -> _Contender:
    """A peer's ``"rebuild"`` or ``"refit"`` frames."""
    if mode == "refit":
        return _peer_refit(peer, rest, faces, model_b, pose_b_m)
    return _peer_rebuild(peer, faces, model_b, pose_b_m)


def _model_b(peer: PeerAdapter, peer_models: dict | None, rest, faces):
    """B's model, W1's where it built one (B only moves rigidly)."""
    model_b = (peer_models or {}).get(peer.name, (None, None))[1]
    return model_b if model_b is not None else peer.build(rest, faces, peer.new_model())
