"""Cross-check one frame's contacts with another collision engine (python-fcl or coal).

Both engines get the same float64 triangles: each mesh is put in world coordinates once
(``pose.apply``, rounded to float64) and handed to both with identity poses, so a pair on
which they disagree is a disagreement of their tests, not of two ways of rounding a pose.
Every such pair gets its true gap, computed exactly (:mod:`core.exact_gap`): 0 means the
triangles touch or intersect (the engine that missed it is wrong), a positive gap means they
are apart (the engine that reported it is wrong, or counts "within its tolerance" as contact:
coal's GJK test reports pairs up to about 1e-6 apart, see ``benchmarks/peers/coal_peer.py``).

The peers are optional (``pip install python-fcl`` or ``pip install coal``): without either,
:func:`available_engine` is None and :data:`INSTALL_HINT` says what to install.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import time
from dataclasses import dataclass

import numpy as np

from core import contacts
from core.checks import instance
from core.exact_gap import exact_gap
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


@dataclass(frozen=True, eq=False)
class CrossCheck:
    """What two engines report for one pair of posed meshes.

    Attributes
    ----------
    engine : str
        Key of :data:`ENGINES`.
    engine_version : str
        E.g. ``"python-fcl 0.7.0.10"``.
    n_ours, n_theirs : int
        Contacting triangle pairs each engine reports.
    only_ours, only_theirs : (p, 2) int32, (q, 2) int32
        Pairs (triangle of A, triangle of B) only one engine reports, sorted.
    gap_only_ours, gap_only_theirs : (p,) float64, (q,) float64
        Each such pair's true distance (0: touching or intersecting).
    seconds : float
        Wall time of the whole check (both engines and the exact gaps).
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

    @property
    def identical(self) -> bool:
        return self.only_ours.shape[0] == 0 and self.only_theirs.shape[0] == 0

    @property
    def n_agreed(self) -> int:
        """Pairs both engines report."""
        return self.n_ours - int(self.only_ours.shape[0])


def _unique_pairs(pairs) -> np.ndarray:
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if p.shape[0] == 0:
        return np.empty((0, 2), dtype=np.int32)
    return np.unique(p, axis=0).astype(np.int32)


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
        return _unique_pairs([(c.b1, c.b2) for c in result.contacts])
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
        return _unique_pairs([(c.b1, c.b2) for c in result.getContacts()])
    raise ValueError(f"engine {engine!r}: choose one of {', '.join(ENGINES)}")


def _difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rows of ``a`` not in ``b`` (both ``(n, 2)`` int32, unique), sorted."""
    if a.shape[0] == 0 or b.shape[0] == 0:
        return a
    key_a = a[:, 0].astype(np.int64) << 32 | a[:, 1].astype(np.int64)
    key_b = b[:, 0].astype(np.int64) << 32 | b[:, 1].astype(np.int64)
    return a[~np.isin(key_a, key_b)]


def cross_check(mesh_a: TriMesh, pose_a: Pose | None, mesh_b: TriMesh, pose_b: Pose | None,
                engine: str | None = None) -> CrossCheck:  # fmt: skip
    """Run both engines on the same triangles and compare their contacting pairs.

    Parameters
    ----------
    mesh_a, mesh_b : TriMesh
        Current (deformed) vertices, each in its own coordinates.
    pose_a, pose_b : Pose or None
        World poses (None: identity).
    engine : str, optional
        ``"fcl"`` or ``"coal"``; default the first installed (:func:`available_engine`).

    Returns
    -------
    CrossCheck

    Raises
    ------
    ValueError
        An unknown engine, or none installed (the message is :data:`INSTALL_HINT`).
    """
    instance(mesh_a, "mesh_a", TriMesh)
    instance(mesh_b, "mesh_b", TriMesh)
    if engine is None:
        engine = available_engine()
        if engine is None:
            raise ValueError(INSTALL_HINT)
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r}: choose one of {', '.join(ENGINES)}")
    start = time.perf_counter()
    va = (pose_a or Pose()).apply(mesh_a.vertices)
    vb = (pose_b or Pose()).apply(mesh_b.vertices)
    world_a, world_b = mesh_a.with_vertices(va), mesh_b.with_vertices(vb)
    ours = _unique_pairs(contacts(world_a, world_b).pairs)
    theirs = _peer_pairs(engine, va, mesh_a.faces, vb, mesh_b.faces)
    only_ours, only_theirs = _difference(ours, theirs), _difference(theirs, ours)

    def gaps(pairs):
        return np.array([exact_gap(va[mesh_a.faces[i]], vb[mesh_b.faces[j]])
                         for i, j in pairs], dtype=np.float64).reshape(-1)  # fmt: skip

    return CrossCheck(engine=engine, engine_version=engine_title(engine),
                      n_ours=int(ours.shape[0]), n_theirs=int(theirs.shape[0]),
                      only_ours=only_ours, only_theirs=only_theirs,
                      gap_only_ours=gaps(only_ours), gap_only_theirs=gaps(only_theirs),
                      seconds=time.perf_counter() - start)  # fmt: skip
