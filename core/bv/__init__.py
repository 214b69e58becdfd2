"""Bounding volumes: one module per kind with the same function set, and one registry.

``BV_KINDS`` keys: ``aabb`` (SAT lite under rotation), ``aabb15`` (full 15-axis test), ``obb``,
``sphere``, ``kdop6``, ``kdop14``, ``kdop18``, ``kdop26``, ``pss``, ``lss``, ``rss``.
"""

from core.bv.obb_fit import ObbFit
from core.bv.registry import (
    BV_KINDS,
    TREE_BOX_KIND,
    BVKind,
    fit_from_triangles,
    fit_volumes,
    get_kind,
    refit_volumes,
)

__all__ = ["BV_KINDS", "TREE_BOX_KIND", "BVKind", "ObbFit", "fit_from_triangles", "fit_volumes",
           "get_kind", "refit_volumes"]
