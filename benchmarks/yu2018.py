"""Yu et al. (2018) on their experiment's shape: the overlap-region method against the AABB
tree and a BSP partition.

``python -m benchmarks.yu2018 [--repeats N]``

A ~530-triangle teapot against spheres of about 2k, 4k and 8k triangles and against spot
(5,856 triangles), both ways round, surfaces cutting each other. Every method starts from the
bare meshes (the tree and the BSP are built inside the timed call), as the paper times them.
All three must report the same contact pairs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.conditions import Conditions
from core.io import load_mesh
from core.partition.compare import yu_experiment

ASSETS = Path(__file__).resolve().parent.parent / "assets"


def format_rows(rows: list[dict]) -> str:
    """The table: one line per (A, B), ms per method and the ratio to the AABB tree."""
    lines = [
        "Yu et al. 2018 shape: best of the repeats, ms (tree / BSP built inside the call)",
        f"{'A':>16} {'B':>16} {'tris A':>7} {'tris B':>7} {'contacts':>8} "
        f"{'overlap':>8} {'aabb':>8} {'bsp':>8} {'overlap/aabb':>12} same",
    ]
    for r in rows:
        lines.append(
            f"{r['a']:>16} {r['b']:>16} {r['n_a']:>7} {r['n_b']:>7} {r['contacts']:>8} "
            f"{1e3 * r['overlap']:>8.2f} {1e3 * r['aabb']:>8.2f} {1e3 * r['bsp']:>8.2f} "
            f"{r['overlap'] / r['aabb']:>11.2f}x {'yes' if r['same'] else 'NO'}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.yu2018", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    teapot, spot = load_mesh(ASSETS / "teapot.obj"), load_mesh(ASSETS / "spot.obj")
    with Conditions(args.repeats) as conditions:
        rows = yu_experiment(teapot, spot, repeats=args.repeats)
    print("\n".join([format_rows(rows), *conditions.lines("the Yu et al. 2018 table")]),
          flush=True)
    return 0 if all(r["same"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
