"""Top-down construction of the AABB tree with a selectable split rule.

One builder, steered by :class:`~core.bvh.tree.SplitRule` (CONTRIBUTING.md, convention 4): every
rule only decides where a node's run of triangles is cut; allocation, boxes and fallbacks
are shared. Work per level is linear, so a build is O(m log m).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from core.bv._geom import jacobi_eigenvectors
from core.bv.obb_fit import node_corner_ids, point_covariance, surface_covariance
from core.bvh.quality import sah_cost, volume_sum
from core.bvh.tree import BuildStats, SplitRule, Tree
from core.mesh import TriMesh

#: Bins per axis of the binned SAH; 16 is the usual compromise (Wald 2007: 8-32 all within a
#: few percent of the full sweep).
SAH_BINS = 16

_MIDPOINT = int(SplitRule.MIDPOINT)
_MEDIAN = int(SplitRule.MEDIAN)
_MEAN = int(SplitRule.MEAN)
_SAH = int(SplitRule.SAH)
_LBVH = int(SplitRule.LBVH)
_OBB = int(SplitRule.OBB)


@njit(cache=True, nogil=True)
def face_boxes(vertices, faces):
    """The axis-aligned box of each face of a mesh (the primitives a tree is built over).

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32

    Returns
    -------
    pmin, pmax : (m, 3) float64
    """
    m = faces.shape[0]
    pmin = np.empty((m, 3))
    pmax = np.empty((m, 3))
    for i in range(m):
        a, b, c = faces[i, 0], faces[i, 1], faces[i, 2]
        for k in range(3):
            x, y, z = vertices[a, k], vertices[b, k], vertices[c, k]
            lo = x if x < y else y
            lo = lo if lo < z else z
            hi = x if x > y else y
            hi = hi if hi > z else z
            pmin[i, k] = lo
            pmax[i, k] = hi
    return pmin, pmax


@njit(cache=True, nogil=True)
def _select(order, start, end, kth, keys):
    """Reorder ``order[start:end]`` so the element at ``kth`` is the one a sort by ``keys``
    would put there, smaller keys before it and larger after (Hoare's quickselect).

    ``keys`` is indexed by the values of ``order`` (triangle ids), so no copy is made.
    """
    lo, hi = start, end - 1
    while lo < hi:
        pivot = keys[order[(lo + hi) // 2]]
        i, j = lo, hi
        while i <= j:
            while keys[order[i]] < pivot:
                i += 1
            while keys[order[j]] > pivot:
                j -= 1
            if i <= j:
                order[i], order[j] = order[j], order[i]
                i += 1
                j -= 1
        if kth <= j:
            hi = j
        elif kth >= i:
            lo = i
        else:
            break


@njit(cache=True, nogil=True)
def _partition(order, start, end, keys, value):
    """Move triangles with ``keys < value`` to the front of the run; return the cut index."""
    i, j = start, end - 1
    while i <= j:
        if keys[order[i]] < value:
            i += 1
        else:
            order[i], order[j] = order[j], order[i]
            j -= 1
    return i


@njit(cache=True, nogil=True)
def _sah_split(order, start, end, centers, pmin, pmax, cmin, cmax):
    """Binned SAH: the axis and bin boundary of least cost; returns the cut index or -1."""
    nb = SAH_BINS
    best_cost = np.inf
    best_axis = -1
    best_bin = -1
    bcount = np.zeros(nb, dtype=np.int64)
    bmin = np.empty((nb, 3))
    bmax = np.empty((nb, 3))
    right_area = np.empty(nb)
    for axis in range(3):
        extent = cmax[axis] - cmin[axis]
        if extent <= 0.0:
            continue
        scale = nb / extent
        bcount[:] = 0
        bmin[:, :] = np.inf
        bmax[:, :] = -np.inf
        for p in range(start, end):
            t = order[p]
            b = int((centers[t, axis] - cmin[axis]) * scale)
            b = min(b, nb - 1)
            bcount[b] += 1
            for k in range(3):
                bmin[b, k] = min(bmin[b, k], pmin[t, k])
                bmax[b, k] = max(bmax[b, k], pmax[t, k])
        # Sweep from the right to get the area of every right-hand union.
        lo = np.full(3, np.inf)
        hi = np.full(3, -np.inf)
        right_count = np.zeros(nb, dtype=np.int64)
        n_right = 0
        for b in range(nb - 1, 0, -1):
            for k in range(3):
                lo[k] = min(lo[k], bmin[b, k])
                hi[k] = max(hi[k], bmax[b, k])
            n_right += bcount[b]
            right_count[b] = n_right
            dx, dy, dz = hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]
            right_area[b] = dx * dy + dy * dz + dz * dx if n_right > 0 else 0.0
        lo[:] = np.inf
        hi[:] = -np.inf
        n_left = 0
        for b in range(nb - 1):
            for k in range(3):
                lo[k] = min(lo[k], bmin[b, k])
                hi[k] = max(hi[k], bmax[b, k])
            n_left += bcount[b]
            if n_left == 0 or right_count[b + 1] == 0:
                continue
            dx, dy, dz = hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]
            cost = (dx * dy + dy * dz + dz * dx) * n_left + right_area[b + 1] * right_count[b + 1]
            if cost < best_cost:
                best_cost = cost
                best_axis = axis
                best_bin = b
    if best_axis < 0:
        return -1
    # Partition by the bin index itself, not by ``value``, so that round-off in the boundary
    # cannot move a triangle to the other side of the bin it was counted in.
    scale = nb / (cmax[best_axis] - cmin[best_axis])
    i, j = start, end - 1
    while i <= j:
        t = order[i]
        b = min(int((centers[t, best_axis] - cmin[best_axis]) * scale), nb - 1)
        if b <= best_bin:
            i += 1
        else:
            order[i], order[j] = order[j], order[i]
            j -= 1
    return i


@njit(cache=True, nogil=True)
def _morton_codes(centers):
    """30-bit Morton codes of the centres in their bounding box, ``(m,) int64``."""
    m = centers.shape[0]
    lo = np.empty(3)
    hi = np.empty(3)
    for k in range(3):
        lo[k] = centers[:, k].min()
        hi[k] = centers[:, k].max()
    codes = np.empty(m, dtype=np.int64)
    for i in range(m):
        code = 0
        for k in range(3):
            ext = hi[k] - lo[k]
            q = int((centers[i, k] - lo[k]) / ext * 1023.0) if ext > 0.0 else 0
            q = min(max(q, 0), 1023)
            # Spread the 10 bits of q to every third bit.
            x = q
            x = (x | (x << 16)) & 0x030000FF
            x = (x | (x << 8)) & 0x0300F00F
            x = (x | (x << 4)) & 0x030C30C3
            x = (x | (x << 2)) & 0x09249249
            code |= x << (2 - k)
        codes[i] = code
    return codes


@njit(cache=True, nogil=True)
def _lbvh_cut(order, start, end, codes):
    """Karras' rule: cut where the highest bit that differs in the run turns on; -1 if none."""
    a = codes[order[start]]
    b = codes[order[end - 1]]
    if a == b:
        return -1
    diff = a ^ b
    bit = 0
    while (diff >> (bit + 1)) != 0:
        bit += 1
    mask = np.int64(1) << bit
    lo, hi = start, end - 1
    while lo < hi:  # first index whose code has the bit set (codes are sorted)
        mid = (lo + hi) // 2
        if codes[order[mid]] & mask:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, nogil=True)
def _obb_split(order, start, end, vertices, faces, keys):
    """OBBTree cut (Gottschalk et al. 1996, section 4): across the longest axis of the node's
    oriented box at the mean of the triangle centres, falling back to the next longest axis.

    The box axes are the eigenvectors of the area-weighted covariance of the node's
    triangles (the "surface" fit of :mod:`core.bv.obb_fit`); zero-area nodes use the corners.

    Returns
    -------
    int
        The cut in ``order[start:end]``; ``start`` when no axis separates the centres.
    """
    ids = node_corner_ids(faces, order, start, end - start)
    ref = vertices[ids[0]].copy()
    cov = np.empty((3, 3))
    if surface_covariance(vertices, faces, order, start, end - start, ref, cov,
                          np.empty((2, 10))) <= 0.0:  # fmt: skip
        point_covariance(vertices, np.unique(ids), ref, cov)
    axes, _ = jacobi_eigenvectors(cov)
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    for v in ids:
        for j in range(3):
            proj = ((vertices[v, 0] - ref[0]) * axes[0, j] + (vertices[v, 1] - ref[1]) * axes[1, j]
                    + (vertices[v, 2] - ref[2]) * axes[2, j])  # fmt: skip
            lo[j] = min(lo[j], proj)
            hi[j] = max(hi[j], proj)
    by_extent = np.argsort(lo - hi)  # longest first
    for q in range(3):
        j = by_extent[q]
        centre_mean = 0.0
        for p in range(start, end):
            t = order[p]
            proj = 0.0
            for k in range(3):
                for i in range(3):
                    proj += (vertices[faces[t, k], i] - ref[i]) * axes[i, j]
            proj /= 3.0
            keys[t] = proj
            centre_mean += proj
        cut = _partition(order, start, end, keys, centre_mean / (end - start))
        if start < cut < end:
            return cut
    return start


@njit(cache=True, nogil=True)
def build_topology(pmin, pmax, rule, leaf_size, vertices, faces):
    """Build the node arrays.

    Parameters
    ----------
    pmin, pmax : (m, 3) float64
        Triangle boxes.
    rule : int
        A :class:`SplitRule` value.
    leaf_size : int
        A node with at most this many triangles becomes a leaf.
    vertices : (n, 3) float64
    faces : (m, 3) int32
        The triangles themselves (only the OBB rule reads them).

    Returns
    -------
    first, count, parent, depth, prim_start, n_prims : (k,) int32
    prim_ids : (m,) int32
    bmin, bmax : (k, 3) float64
    """
    m = pmin.shape[0]
    max_nodes = 2 * m - 1
    first = np.zeros(max_nodes, dtype=np.int32)
    count = np.zeros(max_nodes, dtype=np.int32)
    parent = np.full(max_nodes, -1, dtype=np.int32)
    depth = np.zeros(max_nodes, dtype=np.int32)
    prim_start = np.zeros(max_nodes, dtype=np.int32)
    n_prims = np.zeros(max_nodes, dtype=np.int32)
    bmin = np.empty((max_nodes, 3))
    bmax = np.empty((max_nodes, 3))
    centers = 0.5 * (pmin + pmax)
    order = np.arange(m).astype(np.int32)
    codes = np.zeros(1, dtype=np.int64)
    if rule == _LBVH:
        codes = _morton_codes(centers)
        order = np.argsort(codes, kind="mergesort").astype(np.int32)
    keys = np.empty(m)

    # Pending nodes; a run of n triangles never leaves more than n nodes pending.
    stack_nodes = np.empty(max_nodes, dtype=np.int32)
    stack_nodes[0] = 0
    top = 1
    prim_start[0] = 0
    n_prims[0] = m
    n_nodes = 1
    cmin = np.empty(3)
    cmax = np.empty(3)
    while top > 0:
        top -= 1
        node = stack_nodes[top]
        s = prim_start[node]
        n = n_prims[node]
        e = s + n
        for k in range(3):
            bmin[node, k] = np.inf
            bmax[node, k] = -np.inf
            cmin[k] = np.inf
            cmax[k] = -np.inf
        for p in range(s, e):
            t = order[p]
            for k in range(3):
                bmin[node, k] = min(bmin[node, k], pmin[t, k])
                bmax[node, k] = max(bmax[node, k], pmax[t, k])
                cmin[k] = min(cmin[k], centers[t, k])
                cmax[k] = max(cmax[k], centers[t, k])
        if n <= leaf_size:
            first[node] = s
            count[node] = n
            continue
        axis = 0
        ext = bmax[node, 0] - bmin[node, 0]
        for k in range(1, 3):
            if bmax[node, k] - bmin[node, k] > ext:
                ext = bmax[node, k] - bmin[node, k]
                axis = k
        cut = -1
        if rule == _MIDPOINT:
            for p in range(s, e):
                keys[order[p]] = centers[order[p], axis]
            cut = _partition(order, s, e, keys, 0.5 * (bmin[node, axis] + bmax[node, axis]))
        elif rule == _MEAN:
            mean = 0.0
            for p in range(s, e):
                keys[order[p]] = centers[order[p], axis]
                mean += centers[order[p], axis]
            cut = _partition(order, s, e, keys, mean / n)
        elif rule == _SAH:
            cut = _sah_split(order, s, e, centers, pmin, pmax, cmin, cmax)
        elif rule == _LBVH:
            cut = _lbvh_cut(order, s, e, codes)
        elif rule == _OBB:
            cut = _obb_split(order, s, e, vertices, faces, keys)
        if cut <= s or cut >= e:
            # Equal split: always for MEDIAN, and the fallback of every rule when one side
            # would be empty (van den Bergen 1997, section 3.1). LBVH runs stay in Morton
            # order, so its fallback is a plain halving of the run.
            cut = s + n // 2
            if rule != _LBVH:
                for p in range(s, e):
                    keys[order[p]] = centers[order[p], axis]
                _select(order, s, e, cut, keys)
        left = n_nodes
        n_nodes += 2
        first[node] = left
        count[node] = 0
        for c in range(2):
            child = left + c
            parent[child] = node
            depth[child] = depth[node] + 1
        prim_start[left] = s
        n_prims[left] = cut - s
        prim_start[left + 1] = cut
        n_prims[left + 1] = e - cut
        # Push right first so the left subtree is built (and numbered) first.
        stack_nodes[top] = left + 1
        stack_nodes[top + 1] = left
        top += 2
    return (
        first[:n_nodes].copy(),
        count[:n_nodes].copy(),
        parent[:n_nodes].copy(),
        depth[:n_nodes].copy(),
        prim_start[:n_nodes].copy(),
        n_prims[:n_nodes].copy(),
        order,
        bmin[:n_nodes].copy(),
        bmax[:n_nodes].copy(),
    )


def _set_read_only(*arrays):
    """Clear the writeable flag of each of a tree's topology arrays."""
    for a in arrays:
        a.flags.writeable = False


def build_tree(
    mesh: TriMesh, split: SplitRule = SplitRule.MIDPOINT, leaf_size: int = 1
) -> Tree:
    """Build an AABB tree over a mesh's triangles.

    Parameters
    ----------
    mesh : TriMesh
    split : SplitRule
        Default: van den Bergen's midpoint of the longest box axis.
    leaf_size : int
        Most triangles in a leaf (default 1, as in van den Bergen 1997).

    Returns
    -------
    Tree
    """
    split = SplitRule(split)
    leaf_size = int(leaf_size)
    if leaf_size < 1:
        raise ValueError(f"leaf_size must be at least 1, got {leaf_size}")
    t0 = time.perf_counter()
    pmin, pmax = face_boxes(mesh.vertices, mesh.faces)
    first, count, parent, depth, prim_start, n_prims, prim_ids, bmin, bmax = build_topology(
        pmin, pmax, int(split), leaf_size, mesh.vertices, mesh.faces
    )
    seconds = time.perf_counter() - t0
    is_leaf = count > 0
    leaf_depth = depth[is_leaf]
    leaf_count = count[is_leaf]
    # Read-only before the measures: sah_cost and volume_sum then run the signature a tree
    # read from a file (or any Tree, which holds its arrays read-only) runs.
    _set_read_only(first, count, prim_ids, bmin, bmax)
    stats = BuildStats(
        n_nodes=int(first.shape[0]),
        n_leaves=int(is_leaf.sum()),
        depth_min=int(leaf_depth.min()),
        depth_max=int(leaf_depth.max()),
        leaf_size_mean=float(leaf_count.mean()),
        leaf_size_max=int(leaf_count.max()),
        sah_cost=float(sah_cost(bmin, bmax, count)),
        volume_sum=float(volume_sum(bmin, bmax)),
        build_seconds=seconds,
    )
    return Tree(
        # parent, depth, prim_start, n_prims and the level lists are derived when first read
        # (core.bvh.tree.DERIVED_FIELDS): neither the query nor the refit reads them.
        first=first,
        count=count,
        prim_ids=prim_ids,
        bmin=bmin,
        bmax=bmax,
        faces=mesh.faces,
        split=split,
        leaf_size=leaf_size,
        stats=stats,
    )


def build_trees(
    meshes: list[TriMesh], split: SplitRule = SplitRule.MIDPOINT, leaf_size: int = 1
) -> list[Tree]:
    """Build several trees at once, one thread each.

    The builder is serial but releases the GIL (``nogil``), so on a two-core machine two
    trees build in about the time of one.
    """
    if len(meshes) <= 1:
        return [build_tree(m, split, leaf_size) for m in meshes]
    with ThreadPoolExecutor(max_workers=len(meshes)) as pool:
        return list(pool.map(lambda m: build_tree(m, split, leaf_size), meshes))
