"""NVIDIA warp (``warp-lang``) on its CPU device: the peer for deforming meshes (issue 15).

warp has no mesh-mesh query, so the all-contacts query is the one a warp user writes:

* model: ``wp.Mesh`` over A's vertices (float32, warp's own BVH); a deformed frame moves the
  points (``mesh.points.assign``) and calls ``wp.Mesh.refit`` (tree topology kept);
* query: one kernel thread per triangle of B: B's corners moved into A's frame, their box
  (padded, see ``_PAD``) walked through A's BVH with ``wp.mesh_query_aabb`` /
  ``wp.mesh_query_aabb_next``, and on every candidate pair Moller's triangle-triangle test
  (Moller 1997, "A fast triangle-triangle intersection test") in double precision on the
  pair translated to one corner and rescaled to unit size. warp's built-in
  ``intersect_tri_tri`` is float32 with an absolute epsilon, which on triangles of 1e-3
  (the 500k sphere) would call separate triangles touching.

The CPU device runs a launch on one thread, like the other peers. The narrow phase reads A's
float64 vertices (kept next to the float32 mesh), so the contact set can be checked against
ours exactly; differing pairs must be touching (exact gap 0) up to rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import warp as wp

from benchmarks.peers import PeerAdapter, unique_pairs

# No greeting on standard output: it would land in the middle of the benchmark's table.
wp.config.log_level = wp.LOG_WARNING
wp.init()
DEVICE = "cpu"
# A's BVH boxes are float32: a B box padded by this much (relative to its coordinates) cannot
# miss an A triangle that the float64 test would call touching (float32 rounding is 6e-8).
_PAD = 1e-6
_FIRST_CAPACITY = 1 << 16


@wp.func
def _coplanar_hit(p0: wp.vec3d, p1: wp.vec3d, p2: wp.vec3d, q0: wp.vec3d, q1: wp.vec3d,
                  q2: wp.vec3d, n: wp.vec3d) -> bool:  # fmt: skip
    """Coplanar triangles: an edge pair crosses or a corner lies inside the other (Moller's
    2D fallback), projected on the plane of the two largest normal components."""
    ax = abs(n[0])
    ay = abs(n[1])
    az = abs(n[2])
    i = 0
    j = 1
    if ax >= ay and ax >= az:
        i = 1
        j = 2
    elif ay >= az:
        i = 0
        j = 2
    a = wp.vec2d(p0[i], p0[j])
    b = wp.vec2d(p1[i], p1[j])
    c = wp.vec2d(p2[i], p2[j])
    d = wp.vec2d(q0[i], q0[j])
    e = wp.vec2d(q1[i], q1[j])
    f = wp.vec2d(q2[i], q2[j])
    hit = False
    for k in range(3):
        s0 = a
        s1 = b
        if k == 1:
            s0 = b
            s1 = c
        if k == 2:
            s0 = c
            s1 = a
        for m in range(3):
            t0 = d
            t1 = e
            if m == 1:
                t0 = e
                t1 = f
            if m == 2:
                t0 = f
                t1 = d
            if _segments_cross(s0, s1, t0, t1):
                hit = True
    if _inside(a, d, e, f) or _inside(d, a, b, c):
        hit = True
    return hit


@wp.func
def _orient(a: wp.vec2d, b: wp.vec2d, c: wp.vec2d) -> wp.float64:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


@wp.func
def _segments_cross(a: wp.vec2d, b: wp.vec2d, c: wp.vec2d, d: wp.vec2d) -> bool:
    zero = wp.float64(0.0)
    o1 = _orient(a, b, c)
    o2 = _orient(a, b, d)
    o3 = _orient(c, d, a)
    o4 = _orient(c, d, b)
    return o1 * o2 <= zero and o3 * o4 <= zero


@wp.func
def _inside(p: wp.vec2d, a: wp.vec2d, b: wp.vec2d, c: wp.vec2d) -> bool:
    zero = wp.float64(0.0)
    o1 = _orient(a, b, p)
    o2 = _orient(b, c, p)
    o3 = _orient(c, a, p)
    return (o1 >= zero and o2 >= zero and o3 >= zero) or (o1 <= zero and o2 <= zero and o3 <= zero)


@wp.func
def _interval(p0: wp.float64, p1: wp.float64, p2: wp.float64, d0: wp.float64, d1: wp.float64,
              d2: wp.float64) -> wp.vec2d:  # fmt: skip
    """Where a triangle crosses the line of the two planes: ``(t_min, t_max)`` from its
    corners' projections ``p`` and signed distances ``d`` to the other plane (Moller 1997,
    section 3: the corner alone on its side, interpolated along its two edges)."""
    zero = wp.float64(0.0)
    # iso: the corner alone on its side; o1, o2 the others.
    iso_p = p2
    iso_d = d2
    a_p = p0
    a_d = d0
    b_p = p1
    b_d = d1
    if d0 * d1 > zero:
        iso_p = p2
        iso_d = d2
        a_p = p0
        a_d = d0
        b_p = p1
        b_d = d1
    elif d0 * d2 > zero:
        iso_p = p1
        iso_d = d1
        a_p = p0
        a_d = d0
        b_p = p2
        b_d = d2
    elif d1 * d2 > zero or d0 != zero:
        iso_p = p0
        iso_d = d0
        a_p = p1
        a_d = d1
        b_p = p2
        b_d = d2
    elif d1 != zero:
        iso_p = p1
        iso_d = d1
        a_p = p0
        a_d = d0
        b_p = p2
        b_d = d2
    t0 = iso_p + (a_p - iso_p) * iso_d / (iso_d - a_d)
    t1 = iso_p + (b_p - iso_p) * iso_d / (iso_d - b_d)
    return wp.vec2d(wp.min(t0, t1), wp.max(t0, t1))


@wp.func
def moller_hit(p0: wp.vec3d, p1: wp.vec3d, p2: wp.vec3d, q0: wp.vec3d, q1: wp.vec3d,
               q2: wp.vec3d) -> bool:  # fmt: skip
    """Moller's test on a pair translated to ``p0`` and scaled to unit size (float64)."""
    zero = wp.float64(0.0)
    one = wp.float64(1.0)
    span = wp.max(wp.max(wp.length(p1 - p0), wp.length(p2 - p0)),
                  wp.max(wp.max(wp.length(q0 - p0), wp.length(q1 - p0)),
                         wp.length(q2 - p0)))  # fmt: skip
    s = one / wp.max(span, wp.float64(1e-300))
    a1 = (p1 - p0) * s
    a2 = (p2 - p0) * s
    b0 = (q0 - p0) * s
    b1 = (q1 - p0) * s
    b2 = (q2 - p0) * s
    a0 = wp.vec3d(zero, zero, zero)
    n2 = wp.cross(b1 - b0, b2 - b0)
    da0 = wp.dot(n2, a0 - b0)
    da1 = wp.dot(n2, a1 - b0)
    da2 = wp.dot(n2, a2 - b0)
    if (da0 > zero and da1 > zero and da2 > zero) or (da0 < zero and da1 < zero and da2 < zero):
        return False
    n1 = wp.cross(a1, a2)
    db0 = wp.dot(n1, b0)
    db1 = wp.dot(n1, b1)
    db2 = wp.dot(n1, b2)
    if (db0 > zero and db1 > zero and db2 > zero) or (db0 < zero and db1 < zero and db2 < zero):
        return False
    if da0 == zero and da1 == zero and da2 == zero:
        return _coplanar_hit(a0, a1, a2, b0, b1, b2, n1)
    line = wp.cross(n1, n2)
    ia = _interval(wp.dot(line, a0), wp.dot(line, a1), wp.dot(line, a2), da0, da1, da2)
    ib = _interval(wp.dot(line, b0), wp.dot(line, b1), wp.dot(line, b2), db0, db1, db2)
    return ia[0] <= ib[1] and ib[0] <= ia[1]


@wp.kernel
def _collide_kernel(
    mesh_a: wp.uint64,
    verts_a: wp.array(dtype=wp.vec3d),
    faces_a: wp.array(dtype=wp.int32),
    verts_b: wp.array(dtype=wp.vec3d),
    faces_b: wp.array(dtype=wp.int32),
    rot: wp.mat33d,
    shift: wp.vec3d,
    pad: wp.float64,
    count: wp.array(dtype=wp.int32),
    out: wp.array(dtype=wp.int32, ndim=2),
):
    j = wp.tid()
    q0 = rot * verts_b[faces_b[3 * j]] + shift
    q1 = rot * verts_b[faces_b[3 * j + 1]] + shift
    q2 = rot * verts_b[faces_b[3 * j + 2]] + shift
    lo = wp.min(wp.min(q0, q1), q2)
    hi = wp.max(wp.max(q0, q1), q2)
    grow = pad * (wp.float64(1.0) + wp.max(wp.max(abs(lo[0]), abs(lo[1])), abs(lo[2]))
                  + wp.max(wp.max(abs(hi[0]), abs(hi[1])), abs(hi[2])))  # fmt: skip
    lo_f = wp.vec3(wp.float32(lo[0] - grow), wp.float32(lo[1] - grow), wp.float32(lo[2] - grow))
    hi_f = wp.vec3(wp.float32(hi[0] + grow), wp.float32(hi[1] + grow), wp.float32(hi[2] + grow))
    query = wp.mesh_query_aabb(mesh_a, lo_f, hi_f)
    face = int(0)  # noqa: UP018 (warp: a dynamic variable the query writes, not a constant)
    while wp.mesh_query_aabb_next(query, face):
        p0 = verts_a[faces_a[3 * face]]
        p1 = verts_a[faces_a[3 * face + 1]]
        p2 = verts_a[faces_a[3 * face + 2]]
        if moller_hit(p0, p1, p2, q0, q1, q2):
            k = wp.atomic_add(count, 0, 1)
            if k < out.shape[0]:
                out[k, 0] = face
                out[k, 1] = j


@dataclass
class WarpModel:
    """A mesh as warp holds it.

    Attributes
    ----------
    mesh : wp.Mesh
        float32 points and warp's BVH over the triangles.
    verts64 : wp.array of vec3d, (n,)
        The same vertices in float64 for the narrow phase (aliases the numpy array given).
    faces : wp.array of int32, (3 m,)
    n_faces : int
    """

    mesh: wp.Mesh
    verts64: wp.array
    faces: wp.array
    n_faces: int


class WarpPeer(PeerAdapter):
    """warp's ``wp.Mesh`` BVH (CPU device) + Moller's test in float64."""

    name = "warp"
    refit_note = "wp.Mesh.points.assign + wp.Mesh.refit (topology kept)"
    can_refit = True
    # The benchmark stops when warp's contacts differ from ours by a pair that is not touching.
    must_agree = True

    def __init__(self):
        self._capacity = _FIRST_CAPACITY
        # Compile (first run, about 20 s) or load the kernels now, outside every timed phase.
        wp.load_module(device=DEVICE)

    def build(self, vertices: np.ndarray, faces: np.ndarray, model=None) -> WarpModel:
        v64 = np.ascontiguousarray(vertices, dtype=np.float64)
        flat = np.ascontiguousarray(faces, dtype=np.int32).reshape(-1)
        points = wp.array(v64.astype(np.float32), dtype=wp.vec3, device=DEVICE)
        indices = wp.array(flat, dtype=wp.int32, device=DEVICE)
        mesh = wp.Mesh(points=points, indices=indices)
        verts64 = wp.array(v64, dtype=wp.vec3d, device=DEVICE, copy=False)
        return WarpModel(mesh, verts64, indices, int(faces.shape[0]))

    def prepare_vertices(self, vertices: np.ndarray) -> tuple[np.ndarray, wp.array]:
        v64 = np.ascontiguousarray(vertices, dtype=np.float64)
        return v64.astype(np.float32), wp.array(v64, dtype=wp.vec3d, device=DEVICE, copy=False)

    def refit(self, model: WarpModel, vertices) -> WarpModel:
        v32, verts64 = vertices
        model.mesh.points.assign(v32)
        model.mesh.refit()
        model.verts64 = verts64
        return model

    def query(self, model_a: WarpModel, pose_a, model_b: WarpModel, pose_b) -> np.ndarray:
        # B's corners in A's frame: inverse(pose_a) @ pose_b, applied inside the kernel.
        rel = np.linalg.solve(pose_a, pose_b)
        rot, shift = wp.mat33d(*rel[:3, :3].reshape(-1)), wp.vec3d(*rel[:3, 3])
        while True:
            count = wp.zeros(1, dtype=wp.int32, device=DEVICE)
            out = wp.empty((self._capacity, 2), dtype=wp.int32, device=DEVICE)
            wp.launch(
                _collide_kernel,
                dim=model_b.n_faces,
                inputs=[model_a.mesh.id, model_a.verts64, model_a.faces, model_b.verts64,
                        model_b.faces, rot, shift, wp.float64(_PAD), count, out],  # fmt: skip
                device=DEVICE,
            )
            n = int(count.numpy()[0])
            if n <= self._capacity:
                return out.numpy()[:n].copy()
            # Too many contacts for the buffer: grow it and run again (only ever once per size).
            self._capacity = 2 * n

    def pairs(self, raw: np.ndarray) -> np.ndarray:
        return unique_pairs(raw)
