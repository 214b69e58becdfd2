"""BVH Lab's collision engine: meshes, bounding-volume trees, traced tandem traversal and
exact triangle contacts. No GUI imports here (a test enforces it).

The one-call entry point for scripts and notebooks::

    from core import contacts, load_mesh
    result = contacts(load_mesh("assets/spot.obj"), load_mesh("assets/teapot.obj"))
    result.pairs        # (c, 2) contacting face ids
"""

from __future__ import annotations

import os

# numba's parallel kernels run on libgomp here, whose idle threads spin by default. When the
# other core is busy (the viewer's renderer, another process), every parallel launch then waits
# out a scheduler slice for its spinning partner: bunny vs bunny traversal measured 700 ms a
# frame with spinning and 4 ms with passive waiting, and no slower on an idle machine. It must
# be set before the OpenMP runtime loads, i.e. before the first parallel kernel runs.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from core.jit import numba_cache  # noqa: E402

numba_cache.configure()

from typing import TYPE_CHECKING  # noqa: E402

from core.mesh import TriMesh  # noqa: E402
from core.pose import Pose  # noqa: E402

if TYPE_CHECKING:
    from core.collide import CollisionResult
    from core.request import CollisionRequest


def contacts(
    mesh_a: TriMesh,
    mesh_b: TriMesh,
    pose_a: Pose | None = None,
    pose_b: Pose | None = None,
    request: CollisionRequest | None = None,
    **overrides,
) -> CollisionResult:
    """Build both trees (or the requested spatial partition) and return every contacting
    triangle pair.

    Parameters
    ----------
    mesh_a, mesh_b : TriMesh
    pose_a, pose_b : Pose, optional
        World poses (identity when None).
    request : CollisionRequest, optional
        Every choice of the query (:class:`core.request.CollisionRequest`); default: AABB
        tree, midpoint split, one triangle per leaf, no trace, exact contacts only.
    **overrides
        Fields of the request to change, e.g. ``split="sah"``, ``leaf_size=4``,
        ``trace=True``, ``descend="both"``, ``margin=0.01``, ``bv="obb"``,
        ``partition="octree"``. ``split``, ``descend`` and ``obb_fit`` also take their
        names (any case). ``margin`` (``D >= 0``) also lists the pairs that do not touch but
        are at most ``D`` apart (``near_pairs``, ``near_distances``).
        ``pair_budget=N`` bounds the overlapping volume pairs (and triangle pairs) of the
        query (default 50 million).

    Returns
    -------
    CollisionResult
        Contacts decided exactly for the float64 coordinates (B's after its pose, computed in
        float64).

    Raises
    ------
    TypeError
        An argument of the wrong type, or an unknown override (named in the message).
    ValueError
        ``leaf_size < 1``, an unknown rule name, a posed mesh whose coordinates reach past
        :data:`core.mesh.MAX_ABS_COORDINATE`, or a frame option asked for (``distance``,
        ``containment``, ``self_collision``: :data:`FRAME_OPTIONS` names the call that
        answers each).
    PairBudgetError
        The trees' boxes overlap in more than ``pair_budget`` pairs: one line naming the tree
        and the budget (:class:`core.errors.PairBudgetError`, a ValueError too).
    """
    from core.bv import ObbFit
    from core.bvh import SplitRule
    from core.checks import enum_member, instance
    from core.collide import DescendRule
    from core.collide.dispatch import run_query
    from core.mesh import check_coordinate_bound
    from core.request import CollisionRequest

    hint = " (make one with TriMesh(vertices=..., faces=...) or load_mesh(path))"
    instance(mesh_a, "mesh_a", TriMesh, hint=hint)
    instance(mesh_b, "mesh_b", TriMesh, hint=hint)
    instance(pose_a, "pose_a", Pose, optional=True)
    instance(pose_b, "pose_b", Pose, optional=True)
    instance(request, "request", CollisionRequest, optional=True)
    base = request if request is not None else CollisionRequest()
    # Rule names are taken here (a script says split="sah"); the request itself holds members.
    for name, enum_cls in (("split", SplitRule), ("descend", DescendRule), ("obb_fit", ObbFit)):
        if name in overrides:
            overrides[name] = enum_member(overrides[name], name, enum_cls, getattr(base, name))
    _refuse_frame_options(overrides)
    request = base.replace(**overrides) if overrides else base
    check_coordinate_bound(mesh_a, "mesh_a", pose_a)
    check_coordinate_bound(mesh_b, "mesh_b", pose_b)
    return run_query(request, mesh_a, mesh_b, pose_a, pose_b)


FRAME_OPTIONS = {
    "distance": "core.distance.min_distance(mesh_a, mesh_b, pose_a, pose_b)",
    "containment": "core.containment.pair_containment(mesh_a, mesh_b, pose_a, pose_b)",
    "self_collision": "core.collide.selfcollide.self_collide(mesh, tree)",
}
"""Fields of :class:`core.request.FrameOptions`, which only the frame pipeline runs
(``FramePipeline`` with ``PipelineSettings(frame=...)``), and the call that answers each for
one pair of meshes."""


def _refuse_frame_options(overrides: dict) -> None:
    """An option ``contacts`` would not run is an error, not a silent no-op: ``contacts(...,
    distance=True)`` answered with contacts only. ``distance=False`` asks for nothing and is
    dropped (the request has no such field)."""
    for name in FRAME_OPTIONS:
        if name in overrides and overrides.pop(name):
            raise ValueError(f"{name}=True: contacts() answers the contact query of two "
                             f"meshes only; {name} is a frame option (PipelineSettings("
                             f"frame=FrameOptions(...))), or call {FRAME_OPTIONS[name]}")


def load_mesh(path, name=None) -> TriMesh:
    """Read a mesh file; see :func:`core.io.load_mesh`.

    Raises
    ------
    TypeError
        ``name`` given and not a str.
    """
    from core.io import load_mesh as _load

    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")

    return _load(path, name) if name is not None else _load(path)


__all__ = ["Pose", "TriMesh", "contacts", "load_mesh"]
