"""Command line: ``python -m core SUB-COMMAND ...``, one module per sub-command.

- ``contacts A B ...`` (:mod:`core.cli.contacts`, ``--steps`` in :mod:`core.cli.steps`)
- ``distance A B ...`` (:mod:`core.cli.distance`)
- ``tree MESH --out FILE`` (:mod:`core.cli.tree`)
- ``quality MESH`` (:mod:`core.cli.quality`)
- ``validate MESH --tree FILE`` (:mod:`core.cli.validate`)
- ``experiment NAME`` (:mod:`core.cli.experiment`)
- ``audit LOG`` (:mod:`core.cli.audit`)
- ``diff MESH --tree A --tree B`` (:mod:`core.cli.diff`)
- ``warmup`` (:mod:`core.cli.warmup`)

Each module adds its sub-parser (``add_*_parser``) and runs it; :mod:`core.cli.options` holds
what they share and :mod:`core.cli.output` writes a report as JSON or text. This module
assembles the parser and dispatches (:func:`main`).
"""

from __future__ import annotations

import sys

from core.cli import output
from core.cli.options import Parser, bv_names, rule_names, whole_number
from core.errors import BVHLabError


def build_parser() -> Parser:
    """The parser of ``python -m core`` with every sub-command."""
    from core.bvh import SplitRule
    from core.cli.audit import add_audit_parser
    from core.cli.contacts import add_contacts_parser
    from core.cli.diff import add_diff_parser
    from core.cli.distance import add_distance_parser
    from core.cli.experiment import add_experiment_parser
    from core.cli.quality import add_quality_parser
    from core.cli.tree import add_tree_parser
    from core.cli.validate import add_validate_parser
    from core.cli.warmup import add_warmup_parser

    parser = Parser(prog="python -m core", description="BVH Lab collision engine, headless.")
    sub = parser.add_subparsers(dest="command", required=True)
    add_contacts_parser(sub)
    add_distance_parser(sub)
    add_tree_parser(sub, rule_names(SplitRule), whole_number)
    add_quality_parser(sub, rule_names(SplitRule), bv_names(), whole_number)
    add_validate_parser(sub, whole_number)
    add_experiment_parser(sub)
    add_audit_parser(sub, whole_number)
    add_diff_parser(sub)
    add_warmup_parser(sub, whole_number)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m core`` with ``argv`` (default: the process's arguments); the exit
    status (2 and one line on standard error for bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "warmup":
        from core.cli.warmup import run_warmup

        return run_warmup(args)
    try:
        return _run(args)
    except (BVHLabError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        hint = " (--max-pairs N lists fewer pairs)" if args.command == "contacts" else ""
        print(f"error: out of memory for this query{hint}", file=sys.stderr)
        return 2


def _run(args) -> int:
    """Run one sub-command other than ``warmup``; its exit status."""
    if args.command == "tree":
        from core.cli.tree import run_tree

        print(run_tree(args))
        return 0
    if args.command == "experiment":
        from core.cli.experiment import run_experiment_command

        return run_experiment_command(args)
    if args.command == "quality":
        from core.bv import get_kind
        from core.cli.quality import format_quality, run_quality

        report = run_quality(args)
        output.print_report(args, report,
                            lambda: format_quality(report, get_kind(args.bv).people_name))
        return 0
    if args.command == "validate":
        from core.cli.validate import exit_status, format_validate, run_validate

        report = run_validate(args)
        output.print_report(args, report, lambda: format_validate(report))
        return exit_status(report)
    if args.command == "diff":
        from core.cli.diff import format_diff, run_diff

        report = run_diff(args)
        output.print_report(args, report, lambda: format_diff(report))
        return 0
    if args.command == "audit":
        from core.cli.audit import audit_exit_status, format_audit, run_audit

        report, audits = run_audit(args)
        output.print_report(args, report, lambda: format_audit(report, audits, args.max_listed))
        return audit_exit_status(report)
    if args.command == "distance":
        from core.cli.distance import format_distance, run_distance

        report = run_distance(args)
        output.print_report(args, report, lambda: format_distance(report))
        return 0
    from core.cli.contacts import format_report, run_contacts

    report = run_contacts(args)
    output.print_report(args, report, lambda: format_report(report))
    return 0
