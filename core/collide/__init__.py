"""Collision queries: tandem traversal, trace, exact triangle tests, self-collision."""

from core.collide.query import CollisionResult, collide, relative_pose
from core.collide.selfcollide import self_collide
from core.collide.tandem import DescendRule
from core.collide.trace import Counters, Trace

__all__ = [
    "CollisionResult",
    "Counters",
    "DescendRule",
    "Trace",
    "collide",
    "relative_pose",
    "self_collide",
]
