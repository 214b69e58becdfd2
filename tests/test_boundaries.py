"""Import boundaries that the import-linter contracts in ``pyproject.toml`` cannot express.

``lint-imports`` (run by ``make test``) checks every import statement against the contracts:
the core imports no Qt, pyvista or VTK, ``viewer.render`` no Qt, only the viewer's
controllers call the core. Two rules are about what a running interpreter loads, which a
static import graph cannot see or cannot name:

* importing any ``core`` module loads no Qt, pyvista or VTK module, whatever the packages
  the core uses import in turn (import-linter does not follow imports inside external
  packages such as numba or trimesh);
* ``viewer.model`` is plain state with Qt signals: it loads ``PyQt6.QtCore`` and never
  ``PyQt6.QtWidgets`` (import-linter sees an external package only as a whole, so it cannot
  tell the two apart);
* ``viewer.state`` (the plain state types the render layer reads) loads no Qt and no core.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CORE_DIR = REPO_ROOT / "core"

CORE_FORBIDDEN = ("PyQt6", "pyvistaqt", "pyvista", "vtk", "vtkmodules")
MODEL_FORBIDDEN = ("PyQt6.QtWidgets", "PyQt6.QtGui", "pyvistaqt", "pyvista", "vtkmodules")


def _import_in_fresh_interpreter(modules: list[str], forbidden: tuple[str, ...]) -> dict:
    """Import ``modules`` in a new interpreter; report failures and forbidden modules loaded.

    A fresh interpreter is needed: the test process itself has Qt and pyvista loaded by other
    tests. A forbidden name matches the module itself and every submodule of it.
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
        forbidden = {forbidden!r}
        loaded = sorted(
            {{f for f in forbidden for m in sys.modules if m == f or m.startswith(f + ".")}}
        )
        print(json.dumps({{"failed": failed, "loaded": loaded}}))
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_fresh_interpreter_check_sees_a_forbidden_import():
    report = _import_in_fresh_interpreter(["json", "pyvista"], CORE_FORBIDDEN)
    assert report["failed"] == {}
    assert "pyvista" in report["loaded"] and "vtkmodules" in report["loaded"]
    report = _import_in_fresh_interpreter(["PyQt6.QtWidgets"], MODEL_FORBIDDEN)
    assert report["loaded"] == ["PyQt6.QtGui", "PyQt6.QtWidgets"]


def test_importing_every_core_module_loads_no_gui_or_vtk():
    modules = sorted(
        ".".join(p.relative_to(REPO_ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in CORE_DIR.rglob("*.py")
        if "__pycache__" not in p.parts and p.name != "__main__.py"  # it would start the CLI
    )
    assert {"core", "core.io", "core.io.vtkfile", "core.mesh"} <= set(modules)
    report = _import_in_fresh_interpreter(modules, CORE_FORBIDDEN)
    assert report["failed"] == {}
    assert report["loaded"] == []


def test_viewer_model_loads_qt_core_and_no_widgets():
    report = _import_in_fresh_interpreter(["viewer.model"], (*MODEL_FORBIDDEN, "PyQt6.QtCore"))
    assert report["failed"] == {}
    assert report["loaded"] == ["PyQt6.QtCore"]


def test_viewer_state_loads_no_qt():
    """The plain state types (which the render layer imports) load no Qt at all."""
    modules = sorted(
        ".".join(p.relative_to(REPO_ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in (REPO_ROOT / "viewer" / "state").glob("*.py")
    )
    assert "viewer.state.display" in modules
    report = _import_in_fresh_interpreter(modules, (*MODEL_FORBIDDEN, "PyQt6", "core"))
    assert report["failed"] == {}
    assert report["loaded"] == []
