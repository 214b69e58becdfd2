"""Refit cost of every bounding-volume kind (issue 4: "say where a kind refits from its
children loosely or must refit from primitives, and measure it").

``python -m benchmarks.bv_refit [--sizes 100k,500k] [--repeats N]``

One sphere per size, the MIDPOINT tree and the OBB tree (:attr:`SplitRule.OBB`), each kind
refitted after its vertices moved (the cache is bypassed: :func:`core.bv.refit_volumes`).
Reports the median time, the tree's depth and how the kind refits.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks.conditions import Conditions
from benchmarks.scenes import sphere_case
from benchmarks.timing import measure
from core.bv import BV_KINDS, ObbFit, refit_volumes
from core.bv.obb_fit import fit_hull_bottom_up, fit_method
from core.bvh import SplitRule, build_tree

SIZES = {"10k": 10_000, "100k": 100_000, "500k": 500_000}

#: The cost of each OBB fit method (see :mod:`core.bv.obb_fit`).
FIT_HOW = {
    ObbFit.VERTICES: "distinct vertices of every node (a sort per node)",
    ObbFit.SURFACE: "running sums of the triangle moments (the default)",
    ObbFit.HULL_VERTICES: "a convex hull per node, of its children's hull vertices",
    ObbFit.HULL_SURFACE: "the same hulls, integrated over their triangles",
}


def run(label: str, repeats: int) -> list[str]:
    """Lines of the table for one size, ending with the load and repeats they ran under."""
    mesh = sphere_case(label, SIZES[label]).mesh
    lines = []
    with Conditions(repeats) as conditions:
        _time_kinds_and_fits(label, mesh, repeats, lines)
    return lines + conditions.lines(f"the refit table at {label}")


def _time_kinds_and_fits(label: str, mesh, repeats: int, lines: list[str]) -> None:
    for rule in (SplitRule.MIDPOINT, SplitRule.OBB):
        tree = build_tree(mesh, rule)
        lines.append(f"{label}, {rule.name} tree ({mesh.n_faces} triangles, {tree.n_nodes} "
                     f"nodes, depth {tree.stats.depth_max})")  # fmt: skip
        for kind in BV_KINDS:
            samples, _ = measure(lambda k=kind, t=tree: refit_volumes(t, mesh, k), repeats)
            how = BV_KINDS[kind].refit_how
            lines.append(f"  {kind:<8} {1e3 * samples.median:>9.2f} ms   {how}")
        out = np.empty((tree.n_nodes, BV_KINDS["obb"].width))
        base = (mesh.vertices, mesh.faces, tree.prim_ids, tree.prim_start, tree.n_prims)
        for method in ObbFit:
            if method in (ObbFit.HULL_VERTICES, ObbFit.HULL_SURFACE):
                # The path fit_volumes (and so the app) takes for the hull fits.
                args = (*base, tree.first, tree.count, tree.level_nodes, tree.level_start, out,
                        int(method))  # fmt: skip
                samples, _ = measure(lambda a=args: fit_hull_bottom_up(*a), repeats)
            else:
                args = (*base, out, int(method))
                samples, _ = measure(lambda a=args: fit_method(*a), repeats)
            lines.append(f"  obb fit {method.name.lower():<14} {1e3 * samples.median:>9.2f} ms   "
                         f"{FIT_HOW[method]}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bv_refit", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100k,500k")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    sizes = [s for s in args.sizes.split(",") if s]
    if any(s not in SIZES for s in sizes):
        parser.error(f"unknown size in {sizes}; one of {', '.join(SIZES)}")
    for label in sizes:
        print("\n".join(run(label, args.repeats)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
