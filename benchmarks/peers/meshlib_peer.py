"""MeshLib (``meshlib``): ``mrmeshpy.findCollidingTriangles`` on its own AABB tree.

* model: ``mrmeshnumpy.meshFromFacesVerts`` (float32 points, MeshLib's half-edge topology)
  and its cached AABB tree (``Mesh.getAABBTree``), both in the timed build;
* query: ``findCollidingTriangles(MeshPart(A), MeshPart(B), rigidB2A)`` with B's pose
  expressed in A's frame as MeshLib's ``AffineXf3f`` (its rigid-transform argument);
* refit (W3): the points replaced (``mesh.points.vec``, marshalled from numpy outside the
  refit timing) and ``Mesh.updateCaches`` over every vertex, MeshLib's refit of an existing
  tree for a mesh whose topology did not change.

MeshLib computes in float32 and runs its query multithreaded (TBB), so it is not required to
agree with our exact contacts: a differing pair is reported with its exact gap
(``benchmarks.compare``), not a failure.
"""

from __future__ import annotations

import numpy as np
from meshlib import mrmeshnumpy as mn
from meshlib import mrmeshpy as mm

from benchmarks.peers import PeerAdapter, unique_pairs


def affine(matrix: np.ndarray) -> mm.AffineXf3f:
    """A (4, 4) float64 rigid transform as MeshLib's float32 ``AffineXf3f``."""
    rows = [mm.Vector3f(*(float(x) for x in matrix[i, :3])) for i in range(3)]
    return mm.AffineXf3f(mm.Matrix3f(*rows), mm.Vector3f(*(float(x) for x in matrix[:3, 3])))


class MeshlibModel:
    """A MeshLib mesh with its tree, and the all-vertices set its refit updates."""

    def __init__(self, mesh: mm.Mesh, n_vertices: int):
        self.mesh = mesh
        # Grown from empty: ``VertBitSet(n).resize(n, True)`` sets no bit (only new ones are
        # set), and ``updateCaches`` with no bit set refits nothing.
        self.every_vertex = mm.VertBitSet()
        self.every_vertex.resize(n_vertices, True)


class MeshlibPeer(PeerAdapter):
    """MeshLib's AABB tree (float32, multithreaded with TBB)."""

    name = "meshlib"
    refit_note = "points replaced, Mesh.updateCaches over every vertex (tree topology kept)"
    can_refit = True
    must_agree = False
    # TBB's workers were still busy after a query returned: timed in turns, they slowed our
    # next W1 query from 1.6 to 2.6 ms on the idle machine.
    has_thread_pool = True

    def build(self, vertices: np.ndarray, faces: np.ndarray, model=None) -> MeshlibModel:
        mesh = mn.meshFromFacesVerts(np.ascontiguousarray(faces, dtype=np.int32),
                                     np.ascontiguousarray(vertices))
        mesh.getAABBTree()  # built now, inside the timed build, not by the first query
        return MeshlibModel(mesh, int(vertices.shape[0]))

    def prepare_vertices(self, vertices: np.ndarray):
        return mn.fromNumpyArray(np.ascontiguousarray(vertices))

    def refit(self, model: MeshlibModel, vertices) -> MeshlibModel:
        model.mesh.points.vec = vertices
        model.mesh.updateCaches(model.every_vertex)
        return model

    def query(self, model_a, pose_a, model_b, pose_b):
        b_to_a = affine(np.linalg.inv(pose_a) @ pose_b)
        return mm.findCollidingTriangles(mm.MeshPart(model_a.mesh), mm.MeshPart(model_b.mesh),
                                         b_to_a)

    def pairs(self, raw) -> np.ndarray:
        return unique_pairs([(pair.aFace.get(), pair.bFace.get()) for pair in raw])
