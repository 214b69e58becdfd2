"""Exact arithmetic on float64: error-free transformations and Shewchuk's adaptive orientation
predicates (:mod:`core.exact.predicates`); exact vector algebra on int and Fraction tuples
(:mod:`core.exact.rational`) for the rational referee and the exact gap.

The lowest layer of the engine: it imports no other part of the core, so the bounding
volumes (:mod:`core.bv.hull`'s compensated normals) and the triangle test
(:mod:`core.collide.tritri`) share one implementation.
"""
