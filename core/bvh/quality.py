"""Cheap measures of tree quality, computed every frame to decide when to rebuild.

Refitting keeps the topology, so as a mesh deforms the boxes grow and overlap more; the
surface-area cost (MacDonald and Booth 1990) measures how much a ray or box query would pay.
Comparing it with its value at build time gives a drift that needs only the boxes, O(k).
"""

from __future__ import annotations

from numba import njit

#: Costs of one box test and one triangle test in the SAH; equal costs, as in madmann91/bvh's
#: default configuration, keep the measure a plain "expected tests per query".
SAH_TRAVERSAL_COST = 1.0
SAH_TRIANGLE_COST = 1.0


@njit(cache=True, nogil=True)
def sah_cost(bmin, bmax, count):
    """Surface-area cost of a tree relative to its root box.

    Parameters
    ----------
    bmin, bmax : (k, 3) float64
    count : (k,) int32
        Triangles per leaf, 0 for internal nodes.

    Returns
    -------
    float
        ``sum_internal A(n)/A(root) * C_trav + sum_leaves A(n)/A(root) * count(n) * C_tri``.
    """
    total = 0.0
    for i in range(bmin.shape[0]):
        dx = bmax[i, 0] - bmin[i, 0]
        dy = bmax[i, 1] - bmin[i, 1]
        dz = bmax[i, 2] - bmin[i, 2]
        area = dx * dy + dy * dz + dz * dx
        if count[i] > 0:
            total += area * count[i] * SAH_TRIANGLE_COST
        else:
            total += area * SAH_TRAVERSAL_COST
    dx = bmax[0, 0] - bmin[0, 0]
    dy = bmax[0, 1] - bmin[0, 1]
    dz = bmax[0, 2] - bmin[0, 2]
    root = dx * dy + dy * dz + dz * dx
    if root <= 0.0:
        # A flat axis-aligned mesh can have a zero-area root box; fall back to counts.
        return float(bmin.shape[0])
    return total / root


@njit(cache=True, nogil=True)
def volume_sum(bmin, bmax):
    """Sum of box volumes, ``float``; tightness as in the OBBTree paper's comparisons."""
    total = 0.0
    for i in range(bmin.shape[0]):
        total += (bmax[i, 0] - bmin[i, 0]) * (bmax[i, 1] - bmin[i, 1]) * (bmax[i, 2] - bmin[i, 2])
    return total


def tree_drift(tree, current=None) -> float:
    """How much worse the tree is than when it was built: ``SAH now / SAH at build - 1``.

    Parameters
    ----------
    tree : Tree
        A tree whose boxes have been refitted (or the freshly built one: drift 0).
    current : Tree, optional
        A refitted version of ``tree``; when given, its boxes are measured against the build
        statistics of ``tree``.

    Returns
    -------
    float
        0 right after a build; grows as refits loosen the boxes.
    """
    t = tree if current is None else current
    now = sah_cost(t.bmin, t.bmax, t.count)
    built = tree.stats.sah_cost
    if built <= 0.0:
        return 0.0
    return float(now / built - 1.0)
