"""Make ``two-spheres-fcl.jsonl``: python-fcl's contacts on the built-in "Two spheres" scene.

    python examples/contact-log/make_log.py [OUT_DIR]

Writes the two spheres of the scene as OBJ files, then six frames in which B moves into A
(frames 0-5, 0.08 along -x each) and, in frame 3, A's vertices grown by 2 % about its centre
(a vertex file), each with the triangle pairs python-fcl (its OBBRSS ``BVHModel``, every
contact) reports and its penetration depth per pair. ``python -m core audit`` checks it.
The pairs name triangles of the meshes as they are read back from the OBJ files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import fcl
import numpy as np

from core.io import load_mesh
from core.io.write import write_mesh
from viewer.scenes import SCENES

N_FRAMES = 6
STEP = 0.08
DEFORMED_FRAME = 3
GROWTH = 1.02
MAX_CONTACTS = 100_000_000


def _fcl_contacts(va, fa, pose_a, vb, fb, pose_b):
    objects = []
    for v, f, pose in ((va, fa, pose_a), (vb, fb, pose_b)):
        model = fcl.BVHModel()
        model.beginModel(int(f.shape[0]), int(v.shape[0]))
        model.addSubModel(v, f)
        model.endModel()
        objects.append(fcl.CollisionObject(model, fcl.Transform(pose[:3, :3], pose[:3, 3])))
    request = fcl.CollisionRequest(num_max_contacts=MAX_CONTACTS, enable_contact=True)
    result = fcl.CollisionResult()
    fcl.collide(objects[0], objects[1], request, result)
    depth = {}
    for contact in result.contacts:
        depth[(int(contact.b1), int(contact.b2))] = float(contact.penetration_depth)
    pairs = sorted(depth)
    return [list(p) for p in pairs], [depth[p] for p in pairs]


def make(out_dir: Path) -> Path:
    """Write the meshes, the vertex file and the log into ``out_dir``; returns the log."""
    out_dir.mkdir(parents=True, exist_ok=True)
    bodies = SCENES["two-spheres"].bodies
    names = ("sphere-a.obj", "sphere-b.obj")
    meshes = []
    for body, name in zip(bodies, names):
        vertices, faces = body.shape()
        write_mesh(out_dir / name, vertices, faces, body.name)
        meshes.append(load_mesh(out_dir / name))  # the pairs name the triangles as read back
    mesh_a, mesh_b = meshes
    pose_a = np.asarray(bodies[0].pose, dtype=np.float64)
    header = {"bvh_lab_contact_log": 1, "mesh_a": names[0], "mesh_b": names[1],
              "engine": f"python-fcl {fcl.__version__}" if hasattr(fcl, "__version__")
              else "python-fcl"}
    lines = [json.dumps(header)]
    for frame in range(N_FRAMES):
        pose_b = np.asarray(bodies[1].pose, dtype=np.float64).copy()
        pose_b[0, 3] -= STEP * frame
        record = {"frame": frame, "pose_a": pose_a.reshape(-1).tolist(),
                  "pose_b": pose_b.reshape(-1).tolist()}
        va = mesh_a.vertices
        if frame == DEFORMED_FRAME:
            centre = va.mean(axis=0)
            va = centre + GROWTH * (va - centre)
            record["vertices_a"] = f"sphere-a-frame{frame}.npy"
            np.save(out_dir / record["vertices_a"], va)
        pairs, depths = _fcl_contacts(va, mesh_a.faces, pose_a, mesh_b.vertices,
                                      mesh_b.faces, pose_b)
        record["pairs"], record["distances"] = pairs, depths
        lines.append(json.dumps(record))
    log = out_dir / "two-spheres-fcl.jsonl"
    log.write_text("\n".join(lines) + "\n")
    return log


if __name__ == "__main__":
    print(make(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent))
