"""Import boundaries, machine-checked (napari's import-linter contracts, done with ast).

* ``core/`` never imports a GUI or VTK package when it is imported: not PyQt6, pyvistaqt,
  pyvista or vtk. It may import VTK inside a function (``core.io._vtk_child`` reads files
  that way, in a child process).
* ``viewer/render/`` turns frames into pyvista data and never imports Qt or Qt widgets.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
CORE_DIR = REPO_ROOT / "core"
RENDER_DIR = REPO_ROOT / "viewer" / "render"

CORE_FORBIDDEN = ("PyQt6", "pyvistaqt", "pyvista", "vtk", "vtkmodules")
RENDER_FORBIDDEN = ("PyQt6", "PyQt5", "PySide6", "PySide2", "qtpy", "pyvistaqt")


def _top_package(name: str) -> str:
    return name.split(".", 1)[0]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported_modules(tree: ast.AST, *, module_level_only: bool) -> list[tuple[int, str]]:
    """``(line, module)`` of every import in ``tree``.

    With ``module_level_only``, imports inside function bodies (run only when called) and
    under ``if TYPE_CHECKING:`` (never run) are left out; imports in class bodies, ``try``
    and ``if`` blocks run at import time and are kept.
    """
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        if module_level_only and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        if module_level_only and isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _violations(paths, forbidden, *, module_level_only: bool) -> list[str]:
    bad = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, module in imported_modules(tree, module_level_only=module_level_only):
            if _top_package(module) in forbidden:
                bad.append(f"{path.relative_to(REPO_ROOT)}:{line} imports {module}")
    return bad


def _python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def test_scanner_finds_module_level_imports_and_skips_function_bodies():
    source = textwrap.dedent(
        """
        import numpy as np
        import pyvista as pv
        from vtkmodules.vtkIOGeometry import vtkSTLReader
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from PyQt6.QtWidgets import QWidget
        try:
            import pyvistaqt
        except ImportError:
            pass
        class Holder:
            from PyQt6 import QtCore
        def load():
            import vtk
        """
    )
    tree = ast.parse(source)
    module_level = imported_modules(tree, module_level_only=True)
    assert module_level == [
        (2, "numpy"),
        (3, "pyvista"),
        (4, "vtkmodules.vtkIOGeometry"),
        (5, "typing"),
        (9, "pyvistaqt"),
        (13, "PyQt6"),
    ]
    everywhere = [m for _, m in imported_modules(tree, module_level_only=False)]
    assert "vtk" in everywhere and "PyQt6.QtWidgets" in everywhere


def test_core_files_import_no_gui_or_vtk_at_module_level():
    files = _python_files(CORE_DIR)
    assert CORE_DIR / "mesh.py" in files and CORE_DIR / "io" / "__init__.py" in files
    assert CORE_DIR / "io" / "_vtk_child.py" in files
    assert _violations(files, CORE_FORBIDDEN, module_level_only=True) == []


def _import_in_fresh_interpreter(modules: list[str]) -> dict:
    """Import ``modules`` in a new interpreter; report failures and forbidden packages loaded.

    A fresh interpreter is needed: the test process itself has pyvista loaded by other tests.
    """
    script = textwrap.dedent(
        f"""
        import importlib, json, sys
        failed = {{}}
        for name in {modules!r}:
            try:
                importlib.import_module(name)
            except Exception as exc:
                failed[name] = f"{{type(exc).__name__}}: {{exc}}"
        forbidden = {CORE_FORBIDDEN!r}
        loaded = sorted({{m.split(".")[0] for m in sys.modules if m.split(".")[0] in forbidden}})
        print(json.dumps({{"failed": failed, "loaded": loaded}}))
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_fresh_interpreter_check_sees_a_forbidden_import():
    report = _import_in_fresh_interpreter(["json", "pyvista"])
    assert report["failed"] == {}
    assert "pyvista" in report["loaded"] and "vtkmodules" in report["loaded"]


def test_importing_every_core_module_loads_no_gui_or_vtk():
    modules = sorted(
        ".".join(p.relative_to(REPO_ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in _python_files(CORE_DIR)
        if p.name != "__main__.py"  # running it would start the command-line tool
    )
    assert {"core", "core.io", "core.mesh"} <= set(modules)
    report = _import_in_fresh_interpreter(modules)
    assert report["failed"] == {}
    assert report["loaded"] == []


def test_render_layer_imports_no_qt():
    files = _python_files(RENDER_DIR) if RENDER_DIR.is_dir() else []
    if not files:
        pytest.skip("viewer/render/ has no modules yet")
    assert _violations(files, RENDER_FORBIDDEN, module_level_only=False) == []
