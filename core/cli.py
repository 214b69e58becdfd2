"""Command line: ``python -m core contacts A B ...``, ``python -m core distance A B ...``,
``python -m core tree MESH --out FILE`` (:mod:`core.cli_tree`), ``python -m core quality MESH``
(:mod:`core.cli_quality`), ``python -m core validate MESH --tree FILE``
(:mod:`core.cli_validate`), ``python -m core experiment NAME`` (:mod:`core.cli_experiment`),
``python -m core audit LOG`` (:mod:`core.cli_audit`), ``python -m core diff MESH --tree A
--tree B`` (:mod:`core.cli_diff`) and ``python -m core warmup``."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time

import numpy as np

from core.cli_steps import DEFAULT_MAX_STEPS, STEP_LINE_BYTES
from core.errors import BVHLabError

DEFAULT_TEXT_PAIRS = 20
"""Pairs the text output lists without ``--max-pairs`` (JSON lists all)."""

_JSON_ROWS_PER_WRITE = 65536
"""Rows of a pair array formatted per write when streaming JSON: a few MB of text at a time,
instead of one string (and one Python list) for all 26 million pairs of a 2M-triangle mesh
against itself, which ended in a MemoryError."""

# A negative number in any form float() reads: argparse's own test (r"^-\d+$|^-\d*\.\d+$")
# misses exponents, so "-1e-9" was taken for an unknown option.
_NEGATIVE_NUMBER = re.compile(
    r"^-(?:(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|inf(?:inity)?|nan)$", re.IGNORECASE
)


class _Parser(argparse.ArgumentParser):
    """An argument parser that reads every negative number as a value, never as an option.

    Sub-parsers made by :meth:`add_subparsers` are of this class too. No option of this
    command line looks like a number, so nothing is lost.
    """

    def _parse_optional(self, arg_string):
        if _NEGATIVE_NUMBER.match(arg_string):
            return None
        return super()._parse_optional(arg_string)


def _integer(text: str) -> int:
    """An integer option's value: ``"12"``, or a whole number in float form (``"1e6"``)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not (math.isfinite(value) and value == int(value)):
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
    return int(value)

_CONTACTS_EPILOG = """\
Face ids are indices into each file's faces in file order. Polygons with k sides are split
into k - 2 triangles in place (a fan from the first corner), so for files with polygons the
ids count triangles after that split; "source_pairs" in --json maps them back to the
file's own polygon ids.

B is scaled about the origin of its own coordinates, then rotated about that origin, then
translated: x = R (S x_B) + t.

--json writes one JSON object, streamed pair by pair for large answers. "pairs_total" is the
number of contacting pairs; with --max-pairs N only the first N are listed in "pairs",
"source_pairs" and "kinds", and "pairs_truncated" is true. The JSON never holds NaN or
Infinity: a value that is not finite is written as null.

--tree-a / --tree-b FILE run the query with a tree read from a tree file, its boxes as
given (as the app runs a pinned tree); "tree_a" and "tree_b" say which tree each body used.
A tree file is BVH Lab's (.json, .npz), a coal or hpp-fcl BVHModel archive (text, XML,
binary) or three-mesh-bvh's serialize() as JSON, told by its content; a coal or hpp-fcl
file's own volumes (OBB, or the OBB of an OBBRSS) are the query's unless --bv says another kind.
--steps FILE.jsonl writes each volume-pair test in the traversal's order, one JSON object a
line: {"level", "node_a", "node_b", "result" ("overlap" or "culled"), "test" (the test that
culled the pair), "split" ("A", "B", "both"; null for a culled pair or two leaves)}, nodes of
a tree file by the file's ids; as many lines as "bv_tests". More than --max-steps tests
(default 5,000,000) is refused before anything is written.
"""

_DISTANCE_EPILOG = """\
--json writes one JSON object. It never holds NaN or Infinity: a value that is not finite
(none is expected for meshes within the supported coordinate range) is written as null.
"""


def _rule_names(enum_cls) -> list[str]:
    return [m.name.lower() for m in enum_cls]


def _bv_names() -> list[str]:
    from core.bv import BV_KINDS

    return list(BV_KINDS)


def _has_fit_choice(bv: str | None) -> bool:
    """Whether kind ``bv`` (None: no ``--bv``) has the OBB fit choice, so ``--obb-fit``
    applies to it and the report names it."""
    from core.bv import get_kind

    return bv is not None and get_kind(bv).has_fit_choice


def _distance_bv_names() -> list[str]:
    from core.bv import BV_KINDS

    return [name for name, kind in BV_KINDS.items() if kind.bounds_distance]


def _partition_names() -> list[str]:
    from core.partition import PARTITION_KINDS

    return list(PARTITION_KINDS)


def _pose_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--translate-b", nargs=3, type=float, metavar=("X", "Y", "Z"),
                   default=(0.0, 0.0, 0.0), help="translation of B (applied last)")  # fmt: skip
    p.add_argument("--rotate-b", nargs=4, type=float, metavar=("AX", "AY", "AZ", "DEG"),
                   help="rotation of B about axis (AX, AY, AZ) by DEG degrees")  # fmt: skip
    p.add_argument("--scale-b", type=float, default=1.0, metavar="S",
                   help="uniform scale of B about its own origin (applied first)")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    from core.bv import ObbFit
    from core.bvh import SplitRule
    from core.collide import DescendRule

    parser = _Parser(prog="python -m core", description="BVH Lab collision engine, headless.")
    sub = parser.add_subparsers(dest="command", required=True)

    c = sub.add_parser(
        "contacts",
        help="contacting triangle pairs of two meshes",
        epilog=_CONTACTS_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("mesh_a", help="OBJ, STL, PLY, OFF, VTK or VTP file")
    c.add_argument("mesh_b", help="OBJ, STL, PLY, OFF, VTK or VTP file")
    _pose_args(c)
    # None: not given (midpoint and 1 then), so a choice that cannot apply is refused.
    c.add_argument("--split", choices=_rule_names(SplitRule), default=None,
                   help="split rule of both trees (default: midpoint, van den Bergen)")  # fmt: skip
    c.add_argument("--leaf-size", type=_integer, default=None, metavar="K",
                   help="most triangles per leaf (default 1)")  # fmt: skip
    c.add_argument("--tree-a", default=None, metavar="FILE",
                   help="run the query with the tree in this tree file for A (BVH Lab's "
                   ".json or .npz, coal's archive or three-mesh-bvh's JSON, read over A's "
                   "mesh as loaded, volumes used as given) instead of building one")
    c.add_argument("--tree-b", default=None, metavar="FILE",
                   help="the same for B (its boxes scaled with --scale-b)")  # fmt: skip
    c.add_argument("--steps", default=None, metavar="FILE.jsonl",
                   help="write every volume-pair test of the traversal, in order, one JSON "
                   "object a line")  # fmt: skip
    c.add_argument("--max-steps", type=_integer, default=DEFAULT_MAX_STEPS, metavar="N",
                   help=f"with --steps: refuse a traversal of more than N tests (default "
                   f"{DEFAULT_MAX_STEPS:,}, about {DEFAULT_MAX_STEPS * STEP_LINE_BYTES / 1e9:.1f}"
                   f" GB of lines)")  # fmt: skip
    c.add_argument("--descend", choices=_rule_names(DescendRule), default="larger_volume",
                   help="which node of an overlapping pair to split")  # fmt: skip
    c.add_argument("--bv", choices=_bv_names(), default=None, metavar="KIND",
                   help="bounding volume of the traversal: " + " ".join(_bv_names())
                   + " (default: the AABB tree's own boxes)")  # fmt: skip
    c.add_argument("--obb-fit", choices=_rule_names(ObbFit), default="surface",
                   help="with --bv obb: the covariance the box axes come from (vertices, "
                   "surface, hull_vertices, hull_surface; default surface)")  # fmt: skip
    c.add_argument("--partition", choices=_partition_names(), default=None, metavar="KIND",
                   help="find candidate pairs with a spatial partition instead of trees: "
                   + " ".join(_partition_names()))  # fmt: skip
    c.add_argument("--cell-size", type=float, default=None, metavar="H",
                   help="with --partition grid: cell edge length (default: from triangle size)")
    c.add_argument("--max-depth", type=_integer, default=None, metavar="D",
                   help="with --partition octree/kdtree/bsp: deepest level")
    c.add_argument("--capacity", type=_integer, default=None, metavar="N",
                   help="with --partition octree/kdtree/bsp: triangles a leaf may hold")
    c.add_argument("--margin", type=float, default=0.0, metavar="D",
                   help="also report triangle pairs that do not touch but are at most D apart, "
                   "with their distance (default 0: exact contacts only)")  # fmt: skip
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.add_argument("--max-pairs", type=_integer, default=None, metavar="N",
                   help="list at most N pairs (default: 20 in text, all with --json); the "
                   "total is always reported")  # fmt: skip
    c.add_argument("--pair-budget", type=_integer, default=None, metavar="N",
                   help="stop with an error when the traversal meets more than N overlapping "
                   "volume pairs or would test more than N triangle pairs (default "
                   "50,000,000: a tree whose boxes overlap too much ends in one line, not "
                   "out of memory)")  # fmt: skip

    d = sub.add_parser(
        "distance",
        help="minimum distance and closest triangles of two meshes",
        epilog=_DISTANCE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    d.add_argument("mesh_a", help="OBJ, STL, PLY, OFF, VTK or VTP file")
    d.add_argument("mesh_b", help="OBJ, STL, PLY, OFF, VTK or VTP file")
    _pose_args(d)
    d.add_argument("--split", choices=_rule_names(SplitRule), default="midpoint",
                   help="split rule of both trees")  # fmt: skip
    d.add_argument("--leaf-size", type=_integer, default=1, metavar="K")
    d.add_argument("--bv", choices=_distance_bv_names(), default="rss", metavar="KIND",
                   help="volume whose distance bound prunes: "
                   + " ".join(_distance_bv_names()) + " (default rss)")  # fmt: skip
    d.add_argument("--json", action="store_true", help="print one JSON object")

    from core.cli_tree import add_tree_parser

    add_tree_parser(sub, _rule_names(SplitRule), _integer)

    from core.cli_quality import add_quality_parser

    add_quality_parser(sub, _rule_names(SplitRule), _bv_names(), _integer)

    from core.cli_validate import add_validate_parser

    add_validate_parser(sub, _integer)

    from core.cli_experiment import add_experiment_parser

    add_experiment_parser(sub)

    from core.cli_audit import add_audit_parser

    add_audit_parser(sub, _integer)

    from core.cli_diff import add_diff_parser

    add_diff_parser(sub)

    w = sub.add_parser("warmup", help="compile the numba kernels into the on-disk cache")
    w.add_argument("--quiet", action="store_true")
    w.add_argument("--jobs", type=int, default=None,
                   help="processes compiling at once (default: one per core)")
    w.add_argument("--progress", action="store_true",
                   help="print 'compiled N of M [KEY] WHAT' as each step finishes")
    w.add_argument("--nice", type=_integer, default=0, metavar="N",
                   help="lower the compiling processes' priority by N (0-19)")
    # A compiling process: reads step keys on stdin, answers "done KEY" on stdout.
    w.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    return parser


def _check_args(args) -> None:
    if not math.isfinite(args.scale_b) or args.scale_b <= 0.0:
        raise ValueError(f"--scale-b must be a positive number, got {args.scale_b}")
    if args.leaf_size < 1:
        raise ValueError(f"--leaf-size must be at least 1, got {args.leaf_size}")
    if not all(math.isfinite(x) for x in args.translate_b):
        raise ValueError("--translate-b needs three finite numbers")
    if args.rotate_b is not None:
        if not all(math.isfinite(x) for x in args.rotate_b):
            raise ValueError("--rotate-b needs four finite numbers")
        if not any(args.rotate_b[:3]):
            raise ValueError("--rotate-b axis must not be zero")
    cell_size = getattr(args, "cell_size", None)
    if cell_size is not None and not (math.isfinite(cell_size) and cell_size > 0.0):
        raise ValueError(f"--cell-size must be a positive number, got {cell_size}")
    for option, least in (("max_depth", 0), ("capacity", 1), ("max_pairs", 0),
                          ("pair_budget", 1)):  # fmt: skip
        value = getattr(args, option, None)
        if value is not None and value < least:
            name = "--" + option.replace("_", "-")
            raise ValueError(f"{name} must be at least {least}, got {value}")


def _check_margin(args) -> None:
    if not (math.isfinite(args.margin) and args.margin >= 0.0):
        raise ValueError(f"--margin must be a finite distance >= 0, got {args.margin}")
    if args.margin > 0.0 and args.partition is not None:
        raise ValueError("--margin works with the tree traversal, not with --partition")


def _near_report(result) -> dict:
    """The near-contact keys of a contacts report (empty lists with margin 0)."""
    return {
        "margin": result.margin,
        "near_pairs": result.near_pairs.tolist(),
        "near_distances": result.near_distances.tolist(),
    }


def contacts_request(args):
    """The :class:`core.request.CollisionRequest` the ``contacts`` options ask for (trace on:
    the report lists the levels)."""
    from core.bv import ObbFit
    from core.bvh import SplitRule
    from core.collide import DescendRule
    from core.collide.budget import DEFAULT_PAIR_BUDGET
    from core.request import CollisionRequest

    params = {}
    if args.partition is not None:
        for option in ("cell_size", "max_depth", "capacity"):
            if getattr(args, option) is not None:
                params[option] = getattr(args, option)
    return CollisionRequest(
        bv=args.bv if args.bv is not None else "aabb",
        obb_fit=ObbFit[args.obb_fit.upper()],
        split=SplitRule[args.split.upper()],
        leaf_size=args.leaf_size,
        descend=DescendRule[args.descend.upper()],
        trace=True,
        margin=args.margin,
        partition=args.partition,
        partition_params=params,
        pair_budget=DEFAULT_PAIR_BUDGET if args.pair_budget is None else args.pair_budget,
    )


def _check_tree_files(args) -> None:
    """Refuse options that cannot apply with ``--tree-a`` / ``--tree-b`` / ``--steps``, then
    fill in the build defaults (midpoint split, leaf size 1)."""
    files = [name for name, path in (("--tree-a", args.tree_a), ("--tree-b", args.tree_b))
             if path is not None]  # fmt: skip
    if args.partition is not None:
        for name in files + (["--steps"] if args.steps is not None else []):
            raise ValueError(f"{name} works with the tree traversal, not with --partition")
    if len(files) == 2 and (args.split is not None or args.leaf_size is not None):
        raise ValueError("--split and --leaf-size choose how BVH Lab builds a tree; with "
                         "--tree-a and --tree-b both trees come from files")  # fmt: skip
    if args.max_steps < 0:
        raise ValueError(f"--max-steps must be at least 0, got {args.max_steps}")
    if args.steps is not None and os.path.isdir(args.steps):
        raise ValueError(f"--steps {args.steps}: is a directory; name the file to write")
    args.split = "midpoint" if args.split is None else args.split
    args.leaf_size = 1 if args.leaf_size is None else args.leaf_size


def _tree_words(imported, path, request) -> dict:
    """Which tree a body's query used: ``file`` (the tree file, or None), ``nodes`` and
    ``text`` for people."""
    if imported is not None:
        note = ""
        if imported.volumes and request.bv in imported.volumes:
            note = f"; {imported.volume_note}"
        elif imported.volumes:
            note = (f"; {request.bv} volumes fitted to its nodes (the file's own: "
                    f"{', '.join(imported.volumes)}, with --bv)")
        return {"file": str(path), "nodes": int(imported.tree.n_nodes),
                "text": f"tree from {path} ({imported.tree.n_nodes:,} nodes){note}"}  # fmt: skip
    return {"file": None, "nodes": None,
            "text": f"BVH Lab's AABB tree ({request.split.name.lower()} split, leaf size "
                    f"{request.leaf_size})"}  # fmt: skip


def run_contacts(args) -> dict:
    """Load, pose, build (or read) and collide as the arguments say; return the report.

    With ``--tree-a`` / ``--tree-b`` the body's tree is read from the file over its mesh as
    loaded (``core.bvh.treefile.read_tree``) and the query runs with its boxes exactly as
    given, as the app runs a tree pinned to a body (``FramePipeline.pin_tree``); B's boxes
    are scaled with ``--scale-b`` as its vertices are. With ``--steps`` the traversal's
    volume-pair tests are written in order (:mod:`core.cli_steps`).
    """
    from core.bvh import build_trees
    from core.collide.dispatch import run_query
    from core.containment import pair_containment
    from core.lab.tables import level_rows

    _check_margin(args)
    _check_tree_files(args)
    t0 = time.perf_counter()
    mesh_a, mesh_b, pose_b, file_trees, imported = _load_posed(args, (args.tree_a,
                                                                      args.tree_b))
    t1 = time.perf_counter()
    if args.bv is None:
        # A tree file that brings its own volumes (coal's oriented boxes) is queried with
        # them: its kind for both bodies (a body without such a file gets that kind fitted).
        kinds = [next(iter(i.volumes)) for i in imported if i is not None and i.volumes]
        args.bv = kinds[0] if kinds else None
    request = contacts_request(args)
    if request.partition is not None:
        return _partition_report(args, request, mesh_a, mesh_b, pose_b, 1e3 * (t1 - t0))
    split = request.split
    # The bodies without a tree file get BVH Lab's (both at once, one thread each).
    to_build = [mesh for tree, mesh in zip(file_trees, (mesh_a, mesh_b)) if tree is None]
    built = iter(build_trees(to_build, split, request.leaf_size))
    trees = [tree if tree is not None else next(built) for tree in file_trees]
    t2 = time.perf_counter()
    result = run_query(request, mesh_a, mesh_b, None, pose_b, trees=tuple(trees))
    if args.steps is not None:
        _write_steps(args, request, (mesh_a, mesh_b), trees, pose_b, result, imported)
    containment = pair_containment(mesh_a, mesh_b, None, pose_b, result)
    levels = [{"level": row.level, "tested": row.tested, "overlapping": row.overlapping,
               "leaf_pairs": row.leaf_pairs} for row in level_rows(result.trace)]
    files = [args.tree_a, args.tree_b]
    is_built = any(i is None for i in imported)
    return {
        **_contacts_common(args, mesh_a, mesh_b, result, containment),
        **_near_report(result),
        "split": split.name.lower() if is_built else None,
        "leaf_size": args.leaf_size if is_built else None,
        "tree_a": _tree_words(imported[0], files[0], request),
        "tree_b": _tree_words(imported[1], files[1], request),
        **({"bv": args.bv} if args.bv is not None else {}),
        **({"obb_fit": args.obb_fit} if _has_fit_choice(args.bv) else {}),
        **({"steps": {"file": str(args.steps), "lines": result.counters.n_bv_tests}}
           if args.steps is not None else {}),  # fmt: skip
        "counters": {
            "bv_tests": result.counters.n_bv_tests,
            "bv_overlaps": result.counters.n_bv_overlaps,
            "leaf_pairs": result.counters.n_leaf_pairs,
            "tri_tests": result.counters.n_tri_tests,
            "contacts": result.counters.n_contacts,
        },
        "levels": levels,
        "timings_ms": {
            "load": 1e3 * (t1 - t0),
            "build": 1e3 * (t2 - t1),
            "traverse": 1e3 * result.timings["traverse"],
            "tritri": 1e3 * result.timings["tritri"],
        },
    }


def _write_steps(args, request, meshes, trees, pose_b, result, imported) -> None:
    """``--steps``: the traversal's pair tests, ordered as the app's stepper orders them."""
    from types import SimpleNamespace

    from core.cli_steps import check_steps_budget, write_steps
    from core.lab.steps import traversal_steps

    check_steps_budget(int(result.counters.n_bv_tests), args.max_steps)
    # What traversal_steps reads of a frame: the query's request, meshes, trees, poses and
    # result (the volumes of another kind are fitted again, as for a stored frame).
    frame = SimpleNamespace(request=request, meshes=list(meshes), trees=list(trees),
                            poses=[None, pose_b], result=result, volumes=None,
                            self_results=None)  # fmt: skip
    file_ids = tuple(None if i is None else i.file_ids for i in imported)
    try:
        write_steps(args.steps, traversal_steps(frame, file_ids), file_ids)
    except OSError as exc:
        raise OSError(f"--steps {args.steps}: cannot write ({exc.strerror or exc})") from None


def _pairs_listed(args, n_pairs: int) -> int:
    """How many pairs the report lists: ``--max-pairs``, else 20 in text and all in JSON."""
    if args.max_pairs is not None:
        return min(n_pairs, args.max_pairs)
    return n_pairs if args.json else min(n_pairs, DEFAULT_TEXT_PAIRS)


def _contacts_common(args, mesh_a, mesh_b, result, containment) -> dict:
    """Meshes, pairs (file ids and source ids), kinds and containment of a contacts report.

    The pair lists stay numpy arrays (``(c, 2) int32``, ``(c, 2) int64``, ``(c,) int8``), cut
    to the pairs listed: :func:`write_json` streams them, so a huge answer is never one list.
    """
    n_total = int(result.pairs.shape[0])
    listed = result.pairs[: _pairs_listed(args, n_total)]
    src_a = mesh_a.source_face_ids[listed[:, 0]]
    src_b = mesh_b.source_face_ids[listed[:, 1]]
    return {
        "mesh_a": {"path": str(args.mesh_a), "triangles": mesh_a.n_faces,
                   "degenerate": mesh_a.n_degenerate},
        "mesh_b": {"path": str(args.mesh_b), "triangles": mesh_b.n_faces,
                   "degenerate": mesh_b.n_degenerate},
        "pairs": listed,
        "source_pairs": np.stack([src_a, src_b], axis=1),
        "kinds": result.kinds[: listed.shape[0]],
        "pairs_total": n_total,
        "pairs_truncated": bool(listed.shape[0] < n_total),
        "containment": containment.as_dict(),
    }  # fmt: skip


def _partition_report(args, request, mesh_a, mesh_b, pose_b, load_ms: float) -> dict:
    """The contacts report when candidates come from a spatial partition."""
    from core.collide.dispatch import run_query
    from core.containment import pair_containment

    result = run_query(request, mesh_a, mesh_b, None, pose_b)
    containment = pair_containment(mesh_a, mesh_b, None, pose_b, result)
    return {
        **_contacts_common(args, mesh_a, mesh_b, result, containment),
        "partition": args.partition,
        "counters": {
            "candidates": int(result.n_candidates),
            "candidates_before_dedup": int(result.n_raw_candidates),
            "tri_tests": int(result.n_tri_tests),
            "contacts": int(result.n_contacts),
            "multi_cell_triangles": [int(x) for x in result.n_multi_cell_triangles],
            "shared_cells": int(result.cells.shape[0]),
        },
        "timings_ms": {"load": load_ms, **{k: 1e3 * v for k, v in result.timings.items()}},
    }


def _load_posed(args, tree_files=(None, None)):
    """Both meshes as loaded, B's pose, and the trees read from ``tree_files`` (one path or
    None per body); B's scale is moved into its vertices and its tree's boxes.

    The queries apply a pose's scale the same way (:func:`core.collide.query.rigid_body`);
    doing it here once keeps the report's triangle counts and bounds those of the scaled B.
    A tree file is read over the mesh as loaded (its boxes are in the file's coordinates).

    Returns
    -------
    mesh_a, mesh_b : TriMesh
    pose_b : Pose
        Rigid.
    trees : [Tree or None, Tree or None]
        With ``tree_files``: each body's tree from its file (B's scaled), else None.
    imported : [ImportedTree or None, ImportedTree or None]
        The files as read (their ``file_ids`` name the nodes).
    """
    from core.collide.query import rigid_body
    from core.io import load_mesh
    from core.mesh import check_coordinate_bound
    from core.pose import Pose, rotation_matrix

    _check_args(args)
    mesh_a = load_mesh(args.mesh_a)
    mesh_b = load_mesh(args.mesh_b)
    rot = np.eye(3)
    if args.rotate_b is not None:
        rot = rotation_matrix(args.rotate_b[:3], math.radians(args.rotate_b[3]))
    pose_b = Pose(rot, np.array(args.translate_b), args.scale_b)
    check_coordinate_bound(mesh_a, str(args.mesh_a))
    check_coordinate_bound(mesh_b, str(args.mesh_b), pose_b)
    imported = [None, None]
    if any(path is not None for path in tree_files):
        from core.bvh.tree_formats import read_any_tree

        imported = [None if path is None else read_any_tree(path, mesh)
                    for path, mesh in zip(tree_files, (mesh_a, mesh_b))]  # fmt: skip
    tree_b = None if imported[1] is None else imported[1].tree
    mesh_b, tree_b, pose_b = rigid_body(mesh_b, tree_b, pose_b)
    trees = [None if imported[0] is None else imported[0].tree, tree_b]
    return mesh_a, mesh_b, pose_b, trees, imported


def run_distance(args) -> dict:
    """Load, pose, build and measure the minimum distance; return the report as a dict."""
    from core.bvh import SplitRule, build_trees
    from core.distance import min_distance

    mesh_a, mesh_b, pose_b, _, _ = _load_posed(args)
    tree_a, tree_b = build_trees([mesh_a, mesh_b], SplitRule[args.split.upper()], args.leaf_size)
    r = min_distance(mesh_a, tree_a, mesh_b, tree_b, None, pose_b, bv=args.bv)
    return {
        "mesh_a": {"path": str(args.mesh_a), "triangles": mesh_a.n_faces},
        "mesh_b": {"path": str(args.mesh_b), "triangles": mesh_b.n_faces},
        "bv": args.bv,
        "distance": r.distance,
        "pair": [int(x) for x in r.pair],
        "source_pair": [int(mesh_a.source_face_ids[r.pair[0]]),
                        int(mesh_b.source_face_ids[r.pair[1]])],  # fmt: skip
        "point_a": r.point_a.tolist(),
        "point_b": r.point_b.tolist(),
        "counters": {"bv_tests": r.counters.n_bv_tests, "tri_tests": r.counters.n_tri_tests},
        "timings_ms": {k: 1e3 * v for k, v in r.timings.items()},
    }


def format_distance(report: dict) -> str:
    """The text form of :func:`run_distance`'s report."""
    pa = ", ".join(f"{x:.6g}" for x in report["point_a"])
    pb = ", ".join(f"{x:.6g}" for x in report["point_b"])
    c = report["counters"]
    return "\n".join([
        f"A: {report['mesh_a']['path']} ({report['mesh_a']['triangles']} triangles)",
        f"B: {report['mesh_b']['path']} ({report['mesh_b']['triangles']} triangles)",
        f"distance: {report['distance']:.9g} ({report['bv']} bounds)",
        f"closest triangles: A {report['pair'][0]}, B {report['pair'][1]}",
        f"points: A ({pa})  B ({pb})",
        f"BV tests {c['bv_tests']}, triangle distances {c['tri_tests']}",
    ])  # fmt: skip


def format_report(report: dict) -> str:
    """The text form of :func:`run_contacts`'s report (its pairs already cut to the list)."""
    from core.collide.tritri import ContactKind

    a, b, c = report["mesh_a"], report["mesh_b"], report["counters"]
    if "partition" in report:
        method = f"partition: {report['partition']}"
    else:
        built = ("tree: both from files" if report["split"] is None else
                 f"tree: {report['split']} split, leaf size {report['leaf_size']}")  # fmt: skip
        method = built + (f", {report['bv']} volumes" if "bv" in report else "")
    used = {side: f", {report[key]['text']}" if key in report else ""
            for side, key in (("a", "tree_a"), ("b", "tree_b"))}  # fmt: skip
    lines = [
        f"A: {a['path']} ({a['triangles']} triangles){used['a']}",
        f"B: {b['path']} ({b['triangles']} triangles){used['b']}",
        method,
        f"contacts: {c['contacts']} triangle pairs",
    ]
    if "containment" in report:
        lines.append(f"containment: {report['containment']['text']}")
    pairs = report["pairs"]
    for (ia, ib), kind in zip(pairs.tolist(), report["kinds"].tolist()):
        lines.append(f"  A {ia:>8}  B {ib:>8}  {ContactKind(kind).name.lower()}")
    if report["pairs_truncated"]:
        lines.append(f"  ... and {report['pairs_total'] - len(pairs)} more (--json lists all)")
    if report.get("margin", 0.0) > 0.0:
        near = list(zip(report["near_pairs"], report["near_distances"]))
        lines.append(f"near contacts (not touching, at most {report['margin']:g} apart): "
                     f"{len(near)} triangle pairs")  # fmt: skip
        for (ia, ib), dist in near[:DEFAULT_TEXT_PAIRS]:
            lines.append(f"  A {ia:>8}  B {ib:>8}  distance {dist:.6g}")
        if len(near) > DEFAULT_TEXT_PAIRS:
            lines.append(f"  ... and {len(near) - DEFAULT_TEXT_PAIRS} more (--json lists all)")
    if "partition" in report:
        t = report["timings_ms"]
        lines.append(
            f"candidate pairs {c['candidates']} ({c['candidates_before_dedup']} before removing "
            f"repeats), cells shared by both meshes {c['shared_cells']}, triangles in several "
            f"cells A {c['multi_cell_triangles'][0]} B {c['multi_cell_triangles'][1]}"
        )
        lines.append("time: " + ", ".join(f"{k} {v:.2f} ms" for k, v in t.items()))
        return "\n".join(lines)
    lines.append(
        f"BV tests {c['bv_tests']}, overlapping {c['bv_overlaps']}, leaf pairs {c['leaf_pairs']}, "
        f"triangle tests {c['tri_tests']}"
    )
    if "steps" in report:
        lines.append(f"steps: {report['steps']['lines']:,} volume-pair tests written to "
                     f"{report['steps']['file']}")  # fmt: skip
    lines.append("level  tested  overlapping  leaf pairs")
    for row in report["levels"]:
        lines.append(
            f"{row['level']:>5} {row['tested']:>7} {row['overlapping']:>12} {row['leaf_pairs']:>11}"
        )
    t = report["timings_ms"]
    lines.append(
        f"time: load {t['load']:.1f} ms, build {t['build']:.1f} ms, "
        f"traverse {t['traverse']:.2f} ms, triangle tests {t['tritri']:.2f} ms"
    )
    return "\n".join(lines)


def _finite_or_null(value):
    """``value`` with every float that is NaN or infinite replaced by None (JSON null)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite_or_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_null(v) for v in value]
    return value


def _write_rows(array: np.ndarray, out) -> None:
    """An integer array as a JSON list, ``_JSON_ROWS_PER_WRITE`` rows per write."""
    out.write("[")
    for start in range(0, array.shape[0], _JSON_ROWS_PER_WRITE):
        if start:
            out.write(", ")
        out.write(json.dumps(array[start : start + _JSON_ROWS_PER_WRITE].tolist())[1:-1])
    out.write("]")


def write_json(report: dict, out) -> None:
    """Write ``report`` as one line of strict JSON (no NaN, no Infinity).

    Numpy arrays (the pair lists) are streamed in blocks; the text is the same as
    ``json.dumps`` of the whole report would give. Floats that are not finite become null.
    """
    out.write("{")
    for i, (key, value) in enumerate(report.items()):
        out.write((", " if i else "") + json.dumps(key) + ": ")
        if isinstance(value, np.ndarray):
            _write_rows(value, out)
        else:
            out.write(json.dumps(_finite_or_null(value), allow_nan=False))
    out.write("}\n")


def _print_report(args, report: dict, text) -> None:
    """``report`` as one JSON object with ``--json``, else ``text()``, on standard output."""
    if args.json:
        write_json(report, sys.stdout)
    else:
        print(text())


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "warmup":
        from core.warmup import run_worker, warm_up

        if args.jobs is not None and args.jobs < 1:
            print(f"error: --jobs must be at least 1, got {args.jobs}", file=sys.stderr)
            return 2
        if not 0 <= args.nice <= 19:
            print(f"error: --nice must be from 0 to 19, got {args.nice}", file=sys.stderr)
            return 2
        if args.worker:
            return run_worker()
        try:
            warm_up(verbose=not args.quiet, jobs=args.jobs, progress=args.progress,
                    nice=args.nice)
        except RuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return 0
    try:
        if args.command == "tree":
            from core.cli_tree import run_tree

            print(run_tree(args))
            return 0
        if args.command == "experiment":
            from core.cli_experiment import run_experiment_command

            return run_experiment_command(args)
        if args.command == "quality":
            from core.bv import get_kind
            from core.cli_quality import format_quality, run_quality

            report = run_quality(args)
            _print_report(args, report,
                          lambda: format_quality(report, get_kind(args.bv).people_name))
            return 0
        if args.command == "validate":
            from core.cli_validate import exit_status, format_validate, run_validate

            report = run_validate(args)
            _print_report(args, report, lambda: format_validate(report))
            return exit_status(report)
        if args.command == "diff":
            from core.cli_diff import format_diff, run_diff

            report = run_diff(args)
            _print_report(args, report, lambda: format_diff(report))
            return 0
        if args.command == "audit":
            from core.cli_audit import audit_exit_status, format_audit, run_audit

            report, audits = run_audit(args)
            _print_report(args, report, lambda: format_audit(report, audits, args.max_listed))
            return audit_exit_status(report)
        report = run_distance(args) if args.command == "distance" else run_contacts(args)
        if args.json:
            write_json(report, sys.stdout)
        elif args.command == "distance":
            print(format_distance(report))
        else:
            print(format_report(report))
    except (BVHLabError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        hint = " (--max-pairs N lists fewer pairs)" if args.command == "contacts" else ""
        print(f"error: out of memory for this query{hint}", file=sys.stderr)
        return 2
    return 0
