"""Cross-check one frame's contacts with another collision engine (python-fcl or coal).

The check compares the peer with exactly what a frame reported: its contacting triangle
pairs, found with its own trees (a tree pinned from a file included, broken boxes and all),
its split rule, its kind of volume and its margin (:class:`Compared` says which, and the
verdict names them: "frame 37, A: tree from mine.json, B: BVH Lab's AABB tree (midpoint
split): differs: 8 pairs only python-fcl reports"). It never runs a fresh query of its own:
a fresh default query compared with the peer said "identical" for a frame whose shrunk leaf
box had made the traversal miss 8 contacts.

Both engines see the same float64 triangles, the ones the frame's triangle test decided on:
A in its own coordinates and B moved into A's frame by the relative pose, rounded as the
query rounds it (:func:`query_coordinates`), each handed to the peer with an identity pose.
So a pair on which they disagree is a disagreement of their tests, not of two ways of
rounding a pose. Every such pair gets its true gap, computed exactly (:mod:`core.lab.exact_gap`):
0 means the triangles touch or intersect (the engine that missed it is wrong), a positive gap
means they are apart (the engine that reported it is wrong, or counts "within its tolerance"
as contact: coal's GJK test reports pairs up to about 1e-6 apart, see
``benchmarks/peers/coal_peer.py``).

**Margin.** The peers know no near-contact margin, and a frame's near pairs (apart, but at
most the margin apart) are not contacts: with a margin > 0 the peer is still compared with
the frame's contacts only (exact gap 0). A pair only the peer reports that the frame lists as
a near pair is counted as such in the verdict ("3 of them within the margin 0.01: BVH Lab
lists them as near pairs"), so a peer's tolerance is told apart from a missed contact.

The peers are optional (``pip install python-fcl`` or ``pip install coal``): without either,
:func:`available_engine` is None and :data:`INSTALL_HINT` says what to install.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import time
from dataclasses import dataclass, field

import numpy as np

from core.bv import TREE_BOX_KIND
from core.checks import instance
from core.collide.query import relative_pose, rigid_body
from core.collide.tandem import transform_points
from core.lab.exact_gap import exact_gap
from core.lab.pair_sets import checked_pairs, pairs_not_in, rows_not_in, unique_pairs
from core.mesh import TriMesh
from core.pose import Pose

INSTALL_HINT = "install python-fcl (pip install python-fcl) to cross-check"
"""What the app says when no other engine is installed."""

ENGINES = {"fcl": ("python-fcl", "fcl"), "coal": ("coal", "coal")}
"""Engine key -> (distribution name, module name), in order of preference."""

MAX_CONTACTS = 100_000_000
"""Contacts the peer may report: far more than any mesh pair has (FCL stops at this many)."""


def available_engine() -> str | None:
    """The first engine of :data:`ENGINES` that imports, or None."""
    for key, (_dist, module) in ENGINES.items():
        try:
            importlib.import_module(module)
        except ImportError:
            continue
        return key
    return None


def engine_title(engine: str) -> str:
    """``"python-fcl 0.7.0.10"``: the distribution's name and installed version."""
    dist = ENGINES[engine][0]
    try:
        return f"{dist} {importlib.metadata.version(dist)}"
    except importlib.metadata.PackageNotFoundError:
        return dist


BODY_NAMES = ("A", "B")


@dataclass(frozen=True)
class Compared:
    """What the peer is compared with: one frame's pairs, and how the frame found them.

    Attributes
    ----------
    frame_index : int or None
        The frame's number (None: pairs that came from no frame).
    trees : (str, str)
        Each body's tree in words: ``"tree from mine.json"`` (pinned from a file) or
        ``"BVH Lab's AABB tree (midpoint split)"`` (:meth:`core.pipeline.Frame.tree_words`).
    kind : str
        The volumes the traversal tested, in words, when they are not the tree's own boxes
        (``"OBB"``); "" for the tree's boxes.
    margin : float
        The frame's near-contact margin (0: exact contacts only).
    """

    frame_index: int | None
    trees: tuple = ("", "")
    kind: str = ""
    margin: float = 0.0

    @classmethod
    def of_frame(cls, frame) -> Compared:
        """The description of ``frame`` (a :class:`core.pipeline.Frame` with two bodies)."""
        volumes = frame.volumes
        kind = volumes.label if volumes is not None and volumes.name != TREE_BOX_KIND else ""
        request = frame.request
        margin = float(request.margin) if request is not None else 0.0
        return cls(int(frame.index), (frame.tree_words(0), frame.tree_words(1)), kind, margin)

    def text(self) -> str:
        """``"frame 37, A: tree from mine.json, B: BVH Lab's AABB tree (midpoint split)"``,
        with the kind of volume and the margin when they are not the defaults."""
        parts = [] if self.frame_index is None else [f"frame {self.frame_index}"]
        parts += [f"{name}: {words}" for name, words in zip(BODY_NAMES, self.trees) if words]
        if self.kind:
            parts.append(f"{self.kind} volumes")
        if self.margin > 0.0:
            parts.append(f"margin {self.margin:g}")
        return ", ".join(parts)


def _n_pairs_text(n: int) -> str:
    return f"{n:,} pair{'' if n == 1 else 's'}"


@dataclass(frozen=True, eq=False)
class CrossCheck:
    """What a frame reported and what another engine reports for the same triangles.

    Attributes
    ----------
    engine : str
        Key of :data:`ENGINES`.
    engine_version : str
        E.g. ``"python-fcl 0.7.0.10"``.
    n_ours, n_theirs : int
        Contacting triangle pairs the frame (BVH Lab) and the peer report.
    only_ours, only_theirs : (p, 2) int32, (q, 2) int32
        Pairs (triangle of A, triangle of B) only one side reports, sorted.
    gap_only_ours, gap_only_theirs : (p,) float64, (q,) float64
        Each such pair's true distance (0: touching or intersecting).
    is_near_only_theirs : (q,) bool
        Whether a pair only the peer reports is one of the frame's near pairs (apart, at
        most the margin apart): the frame reported it, as near, not as contact.
    seconds : float
        Wall time of the check (the peer and the exact gaps; the frame's query is not redone).
    compared : Compared or None
        What the peer was compared with (the frame, its trees, kind and margin).
    """

    engine: str
    engine_version: str
    n_ours: int
    n_theirs: int
    only_ours: np.ndarray
    only_theirs: np.ndarray
    gap_only_ours: np.ndarray
    gap_only_theirs: np.ndarray
    seconds: float
    is_near_only_theirs: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    compared: Compared | None = None

    @property
    def identical(self) -> bool:
        return self.only_ours.shape[0] == 0 and self.only_theirs.shape[0] == 0

    @property
    def n_agreed(self) -> int:
        """Pairs both engines report."""
        return self.n_ours - int(self.only_ours.shape[0])

    @property
    def engine_name(self) -> str:
        """``"python-fcl"``: the peer's name without its version."""
        return self.engine_version.split()[0]

    def verdict(self) -> str:
        """One line: what was compared, then ``"identical (508 triangle pairs)"`` or
        ``"differs: 8 pairs only python-fcl reports (500 pairs agreed)"``."""
        where = self.compared.text() if self.compared is not None else ""
        prefix = f"{where}: " if where else ""
        if self.identical:
            return f"{prefix}identical ({self.n_ours:,} triangle pairs)"
        parts = []
        if self.only_ours.shape[0]:
            parts.append(f"{_n_pairs_text(self.only_ours.shape[0])} only BVH Lab reports")
        if self.only_theirs.shape[0]:
            parts.append(f"{_n_pairs_text(self.only_theirs.shape[0])} only "
                         f"{self.engine_name} reports")
        text = f"{prefix}differs: {', '.join(parts)} ({_n_pairs_text(self.n_agreed)} agreed)"
        n_near = int(np.count_nonzero(self.is_near_only_theirs))
        if n_near:
            margin = self.compared.margin if self.compared is not None else 0.0
            text += (f"; {n_near:,} of those only {self.engine_name} reports are within the "
                     f"margin {margin:g}: BVH Lab lists them as near pairs, not contacts")
        return text


def _peer_pairs(engine: str, va, fa, vb, fb) -> np.ndarray:
    """Contacting triangle pairs the peer reports for two meshes at identity poses."""
    if engine == "fcl":
        import fcl

        models = []
        for v, f in ((va, fa), (vb, fb)):
            model = fcl.BVHModel()
            model.beginModel(int(f.shape[0]), int(v.shape[0]))
            model.addSubModel(v, f)
            model.endModel()
            models.append(fcl.CollisionObject(model, fcl.Transform()))
        request = fcl.CollisionRequest(num_max_contacts=MAX_CONTACTS, enable_contact=True)
        result = fcl.CollisionResult()
        fcl.collide(models[0], models[1], request, result)
        return unique_pairs([(c.b1, c.b2) for c in result.contacts])
    if engine == "coal":
        import coal

        models = []
        for v, f in ((va, fa), (vb, fb)):
            model = coal.BVHModelOBBRSS()
            model.beginModel(int(f.shape[0]), int(v.shape[0]))
            model.addVertices(np.ascontiguousarray(v, dtype=np.float64))
            model.addTriangles(np.ascontiguousarray(f, dtype=np.int64))
            model.endModel()
            models.append(model)
        request = coal.CollisionRequest(coal.CollisionRequestFlag.CONTACT, MAX_CONTACTS)
        result = coal.CollisionResult()
        eye = coal.Transform3s()
        coal.collide(models[0], eye, models[1], eye, request, result)
        return unique_pairs([(c.b1, c.b2) for c in result.getContacts()])
    raise ValueError(f"engine {engine!r}: choose one of {', '.join(ENGINES)}")


def query_coordinates(mesh_a: TriMesh, pose_a: Pose | None, mesh_b: TriMesh,
                      pose_b: Pose | None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The float64 vertices a query's triangle test decides on: A's in its own coordinates,
    B's moved into A's frame by the relative pose (a pose's scale applied to its mesh), each
    rounded as :func:`core.collide.query.collide` rounds them.

    Returns
    -------
    va : (n_a, 3) float64
    vb : (n_b, 3) float64
    """
    mesh_a, _tree, pose_a = rigid_body(mesh_a, None, pose_a)
    mesh_b, _tree, pose_b = rigid_body(mesh_b, None, pose_b)
    rel = relative_pose(pose_a, pose_b)
    rot = np.ascontiguousarray(rel.rotation)
    trans = np.ascontiguousarray(rel.translation)
    vb = mesh_b.vertices
    if not np.array_equal(rot, np.eye(3)) or trans.any():
        vb = transform_points(vb, rot, trans)
    return mesh_a.vertices, vb


def cross_check(mesh_a: TriMesh, pose_a: Pose | None, mesh_b: TriMesh, pose_b: Pose | None,
                pairs, compared: Compared | None = None, near_pairs=None,
                engine: str | None = None) -> CrossCheck:  # fmt: skip
    """Compare the contacting pairs a query reported with what another engine finds.

    Parameters
    ----------
    mesh_a, mesh_b : TriMesh
        Current (deformed) vertices, each in its own coordinates, as the query had them.
    pose_a, pose_b : Pose or None
        World poses (None: identity).
    pairs : (c, 2) int
        The contacting pairs (triangle of A, triangle of B) the query reported: they are
        compared as given, nothing is recomputed.
    compared : Compared, optional
        What ``pairs`` came from (frame, trees, kind, margin); the verdict names it.
    near_pairs : (n, 2) int, optional
        The query's near pairs (apart, within its margin): a pair only the peer reports that
        is one of them is flagged (``CrossCheck.is_near_only_theirs``).
    engine : str, optional
        ``"fcl"`` or ``"coal"``; default the first installed (:func:`available_engine`).

    Returns
    -------
    CrossCheck

    Raises
    ------
    ValueError
        An unknown engine, or none installed (the message is :data:`INSTALL_HINT`), or pairs
        that name a triangle the meshes do not have.
    """
    instance(mesh_a, "mesh_a", TriMesh)
    instance(mesh_b, "mesh_b", TriMesh)
    instance(compared, "compared", Compared, optional=True)
    if engine is None:
        engine = available_engine()
        if engine is None:
            raise ValueError(INSTALL_HINT)
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r}: choose one of {', '.join(ENGINES)}")
    ours = checked_pairs(pairs, "pairs", mesh_a.n_faces, mesh_b.n_faces)
    near = checked_pairs(np.empty((0, 2), np.int64) if near_pairs is None else near_pairs,
                        "near_pairs", mesh_a.n_faces, mesh_b.n_faces)  # fmt: skip
    start = time.perf_counter()
    va, vb = query_coordinates(mesh_a, pose_a, mesh_b, pose_b)
    theirs = _peer_pairs(engine, va, mesh_a.faces, vb, mesh_b.faces)
    only_ours, only_theirs = pairs_not_in(ours, theirs), pairs_not_in(theirs, ours)
    is_near = np.ones(only_theirs.shape[0], dtype=bool)
    if only_theirs.shape[0]:
        is_near[rows_not_in(only_theirs, near)] = False

    def gaps(pairs):
        return np.array([exact_gap(va[mesh_a.faces[i]], vb[mesh_b.faces[j]])
                         for i, j in pairs], dtype=np.float64).reshape(-1)  # fmt: skip

    return CrossCheck(engine=engine, engine_version=engine_title(engine),
                      n_ours=int(ours.shape[0]), n_theirs=int(theirs.shape[0]),
                      only_ours=only_ours, only_theirs=only_theirs,
                      gap_only_ours=gaps(only_ours), gap_only_theirs=gaps(only_theirs),
                      seconds=time.perf_counter() - start, is_near_only_theirs=is_near,
                      compared=compared)  # fmt: skip


def cross_check_frame(frame, engine: str | None = None) -> CrossCheck:
    """Compare the contacts ``frame`` reported (bodies A and B) with another engine.

    Parameters
    ----------
    frame : core.pipeline.Frame
        With two bodies and a collision result. Its meshes, poses, contact pairs and near
        pairs are used as they are; :meth:`Compared.of_frame` names its trees.
    engine : str, optional
        As in :func:`cross_check`.

    Returns
    -------
    CrossCheck

    Raises
    ------
    ValueError
        A frame without two bodies, or as :func:`cross_check`.
    """
    result = frame.result
    if result is None or len(frame.meshes) < 2:
        raise ValueError(f"frame {frame.index}: the cross-check needs two "
                         "meshes tested against each other")
    return cross_check(frame.meshes[0], frame.poses[0], frame.meshes[1], frame.poses[1],
                       result.pairs, Compared.of_frame(frame), result.near_pairs, engine)
