"""The viewer's choice lists: the words and tooltips of every rule, kind and partition a
person can pick.

Pure data and small functions over the core's enums and registries (names only: nothing
here runs a query), shared by the widgets, the command line and the window's settings.
"""

from __future__ import annotations

from core.bv import BV_KINDS, ObbFit
from core.bvh import SplitRule
from core.collide import DescendRule
from core.partition import PARTITION_KINDS

NO_PARTITION = "none"
"""The partition choice that runs only the bounding-volume tree."""

PARTITION_LABELS = {
    "grid": "uniform grid",
    "octree": "octree",
    "kdtree": "k-d tree",
    "bsp": "BSP tree",
}

PARTITION_TIPS = {
    "none": "Only the bounding-volume trees find the candidate triangle pairs.",
    "grid": "Also cut space into equal cubes; triangles of A and B in the same cube are "
            "candidate pairs. Its cells are drawn.",
    "octree": "Also cut space into eight cubes, again and again where triangles crowd; "
              "triangles sharing a cell are candidate pairs. Its cells are drawn.",
    "kdtree": "Also cut space in two across the longest side of each cell, at the median "
              "of its triangles' centres; triangles sharing a cell are candidate pairs. Its "
              "cells are drawn.",
    "bsp": "Also cut space by planes of any direction (binary space partitioning); "
           "triangles that end in the same cell are candidate pairs. Its planes are drawn.",
}
"""Tooltip of each partition choice, by key."""

DESCEND_TEXT = {
    "LARGER_VOLUME": ("split the larger volume",
                      "When two volumes overlap, split the larger one and test its children "
                      "against the other (van den Bergen 1997): the volumes tested stay of "
                      "similar size."),
    "BOTH": ("split both volumes",
             "When two volumes overlap, split both and test the four pairs of children: "
             "fewer levels, more tests per level."),
    "A_FIRST": ("split A first, then B",
                "When two volumes overlap, split A's until it is a leaf, then B's: simple, "
                "but a big B box is tested against many small A boxes."),
}
"""Combo label and tooltip of each ``core.collide.DescendRule`` member, by name."""


OBB_FIT_TEXT = {
    "VERTICES": ("vertices (can give the 'terrible box')",
                 "Covariance of the triangles' vertices: where vertices crowd (a finely "
                 "meshed patch) they drag the axes towards them, the OBBTree paper's "
                 "'terrible box'."),
    "SURFACE": ("surface (area-weighted)",
                "Covariance integrated over the node's own triangles, weighted by area: "
                "vertex density no longer matters, but hidden inner folds still count."),
    "HULL_VERTICES": ("hull vertices",
                      "Covariance of the vertices of the node's convex hull: inner "
                      "vertices are ignored, but crowded hull vertices still pull the axes. "
                      "Slow: a convex hull per node, about 0.5 s a frame for a 70k-triangle "
                      "mesh that deforms."),
    "HULL_SURFACE": ("hull surface (OBBTree)",
                     "Covariance integrated over the triangles of the node's convex hull, "
                     "as in the OBBTree paper: only the outer shape counts, evenly. Slow: a "
                     "convex hull per node, about 0.5 s a frame for a 70k-triangle mesh that "
                     "deforms."),
}
"""Combo label and tooltip of each ``core.bv.ObbFit`` member, by name."""

SPLIT_TEXT = {
    "MIDPOINT": ("longest axis, box midpoint",
                 "Cut the node's box across its longest side at the middle "
                 "(van den Bergen 1997)."),
    "MEDIAN": ("longest axis, median (balanced)",
               "Cut across the box's longest side so that both halves get the same number "
               "of triangles: a balanced tree."),
    "MEAN": ("longest axis, mean of centres",
             "Cut across the box's longest side at the mean of the triangle centres."),
    "SAH": ("surface-area heuristic (SAH)",
            "Try 16 cuts per axis and keep the one with the least expected cost "
            "(Wald 2007)."),
    "LBVH": ("Morton order (LBVH)",
             "Sort the triangle centres along a space-filling curve and cut at its highest "
             "differing bit (Karras 2012): fastest to build."),
    "OBB": ("OBB longest axis, mean (OBBTree)",
            "Fit the node's oriented box and cut across its longest axis at the mean of the "
            "triangle centres, as in the OBBTree paper: the tree for OBB volumes."),
}
"""Combo label and tooltip of each ``core.bvh.SplitRule`` member, by name."""


def obb_fit_choices() -> list[tuple[str, str, str]]:
    """``(name, label, tooltip)`` of every ``core.bv.ObbFit`` member, enum order."""
    return [(m.name, *OBB_FIT_TEXT.get(m.name, (m.name.lower().replace("_", " "), "")))
            for m in ObbFit]


def split_choices() -> list[tuple[str, str, str]]:
    """``(name, label, tooltip)`` of every ``core.bvh.SplitRule`` member, enum order."""
    return [(m.name, *SPLIT_TEXT.get(m.name, (m.name.lower().replace("_", " "), "")))
            for m in SplitRule]


def descend_choices() -> list[tuple[str, str, str]]:
    """``(name, label, tooltip)`` of every ``core.collide.DescendRule`` member, enum order."""
    return [(m.name, *DESCEND_TEXT.get(m.name, (m.name.lower().replace("_", " "), "")))
            for m in DescendRule]


def bv_choices() -> list[tuple[str, str, str]]:
    """``(key, people_name, description)`` of every bounding-volume kind, registry order."""
    return [(key, kind.people_name, kind.description)
            for key, kind in BV_KINDS.items()]


def partition_choices() -> list[tuple[str, str]]:
    """``(key, label)``: ``none`` then every spatial partition kind."""
    return [(NO_PARTITION, "none (tree only)")] + [
        (key, PARTITION_LABELS.get(key, key)) for key in PARTITION_KINDS
    ]


def partition_tip(key: str) -> str:
    """Tooltip of a partition choice."""
    return PARTITION_TIPS.get(key, f"Also find candidate pairs with a {key} partition.")


def experiment_choices() -> list[tuple[str, str]] | None:
    """``(name, title)`` of each experiment a lesson step can show, or None when this build
    has no experiments package."""
    try:
        from core.experiments import EXPERIMENTS
    except ImportError:
        return None
    return [(name, experiment.title) for name, experiment in EXPERIMENTS.items()]
