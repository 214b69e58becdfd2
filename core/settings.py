"""Tolerances and other settings shared by the engine, in one frozen place.

No module keeps a private epsilon: every test that needs one takes it from here, scaled to
the size of the geometry it looks at (trimesh ``tol`` style).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tolerances:
    """Relative tolerances of the exact tests.

    Attributes
    ----------
    tri_rel : float
        Distance tolerance of the triangle-triangle test relative to the largest edge of the
        two triangles. A fixed absolute epsilon gives false positives on large meshes of small
        triangles (reported 3-5x at 100k triangles by a peer); scaling by the triangles' own
        size keeps the test scale-invariant. ``1e-12`` leaves about four decimal digits of
        float64 headroom for the products of three coordinates in the orientation tests.
    degenerate_rel : float
        A triangle whose doubled area is below ``degenerate_rel * longest_edge**2`` is
        degenerate (zero area: repeated or collinear vertices).
    box_rel : float
        Bounding volumes are inflated by ``box_rel`` times the scene extent so that touching
        contacts found by the triangle test are never culled by round-off in a box test.
    """

    tri_rel: float = 1e-12
    degenerate_rel: float = 1e-12
    box_rel: float = 1e-9


DEFAULT_TOLERANCES = Tolerances()
