"""3-vectors as tuples, for numba kernels: numba keeps tuples in registers, so a kernel built
on these allocates nothing (a heap array per small vector cost the triangle test and the
swept-sphere distances most of their time). Every function also accepts a (3,) array.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def vec3(a):
    """A 3-vector (array or tuple) as a tuple."""
    return (a[0], a[1], a[2])


@njit(cache=True, nogil=True)
def sub3(a, b):
    """``a - b``."""
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@njit(cache=True, nogil=True)
def dot3(a, b):
    """Dot product (numba's ``np.dot`` needs a BLAS from scipy)."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, nogil=True)
def cross3(a, b):
    """Cross product."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(cache=True, nogil=True)
def norm3(a):
    """Euclidean length."""
    return np.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@njit(cache=True, nogil=True)
def scale3(a, s):
    """``s a``."""
    return (a[0] * s, a[1] * s, a[2] * s)


@njit(cache=True, nogil=True)
def axpy3(a, s, b):
    """``a + s b``."""
    return (a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2])


@njit(cache=True, nogil=True)
def lerp3(a, b, t):
    """``a + t (b - a)``."""
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t)
