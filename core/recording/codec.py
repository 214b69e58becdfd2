"""A frame as a JSON tree plus arrays, and back, through an allow-list of classes.

No pickle: a recording from someone else must not be able to run code when it is opened.
The encoder writes dataclasses, enums (by name), tuples, lists, dicts, numbers and strings as
JSON, and every numpy array as a reference to one archive member (each distinct array once).
The decoder builds only the classes of :data:`FRAME_CLASSES` and :data:`FRAME_ENUMS`, checks the
dtype and shape of every array a class holds and the index ranges a drawing or a replay
reads, and raises :class:`CodecError` (one line) on anything else. Every other value (types,
ranges, finiteness, enums, the values inside arrays) is checked against
:mod:`core.recording.schema` as the object is built.
"""

from __future__ import annotations

import dataclasses
import enum
import math

import numpy as np

from core.bv.obb_fit import ObbFit
from core.bvh.tree import BuildStats, SplitRule, Tree
from core.bvh.validate import ValidationReport, Violation, ViolationKind
from core.collide.query import CollisionResult
from core.collide.tandem import DescendRule
from core.collide.trace import Counters, Trace
from core.containment import Containment, ContainmentKind, EdgeStats, PairContainment, Relation
from core.distance import DistanceResult
from core.frame_volumes import FrameVolumes, TreeBoxRows
from core.mesh import TriMesh
from core.partition.base import Partition, PlaneRecords
from core.pipeline import Frame, UpdateMode
from core.pose import Pose
from core.recording.schema import MAX_BODIES, check_fields, check_values, check_volumes
from core.request import FRAME_OPTION_FIELDS, CollisionRequest, FrameOptions
from core.settings import Tolerances

FRAME_CLASSES = {cls.__name__: cls for cls in (
    Frame, TriMesh, Pose, Tree, BuildStats, CollisionResult, Counters, Trace, FrameVolumes,
    PairContainment, Containment, EdgeStats, DistanceResult, CollisionRequest, FrameOptions,
    Tolerances, Partition, PlaneRecords, ValidationReport, Violation)}  # fmt: skip
"""Every class a :class:`core.pipeline.Frame` may contain, by name (the decoder's allow-list)."""

FRAME_ENUMS = {cls.__name__: cls for cls in (
    SplitRule, DescendRule, ObbFit, ContainmentKind, Relation, UpdateMode,
    ViolationKind)}  # fmt: skip
"""Every enum a frame (or a recording's per-frame entry) may contain, by name."""

# dtype and shape (None: any length) of the arrays each class holds; a field not listed
# holds no array.
_I32, _I64, _F64 = "int32", "int64", "float64"
ARRAY_FIELDS = {
    "TriMesh": {"vertices": (_F64, (None, 3)), "faces": (_I32, (None, 3)),
                "source_face_ids": (_I64, (None,))},
    "Pose": {"rotation": (_F64, (3, 3)), "translation": (_F64, (3,))},
    "Tree": {**{name: (_I32, (None,)) for name in ("first", "count", "parent", "depth",
                                                    "prim_start", "n_prims", "prim_ids",
                                                    "level_nodes")},
             "bmin": (_F64, (None, 3)), "bmax": (_F64, (None, 3)),
             "level_start": (_I64, (None,)), "faces": (_I32, (None, 3))},
    "CollisionResult": {"pairs": (_I32, (None, 2)), "kinds": ("int8", (None,)),
                        "segments": (_F64, (None, 2, 3)), "near_pairs": (_I32, (None, 2)),
                        "near_distances": (_F64, (None,)),
                        "near_points": (_F64, (None, 2, 3)), "cells": (_F64, (None, 2, 3))},
    "Trace": {"level_start": (_I64, (None,)), "node_a": (_I32, (None,)),
              "node_b": (_I32, (None,)), "sep_axis": ("int8", (None,)),
              "leaf_pairs_per_level": (_I64, (None,))},
    "PlaneRecords": {"center": (_F64, (None, 3)), "normal": (_F64, (None, 3)),
                     "extent": (_F64, (None,)), "depth": (_I32, (None,)),
                     "has_both": ("bool", (None,))},
    "Partition": {"leaf_start": (_I64, (None,)), "leaf_tri_ids": (_I32, (None,)),
                  "leaf_bmin": (_F64, (None, 3)), "leaf_bmax": (_F64, (None, 3)),
                  "leaf_depth": (_I32, (None,))},
    "Containment": {"point": (_F64, (3,))},
    "DistanceResult": {"pair": (_I64, (2,)), "point_a": (_F64, (3,)),
                       "point_b": (_F64, (3,))},
    "ValidationReport": {"bad_nodes": (_I32, (None,))},
}  # fmt: skip


class CodecError(ValueError):
    """A JSON tree or an array that is not part of a valid frame (one line)."""


# ---- encoding -------------------------------------------------------------------------------


class FrameEncoder:
    """Turns frames into JSON trees, collecting each distinct array once.

    Attributes
    ----------
    arrays : dict[str, numpy.ndarray]
        Member name (``"a0"``, ``"a1"`` ...) -> array, in the order first met.
    """

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}
        self._names: dict[int, str] = {}
        self._objects: dict[int, int] = {}
        self._keep = []  # objects numbered by id() stay alive while their id is in use

    def encode(self, value):
        """The JSON tree of ``value`` (a frame or any part of one)."""
        if isinstance(value, np.ndarray):
            name = self._names.get(id(value))
            if name is None:
                if value.dtype.hasobject:
                    raise CodecError("an array of Python objects cannot be recorded")
                name = f"a{len(self.arrays)}"
                self._names[id(value)] = name
                self.arrays[name] = value
            return {"array": name}
        if isinstance(value, enum.Enum):
            return {"enum": type(value).__name__, "name": value.name}
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (np.bool_,)):
            return bool(value)
        if isinstance(value, (int, np.integer)):
            return int(value)
        if isinstance(value, (float, np.floating)):
            number = float(value)
            return number if math.isfinite(number) else {"float": repr(number)}
        if isinstance(value, list):
            return [self.encode(v) for v in value]
        if isinstance(value, tuple):
            return {"tuple": [self.encode(v) for v in value]}
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise CodecError("a dict with keys other than strings cannot be recorded")
            return {"dict": {k: self.encode(v) for k, v in value.items()}}
        return self._encode_object(value)

    def _encode_object(self, value):
        number = self._objects.get(id(value))
        if number is not None:
            return {"ref": number}
        number = len(self._objects)
        self._objects[id(value)] = number
        self._keep.append(value)
        if isinstance(value, TreeBoxRows):
            return {"class": "TreeBoxRows", "id": number,
                    "boxes": [self.encode(tuple(box)) for box in value._boxes]}
        name = type(value).__name__
        if FRAME_CLASSES.get(name) is not type(value):
            raise CodecError(f"a {name} is not part of a frame and cannot be recorded")
        fields = {f.name: self.encode(getattr(value, f.name))
                  for f in dataclasses.fields(value) if f.init}
        return {"class": name, "id": number, "fields": fields}


# ---- decoding -------------------------------------------------------------------------------


def _check_array(array: np.ndarray, dtype: str, shape: tuple, where: str) -> None:
    if array.dtype != np.dtype(dtype) or array.ndim != len(shape) or any(
            want is not None and got != want for got, want in zip(array.shape, shape)):
        want = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ")"
        raise CodecError(f"{where} must be {dtype} of shape {want}, "
                         f"got {array.dtype} of shape {array.shape}")  # fmt: skip


def _check_indices(array: np.ndarray, stop: int, where: str) -> None:
    """Every entry in ``[0, stop)``: an index a drawing or a kernel will follow."""
    if array.size and (int(array.min()) < 0 or int(array.max()) >= stop):
        raise CodecError(f"{where} has an index outside 0..{stop - 1}")


class FrameDecoder:
    """Builds frames back from JSON trees and the archive's arrays.

    Parameters
    ----------
    load_array : callable
        ``load_array(member name) -> numpy.ndarray`` (read-only); raises ``KeyError`` for a
        member the archive does not hold.
    request_holds_frame_options : bool
        The layout of recording format version 1: a ``CollisionRequest`` holds the three
        :data:`core.request.FRAME_OPTION_FIELDS` and a ``Frame`` has no ``frame_options``.
        They are taken off the request and become its frames' ``frame_options``.
    """

    def __init__(self, load_array, request_holds_frame_options: bool = False):
        self._load_array = load_array
        self._objects: dict[int, object] = {}
        self._checked: set = set()
        self._is_v1 = request_holds_frame_options
        self._options_of: dict[int, FrameOptions] = {}  # id(request) -> its v1 options

    def decode(self, tree, where: str = "frame"):
        """The value a JSON tree describes; :class:`CodecError` naming ``where`` if invalid."""
        if tree is None or isinstance(tree, (bool, int, float, str)):
            return tree
        if isinstance(tree, list):
            return [self.decode(v, f"{where}[{i}]") for i, v in enumerate(tree)]
        if not isinstance(tree, dict):
            raise CodecError(f"{where}: unexpected {type(tree).__name__}")
        if "array" in tree:
            if not isinstance(tree["array"], str):
                raise CodecError(f"{where}: an array reference must be a member name")
            try:
                return self._load_array(tree["array"])
            except KeyError:
                raise CodecError(f"{where}: array member {tree['array']!r} is missing") from None
        if "enum" in tree:
            cls = FRAME_ENUMS.get(tree["enum"])
            if cls is None or tree.get("name") not in cls.__members__:
                raise CodecError(f"{where}: unknown value {tree.get('enum')}."
                                 f"{tree.get('name')}")  # fmt: skip
            return cls[tree["name"]]
        if "float" in tree:
            if tree["float"] not in ("nan", "inf", "-inf"):
                raise CodecError(f"{where}: bad number {tree['float']!r}")
            return float(tree["float"])
        if "tuple" in tree:
            if not isinstance(tree["tuple"], list):
                raise CodecError(f"{where}: a tuple must be a list of values")
            return tuple(self.decode(v, f"{where}[{i}]") for i, v in enumerate(tree["tuple"]))
        if "dict" in tree:
            if not isinstance(tree["dict"], dict):
                raise CodecError(f"{where}: a dict must be an object")
            return {k: self.decode(v, f"{where}.{k}") for k, v in tree["dict"].items()}
        if "ref" in tree:
            if type(tree["ref"]) is not int or tree["ref"] not in self._objects:
                raise CodecError(f"{where}: refers to object {tree['ref']!r} not defined before")
            return self._objects[tree["ref"]]
        if "class" in tree:
            number = tree.get("id")
            if type(number) is not int or number in self._objects:
                raise CodecError(f"{where}: an object needs an id not used before")
            value = self._decode_object(tree, where)
            self._objects[number] = value
            return value
        raise CodecError(f"{where}: unexpected object with keys {sorted(tree)[:4]}")

    def _decode_object(self, tree: dict, where: str):
        name = tree["class"]
        if name == "TreeBoxRows":
            boxes = self.decode(tree.get("boxes"), f"{where}.boxes")
            if not isinstance(boxes, list) or not all(
                    isinstance(b, tuple) and len(b) == 2 for b in boxes):
                raise CodecError(f"{where}.boxes must be a list of (bmin, bmax)")
            for i, (bmin, bmax) in enumerate(boxes):
                _check_array(bmin, _F64, (None, 3), f"{where}.boxes[{i}] bmin")
                _check_array(bmax, _F64, bmin.shape, f"{where}.boxes[{i}] bmax")
            return TreeBoxRows(boxes)
        cls = FRAME_CLASSES.get(name)
        if cls is None:
            raise CodecError(f"{where}: {name!r} is not a class a frame holds")
        if not isinstance(name, str) or not isinstance(tree.get("fields"), dict):
            raise CodecError(f"{where}: {name} has no fields")
        init_fields = [f for f in dataclasses.fields(cls) if f.init]
        init_names = {f.name for f in init_fields}
        # A field added to a class later, with a default, may be absent: files written before
        # it (Frame.validation, say) still open, with the default.
        optional = {f.name for f in init_fields if f.default is not dataclasses.MISSING
                    or f.default_factory is not dataclasses.MISSING}  # fmt: skip
        given = tree["fields"]
        old_options = {}
        if self._is_v1 and name == "CollisionRequest":
            given = dict(given)
            old_options = {key: given.pop(key) for key in FRAME_OPTION_FIELDS if key in given}
        if not set(given) <= init_names or not init_names - optional <= set(given):
            odd = sorted((set(given) - init_names) | (init_names - optional - set(given)))
            raise CodecError(f"{where}: {name} fields do not match (field {odd[0]!r})")
        fields = {key: self.decode(value, f"{where}.{key}") for key, value in given.items()}
        for key, (dtype, shape) in ARRAY_FIELDS.get(name, {}).items():
            value = fields[key]
            if not isinstance(value, np.ndarray):
                raise CodecError(f"{where}.{key} must be an array")
            _check_array(value, dtype, shape, f"{where}.{key}")
        check_fields(name, fields, where, CodecError)
        arrays = ARRAY_FIELDS.get(name, {})
        key = ("values", name, fields.get("n_tris"), *(id(fields[k]) for k in arrays))
        if arrays and key not in self._checked:
            check_values(name, fields, where, CodecError)
            self._checked.add(key)
        if self._is_v1 and cls is Frame and "frame_options" not in given:
            fields["frame_options"] = self._options_of.get(id(fields.get("request")))
        try:
            if cls is TriMesh:
                return self._mesh(fields, where)
            value = cls(**fields)
            if cls is CollisionRequest and self._is_v1:
                self._options_of[id(value)] = self._frame_options(old_options, where)
        except CodecError:
            raise
        except (TypeError, ValueError) as exc:
            raise CodecError(f"{where}: {exc}") from None
        if cls is Tree:
            self._check_tree(value, where)
        elif cls is Frame:
            self._check_frame(value, where)
        return value

    def _frame_options(self, old: dict, where: str) -> FrameOptions:
        """A version-1 request's frame-option keys as :class:`FrameOptions` (absent: off)."""
        values = {key: self.decode(value, f"{where}.{key}") for key, value in old.items()}
        check_fields("FrameOptions", values, where, CodecError)
        return FrameOptions(**values)

    def _mesh(self, fields: dict, where: str) -> TriMesh:
        # The constructor would copy the arrays (and check O(n + m) again for every frame);
        # frames share them in memory as they did when recorded, so check once per array.
        vertices, faces = fields["vertices"], fields["faces"]
        key = ("mesh", id(vertices), id(faces))
        if key not in self._checked:
            if not np.isfinite(vertices).all():
                raise CodecError(f"{where}.vertices has a coordinate that is not finite")
            _check_indices(faces, vertices.shape[0], f"{where}.faces")
            if fields["source_face_ids"].shape[0] != faces.shape[0]:
                raise CodecError(f"{where}.source_face_ids must have one id per face")
            self._checked.add(key)
        if not isinstance(fields["name"], str):
            raise CodecError(f"{where}.name must be a string")
        return TriMesh._trusted(vertices, faces, fields["source_face_ids"], fields["name"])

    def _check_tree(self, tree: Tree, where: str) -> None:
        key = ("tree", id(tree.first), id(tree.count), id(tree.bmin))
        if key in self._checked:
            return
        k, m = tree.first.shape[0], tree.faces.shape[0]
        for name in ("count", "parent", "depth", "prim_start", "n_prims", "level_nodes"):
            if getattr(tree, name).shape[0] != k:
                raise CodecError(f"{where}.{name} must have one entry per node ({k})")
        if tree.bmin.shape[0] != k or tree.bmax.shape[0] != k or tree.prim_ids.shape[0] != m:
            raise CodecError(f"{where}: boxes or prim_ids do not match the tree's size")
        is_leaf = tree.count > 0
        _check_indices(tree.first[~is_leaf] + 1, k, f"{where}.first")
        if is_leaf.any() and (int((tree.first[is_leaf] + tree.count[is_leaf]).max()) > m
                              or int(tree.first[is_leaf].min()) < 0):
            raise CodecError(f"{where}.first/count of a leaf run past prim_ids")
        _check_indices(tree.prim_ids, m, f"{where}.prim_ids")
        _check_indices(tree.level_nodes, k, f"{where}.level_nodes")
        _check_indices(tree.level_start, k + 1, f"{where}.level_start")
        self._checked.add(key)

    def _check_frame(self, frame: Frame, where: str) -> None:
        n = len(frame.meshes)
        if n > MAX_BODIES:
            raise CodecError(f"{where}: {n:,} bodies (at most {MAX_BODIES})")
        for name in ("poses", "trees", "drift", "rebuilt"):
            if not isinstance(getattr(frame, name), list) or len(getattr(frame, name)) != n:
                raise CodecError(f"{where}.{name} must have one entry per mesh ({n})")
        for i, (mesh, tree) in enumerate(zip(frame.meshes, frame.trees)):
            if not isinstance(mesh, TriMesh) or not isinstance(tree, Tree):
                raise CodecError(f"{where}: body {i} has no mesh or no tree")
            if tree.faces.shape != mesh.faces.shape:
                raise CodecError(f"{where}: tree {i} was not built on mesh {i}")
        sources = frame.tree_sources
        if sources is not None and (not isinstance(sources, list) or len(sources) != n or not all(
                s is None or isinstance(s, str) for s in sources)):
            raise CodecError(f"{where}.tree_sources must be one label or None per mesh ({n})")
        for name in ("refitted", "self_results"):
            value = getattr(frame, name)
            if value is not None and len(value) != n:
                raise CodecError(f"{where}.{name} must have one entry per mesh ({n})")
        if frame.volumes is not None:
            check_volumes(frame.volumes, frame.trees, where, CodecError)
        for i, result in enumerate(frame.self_results or ()):
            if result is not None:
                _check_indices(result.pairs, frame.meshes[i].n_faces,
                               f"{where}.self_results[{i}].pairs")  # fmt: skip
                _check_indices(result.near_pairs, frame.meshes[i].n_faces,
                               f"{where}.self_results[{i}].near_pairs")  # fmt: skip
                if result.trace is not None:
                    for name in ("node_a", "node_b"):
                        _check_indices(getattr(result.trace, name), frame.trees[i].n_nodes,
                                       f"{where}.self_results[{i}].trace.{name}")
        if frame.distance is not None and n >= 2:
            for column in (0, 1):
                _check_indices(frame.distance.pair[column:column + 1],
                               frame.meshes[column].n_faces, f"{where}.distance.pair")
        if frame.validation is not None:
            if not isinstance(frame.validation, list) or len(frame.validation) != n:
                raise CodecError(f"{where}.validation must have one entry per mesh ({n})")
            for i, report in enumerate(frame.validation):
                if report is None:
                    continue
                if not isinstance(report, ValidationReport) or not all(
                        isinstance(v, Violation) for v in report.violations):
                    raise CodecError(f"{where}.validation[{i}] is not a validation report")
                # Drawing colours these nodes: each must be a node of the body's tree.
                _check_indices(report.bad_nodes, frame.trees[i].n_nodes,
                               f"{where}.validation[{i}].bad_nodes")  # fmt: skip
        result = frame.result
        if result is not None and n >= 2:
            for column, mesh in enumerate(frame.meshes[:2]):
                _check_indices(result.pairs[:, column], mesh.n_faces, f"{where}.result.pairs")
                _check_indices(result.near_pairs[:, column], mesh.n_faces,
                               f"{where}.result.near_pairs")  # fmt: skip
            trace = result.trace
            if trace is not None:
                _check_indices(trace.node_a, frame.trees[0].n_nodes, f"{where}.trace.node_a")
                _check_indices(trace.node_b, frame.trees[1].n_nodes, f"{where}.trace.node_b")
                _check_indices(trace.level_start, trace.node_a.shape[0] + 1,
                               f"{where}.trace.level_start")  # fmt: skip
                if trace.node_b.shape != trace.node_a.shape or (
                        trace.sep_axis.shape != trace.node_a.shape):
                    raise CodecError(f"{where}.trace: node and axis columns differ in length")
