"""Which meshes may be drawn without their back faces (pure numpy, no VTK).

A translucent mesh drawn with both faces shades every pixel it covers twice, its near wall
and the inside of its far wall; under software OpenGL (llvmpipe) the render time is mostly
that shading. Leaving the back faces out (culling) halves it, and for a mesh that is closed,
or closed but for small holes, nothing a student looks for goes: the boxes and contacts
inside are seen through one translucent wall instead of two. An open surface (a sheet, a
tube with open ends, a bowl) keeps its back faces, or its far side would vanish; so does a
mesh with an inner wall facing inwards (a hollow ball's cavity is seen from outside as back
faces) or turned inside out.
"""

from __future__ import annotations

import weakref

import numpy as np

MAX_HOLE_AREA_FRACTION = 0.03
"""Back faces are culled when the holes of a mesh together span at most this fraction of its
surface area. The Stanford bunny's five holes in its base span 1.8 % (seen only from below),
Suzanne's eye sockets 4.9 %, the open ends of a tube four radii long 25 %, a bowl 50 % and a
sheet 100 %."""


def _boundary_loops(faces: np.ndarray) -> list[np.ndarray]:
    """The directed boundary edges of an oriented triangle mesh, walked into loops.

    An edge ``(i, j)`` of a face is on the boundary when no face has ``(j, i)``. Following
    each such edge to the one that starts where it ends walks each hole's rim once.

    Returns
    -------
    list of (k, 2) int64
        Each loop's edges in order.
    """
    edges = np.asarray(faces, dtype=np.int64)[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    n = int(edges.max()) + 1 if edges.size else 0
    forward = edges[:, 0] * n + edges[:, 1]
    backward = edges[:, 1] * n + edges[:, 0]
    boundary = edges[~np.isin(forward, backward)]
    following = {int(i): int(j) for i, j in boundary}
    loops = []
    while following:
        start, at = following.popitem()
        loop = [(start, at)]
        while at != start and at in following:
            nxt = following.pop(at)
            loop.append((at, nxt))
            at = nxt
        loops.append(np.asarray(loop, dtype=np.int64))
    return loops


def hole_area_fraction(vertices: np.ndarray, faces: np.ndarray) -> float:
    """Area the holes of a mesh span, as a fraction of its surface area.

    Each hole's area is the norm of its rim's vector area, ``0.5 * |sum v_i x v_j|`` over
    the rim's edges (exact for a flat rim, the area of its shadow on its best plane
    otherwise).

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32 or int64

    Returns
    -------
    float
        0 for a closed mesh; ``inf`` for a mesh without area.
    """
    vertices = np.asarray(vertices, dtype=np.float64)
    corners = vertices[np.asarray(faces, dtype=np.int64)]
    area = 0.5 * np.linalg.norm(np.cross(corners[:, 1] - corners[:, 0],
                                         corners[:, 2] - corners[:, 0]), axis=1).sum()
    holes = sum(0.5 * np.linalg.norm(np.cross(vertices[loop[:, 0]], vertices[loop[:, 1]])
                                     .sum(axis=0))
                for loop in _boundary_loops(faces))
    if area <= 0.0:
        return float("inf")
    return float(holes / area)


def _component_labels(n_vertices: int, faces: np.ndarray) -> np.ndarray:
    """``(n,) int64`` label of each vertex's connected component (the smallest vertex id in
    it): labels spread along the edges, each pass halving the chains by pointer jumping."""
    edges = np.asarray(faces, dtype=np.int64)[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    labels = np.arange(n_vertices, dtype=np.int64)
    while True:
        smaller = np.minimum(labels[edges[:, 0]], labels[edges[:, 1]])
        new = labels.copy()
        np.minimum.at(new, edges[:, 0], smaller)
        np.minimum.at(new, edges[:, 1], smaller)
        new = new[new]
        if np.array_equal(new, labels):
            return labels
        labels = new


def has_inward_part(vertices: np.ndarray, faces: np.ndarray) -> bool:
    """True if a connected part of the mesh encloses a negative signed volume: its faces
    point inwards (a cavity's wall, or a mesh turned inside out).

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int
    """
    vertices = np.asarray(vertices, dtype=np.float64)
    faces = np.asarray(faces, dtype=np.int64)
    if faces.shape[0] == 0:
        return False
    corners = vertices[faces]
    # Divergence theorem: the tetrahedra from the origin to each face sum to the volume.
    volume = np.einsum("ij,ij->i", corners[:, 0], np.cross(corners[:, 1], corners[:, 2])) / 6
    part = _component_labels(vertices.shape[0], faces)[faces[:, 0]]
    return bool((np.bincount(part, weights=volume) < 0.0).any())


_CULLABLE: dict[int, tuple[weakref.ref, bool]] = {}


def may_cull_back_faces(mesh) -> bool:
    """True if ``mesh`` (a ``TriMesh``) is closed but for holes spanning at most
    :data:`MAX_HOLE_AREA_FRACTION` of its area and no part of it faces inwards, measured on
    its rest shape once per topology (cached by its faces array, which deformed copies
    share)."""
    faces = mesh.faces
    key = id(faces)
    entry = _CULLABLE.get(key)
    if entry is not None and entry[0]() is faces:
        return entry[1]
    is_cullable = (hole_area_fraction(mesh.vertices, faces) <= MAX_HOLE_AREA_FRACTION
                   and not has_inward_part(mesh.vertices, faces))
    _CULLABLE[key] = (weakref.ref(faces, lambda _r, k=key: _CULLABLE.pop(k, None)), is_cullable)
    return is_cullable
