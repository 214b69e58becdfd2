"""``python -m core experiment NAME [--sizes ...] [--out DIR] [--frames N] [--quick]``: run one
experiment of :mod:`core.experiments`, write ``NAME.png``, ``NAME.svg`` and ``NAME.csv`` and
print their paths and the paragraph reading the result. The parser and ``main`` live in
:mod:`core.cli`.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from core.cli.options import add_command

EXPERIMENT_EPILOG = """\
Files written into --out (default: the current folder):
  NAME.png, NAME.svg  the figure, its caption citing the source on it
  NAME.csv            the data: '# ' lines say the title, the source and what each column
                      is (name (unit): meaning), then the header row and one row per
                      measurement

--sizes takes one or more values separated by spaces or commas, with an optional k
(thousand) or M (million) suffix: "--sizes 1k,4k" is "--sizes 1000 4000". What a size is
depends on the experiment (pcp: triangles per sphere); --quick uses its small test sizes.
"""

_SIZE = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)([kKmM]?)$")
_SUFFIX = {"": 1, "k": 1_000, "K": 1_000, "m": 1_000_000, "M": 1_000_000}


def _experiment_names() -> list[str]:
    from core.experiments import EXPERIMENTS

    return list(EXPERIMENTS)


def add_experiment_parser(sub) -> None:
    """Add the ``experiment`` sub-command to ``sub`` (the sub-parsers of ``python -m core``)."""
    from core.experiments import EXPERIMENTS

    names = _experiment_names()
    listing = "\n".join(f"  {e.name:<12} {e.title}; sizes: {e.sizes_meaning} (default "
                         f"{', '.join(str(s) for s in e.default_sizes)})"
                         for e in EXPERIMENTS.values())  # fmt: skip
    e = add_command(
        sub,
        "experiment",
        help="rerun a classic experiment: figure (PNG, SVG), data (CSV) and its reading",
        description="Run one experiment and write NAME.png, NAME.svg and NAME.csv. "
        "Experiments: " + ", ".join(names) + ".",
        epilog="Experiments:\n" + listing + "\n\n" + EXPERIMENT_EPILOG,
    )
    # No argparse choices: an unknown name gets the same one-line error as a bad size.
    e.add_argument("name", metavar="NAME", help="one of: " + ", ".join(names))
    e.add_argument("--sizes", nargs="+", default=None, metavar="SIZE",
                   help="sizes to run, e.g. '1k,4k' or '1000 4000' (default: the "
                   "experiment's own)")  # fmt: skip
    e.add_argument("--quick", action="store_true",
                   help="use the experiment's small sizes (a run of a few seconds)")
    e.add_argument("--frames", default=None, metavar="N",
                   help="frames of a frame-based experiment (sat-axes, refit)")
    e.add_argument("--out", default=".", metavar="DIR",
                   help="folder for the three files (default: the current folder; created "
                   "if missing)")  # fmt: skip


def parse_sizes(values: list[str]) -> tuple[int, ...]:
    """Sizes from ``--sizes`` words: split at commas, ``k``/``M`` suffixes, whole numbers >= 1.

    Raises
    ------
    ValueError
        One line naming the value that is not a size.
    """
    sizes = []
    for word in values:
        for part in word.split(","):
            part = part.strip()
            if not part:
                continue
            match = _SIZE.match(part)
            if match is None:
                raise ValueError(f"--sizes: {part!r} is not a size (a whole number such as "
                                 f"2000, 4k or 1M)")  # fmt: skip
            value = float(match.group(1)) * _SUFFIX[match.group(2)]
            if value != int(value) or value < 1:
                raise ValueError(f"--sizes: {part!r} is not a whole number of at least 1")
            sizes.append(int(value))
    if not sizes:
        raise ValueError("--sizes needs at least one size")
    return tuple(sizes)


def _frames(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        frames = int(text)
    except ValueError:
        raise ValueError(f"--frames: {text!r} is not a whole number") from None
    if frames < 1:
        raise ValueError(f"--frames must be at least 1, got {frames}")
    return frames


def _output_folder(text: str) -> Path:
    """The ``--out`` folder, made if missing and checked writable BEFORE a long run."""
    folder = Path(text)
    if folder.exists() and not folder.is_dir():
        raise OSError(f"--out {text!r} is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise OSError(f"--out {text!r} is not a writable folder ({reason.lower()})") from None
    return folder


def _terminal_progress(stream):
    """A progress callback writing one overwritten line to ``stream`` (a terminal)."""

    def report(done: int, total: int, what: str) -> None:
        line = f"{done} of {total}: {what}"[:99]
        stream.write("\r" + line.ljust(100))
        stream.flush()

    return report


def run_experiment_command(args: argparse.Namespace, out=None, err=None) -> int:
    """Run ``python -m core experiment`` as ``args`` say; print paths and reading.

    Returns
    -------
    int
        0; bad input raises a one-line ValueError or OSError (``main`` prints it, exit 2).
    """
    from core.experiments import (
        ExperimentOptions,
        Progress,
        get_experiment,
        run_experiment,
        write_outputs,
    )

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    experiment = get_experiment(args.name)
    if args.quick and args.sizes is not None:
        raise ValueError("--quick and --sizes both choose the sizes; give one")
    sizes = parse_sizes(args.sizes) if args.sizes is not None else (
        experiment.quick_sizes if args.quick else None)  # fmt: skip
    frames = _frames(args.frames)
    folder = _output_folder(args.out)
    is_terminal = hasattr(err, "isatty") and err.isatty()
    progress = Progress(_terminal_progress(err) if is_terminal else None)
    options = ExperimentOptions(sizes=sizes, frames=frames)
    try:
        result = run_experiment(args.name, options, progress)
    except KeyboardInterrupt:
        print("\ninterrupted: no files written", file=err)
        return 130
    finally:
        if is_terminal:
            err.write("\r" + " " * 100 + "\r")
            err.flush()
    paths = write_outputs(result, folder)
    for kind in ("png", "svg", "csv"):
        print(f"wrote {paths[kind]}", file=out)
    print("", file=out)
    print(result.reading, file=out)
    slopes = result.summary.get("slopes")
    if slopes:
        print("", file=out)
        print("slope of volume tests against the gap (log-log):", file=out)
        for kind, slope in slopes.items():
            print(f"  {kind:<8} {slope:+.2f}", file=out)
    print(f"\n({result.seconds:.1f} s)", file=out)
    return 0
