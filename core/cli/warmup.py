"""``python -m core warmup``: compile every numba kernel into the on-disk cache
(:mod:`core.jit.warmup` does the work)."""

from __future__ import annotations

import argparse
import sys


def add_warmup_parser(sub, integer) -> None:
    """Add the ``warmup`` sub-command to ``sub`` (the sub-parsers of ``python -m core``)."""
    w = sub.add_parser("warmup", help="compile the numba kernels into the on-disk cache")
    w.add_argument("--quiet", action="store_true")
    w.add_argument("--jobs", type=int, default=None,
                   help="processes compiling at once (default: one per core)")
    w.add_argument("--progress", action="store_true",
                   help="print 'compiled N of M [KEY] WHAT' as each step finishes")
    w.add_argument("--nice", type=integer, default=0, metavar="N",
                   help="lower the compiling processes' priority by N (0-19)")
    # A compiling process: reads step keys on stdin, answers "done KEY" on stdout.
    w.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)


def run_warmup(args) -> int:
    """Run the warm-up (or one compiling worker) as the options say; the exit status."""
    from core.jit.warmup import run_worker, warm_up

    if args.jobs is not None and args.jobs < 1:
        print(f"error: --jobs must be at least 1, got {args.jobs}", file=sys.stderr)
        return 2
    if not 0 <= args.nice <= 19:
        print(f"error: --nice must be from 0 to 19, got {args.nice}", file=sys.stderr)
        return 2
    if args.worker:
        return run_worker()
    try:
        warm_up(verbose=not args.quiet, jobs=args.jobs, progress=args.progress, nice=args.nice)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
