"""The sculpt brush: pull the vertices near a point along a drag vector, with undo."""

from __future__ import annotations

import collections
import enum

import numpy as np
from numba import njit

from core.deform.base import as_rest
from core.jit.kernel_args import frozen


class Falloff(enum.Enum):
    """How a brush's influence fades from its centre (weight ``w(d)`` for ``d < radius``).

    SMOOTH
        ``(1 - (d/r)^2)^2``: the "smooth" falloff of sculpting tools; weight and slope both
        reach zero at the rim, so the pulled patch has no crease there.
    LINEAR
        ``1 - d/r``: a cone, with a crease at the rim and a point at the centre.
    CONSTANT
        ``1``: the whole ball moves rigidly, with a step at the rim.
    """

    SMOOTH = "smooth"
    LINEAR = "linear"
    CONSTANT = "constant"


def _check_radius(radius: float) -> float:
    radius = float(radius)
    if not (np.isfinite(radius) and radius >= 0.0):
        raise ValueError(f"brush radius must be finite and >= 0, got {radius}")
    return radius


def brush_weights(vertices, center, radius: float, falloff: Falloff = Falloff.SMOOTH) -> np.ndarray:
    """Influence of a brush of ``radius`` at ``center`` on each vertex.

    Parameters
    ----------
    vertices : (n, 3) float64
    center : (3,) float64
    radius : float
        Brush radius, >= 0 (0 touches nothing).
    falloff : Falloff

    Returns
    -------
    (n,) float64
        In ``[0, 1]``; exactly 0 at distance ``>= radius``, 1 at the centre.

    Raises
    ------
    ValueError
        Negative or non-finite radius.
    """
    v = as_rest(vertices)
    c = frozen(np.asarray(center, dtype=np.float64).reshape(3))  # read-only as v: one signature
    radius = _check_radius(radius)
    return _weights(v, c, radius, _FALLOFF_CODE[falloff])


_FALLOFF_CODE = {Falloff.SMOOTH: 0, Falloff.LINEAR: 1, Falloff.CONSTANT: 2}


@njit(cache=True, nogil=True)
def _weight(q, code):
    """Weight at squared relative distance ``q = (d / r)^2 < 1`` for falloff ``code``."""
    if code == 0:
        return (1.0 - q) * (1.0 - q)
    if code == 1:
        return 1.0 - np.sqrt(q)
    return 1.0


@njit(cache=True, nogil=True)
def _weights(vertices, center, radius, code):
    """Brush weights, ``(n,) float64``; zero at ``d >= radius`` (all zero for radius 0).

    One fused loop: the numpy version (difference, squared norm, mask) measured 2.8 ms at
    n = 69000, this one about 0.2 ms. Squared distances avoid the square root for SMOOTH.
    """
    n_vertices = vertices.shape[0]
    w = np.zeros(n_vertices)
    r_sq = radius * radius
    if r_sq == 0.0:
        return w
    for n in range(n_vertices):
        d0 = vertices[n, 0] - center[0]
        d1 = vertices[n, 1] - center[1]
        d2 = vertices[n, 2] - center[2]
        q = (d0 * d0 + d1 * d1 + d2 * d2) / r_sq
        if q < 1.0:
            w[n] = _weight(q, code)
    return w


@njit(cache=True, nogil=True)
def _pull(vertices, center, drag, radius, code):
    """``vertices + weights[:, None] * drag``, a new ``(n, 3) float64`` array."""
    out = vertices.copy()
    r_sq = radius * radius
    if r_sq == 0.0:
        return out
    for n in range(vertices.shape[0]):
        d0 = vertices[n, 0] - center[0]
        d1 = vertices[n, 1] - center[1]
        d2 = vertices[n, 2] - center[2]
        q = (d0 * d0 + d1 * d1 + d2 * d2) / r_sq
        if q < 1.0:
            w = _weight(q, code)
            out[n, 0] += w * drag[0]
            out[n, 1] += w * drag[1]
            out[n, 2] += w * drag[2]
    return out


def brush_pull(vertices, center, drag, radius: float, strength: float = 1.0,
               falloff: Falloff = Falloff.SMOOTH) -> np.ndarray:
    """Move vertices near ``center`` along ``drag``: ``vertices + strength * w[:, None] * drag``.

    Parameters
    ----------
    vertices : (n, 3) float64
        Never written.
    center : (3,) float64
        Brush centre (the picked surface point).
    drag : (3,) float64
        Displacement of the centre, in the same frame as ``vertices``.
    radius : float
        Brush radius, >= 0.
    strength : float
        Multiplier of the drag (1 moves the centre vertex by exactly ``drag``).
    falloff : Falloff

    Returns
    -------
    (n, 3) float64
        A new array.
    """
    v = as_rest(vertices)
    c = frozen(np.asarray(center, dtype=np.float64).reshape(3))  # read-only as v: one signature
    d = frozen(float(strength) * np.asarray(drag, dtype=np.float64).reshape(3))
    return _pull(v, c, d, _check_radius(radius), _FALLOFF_CODE[falloff])


class BrushHistory:
    """A bounded undo stack of vertex arrays, one entry per brush stroke.

    Push the vertices as they were before each stroke; :meth:`undo` gives them back. When
    more than ``max_depth`` strokes are pushed, the oldest is dropped. Each entry is a full
    read-only copy, so memory is at most ``max_depth * n * 24`` bytes: 32 strokes of a
    69k-vertex mesh take 53 MB, of the 36k-vertex bunny 28 MB.

    Parameters
    ----------
    max_depth : int
        Number of strokes kept (default 32).
    """

    def __init__(self, max_depth: int = 32):
        if int(max_depth) < 1:
            raise ValueError(f"max_depth must be >= 1, got {max_depth}")
        self.max_depth = int(max_depth)
        self._stack: collections.deque[np.ndarray] = collections.deque(maxlen=self.max_depth)

    def push(self, vertices) -> None:
        """Remember ``vertices`` ``(n, 3) float64`` (copied, so later edits don't leak in)."""
        v = np.array(as_rest(vertices), dtype=np.float64, copy=True)
        v.flags.writeable = False
        self._stack.append(v)

    def undo(self) -> np.ndarray | None:
        """The most recently pushed vertices ``(n, 3) float64`` (read-only), or None if empty."""
        return self._stack.pop() if self._stack else None

    def reset_to(self, rest) -> np.ndarray:
        """Forget every stroke and return a new writable copy of ``rest`` ``(n, 3) float64``."""
        self._stack.clear()
        return np.array(as_rest(rest), dtype=np.float64, copy=True)

    def clear(self) -> None:
        """Forget every stroke."""
        self._stack.clear()

    def __len__(self) -> int:
        return len(self._stack)

    @property
    def n_bytes(self) -> int:
        """Memory held by the stored arrays, bytes."""
        return sum(a.nbytes for a in self._stack)
