"""What the viewer computes on top of a core frame: the chosen kind's volumes, a spatial
partition's cells, and the closest points when the meshes are apart.

Called by the controller in its worker thread, right after ``FramePipeline.step``; like the
controller, this module calls the core and imports no Qt. The result is a :class:`ViewFrame`,
which reads like the core ``Frame`` (every attribute is forwarded) plus three fields.
"""

from __future__ import annotations

import numpy as np

from core.bv import BV_KINDS, fit_volumes, get_kind
from core.bv.kdop import DIRECTIONS
from core.distance import min_distance
from core.partition import PARTITION_KINDS, partition_contacts
from viewer.render.volumes import VolumeSet

NO_PARTITION = "none"
"""The partition choice that runs only the bounding-volume tree."""

DISTANCE_BV = "rss"
"""Kind that bounds the distance query: PQP's rectangle swept spheres (Larsen et al. 2000),
the tightest distance bound of the registry."""

PARTITION_LABELS = {
    "grid": "uniform grid",
    "octree": "octree",
    "kdtree": "k-d tree",
    "bsp": "BSP tree",
}


def bv_choices() -> list[tuple[str, str, str]]:
    """``(key, label, description)`` of every bounding-volume kind, registry order."""
    return [(key, kind.label, kind.description) for key, kind in BV_KINDS.items()]


def partition_choices() -> list[tuple[str, str]]:
    """``(key, label)``: ``none`` then every spatial partition kind."""
    return [(NO_PARTITION, "none (tree only)")] + [
        (key, PARTITION_LABELS.get(key, key)) for key in PARTITION_KINDS
    ]


class ViewFrame:
    """A core ``Frame`` plus the viewer's extras; unknown attributes read the core frame.

    Attributes
    ----------
    core : core.pipeline.Frame
    volumes : VolumeSet or None
        The traversal's kind and both trees' volume rows (None with fewer than two bodies).
    partition : core.partition.PartitionResult or None
        When a spatial partition is chosen.
    distance : core.distance.DistanceResult or None
        When bodies A and B have no contact.
    """

    def __init__(self, core, volumes=None, partition=None, distance=None):
        self.core = core
        self.volumes = volumes
        self.partition = partition
        self.distance = distance

    def __getattr__(self, name):
        # Only called for names not found on the wrapper itself.
        return getattr(self.__dict__["core"], name)


def volume_set(frame, bv: str) -> VolumeSet | None:
    """The volumes of kind ``bv`` of the frame's first two trees (cached by the core per tree
    and mesh, so this is the fit the traversal used)."""
    if len(frame.trees) < 2:
        return None
    kind = get_kind(bv)
    if kind.name in ("aabb", "aabb15"):
        # The tree's own refitted boxes are the AABBs the traversal tested.
        rows = [np.concatenate([t.bmin, t.bmax], axis=1) for t in frame.trees[:2]]
    else:
        rows = [fit_volumes(t, m, kind) for t, m in zip(frame.trees[:2], frame.meshes[:2])]
    dirs = None
    if kind.name.startswith("kdop"):
        dirs = DIRECTIONS[int(kind.name[4:])]
    return VolumeSet(kind.name, kind.label, rows, kind.wire, dirs)


def annotate(frame, bv: str = "aabb", partition: str = NO_PARTITION,
             with_distance: bool = True) -> ViewFrame:
    """Wrap a core frame with the volumes, the partition and the distance.

    Parameters
    ----------
    frame : core.pipeline.Frame
    bv : str
        The kind the pipeline traversed with.
    partition : str
        ``"none"`` or a key of ``core.partition.PARTITION_KINDS``.
    with_distance : bool
        Run the minimum-distance query when A and B do not touch.
    """
    volumes = volume_set(frame, bv)
    part = dist = None
    result = frame.result
    if result is not None and len(frame.meshes) >= 2:
        meshes, poses = frame.meshes, frame.poses
        if partition != NO_PARTITION:
            part = partition_contacts(meshes[0], meshes[1], poses[0], poses[1], kind=partition)
        if with_distance and result.counters.n_contacts == 0:
            dist = min_distance(meshes[0], frame.trees[0], meshes[1], frame.trees[1],
                                poses[0], poses[1], bv=DISTANCE_BV)
    return ViewFrame(frame, volumes, part, dist)
