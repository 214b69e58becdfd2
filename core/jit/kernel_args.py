"""Arrays as the kernels receive them: read-only, C-contiguous, of the dtype the kernel expects.

numba compiles a kernel once per signature, and an array's type in the signature includes
whether it is writable: a kernel called once with a writable array and once with a read-only
one (a mesh's vertices, rows read with ``np.load``, arrays of a frozen dataclass) compiles
twice, tens of seconds for the traversal or the exact triangle test, and the warmed cache
(``python -m core warmup``) holds only the signatures the warm-up called. So every input array
that enters a kernel from Python goes through :func:`frozen` at the core's entry points: the
app, the command line and a test with arrays of its own all meet the one signature the warm-up
compiled. Arrays a kernel writes (its outputs) are passed as they are.
"""

from __future__ import annotations

import numpy as np


def frozen(array, dtype=None) -> np.ndarray:
    """``array`` as a read-only, C-contiguous array of ``dtype``.

    Parameters
    ----------
    array : array_like, at least 1-d
    dtype : numpy dtype, optional
        Converted to it (a copy) when it differs; default: the array's own.

    Returns
    -------
    numpy.ndarray
        ``array`` itself when it already is read-only and C-contiguous of ``dtype``; else a
        read-only view (no copy: the caller's array keeps its own flag), or a read-only copy
        when the layout or dtype had to change.
    """
    out = np.ascontiguousarray(array, dtype=dtype)
    if out.flags.writeable:
        out = out.view()
        out.flags.writeable = False
    return out


def frozen_args(args: tuple) -> tuple:
    """``args`` with every array of at least one dimension :func:`frozen` (numbers and other
    objects unchanged): the inputs of a kernel call, never its output arrays."""
    return tuple(frozen(a) if isinstance(a, np.ndarray) and a.ndim else a for a in args)
