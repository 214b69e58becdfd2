"""``python -m core contacts A B ...``: every contacting triangle pair of two meshes, with
the traversal's counters and levels (or a spatial partition's candidates), as text or JSON."""

from __future__ import annotations

import math
import os
import time

import numpy as np

from core.cli.options import (
    add_command,
    bv_names,
    mesh_pair_args,
    partition_names,
    rule_names,
    takes_obb_fit,
    whole_number,
)
from core.cli.posed import load_posed
from core.cli.steps import DEFAULT_MAX_STEPS, STEP_LINE_BYTES

DEFAULT_TEXT_PAIRS = 20
"""Pairs the text output lists without ``--max-pairs`` (JSON lists all)."""

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


def add_contacts_parser(sub) -> None:
    """Add the ``contacts`` sub-command to ``sub`` (the sub-parsers of ``python -m core``)."""
    from core.bv import ObbFit
    from core.bvh import SplitRule
    from core.collide import DescendRule

    c = add_command(
        sub,
        "contacts",
        help="contacting triangle pairs of two meshes",
        epilog=_CONTACTS_EPILOG,
    )
    mesh_pair_args(c)
    # None: not given (midpoint and 1 then), so a choice that cannot apply is refused.
    c.add_argument("--split", choices=rule_names(SplitRule), default=None,
                   help="split rule of both trees (default: midpoint, van den Bergen)")  # fmt: skip
    c.add_argument("--leaf-size", type=whole_number, default=None, metavar="K",
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
    c.add_argument("--max-steps", type=whole_number, default=DEFAULT_MAX_STEPS, metavar="N",
                   help=f"with --steps: refuse a traversal of more than N tests (default "
                   f"{DEFAULT_MAX_STEPS:,}, about {DEFAULT_MAX_STEPS * STEP_LINE_BYTES / 1e9:.1f}"
                   f" GB of lines)")  # fmt: skip
    c.add_argument("--descend", choices=rule_names(DescendRule), default="larger_volume",
                   help="which node of an overlapping pair to split")  # fmt: skip
    c.add_argument("--bv", choices=bv_names(), default=None, metavar="KIND",
                   help="bounding volume of the traversal: " + " ".join(bv_names())
                   + " (default: the AABB tree's own boxes)")  # fmt: skip
    c.add_argument("--obb-fit", choices=rule_names(ObbFit), default="surface",
                   help="with --bv obb: the covariance the box axes come from (vertices, "
                   "surface, hull_vertices, hull_surface; default surface)")  # fmt: skip
    c.add_argument("--partition", choices=partition_names(), default=None, metavar="KIND",
                   help="find candidate pairs with a spatial partition instead of trees: "
                   + " ".join(partition_names()))  # fmt: skip
    c.add_argument("--cell-size", type=float, default=None, metavar="H",
                   help="with --partition grid: cell edge length (default: from triangle size)")
    c.add_argument("--max-depth", type=whole_number, default=None, metavar="D",
                   help="with --partition octree/kdtree/bsp: deepest level")
    c.add_argument("--capacity", type=whole_number, default=None, metavar="N",
                   help="with --partition octree/kdtree/bsp: triangles a leaf may hold")
    c.add_argument("--margin", type=float, default=0.0, metavar="D",
                   help="also report triangle pairs that do not touch but are at most D apart, "
                   "with their distance (default 0: exact contacts only)")  # fmt: skip
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.add_argument("--max-pairs", type=whole_number, default=None, metavar="N",
                   help="list at most N pairs (default: 20 in text, all with --json); the "
                   "total is always reported")  # fmt: skip
    c.add_argument("--pair-budget", type=whole_number, default=None, metavar="N",
                   help="stop with an error when the traversal meets more than N overlapping "
                   "volume pairs or would test more than N triangle pairs (default "
                   "50,000,000: a tree whose boxes overlap too much ends in one line, not "
                   "out of memory)")  # fmt: skip


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
    volume-pair tests are written in order (:mod:`core.cli.steps`).
    """
    from core.bvh import build_trees
    from core.collide.dispatch import run_query
    from core.containment import pair_containment
    from core.lab.tables import level_rows

    _check_margin(args)
    _check_tree_files(args)
    t0 = time.perf_counter()
    mesh_a, mesh_b, pose_b, file_trees, imported = load_posed(args, (args.tree_a,
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
        **({"obb_fit": args.obb_fit} if takes_obb_fit(args.bv) else {}),
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

    from core.cli.steps import check_steps_budget, write_steps
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


def format_report(report: dict) -> str:
    """The text form of :func:`run_contacts`'s report (its pairs already cut to the list)."""
    from core.lab.tables import contact_kind_word

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
        lines.append(f"  A {ia:>8}  B {ib:>8}  {contact_kind_word(kind)}")
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
