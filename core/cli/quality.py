"""``python -m core quality MESH [--split RULE] [--bv KIND] [--leaf-size K] [--tree FILE]
[--traversal-cost C] [--intersection-cost C] [--json]``: the quality of a mesh's tree.

Builds the AABB tree of one mesh file as ``contacts`` would (or reads one from a tree file,
:mod:`core.bvh.treefile`) and reports :func:`core.bvh.metrics.tree_quality` with the chosen
bounding volume. The parser and ``main`` live in :mod:`core.cli`.
"""

from __future__ import annotations

import argparse
import math
import time

from core.cli.options import add_command, mesh_arg
from core.cli.output import number_text

QUALITY_EPILOG = """\
What the numbers mean (C_t = --traversal-cost, the cost of one bounding-volume test;
C_i = --intersection-cost, the cost of one triangle test; both 1 by default):

  sah              SAH cost (MacDonald and Booth 1990): the expected cost of a query that
                   reaches the root, (C_t * sum over internal nodes of A(n) + C_i * sum over
                   leaves of A(n) * triangles(n)) / A(root), A the surface area of the
                   node's bounding volume of the chosen kind. Lower is better.
  epo              effective primitive overlap (Aila, Karras and Laine 2013, eq. 3):
                   sum over nodes of C_n * (area of the triangles NOT under n inside n's
                   volume) / (area of the whole mesh), C_n = C_i for leaves and C_t for
                   internal nodes. 0 when no volume reaches into another node's triangles.
                   null for lss and rss (no exact clipping), with "epo_note" saying why.
  sibling_overlap  mean over internal nodes of volume(left child ∩ right child) /
                   volume(node); null for lss and rss ("sibling_overlap_note").
  depth_histogram  leaves at each depth (root at depth 0); leaf_size_histogram: leaves
                   holding 0, 1, 2, ... triangles.
  memory_bytes     the tree's arrays plus the chosen kind's volumes; mesh_bytes: vertices
                   and faces.
  worst            per measure (sah, epo, sibling_overlap, volume) the 10 worst nodes:
                   node id, depth, triangles under it, its value (its term of the total).
  diagnosis        for the worst nodes (by SAH term, sibling overlap and volume), why each
                   is bad, in words: children overlapping by X % of the node, a long thin
                   triangle in a leaf, a leaf far larger than its sibling, a loose box.
  path             with --node ID or --triangle T: the node (or the leaf holding T) and
                   its ancestors up to the root, each with depth, triangles, SAH term,
                   sibling overlap and volume; "why" on the first.
  seconds          time to build (or read) the tree and measure it, loading excluded.
  violations       with --tree: how many invariants the file's boxes break (a box that does
                   not enclose its children or triangles); 'python -m core validate' lists
                   them. With --tree, "worst" names nodes by the file's ids ("node"), with
                   BVH Lab's beside them ("internal_node"), and "tree" is the file.

--json writes one JSON object; a value that is not finite is written as null.
"""

#: Worst nodes per measure in the text output (the JSON lists ten).
TEXT_WORST = 5
#: Bad nodes whose reasons the text output gives (the JSON gives every diagnosed one).
TEXT_WHY = 3

_METRIC_WORDS = {"sah": "SAH", "epo": "EPO", "sibling_overlap": "sibling overlap",
                 "volume": "volume"}  # fmt: skip


def add_quality_parser(sub, rule_names: list[str], bv_names: list[str], integer) -> None:
    """Add the ``quality`` sub-command to ``sub`` (the sub-parsers of ``python -m core``)."""
    q = add_command(
        sub,
        "quality",
        help="quality of a mesh's tree: SAH cost, EPO, sibling overlap, depth and leaf sizes",
        description="Build the AABB tree of MESH (or read it with --tree) and measure it with "
        "one kind of bounding volume.",
        epilog=QUALITY_EPILOG,
    )
    mesh_arg(q)
    q.add_argument("--split", choices=rule_names, default=None,
                   help="split rule of the build (default: midpoint, van den Bergen)")  # fmt: skip
    q.add_argument("--bv", choices=bv_names, default=None, metavar="KIND",
                   help="bounding volume measured: " + " ".join(bv_names)
                   + " (default aabb: the tree's own boxes; with --tree of a coal file, "
                   "the file's own volumes: obb for OBB, OBBRSS and kIOS, rss for RSS)")
    q.add_argument("--leaf-size", type=integer, default=None, metavar="K",
                   help="most triangles per leaf of the build (default 1)")  # fmt: skip
    q.add_argument("--tree", default=None, metavar="FILE",
                   help="measure the tree in this tree file (.json or .npz written by "
                   "'python -m core tree' or another engine, a coal BVHModel archive or a "
                   "three-mesh-bvh JSON) instead of building one")
    q.add_argument("--traversal-cost", type=float, default=1.0, metavar="C",
                   help="C_t, cost of one bounding-volume test in SAH and EPO (default 1)")
    q.add_argument("--intersection-cost", type=float, default=1.0, metavar="C",
                   help="C_i, cost of one triangle test in SAH and EPO (default 1)")
    q.add_argument("--json", action="store_true", help="print one JSON object")
    q.add_argument("--pair-budget", type=integer, default=None, metavar="N",
                   help="stop with an error when EPO's walk would look at more than N "
                   "(volume, triangle) pairs (default: 1,000 a node, at least 50,000,000; a "
                   "tree whose boxes span the mesh needs nodes x triangles)")  # fmt: skip
    q.add_argument("--node", type=integer, default=None, metavar="ID",
                   help="list this node's path to the root with each ancestor's measures "
                   "and why it is bad (the file's id with --tree)")  # fmt: skip
    q.add_argument("--triangle", type=integer, default=None, metavar="T",
                   help="the same for the leaf that holds triangle T")  # fmt: skip
    q.add_argument("--progress", action="store_true",
                   help="print one line per phase on stderr (default: only when stderr is a "
                   "terminal)")  # fmt: skip


def _constants(args):
    from core.bvh.metrics import CostConstants

    for option, value in (("--traversal-cost", args.traversal_cost),
                          ("--intersection-cost", args.intersection_cost)):  # fmt: skip
        if not (math.isfinite(value) and value > 0.0):
            raise ValueError(f"{option} must be a finite number > 0, got {value:g}")
    return CostConstants(traversal=args.traversal_cost, intersection=args.intersection_cost)


def run_quality(args: argparse.Namespace) -> dict:
    """Load, build or read, and measure as the arguments say; return the report.

    Raises
    ------
    ValueError, BVHLabError, OSError
        One-line errors: a bad option, an unreadable mesh, a bad tree file.
    """
    from core.bvh import SplitRule, build_tree, tree_quality
    from core.bvh.diagnosis import diagnose_worst, find_node, node_row, path_to_root, why_bad
    from core.io import load_mesh
    from core.mesh import check_coordinate_bound

    constants = _constants(args)
    if args.pair_budget is not None and args.pair_budget < 1:
        raise ValueError(f"--pair-budget must be at least 1, got {args.pair_budget}")
    say = _progress_printer(args)
    if args.tree is not None and (args.split is not None or args.leaf_size is not None):
        raise ValueError("--split and --leaf-size choose how a tree is built; with --tree the "
                         "tree comes from the file")  # fmt: skip
    leaf_size = 1 if args.leaf_size is None else args.leaf_size
    if leaf_size < 1:
        raise ValueError(f"--leaf-size must be at least 1, got {leaf_size}")
    say(f"loading {args.mesh}")
    mesh = load_mesh(args.mesh)
    check_coordinate_bound(mesh, str(args.mesh))
    t0 = time.perf_counter()
    imported = None
    if args.tree is not None:
        from core.bvh.tree_formats import read_any_tree

        say(f"reading {args.tree}")
        imported = read_any_tree(args.tree, mesh)
        tree, split = imported.tree, imported.split
    else:
        split = SplitRule[(args.split or "midpoint").upper()]
        tree = build_tree(mesh, split, leaf_size)
    if args.bv is None:
        # A file's own volumes (coal's oriented boxes) are measured by default.
        own = list(imported.volumes) if imported is not None else []
        args.bv = own[0] if own else "aabb"
    quality = tree_quality(mesh, tree, args.bv, constants, pair_budget=args.pair_budget,
                           progress=say)  # fmt: skip
    measures = quality.to_json()
    from_file = {} if imported is None else _file_keys(imported, mesh, measures)
    name = (lambda k: k) if imported is None else imported.file_id
    measures["diagnosis"] = diagnose_worst(mesh, tree, quality, name)
    if args.node is not None or args.triangle is not None:
        file_ids = None if imported is None else imported.file_ids
        node = find_node(tree, args.node, args.triangle, file_ids)
        measures["path"] = [node_row(quality, tree, k, name) for k in path_to_root(tree, node)]
        measures["path"][0]["why"] = why_bad(mesh, tree, node, name)
    seconds = time.perf_counter() - t0
    return {
        "mesh": str(args.mesh),
        "triangles": mesh.n_faces,
        "bv": measures.pop("bv"),
        "split": None if split is None else split.name.lower(),
        "leaf_size": int(tree.leaf_size),
        **measures,
        **from_file,
        "seconds": seconds,
    }


def _file_keys(imported, mesh, measures: dict) -> dict:
    """With ``--tree``: the worst nodes renamed to the file's ids (``node``; BVH Lab's id in
    ``internal_node``), and the keys ``tree`` (the file) and ``violations`` (how many
    invariants its boxes break, :func:`core.bvh.validate.validate_tree`; ``python -m core
    validate`` lists them)."""
    from core.bvh.validate_volumes import validate_imported

    for rows in measures["worst"].values():
        for i, row in enumerate(rows):
            node = row.pop("node")
            rows[i] = {"node": imported.file_id(node), "internal_node": node, **row}
    check = validate_imported(imported, mesh.vertices, max_listed=1)
    return {"tree": str(imported.path), "violations": check.n_found}


def _progress_printer(args):
    """``say(phase)``: one line on stderr per phase when stderr is a terminal or with
    ``--progress`` (a pipe or a log file gets only the report), else nothing."""
    import sys

    if not (args.progress or sys.stderr.isatty()):
        return lambda _phase: None
    start = time.perf_counter()
    return lambda phase: print(f"quality: {phase} ({time.perf_counter() - start:.1f} s)",
                               file=sys.stderr, flush=True)  # fmt: skip


def _histogram(counts: list[int]) -> str:
    return "  ".join(f"{i}: {c:,}" for i, c in enumerate(counts) if c)


def format_quality(report: dict, people_name: str) -> str:
    """The text form of :func:`run_quality`'s report: a short table."""
    c = report["constants"]
    split = "split rule not recorded" if report["split"] is None else \
        f"{report['split']} split"  # fmt: skip
    n_leaves = report["n_leaves"]
    source = f"from {report['tree']} (node ids are the file's), " if "tree" in report else ""
    lines = [
        f"mesh: {report['mesh']} ({report['triangles']:,} triangles)",
        f"tree: {source}{split}, leaf size {report['leaf_size']}; measured with {people_name}",
        f"costs: volume test C_t = {c['traversal']:g}, triangle test C_i = {c['intersection']:g}",
        f"  SAH cost         {number_text(report['sah']):>12}   expected tests of a query at the "
        "root",
        f"  EPO              {number_text(report['epo']):>12}   foreign triangle area inside "
        "volumes",
        f"  sibling overlap  {number_text(report['sibling_overlap']):>12}   mean shared volume of "
        "two children",
        f"  nodes            {report['n_nodes']:>12,}   {n_leaves:,} leaves, depth "
        f"{report['depth_min']} to {report['depth_max']}",
        f"  memory           {report['memory_bytes'] / 1024:>10,.1f} K   tree and volumes "
        f"(mesh {report['mesh_bytes'] / 1024:,.1f} K)",
        f"leaves by depth: {_histogram(report['depth_histogram'])}",
        f"leaves by size:  {_histogram(report['leaf_size_histogram'])}",
    ]
    if "violations" in report:
        n = report["violations"]
        lines.append("invariants: every box encloses its children and triangles" if n == 0
                     else f"invariants: {n:,} violation{'' if n == 1 else 's'}, boxes that do "
                     "not enclose their children or triangles (python -m core validate lists "
                     "them)")  # fmt: skip
    for key in ("epo_note", "sibling_overlap_note"):
        if key in report:
            lines.append(f"note: {report[key]}")
    for metric, rows in report["worst"].items():
        if not rows:
            continue
        cells = ", ".join(f"node {r['node']} ({r['value']:.4g}, depth {r['depth']}, "
                          f"{r['triangles']:,} tri)" for r in rows[:TEXT_WORST])  # fmt: skip
        lines.append(f"worst by {_METRIC_WORDS[metric]}: {cells}")
    diagnosis = report.get("diagnosis", [])
    for row in diagnosis[:TEXT_WHY]:
        lines.append(f"why node {row['node']} is bad: {'; '.join(row['why'])}")
    if len(diagnosis) > TEXT_WHY:
        lines.append(f"  ({len(diagnosis) - TEXT_WHY} more bad nodes in --json's \"diagnosis\")")
    if "path" in report:
        lines.append("path to the root:")
        for row in report["path"]:
            kind = "leaf" if row["leaf"] else "node"
            lines.append(f"  {kind} {row['node']} (depth {row['depth']}, {row['triangles']:,} "
                         f"tri): SAH term {number_text(row['sah'])}, sibling overlap "
                         f"{number_text(row['sibling_overlap'])}, "
                         f"volume {number_text(row['volume'])}")
        why = report["path"][0]["why"]
        lines.append("  why: " + ("; ".join(why) if why else "nothing stands out"))
    lines.append(f"time: {report['seconds']:.2f} s")
    return "\n".join(lines)
