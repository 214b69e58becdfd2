"""coal (formerly hpp-fcl): mesh BVH with OBBRSS or AABB volumes.

* Build: ``beginModel / addVertices / addTriangles / endModel`` with numpy arrays.
* Refit: coal's Python binding has no ``beginUpdateModel``; it wraps the equivalent
  ``beginReplaceModel / replaceSubModel / endReplaceModel(refit=True, bottomup=True)``, which
  replaces the vertices and refits the volumes bottom-up without changing the tree.
  ``replaceSubModel`` takes a ``coal.StdVec_Vec3s``; building that from numpy is done in
  :meth:`CoalPeer.prepare_vertices` and timed separately.
* AABB: the binding exposes no ``BVHModelAABB`` class. ``coal.MeshLoader(coal.BV_AABB)``
  returns an AABB-typed model; it is loaded once from a tiny file, cleared with
  ``beginModel`` (coal prints a warning on that clear, silenced here) and then filled
  exactly like the OBBRSS model, so the timed build is the same ``beginModel ... endModel``
  sequence for both kinds.
* Query: ``coal.collide`` with ``CollisionRequest(CONTACT, MAX_CONTACTS)``; contact records
  are read after the timed call. For AABB trees coal has no relative-pose box test: its
  mesh-mesh collide copies both models and re-expresses a model whose pose is not the
  identity in world coordinates (new vertices, tree rebuilt) before traversing, so the
  coal-AABB query time includes that copy and rebuild. OBBRSS models are used in place.
* Triangle test: GJK-based with ``gjk_tolerance = 1e-6`` (absolute), so coal also reports a
  few pairs about 1e-7 .. 1e-6 apart that are not in contact.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import tempfile

import coal
import numpy as np

from benchmarks.peers import PeerAdapter, unique_pairs

# Far more than any workload produces: coal stops the traversal once this many are found.
MAX_CONTACTS = 100_000_000

# One quad's worth of triangles in ASCII STL, enough for MeshLoader to return an AABB model.
_TINY_STL = """solid tiny
facet normal 0 0 1
outer loop
vertex 0 0 0
vertex 1 0 0
vertex 0 1 0
endloop
endfacet
endsolid tiny
"""


@contextlib.contextmanager
def _quiet_stderr():
    """Silence C++ writes to file descriptor 2 (coal's ``std::cerr`` warnings)."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class CoalPeer(PeerAdapter):
    """coal with one BV kind, ``"OBBRSS"`` or ``"AABB"``."""

    can_refit = True
    refit_note = "beginReplaceModel/replaceSubModel/endReplaceModel(refit=True)"

    def __init__(self, bv: str = "OBBRSS"):
        if bv not in ("OBBRSS", "AABB"):
            raise ValueError(f"unknown coal BV kind {bv!r}")
        self.bv = bv
        self.name = f"coal-{bv}"
        self._request = coal.CollisionRequest(coal.CollisionRequestFlag.CONTACT, MAX_CONTACTS)
        self._tiny_path = None

    def _empty_model(self):
        if self.bv == "OBBRSS":
            return coal.BVHModelOBBRSS()
        if self._tiny_path is None:
            fd, path = tempfile.mkstemp(suffix=".stl")
            with os.fdopen(fd, "w") as f:
                f.write(_TINY_STL)
            atexit.register(os.remove, path)
            self._tiny_path = path
        model = coal.MeshLoader(coal.BV_AABB).load(self._tiny_path)
        with _quiet_stderr():
            # The first beginModel on a processed model clears it and reports an error code;
            # the model is then empty and ready for a normal build.
            model.beginModel(0, 0)
        return model

    def new_model(self):
        return self._empty_model()

    def build(self, vertices: np.ndarray, faces: np.ndarray, model=None):
        if model is None:
            model = self._empty_model()
        status = model.beginModel(int(faces.shape[0]), int(vertices.shape[0]))
        if status != 0:
            raise RuntimeError(f"{self.name}: beginModel returned {status}")
        model.addVertices(np.ascontiguousarray(vertices, dtype=np.float64))
        model.addTriangles(np.ascontiguousarray(faces, dtype=np.int64))
        status = model.endModel()
        if status != 0:
            raise RuntimeError(f"{self.name}: endModel returned {status}")
        return model

    def prepare_vertices(self, vertices: np.ndarray) -> coal.StdVec_Vec3s:
        out = coal.StdVec_Vec3s()
        out.extend(list(np.ascontiguousarray(vertices, dtype=np.float64)))
        return out

    def refit(self, model, vertices) -> object:
        if isinstance(vertices, np.ndarray):
            vertices = self.prepare_vertices(vertices)
        status = model.beginReplaceModel()
        if status == 0:
            status = model.replaceSubModel(vertices)
        if status == 0:
            status = model.endReplaceModel(True, True)
        if status != 0:
            raise RuntimeError(f"{self.name}: replace-model refit returned {status}")
        return model

    def query(self, model_a, pose_a, model_b, pose_b) -> coal.CollisionResult:
        result = coal.CollisionResult()
        coal.collide(
            model_a,
            coal.Transform3s(pose_a[:3, :3], pose_a[:3, 3]),
            model_b,
            coal.Transform3s(pose_b[:3, :3], pose_b[:3, 3]),
            self._request,
            result,
        )
        return result

    def pairs(self, raw: coal.CollisionResult) -> np.ndarray:
        return unique_pairs([(c.b1, c.b2) for c in raw.getContacts()])
