"""Check the volumes a tree file brought (coal's oriented boxes and rounded rectangles): every
node's volume encloses every triangle under it.

A coal tree fits each node's volume to the node's own triangles (``BVHModel::
recursiveBuildTree``), not by merging its children's: a child's oriented box may stick out of
its parent's while both enclose their triangles, and the query is still right. What the query
needs is that a volume encloses every triangle under it, so that is what is checked (at
every node, not only the leaves). The tree's own boxes are checked by
:func:`core.bvh.validate.validate_tree`; :func:`validate_imported` reports both.

Round-off: coal computes a volume in float64 from the vertices' projections, so a vertex can
lie outside its volume by a few units of the last place (4e-16 measured on coal 3.0.3's
files of a unit-sized mesh). A point counts as outside when it is farther than
:data:`VOLUME_ROUND` times the mesh's size (the largest coordinate or extent of the root).
"""

from __future__ import annotations

import time

import numpy as np

from core.bv.registry import get_kind
from core.bv.shapes import OrientedBoxes, SweptRectangles
from core.bvh.tree import Tree
from core.bvh.validate import ValidationReport, Violation, ViolationKind, validate_tree

VOLUME_ROUND = 1e-12
"""Relative round-off allowed to a file's volume (see the module's note): 1e-12 of the
mesh's size, some 4,000 times what coal's own fits showed."""

#: Node-triangle pairs handled at once (bounds the memory of the check: ~200 bytes a pair).
CHUNK_PAIRS = 1 << 18


def _outside(kind_name: str, rows: np.ndarray, points: np.ndarray) -> np.ndarray:
    """How far each point ``(p, 3)`` is outside its own row ``rows (p, width)`` of an
    oriented box or a swept rectangle kind (read as its registry row's ``shape``)."""
    shape = get_kind(kind_name).shape(rows)
    if not isinstance(shape, (OrientedBoxes, SweptRectangles)):
        raise ValueError(f"a tree file's {kind_name} volumes cannot be checked: only oriented "
                         "boxes and swept rectangles are read from tree files")
    local = np.einsum("pi,pij->pj", points - shape.centre, shape.axes)
    if isinstance(shape, OrientedBoxes):
        return (np.abs(local) - shape.half).max(axis=1)
    clamped = local.copy()
    clamped[:, 0] = np.clip(local[:, 0], -shape.half[:, 0], shape.half[:, 0])
    clamped[:, 1] = np.clip(local[:, 1], -shape.half[:, 1], shape.half[:, 1])
    clamped[:, 2] = 0.0
    return np.linalg.norm(local - clamped, axis=1) - shape.radius


def volume_excess(tree: Tree, vertices: np.ndarray, kind_name: str,
                  rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Per node, how far its triangles stick out of its volume and which triangle most.

    Returns
    -------
    excess : (k,) float64
        Largest distance outside over the vertices of every triangle under the node (<= 0
        inside; inf for a volume that is not a number).
    worst : (k,) int64
        The triangle (face id) of that vertex.
    """
    k = tree.n_nodes
    excess = np.full(k, -np.inf)
    worst = np.full(k, -1, dtype=np.int64)
    n_prims = tree.n_prims.astype(np.int64)
    ends = np.cumsum(n_prims)
    node = 0
    while node < k:
        # Nodes node..stop-1 hold at most CHUNK_PAIRS pairs (at least one node).
        limit = (ends[node - 1] if node else 0) + CHUNK_PAIRS
        stop = max(node + 1, int(np.searchsorted(ends, limit, side="right")))
        nodes = np.arange(node, stop)
        counts = n_prims[nodes]
        offsets = np.repeat(np.cumsum(counts) - counts, counts)
        at = np.repeat(tree.prim_start[nodes].astype(np.int64), counts)
        pos = at + np.arange(int(counts.sum())) - offsets
        tris = tree.prim_ids[pos].astype(np.int64)
        owner = np.repeat(nodes, counts)
        far = np.full(tris.shape[0], -np.inf)
        for corner in range(3):
            points = vertices[tree.faces[tris, corner]]
            np.maximum(far, _outside(kind_name, rows[owner], points), out=far)
        far = np.where(np.isnan(far), np.inf, far)
        starts = np.cumsum(counts) - counts
        best = np.maximum.reduceat(far, starts)
        excess[nodes] = best
        # The first pair of each node reaching its maximum names the triangle.
        hit = far == np.repeat(best, counts)
        first_hit = np.maximum.reduceat(np.where(hit, -np.arange(far.shape[0]), -far.shape[0]),
                                        starts)  # fmt: skip
        worst[nodes] = tris[-first_hit]
        node = stop
    bad_rows = ~np.isfinite(rows).all(axis=1)
    excess[bad_rows] = np.inf
    return excess, worst


def volume_violations(tree: Tree, vertices: np.ndarray, kind_name: str, rows: np.ndarray,
                  file_ids: np.ndarray | None = None) -> list[Violation]:  # fmt: skip
    """One TRIANGLE_OUTSIDE violation per node whose volume does not enclose a triangle
    under it (by more than :data:`VOLUME_ROUND` of the mesh's size), largest first."""
    kind = get_kind(kind_name)
    excess, worst = volume_excess(tree, vertices, kind.name, rows)
    scale = max(float(np.abs(tree.bmin[0]).max()), float(np.abs(tree.bmax[0]).max()),
                float((tree.bmax[0] - tree.bmin[0]).max()), 1e-300)  # fmt: skip
    bad = np.flatnonzero(~(excess <= VOLUME_ROUND * scale))
    out = []
    for node in bad[np.argsort(-excess[bad], kind="stable")]:
        shown = int(file_ids[node]) if file_ids is not None else int(node)
        size = float(excess[node])
        far = "is not a number" if not np.isfinite(size) else f"by {size:.4g}"
        text = (f"node {shown} (depth {int(tree.depth[node])}): triangle {int(worst[node])} "
                f"sticks out of its {kind.noun} (the file's) {far}")
        out.append(Violation(int(node), ViolationKind.TRIANGLE_OUTSIDE, size, text,
                             triangle=int(worst[node])))  # fmt: skip
    return out


def validate_imported(imported, vertices: np.ndarray, max_listed: int = 1000) -> ValidationReport:
    """:func:`core.bvh.validate.validate_tree` of an imported tree, plus the check of the
    volumes its file brought (:attr:`core.bvh.treefile.ImportedTree.volumes`), listed
    together, largest first."""
    return validate_with_volumes(imported.tree, vertices, imported.volumes, max_listed,
                                 imported.file_ids)  # fmt: skip


def validate_given(tree: Tree, vertices: np.ndarray, max_listed: int = 1000,
                   file_ids: np.ndarray | None = None) -> ValidationReport:  # fmt: skip
    """:func:`validate_with_volumes` with the volumes a tree file gave ``tree`` while
    ``vertices`` are those they were read for (:func:`core.bv.registry.give_volumes`; a
    frame's pinned coal tree), else :func:`core.bvh.validate.validate_tree` alone."""
    from core.bv.registry import given_volumes

    volumes = {name: rows for name in ("obb", "rss")
               if (rows := given_volumes(tree, vertices, name)) is not None}  # fmt: skip
    return validate_with_volumes(tree, vertices, volumes, max_listed, file_ids)


def validate_with_volumes(tree: Tree, vertices: np.ndarray, volumes: dict,
                          max_listed: int = 1000,
                          file_ids: np.ndarray | None = None) -> ValidationReport:  # fmt: skip
    """:func:`core.bvh.validate.validate_tree` plus :func:`volume_violations` of each of
    ``volumes`` (kind name -> rows), listed together, largest first."""
    t0 = time.perf_counter()
    boxes = validate_tree(tree, vertices, max_listed=max_listed, file_ids=file_ids)
    if not volumes:
        return boxes
    found = []
    for name, rows in volumes.items():
        found += volume_violations(tree, vertices, name, rows, file_ids)
    if not found:
        return ValidationReport(boxes.violations, boxes.nodes_checked,
                                time.perf_counter() - t0, boxes.n_found,
                                boxes.bad_nodes)  # fmt: skip
    listed = sorted(list(boxes.violations) + found, key=lambda v: (-v.size, v.node))
    nodes = np.unique(np.concatenate([boxes.bad_nodes, [v.node for v in found]])).astype(np.int32)
    return ValidationReport(tuple(listed[:max_listed]), boxes.nodes_checked,
                            time.perf_counter() - t0, boxes.n_found + len(found),
                            nodes)  # fmt: skip
