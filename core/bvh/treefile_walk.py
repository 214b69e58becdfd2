"""The walks of reading a tree file, each one pass over the nodes (compiled).

A tree read from a file may be as deep as it has leaves: a chain where every internal node
has one leaf and one internal child is a million levels deep over a million triangles. A
walk level by level costs a NumPy call or more per level (a million calls), and one that
touches all ``k`` nodes per level is quadratic (the renumbering did: a chain 200k deep took
12-19 s to read). These walks go node by node with a queue instead, each node met a bounded
number of times, so reading is linear in the tree's size whatever its depth.

Every function returns the number of steps it took (a node taken from a queue or a child
looked at): ``steps <= 3 k``, which tests check to keep them linear.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def breadth_first(children, root):
    """Number the nodes reached from ``root`` breadth-first.

    Parameters
    ----------
    children : (k, 2) int64
        The file's children, ``-1`` for none; every id is ``-1`` or in ``0..k-1``.
    root : int

    Returns
    -------
    file_of : (k,) int64
        ``file_of[ours]`` is the file's id of our node ``ours``; the first ``n`` are set.
        The two children of a node get consecutive ids after their parent's.
    depth : (k,) int64
        ``depth[ours]``; the first ``n`` are set.
    n : int
        How many nodes were reached.
    again : int
        The file's id of the first node reached a second time (a shared child or a cycle
        through the root), or -1; the walk stops there.
    steps : int
    """
    k = children.shape[0]
    file_of = np.empty(k, dtype=np.int64)
    depth = np.empty(k, dtype=np.int64)
    seen = np.zeros(k, dtype=np.bool_)
    file_of[0] = root
    depth[0] = 0
    seen[root] = True
    n = 1
    head = 0
    steps = 0
    while head < n:
        node = file_of[head]
        steps += 1
        for side in range(2):
            child = children[node, side]
            steps += 1
            if child < 0:
                continue
            if seen[child]:
                return file_of, depth, n, child, steps
            seen[child] = True
            file_of[n] = child
            depth[n] = depth[head] + 1
            n += 1
        head += 1
    return file_of, depth, n, -1, steps


@njit(cache=True, nogil=True)
def subtree_runs(left, is_leaf, count):
    """Triangles under each node and the start of each node's run of them.

    Parameters
    ----------
    left : (k,) int64
        A node's first child (its second is ``left + 1``); any value for a leaf. Children
        come after their parent (``left[i] > i``), so one pass from the last node to the
        root meets every child before its parent, and one from the root every parent
        before its children.
    is_leaf : (k,) bool
    count : (k,) int64
        A leaf's triangles; 0 for internal nodes.

    Returns
    -------
    n_prims, prim_start : (k,) int64
    steps : int
    """
    k = left.shape[0]
    n_prims = count.copy()
    prim_start = np.zeros(k, dtype=np.int64)
    steps = 0
    for node in range(k - 1, -1, -1):
        steps += 1
        if not is_leaf[node]:
            n_prims[node] = n_prims[left[node]] + n_prims[left[node] + 1]
    for node in range(k):
        steps += 1
        if not is_leaf[node]:
            prim_start[left[node]] = prim_start[node]
            prim_start[left[node] + 1] = prim_start[node] + n_prims[left[node]]
    return n_prims, prim_start, steps


@njit(cache=True, nogil=True)
def peel(children, times_child):
    """The nodes not on a cycle or under one: taken away from the top, parents first.

    Parameters
    ----------
    children : (k, 2) int64
    times_child : (k,) int64
        How many nodes name each node as a child.

    Returns
    -------
    peeled : (k,) bool
        False for the nodes on a cycle or reachable only through one.
    steps : int
    """
    k = children.shape[0]
    left = times_child.copy()
    queue = np.empty(k, dtype=np.int64)
    n = 0
    for node in range(k):
        if left[node] == 0:
            queue[n] = node
            n += 1
    peeled = np.zeros(k, dtype=np.bool_)
    head = 0
    steps = k
    while head < n:
        node = queue[head]
        head += 1
        peeled[node] = True
        for side in range(2):
            child = children[node, side]
            steps += 1
            if child < 0:
                continue
            left[child] -= 1
            if left[child] == 0:
                queue[n] = child
                n += 1
    return peeled, steps


@njit(cache=True, nogil=True)
def cycle_from(parent, start):
    """The cycle met going up from ``start`` through ``parent`` (every node met has one).

    Parameters
    ----------
    parent : (k,) int64
        A node's parent, among the nodes :func:`peel` left; -1 for none.
    start : int
        A node :func:`peel` left.

    Returns
    -------
    cycle : (j,) int64
        The cycle's nodes, the first the node where going up came back to one met.
    """
    k = parent.shape[0]
    met = np.zeros(k, dtype=np.bool_)
    node = start
    while not met[node]:
        met[node] = True
        node = parent[node]
    cycle = np.empty(k, dtype=np.int64)
    cycle[0] = node
    j = 1
    while parent[cycle[j - 1]] != node:
        cycle[j] = parent[cycle[j - 1]]
        j += 1
    return cycle[:j].copy()
