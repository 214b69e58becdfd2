"""VTK legacy (``.vtk``) and XML PolyData (``.vtp``) files, read by VTK in a child process.

VTK's readers abort the whole process on some malformed files (VTK 9.7: a VTP declaring
``NumberOfPoints="1000000000000"`` throws ``std::bad_alloc`` and ``terminate`` raises SIGABRT;
a corrupt zlib block aborts too), and no Python ``try`` catches that. So the reader runs in a
child process (:mod:`core.io._vtk_child`) with an address-space limit and a timeout; a crash,
a signal, a timeout or an exhausted memory limit becomes one :class:`CorruptMeshFileError`
line naming the file, and the caller (the app, the CLI) lives on. Arrays come back through a
temporary ``.npz`` file.

Before that, a ``.vtp`` file is checked by :mod:`core.io.vtp_check` (declared counts, the
sizes of appended and compressed blocks), which turns the known crash and garbage cases into
specific messages without starting VTK at all.

Cost of the child process, measured on the Stanford bunny saved as VTP (35,947 points,
69,451 triangles, 1.66 MB zlib-compressed), median of 7 loads on a 2-core machine shared
with other jobs (load average 3.8): VTK's reader in-process 53 ms, the same read in the child
533 ms (``load_mesh`` with the pre-check and assembly: 545 ms). Almost all of the difference
is the child's start: a fresh interpreter importing numpy and VTK's IO modules took
0.43-0.54 s alone. A one-off cost per VTK file opened, small against building the trees;
the text formats and glTF do not pay it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from core.errors import CorruptMeshFileError, MeshFileError, NoTrianglesError
from core.io.common import check_regular_file, read_regular_file
from core.io.vtp_check import check_vtp

VTK_TIMEOUT_S = 20.0
"""Seconds a child VTK read may take, plus :data:`VTK_TIMEOUT_S_PER_GIB` per GiB of data.
A normal read of a few MB takes well under a second (see the module docstring)."""

VTK_TIMEOUT_S_PER_GIB = 120.0

VTK_MEMORY_BASE_BYTES = 2 * 2**30
"""Address space the child may use beside its data: Python, numpy and VTK's libraries
reserve about 300 MB of address space before reading anything (measured ``VmPeak``)."""

VTK_MEMORY_PER_DATA_BYTE = 12
"""Address space per byte of (uncompressed) data: VTK's arrays, the float64 and int64
copies handed back, and the ``.npz`` buffers each hold a copy."""

_CHILD = Path(__file__).with_name("_vtk_child.py")


def read_vtk(file: Path, max_bytes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(points (n, 3) float64, offsets (f + 1,) int64, corners (c,) int64)`` of a VTK file.

    Raises
    ------
    MeshFileError
        Not a regular file, too large, or unreadable.
    CorruptMeshFileError
        Malformed (found by the pre-check or by VTK), or VTK crashed, ran out of its memory
        limit or of time.
    NoTrianglesError
        No polygons (points, lines or volume cells only).
    """
    is_xml = file.suffix.lower() == ".vtp"
    # The VTP pre-check reads the whole file; a legacy file only needs its first bytes here.
    data = read_regular_file(file, max_bytes, head=None if is_xml else 4096)
    if not data.strip():
        raise CorruptMeshFileError(file, "the file is empty")
    data_bytes = check_regular_file(file, max_bytes)
    if is_xml:
        data_bytes = max(data_bytes, check_vtp(file, data))
    del data
    memory = VTK_MEMORY_BASE_BYTES + VTK_MEMORY_PER_DATA_BYTE * data_bytes
    timeout = VTK_TIMEOUT_S + VTK_TIMEOUT_S_PER_GIB * data_bytes / 2**30
    return _read_in_child(file, memory, timeout)


def _read_in_child(
    file: Path, memory_bytes: int, timeout_s: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    with tempfile.TemporaryDirectory(prefix="bvh-lab-vtk-") as tmp:
        out = Path(tmp) / "mesh.npz"
        # Run as a script, so the child's sys.path starts with this package's folder, whose
        # module names shadow nothing numpy or VTK import; no -I, which would also drop the
        # user's site directory where VTK may be installed.
        command = [sys.executable, str(_CHILD), os.fspath(file), str(out), str(memory_bytes)]
        try:
            done = subprocess.run(
                command,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise CorruptMeshFileError(
                file, f"VTK's reader did not finish within {timeout_s:.0f} s and was stopped"
            ) from None
        except OSError as exc:
            raise MeshFileError(file, f"cannot start the VTK reader ({exc})") from None
        status = done.stdout.decode("utf-8", "replace").strip().splitlines()
        last = status[-1] if status else ""
        if done.returncode != 0 or not last:
            raise CorruptMeshFileError(file, _crash_reason(done.returncode, done.stderr))
        kind, _, reason = last.partition(": ")
        if kind == "no_triangles":
            raise NoTrianglesError(file, reason)
        if kind in ("corrupt", "memory"):
            raise CorruptMeshFileError(file, reason)
        with np.load(out, allow_pickle=False) as arrays:
            return arrays["points"], arrays["offsets"], arrays["corners"]


def _crash_reason(returncode: int, stderr: bytes) -> str:
    """One line saying how the child ended: a signal, an exit status, out of memory."""
    text = stderr.decode("utf-8", "replace")
    if "bad_alloc" in text or "MemoryError" in text or "Unable to allocate" in text:
        return "VTK's reader ran out of memory reading it (a declared size is too large?)"
    if returncode < 0:
        import signal

        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"VTK's reader crashed on it ({name}); the file is malformed"
    return f"VTK's reader failed on it (exit status {returncode})"
