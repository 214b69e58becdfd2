"""The tree diff in the view: one of two compared trees' volumes, its most-changed nodes bold.

``diff_tree``: the volumes of the tree shown (the diff's first or second), at the tree depth
the level overlays are drawn at, as dashes in :data:`~viewer.render.style.DIFF_COLOR`;
``diff_nodes``: the nodes of that tree whose boxes differ most from their match in the other
tree (``core.lab.tree_diff``: matched by the triangles they hold), drawn thick in the same colour.
The controller (``viewer.control.tree_diff``) makes the :class:`TreeDiffView`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyvista as pv

from viewer.render.geometry import boxes_groups_polydata
from viewer.render.ghost import dashed


@dataclass(frozen=True, eq=False)
class TreeDiffView:
    """What the view draws of a tree diff.

    Attributes
    ----------
    body : int
        The body (0: A, 1: B) whose trees were compared.
    tree : core.bvh.Tree
        The tree drawn (boxes in the body's own coordinates).
    nodes : (n,) int64
        Its nodes whose boxes differ most (BVH Lab's indices into ``tree``).
    words : str
        Which tree it is, for the legend ("tree 2: BVH Lab's sah build, leaf size 1").
    """

    body: int
    tree: object
    nodes: np.ndarray
    words: str


def diff_node_ids(view: TreeDiffView, level: int | None) -> np.ndarray:
    """``(k,) int``: the drawn tree's nodes at tree depth ``level`` (clamped; None: all)."""
    tree = view.tree
    if level is None:
        return np.asarray(tree.level_nodes)
    return np.asarray(tree.nodes_at_depth(min(int(level), tree.max_depth)))


def build_diff_tree(view: TreeDiffView | None, level: int | None, poses, hidden=frozenset(),
                    cap: int = 20_000) -> pv.PolyData:
    """Dashed boxes of the drawn tree at ``level`` (at most ``cap``)."""
    if view is None or view.body in hidden or view.body >= len(poses):
        return pv.PolyData()
    ids = diff_node_ids(view, level)[:int(cap)]
    tree = view.tree
    return dashed(boxes_groups_polydata([(tree.bmin[ids], tree.bmax[ids], poses[view.body])]))


def build_diff_nodes(view: TreeDiffView | None, poses, hidden=frozenset()) -> pv.PolyData:
    """Solid boxes of the nodes that differ most."""
    if view is None or view.body in hidden or view.body >= len(poses) or not len(view.nodes):
        return pv.PolyData()
    ids = np.asarray(view.nodes, dtype=np.int64)
    tree = view.tree
    return boxes_groups_polydata([(tree.bmin[ids], tree.bmax[ids], poses[view.body])])
