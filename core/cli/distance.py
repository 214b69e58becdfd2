"""``python -m core distance A B ...``: the minimum distance of two meshes and their closest
triangles and points, as text or JSON."""

from __future__ import annotations

from core.cli.options import (
    add_command,
    distance_bv_names,
    mesh_pair_args,
    rule_names,
    whole_number,
)
from core.cli.posed import load_posed

_DISTANCE_EPILOG = """\
--json writes one JSON object. It never holds NaN or Infinity: a value that is not finite
(none is expected for meshes within the supported coordinate range) is written as null.
"""


def add_distance_parser(sub) -> None:
    """Add the ``distance`` sub-command to ``sub`` (the sub-parsers of ``python -m core``)."""
    from core.bvh import SplitRule

    d = add_command(
        sub,
        "distance",
        help="minimum distance and closest triangles of two meshes",
        epilog=_DISTANCE_EPILOG,
    )
    mesh_pair_args(d)
    d.add_argument("--split", choices=rule_names(SplitRule), default="midpoint",
                   help="split rule of both trees")  # fmt: skip
    d.add_argument("--leaf-size", type=whole_number, default=1, metavar="K")
    d.add_argument("--bv", choices=distance_bv_names(), default="rss", metavar="KIND",
                   help="volume whose distance bound prunes: "
                   + " ".join(distance_bv_names()) + " (default rss)")  # fmt: skip
    d.add_argument("--json", action="store_true", help="print one JSON object")


def run_distance(args) -> dict:
    """Load, pose, build and measure the minimum distance; return the report as a dict."""
    from core.bvh import SplitRule, build_trees
    from core.distance import min_distance

    mesh_a, mesh_b, pose_b, _, _ = load_posed(args)
    tree_a, tree_b = build_trees([mesh_a, mesh_b], SplitRule[args.split.upper()], args.leaf_size)
    r = min_distance(mesh_a, tree_a, mesh_b, tree_b, None, pose_b, bv=args.bv)
    return {
        "mesh_a": {"path": str(args.mesh_a), "triangles": mesh_a.n_faces},
        "mesh_b": {"path": str(args.mesh_b), "triangles": mesh_b.n_faces},
        "bv": args.bv,
        "distance": r.distance,
        "pair": [int(x) for x in r.pair],
        "source_pair": [int(mesh_a.source_face_ids[r.pair[0]]),
                        int(mesh_b.source_face_ids[r.pair[1]])],  # fmt: skip
        "point_a": r.point_a.tolist(),
        "point_b": r.point_b.tolist(),
        "counters": {"bv_tests": r.counters.n_bv_tests, "tri_tests": r.counters.n_tri_tests},
        "timings_ms": {k: 1e3 * v for k, v in r.timings.items()},
    }


def format_distance(report: dict) -> str:
    """The text form of :func:`run_distance`'s report."""
    pa = ", ".join(f"{x:.6g}" for x in report["point_a"])
    pb = ", ".join(f"{x:.6g}" for x in report["point_b"])
    c = report["counters"]
    return "\n".join([
        f"A: {report['mesh_a']['path']} ({report['mesh_a']['triangles']} triangles)",
        f"B: {report['mesh_b']['path']} ({report['mesh_b']['triangles']} triangles)",
        f"distance: {report['distance']:.9g} ({report['bv']} bounds)",
        f"closest triangles: A {report['pair'][0]}, B {report['pair'][1]}",
        f"points: A ({pa})  B ({pb})",
        f"BV tests {c['bv_tests']}, triangle distances {c['tri_tests']}",
    ])  # fmt: skip
