"""Reading a tree file: the file's nodes checked as a binary tree (children name nodes, one
root, no node reached twice, leaf ranges cover every triangle once) and renumbered into
BVH Lab's layout (:func:`tree_from_file`, which every reader of another engine's tree file
ends with too).

Errors are one-line :class:`~core.bvh.treefile.TreeFileError` naming the file's node id.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.bvh.quality import sah_cost, volume_sum
from core.bvh.tree import BuildStats, SplitRule, Tree
from core.bvh.treefile import TreeFileError
from core.bvh.treefile_walk import breadth_first, cycle_from, peel, subtree_runs
from core.jit.kernel_args import frozen
from core.mesh import TriMesh


@dataclass
class _FileTree:
    """The file's tree in the children layout, file ids, checked."""

    m: int
    k: int
    bounds: np.ndarray  # (k, 6) float64
    children: np.ndarray  # (k, 2) int64, -1 for leaves
    start: np.ndarray  # (k,) int64
    count: np.ndarray  # (k,) int64
    order: np.ndarray  # (m,) int64
    split: SplitRule | None
    leaf_size: int | None



def _check_nodes(f: _FileTree, fail) -> None:
    """Bounds are numbers, children name nodes, binary only, leaf ranges inside ``order``."""
    bad = ~np.isfinite(f.bounds).all(axis=1)
    if bad.any():
        node = int(np.flatnonzero(bad)[0])
        others = int(bad.sum()) - 1
        fail(f"node {node}: bounds hold NaN or infinity"
             + (f" (and {others:,} other node{_s(others)})" if others else ""))
    out = ((f.children < -1) | (f.children >= f.k)).any(axis=1)
    if out.any():
        node = int(np.flatnonzero(out)[0])
        child = int(f.children[node][(f.children[node] < -1) | (f.children[node] >= f.k)][0])
        fail(f"node {node}: child {child} is not a node id (0..{f.k - 1}, or -1 for none)")
    n_children = (f.children >= 0).sum(axis=1)
    odd = n_children == 1
    if odd.any():
        node = int(np.flatnonzero(odd)[0])
        fail(f"node {node} has 1 child; only binary trees are read (0 or 2 children a node)")
    twice = (n_children == 2) & (f.children[:, 0] == f.children[:, 1])
    if twice.any():
        node = int(np.flatnonzero(twice)[0])
        fail(f"node {node} names node {int(f.children[node, 0])} as both its children "
             f"(a node reached twice)")  # fmt: skip
    is_leaf = n_children == 0
    inner_range = ~is_leaf & (f.count != 0)
    if inner_range.any():
        node = int(np.flatnonzero(inner_range)[0])
        fail(f"node {node} has children and a triangle range (count {int(f.count[node])})")
    empty = is_leaf & (f.count <= 0)
    if empty.any():
        node = int(np.flatnonzero(empty)[0])
        fail(f"node {node} is a leaf with no triangles (count {int(f.count[node])})")
    past = is_leaf & ((f.start < 0) | (f.start + f.count > f.m))
    if past.any():
        node = int(np.flatnonzero(past)[0])
        fail(f"node {node}: leaf range {int(f.start[node])}+{int(f.count[node])} is outside "
             f"'order' (0..{f.m})")  # fmt: skip
    _check_permutation(f.order, f.m, "'order' is not a permutation of the triangle ids", fail)


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _check_permutation(ids: np.ndarray, m: int, what: str, fail) -> None:
    outside = (ids < 0) | (ids >= m)
    if outside.any():
        fail(f"{what}: {int(ids[outside][0])} is not a triangle id (0..{m - 1})")
    seen = np.bincount(ids, minlength=m)
    if (seen != 1).any():
        repeated = np.flatnonzero(seen > 1)
        missing = np.flatnonzero(seen == 0)
        fail(f"{what}: {repeated.size:,} id{_s(repeated.size)} repeated (first "
             f"{int(repeated[0])}), {missing.size:,} missing (first {int(missing[0])})")


def _root(f: _FileTree, fail) -> int:
    """The one node that is nobody's child; a node named as a child twice (a shared child or
    a cycle) is named first, with its parents, since it is what leaves another node without
    a parent or the tree without a root."""
    times_child = _times_child(f)
    twice = np.flatnonzero(times_child > 1)
    roots = np.flatnonzero(times_child == 0)
    if twice.size or roots.size == 0:
        cycle = _find_cycle(f, times_child)
        if cycle is not None:
            fail(_cycle_text(f, *cycle))
        fail(_shared_text(f, int(twice[0]), int(twice.size)))
    if roots.size > 1:
        listed = ", ".join(str(int(r)) for r in roots[:4]) + (" ..." if roots.size > 4 else "")
        fail(f"{roots.size:,} nodes are nobody's child ({listed}): a tree has one root, and "
             f"from it the others are unreachable")  # fmt: skip
    return int(roots[0])


def _times_child(f: _FileTree) -> np.ndarray:
    """``(k,) int64``: how many nodes name each node as a child."""
    return np.bincount(f.children[f.children >= 0], minlength=f.k)


def _find_cycle(f: _FileTree, times_child: np.ndarray) -> tuple[int, int] | None:
    """A node on a cycle and the node under it that names it as a child, or None.

    Peels the nodes no remaining node names as a child, parents first (one pass over the
    nodes, :func:`core.bvh.treefile_walk.peel`); what is left lies on a cycle or under one.
    Going up from a node left, through parents also left, comes back to a node already met:
    that node is on a cycle. Of the cycle's nodes, the one also named by a node outside the
    cycle (where the walk from the root enters it) is returned, else the one with the
    largest box.
    """
    peeled, _steps = peel(f.children, times_child)
    if peeled.all():
        return None
    parent = np.full(f.k, -1, dtype=np.int64)
    inner = np.flatnonzero(~peeled & (f.children[:, 0] >= 0))
    parent[f.children[inner, 0]] = inner
    parent[f.children[inner, 1]] = inner
    cycle = cycle_from(parent, int(np.flatnonzero(~peeled)[0]))
    entered = cycle[times_child[cycle] > 1]
    if entered.size:
        top = int(entered.min())
    else:
        # A cycle nobody outside names (through the root): the node the hand edit most
        # likely pointed back to is the one with the largest box.
        size = (f.bounds[cycle, 3:] - f.bounds[cycle, :3]).sum(axis=1)
        top = int(cycle[np.argmax(size)])
    return top, int(parent[top])


def _parents(f: _FileTree, node: int) -> np.ndarray:
    """``(j,) int64``: the file ids of the nodes that name ``node`` as a child, ascending."""
    return np.flatnonzero((f.children == node).any(axis=1))


def _named(parents: np.ndarray) -> str:
    """``"nodes 1 and 3"`` (or ``"node 6"``)."""
    if parents.size == 1:
        return f"node {int(parents[0])}"
    return "nodes " + " and ".join(str(int(p)) for p in parents[:2]) + (
        f" (and {parents.size - 2:,} more)" if parents.size > 2 else "")  # fmt: skip


def _cycle_text(f: _FileTree, node: int, under: int) -> str:
    parents = _parents(f, node)
    if parents.size == 1:
        return (f"node {node} is reached twice (a cycle): it is the child of node {under}, "
                f"which is under node {node}")  # fmt: skip
    return (f"node {node} is reached twice (a cycle): it is the child of {_named(parents)}, "
            f"and node {under} is under node {node}")  # fmt: skip


def _shared_text(f: _FileTree, node: int, n_nodes: int) -> str:
    others = n_nodes - 1
    return (f"node {node} is reached twice (a shared child): it is the child of "
            f"{_named(_parents(f, node))}"
            + (f" ({others:,} other node{_s(others)} reached twice)" if others else ""))


# ---- renumbering -----------------------------------------------------------------------------


def _in_our_layout(f: _FileTree, root: int) -> bool:
    """Root 0, each pair of children adjacent (right = left + 1) and after its parent."""
    inner = np.flatnonzero(f.children[:, 0] >= 0)
    left, right = f.children[inner, 0], f.children[inner, 1]
    return root == 0 and bool(((right == left + 1) & (left > inner)).all())


def _renumber(f: _FileTree, root: int, fail) -> tuple[np.ndarray, np.ndarray]:
    """Breadth-first numbering: ``(file_of, depth)``, ``file_of[ours]`` the file's id.

    A level's children get consecutive ids in the order of their parents, so a pair is
    adjacent and after its parent. A node met twice (a shared child, or a cycle through the
    root) or never (unreachable) is an error naming the file's id.
    """
    file_of, depth_of, n, again, _steps = breadth_first(f.children, root)
    if again >= 0:
        parents = _parents(f, int(again))
        fail(f"node {again} is reached twice (a cycle or a shared child): it is a child of "
             f"nodes {', '.join(str(int(p)) for p in parents[:3])}")  # fmt: skip
    if n != f.k:
        # Every node but the root is the child of one node (checked before), so the nodes
        # the root does not reach lead up to a cycle among themselves.
        lost = f.k - n
        fail(f"{_cycle_text(f, *_find_cycle(f, _times_child(f)))} ({lost:,} nodes are "
             f"unreachable from node {root}, the one node that is nobody's child)")  # fmt: skip
    return file_of, depth_of


def _build(f: _FileTree, mesh: TriMesh, file_of: np.ndarray, depth: np.ndarray,
           seconds_from: float) -> Tree:  # fmt: skip
    """Our Tree from the file's, nodes ``file_of[ours]``; runs computed, prim_ids laid out."""
    # The builder's own grouping by depth, so an imported tree's level arrays are exactly
    # those a build of the same topology has.
    from core.bvh.tree import levels_of

    k, m = f.k, f.m
    ours_of = np.empty(k, dtype=np.int64)
    ours_of[file_of] = np.arange(k)
    children = f.children[file_of]  # (k, 2) file ids, our order
    is_leaf = children[:, 0] < 0
    left = np.where(is_leaf, 0, ours_of[np.maximum(children[:, 0], 0)])
    count = np.where(is_leaf, f.count[file_of], 0)
    parent = np.full(k, -1, dtype=np.int64)
    inner = np.flatnonzero(~is_leaf)
    parent[left[inner]] = inner
    parent[left[inner] + 1] = inner
    level_nodes, level_start = levels_of(depth.astype(np.int32))

    # Triangles under each node, bottom-up; then each run's start top-down (one pass each:
    # children come after their parent).
    n_prims, prim_start, _steps = subtree_runs(left, is_leaf, count)
    if n_prims[0] != m:
        raise AssertionError("leaf counts were checked against the triangles")

    # Each leaf's triangles, in the file's order within the leaf, at the leaf's run.
    leaves = np.flatnonzero(is_leaf)
    counts = count[leaves]
    src = np.repeat(f.start[file_of[leaves]] - np.cumsum(counts) + counts, counts)
    dst = np.repeat(prim_start[leaves] - np.cumsum(counts) + counts, counts)
    within = np.arange(int(counts.sum()))
    prim_ids = np.empty(m, dtype=np.int64)
    prim_ids[dst + within] = f.order[src + within]
    first = np.where(is_leaf, prim_start, left)

    # Read-only as every tree's boxes (core.jit.kernel_args): sah_cost below and every kernel
    # after it run the signatures the warm-up compiled.
    bmin = frozen(f.bounds[file_of, :3])
    bmax = frozen(f.bounds[file_of, 3:])
    i32 = {name: a.astype(np.int32) for name, a in (
        ("first", first), ("count", count), ("parent", parent), ("depth", depth),
        ("prim_start", prim_start), ("n_prims", n_prims), ("prim_ids", prim_ids))}  # fmt: skip
    for a in (*i32.values(), level_nodes, level_start):
        a.flags.writeable = False
    leaf_depth, leaf_count = depth[leaves], count[leaves]
    stats = BuildStats(
        n_nodes=k,
        n_leaves=int(leaves.shape[0]),
        depth_min=int(leaf_depth.min()),
        depth_max=int(leaf_depth.max()),
        leaf_size_mean=float(leaf_count.mean()),
        leaf_size_max=int(leaf_count.max()),
        sah_cost=float(sah_cost(bmin, bmax, i32["count"])),
        volume_sum=float(volume_sum(bmin, bmax)),
        build_seconds=time.perf_counter() - seconds_from,
    )
    split = f.split if f.split is not None else SplitRule.MIDPOINT
    leaf_size = f.leaf_size if f.leaf_size is not None else int(leaf_count.max())
    return Tree(**i32, bmin=bmin, bmax=bmax, level_nodes=level_nodes, level_start=level_start,
                faces=mesh.faces, split=split, leaf_size=max(int(leaf_size), 1),
                stats=stats)  # fmt: skip


def tree_from_file(path: Path, mesh: TriMesh, f: _FileTree,
                   t0: float) -> tuple[Tree, np.ndarray]:  # fmt: skip
    """Check a file's tree in the children layout and renumber it into ours: ``(tree,
    file_of)``, ``file_of[ours]`` the file's id (what every reader of another engine's file
    ends with, as :func:`read_tree` does). TreeFileError naming the file's node at fault."""

    def fail(reason: str):
        raise TreeFileError(path, reason)

    _check_nodes(f, fail)
    root = _root(f, fail)
    bfs_file_of, bfs_depth = _renumber(f, root, fail)
    if _in_our_layout(f, root):
        # Already children-after-parent and adjacent: keep the file's ids (a tree BVH Lab
        # wrote reads back with the same numbering, so with the same arrays).
        file_of = np.arange(f.k, dtype=np.int64)
        depth = np.empty(f.k, dtype=np.int64)
        depth[bfs_file_of] = bfs_depth
    else:
        file_of, depth = bfs_file_of, bfs_depth
    _check_coverage(f, fail)
    return _build(f, mesh, file_of, depth, t0), file_of


def _check_coverage(f: _FileTree, fail) -> None:
    """Each position of ``order`` (so each triangle: ``order`` is a permutation, checked
    before) lies in exactly one leaf's range; else one line naming the leaves at fault.

    Two leaves holding the same triangle are named with both ranges; a triangle in no leaf
    is named with its place in ``order`` and the leaves whose ranges end just before it and
    start just after it (one of them has a count or start one off, as a hand edit leaves it).
    """
    leaves = np.flatnonzero(f.children[:, 0] < 0)
    starts, counts = f.start[leaves], f.count[leaves]
    ends = starts + counts
    # How many leaf ranges cover each position: +1 where a range starts, -1 past its end.
    cover = np.cumsum(np.bincount(starts, minlength=f.m + 1)
                      - np.bincount(ends, minlength=f.m + 1))[: f.m]  # fmt: skip
    twice = np.flatnonzero(cover > 1)
    gaps = np.flatnonzero(cover == 0)
    if twice.size == 0 and gaps.size == 0:
        return

    def leaf(j) -> str:
        return f"leaf {int(leaves[j])}'s range {int(starts[j])}+{int(counts[j])}"

    if twice.size:
        p = int(twice[0])
        a, b = np.flatnonzero((starts <= p) & (p < ends))[:2]
        text = (f"leaves {int(leaves[a])} and {int(leaves[b])} both hold triangle "
                f"{int(f.order[p])} (order[{p}]): {leaf(a)} and {leaf(b)} overlap")
        extras = []
        if twice.size > 1:
            extras.append(f"{twice.size:,} triangles are held twice in all")
        if gaps.size:
            extras.append(f"{gaps.size:,} triangle{_s(gaps.size)} in no leaf, the first "
                          f"triangle {int(f.order[gaps[0]])} at order[{int(gaps[0])}]")
        fail(text + (f" ({'; '.join(extras)})" if extras else ""))
    p = int(gaps[0])
    covered_after = np.flatnonzero(cover[p:] > 0)
    q = p + int(covered_after[0]) if covered_after.size else f.m  # the gap is order[p:q]
    n = q - p
    tris = ", ".join(str(int(t)) for t in f.order[p : min(q, p + 4)]) + (" ..." if n > 4 else "")
    if n == 1:
        text = f"triangle {tris} (order[{p}]) is in no leaf"
    else:
        text = f"triangles {tris} (order[{p}:{q}], {n:,} of them) are in no leaf"
    before = np.flatnonzero(ends == p)[:1]
    after = np.flatnonzero(starts == q)[:1]
    off = "one" if n == 1 else f"{n:,}"
    it = "it" if n == 1 else "them"
    if before.size and after.size:
        text += (f": {leaf(before[0])} ends just before {it} and {leaf(after[0])} starts just "
                 f"after (is leaf {int(leaves[before[0]])}'s count {off} short, or leaf "
                 f"{int(leaves[after[0]])}'s start {off} too late?)")
    elif before.size:
        text += (f": {leaf(before[0])} ends just before {it} (is its count {off} "
                 f"short?)")
    elif after.size:
        text += (f": {leaf(after[0])} starts just after {it} (is its start {off} "
                 f"too late?)")
    if gaps.size > n:
        text += f" ({gaps.size:,} triangles are in no leaf in all)"
    fail(text)
