"""``python -m viewer [MESH ...]`` opens the window; ``--benchmark SCENE --frames N`` measures
off-screen, ``--benchmark SCENE --interactive`` in the window;
``--scene S --frames N --record FILE`` records and ``--replay FILE`` replays off-screen;
``--lesson NAME`` opens a lesson, ``--lesson NAME --export FILE.mp4`` renders it to a video."""

from __future__ import annotations

import argparse
import sys

import viewer.start_time  # noqa: F401  first: where /proc is missing, it starts the clock


class _OneLineParser(argparse.ArgumentParser):
    """A bad option is one line on stderr (``error: ...``) and exit status 2, as in ``core``."""

    def error(self, message):
        self.exit(2, f"error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    from core.bv import BV_KINDS, ObbFit
    from core.bvh import SplitRule
    from viewer.bench.interactive import BENCHMARK_SCENES
    from viewer.scenes import SCENES
    from viewer.words.choices import descend_choices

    parser = _OneLineParser(
        prog="bvh-lab", description="See collision detection work, level by level.")
    parser.add_argument("meshes", nargs="*", help="mesh files (OBJ, STL, PLY, OFF, VTK, VTP)")
    parser.add_argument("--scene", choices=list(SCENES), help="built-in scene to open")
    parser.add_argument("--benchmark", metavar="SCENE",
                        choices=[*SCENES, *BENCHMARK_SCENES],
                        help="run SCENE off-screen and print median ms per phase and FPS")
    parser.add_argument("--interactive", action="store_true",
                        help="with --benchmark: play SCENE in the real window (under the "
                             "display given, e.g. xvfb-run) and print one line: fps, longest "
                             "GUI block, core ms in the window and in the off-screen benchmark")
    parser.add_argument("--every-analysis", action="store_true",
                        help="with --interactive: switch on every optional analysis first")
    parser.add_argument("--frames", type=int,
                        help="benchmark or --record frames (default 60; --interactive 300)")
    parser.add_argument("--update", choices=("refit", "rebuild", "auto"),
                        help="tree update mode (benchmark default refit; --replay: recorded)")
    parser.add_argument("--bv", choices=list(BV_KINDS),
                        help="bounding volume (benchmark default aabb, the tree's own boxes; "
                             "--replay: the recorded one)")
    parser.add_argument("--obb-fit", choices=[m.name.lower() for m in ObbFit],
                        help="with --bv obb, the OBB fit (benchmark default surface; "
                             "--replay: recorded)")
    parser.add_argument("--split", choices=[m.name.lower() for m in SplitRule],
                        help="split rule (benchmark default midpoint; --replay: recorded)")
    parser.add_argument("--descend", choices=[name.lower() for name, *_ in descend_choices()],
                        help="which node of an overlapping pair is split (--replay: recorded)")
    parser.add_argument("--record", metavar="FILE",
                        help="run --frames frames of --scene off-screen and save the recording "
                             "to FILE (.bvhrec)")
    parser.add_argument("--replay", metavar="FILE",
                        help="replay a recording with --bv/--split/--update/--descend/--obb-fit "
                             "and print per frame what changed; exit 1 if contacts differ")
    parser.add_argument("--json", action="store_true",
                        help="with --replay: print one JSON object")
    parser.add_argument("--full-resolution", action="store_true",
                        help="benchmark: draw big meshes with every triangle")
    parser.add_argument("--lesson", metavar="NAME",
                        help="a built-in lesson (aabb-levels, tandem-traversal, aabb-vs-obb, "
                             "refit-vs-rebuild, partitions-vs-hierarchies) or a .toml lesson "
                             "file: opened in the window, or with --export rendered to a video")
    parser.add_argument("--export", metavar="FILE",
                        help="with --lesson: render the lesson off-screen to FILE (.mp4 or "
                             ".gif), each step held with its caption")
    parser.add_argument("--size", metavar="WxH",
                        help="with --export: video size in pixels (default 1280x720); with "
                             "--benchmark: window size (default 1280x800)")
    parser.add_argument("--fps", type=float,
                        help="with --export: frames per second (default 15)")
    parser.add_argument("--soak", type=int, metavar="N",
                        help="run N frames of a deforming scene (--scene, default cloth-sphere) "
                             "off-screen; exit 1 if memory grows > 5 %% or VTK counts grow")
    return parser


def main(argv=None) -> int:
    """Entry point of ``bvh-lab`` and ``python -m viewer``."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:  # a bad option (one line already printed) or --help
        return int(exit_.code or 0)
    if (args.interactive or args.every_analysis) and not args.benchmark:
        print("error: --interactive and --every-analysis need --benchmark SCENE",
              file=sys.stderr, flush=True)
        return 2
    if args.interactive:
        from viewer.bench.interactive import main_interactive

        return main_interactive(args.benchmark, args.size, args.frames, args.every_analysis)
    if args.every_analysis:
        print("error: --every-analysis needs --interactive", file=sys.stderr, flush=True)
        return 2
    if args.frames is None:
        args.frames = 60
    if args.record is not None or args.replay is not None:
        return _record_or_replay(args)
    if args.benchmark and args.size is not None and args.lesson is None:
        return _benchmark(args)
    if args.export is not None or args.size is not None or args.fps is not None:
        if args.lesson is None:
            print("error: --export, --size and --fps need --lesson NAME", file=sys.stderr,
                  flush=True)
            return 2
        if args.export is None:
            print("error: --size and --fps need --export FILE", file=sys.stderr, flush=True)
            return 2
        from viewer.offscreen.lesson_video import main_export

        return main_export(args.lesson, args.export, args.size, args.fps)
    if args.soak is not None:
        from viewer.bench.soak import DEFAULT_SCENE, format_soak, run_soak

        report = run_soak(args.scene or DEFAULT_SCENE, args.soak)
        print(format_soak(report), flush=True)
        return 0 if report.is_ok else 1
    if args.benchmark:
        return _benchmark(args)
    from viewer.app import run

    return run(args.meshes, args.scene, lesson=args.lesson)


def _benchmark(args) -> int:
    """``--benchmark SCENE [--size WxH]``: 0 measured, 2 a bad option (one line on stderr)."""
    from viewer.bench.frame_rate import format_frame_phase_table, run_benchmark
    from viewer.offscreen.lesson_video import LessonVideoError, parse_size

    try:
        size = parse_size(args.size) if args.size is not None else (1280, 800)
    except LessonVideoError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 2
    from viewer.bench.interactive import benchmark_scene

    with benchmark_scene(args.benchmark):
        report = run_benchmark(args.benchmark, args.frames, update=args.update or "refit",
                               window_size=size, is_full_resolution=args.full_resolution,
                               bv=args.bv or "aabb", obb_fit=(args.obb_fit or "surface").upper(),
                               split=(args.split or "midpoint").upper())
    print(format_frame_phase_table(report))
    return 0


def _record_or_replay(args) -> int:
    """``--record`` or ``--replay``: 0 done, 1 contacts differ, 2 a bad file or option."""
    from viewer.offscreen.record_cli import (
        RecordCliError,
        format_record,
        format_replay,
        record_scene,
        replay_file,
        replay_json,
    )

    try:
        if args.record is not None and args.replay is not None:
            raise RecordCliError("--record and --replay cannot be used together")
        if args.record is not None:
            if args.scene is None:
                raise RecordCliError("--record needs --scene (a built-in scene)")
            print(format_record(record_scene(args.scene, args.frames, args.record)), flush=True)
            return 0
        summary = replay_file(args.replay, bv=args.bv, split=args.split, update=args.update,
                              descend=args.descend, obb_fit=args.obb_fit)
    except RecordCliError as exc:
        from viewer.control.error_log import printable

        print(f"error: {printable(str(exc))}", file=sys.stderr, flush=True)
        return 2
    print(replay_json(summary) if args.json else format_replay(summary), flush=True)
    return 0 if summary["all_identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
