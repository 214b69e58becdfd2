"""``python -m core validate MESH --tree FILE [--max-listed N] [--json]``: check a tree file.

Reads a tree file over one mesh (:func:`core.bvh.treefile.read_tree`) and checks its
invariants in the mesh's own vertices (:func:`core.bvh.validate.validate_tree`): every box
encloses its children and its triangles. Exit status 0 when it does, 1 with one line per
violation, 2 for a bad file or option (one line, as every sub-command). The parser and
``main`` live in :mod:`core.cli`.
"""

from __future__ import annotations

import argparse
import time

from core.cli.options import add_command, mesh_arg

#: Violations listed without ``--max-listed`` (all are counted).
DEFAULT_MAX_LISTED = 1000

#: Exit status of a tree that breaks an invariant (a readable file, a broken tree).
EXIT_VIOLATIONS = 1

VALIDATE_EPILOG = f"""\
Each violation is one line naming the node by its id in FILE: a child box that sticks out of
its parent's ("node 6 (depth 1): child 0 sticks out by 0.5 along +z") or a triangle that
sticks out of its leaf's box ("node 9 (depth 3): triangle 17 sticks out by 0.01 along -x"),
by how much (mesh units) and along which axis and side, largest first. At most
--max-listed (default {DEFAULT_MAX_LISTED:,}) are listed; all are counted.

Exit status: 0 the tree is valid; 1 it breaks an invariant; 2 a bad file or option.

--json writes one JSON object: "ok", "violations_total", "violations_truncated" and
"violations", a list of {{"node", "internal_node", "depth", "kind", "child", "triangle",
"axis", "size", "text"}} ("node" and "child" are the file's ids, "internal_node" BVH Lab's;
null where a field does not apply).
"""


def add_validate_parser(sub, integer) -> None:
    """Add the ``validate`` sub-command to ``sub`` (the sub-parsers of ``python -m core``)."""
    v = add_command(
        sub,
        "validate",
        help="check a tree file over a mesh: every box encloses its children and triangles",
        description="Read the tree in FILE (written by 'python -m core tree' or another "
        "engine) over MESH and list every node whose box does not enclose its children's "
        "boxes or its triangles.",
        epilog=VALIDATE_EPILOG,
    )
    mesh_arg(v)
    v.add_argument("--tree", required=True, metavar="FILE",
                   help="the tree file to check (.json or .npz, a coal BVHModel archive or "
                   "a three-mesh-bvh JSON)")  # fmt: skip
    v.add_argument("--max-listed", type=integer, default=DEFAULT_MAX_LISTED, metavar="N",
                   help=f"list at most N violations, largest first (default "
                   f"{DEFAULT_MAX_LISTED:,}); all are counted")  # fmt: skip
    v.add_argument("--json", action="store_true", help="print one JSON object")


def violation_row(violation, imported) -> dict:
    """One violation as JSON: the node and child by the file's ids (None where none)."""
    tree = imported.tree
    node = violation.node
    return {
        "node": imported.file_id(node) if node >= 0 else None,
        "internal_node": node if node >= 0 else None,
        "depth": int(tree.depth[node]) if node >= 0 else None,
        "kind": violation.kind.name.lower(),
        "child": imported.file_id(violation.child) if violation.child >= 0 else None,
        "triangle": violation.triangle if violation.triangle >= 0 else None,
        "axis": violation.axis or None,
        "size": violation.size,
        "text": violation.text,
    }


def run_validate(args: argparse.Namespace) -> dict:
    """Load, read and check as the arguments say; return the report.

    Raises
    ------
    ValueError, BVHLabError, OSError
        One-line errors: a bad option, an unreadable mesh, a bad tree file.
    """
    from core.bvh.tree_formats import read_any_tree
    from core.bvh.validate_volumes import validate_imported
    from core.io import load_mesh
    from core.mesh import check_coordinate_bound

    if args.max_listed < 0:
        raise ValueError(f"--max-listed must be at least 0, got {args.max_listed}")
    mesh = load_mesh(args.mesh)
    check_coordinate_bound(mesh, str(args.mesh))
    t0 = time.perf_counter()
    imported = read_any_tree(args.tree, mesh)
    report = validate_imported(imported, mesh.vertices, max_listed=args.max_listed)
    return {
        "mesh": str(args.mesh),
        "triangles": mesh.n_faces,
        "tree": str(args.tree),
        "nodes": int(imported.tree.n_nodes),
        "ok": report.ok,
        "summary": report.summary(),
        "violations_total": report.n_found,
        "violations_truncated": report.n_found > len(report.violations),
        "violations": [violation_row(v, imported) for v in report.violations],
        "seconds": time.perf_counter() - t0,
    }


def format_validate(report: dict) -> str:
    """The text form of :func:`run_validate`'s report: a summary line naming the file, then
    one line per violation listed."""
    lines = [f"{report['tree']} over {report['mesh']}: {report['summary']}"]
    lines += [v["text"] for v in report["violations"]]
    if report["violations_truncated"]:
        more = report["violations_total"] - len(report["violations"])
        lines.append(f"... and {more:,} more (--max-listed N lists more)")
    return "\n".join(lines)


def exit_status(report: dict) -> int:
    """0 when the tree is valid, :data:`EXIT_VIOLATIONS` when it breaks an invariant."""
    return 0 if report["ok"] else EXIT_VIOLATIONS
