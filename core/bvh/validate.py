"""Check a tree's invariants in the current pose: boxes enclose, ids permute, topology agrees.

A refit keeps a tree's topology and recomputes its boxes; a tree read from a file brings
boxes computed by another engine. Either can break what the traversal relies on: a node's box
must enclose its children's boxes and (a leaf) its triangles, or a query may miss contacts.
:func:`validate_tree` lists every node that breaks an invariant with the size of the
violation, so the viewer can draw them in red and a user can read the worst first
(Box2D's ``b2DynamicTree::Validate`` checks the same structure, by assertion).

Every check is vectorised numpy over all nodes at once (a 500k-triangle tree has a million
nodes); only the listed violations are turned into text.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from core.bvh.tree import Tree


class ViolationKind(enum.Enum):
    """What a violation breaks; the value is the words shown to people."""

    CHILD_OUTSIDE = "child sticks out of its parent"
    TRIANGLE_OUTSIDE = "triangle sticks out of its leaf"
    PERMUTATION = "triangle ids are not a permutation"
    TOPOLOGY = "topology inconsistent"


@dataclass(frozen=True)
class Violation:
    """One broken invariant.

    Attributes
    ----------
    node : int
        Node id in the tree's own numbering (-1 for a whole-tree problem).
    kind : ViolationKind
    size : float
        How far outside, in mesh units (the largest over axes and vertices); 0.0 for
        topology and permutation problems; ``inf`` for a box that is not a number.
    text : str
        One line, e.g. ``"node 37 (depth 5): child 75 sticks out by 0.0031 along +x"``. For
        a tree read from a file (``file_ids`` given) every node in it is named by the file's
        id: ``node`` and ``child`` here stay BVH Lab's.
    child : int
        CHILD_OUTSIDE: the child that sticks out (tree's numbering); else -1.
    triangle : int
        TRIANGLE_OUTSIDE: the leaf's triangle (face id) that sticks out the most; else -1.
    axis : str
        CHILD_OUTSIDE and TRIANGLE_OUTSIDE: the side it sticks out of the most, ``"+x"``,
        ``"-z"``, ...; ``""`` for other kinds and for a box that is not a number.
    """

    node: int
    kind: ViolationKind
    size: float
    text: str
    child: int = -1
    triangle: int = -1
    axis: str = ""


@dataclass(frozen=True, eq=False)
class ValidationReport:
    """The outcome of :func:`validate_tree`.

    Attributes
    ----------
    violations : tuple of Violation
        Sorted by size, largest first, then by node; at most ``max_listed`` of them.
    nodes_checked : int
    seconds : float
        Time the check took.
    n_found : int
        Violations found, listed or not (``>= len(violations)``).
    bad_nodes : (j,) int32
        Every distinct node with a violation, listed or not, ascending (by default those
        of ``violations``).
    """

    violations: tuple[Violation, ...]
    nodes_checked: int
    seconds: float
    n_found: int = 0
    bad_nodes: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.n_found < len(self.violations):
            object.__setattr__(self, "n_found", len(self.violations))
        if self.bad_nodes is None:
            ids = np.array([v.node for v in self.violations if v.node >= 0], dtype=np.int32)
            object.__setattr__(self, "bad_nodes", np.unique(ids))

    @property
    def ok(self) -> bool:
        """Whether no invariant is broken."""
        return self.n_found == 0

    def nodes(self) -> np.ndarray:
        """Distinct node ids with a violation (for drawing them red), ``(j,) int32``.

        Whole-tree problems (node -1) name no node and are left out.
        """
        return self.bad_nodes

    def summary(self) -> str:
        """One line: ``"tree OK: 1,023 nodes checked"`` or
        ``"3 violations in 2 nodes; largest 0.0031"``."""
        if self.ok:
            plural = "" if self.nodes_checked == 1 else "s"
            return f"tree OK: {self.nodes_checked:,} node{plural} checked"
        n_nodes = int(self.nodes().shape[0])
        noun = "violation" if self.n_found == 1 else "violations"
        text = f"{self.n_found:,} {noun} in {n_nodes:,} node{'' if n_nodes == 1 else 's'}"
        if self.n_found > len(self.violations):
            text += f" (the {len(self.violations):,} largest listed)"
        largest = max((v.size for v in self.violations), default=0.0)
        if largest > 0.0:
            text += f"; largest {_length(largest)}"
        else:
            text += f"; {self.violations[0].kind.value}"
        return text


def _length(size: float) -> str:
    """A distance for people: four significant digits, ``not a number`` for inf."""
    return "a box that is not a number" if not np.isfinite(size) else f"{size:.4g}"


_AXES = ("x", "y", "z")


@dataclass
class _Group:
    """Violations of one kind found at once: node ids, sizes, and how to word entry ``j``
    (``describe(j)`` gives the text, or the text and the Violation's ``child``,
    ``triangle`` and ``axis`` as a dict)."""

    kind: ViolationKind
    nodes: np.ndarray
    sizes: np.ndarray
    describe: Callable[[int], str]


class _Checker:
    def __init__(self, tree: Tree, vertices: np.ndarray, file_ids: np.ndarray | None):
        self.tree = tree
        self.vertices = vertices
        self.file_ids = file_ids
        self.k = int(tree.first.shape[0])
        self.m = int(tree.faces.shape[0])
        self.groups: list[_Group] = []

    # ---- wording ----------------------------------------------------------------------------

    def shown(self, node: int) -> int:
        """The id people see for ``node``: the file's when the tree came from a file (one id
        per node, as the viewer's tables and the command line show it), else ``node``."""
        node = int(node)
        if self.file_ids is not None and 0 <= node < self.file_ids.shape[0]:
            return int(self.file_ids[node])
        return node

    def name(self, node: int) -> str:
        """``node 37 (depth 5)``; for a tree read from a file, the file's id of the node
        (``node 6 (depth 1)`` for BVH Lab's node 1)."""
        node = int(node)
        if node < 0:
            return "tree"
        depth = self.tree.depth
        extra = f" (depth {int(depth[node])})" if node < depth.shape[0] else ""
        return f"node {self.shown(node)}{extra}"

    def add(self, kind, nodes, sizes, describe) -> None:
        nodes = np.asarray(nodes, dtype=np.int64)
        if nodes.size:
            sizes = np.broadcast_to(np.asarray(sizes, dtype=np.float64), nodes.shape)
            self.groups.append(_Group(kind, nodes, sizes, describe))

    def topology(self, nodes, why: Callable[[int], str]) -> None:
        """One TOPOLOGY violation per node of ``nodes``; ``why(node)`` words it."""
        nodes = np.asarray(nodes, dtype=np.int64)
        self.add(ViolationKind.TOPOLOGY, nodes, 0.0,
                 lambda j: f"{self.name(nodes[j])}: {why(int(nodes[j]))}")  # fmt: skip

    # ---- checks -----------------------------------------------------------------------------

    def shapes_ok(self) -> bool:
        """Every array has one entry per node (or per triangle); else one whole-tree problem."""
        t, k, m = self.tree, self.k, self.m
        wrong = [name for name in ("count", "parent", "depth", "prim_start", "n_prims",
                                   "level_nodes") if getattr(t, name).shape != (k,)]  # fmt: skip
        wrong += [name for name in ("bmin", "bmax") if getattr(t, name).shape != (k, 3)]
        if t.prim_ids.shape != (m,):
            wrong.append("prim_ids")
        if k == 0:
            self.topology([-1], lambda _: "the tree has no nodes")
            return False
        if wrong:
            self.topology([-1], lambda _: f"{', '.join(wrong)} do not have one entry per node "
                                          f"({k}) or triangle ({m})")  # fmt: skip
            return False
        return True

    def permutation(self) -> None:
        ids = self.tree.prim_ids.astype(np.int64)
        m = self.m
        outside = (ids < 0) | (ids >= m)
        seen = np.bincount(ids[~outside], minlength=m)
        repeated = np.flatnonzero(seen > 1)
        missing = np.flatnonzero(seen == 0)
        if not (outside.any() or repeated.size or missing.size):
            return
        parts = []
        if outside.any():
            bad = ids[outside]
            parts.append(f"{bad.size:,} outside 0..{m - 1} (first {int(bad[0])})")
        if repeated.size:
            parts.append(f"{repeated.size:,} repeated (first {int(repeated[0])})")
        if missing.size:
            parts.append(f"{missing.size:,} missing (first {int(missing[0])})")
        text = f"tree: triangle ids are not a permutation of 0..{m - 1}: " + ", ".join(parts)
        self.add(ViolationKind.PERMUTATION, [-1], 0.0, lambda j: text)

    def structure(self) -> tuple[np.ndarray, np.ndarray]:
        """Check children, parents, runs and depths; return the internal nodes whose children
        are valid ids and the leaves whose triangle runs lie inside ``prim_ids``."""
        t, k, m = self.tree, self.k, self.m
        first = t.first.astype(np.int64)
        count = t.count.astype(np.int64)
        parent = t.parent.astype(np.int64)
        depth = t.depth.astype(np.int64)
        start = t.prim_start.astype(np.int64)
        n_prims = t.n_prims.astype(np.int64)
        ids = np.arange(k, dtype=np.int64)

        negative = np.flatnonzero(count < 0)
        self.topology(negative, lambda i: f"negative triangle count {int(count[i])}")
        internal = np.flatnonzero(count == 0)
        leaves = np.flatnonzero(count > 0)

        # Children at first, first + 1, both after the parent (so a reverse sweep is bottom-up).
        left = first[internal]
        bad = (left <= internal) | (left + 1 >= k)
        self.topology(internal[bad], lambda i: f"children {int(first[i])}, {int(first[i]) + 1} "
                      f"are not nodes after it (1..{k - 1}, after {i})")  # fmt: skip
        internal = internal[~bad]
        left = first[internal]

        # Every node but the root is the child of exactly one node, and its parent says so.
        times_child = np.bincount(np.concatenate([left, left + 1]), minlength=k)
        if times_child[0]:
            self.topology([0], lambda i: "the root is the child of another node")
        orphan = np.flatnonzero(times_child[1:] == 0) + 1
        self.topology(orphan, lambda i: "is the child of no node")
        shared = np.flatnonzero(times_child > 1)
        self.topology(shared, lambda i: f"is the child of {int(times_child[i])} nodes")
        if parent[0] != -1:
            self.topology([0], lambda i: f"the root's parent is {int(parent[0])}, not -1")
        holder = np.full(k, -1, dtype=np.int64)
        holder[left] = internal
        holder[left + 1] = internal
        for side in (0, 1):
            child = left + side
            wrong = parent[child] != internal
            self.topology(child[wrong], lambda c: f"parent is {self.shown(parent[c])}, but "
                          f"node {self.shown(holder[c])} has it as a child")  # fmt: skip
            wrong = depth[child] != depth[internal] + 1
            self.topology(child[wrong], lambda c: f"depth {int(depth[c])} is not its "
                          f"parent's depth + 1")  # fmt: skip
        if depth[0] != 0:
            self.topology([0], lambda i: f"the root's depth is {int(depth[0])}, not 0")

        # Runs: the root covers all triangles; children split their parent's run in two.
        if start[0] != 0 or n_prims[0] != m:
            self.topology([0], lambda i: f"the root's run is {int(start[0])}+{int(n_prims[0])}, "
                          f"not all {m} triangles")  # fmt: skip
        run_bad = (start < 0) | (n_prims < 1) | (start + n_prims > m)
        self.topology(ids[run_bad], lambda i: f"triangle run {int(start[i])}+{int(n_prims[i])} "
                      f"is not inside 0..{m}")  # fmt: skip
        lc, rc = left, left + 1
        split_bad = ((start[lc] != start[internal]) | (start[rc] != start[lc] + n_prims[lc])
                     | (n_prims[lc] + n_prims[rc] != n_prims[internal]))  # fmt: skip
        self.topology(internal[split_bad], lambda i: "its run "
                      f"{int(start[i])}+{int(n_prims[i])} is not the union of its children's "
                      f"runs {int(start[first[i]])}+{int(n_prims[first[i]])} and "
                      f"{int(start[first[i] + 1])}+{int(n_prims[first[i] + 1])}")  # fmt: skip
        leaf_bad = (first[leaves] != start[leaves]) | (count[leaves] != n_prims[leaves])
        self.topology(leaves[leaf_bad], lambda i: f"leaf range {int(first[i])}+{int(count[i])} "
                      f"differs from its run {int(start[i])}+{int(n_prims[i])}")  # fmt: skip
        in_range = (first[leaves] >= 0) & (first[leaves] + count[leaves] <= m)
        self.topology(leaves[~in_range], lambda i: f"leaf range {int(first[i])}+"
                      f"{int(count[i])} runs past the {m} triangle ids")  # fmt: skip

        self._levels(depth)
        return internal, leaves[in_range]

    def _levels(self, depth: np.ndarray) -> None:
        """``level_nodes`` groups every node by depth as ``level_start`` says."""
        t, k = self.tree, self.k
        level_nodes = t.level_nodes.astype(np.int64)
        level_start = t.level_start.astype(np.int64)
        n_levels = level_start.shape[0] - 1
        sizes = np.diff(level_start)
        if (n_levels < 1 or level_start[0] != 0 or level_start[-1] != k or (sizes < 0).any()
                or n_levels != int(depth.max(initial=0)) + 1):  # fmt: skip
            self.topology([-1], lambda _: f"level_start ({n_levels + 1} entries) does not "
                          f"group {k} nodes into {int(depth.max(initial=0)) + 1} depths")
            return
        if ((level_nodes < 0) | (level_nodes >= k)).any() or (
                np.bincount(level_nodes[(level_nodes >= 0) & (level_nodes < k)],
                            minlength=k) != 1).any():  # fmt: skip
            self.topology([-1], lambda _: "level_nodes does not list every node once")
            return
        level_of = np.repeat(np.arange(n_levels), sizes)
        wrong = level_nodes[depth[level_nodes] != level_of]
        self.topology(wrong, lambda i: f"is listed in another level than its depth "
                      f"{int(depth[i])}")  # fmt: skip

    def children_inside(self, internal: np.ndarray) -> None:
        """Each internal node's box encloses both children's boxes, exactly."""
        t = self.tree
        for side in (0, 1):
            child = t.first[internal].astype(np.int64) + side
            # How far the child's box passes the parent's, worst axis and side (<= 0: inside).
            # Column by column: 1-D gathers are several times faster than (j, 3) ones.
            excess = np.full(internal.shape[0], -np.inf)
            for axis in range(3):
                lo, hi = t.bmin[:, axis], t.bmax[:, axis]
                np.maximum(excess, lo[internal] - lo[child], out=excess)
                np.maximum(excess, hi[child] - hi[internal], out=excess)
            self._outside(ViolationKind.CHILD_OUTSIDE, internal, excess,
                          lambda node, s=side: self._child_text(
                              node, int(self.tree.first[node]) + s))  # fmt: skip

    def _child_text(self, node: int, child: int) -> tuple[str, dict]:
        t = self.tree
        below = t.bmin[node] - t.bmin[child]
        above = t.bmax[child] - t.bmax[node]
        axis, words = _direction(below, above)
        return (f"{self.name(node)}: child {self.shown(child)} {words}",
                {"child": int(child), "axis": axis})  # fmt: skip

    def triangles_inside(self, leaves: np.ndarray) -> None:
        """Each leaf's box encloses the vertices of its triangles, exactly."""
        t = self.tree
        if leaves.size == 0:
            return
        starts = t.first[leaves].astype(np.int64)
        counts = t.count[leaves].astype(np.int64)
        offsets = np.zeros(leaves.shape[0], dtype=np.int64)
        np.cumsum(counts[:-1], out=offsets[1:])
        positions = np.repeat(starts - offsets, counts) + np.arange(int(counts.sum()))
        tris = t.prim_ids[positions].astype(np.int64)
        valid = (tris >= 0) & (tris < self.m)
        all_valid = bool(valid.all())
        if not all_valid:
            tris = np.where(valid, tris, 0)  # a bad id is a PERMUTATION violation, not a box one
        corner_ids = [t.faces[tris, c] for c in range(3)]  # 3 x (p,) vertex ids
        excess = np.full(leaves.shape[0], -np.inf)
        for axis in range(3):
            coord = self.vertices[:, axis]
            xs = [coord[ids] for ids in corner_ids]
            lo = np.minimum(np.minimum(xs[0], xs[1]), xs[2])
            hi = np.maximum(np.maximum(xs[0], xs[1]), xs[2])
            if not all_valid:
                lo[~valid], hi[~valid] = np.inf, -np.inf
            leaf_lo = np.minimum.reduceat(lo, offsets)
            leaf_hi = np.maximum.reduceat(hi, offsets)
            np.maximum(excess, t.bmin[leaves, axis] - leaf_lo, out=excess)
            np.maximum(excess, leaf_hi - t.bmax[leaves, axis], out=excess)
        self._outside(ViolationKind.TRIANGLE_OUTSIDE, leaves, excess, self._triangle_text)

    def _triangle_text(self, node: int) -> tuple[str, dict]:
        t = self.tree
        tris = t.prim_ids[t.first[node] : t.first[node] + t.count[node]]
        tris = tris[(tris >= 0) & (tris < self.m)]
        corners = self.vertices[t.faces[tris]]  # (c, 3, 3)
        below = t.bmin[node] - corners.min(axis=1)  # (c, 3)
        above = corners.max(axis=1) - t.bmax[node]
        excess = np.nan_to_num(np.maximum(below, above), nan=np.inf).max(axis=1)
        worst = int(np.argmax(excess))
        axis, words = _direction(below[worst], above[worst])
        return (f"{self.name(node)}: triangle {int(tris[worst])} {words}",
                {"triangle": int(tris[worst]), "axis": axis})  # fmt: skip

    def _outside(self, kind, nodes, excess, describe) -> None:
        """Record the ``nodes`` whose ``excess`` (how far outside, (j,) float64) is > 0."""
        # NaN in a box compares false everywhere (np.maximum passes it on): "not <= 0" catches
        # it, and it counts as infinitely far outside.
        bad = ~(excess <= 0.0)
        found = nodes[bad].astype(np.int64)
        sizes = excess[bad]
        sizes[np.isnan(sizes)] = np.inf
        self.add(kind, found, sizes, lambda j: describe(int(found[j])))

    # ---- result -----------------------------------------------------------------------------

    def report(self, max_listed: int, seconds_from: float) -> ValidationReport:
        if not self.groups:
            return ValidationReport((), self.k, time.perf_counter() - seconds_from)
        nodes = np.concatenate([g.nodes for g in self.groups])
        sizes = np.concatenate([g.sizes for g in self.groups])
        group_of = np.concatenate([np.full(g.nodes.shape[0], i) for i, g in
                                   enumerate(self.groups)])  # fmt: skip
        index_in = np.concatenate([np.arange(g.nodes.shape[0]) for g in self.groups])
        order = np.lexsort((group_of, nodes, -sizes))[:max_listed]
        listed = []
        for i in order:
            said = self.groups[group_of[i]].describe(int(index_in[i]))
            text, parts = (said, {}) if isinstance(said, str) else said
            listed.append(Violation(int(nodes[i]), self.groups[group_of[i]].kind,
                                    float(sizes[i]), text, **parts))  # fmt: skip
        listed = tuple(listed)
        bad_nodes = np.unique(nodes[nodes >= 0]).astype(np.int32)
        return ValidationReport(listed, self.k, time.perf_counter() - seconds_from,
                                n_found=int(nodes.shape[0]), bad_nodes=bad_nodes)  # fmt: skip


def _direction(below: np.ndarray, above: np.ndarray) -> tuple[str, str]:
    """``("+x", "sticks out by 0.0031 along +x")``: the axis and side that stick out the
    most, and the words (``""`` and ``"sticks out: a box that is not a number"`` for NaN).

    below, above : (3,) float64, how far past the box's min and max side (NaN: not a number).
    """
    below = np.nan_to_num(below, nan=np.inf)
    above = np.nan_to_num(above, nan=np.inf)
    if below.max() >= above.max():
        axis, sign, size = int(np.argmax(below)), "-", float(below.max())
    else:
        axis, sign, size = int(np.argmax(above)), "+", float(above.max())
    if not np.isfinite(size):
        return "", "sticks out: a box that is not a number"
    side = f"{sign}{_AXES[axis]}"
    return side, f"sticks out by {_length(size)} along {side}"


def validate_tree(tree: Tree, vertices: np.ndarray, max_listed: int = 1000,
                  file_ids: np.ndarray | None = None) -> ValidationReport:  # fmt: skip
    """Check every invariant of ``tree`` against ``vertices`` (the current pose).

    Checks that each internal node's box encloses its two children's boxes; that each leaf's
    box encloses every vertex of its triangles; that ``prim_ids`` is a permutation of
    ``0..m-1``; and that the topology is consistent: children in range and after their parent,
    the parent array agrees, every node but the root is the child of one node, leaf ranges
    equal their runs, each node's run is the union of its children's, depths and the level
    arrays agree.

    The comparisons are exact, with no tolerance: the builder and the refit compute every box
    as the exact minimum and maximum of float64 coordinates (a parent's box is the min/max of
    its children's), so a correct tree encloses with no round-off at all, and any positive
    excess, however small, is a real violation.

    Parameters
    ----------
    tree : Tree
    vertices : (n, 3) float64
        The mesh's current vertices (local coordinates), indexed by ``tree.faces``.
    max_listed : int
        Most violations listed (the largest first); all are counted.
    file_ids : (k,) int64, optional
        The id each node has in a file the tree was read from; the texts then name every
        node (the node at fault, a child, a node in a topology problem) by it.

    Returns
    -------
    ValidationReport

    Raises
    ------
    ValueError
        If ``vertices`` is not ``(n, 3)`` or the tree's faces index past it, or
        ``max_listed`` is negative.
    """
    t0 = time.perf_counter()
    if not isinstance(tree, Tree):
        raise TypeError(f"tree must be a Tree, got {type(tree).__name__}")
    vertices = np.asarray(vertices, dtype=np.float64)
    if vertices.ndim != 2 or vertices.shape[1] != 3:
        raise ValueError(f"vertices must be of shape (n, 3), got {vertices.shape}")
    if tree.faces.size and int(tree.faces.max()) >= vertices.shape[0]:
        raise ValueError(f"the tree's faces refer to vertex {int(tree.faces.max())}, but "
                         f"only {vertices.shape[0]} vertices were given")  # fmt: skip
    if int(max_listed) < 0:
        raise ValueError(f"max_listed must be >= 0, got {max_listed}")
    checker = _Checker(tree, vertices, file_ids)
    if checker.shapes_ok():
        checker.permutation()
        internal, leaves = checker.structure()
        checker.children_inside(internal)
        checker.triangles_inside(leaves)
    return checker.report(int(max_listed), t0)
