"""``python -m core diff MESH --tree FILE --tree FILE2 [--offset F] [--json]``: two trees of
one mesh side by side (:mod:`core.lab.tree_diff`). The parser and ``main`` live in
:mod:`core.cli`."""

from __future__ import annotations

from core.cli.options import add_command, mesh_arg
from core.cli.output import number_text

DIFF_EPILOG = """\
Each --tree is a tree file (read over MESH, boxes as given, whatever engine wrote it),
build:RULE or build:RULE:LEAF (BVH Lab builds it: build:sah, build:midpoint:4), or
refit:FILE (the file's topology with its boxes refitted to MESH's vertices). After a
deformation, --tree refit:rest.json --tree rest.json names the nodes that grew most since the
build (the same nodes, the file's boxes as built); --tree refit:rest.json --tree
build:midpoint compares the refitted tree's cost with a fresh build's.

For each tree: nodes, leaves, depth and leaf-size histograms, SAH cost and EPO in total and
per level, and the cost of the same query (MESH against a copy of itself moved by --offset
box diagonals along +x, the copy with BVH Lab's midpoint tree): volume tests, triangle tests,
contacts. Then the nodes whose boxes differ most: nodes of the two trees that hold the same
triangles, ordered by how far their box corners are apart, with both volumes and their ratio
(first over second: above 1, the node grew in the first tree).

--json writes one JSON object: "mesh", "triangles", "query_offset", "trees" (two objects:
"tree", "n_nodes", "n_leaves", "depth_min", "depth_max", "depth_histogram",
"leaf_size_histogram", "sah", "epo", "sah_per_level", "epo_per_level", "query"),
"matched_nodes", "differ_most" (a list of {"node_first", "node_second", "depth_first",
"depth_second", "triangles", "volume_first", "volume_second", "volume_ratio",
"corner_distance"}, node ids as each file names them) and "same_contacts".
"""


def add_diff_parser(sub) -> None:
    """Add the ``diff`` sub-command to ``sub`` (the sub-parsers of ``python -m core``)."""
    d = add_command(
        sub,
        "diff",
        help="two trees of one mesh side by side: counts, histograms, SAH/EPO per level, the "
        "nodes that differ most, the cost of the same query",
        epilog=DIFF_EPILOG,
    )
    mesh_arg(d)
    d.add_argument("--tree", action="append", required=True, metavar="FILE",
                   help="a tree: a tree file, build:RULE[:LEAF] or refit:FILE; give it twice")
    d.add_argument("--offset", type=float, default=None, metavar="F",
                   help="the query's copy is moved by F box diagonals along +x (default 0.1)")
    d.add_argument("--json", action="store_true", help="print one JSON object")


def run_diff(args) -> dict:
    """Load the mesh, make both trees and diff them."""
    import math

    from core.io import load_mesh
    from core.lab.tree_diff import DEFAULT_OFFSET, diff_trees, tree_from_spec
    from core.mesh import check_coordinate_bound

    if len(args.tree) != 2:
        raise ValueError(f"--tree must be given twice (the two trees to compare), got "
                         f"{len(args.tree)}")
    offset = DEFAULT_OFFSET if args.offset is None else args.offset
    if not (math.isfinite(offset) and offset >= 0.0):
        raise ValueError(f"--offset must be a finite number >= 0, got {offset}")
    mesh = load_mesh(args.mesh)
    check_coordinate_bound(mesh, str(args.mesh))
    first, second = (tree_from_spec(spec, mesh) for spec in args.tree)
    report = diff_trees(mesh, first, second, offset)
    report["mesh"] = str(args.mesh)
    return report


def format_diff(report: dict) -> str:
    """The text form: the two trees in two columns, then the nodes that differ most."""
    first, second = report["trees"]
    lines = [f"mesh: {report['mesh']} ({report['triangles']:,} triangles)",
             f"first:  {first['tree']}", f"second: {second['tree']}",
             f"{'':22}{'first':>16}{'second':>16}"]

    def row(words, key, fmt=lambda v: f"{v:,}"):
        lines.append(f"  {words:20}{fmt(first[key]):>16}{fmt(second[key]):>16}")

    row("nodes", "n_nodes")
    row("leaves", "n_leaves")
    row("deepest leaf", "depth_max")
    row("SAH cost", "sah", number_text)
    row("EPO", "epo", number_text)
    for key, words in (("volume_tests", "query volume tests"),
                       ("triangle_tests", "query triangle tests"), ("contacts", "contacts")):
        lines.append(f"  {words:20}{first['query'][key]:>16,}{second['query'][key]:>16,}")
    n_levels = max(len(first["sah_per_level"]), len(second["sah_per_level"]))
    lines.append("  SAH per level:")
    for d in range(n_levels):
        cells = [number_text(t["sah_per_level"][d]) if d < len(t["sah_per_level"]) else "no nodes"
                 for t in (first, second)]
        lines.append(f"    depth {d:<12}{cells[0]:>16}{cells[1]:>16}")
    if not report["same_contacts"]:
        lines.append("contacts differ: a tree whose boxes do not enclose its triangles misses "
                     "some ('python -m core validate' lists its broken nodes)")
    lines.append(f"{report['matched_nodes']:,} nodes hold the same triangles in both trees; "
                 "those whose boxes differ most:")
    for r in report["differ_most"]:
        ratio = "flat second box" if r["volume_ratio"] is None else \
            f"volume x{r['volume_ratio']:.3g}"  # fmt: skip
        lines.append(f"  node {r['node_first']} (depth {r['depth_first']}) / node "
                     f"{r['node_second']} (depth {r['depth_second']}), {r['triangles']:,} "
                     f"triangles: corners {r['corner_distance']:.3g} apart, {ratio}")
    if not report["differ_most"]:
        lines.append("  none: every matched node has the same box in both")
    return "\n".join(lines)
