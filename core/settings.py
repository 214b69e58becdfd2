"""Tolerances and other settings shared by the engine, in one frozen place.

No module keeps a private epsilon: every test that needs one takes it from here, scaled to
the size of the geometry it looks at (trimesh ``tol`` style). The triangle-triangle contact
decision has no tolerance at all: it is exact (:mod:`core.collide.tritri`); near contact is
the explicit ``margin`` option of the queries.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tolerances:
    """Relative tolerances of the float64 geometry around the exact triangle test.

    Attributes
    ----------
    degenerate_rel : float
        A triangle whose doubled area is below ``degenerate_rel * longest_edge**2`` is
        degenerate (zero area: repeated or collinear vertices). Only used to count bad
        triangles of a mesh; the triangle test decides degeneracy exactly.
    box_rel : float
        Bounding volumes are inflated by ``box_rel`` times the scene extent so that touching
        contacts found by the triangle test are never culled by round-off in a box test.
    """

    degenerate_rel: float = 1e-12
    box_rel: float = 1e-9


DEFAULT_TOLERANCES = Tolerances()
