"""Wave: a travelling sine wave that moves vertices along a fixed axis."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from core.deform.base import Axis, Deformer, RestBox, choice, param, safe_inverse


@dataclass(frozen=True)
class Wave(Deformer):
    """A travelling wave along one axis that displaces vertices along a fixed direction.

    With ``s = (x_P - bmin_P) / extent_P`` in ``[0, 1]`` the position along the propagation
    axis ``P``, each vertex moves along the axis ``D`` by::

        amplitude * size * sin(2 pi (s / wavelength - speed t))

    ``size`` is the longest side of the rest box. The displacement is along a fixed axis, not
    the vertex normal: a deformer only sees vertex positions, and a fixed direction keeps the
    map smooth, so neighbouring triangles never pass through each other for amplitudes below
    ``wavelength / (2 pi)`` of the length. ``D == P`` (an explicit choice) gives a compression
    wave. The wave is already displaced at ``t = 0``.

    Attributes
    ----------
    amplitude : float
        Peak displacement relative to the box size (default 0.04).
    wavelength : float
        Wavelength relative to the box side along ``P`` (default 0.5: two crests).
    speed : float
        Crossings of one wavelength per second, Hz (default 0.5).
    axis : Axis
        Propagation axis ``P`` (default the longest side).
    direction : Axis
        Displacement axis ``D`` (default the shortest side, the normal of a flat sheet).
    """

    amplitude: float = param(0.04, 0.0, 0.2, "amplitude (x size)")
    wavelength: float = param(0.5, 0.05, 2.0, "wavelength (x length)")
    speed: float = param(0.5, 0.0, 3.0, "speed (Hz)")
    axis: Axis = choice(Axis.LONGEST, "travels along")
    direction: Axis = choice(Axis.SHORTEST, "moves along")

    label = "Wave"
    description = (
        "A ripple runs along the mesh; every leaf box moves a little each frame, which is the "
        "case where refitting the old tree beats rebuilding it."
    )
    is_rest_at_zero = False

    def __post_init__(self):
        super().__post_init__()
        if not self.wavelength > 0.0:
            raise ValueError(f"wavelength must be positive, got {self.wavelength}")

    def _deform(self, rest: np.ndarray, t: float, box: RestBox) -> np.ndarray:
        a_p = box.axis_index(self.axis)
        a_d = box.axis_index(self.direction)
        if self.amplitude == 0.0:
            return rest.copy()
        cycles_per_length = safe_inverse(box.extent[a_p]) / self.wavelength
        return _wave(rest, a_p, a_d, box.bmin[a_p], 2.0 * np.pi * cycles_per_length,
                     -2.0 * np.pi * self.speed * t, self.amplitude * box.size)


@njit(cache=True, nogil=True)
def _wave(rest, a_p, a_d, start, k, phase0, height):
    """Add ``height * sin(k (x_p - start) + phase0)`` to coordinate ``a_d``.

    A fused loop: the numpy version measured 2.4 ms at n = 69000 (strided column passes
    around the sine), this one 1.2 ms.

    Parameters
    ----------
    rest : (n, 3) float64
    a_p, a_d : int
        Propagation and displacement axis indices (may be equal).
    start, k, phase0, height : float
        Origin of the phase, radians per unit length, phase at the origin, displacement.

    Returns
    -------
    (n, 3) float64
    """
    out = rest.copy()
    for n in range(rest.shape[0]):
        out[n, a_d] += height * np.sin(k * (rest[n, a_p] - start) + phase0)
    return out
