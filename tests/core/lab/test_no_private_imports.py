"""The analyses of a frame (core.lab) use the engine's and each other's public functions only.

An underscore name is its module's own business: the audit once imported the cross-check's
``_check_pairs`` and ``_difference``, and the exact gap the triangle referee's ``_sub``, ``_dot``
and ``_cross``, so a change inside one module broke another. Shared helpers live in a module of
their own (core.lab.pair_sets, core.exact.rational). Read with :mod:`ast`: nothing compiles.
"""

from __future__ import annotations

import ast
from pathlib import Path

LAB = Path(__file__).resolve().parents[3] / "core" / "lab"


def test_no_lab_module_imports_a_private_name_of_another_module():
    found = []
    for path in sorted(LAB.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("core"):
                found += [f"{path.name}: {node.module}.{a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert found == []
