"""Self-collision: the triangles of one mesh that meet other triangles of the same mesh.

The self-traversal starts at the pair ``(root, root)``. A pair of a node with itself is never
box-tested (a box always overlaps itself): an internal node ``n`` with children ``l, r`` is
replaced by ``(l, l)``, ``(l, r)`` and ``(r, r)``, and a leaf gives its own triangle pairs. A
pair of two different nodes is a pair of disjoint subtrees and is handled exactly as in the
tandem traversal of two trees (the one kernel of :mod:`core.collide.traversal`, with the
tree's own boxes and the same descend rules), so every unordered triangle pair ``{i, j}``,
``i != j``, is reached at most once.
The trace has the same layout as :class:`core.collide.trace.Trace`, with both node columns in
the one tree; a self pair ``(n, n)`` is recorded as overlapping.

Neighbours in a mesh always touch, so triangles that share corners are filtered by what they
share (vertex indices, as welded by the loader):

* no shared corner: any contact counts (the kinds of :mod:`core.collide.tritri`);
* one shared corner ``v``: only if the contact reaches beyond ``v``: CROSSING or COPLANAR, or
  a TOUCHING contact whose segment is not the single point ``v`` (the exact test reports a
  point contact at a shared corner as exactly that corner, twice);
* two or three shared corners (an edge, or a duplicated face): only a COPLANAR overlap, the
  two triangles folded onto each other.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from core.bvh.tree import Tree
from core.collide.budget import (
    DEFAULT_PAIR_BUDGET,
    NO_BUDGET,
    STATUS,
    STATUS_DONE,
    QueryControl,
    check_budget,
    raise_if_stopped,
    start_array,
    tree_name,
)
from core.collide.query import CollisionResult, lexicographic_order
from core.collide.tandem import DescendRule
from core.collide.traversal import (
    PARALLEL_MIN_PAIRS,
    TREE_BOXES,
    TraversalRecord,
    traverse_from_roots,
)
from core.collide.traversal_driver import (
    check_triangle_budget,
    traversal_counters,
    traversal_trace,
)
from core.collide.tritri import ContactKind, check_kinds, tri_tri_batch
from core.mesh import TriMesh, read_only
from core.pose import Pose
from core.settings import DEFAULT_TOLERANCES, Tolerances

__all__ = ["expand_self_leaf_pairs", "self_collide", "self_traverse", "shared_corner_counts"]


# Read-only like a Pose's arrays: the kernel then runs on the machine code compiled for the
# two-tree queries instead of compiling (and caching) a second specialisation of itself.
_IDENTITY = read_only(np.eye(3))
_NO_SHIFT = read_only(np.zeros(3))


def self_traverse(first, count, bmin, bmax, margin, rule, record,
                  parallel_min=PARALLEL_MIN_PAIRS, budget=NO_BUDGET,
                  control_array=None) -> TraversalRecord:  # fmt: skip
    """Self-traversal of one tree from ``(root, root)``, level by level, on this thread.

    ``first, count (k,) int32`` and ``bmin, bmax (k, 3) float64`` are the tree's; ``margin``,
    ``rule`` (for pairs of two different nodes), ``record`` and ``parallel_min`` are as in
    :func:`core.collide.tandem.traverse`; ``budget`` and ``control_array`` as in
    :func:`core.collide.traversal.traverse_from_roots` (the caller reads the status).

    Returns
    -------
    TraversalRecord
        ``leaf_a == leaf_b`` for a leaf against itself; ``counts`` are box tests (pairs of
        different nodes), overlaps (including self pairs) and leaf pairs (see
        :func:`core.collide.traversal.traverse_levels`).
    """
    return traverse_from_roots(TREE_BOXES, first, count, bmin, bmax, bmin, first, count, bmin,
                               bmax, bmin, _IDENTITY, _NO_SHIFT, margin, rule, True, record,
                               parallel_min=parallel_min, budget=budget,
                               control_array=control_array)  # fmt: skip


@njit(cache=True, nogil=True)
def expand_self_leaf_pairs(leaf_a, leaf_b, first, count, prim_ids):
    """Triangle pairs of the leaf pairs of a self-traversal.

    Parameters
    ----------
    leaf_a, leaf_b : (p,) int32
        Leaf node ids; equal for a leaf against itself.
    first, count : (k,) int32
    prim_ids : (m,) int32

    Returns
    -------
    (q, 2) int32
        Face ids ``(i, j)`` with ``i < j``; a leaf with ``c`` triangles gives ``c (c - 1) / 2``
        pairs, two different leaves ``c_a c_b``.
    """
# The expansion of core.collide.tandem.expand_leaf_pairs for one tree against itself: the
# loops differ (one tree's arrays; a leaf against itself gives i < j only) and are kept
# apart so the pair query's kernel has no self-collision branch per leaf pair.
    total = 0
    for k in range(leaf_a.shape[0]):
        ca = count[leaf_a[k]]
        if leaf_a[k] == leaf_b[k]:
            total += ca * (ca - 1) // 2
        else:
            total += ca * count[leaf_b[k]]
    pairs = np.empty((total, 2), dtype=np.int32)
    o = 0
    for k in range(leaf_a.shape[0]):
        a = leaf_a[k]
        b = leaf_b[k]
        for p in range(first[a], first[a] + count[a]):
            q_start = p + 1 if a == b else first[b]
            for q in range(q_start, first[b] + count[b]):
                i = prim_ids[p]
                j = prim_ids[q]
                pairs[o, 0] = min(i, j)
                pairs[o, 1] = max(i, j)
                o += 1
    return pairs


def shared_corner_counts(faces: np.ndarray, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How many vertex indices the two faces of each pair share.

    Parameters
    ----------
    faces : (m, 3) int32
    pairs : (q, 2) int

    Returns
    -------
    n_shared : (q,) int64
        Distinct vertex indices of the first face that the second face also uses (0-3).
    shared_vertex : (q,) int64
        One shared vertex index (meaningful where ``n_shared == 1``), else -1.
    """
    fi = faces[pairs[:, 0]].astype(np.int64)
    fj = faces[pairs[:, 1]].astype(np.int64)
    is_shared = (fi[:, :, None] == fj[:, None, :]).any(axis=2)  # (q, 3): corner c of i in j
    # A degenerate face may repeat a corner: count each distinct vertex once.
    is_repeat = np.zeros_like(is_shared)
    is_repeat[:, 1] = fi[:, 1] == fi[:, 0]
    is_repeat[:, 2] = (fi[:, 2] == fi[:, 0]) | (fi[:, 2] == fi[:, 1])
    is_shared &= ~is_repeat
    n_shared = is_shared.sum(axis=1)
    first_corner = np.argmax(is_shared, axis=1)
    shared_vertex = np.where(n_shared > 0, fi[np.arange(len(fi)), first_corner], -1)
    return n_shared.astype(np.int64), shared_vertex.astype(np.int64)


def _adjacency_keep(vertices, faces, pairs, kinds, segs):
    """``(q,) bool``: which contacts survive the shared-corner rule of the module docstring."""
    n_shared, shared_vertex = shared_corner_counts(faces, pairs)
    keep = kinds != int(ContactKind.DISJOINT)
    keep &= (n_shared == 0) | (n_shared == 1) | (kinds == int(ContactKind.COPLANAR))
    one = np.flatnonzero(keep & (n_shared == 1) & (kinds == int(ContactKind.TOUCHING)))
    if one.size:
        v = vertices[shared_vertex[one]][:, None, :]
        is_only_v = (segs[one] == v).all(axis=(1, 2))
        keep[one] = ~is_only_v
    return keep


def self_collide(
    mesh: TriMesh,
    tree: Tree,
    trace: bool = False,
    tol: Tolerances = DEFAULT_TOLERANCES,
    *,
    pose: Pose | None = None,
    descend: DescendRule = DescendRule.LARGER_VOLUME,
    pair_budget: int = DEFAULT_PAIR_BUDGET,
    control: QueryControl | None = None,
    name: str | None = None,
) -> CollisionResult:
    """All pairs of triangles of one mesh that meet, neighbours excluded unless they cross.

    Parameters
    ----------
    mesh : TriMesh
        Current vertices.
    tree : Tree
        Fitted to those vertices (built or refitted).
    trace : bool
        Record every level's node pairs (both columns index ``tree``).
    tol : Tolerances
    pose : Pose, optional
        World pose of the mesh: only moves the returned segments.
    descend : DescendRule
        For pairs of two different nodes.
    pair_budget : int
        Most overlapping volume pairs (and triangle pairs) of the self-traversal.
    control : QueryControl, optional
        Cancel flag and progress.
    name : str, optional
        The tree as a budget error names it (default: :func:`core.collide.budget.tree_name`
        of body A).

    Returns
    -------
    CollisionResult
        ``pairs (c, 2) int32`` with ``i < j``, sorted; ``kinds``; ``segments`` in world
        coordinates; ``counters.n_tri_tests`` counts every pair sent to the triangle test
        (neighbours included); ``n_contacts`` the pairs kept.

    Raises
    ------
    PairBudgetError
        More than ``pair_budget`` overlapping volume pairs or triangle pairs.
    QueryCancelled
    """
    pair_budget = check_budget(pair_budget)
    names = (name if name is not None else tree_name(tree, "A"),)
    if tree.faces.shape != mesh.faces.shape:
        # The kernels index the faces with the tree's triangle ids: refuse before they read
        # past the end.
        raise ValueError(f"tree was built on {tree.faces.shape[0]} triangles, mesh has "
                         f"{mesh.n_faces}")  # fmt: skip
    scale = max(float(np.max(np.abs(tree.bmin[0]))), float(np.max(np.abs(tree.bmax[0]))),
                float(np.max(tree.bmax[0] - tree.bmin[0])))  # fmt: skip
    margin = tol.box_rel * scale
    t0 = time.perf_counter()
    array = start_array(control)
    traversal = self_traverse(tree.first, tree.count, tree.bmin, tree.bmax, margin,
                              int(descend), trace, PARALLEL_MIN_PAIRS, np.int64(pair_budget),
                              array)  # fmt: skip
    if array[STATUS] != STATUS_DONE:
        del traversal  # its buffers go back now, not with the traceback
        raise_if_stopped(array, pair_budget, (tree,), names, "the self-collision query")
    check_triangle_budget(traversal, tree, tree, pair_budget, names, same_tree=True,
                          operation="the self-collision query")
    t1 = time.perf_counter()
    tri_pairs = expand_self_leaf_pairs(traversal.leaf_a, traversal.leaf_b, tree.first,
                                       tree.count, tree.prim_ids)  # fmt: skip
    n_tests = tri_pairs.shape[0]
    if n_tests:
        kinds = np.empty(n_tests, dtype=np.int8)
        segs = np.empty((n_tests, 2, 3))
        v, f = mesh.vertices, mesh.faces
        tri_tri_batch(v, f, v, f, tri_pairs, kinds, segs)
        check_kinds(kinds, tri_pairs, "face pair")
        keep = _adjacency_keep(v, f, tri_pairs, kinds, segs)
        pairs, kinds, segs = tri_pairs[keep], kinds[keep], segs[keep]
        order = lexicographic_order(pairs)
        pairs, kinds, segs = pairs[order], kinds[order], segs[order]
        if pose is not None and not pose.is_identity and len(segs):
            segs = pose.apply(segs)
    else:
        pairs = np.empty((0, 2), dtype=np.int32)
        kinds = np.empty(0, dtype=np.int8)
        segs = np.empty((0, 2, 3))
    t2 = time.perf_counter()
    counters = traversal_counters(traversal, n_tests, pairs.shape[0])
    record = traversal_trace(traversal) if trace else None
    return CollisionResult(pairs=pairs, kinds=kinds, segments=segs, counters=counters,
                           timings={"traverse": t1 - t0, "tritri": t2 - t1},
                           trace=record)  # fmt: skip
