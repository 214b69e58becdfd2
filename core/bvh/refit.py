"""Bottom-up refit of a tree's boxes after the vertices moved (van den Bergen 1997, sec. 4).

Refitting keeps the topology and recomputes every box: leaves from their triangles, then
each internal node as the union of its two children.

Every tree of BVH Lab stores a node's children after it (the builder allocates them when it
splits the node; a tree read from a file is renumbered so): one pass over the nodes from the
last id to the root then meets every child before its parent, so the whole refit is a single
loop (:func:`_refit_range`), and the subtrees of the root's two children, which the
depth-first builder stores as two runs of ids, refit on two threads side by side
(:func:`_refit_halves`). The level-by-level refit it replaced launched a parallel
loop for the leaves and one for each wide level (the midpoint tree of a 100k-triangle sphere
has 89 levels): 4.7 ms against 1.9 ms for the pass, with one or two threads (W3 at 100k,
medians of 20 frames), and warp's refit of the same mesh took 1.9 ms. A tree without that
order (never built here) still refits level by level.

The pass reads each leaf's triangles as one run of rows of :attr:`Tree.corners` (the faces
in the tree's triangle order), not as rows of the mesh's faces scattered by ``prim_ids``:
0.47 against 0.88 ms at 100k triangles, 3.2 against 6.0 ms at 500k (one thread).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from core.bvh.tree import Tree
from core.errors import TopologyChangedError
from core.jit.busy_cores import threads_for_free_cores
from core.jit.kernel_args import frozen, frozen_args
from core.mesh import TriMesh

#: Trees with fewer nodes refit on one thread: the pass costs about 10 ns a node (1.9 ms for
#: the 200k nodes of a 100k-triangle sphere), a parallel launch with sleeping workers tens of
#: microseconds.
_PARALLEL_REFIT_MIN = 20_000

#: Below this many nodes in a level the thread launch costs more than the work (measured:
#: about 20 microseconds a launch against ~2 ns a node).
_PARALLEL_LEVEL_MIN = 4096


@njit(cache=True, nogil=True)
def _refit_range(vertices, corners, first, count, bmin, bmax, lo, hi):
    """Refit nodes ``hi - 1`` down to ``lo``, whose children all lie in ``(node, hi)``.

    Parameters
    ----------
    vertices : (n, 3) float64
    corners : (m, 3) int32
        The triangles' vertex ids in the tree's triangle order (:attr:`Tree.corners`): a
        leaf's triangles are the rows ``first[leaf] : first[leaf] + count[leaf]``.
    first, count : (k,) int32
    bmin, bmax : (k, 3) float64
        Written for the nodes of the range.
    lo, hi : int
        The range of node ids.

    Returns
    -------
    bool
        False, with the boxes partly written, as soon as an internal node's children are not
        after it inside the range (the caller then refits level by level).
    """
    for node in range(hi - 1, lo - 1, -1):
        n_prims = count[node]
        if n_prims > 0:
            lo0 = lo1 = lo2 = np.inf
            hi0 = hi1 = hi2 = -np.inf
            for p in range(first[node], first[node] + n_prims):
                for c in range(3):
                    v = corners[p, c]
                    x, y, z = vertices[v, 0], vertices[v, 1], vertices[v, 2]
                    lo0 = min(lo0, x)
                    lo1 = min(lo1, y)
                    lo2 = min(lo2, z)
                    hi0 = max(hi0, x)
                    hi1 = max(hi1, y)
                    hi2 = max(hi2, z)
            bmin[node, 0], bmin[node, 1], bmin[node, 2] = lo0, lo1, lo2
            bmax[node, 0], bmax[node, 1], bmax[node, 2] = hi0, hi1, hi2
            continue
        a = first[node]
        if a <= node or a + 1 >= hi:
            return False
        for k in range(3):
            bmin[node, k] = min(bmin[a, k], bmin[a + 1, k])
            bmax[node, k] = max(bmax[a, k], bmax[a + 1, k])
    return True


@njit(cache=True, nogil=True, parallel=True)
def _refit_halves(vertices, corners, first, count, bmin, bmax, ranges):
    """The subtrees of the root's two children, one per thread; then the root's three nodes.

    ``ranges`` is ``(2, 2) int64``: the node ids of the left child's and of the right child's
    descendants. Returns False as :func:`_refit_range` does.
    """
    ok = np.ones(2, dtype=np.bool_)
    for h in prange(2):
        ok[h] = _refit_range(vertices, corners, first, count, bmin, bmax, ranges[h, 0],
                             ranges[h, 1])  # fmt: skip
    if not (ok[0] and ok[1]):
        return False
    # Nodes 2, 1, 0: their children are 3 and 4, first[2] and first[2] + 1, 1 and 2.
    for node in range(2, -1, -1):
        a = first[node]
        for k in range(3):
            bmin[node, k] = min(bmin[a, k], bmin[a + 1, k])
            bmax[node, k] = max(bmax[a, k], bmax[a + 1, k])
    return True


@njit(cache=True, nogil=True)
def _subtree_ranges(first, count):
    """Node ids of the descendants of the root's children, ``(2, 2) int64``, or an empty
    array when the root or a child is a leaf.

    The builder splits depth first and allocates a node's two children together, so the left
    child's descendants are ``[3, first[2])`` and the right child's ``[first[2], k)``;
    :func:`_refit_range` checks every child id against its range.
    """
    k = first.shape[0]
    if (k < 7 or count[0] > 0 or first[0] != 1 or count[1] > 0 or count[2] > 0
            or first[1] != 3 or not 5 <= first[2] <= k - 2):  # fmt: skip
        return np.empty((0, 2), dtype=np.int64)
    out = np.empty((2, 2), dtype=np.int64)
    out[0, 0], out[0, 1] = 3, first[2]
    out[1, 0], out[1, 1] = first[2], k
    return out


@njit(cache=True, nogil=True, parallel=True)
def _refit_leaves(vertices, faces, first, count, prim_ids, leaf_nodes, bmin, bmax):
    for j in prange(leaf_nodes.shape[0]):
        node = leaf_nodes[j]
        lo0 = lo1 = lo2 = np.inf
        hi0 = hi1 = hi2 = -np.inf
        for p in range(first[node], first[node] + count[node]):
            t = prim_ids[p]
            for c in range(3):
                v = faces[t, c]
                x, y, z = vertices[v, 0], vertices[v, 1], vertices[v, 2]
                lo0 = min(lo0, x)
                lo1 = min(lo1, y)
                lo2 = min(lo2, z)
                hi0 = max(hi0, x)
                hi1 = max(hi1, y)
                hi2 = max(hi2, z)
        bmin[node, 0], bmin[node, 1], bmin[node, 2] = lo0, lo1, lo2
        bmax[node, 0], bmax[node, 1], bmax[node, 2] = hi0, hi1, hi2


@njit(cache=True, nogil=True)
def _merge_level_serial(nodes, first, count, bmin, bmax):
    for j in range(nodes.shape[0]):
        node = nodes[j]
        if count[node] > 0:
            continue
        a = first[node]
        for k in range(3):
            bmin[node, k] = min(bmin[a, k], bmin[a + 1, k])
            bmax[node, k] = max(bmax[a, k], bmax[a + 1, k])


@njit(cache=True, nogil=True, parallel=True)
def _merge_level_parallel(nodes, first, count, bmin, bmax):
    for j in prange(nodes.shape[0]):
        node = nodes[j]
        if count[node] > 0:
            continue
        a = first[node]
        for k in range(3):
            bmin[node, k] = min(bmin[a, k], bmin[a + 1, k])
            bmax[node, k] = max(bmax[a, k], bmax[a + 1, k])


@njit(cache=True, nogil=True)
def _refit_internal(level_nodes, level_start, first, count, bmin, bmax):
    for d in range(level_start.shape[0] - 2, -1, -1):
        nodes = level_nodes[level_start[d] : level_start[d + 1]]
        if nodes.shape[0] >= _PARALLEL_LEVEL_MIN:
            _merge_level_parallel(nodes, first, count, bmin, bmax)
        else:
            _merge_level_serial(nodes, first, count, bmin, bmax)


def same_topology(tree: Tree, mesh: TriMesh) -> bool:
    """Whether ``mesh`` has the faces ``tree`` was built on (same object, or equal)."""
    if mesh.faces is tree.faces:
        return True
    return mesh.faces.shape == tree.faces.shape and bool(np.array_equal(mesh.faces, tree.faces))


def leaf_nodes(tree: Tree) -> np.ndarray:
    """Ids of the leaves, ``(l,) int32`` (cached on the tree's arrays by the caller if needed)."""
    return np.flatnonzero(tree.count > 0).astype(np.int32)


def refit_tree(tree: Tree, mesh: TriMesh, leaves: np.ndarray | None = None) -> Tree:
    """A tree with the same topology and boxes fitted to ``mesh``'s vertices.

    Parameters
    ----------
    tree : Tree
    mesh : TriMesh
        Same faces as the tree was built on, vertices moved.
    leaves : (l,) int32, optional
        Leaf ids of ``tree`` if the caller keeps them between frames (only read for a tree
        whose children do not follow their parents).

    Returns
    -------
    Tree
        New box arrays; every other array is shared with ``tree``.

    Raises
    ------
    TopologyChangedError
        If ``mesh.faces`` differs from the faces the tree was built on.
    """
    if not same_topology(tree, mesh):
        raise TopologyChangedError(
            f"cannot refit a tree built on {tree.faces.shape[0]} faces to a mesh with "
            f"{mesh.faces.shape[0]} different faces; build a new tree"
        )
    bmin = np.empty_like(tree.bmin)
    bmax = np.empty_like(tree.bmax)
    # Read-only inputs (core.jit.kernel_args): a tree made by a caller, not by build_tree, runs
    # the kernels the warm-up compiled.
    inputs = frozen_args((mesh.vertices, tree.corners, tree.first, tree.count))
    ranges = frozen(_subtree_ranges(*inputs[2:4]))
    # One thread while the other cores are busy (core.jit.busy_cores: the second half would
    # wait for a scheduler slice).
    with threads_for_free_cores() as n_threads:
        if tree.n_nodes >= _PARALLEL_REFIT_MIN and ranges.shape[0] == 2 and n_threads > 1:
            is_done = _refit_halves(*inputs, bmin, bmax, ranges)
        else:
            is_done = _refit_range(*inputs, bmin, bmax, 0, tree.n_nodes)
        if not is_done:
            refit_by_levels(tree, mesh, bmin, bmax, leaves)
    # Read-only like a built tree's boxes: one signature of every kernel that reads them.
    bmin.flags.writeable = False
    bmax.flags.writeable = False
    return tree.replaced(bmin=bmin, bmax=bmax)


def refit_by_levels(tree: Tree, mesh: TriMesh, bmin: np.ndarray, bmax: np.ndarray,
                    leaves: np.ndarray | None = None) -> None:
    """The refit of a tree in any node order: the leaves from their triangles, then each
    level's parents from their children, deepest level first (:func:`refit_tree` falls back
    to it when a child comes before its parent, as in some tree files).

    Parameters
    ----------
    tree : Tree
    mesh : TriMesh
        Same faces as the tree was built on.
    bmin, bmax : (k, 3) float64
        Written with every node's box.
    leaves : (l,) int32, optional
        Leaf ids of ``tree`` (:func:`leaf_nodes`), if the caller keeps them.
    """
    if leaves is None:
        leaves = leaf_nodes(tree)
    v, f, first, count, prim_ids, leaves, level_nodes, level_start = frozen_args((
        mesh.vertices, mesh.faces, tree.first, tree.count, tree.prim_ids, leaves,
        tree.level_nodes, tree.level_start))
    _refit_leaves(v, f, first, count, prim_ids, leaves, bmin, bmax)
    _refit_internal(level_nodes, level_start, first, count, bmin, bmax)
