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

from core import _numba_cache  # noqa: E402

_numba_cache.configure()

from typing import TYPE_CHECKING  # noqa: E402

import numpy as np  # noqa: E402

from core.mesh import TriMesh  # noqa: E402
from core.pose import Pose  # noqa: E402

if TYPE_CHECKING:
    from core.bvh import SplitRule
    from core.collide import CollisionResult, DescendRule


def contacts(
    mesh_a: TriMesh,
    mesh_b: TriMesh,
    pose_a: Pose | None = None,
    pose_b: Pose | None = None,
    split: SplitRule | None = None,
    leaf_size: int = 1,
    trace: bool = False,
    descend: DescendRule | None = None,
    margin: float = 0.0,
) -> CollisionResult:
    """Build both trees and return every contacting triangle pair.

    Parameters
    ----------
    mesh_a, mesh_b : TriMesh
    pose_a, pose_b : Pose, optional
        World poses (identity when None).
    split : SplitRule or str, optional
        Default :attr:`SplitRule.MIDPOINT`; a name such as ``"sah"`` also works.
    leaf_size : int
        At least 1.
    trace : bool
        Keep the per-level record of the traversal.
    descend : DescendRule or str, optional
        Default :attr:`DescendRule.LARGER_VOLUME`.
    margin : float
        Near-contact distance ``D >= 0``: the result also lists the pairs that do not touch
        but are at most ``D`` apart (``near_pairs``, ``near_distances``). Default 0: exact
        contacts only.

    Returns
    -------
    CollisionResult
        Contacts decided exactly for the float64 coordinates (B's after its pose, computed in
        float64).

    Raises
    ------
    TypeError
        An argument of the wrong type (named in the message).
    ValueError
        ``leaf_size < 1``, an unknown rule name, or a posed mesh whose coordinates reach past
        :data:`core.mesh.MAX_ABS_COORDINATE`.
    """
    from core.bvh import SplitRule, build_trees
    from core.checks import enum_member, instance, integer
    from core.collide import DescendRule, collide
    from core.mesh import check_coordinate_bound

    hint = " (make one with TriMesh(vertices=..., faces=...) or load_mesh(path))"
    instance(mesh_a, "mesh_a", TriMesh, hint=hint)
    instance(mesh_b, "mesh_b", TriMesh, hint=hint)
    instance(pose_a, "pose_a", Pose, optional=True)
    instance(pose_b, "pose_b", Pose, optional=True)
    split = enum_member(split, "split", SplitRule, SplitRule.MIDPOINT)
    descend = enum_member(descend, "descend", DescendRule, DescendRule.LARGER_VOLUME)
    leaf_size = integer(leaf_size, "leaf_size", minimum=1)
    if not isinstance(trace, (bool, np.bool_)):
        raise TypeError(f"trace must be a bool, got {type(trace).__name__}")
    check_coordinate_bound(mesh_a, "mesh_a", pose_a)
    check_coordinate_bound(mesh_b, "mesh_b", pose_b)
    tree_a, tree_b = build_trees([mesh_a, mesh_b], split, leaf_size)
    return collide(mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b, descend=descend, trace=trace,
                   margin=margin)  # fmt: skip


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
