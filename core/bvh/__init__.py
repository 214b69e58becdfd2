"""Bounding-volume trees over triangle meshes: build, refit, quality (drift and metrics)."""

from core.bvh.build import build_tree, build_trees
from core.bvh.metrics import CostConstants, NodeMetrics, TreeQuality, tree_quality
from core.bvh.quality import sah_cost, tree_drift, volume_sum
from core.bvh.refit import refit_tree
from core.bvh.tree import BuildStats, SplitRule, Tree

__all__ = [
    "BuildStats",
    "CostConstants",
    "NodeMetrics",
    "SplitRule",
    "Tree",
    "TreeQuality",
    "build_tree",
    "build_trees",
    "refit_tree",
    "sah_cost",
    "tree_drift",
    "tree_quality",
    "volume_sum",
]
