"""Deformers: pure maps (rest vertices, t) -> new vertices, and the interactive brush.

``DEFORMERS`` is the registry the viewer and the benchmarks pick from by name; every entry
is a frozen dataclass subclass of :class:`~core.deform.base.Deformer` whose fields carry
slider metadata (see :meth:`Deformer.params`).
"""

from __future__ import annotations

from core.deform.base import Axis, Deformer, ParamSpec, RestBox, rest_box
from core.deform.bend import Bend
from core.deform.brush import BrushHistory, Falloff, brush_pull, brush_weights
from core.deform.inflate import Inflate
from core.deform.noise import Noise
from core.deform.radial_wave import RadialWave
from core.deform.twist import Twist
from core.deform.wave import Wave

DEFORMERS: dict[str, type[Deformer]] = {
    "twist": Twist,
    "bend": Bend,
    "wave": Wave,
    "inflate": Inflate,
    "noise": Noise,
    "radial_wave": RadialWave,
}


def make_deformer(name: str, **params) -> Deformer:
    """Build the deformer registered as ``name`` with the given field values.

    Raises
    ------
    KeyError
        Unknown name (the message lists the known ones).
    """
    try:
        cls = DEFORMERS[name]
    except KeyError:
        raise KeyError(f"unknown deformer {name!r}; known: {', '.join(DEFORMERS)}") from None
    return cls(**params)


__all__ = [
    "DEFORMERS",
    "Axis",
    "Bend",
    "BrushHistory",
    "Deformer",
    "Falloff",
    "Inflate",
    "Noise",
    "ParamSpec",
    "RadialWave",
    "RestBox",
    "Twist",
    "Wave",
    "brush_pull",
    "brush_weights",
    "make_deformer",
    "rest_box",
]
