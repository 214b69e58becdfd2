"""``python -m core tree MESH [--split RULE] [--leaf-size K] --out FILE``: write our tree.

Builds the AABB tree of one mesh file as ``contacts`` would and writes it in the tree file
format (:mod:`core.bvh.treefile`; ``.json`` or ``.npz`` by the suffix of ``FILE``), then
prints one line. The command line parser and ``main`` live in :mod:`core.cli`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from core.cli.options import mesh_arg

#: How a split rule is named in the one-line report.
_RULE_WORDS = {"SAH": "SAH", "LBVH": "LBVH", "OBB": "OBB"}


def add_tree_parser(sub, rule_names: list[str], integer) -> None:
    """Add the ``tree`` sub-command to ``sub`` (the sub-parsers of ``python -m core``)."""
    t = sub.add_parser(
        "tree",
        help="build a mesh's tree and write it to a tree file (.json or .npz)",
        description="Build the AABB tree of MESH and write it to FILE in the tree file "
        "format (JSON with one node's box per line, or a NumPy archive), as docs/file-formats.md "
        "describes; prints one line.",
    )
    mesh_arg(t)
    t.add_argument("--split", choices=rule_names, default="midpoint",
                   help="split rule (default: midpoint, van den Bergen)")  # fmt: skip
    t.add_argument("--leaf-size", type=integer, default=1, metavar="K",
                   help="most triangles per leaf (default 1)")  # fmt: skip
    t.add_argument("--out", required=True, metavar="FILE",
                   help="the tree file to write: .json or .npz")  # fmt: skip


def rule_words(rule) -> str:
    """``"SAH split"``, ``"midpoint split"``: a :class:`SplitRule` for people."""
    return f"{_RULE_WORDS.get(rule.name, rule.name.lower())} split"


def run_tree(args: argparse.Namespace) -> str:
    """Build and write as the arguments say; return the line to print.

    Raises
    ------
    ValueError, BVHLabError, OSError
        One-line errors: a bad option, an unreadable mesh, a file that cannot be written.
    """
    from core.bvh import SplitRule, build_tree
    from core.bvh.treefile import SUFFIXES, TreeFileError, write_tree
    from core.io import load_mesh

    if args.leaf_size < 1:
        raise ValueError(f"--leaf-size must be at least 1, got {args.leaf_size}")
    out = Path(args.out)
    # Checked before a build that may take seconds.
    if out.is_dir():
        raise TreeFileError(out, "is a directory; --out names the file to write")
    if out.suffix.lower() not in SUFFIXES:
        raise TreeFileError(out, f"unknown tree file type {out.suffix or '(none)'!r}; use "
                                 f"{' or '.join(SUFFIXES)}")  # fmt: skip
    mesh = load_mesh(args.mesh)
    rule = SplitRule[args.split.upper()]
    tree = build_tree(mesh, rule, args.leaf_size)
    write_tree(out, tree)
    return (f"wrote {tree.n_nodes:,} nodes of {Path(args.mesh).name} ({rule_words(rule)}, "
            f"leaf size {args.leaf_size}) to {args.out}")  # fmt: skip
