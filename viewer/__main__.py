"""``python -m viewer [MESH ...]`` opens the window; ``--benchmark SCENE --frames N`` measures."""

from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    from core.bv import BV_KINDS, ObbFit
    from core.bvh import SplitRule
    from viewer.scenes import SCENES

    parser = argparse.ArgumentParser(
        prog="bvh-lab", description="See collision detection work, level by level.")
    parser.add_argument("meshes", nargs="*", help="mesh files (OBJ, STL, PLY, OFF, VTK, VTP)")
    parser.add_argument("--scene", choices=list(SCENES), help="built-in scene to open")
    parser.add_argument("--benchmark", metavar="SCENE", choices=list(SCENES),
                        help="run SCENE off-screen and print median ms per phase and FPS")
    parser.add_argument("--frames", type=int, default=60, help="benchmark frames (default 60)")
    parser.add_argument("--update", choices=("refit", "rebuild", "auto"), default="refit",
                        help="benchmark tree update mode (default refit)")
    parser.add_argument("--bv", choices=list(BV_KINDS), default="aabb",
                        help="benchmark bounding volume (default aabb, the tree's own boxes)")
    parser.add_argument("--obb-fit", choices=[m.name.lower() for m in ObbFit],
                        default="surface", help="benchmark: with --bv obb, the OBB fit")
    parser.add_argument("--split", choices=[m.name.lower() for m in SplitRule],
                        default="midpoint", help="benchmark split rule (default midpoint)")
    parser.add_argument("--full-resolution", action="store_true",
                        help="benchmark: draw big meshes with every triangle")
    parser.add_argument("--soak", type=int, metavar="N",
                        help="run N frames of a deforming scene (--scene, default cloth-sphere) "
                             "off-screen; exit 1 if memory grows > 5 %% or VTK counts grow")
    return parser


def main(argv=None) -> int:
    """Entry point of ``bvh-lab`` and ``python -m viewer``."""
    args = _parser().parse_args(argv)
    if args.soak is not None:
        from viewer.soak import DEFAULT_SCENE, format_soak, run_soak

        report = run_soak(args.scene or DEFAULT_SCENE, args.soak)
        print(format_soak(report), flush=True)
        return 0 if report.is_ok else 1
    if args.benchmark:
        from viewer.benchmark import format_frame_phase_table, run_benchmark

        report = run_benchmark(args.benchmark, args.frames, update=args.update,
                               is_full_resolution=args.full_resolution, bv=args.bv,
                               obb_fit=args.obb_fit.upper(), split=args.split.upper())
        print(format_frame_phase_table(report))
        return 0
    from viewer.app import run

    return run(args.meshes, args.scene)


if __name__ == "__main__":
    sys.exit(main())
