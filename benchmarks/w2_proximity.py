"""W2, parallel close proximity: B is A scaled by 1 + eps about the centre, no contacts.

Two concentric spheres with the same tessellation, a gap of ``eps`` apart: the smaller
``eps``, the deeper both trees must be descended before the boxes separate (Gottschalk et
al. 1996 use this case to compare box kinds). Reports our BV tests and the query time per
eps, and the peers' query times; every query must report no contact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from benchmarks import ours
from benchmarks.peers import PeerAdapter
from benchmarks.scenes import W2_EPS, SphereCase, scaled_about_centre
from benchmarks.targets import AABB_TREE, W2_EPS_TARGET, turn_peers
from benchmarks.timing import (
    TARGET_MIN_ROUNDS,
    PeerHistory,
    Samples,
    measure,
    measure_alternating,
    numba_threads,
)
from benchmarks.w1_rigid import THREAD_COUNTS, ours_column
from core.bvh import build_tree
from core.pose import Pose

#: Kinds timed at the target gap besides the AABB tree (``kind`` or ``kind:RULE``, as in
#: ``benchmarks.w2_kinds``): the three that came within 1.5x fcl there (obb 0.51x / 0.59x at
#: 100k / 500k, obb:OBB and rss close behind); the slower kinds would only lengthen the run.
TARGET_KINDS = ("obb", "obb:OBB", "rss")


@dataclass
class W2Result:
    """Per eps: timings (column -> Samples), our BV tests, contacts found by each side.

    Attributes
    ----------
    timings : dict of eps -> column -> Samples
    bv_tests : dict of eps -> int
    contacts : dict of eps -> column -> int
        Must all be 0.
    kinds : dict of kind spec -> Samples
        Our query at ``benchmarks.targets.W2_EPS_TARGET`` with 2 threads, per bounding-volume
        kind: ``"aabb"`` (the AABB tree of :attr:`timings`) and each of :data:`TARGET_KINDS`.
    """

    timings: dict[float, dict[str, Samples]] = field(default_factory=dict)
    bv_tests: dict[float, int] = field(default_factory=dict)
    contacts: dict[float, dict[str, int]] = field(default_factory=dict)
    kinds: dict[str, Samples] = field(default_factory=dict)


def run(
    case: SphereCase,
    peers: list[PeerAdapter],
    repeats: int,
    log: Callable[[str], None],
    history: PeerHistory,
    tree_a=None,
    peer_models_a: dict | None = None,
) -> W2Result:
    mesh_a = case.mesh
    tree_a = tree_a if tree_a is not None else build_tree(mesh_a)
    identity = Pose()
    eye = np.eye(4)
    out = W2Result()
    for eps in W2_EPS:
        mesh_b = scaled_about_centre(mesh_a, 1.0 + eps)
        tree_b = build_tree(mesh_b)
        out.timings[eps] = {}
        out.contacts[eps] = {}
        for n_threads in THREAD_COUNTS:
            col = ours_column(n_threads)
            with numba_threads(n_threads):
                out.timings[eps][col], result = measure(
                    lambda tb=tree_b, mb=mesh_b: ours.query(mesh_a, tree_a, mb, tb, identity),
                    repeats,
                )
            out.contacts[eps][col] = int(result.counters.n_contacts)
            out.bv_tests[eps] = int(result.counters.n_bv_tests)
        phase = f"w2_query_{eps:g}"
        peer_runs: dict[str, Callable[[], object]] = {}
        timed: dict[str, tuple[Samples, object]] = {}
        for peer in peers:
            note = history.skip_note(peer.name, phase, case.n_tris)
            if note:
                timed[peer.name] = (Samples(note=note), None)
                continue
            model_a = (peer_models_a or {}).get(peer.name, (None,))[0]
            if model_a is None:
                model_a = peer.build(mesh_a.vertices, mesh_a.faces, peer.new_model())
            model_b = peer.build(mesh_b.vertices, mesh_b.faces, peer.new_model())
            peer_runs[peer.name] = lambda mb=model_b, ma=model_a, p=peer: p.query(ma, eye, mb, eye)
        if eps == W2_EPS_TARGET:
            out.kinds[AABB_TREE] = out.timings[eps][ours_column(THREAD_COUNTS[0])]
            # The target's kinds and its peer in turns: the ratio's two sides see the same
            # machine (benchmarks.timing.measure_alternating).
            paired = {p.name: peer_runs.pop(p.name) for p in turn_peers("W2", peers)
                      if p.name in peer_runs}
            runs = {spec: ours.kind_query(spec, mesh_a, mesh_b) for spec in TARGET_KINDS}
            with numba_threads(THREAD_COUNTS[0]):
                timed |= measure_alternating({**runs, **paired},
                                             max(repeats, TARGET_MIN_ROUNDS),
                                             dict.fromkeys(paired, history.phase_budget_s))
            for spec in TARGET_KINDS:
                out.kinds[spec], result = timed.pop(spec)
                if result.n_contacts:
                    raise RuntimeError(f"W2 {spec} found contacts between concentric spheres")
                median = out.kinds[spec].median
                if median is not None:
                    log(f"  W2 {case.label} eps={eps:g} {spec}: {median * 1e3:.2f} ms")
        for name, run_peer in peer_runs.items():
            timed[name] = measure(run_peer, repeats, budget_s=history.phase_budget_s)
        for peer in peers:
            samples, raw = timed[peer.name]
            history.record(peer.name, phase, case.n_tris, samples.median)  # None: skipped
            out.timings[eps][peer.name] = samples
            if raw is not None:
                out.contacts[eps][peer.name] = int(len(peer.pairs(raw)))
        cols = out.timings[eps]
        log(
            f"  W2 {case.label} eps={eps:g}: ours BV tests {out.bv_tests[eps]}, "
            + ", ".join(
                f"{k} " + (f"{s.median * 1e3:.2f} ms" if s.median is not None else s.note)
                for k, s in cols.items()
            )
        )
    return out
