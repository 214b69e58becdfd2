"""The core's deformer registry as the Deform dock lists it: keys, labels, sliders, help."""

from __future__ import annotations

from core.deform import DEFORMERS


def deformer_fields(name: str) -> list:
    """Slider specs of a deformer: the core's ``ParamSpec`` list for ``DEFORMERS[name]``."""
    return list(DEFORMERS[name].params())


def deformer_names() -> list[tuple[str, str]]:
    """``(key, label)`` of every registered deformer."""
    return [(key, getattr(cls, "label", key) or key) for key, cls in DEFORMERS.items()]


def deformer_description(name: str) -> str:
    """One paragraph on what deformer ``name`` does, shown in the Deform dock."""
    return getattr(DEFORMERS[name], "description", "")
