"""W1, rigid overlap: B is A rotated 0.6 rad about (1, 2, 3) and moved by (0.5, 0, 0).

Times the build of both trees, the query in fast mode (``trace=False``) and in trace mode
(``trace=True``, ours only), and checks every peer's contact pairs against ours.

A rigid body keeps whatever volumes were fitted to it once, so the rigid configurations we
offer besides the AABB tree (oriented boxes on the midpoint and on the OBBTree split) are
timed too, with 2 threads, fits untimed; issue 15's W1 line reads the fastest of them.
Those configurations (the AABB tree again among them) are timed in turns with the peers of
W1's targets, so that both sides of a ratio see the same machine
(``benchmarks.timing.measure_alternating``); the table's rows time each column in a block.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from benchmarks import ours
from benchmarks.compare import PairCheck, compare_pairs, require_agreement
from benchmarks.peers import PeerAdapter
from benchmarks.scenes import SphereCase, w1_pose
from benchmarks.targets import AABB_TREE, turn_peers
from benchmarks.timing import (
    TARGET_MIN_ROUNDS,
    PeerHistory,
    Samples,
    guarded_measure,
    measure,
    measure_alternating,
    numba_threads,
)

THREAD_COUNTS = (2, 1)
#: Rigid configurations timed besides the AABB tree (``kind`` or ``kind:RULE``). The RSS and
#: k-DOP trees took 2-12 times the OBB tree's time on W1 at 100k and are left out.
RIGID_KINDS = ("obb", "obb:OBB")


def _ms(samples: Samples) -> str:
    """Median in ms for the log, or the reason there is none."""
    return f"{samples.median * 1e3:.2f} ms" if samples.median is not None else samples.note


def ours_column(n_threads: int) -> str:
    return f"{ours.NAME} {n_threads}T"


@dataclass
class W1Result:
    """Timings and checks of W1 at one size.

    Attributes
    ----------
    timings : dict of phase -> column -> Samples
        Phases ``"build"`` (two trees), ``"w1_query"``, ``"w1_trace"``.
    checks : dict of peer name -> PairCheck
    counters : dict
        Our counters of the fast query.
    trees : tuple
        Our trees of A and B (re-used by W3).
    peer_models : dict of peer name -> (model A, model B)
    kinds : dict of kind spec -> Samples
        The fast query with 2 threads per rigid configuration, timed in turns with the W1
        targets' peers: ``"aabb"`` (the trees of ``timings["w1_query"]``) and each of
        :data:`RIGID_KINDS`.
    """

    timings: dict[str, dict[str, Samples]] = field(default_factory=dict)
    checks: dict[str, PairCheck] = field(default_factory=dict)
    counters: dict = field(default_factory=dict)
    ours_pairs: np.ndarray | None = None
    trees: tuple = ()
    peer_models: dict = field(default_factory=dict)
    kinds: dict[str, Samples] = field(default_factory=dict)


def run(
    case: SphereCase,
    peers: list[PeerAdapter],
    repeats: int,
    log: Callable[[str], None],
    history: PeerHistory,
) -> W1Result:
    mesh = case.mesh
    pose_b = w1_pose()
    out = W1Result()
    for phase in ("build", "w1_query", "w1_trace"):
        out.timings[phase] = {}

    for n_threads in THREAD_COUNTS:
        col = ours_column(n_threads)
        with numba_threads(n_threads):
            out.timings["build"][col], trees = measure(
                lambda nt=n_threads: ours.build_two(mesh, mesh, nt), repeats
            )
            tree_a, tree_b = trees
            for phase, is_trace in (("w1_query", False), ("w1_trace", True)):
                out.timings[phase][col], result = measure(
                    lambda t=is_trace, ta=tree_a, tb=tree_b: ours.query(
                        mesh, ta, mesh, tb, pose_b, trace=t
                    ),
                    repeats,
                )
        if n_threads == THREAD_COUNTS[0]:
            out.trees = (tree_a, tree_b)
            out.ours_pairs = ours.pairs(result)
            c = result.counters
            out.counters = {
                "n_bv_tests": int(c.n_bv_tests),
                "n_bv_overlaps": int(c.n_bv_overlaps),
                "n_leaf_pairs": int(c.n_leaf_pairs),
                "n_tri_tests": int(c.n_tri_tests),
                "n_contacts": int(c.n_contacts),
            }
        log(
            f"  W1 {case.label} {col}: build {out.timings['build'][col].median * 1e3:.1f} ms, "
            f"query {out.timings['w1_query'][col].median * 1e3:.2f} ms, "
            f"trace {out.timings['w1_trace'][col].median * 1e3:.2f} ms"
        )

    # The configurations W1's targets read, in turns with those targets' peers (below).
    tree_a, tree_b = out.trees
    kind_runs = {AABB_TREE: lambda: ours.query(mesh, tree_a, mesh, tree_b, pose_b)}
    kind_runs |= {spec: ours.kind_query(spec, mesh, mesh, pose_b) for spec in RIGID_KINDS}

    v, f = mesh.vertices, mesh.faces
    pose_a_m, pose_b_m = np.eye(4), pose_b.as_matrix()
    tris_a, tris_b = mesh.triangles, pose_b.apply(mesh.triangles)

    def finish_peer(peer: PeerAdapter, samples: Samples, raw) -> None:
        """Record a peer's query: its samples, its contacts against ours, the log line."""
        out.timings["w1_query"][peer.name] = samples
        if raw is not None:
            out.checks[peer.name] = compare_pairs(out.ours_pairs, peer.pairs(raw), tris_a, tris_b)
            if peer.must_agree:
                where = f"W1 {case.label}"
                require_agreement(peer.name, where, out.ours_pairs, peer.pairs(raw), tris_a, tris_b)
        log(
            f"  W1 {case.label} {peer.name}: build {_ms(out.timings['build'][peer.name])}, "
            f"query {_ms(samples)}, pairs "
            + (out.checks[peer.name].short() if peer.name in out.checks else "-")
        )

    paired_names = {peer.name for peer in turn_peers("W1", peers)}
    paired: dict[str, Callable[[], object]] = {}
    for peer in peers:
        out.timings["build"][peer.name], models = guarded_measure(
            history,
            peer.name,
            "build",
            case.n_tris,
            lambda pair, p=peer: (p.build(v, f, pair[0]), p.build(v, f, pair[1])),
            repeats,
            setup=lambda p=peer: (p.new_model(), p.new_model()),
        )
        if models is None:
            log(f"  W1 {case.label} {peer.name}: {out.timings['build'][peer.name].note}")
            continue
        model_a, model_b = models
        out.peer_models[peer.name] = (model_a, model_b)
        query = functools.partial(peer.query, model_a, pose_a_m, model_b, pose_b_m)
        note = history.skip_note(peer.name, "w1_query", case.n_tris)
        if peer.name in paired_names and not note:
            paired[peer.name] = query
            continue
        finish_peer(peer, *guarded_measure(history, peer.name, "w1_query", case.n_tris, query,
                                           repeats))  # fmt: skip

    with numba_threads(THREAD_COUNTS[0]):
        timed = measure_alternating({**kind_runs, **paired}, max(repeats, TARGET_MIN_ROUNDS),
                                    dict.fromkeys(paired, history.phase_budget_s))
    for spec in kind_runs:
        out.kinds[spec], result = timed[spec]
        if not np.array_equal(ours.pairs(result), out.ours_pairs):
            raise RuntimeError(f"W1 {case.label}: the {spec} tree found other contacts than the "
                               "AABB tree of the table")  # fmt: skip
        log(f"  W1 {case.label} {spec} 2T (in turns with {', '.join(paired) or 'no peer'}): "
            f"query {_ms(out.kinds[spec])}")
    for peer in peers:
        if peer.name in paired:
            samples, raw = timed[peer.name]
            history.record(peer.name, "w1_query", case.n_tris, samples.median)
            finish_peer(peer, samples, raw)
    return out
