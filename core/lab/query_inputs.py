"""What a frame's pair traversal tested, rebuilt from the frame exactly as the query built it.

The stepper (:mod:`core.lab.steps`) and the separating axis of a culled pair
(:mod:`core.lab.separation`) read the same volumes, pose and margins the traversal read;
:func:`query_inputs` rebuilds them from a frame (live or recorded) without running the query,
and the descend rule's volume comparison is repeated here with the kernel's arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.bv.aabb import BMAX, BMIN
from core.bv.registry import BVKind, fit_volumes, get_kind
from core.collide.tandem import DescendRule
from core.collide.traversal import TREE_BOXES
from core.jit.kernel_args import frozen


@dataclass(frozen=True, eq=False)
class QueryInputs:
    """What the frame's traversal read, rebuilt from the frame exactly as the query built it.

    Attributes
    ----------
    kind : BVKind
        The kind tested (the tree-box kind for the trees' own boxes).
    code : int
        :data:`~core.collide.traversal.TREE_BOXES` or the kind's code.
    trees : (Tree, Tree)
        After a non-unit pose scale is moved into them (:func:`core.collide.query.rigid_body`).
    meshes : (TriMesh, TriMesh)
        Likewise.
    volumes : ((ka, w), (kb, w)) float64
        The kind's rows of both trees, in each body's local frame (``[bmin, bmax]`` rows for
        the trees' own boxes).
    rot, trans : (3, 3), (3,) float64
        Pose of B in A's frame.
    margin : float
        The padding every volume test added (round-off margin plus near-contact margin).
    near_margin : float
        The request's near-contact margin (part of ``margin``).
    rule : DescendRule
    pose_a : Pose
        A's world pose (rigid).
    """

    kind: BVKind
    code: int
    trees: tuple
    meshes: tuple
    volumes: tuple
    rot: np.ndarray
    trans: np.ndarray
    margin: float
    near_margin: float
    rule: DescendRule
    pose_a: object


def query_inputs(frame) -> QueryInputs:
    """The arrays the frame's pair traversal tested, as :func:`core.collide.query.collide` and
    :func:`core.collide.bvquery.collide_bv` prepared them (the volume fits are cached, so this
    costs no fit for a frame the pipeline just ran)."""
    from core.bv import TREE_BOX_KIND
    from core.collide.query import box_margin, relative_pose, rigid_body
    from core.pose import Pose

    request = frame.request
    kind = get_kind(request.bv)
    mesh_a, tree_a, pose_a = rigid_body(frame.meshes[0], frame.trees[0], frame.poses[0])
    mesh_b, tree_b, pose_b = rigid_body(frame.meshes[1], frame.trees[1], frame.poses[1])
    rel = relative_pose(pose_a, pose_b)
    pad = box_margin(tree_a, tree_b, request.tol)
    # A frame keeps the very rows its traversal tested (a stored frame too, so stepping it
    # runs no fit); with a scaled pose the traversal tested rows of the scaled mesh instead.
    stored = frame.volumes
    is_rigid = all(p is None or p.is_rigid for p in frame.poses[:2])
    if stored is not None and stored.name == kind.name and is_rigid and len(stored.rows) >= 2:
        volumes = (np.asarray(stored.rows[0]), np.asarray(stored.rows[1]))
    elif kind.name == TREE_BOX_KIND:
        volumes = (np.concatenate([tree_a.bmin, tree_a.bmax], axis=1),
                   np.concatenate([tree_b.bmin, tree_b.bmax], axis=1))  # fmt: skip
    else:
        volumes = (fit_volumes(tree_a, mesh_a, kind, request.obb_fit),
                   fit_volumes(tree_b, mesh_b, kind, request.obb_fit))  # fmt: skip
    if kind.name == TREE_BOX_KIND:
        code = TREE_BOXES
        margin = pad + request.margin
    else:
        code = kind.code
        # The padding collide_bv adds: sqrt(3) D for the near-contact margin D.
        margin = pad + np.sqrt(3.0) * request.margin
    # Read-only rows, as the traversal reads them (core.jit.kernel_args): the stepper's kernel
    # calls reuse the traversal's compiled signatures.
    return QueryInputs(kind=kind, code=code, trees=(tree_a, tree_b), meshes=(mesh_a, mesh_b),
                       volumes=tuple(frozen(v) for v in volumes), rot=frozen(rel.rotation),
                       trans=frozen(rel.translation), margin=float(margin),
                       near_margin=float(request.margin), rule=DescendRule(request.descend),
                       pose_a=pose_a if pose_a is not None else Pose())  # fmt: skip


def volume_measure(inputs: QueryInputs, side: int, node: int) -> tuple[float, float]:
    """``(volume, tie-break)`` of one node as the traversal's larger-volume rule compares
    them: the box test compares half-extent products, then half-extent sums on a tie; the
    kinds compare their ``volume`` (the OBB its half-extent product) and keep A on a tie."""
    from core.bv.registry import volume_by_code

    row = inputs.volumes[side]
    if inputs.code == TREE_BOXES:
        half = 0.5 * (row[node, BMAX] - row[node, BMIN])
        return float(half[0] * half[1] * half[2]), float(half.sum())
    # An int32 node id, as the traversal passes its node ids: the signature it compiled.
    return float(volume_by_code(inputs.code, row, np.int32(node))), 0.0


def volume_measures(inputs: QueryInputs, side: int,
                     nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`volume_measure` of many nodes, ``(r,) float64`` each: one call per distinct
    node (the same arithmetic, so the same comparisons)."""
    unique, inverse = np.unique(nodes, return_inverse=True)
    pairs = [volume_measure(inputs, side, int(node)) for node in unique.tolist()]
    table = np.asarray(pairs, dtype=np.float64).reshape(-1, 2)
    return table[inverse, 0], table[inverse, 1]


def shown_volume(inputs: QueryInputs, side: int, node: int) -> float:
    """The node's volume as a student would compute it (the box's, not its eighth)."""
    if inputs.code == TREE_BOXES:
        return 8.0 * volume_measure(inputs, side, node)[0]
    from core.bv.registry import volume_by_code

    return float(volume_by_code(inputs.code, inputs.volumes[side], np.int32(node)))


def split_a_by_volume(inputs: QueryInputs, a: int, b: int) -> bool:
    """Whether the larger-volume rule splits A (exactly the kernel's comparison)."""
    vol_a, tie_a = volume_measure(inputs, 0, a)
    vol_b, tie_b = volume_measure(inputs, 1, b)
    if inputs.code == TREE_BOXES:
        return vol_a > vol_b or (vol_a == vol_b and tie_a >= tie_b)
    return vol_a >= vol_b
