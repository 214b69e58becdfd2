"""``python -m core audit LOG [--max-listed N] [--json]``: check an engine's contact log.

Reads a contact log (:mod:`core.lab.audit`, format in docs/command-line.md, "Contact logs") and
checks every frame against the exact answer on the log's coordinates. Exit status 0 when the engine
agrees on every frame, 1 when a frame disagrees, 2 for a bad log or option (one line, as every
sub-command). The parser and ``main`` live in :mod:`core.cli`.
"""

from __future__ import annotations

from core.cli.options import add_command

#: Differing pairs listed per frame in text (all are counted; --json lists every one).
DEFAULT_PAIRS_LISTED = 10

#: Exit status of a log the engine got wrong somewhere (a readable log, a wrong engine).
EXIT_DISAGREES = 1

AUDIT_EPILOG = """\
Per frame: "agrees (N pairs)" or the pairs only the engine reports and the pairs it missed,
each with its exact gap: 0 means the triangles touch or cross (a missed pair is a missed
contact), a positive gap means they are apart (the engine reported a pair that does not
touch). The exact answer is BVH Lab's query with exact predicates on the log's own
coordinates (B moved into A's frame in float64, as every query does).

Exit status: 0 every frame agrees; 1 a frame disagrees; 2 a bad log or option.

--json writes one JSON object: "log", "engine", "mesh_a", "mesh_b", "n_frames",
"n_disagreeing", "disagreeing_frames" and "frames", a list of {"frame", "line", "agrees",
"n_engine", "n_exact", "only_engine", "missed"}, each pair {"a", "b", "exact_gap"} (and
"engine_distance" for the engine's own pairs when the log gives distances).
"""


def add_audit_parser(sub, integer) -> None:
    """Add the ``audit`` sub-command to ``sub`` (the sub-parsers of ``python -m core``)."""
    a = add_command(
        sub,
        "audit",
        help="check an engine's contact log frame by frame against the exact answer",
        description="Read a contact log (JSON lines: a header naming the two meshes, then one "
        "line per frame with the poses or vertex files and the triangle pairs the engine "
        "reported) and list, per frame, the pairs only the engine reports and the pairs it "
        "missed, each with its exact gap.",
        epilog=AUDIT_EPILOG,
    )
    a.add_argument("log", help="the contact log (.jsonl)")
    a.add_argument("--max-listed", type=integer, default=DEFAULT_PAIRS_LISTED, metavar="N",
                   help=f"in text, list at most N differing pairs per frame (default "
                   f"{DEFAULT_PAIRS_LISTED}); all are counted")  # fmt: skip
    a.add_argument("--json", action="store_true", help="print one JSON object")


def run_audit(args) -> tuple[dict, list]:
    """``(report, audits)`` of ``args.log``: the JSON report and the per-frame audits."""
    from core.lab.audit import audit_log, audit_report, read_contact_log

    if args.max_listed < 0:
        raise ValueError(f"--max-listed must be at least 0, got {args.max_listed}")
    log = read_contact_log(args.log)
    audits = audit_log(log)
    return audit_report(log, audits), audits


def _pair_words(pair, gap) -> str:
    gap_words = "gap not computed" if gap != gap else (
        "touching" if gap == 0.0 else f"apart by {gap:.3g}")
    return f"({int(pair[0])}, {int(pair[1])}) {gap_words}"


def format_audit(report: dict, audits: list, max_listed: int = DEFAULT_PAIRS_LISTED) -> str:
    """The text report: one line per frame, then the differing pairs of each disagreeing
    frame (at most ``max_listed`` of each kind), then the summary."""
    engine = report["engine"] or "the engine"
    lines = [f"contact log {report['log']}: {engine}, {report['mesh_a']} against "
             f"{report['mesh_b']}, {report['n_frames']:,} frames"]
    for audit in audits:
        lines.append(audit.text())
        for title, pairs, gaps in (("only the engine reports", audit.only_engine,
                                    audit.gap_only_engine),
                                   ("missed", audit.missed, audit.gap_missed)):
            shown = min(len(pairs), max_listed)
            for k in range(shown):
                lines.append(f"  {title}: {_pair_words(pairs[k], gaps[k])}")
            if len(pairs) > shown:
                lines.append(f"  ... and {len(pairs) - shown:,} more {title}")
    if report["n_disagreeing"]:
        frames = ", ".join(str(f) for f in report["disagreeing_frames"][:20])
        more = "" if report["n_disagreeing"] <= 20 else ", ..."
        lines.append(f"{engine} disagrees with the exact answer on "
                     f"{report['n_disagreeing']:,} of {report['n_frames']:,} frames: "
                     f"{frames}{more}")
    else:
        lines.append(f"{engine} agrees with the exact answer on every frame")
    return "\n".join(lines)


def audit_exit_status(report: dict) -> int:
    """0 when every frame agrees, :data:`EXIT_DISAGREES` otherwise."""
    return EXIT_DISAGREES if report["n_disagreeing"] else 0
