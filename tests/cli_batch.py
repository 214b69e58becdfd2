"""Many command lines of one program, run one after another in ONE child process.

The hostile-file catalogues check each file through ``python -m core ...`` or
``python -m viewer ...``: exit status 2, one line on stderr. A child process per file spent
about a second on imports alone (numba, VTK, Qt), some 140 files in all, which was a tenth of
the suite's time. Here one child imports once and runs every command line in turn, exactly as
``python -m MODULE ARGS`` would (``runpy`` with ``run_name="__main__"``, ``sys.argv`` set,
``SystemExit`` read as the exit status, an escaped exception printed as Python prints it, with
status 1). The child stays a separate process under the caller's memory limit, so a file that
aborts or exhausts it fails the test, as before.

A command line that runs past ``seconds`` is stopped (``SIGALRM``) and reported with
``timed_out`` set: the per-process time-outs the tests had only turned a hang into a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import contextlib, io, json, runpy, signal, sys, traceback

class _TimedOut(BaseException):
    pass

def _alarm(_signum, _frame):
    raise _TimedOut()

signal.signal(signal.SIGALRM, _alarm)
module, seconds, argvs = json.loads(sys.stdin.read())
real_out = sys.stdout
for argv in argvs:
    out, err = io.StringIO(), io.StringIO()
    code, timed_out = 0, False
    sys.argv = [module, *argv]
    signal.alarm(seconds)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                runpy.run_module(module, run_name="__main__", alter_sys=True)
            except SystemExit as stop:
                c = stop.code
                code = 0 if c is None else c if isinstance(c, int) else 1
                if not isinstance(c, (int, type(None))):
                    print(c, file=sys.stderr)
            except _TimedOut:
                code, timed_out = -1, True
            except Exception:
                traceback.print_exc()
                code = 1
    finally:
        signal.alarm(0)
    real_out.write(json.dumps({"code": code, "stdout": out.getvalue(),
                               "stderr": err.getvalue(), "timed_out": timed_out}) + "\n")
    real_out.flush()
"""


@dataclass(frozen=True)
class Ran:
    """What one command line did: as ``subprocess.CompletedProcess`` for the fields read."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool


def run_batch(module: str, argvs: list[list[str]], *, seconds: int = 60, env=None,
              preexec_fn=None, cwd=ROOT) -> list[Ran]:  # fmt: skip
    """Run ``python -m MODULE ARGV`` for each ``argv`` in one child process.

    Parameters
    ----------
    module : str
        ``"core"`` or ``"viewer"``.
    argvs : list of list of str
        The command lines' arguments, in order.
    seconds : int
        Time-out of each command line.
    env : dict, optional
        The child's environment (default: this one).
    preexec_fn : callable, optional
        As for ``subprocess.run`` (the callers set a memory limit).
    cwd : path

    Returns
    -------
    list of Ran
        One per ``argv``, in order.

    Raises
    ------
    AssertionError
        The child died before it reported every command line (an abort, a crash): its exit
        status and the end of its stderr are in the message.
    """
    child_env = dict(os.environ if env is None else env)
    child_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), child_env.get("PYTHONPATH", "")) if p)
    done = subprocess.run([sys.executable, "-c", _CHILD], cwd=cwd, env=child_env,
                          input=json.dumps([module, int(seconds), argvs]),
                          capture_output=True, text=True, timeout=seconds * len(argvs) + 120,
                          preexec_fn=preexec_fn, check=False)  # fmt: skip
    reports = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    stopped_at = argvs[len(reports)] if len(reports) < len(argvs) else None
    assert len(reports) == len(argvs), (
        f"the batch child stopped after {len(reports)} of {len(argvs)} command lines (exit "
        f"{done.returncode}; next: {stopped_at}): {done.stderr[-2000:]}")
    return [Ran(argv, r["code"], r["stdout"], r["stderr"], r["timed_out"])
            for argv, r in zip(argvs, reports)]
