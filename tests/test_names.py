"""No two unrelated functions or classes share a name across ``core`` and ``viewer``.

A name said twice for two different things makes a reader (and ``grep``) take one for the other:
``triangle_boxes`` once meant the boxes of a mesh's faces in one module and inflated boxes with
centroids in another. Every top-level ``def`` and ``class`` of every module under ``core/`` and
``viewer/`` is read with :mod:`ast` (nothing is imported, so no kernel compiles and no Qt loads),
and a name defined in two modules must be in :data:`SHARED_BY_DESIGN`, with its reason and the
only modules allowed to define it.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "viewer")

_BV_KINDS = "core/bv/"
_PARTITIONS = "core/partition/"

SHARED_BY_DESIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    # name: (why several modules define it, where every definition must live)
    "fit": ("a bounding-volume kind's registry hook: fit rows to triangles", (_BV_KINDS,)),
    "refit": ("a bounding-volume kind's registry hook: refit parents from children",
              (_BV_KINDS,)),
    "overlap": ("a bounding-volume kind's registry hook: test two rows", (_BV_KINDS,)),
    "volume": ("a bounding-volume kind's registry hook: a row's volume", (_BV_KINDS,)),
    "lower_bound": ("a bounding-volume kind's registry hook: distance bound of two rows",
                    (_BV_KINDS,)),
    "wire": ("a bounding-volume kind's registry hook: the drawable record of rows", (_BV_KINDS,)),
    "separating_test": ("a bounding-volume kind's registry hook: the separating test in words",
                        (_BV_KINDS,)),
    "distance_outside": ("a bounding-volume kind's registry hook: how far a point is outside a row",
                         (_BV_KINDS,)),
    "separation": ("a bounding-volume kind's registry hook: the axis and intervals of a culled "
                   "pair, and the step's separation that calls it",
                   (_BV_KINDS, "core/lab/separation.py")),
    "shape": ("a bounding-volume kind's registry hook: its rows as a core.bv.shapes record",
              (_BV_KINDS,)),
    "corners": ("a box kind's corners of its own rows, which its wire draws", (_BV_KINDS,)),
    "_fit_node": ("a kind's fit of one node, the body of its fit hook", (_BV_KINDS,)),
    "build": ("a partition kind's registry hook: partition two meshes", (_PARTITIONS,)),
    "build_from_boxes": ("a partition kind's registry hook: partition given triangle boxes",
                         (_PARTITIONS,)),
    "load_mesh": ("the package's entry point checks its arguments, then calls core.io's",
                  ("core/__init__.py", "core/io/__init__.py")),
    "main": ("the entry point of a module run as a program (python -m, a child process)",
             ("core/cli/__init__.py", "core/collide/exact.py", "core/io/_vtk_child.py",
              "viewer/__main__.py", "viewer/bench/interactive.py")),
}


def _top_level_names(root: Path) -> dict[str, list[str]]:
    """Modules (paths relative to ``root``, ``/``-separated) defining each top-level name."""
    where = defaultdict(list)
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            module = path.relative_to(root).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=module)
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    where[node.name].append(module)
    return where


def _is_allowed(module: str, places: tuple[str, ...]) -> bool:
    return any(module == p or (p.endswith("/") and module.startswith(p)) for p in places)


def name_clashes(root: Path) -> list[str]:
    """One line per name that two modules define and :data:`SHARED_BY_DESIGN` does not allow."""
    clashes = []
    for name, modules in sorted(_top_level_names(root).items()):
        if len(modules) < 2:
            continue
        places = SHARED_BY_DESIGN.get(name, (None, ()))[1]
        if not all(_is_allowed(m, places) for m in modules):
            clashes.append(f"{name}: {', '.join(modules)}")
    return clashes


def test_no_two_modules_define_the_same_name():
    clashes = name_clashes(REPO_ROOT)
    assert clashes == [], "names defined in two modules:\n" + "\n".join(clashes)


def test_the_check_sees_a_clash(tmp_path):
    for package in PACKAGES:
        (tmp_path / package).mkdir()
    (tmp_path / "core" / "boxes.py").write_text("def triangle_boxes(tris):\n    pass\n")
    (tmp_path / "viewer" / "draw.py").write_text("class triangle_boxes:\n    pass\n")
    # A kind hook defined outside the kinds' package is a clash too.
    (tmp_path / "core" / "other.py").write_text("def fit(x):\n    pass\n")
    (tmp_path / "core" / "bv").mkdir()
    (tmp_path / "core" / "bv" / "box.py").write_text("def fit(x):\n    pass\n")
    assert name_clashes(tmp_path) == [
        "fit: core/bv/box.py, core/other.py",
        "triangle_boxes: core/boxes.py, viewer/draw.py",
    ]


def test_every_shared_name_is_still_shared_and_says_why():
    # An entry whose clash went away (a module renamed or merged) is removed, so the list stays
    # the short list of names shared on purpose.
    where = _top_level_names(REPO_ROOT)
    stale = [name for name in SHARED_BY_DESIGN if len(where.get(name, [])) < 2]
    assert stale == []
    for name, (reason, places) in SHARED_BY_DESIGN.items():
        assert reason and "\n" not in reason and places, name
