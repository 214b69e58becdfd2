"""libigl (``libigl``): ``igl.predicates.find_intersections``, exact, one call per query.

libigl's call takes two meshes in world coordinates, builds its AABB tree over them inside
the call and decides each candidate pair with exact predicates (Shewchuk's orient3d). There
is no model to keep between queries, so its "build" only stores the arrays and its query is
build + query: compare it with our build + query. The poses are applied to the vertices
inside the timed query (libigl has no transform argument).
"""

from __future__ import annotations

import igl.predicates
import numpy as np

from benchmarks.peers import PeerAdapter, unique_pairs


class LibiglPeer(PeerAdapter):
    """libigl's exact intersection call (tree built inside every call)."""

    name = "libigl"
    refit_note = "builds its tree inside every call: no model to refit"
    can_refit = False
    must_agree = False  # exact, but on the posed coordinates rounded to float64

    def build(self, vertices: np.ndarray, faces: np.ndarray, model=None):
        return (np.ascontiguousarray(vertices, dtype=np.float64),
                np.ascontiguousarray(faces, dtype=np.int64))

    def query(self, model_a, pose_a, model_b, pose_b):
        (va, fa), (vb, fb) = model_a, model_b
        va = np.ascontiguousarray(va @ pose_a[:3, :3].T + pose_a[:3, 3])
        vb = np.ascontiguousarray(vb @ pose_b[:3, :3].T + pose_b[:3, 3])
        return igl.predicates.find_intersections(va, fa, vb, fb)

    def pairs(self, raw) -> np.ndarray:
        _found, face_pairs, _coplanar = raw
        return unique_pairs(face_pairs)
