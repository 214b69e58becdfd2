"""One worker mechanism (issue 25): no module of the viewer runs work off the GUI thread by
hand; every background job goes through ``viewer.control.worker``.

The relays and executors this replaced (each checked gone by the test below):
costs.py _CostRelay + thread, kernels.py _KernelRelay + thread, inspecting.py _InspectRelay +
executor, recording.py _JobRelay + executor, files.py _FileRelay + loader, experiments.py
_ExperimentRelay + thread, session.py _AutosaveRelay + executor, exporting.py _ExportRelay +
executor, stepping.py _StepsRelay + executor, frames.py _FrameRelay + executor, analysis.py
_AnalysisRelay + executor.
"""

from __future__ import annotations

import ast
from pathlib import Path

VIEWER = Path(__file__).resolve().parents[3] / "viewer"

ALLOWED = {
    "control/worker.py",  # the mechanism itself
    "qt/window/error_guard.py",  # carries a caught error's line to the GUI thread: not a job
}

THREAD_MAKERS = {"ThreadPoolExecutor", "ProcessPoolExecutor", "Thread", "QThread",
                 "QThreadPool", "QRunnable"}


def _called_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called_name(node) in THREAD_MAKERS:
            found.append(f"line {node.lineno}: constructs {_called_name(node)}")
        elif isinstance(node, ast.ClassDef):
            names = {base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
                     for base in node.bases}
            if names & {"QThread", "QRunnable"}:
                found.append(f"line {node.lineno}: class {node.name} is a {names}")
            has_signal = any(isinstance(item, ast.Assign) and isinstance(item.value, ast.Call)
                             and _called_name(item.value) == "pyqtSignal"
                             for item in node.body)  # fmt: skip
            if has_signal and "relay" in node.name.lower():
                found.append(f"line {node.lineno}: class {node.name} is a signal relay")
    return found


def test_no_module_runs_background_work_by_hand():
    offences = {}
    for path in sorted(VIEWER.rglob("*.py")):
        name = path.relative_to(VIEWER).as_posix()
        if name in ALLOWED:
            continue
        found = _offences(path)
        if found:
            offences[name] = found
    assert offences == {}


def test_the_check_finds_a_hand_written_relay_and_thread(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import threading\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        "from PyQt6.QtCore import QObject, pyqtSignal\n"
        "class _LoadRelay(QObject):\n"
        "    done = pyqtSignal(object)\n"
        "pool = ThreadPoolExecutor(max_workers=1)\n"
        "threading.Thread(target=print).start()\n")
    assert len(_offences(sample)) == 3
