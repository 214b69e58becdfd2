"""Inflate: a pulse that scales the mesh about its centroid."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.deform.base import Deformer, RestBox, centroid, oscillation, param


@dataclass(frozen=True)
class Inflate(Deformer):
    """Uniform scaling about the vertex centroid by ``1 + amplitude * sin(2 pi speed t)``.

    Every length scales by that factor, so a closed mesh's volume scales by its cube.

    Attributes
    ----------
    amplitude : float
        Peak relative change of size (default 0.15). ``|amplitude| < 1`` so the factor stays
        positive (a non-positive factor would turn the mesh inside out).
    speed : float
        Pulse frequency, Hz (default 0.5).
    """

    amplitude: float = param(0.15, 0.0, 0.9, "amplitude")
    speed: float = param(0.5, 0.0, 3.0, "speed (Hz)")

    label = "Inflate"
    description = (
        "The mesh breathes in and out about its centre; every box grows or shrinks by the same "
        "factor, so the tree's shape stays perfect while all the overlaps change at once."
    )

    def __post_init__(self):
        super().__post_init__()
        if not abs(self.amplitude) < 1.0:
            raise ValueError(f"|amplitude| must be below 1, got {self.amplitude}")

    def _deform(self, rest: np.ndarray, t: float, box: RestBox) -> np.ndarray:
        factor = 1.0 + self.amplitude * oscillation(self.speed, t)
        if factor == 1.0:
            return rest.copy()
        center = centroid(rest)
        out = rest * factor
        out += (1.0 - factor) * center
        return out
