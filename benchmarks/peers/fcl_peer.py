"""python-fcl (FCL 0.7): ``fcl.BVHModel`` is an OBBRSS tree (Larsen et al. 2000, RSS + OBB).

The binding exposes ``beginModel / addSubModel / endModel`` only; FCL's C++
``beginUpdateModel / updateSubModel / endUpdateModel`` refit is not wrapped, so a deformed
mesh is rebuilt every frame. ``fcl.collide`` converts every contact to a Python object inside
the call, so that conversion is part of the timed query (it cannot be separated).
"""

from __future__ import annotations

import fcl
import numpy as np

from benchmarks.peers import PeerAdapter, unique_pairs

# Far more than any workload produces, so the query never stops early (FCL stops as soon as
# num_max_contacts is reached).
MAX_CONTACTS = 100_000_000


class FclPeer(PeerAdapter):
    """python-fcl with its only mesh BV kind, OBBRSS."""

    name = "fcl-OBBRSS"
    refit_note = "python-fcl does not wrap beginUpdateModel/updateSubModel: rebuild"
    can_refit = False

    def __init__(self):
        self._request = fcl.CollisionRequest(num_max_contacts=MAX_CONTACTS, enable_contact=True)

    def build(self, vertices: np.ndarray, faces: np.ndarray, model=None) -> fcl.BVHModel:
        model = fcl.BVHModel() if model is None else model
        model.beginModel(int(faces.shape[0]), int(vertices.shape[0]))
        model.addSubModel(vertices, faces)
        model.endModel()
        return model

    def query(self, model_a, pose_a, model_b, pose_b) -> fcl.CollisionResult:
        obj_a = fcl.CollisionObject(model_a, fcl.Transform(pose_a[:3, :3], pose_a[:3, 3]))
        obj_b = fcl.CollisionObject(model_b, fcl.Transform(pose_b[:3, :3], pose_b[:3, 3]))
        result = fcl.CollisionResult()
        fcl.collide(obj_a, obj_b, self._request, result)
        return result

    def pairs(self, raw: fcl.CollisionResult) -> np.ndarray:
        return unique_pairs([(c.b1, c.b2) for c in raw.contacts])
