"""The kernels' compile on a first start: in the background, with progress, never in the way.

A first start (an incomplete kernel cache, :func:`core.jit.numba_cache.is_complete`) used to
compile about 200 numba kernels before the first frame: 133 s on two cores, behind a busy
dialog. Now the app starts ``python -m core warmup --progress --nice 5`` in a process group of
its own and reads its ``compiled N of M [KEY] WHAT`` lines in a thread, while
:mod:`core.jit.interpreted` runs every kernel that has no machine code yet as Python: the first
frame comes in seconds, correct and slower. Each progress line makes the kernels look in the
cache again, so frames speed up as the compile goes; when it finishes, the next frame loads
every kernel (:func:`viewer.control.frames._ensure_kernels`) and runs at full speed.

Closing the app stops the compile; what was saved stays in the cache and the next start
compiles the rest. If the compile fails, the kernels compile in this process when first used
(the way it was before), and the status bar says why.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time

from core.jit import interpreted
from core.jit.warmup import (
    FIRST_FRAME_STEPS,
    die_with_parent,
    is_cache_complete,
    parse_progress,
    step_keys,
)
from viewer.control.worker import Tag
from viewer.state.status import KernelStatus
from viewer.words.choices import NO_PARTITION, PARTITION_LABELS

#: Priority the background compile gives up (nice): the window and the frames come first.
COMPILE_NICENESS = 5

#: Which warm-up step compiles a choice's kernels, per :class:`viewer.state.pipeline.PipelineChoice`
#: field; the first frame's own step (``frame``) covers the defaults.
DEFAULT_CHOICES = {"split": "MIDPOINT", "descend": "LARGER_VOLUME", "bv": "aabb"}


def steps_for_choice(choice) -> list[tuple[tuple[str, ...], str]]:
    """The warm-up steps a pipeline choice needs, in groups with words.

    Parameters
    ----------
    choice : viewer.state.pipeline.PipelineChoice

    Returns
    -------
    list of (tuple of str, str)
        ``(step keys, what they are)``, e.g. ``(("bv-obb",), "the oriented box (OBB)
        kernels")``; the first group is always the first frame's.
    """
    from core.bv import get_kind

    needs = [(FIRST_FRAME_STEPS, "the first frame's kernels")]
    if choice.split != DEFAULT_CHOICES["split"]:
        needs.append((("splits",), "the split rules"))
    if choice.descend != DEFAULT_CHOICES["descend"]:
        needs.append((("traversal",), "the descend rules"))
    if choice.bv != DEFAULT_CHOICES["bv"]:
        needs.append(((f"bv-{choice.bv}",), f"the {get_kind(choice.bv).people_name} kernels"))
    if choice.partition != NO_PARTITION:
        label = PARTITION_LABELS.get(choice.partition, choice.partition)
        needs.append(((f"partition-{choice.partition}",), f"the {label} kernels"))
    if float(choice.margin) > 0.0:
        needs.append((("near",), "the near-contact kernels"))
    return needs


class KernelCompiling:
    """The controller's background-compile job.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    workers : viewer.control.worker.Workers
        The controller's workers; the job takes its lane(s) from them.
    is_threaded : bool
        False: everything runs inline (the benchmark, scripts).
    request_frame : callable
        The frame job's ``request_frame`` (once the kernels are compiled).
    """

    def __init__(self, model, workers, is_threaded: bool, request_frame) -> None:
        self.model = model
        self._request_frame = request_frame
        self._compile_process: subprocess.Popen | None = None
        self._compile_started = 0.0
        # The compile's output is read on a lane of its own (it lasts minutes); closing the
        # app stops the process, which ends the reading, and nothing waits for it.
        self._compile_lane = workers.lane("kernel-compile", wait_on_shutdown=False)
        # Only the app's window compiles in the background; the benchmark and scripts (not
        # threaded) wait for the kernels as before, so what they time is machine code.
        if is_threaded and not is_cache_complete():
            self.start_kernel_compile()

    def start_kernel_compile(self) -> None:
        """Start the background compile (once at a time) and run kernels as Python until
        each is compiled."""
        if self._compile_process is not None:
            return
        errors = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - closed by the reader
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "core", "warmup", "--progress", "--quiet",
                 "--nice", str(COMPILE_NICENESS)],
                stdout=subprocess.PIPE, stderr=errors, text=True, bufsize=1,
                # A group of its own, so closing stops its workers too; and it ends if the
                # app is killed.
                start_new_session=True, preexec_fn=die_with_parent(),
            )
        except OSError as exc:
            errors.close()
            self.model.set_kernels(KernelStatus(error=f"could not start the compile: {exc}"))
            return
        interpreted.start()
        self._compile_process = process
        self._compile_started = time.perf_counter()
        self.model.set_kernels(KernelStatus(n_steps=len(step_keys()), is_compiling=True))
        self._compile_lane.submit(
            self._read_compile, process, errors, tag=Tag("kernel compile"),
            on_result=lambda error, _job: self._on_compile_finished(error),
            on_error=lambda exc, _job: self._on_compile_finished(f"{type(exc).__name__}: {exc}"),
            on_progress=lambda _n, _m, line, _job: self._on_compile_progress(
                *parse_progress(line)))

    @staticmethod
    def _read_compile(control, process: subprocess.Popen, errors) -> str:
        """The compile's progress lines as the job's progress (each carries its whole line);
        returns why it failed, "" when it completed."""
        for line in process.stdout:
            parsed = parse_progress(line)
            if parsed is not None:
                control.progress(parsed[0], parsed[1], line)
        status = process.wait()
        error = ""
        if status != 0:
            errors.seek(0)
            lines = [x.strip() for x in errors.read().splitlines() if x.strip()]
            error = lines[-1] if lines else f"the compile ended with exit status {status}"
        errors.close()
        return error

    def _on_compile_progress(self, n: int, m: int, key: str, words: str) -> None:
        interpreted.note_cache_grew()
        status = self.model.kernels
        self.model.set_kernels(KernelStatus(
            n_done=n, n_steps=m, keys_done=status.keys_done | {key}, last_words=words,
            is_compiling=True, seconds=time.perf_counter() - self._compile_started))

    def _on_compile_finished(self, error: str) -> None:
        if self._compile_process is None:  # stopped on close
            return
        self._compile_process = None
        interpreted.stop()
        status = self.model.kernels
        self.model.set_kernels(KernelStatus(
            n_done=status.n_done, n_steps=status.n_steps, keys_done=status.keys_done,
            last_words=status.last_words, is_compiling=False,
            seconds=time.perf_counter() - self._compile_started, error=error))
        # The shown frame was computed (in part) as Python: compute it again at full speed,
        # so its timings and the cost model describe machine code.
        self._request_frame()

    def missing_kernels(self) -> list[str]:
        """What the current choice needs that is not compiled yet, in words (empty when
        nothing compiles in the background)."""
        status = self.model.kernels
        if not status.is_compiling:
            return []
        return [words for keys, words in steps_for_choice(self.model.pipeline)
                if not set(keys) <= status.keys_done]

    def shutdown(self) -> None:
        process, self._compile_process = self._compile_process, None
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)  # the coordinator and its workers
            process.wait(timeout=5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        interpreted.stop()
