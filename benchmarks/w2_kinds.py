"""W2 per bounding-volume kind: parallel close proximity against python-fcl's OBBRSS.

``python -m benchmarks.w2_kinds [--sizes 100k,500k] [--kinds aabb,obb,obb:OBB,...] [--repeats N]``

A kind runs on the MIDPOINT tree; ``kind:RULE`` runs it on the tree of another
:class:`~core.bvh.SplitRule` (``obb:OBB`` is the OBBTree paper's own tree).

Two concentric unit spheres, B scaled by ``1 + eps``: no contact, and the number of volume tests
grows as the gap closes. The OBBTree paper predicts about ``eps^-2`` tests for axis-aligned
boxes and spheres and ``eps^-1`` for oriented boxes; the table gives the tests per kind and gap
and the log-log slope per decade, so the prediction can be read off. Volumes are fitted once per
tree and not timed (the main table times builds); only the query is. Target (issue 4): the best
of our kinds at eps = 0.001 within 1.0x python-fcl's OBBRSS, same run.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from benchmarks.conditions import Conditions
from benchmarks.scenes import scaled_about_centre, sphere_case
from benchmarks.timing import measure
from core.bv import BV_KINDS, fit_volumes
from core.bvh import SplitRule, build_tree
from core.collide.bvquery import collide_bv

GAPS = (0.1, 0.01, 0.001)
DEFAULT_KINDS = ("aabb", "aabb15", "obb", "obb:OBB", "sphere", "kdop14", "kdop26", "lss", "rss")
SIZES = {"10k": 10_000, "100k": 100_000, "500k": 500_000}
#: A kind slower than this per query at one gap is not timed at smaller gaps (counts grow).
SLOW_QUERY_S = 20.0


def _fcl_query_seconds(mesh_a, mesh_b, repeats: int) -> float | None:
    try:
        from benchmarks.peers.fcl_peer import FclPeer
    except ImportError:
        return None
    peer = FclPeer()
    model_a = peer.build(mesh_a.vertices, mesh_a.faces)
    model_b = peer.build(mesh_b.vertices, mesh_b.faces)
    eye = np.eye(4)
    samples, raw = measure(lambda: peer.query(model_a, eye, model_b, eye), repeats)
    if len(peer.pairs(raw)):
        raise RuntimeError("python-fcl found contacts between concentric spheres")
    return samples.median


def _kind_and_rule(spec: str) -> tuple[str, SplitRule]:
    kind, _, rule = spec.partition(":")
    return kind, SplitRule[rule] if rule else SplitRule.MIDPOINT


def run_size(label: str, kinds, repeats: int) -> dict:
    """Query times and volume tests for every kind and gap at one mesh size, with the load
    and repeats they were measured under (``"conditions"``)."""
    with Conditions(repeats) as conditions:
        report = _time_kinds(label, kinds, repeats)
    return {**report, "conditions": conditions}


def _time_kinds(label: str, kinds, repeats: int) -> dict:
    case = sphere_case(label, SIZES[label])
    mesh_a = case.mesh
    rules = {_kind_and_rule(spec)[1] for spec in kinds}
    trees_a = {rule: build_tree(mesh_a, rule) for rule in rules}
    volumes_a = {}
    for spec in kinds:
        kind, rule = _kind_and_rule(spec)
        volumes_a[spec] = fit_volumes(trees_a[rule], mesh_a, kind)
    rows = {k: {} for k in kinds}
    fcl_s = {}
    slow = set()
    for eps in GAPS:
        mesh_b = scaled_about_centre(mesh_a, 1.0 + eps)
        trees_b = {rule: build_tree(mesh_b, rule) for rule in rules}
        fcl_s[eps] = _fcl_query_seconds(mesh_a, mesh_b, repeats)
        for spec in kinds:
            if spec in slow:
                continue
            kind, rule = _kind_and_rule(spec)
            tree_a, tree_b = trees_a[rule], trees_b[rule]
            volumes_b = fit_volumes(tree_b, mesh_b, kind)

            def query(kind=kind, spec=spec, mesh_b=mesh_b, tree_a=tree_a, tree_b=tree_b,
                      volumes_b=volumes_b):  # fmt: skip
                return collide_bv(mesh_a, tree_a, mesh_b, tree_b, bv=kind,
                                  volumes_a=volumes_a[spec], volumes_b=volumes_b)  # fmt: skip

            samples, result = measure(query, repeats, budget_s=3 * SLOW_QUERY_S)
            if result.n_contacts:
                raise RuntimeError(f"{spec} found contacts between concentric spheres")
            rows[spec][eps] = (samples.median, result.counters.n_bv_tests)
            if samples.median > SLOW_QUERY_S:
                slow.add(spec)
    return {"label": label, "n_tris": mesh_a.n_faces, "rows": rows, "fcl": fcl_s}


def _slopes(tests: list[float]) -> list[str]:
    return [f"{math.log10(b / a) / -1.0:+.2f}" if a and b else "-" for a, b in
            zip(tests, tests[1:])]  # fmt: skip


def format_size(report: dict) -> str:
    """The table of one size: ms and tests per gap, slopes per decade, ratio to fcl."""
    lines = [
        f"W2 per kind, {report['label']} ({report['n_tris']} triangles per sphere); ms per "
        "query / volume tests; slope = d log(tests) / d log(eps) per decade"
    ]
    head = "kind      " + "".join(f"{'eps=' + format(e, 'g'):>24}" for e in GAPS)
    lines.append(head + "   slopes        ratio to fcl at 0.001")
    fcl_last = report["fcl"].get(GAPS[-1])
    best = None
    for kind, cells in report["rows"].items():
        parts, tests = [], []
        for eps in GAPS:
            if eps in cells:
                ms, n = cells[eps]
                parts.append(f"{1e3 * ms:>10.2f} / {n:>11,}")
                tests.append(n)
            else:
                parts.append(f"{'skipped (slow)':>24}")
                tests.append(0)
        ratio = "-"
        if fcl_last and GAPS[-1] in cells:
            r = cells[GAPS[-1]][0] / fcl_last
            ratio = f"{r:.2f}x"
            best = r if best is None else min(best, r)
        lines.append(f"{kind:<10}" + "".join(parts) + f"   {' '.join(_slopes(tests)):<13} {ratio}")
    fcl = "".join(
        f"{1e3 * report['fcl'][e]:>10.2f} / {'-':>11}" if report["fcl"].get(e) else f"{'-':>24}"
        for e in GAPS
    )
    lines.append(f"{'fcl':<10}{fcl}")
    if best is not None:
        verdict = "PASS" if best <= 1.0 else "MISS"
        lines.append(f"  {verdict}  best of our kinds at eps=0.001 <= 1.0x fcl-OBBRSS: {best:.2f}x")
    conditions = report.get("conditions")
    if conditions is not None:
        lines += conditions.lines(f"the W2 kind table at {report['label']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.w2_kinds",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--sizes", default="100k,500k", help="comma list of 10k, 100k, 500k")
    parser.add_argument("--kinds", default=",".join(DEFAULT_KINDS),
                        help="comma list of " + " ".join(BV_KINDS))  # fmt: skip
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in kinds
               if k.partition(":")[0] not in BV_KINDS
               or k.partition(":")[2] not in ("", *SplitRule.__members__)]  # fmt: skip
    sizes = [s for s in args.sizes.split(",") if s]
    if unknown or any(s not in SIZES for s in sizes):
        parser.error(f"unknown kind or size: {unknown or sizes}")
    for label in sizes:
        print(format_size(run_size(label, kinds, args.repeats)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
