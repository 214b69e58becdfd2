"""What every value of a recorded frame may be: types, ranges and finiteness, field by field.

The codec (:mod:`core.recording.codec`) builds only allow-listed classes and checks array
dtypes, shapes and the indices a drawing follows; this module checks everything else a frame
holds before it reaches a :class:`core.recording.Recording`: every number's type (an int is
not a bool, a count is not a float), range (counts >= 0; margins and timings >= 0) and
finiteness (times, drift, margins, coordinates), every enum, every string's length, and the
values inside arrays the viewer draws or the replay reads (finite coordinates, contact kinds of
:class:`core.collide.tritri.ContactKind`, separating-test ids, monotone offsets). A check
raises :class:`core.recording.codec.CodecError` naming the field.

What the writer guarantees is what is checked: a pose's rotation is orthonormal within
:data:`core.pose.ROTATION_TOL` (the :class:`core.pose.Pose` constructor checks it on reading),
times are finite but need not increase (a recording spans scene loads and time-slider drags),
and a tree's SAH drift is finite but may be below 0 (a refit can beat its build).
"""

from __future__ import annotations

import math

import numpy as np

from core.bv.obb_fit import ObbFit
from core.bvh.tree import BuildStats, SplitRule, Tree
from core.bvh.validate import ValidationReport, Violation, ViolationKind
from core.collide.query import CollisionResult
from core.collide.trace import Counters, Trace
from core.collide.tritri import ContactKind
from core.containment import Containment, ContainmentKind, EdgeStats, PairContainment, Relation
from core.distance import DistanceResult
from core.frame_volumes import FrameVolumes, TreeBoxRows
from core.mesh import TriMesh
from core.partition.base import Partition, PlaneRecords
from core.pose import Pose
from core.request import CollisionRequest, FrameOptions
from core.settings import Tolerances

MAX_BODIES = 256
"""Most bodies in one recorded frame."""

MAX_TEXT_CHARS = 4096
"""Most characters of one string in a frame (a mesh name, a violation's words, a label)."""

MAX_TIMINGS = 64
"""Most phases in one ``timings`` dict (the pipeline times about ten)."""

MAX_SEPARATING_TEST = 63
"""Largest separating-test id a trace may hold (the 26-DOP's is 25; -1: overlapped)."""


class SchemaError(ValueError):
    """Internal: a value that is not what its field holds (turned into a ``CodecError``)."""


# ---- checkers: value -> None, SchemaError with the words after the field's name ---------------


def count(value) -> None:
    """A non-negative int (not a bool, not a float)."""
    if type(value) is not int:
        raise SchemaError(f"must be an integer, got {_kind(value)}")
    if value < 0:
        raise SchemaError(f"must be >= 0, got {value}")


def positive_count(value) -> None:
    count(value)
    if value < 1:
        raise SchemaError(f"must be >= 1, got {value}")


def finite(value) -> None:
    """A finite int or float (not a bool)."""
    if type(value) not in (int, float):
        raise SchemaError(f"must be a number, got {_kind(value)}")
    if not math.isfinite(value):
        raise SchemaError(f"must be finite, got {value}")


def non_negative(value) -> None:
    """A finite number >= 0."""
    finite(value)
    if value < 0:
        raise SchemaError(f"must be >= 0, got {value}")


def flag(value) -> None:
    if type(value) is not bool:
        raise SchemaError(f"must be true or false, got {_kind(value)}")


def text(value) -> None:
    if type(value) is not str:
        raise SchemaError(f"must be a string, got {_kind(value)}")
    if len(value) > MAX_TEXT_CHARS:
        raise SchemaError(f"is {len(value):,} characters long (at most {MAX_TEXT_CHARS:,})")


def one_of(*classes):
    """An instance of exactly one of ``classes`` (an enum member, an allow-listed class)."""

    def check(value) -> None:
        if type(value) not in classes:
            names = " or ".join(c.__name__ for c in classes)
            raise SchemaError(f"must be a {names}, got {_kind(value)}")

    return check


def optional(check):
    def check_optional(value) -> None:
        if value is not None:
            check(value)

    return check_optional


def list_of(check, most: int = MAX_BODIES, kind=list):
    def check_list(value) -> None:
        if type(value) is not kind:
            raise SchemaError(f"must be a {kind.__name__}, got {_kind(value)}")
        if len(value) > most:
            raise SchemaError(f"holds {len(value):,} entries (at most {most:,})")
        for i, item in enumerate(value):
            try:
                check(item)
            except SchemaError as exc:
                raise SchemaError(f"[{i}] {exc}") from None

    return check_list


def _dict_of(value, check_item, what: str) -> None:
    """A dict of at most :data:`MAX_TIMINGS` text keys whose values pass ``check_item``."""
    if type(value) is not dict:
        raise SchemaError(f"must be a dict, got {_kind(value)}")
    if len(value) > MAX_TIMINGS:
        raise SchemaError(f"holds {len(value):,} {what} (at most {MAX_TIMINGS})")
    for key, item in value.items():
        try:
            text(key)
            check_item(item)
        except SchemaError as exc:  # str(): a key that is not text is named too
            raise SchemaError(f"[{str(key)[:40]!r}] {exc}") from None


def timings(value) -> None:
    """Phase name -> seconds (finite, >= 0)."""
    _dict_of(value, non_negative, "phases")


def _stat_value(value) -> None:
    if type(value) is tuple:
        list_of(count, 8, tuple)(value)
    else:
        non_negative(value)


def partition_stats(value) -> None:
    """A partition's build facts: name -> a number >= 0 or a short tuple of counts."""
    _dict_of(value, _stat_value, "entries")


def partition_kind(value) -> None:
    from core.partition import PARTITION_KINDS

    if value not in PARTITION_KINDS:
        raise SchemaError(f"must be one of {', '.join(PARTITION_KINDS)}, "
                          f"got {_quoted_value(value)}")


def bv_kind(value) -> None:
    from core.bv import BV_KINDS

    if value not in BV_KINDS:
        raise SchemaError(f"must be one of {', '.join(BV_KINDS)}, got {_quoted_value(value)}")


def _kind(value) -> str:
    return "null" if value is None else type(value).__name__


def _quoted_value(value) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


FIELDS = {
    "Frame": {
        "index": count, "t": finite,
        "meshes": list_of(one_of(TriMesh)), "poses": list_of(one_of(Pose)),
        "trees": list_of(one_of(Tree)), "drift": list_of(finite),
        "rebuilt": list_of(flag), "result": optional(one_of(CollisionResult)),
        "timings": timings, "self_results": optional(list_of(optional(one_of(CollisionResult)))),
        "containment": optional(one_of(PairContainment)),
        "volumes": optional(one_of(FrameVolumes)), "partition": optional(one_of(CollisionResult)),
        "distance": optional(one_of(DistanceResult)),
        "request": optional(one_of(CollisionRequest)),
        "validation": optional(list_of(optional(one_of(ValidationReport)))),
        "refitted": optional(list_of(flag)),
        "frame_options": optional(one_of(FrameOptions)),
    },
    "TriMesh": {"name": text},
    "Pose": {"scale": finite},
    "Tree": {"split": one_of(SplitRule), "leaf_size": positive_count,
             "stats": one_of(BuildStats)},
    "BuildStats": {"n_nodes": count, "n_leaves": count, "depth_min": count, "depth_max": count,
                   "leaf_size_mean": non_negative, "leaf_size_max": count,
                   "sah_cost": non_negative, "volume_sum": non_negative,
                   "build_seconds": non_negative},
    "CollisionResult": {"counters": one_of(Counters), "timings": timings,
                        "trace": optional(one_of(Trace)), "margin": non_negative,
                        "partition_kind": optional(partition_kind), "n_candidates": count,
                        "n_raw_candidates": count, "planes": optional(one_of(PlaneRecords)),
                        "n_multi_cell_triangles": list_of(count, 2, tuple),
                        "partition": optional(one_of(Partition))},
    "Counters": {name: count for name in ("n_bv_tests", "n_bv_overlaps", "n_leaf_pairs",
                                          "n_tri_tests", "n_contacts")},
    "FrameVolumes": {"name": bv_kind, "label": text,
                     "rows": one_of(list, TreeBoxRows)},
    "PairContainment": {"relation": one_of(Relation), "text": text,
                        "a_in_b": optional(one_of(Containment)),
                        "b_in_a": optional(one_of(Containment))},
    "Containment": {"kind": one_of(ContainmentKind), "winding": finite,
                    "outer_edges": one_of(EdgeStats)},
    "EdgeStats": {"n_edges": count, "n_boundary_edges": count, "n_nonmanifold_edges": count},
    "DistanceResult": {"distance": non_negative, "counters": one_of(Counters),
                       "timings": timings},
    "CollisionRequest": {"bv": bv_kind, "obb_fit": one_of(ObbFit), "split": one_of(SplitRule),
                         "leaf_size": positive_count, "trace": flag, "tol": one_of(Tolerances),
                         "margin": non_negative, "partition": optional(partition_kind)},
    "FrameOptions": {"self_collision": flag, "containment": flag, "distance": flag},
    "Tolerances": {"degenerate_rel": non_negative, "box_rel": non_negative},
    "Partition": {"kind": partition_kind, "n_a": count, "n_tris": count,
                  "planes": one_of(PlaneRecords), "n_nodes": count, "stats": partition_stats},
    "ValidationReport": {"violations": list_of(one_of(Violation), 10**6, tuple),
                         "nodes_checked": count, "seconds": non_negative, "n_found": count},
    "Violation": {"node": count, "kind": one_of(ViolationKind), "size": finite, "text": text},
}  # fmt: skip
"""Per allow-listed class, a checker for each field that is not an array (arrays:
:data:`core.recording.codec.ARRAY_FIELDS` and :func:`check_values`). A field a class has and
this table does not list is checked by the class's own constructor (a request's
``partition_params``, :class:`core.partition` settings with their caps)."""


def check_fields(name: str, fields: dict, where: str, error: type[Exception]) -> None:
    """Check the decoded non-array ``fields`` of class ``name``; ``error`` names the field."""
    for key, check in FIELDS.get(name, {}).items():
        if key not in fields:
            continue  # an optional field absent: the class's default
        try:
            check(fields[key])
        except SchemaError as exc:
            raise error(f"{where}.{key} {exc}") from None


# ---- values inside arrays --------------------------------------------------------------------

_CONTACT_KINDS = np.array(sorted(int(k) for k in ContactKind), dtype=np.int64)


def _all_finite(array: np.ndarray, what: str) -> None:
    if array.size and not np.isfinite(array).all():
        raise SchemaError(f"{what} has a value that is not finite")


def _non_negative(array: np.ndarray, what: str) -> None:
    if array.size and int(array.min()) < 0:
        raise SchemaError(f"{what} has a negative value")


def _offsets(array: np.ndarray, end: int, what: str) -> None:
    """Offsets into ``end`` entries: start at 0, never decrease, end at ``end``."""
    if array.size == 0 or int(array[0]) != 0 or int(array[-1]) != end or (
            array.size > 1 and bool((np.diff(array) < 0).any())):
        raise SchemaError(f"{what} must rise from 0 to {end}")


def _values_mesh(fields):
    pass  # vertices (finite) and faces (indices) are checked once per array by the codec


def _values_tree(fields):
    _all_finite(fields["bmin"], "bmin")
    _all_finite(fields["bmax"], "bmax")


def _values_result(fields):
    kinds = fields["kinds"]
    if kinds.size and not np.isin(kinds, _CONTACT_KINDS).all():
        raise SchemaError(f"kinds has a value that is not a contact kind "
                          f"({', '.join(f'{int(k)} {k.name}' for k in ContactKind)})")
    if kinds.shape[0] != fields["pairs"].shape[0] or (
            fields["segments"].shape[0] != fields["pairs"].shape[0]):
        raise SchemaError("pairs, kinds and segments must have one entry per contact")
    for name in ("segments", "near_points", "cells"):
        _all_finite(fields[name], name)
    distances = fields["near_distances"]
    _all_finite(distances, "near_distances")
    if distances.size and float(distances.min()) < 0.0:
        raise SchemaError("near_distances has a negative distance")
    if distances.shape[0] != fields["near_pairs"].shape[0] or (
            fields["near_points"].shape[0] != fields["near_pairs"].shape[0]):
        raise SchemaError("near_pairs, near_distances and near_points must have one entry "
                          "per pair")


def _values_trace(fields):
    sep = fields["sep_axis"]
    if sep.size and (int(sep.min()) < -1 or int(sep.max()) > MAX_SEPARATING_TEST):
        raise SchemaError(f"sep_axis must hold -1 (overlapped) or a test id 0.."
                          f"{MAX_SEPARATING_TEST}")  # fmt: skip
    _offsets(fields["level_start"], fields["node_a"].shape[0], "level_start")
    _non_negative(fields["leaf_pairs_per_level"], "leaf_pairs_per_level")


def _values_planes(fields):
    for name in ("center", "normal", "extent"):
        _all_finite(fields[name], name)
    _non_negative(fields["depth"], "depth")


def _values_partition(fields):
    _offsets(fields["leaf_start"], fields["leaf_tri_ids"].shape[0], "leaf_start")
    ids = fields["leaf_tri_ids"]
    n_tris = fields.get("n_tris")
    if ids.size and (int(ids.min()) < 0 or (type(n_tris) is int and int(ids.max()) >= n_tris)):
        raise SchemaError(f"leaf_tri_ids has an index outside 0..{n_tris}")
    for name in ("leaf_bmin", "leaf_bmax"):
        _all_finite(fields[name], name)
    _non_negative(fields["leaf_depth"], "leaf_depth")


def _values_points(*names):
    def check(fields):
        for name in names:
            _all_finite(fields[name], name)

    return check


def _values_distance(fields):
    _values_points("point_a", "point_b")(fields)
    _non_negative(fields["pair"], "pair")


_VALUES = {
    "TriMesh": _values_mesh, "Tree": _values_tree, "CollisionResult": _values_result,
    "Trace": _values_trace, "PlaneRecords": _values_planes, "Partition": _values_partition,
    "Containment": _values_points("point"), "DistanceResult": _values_distance,
}  # fmt: skip


def check_values(name: str, fields: dict, where: str, error: type[Exception]) -> None:
    """Check the values inside the arrays of class ``name`` (dtype and shape already checked).

    Each class's arrays are checked together (one pass over each); callers skip a group of
    arrays they have checked before (frames share them)."""
    check = _VALUES.get(name)
    if check is None:
        return
    try:
        check(fields)
    except SchemaError as exc:
        raise error(f"{where}.{exc}") from None


def check_volumes(volumes: FrameVolumes, trees: list, where: str, error: type[Exception]) -> None:
    """The rows drawn for each tested tree: one per node of that tree, the kind's width,
    finite."""
    from core.bv import get_kind

    rows = volumes.rows
    if isinstance(rows, TreeBoxRows):
        rows_list = list(rows._boxes)
        if len(rows_list) not in (1, 2) or len(rows_list) > len(trees):
            raise error(f"{where}.volumes must hold the boxes of one or two trees")
        for i, (bmin, bmax) in enumerate(rows_list):
            if bmin.shape[0] != trees[i].n_nodes:
                raise error(f"{where}.volumes.boxes[{i}] must have one row per node of tree {i}")
            if not (np.isfinite(bmin).all() and np.isfinite(bmax).all()):
                raise error(f"{where}.volumes.boxes[{i}] has a value that is not finite")
        return
    width = get_kind(volumes.name).width
    if len(rows) not in (1, 2) or len(rows) > len(trees):
        raise error(f"{where}.volumes.rows must hold the volumes of one or two trees")
    for i, array in enumerate(rows):
        if not isinstance(array, np.ndarray) or array.dtype != np.float64 or array.shape != (
                trees[i].n_nodes, width):
            raise error(f"{where}.volumes.rows[{i}] must be float64 of shape "
                        f"({trees[i].n_nodes}, {width}) (one row per node of tree {i})")
        if not np.isfinite(array).all():
            raise error(f"{where}.volumes.rows[{i}] has a value that is not finite")

