"""Command line: ``python -m core contacts A B ...`` and ``python -m core warmup``."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

from core.errors import BVHLabError

_CONTACTS_EPILOG = """\
Face ids are indices into each file's faces in file order. Polygons with k sides are split
into k - 2 triangles in place (a fan from the first corner), so for files with polygons the
ids count triangles after that split; "source_pairs" in --json maps them back to the
file's own polygon ids.

B is scaled about the origin of its own coordinates, then rotated about that origin, then
translated: x = R (S x_B) + t.
"""


def _rule_names(enum_cls) -> list[str]:
    return [m.name.lower() for m in enum_cls]


def build_parser() -> argparse.ArgumentParser:
    from core.bvh import SplitRule
    from core.collide import DescendRule

    parser = argparse.ArgumentParser(
        prog="python -m core", description="BVH Lab collision engine, headless."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    c = sub.add_parser(
        "contacts",
        help="contacting triangle pairs of two meshes",
        epilog=_CONTACTS_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("mesh_a", help="OBJ, STL, PLY, OFF, VTK or VTP file")
    c.add_argument("mesh_b", help="OBJ, STL, PLY, OFF, VTK or VTP file")
    c.add_argument("--translate-b", nargs=3, type=float, metavar=("X", "Y", "Z"),
                   default=(0.0, 0.0, 0.0), help="translation of B (applied last)")  # fmt: skip
    c.add_argument("--rotate-b", nargs=4, type=float, metavar=("AX", "AY", "AZ", "DEG"),
                   help="rotation of B about axis (AX, AY, AZ) by DEG degrees")  # fmt: skip
    c.add_argument("--scale-b", type=float, default=1.0, metavar="S",
                   help="uniform scale of B about its own origin (applied first)")  # fmt: skip
    c.add_argument("--split", choices=_rule_names(SplitRule), default="midpoint",
                   help="split rule of both trees (default: midpoint, van den Bergen)")  # fmt: skip
    c.add_argument("--leaf-size", type=int, default=1, metavar="K",
                   help="most triangles per leaf (default 1)")  # fmt: skip
    c.add_argument("--descend", choices=_rule_names(DescendRule), default="larger_volume",
                   help="which node of an overlapping pair to split")  # fmt: skip
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.add_argument("--max-pairs", type=int, default=20, metavar="N",
                   help="pairs listed in text output (default 20; --json lists all)")  # fmt: skip

    w = sub.add_parser("warmup", help="compile the numba kernels into the on-disk cache")
    w.add_argument("--quiet", action="store_true")
    return parser


def _check_args(args) -> None:
    if not math.isfinite(args.scale_b) or args.scale_b <= 0.0:
        raise ValueError(f"--scale-b must be a positive number, got {args.scale_b}")
    if args.leaf_size < 1:
        raise ValueError(f"--leaf-size must be at least 1, got {args.leaf_size}")
    if not all(math.isfinite(x) for x in args.translate_b):
        raise ValueError("--translate-b needs three finite numbers")
    if args.rotate_b is not None:
        if not all(math.isfinite(x) for x in args.rotate_b):
            raise ValueError("--rotate-b needs four finite numbers")
        if not any(args.rotate_b[:3]):
            raise ValueError("--rotate-b axis must not be zero")


def run_contacts(args) -> dict:
    """Load, pose, build and collide as the arguments say; return the report as a dict."""
    from core.bvh import SplitRule, build_trees
    from core.collide import DescendRule, collide
    from core.containment import pair_containment
    from core.io import load_mesh
    from core.pose import Pose, rotation_matrix

    _check_args(args)
    t0 = time.perf_counter()
    mesh_a = load_mesh(args.mesh_a)
    mesh_b = load_mesh(args.mesh_b)
    if args.scale_b != 1.0:
        mesh_b = mesh_b.with_vertices(mesh_b.vertices * args.scale_b)
    rot = np.eye(3)
    if args.rotate_b is not None:
        rot = rotation_matrix(args.rotate_b[:3], math.radians(args.rotate_b[3]))
    pose_b = Pose(rot, np.array(args.translate_b))
    t1 = time.perf_counter()
    split = SplitRule[args.split.upper()]
    tree_a, tree_b = build_trees([mesh_a, mesh_b], split, args.leaf_size)
    t2 = time.perf_counter()
    result = collide(mesh_a, tree_a, mesh_b, tree_b, None, pose_b,
                     descend=DescendRule[args.descend.upper()], trace=True)  # fmt: skip
    containment = pair_containment(mesh_a, mesh_b, None, pose_b, result)
    trace = result.trace
    levels = [
        {"level": d, "tested": int(t), "overlapping": int(o), "leaf_pairs": int(lp)}
        for d, (t, o, lp) in enumerate(
            zip(trace.tested_per_level, trace.overlapping_per_level, trace.leaf_pairs_per_level)
        )
    ]
    src_a = mesh_a.source_face_ids[result.pairs[:, 0]]
    src_b = mesh_b.source_face_ids[result.pairs[:, 1]]
    return {
        "mesh_a": {"path": str(args.mesh_a), "triangles": mesh_a.n_faces,
                   "degenerate": mesh_a.n_degenerate},
        "mesh_b": {"path": str(args.mesh_b), "triangles": mesh_b.n_faces,
                   "degenerate": mesh_b.n_degenerate},
        "split": split.name.lower(),
        "leaf_size": args.leaf_size,
        "pairs": result.pairs.tolist(),
        "source_pairs": np.stack([src_a, src_b], axis=1).tolist(),
        "kinds": result.kinds.tolist(),
        "containment": containment.as_dict(),
        "counters": {
            "bv_tests": result.counters.n_bv_tests,
            "bv_overlaps": result.counters.n_bv_overlaps,
            "leaf_pairs": result.counters.n_leaf_pairs,
            "tri_tests": result.counters.n_tri_tests,
            "contacts": result.counters.n_contacts,
        },
        "levels": levels,
        "timings_ms": {
            "load": 1e3 * (t1 - t0),
            "build": 1e3 * (t2 - t1),
            "traverse": 1e3 * result.timings["traverse"],
            "tritri": 1e3 * result.timings["tritri"],
        },
    }


def format_report(report: dict, max_pairs: int) -> str:
    """The text form of :func:`run_contacts`'s report."""
    from core.collide.tritri import ContactKind

    a, b, c = report["mesh_a"], report["mesh_b"], report["counters"]
    lines = [
        f"A: {a['path']} ({a['triangles']} triangles)",
        f"B: {b['path']} ({b['triangles']} triangles)",
        f"tree: {report['split']} split, leaf size {report['leaf_size']}",
        f"contacts: {c['contacts']} triangle pairs",
    ]
    if "containment" in report:
        lines.append(f"containment: {report['containment']['text']}")
    pairs = report["pairs"]
    for (ia, ib), kind in list(zip(pairs, report["kinds"]))[:max_pairs]:
        lines.append(f"  A {ia:>8}  B {ib:>8}  {ContactKind(kind).name.lower()}")
    if len(pairs) > max_pairs:
        lines.append(f"  ... and {len(pairs) - max_pairs} more (--json lists all)")
    lines.append(
        f"BV tests {c['bv_tests']}, overlapping {c['bv_overlaps']}, leaf pairs {c['leaf_pairs']}, "
        f"triangle tests {c['tri_tests']}"
    )
    lines.append("level  tested  overlapping  leaf pairs")
    for row in report["levels"]:
        lines.append(
            f"{row['level']:>5} {row['tested']:>7} {row['overlapping']:>12} {row['leaf_pairs']:>11}"
        )
    t = report["timings_ms"]
    lines.append(
        f"time: load {t['load']:.1f} ms, build {t['build']:.1f} ms, "
        f"traverse {t['traverse']:.2f} ms, triangle tests {t['tritri']:.2f} ms"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "warmup":
        from core.warmup import warm_up

        warm_up(verbose=not args.quiet)
        return 0
    try:
        report = run_contacts(args)
    except (BVHLabError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report))
    else:
        print(format_report(report, args.max_pairs))
    return 0
