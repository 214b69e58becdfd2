"""Bounding-volume trees over triangle meshes: build, refit, quality."""

from core.bvh.build import build_tree, build_trees
from core.bvh.quality import sah_cost, tree_drift, volume_sum
from core.bvh.refit import refit_tree
from core.bvh.tree import BuildStats, SplitRule, Tree

__all__ = [
    "BuildStats",
    "SplitRule",
    "Tree",
    "build_tree",
    "build_trees",
    "refit_tree",
    "sah_cost",
    "tree_drift",
    "volume_sum",
]
