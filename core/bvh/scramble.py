"""A valid but very bad tree: a built tree whose leaves hold triangles in random order.

The topology and the leaf sizes are those of a real build, every box encloses exactly what is
under it (refitted), so every invariant holds; but each leaf's triangles are drawn at random
from the whole mesh, so every box spans most of the mesh and overlaps nearly every other box.
A tandem traversal of such a tree meets a number of overlapping volume pairs that grows like
the product of the two trees' sizes: the input that exercises the pair budget
(:data:`core.collide.budget.DEFAULT_PAIR_BUDGET`) in the tests and benchmarks.
"""

from __future__ import annotations

import numpy as np

from core.bvh.refit import refit_tree
from core.bvh.tree import Tree
from core.mesh import TriMesh


def scrambled_tree(tree: Tree, mesh: TriMesh, seed: int = 0) -> Tree:
    """``tree`` with its triangles dealt to the leaves in random order, boxes refitted exactly.

    Parameters
    ----------
    tree : Tree
        A tree built over ``mesh``'s faces (any split rule and leaf size).
    mesh : TriMesh
    seed : int
        Of the permutation (the same seed gives the same tree).

    Returns
    -------
    Tree
        Same ``first, count`` (topology and leaf sizes), ``prim_ids`` permuted, ``bmin, bmax``
        the exact boxes of the new contents; valid by :func:`core.bvh.validate.validate_tree`.
    """
    rng = np.random.default_rng(seed)
    prim_ids = np.ascontiguousarray(tree.prim_ids[rng.permutation(tree.prim_ids.shape[0])])
    prim_ids.flags.writeable = False
    return refit_tree(tree.replaced(prim_ids=prim_ids), mesh)
