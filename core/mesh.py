"""The triangle mesh every part of the engine works on.

A :class:`TriMesh` is immutable: its arrays are read-only, and deformation makes a new mesh
with the same faces (:meth:`TriMesh.with_vertices`), so a tree can check it is refitted to
the topology it was built on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.errors import (
    EmptyMeshError,
    FaceIndexError,
    FaceShapeError,
    NonFiniteVertexError,
)
from core.settings import DEFAULT_TOLERANCES, Tolerances


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def check_vertices(vertices) -> np.ndarray:
    """Return ``vertices`` as a contiguous ``(n, 3) float64`` array, or raise.

    Raises
    ------
    EmptyMeshError
        No vertices.
    NonFiniteVertexError
        NaN or infinite coordinates, with the count of bad vertices and the first index.
    """
    v = np.ascontiguousarray(vertices, dtype=np.float64)
    if v.ndim != 2 or v.shape[1] != 3:
        raise EmptyMeshError(f"vertices must be an (n, 3) array, got shape {v.shape}")
    if v.shape[0] == 0:
        raise EmptyMeshError("the mesh has no vertices")
    bad = ~np.isfinite(v).all(axis=1)
    if bad.any():
        ids = np.flatnonzero(bad)
        raise NonFiniteVertexError(len(ids), ids[0], f"vertex {ids[0]} is {v[ids[0]].tolist()}")
    return v


def check_faces(faces, n_vertices: int) -> np.ndarray:
    """Return ``faces`` as a contiguous ``(m, 3) int32`` array, or raise.

    Raises
    ------
    FaceShapeError
        Not an ``(m, 3)`` array of integers.
    EmptyMeshError
        No faces.
    FaceIndexError
        Indices outside ``[0, n_vertices)``, with the count of bad faces and the first index.
    """
    f = np.asarray(faces)
    if f.ndim != 2 or f.shape[1] != 3:
        raise FaceShapeError(f"faces must be an (m, 3) array of vertex indices, got {f.shape}")
    if f.shape[0] == 0:
        raise EmptyMeshError("the mesh has no triangles")
    if not np.issubdtype(f.dtype, np.integer):
        if not np.all(np.equal(np.mod(f, 1), 0)):
            raise FaceShapeError("face indices must be integers")
    f64 = f.astype(np.int64, copy=False)
    bad = ((f64 < 0) | (f64 >= n_vertices)).any(axis=1)
    if bad.any():
        ids = np.flatnonzero(bad)
        detail = f"face {ids[0]} is {f64[ids[0]].tolist()}, mesh has {n_vertices} vertices"
        raise FaceIndexError(len(ids), ids[0], detail)
    return np.ascontiguousarray(f64, dtype=np.int32)


def triangle_areas(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Areas of the triangles.

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32

    Returns
    -------
    (m,) float64
    """
    tri = vertices[faces]
    return 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)


def degenerate_mask(
    vertices: np.ndarray, faces: np.ndarray, tol: Tolerances = DEFAULT_TOLERANCES
) -> np.ndarray:
    """Which triangles have zero area (repeated or collinear vertices), relative to their size.

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32

    Returns
    -------
    (m,) bool
    """
    tri = vertices[faces]
    e0 = tri[:, 1] - tri[:, 0]
    e1 = tri[:, 2] - tri[:, 0]
    e2 = tri[:, 2] - tri[:, 1]
    longest_sq = np.max(
        np.stack([(e0 * e0).sum(1), (e1 * e1).sum(1), (e2 * e2).sum(1)], axis=1), axis=1
    )
    doubled_area = np.linalg.norm(np.cross(e0, e1), axis=1)
    return doubled_area <= tol.degenerate_rel * longest_sq


@dataclass(frozen=True, eq=False)
class TriMesh:
    """A triangle mesh with read-only arrays.

    Attributes
    ----------
    vertices : (n, 3) float64, read-only
    faces : (m, 3) int32, read-only
        Vertex indices of each triangle.
    source_face_ids : (m,) int64, read-only
        For each triangle, the index of the face it came from in the source file (polygons
        with k sides become k - 2 triangles that share one source id).
    name : str
        A label for messages and the viewer (the file stem for loaded meshes).
    """

    vertices: np.ndarray
    faces: np.ndarray
    source_face_ids: np.ndarray
    name: str = "mesh"
    _degenerate: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def from_arrays(cls, vertices, faces, name: str = "mesh", source_face_ids=None) -> TriMesh:
        """Validate and wrap arrays.

        Parameters
        ----------
        vertices : (n, 3) array_like of float
        faces : (m, 3) array_like of int
        name : str
        source_face_ids : (m,) array_like of int, optional
            Defaults to ``arange(m)``.

        Raises
        ------
        EmptyMeshError, NonFiniteVertexError, FaceShapeError, FaceIndexError
        """
        v = check_vertices(vertices)
        f = check_faces(faces, v.shape[0])
        if source_face_ids is None:
            src = np.arange(f.shape[0], dtype=np.int64)
        else:
            src = np.ascontiguousarray(source_face_ids, dtype=np.int64)
            if src.shape != (f.shape[0],):
                raise FaceShapeError(
                    f"source_face_ids must have shape ({f.shape[0]},), got {src.shape}"
                )
        if v is vertices:
            v = v.copy()
        if f is faces:
            f = f.copy()
        return cls(_read_only(v), _read_only(f), _read_only(src), name)

    def with_vertices(self, vertices) -> TriMesh:
        """A mesh with the same faces (the same array object) and new vertex positions.

        Parameters
        ----------
        vertices : (n, 3) array_like of float
            Must have as many rows as this mesh.

        Raises
        ------
        NonFiniteVertexError
            If a deformation produced NaN or infinite coordinates.
        """
        v = check_vertices(vertices)
        if v.shape != self.vertices.shape:
            raise FaceShapeError(
                f"new vertices have shape {v.shape}, the mesh has {self.vertices.shape}"
            )
        if v is vertices:
            v = v.copy()
        return TriMesh(_read_only(v), self.faces, self.source_face_ids, self.name)

    @property
    def n_vertices(self) -> int:
        return int(self.vertices.shape[0])

    @property
    def n_faces(self) -> int:
        return int(self.faces.shape[0])

    @property
    def triangles(self) -> np.ndarray:
        """Corner coordinates, ``(m, 3, 3) float64`` (triangle, corner, xyz)."""
        return self.vertices[self.faces]

    @property
    def degenerate(self) -> np.ndarray:
        """``(m,) bool``: zero-area triangles. They are kept and tested like any other."""
        if self._degenerate is None:
            mask = _read_only(degenerate_mask(self.vertices, self.faces))
            object.__setattr__(self, "_degenerate", mask)
        return self._degenerate

    @property
    def n_degenerate(self) -> int:
        return int(self.degenerate.sum())

    @property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Corners ``(lo, hi)`` of the axis-aligned box, each ``(3,) float64``."""
        return self.vertices.min(axis=0), self.vertices.max(axis=0)

    def __repr__(self) -> str:
        return f"TriMesh({self.name!r}, {self.n_vertices} vertices, {self.n_faces} triangles)"
