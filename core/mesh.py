"""The triangle mesh every part of the engine works on.

A :class:`TriMesh` is immutable: its arrays are read-only, and deformation makes a new mesh
with the same faces (:meth:`TriMesh.with_vertices`), so a tree can check it is refitted to
the topology it was built on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from core.checks import real_array
from core.errors import (
    EmptyMeshError,
    FaceIndexError,
    FaceShapeError,
    FaceTypeError,
    NonFiniteVertexError,
    VertexShapeError,
)
from core.jit.kernel_args import frozen
from core.settings import DEFAULT_TOLERANCES, Tolerances


def read_only(array: np.ndarray) -> np.ndarray:
    """``array`` itself, made read-only (a kernel given read-only arrays runs on the machine
    code compiled for them; a writeable one compiles a second specialisation)."""
    array.flags.writeable = False
    return array


MAX_ABS_COORDINATE = 2.0**240
"""Largest absolute world coordinate a query accepts (about 1.77e72).

The queries multiply up to four coordinate differences: the orientation determinants of the
exact triangle test are products of three (Shewchuk 1997), and squared norms of cross products
(the triangle test's size-relative tolerance, the closest-point solve of the distance query)
are products of four. Each difference, in A's frame after B's pose, is up to about four times
the largest coordinate: ``(4 * 2**240)**4 = 2**968`` leaves 2**55 below float64's 2**1024 for
sums and the 2**27 splitter of exact products. Measured on a sphere against itself posed: the
answers equal those at unit scale up to 1e76.5, the distance turns wrong at 1e77 and the
contacts at 1e80 (a product of four overflowing); 2.0**500 would let the cube alone overflow.
Checked by :func:`check_coordinate_bound` where meshes and poses enter :func:`core.contacts`,
:func:`core.distance.min_distance` and the command line.
"""


def check_vertices(vertices, name: str = "vertices") -> np.ndarray:
    """Return ``vertices`` as a contiguous ``(n, 3) float64`` array, or raise.

    Raises
    ------
    TypeError
        Not real numbers: complex (the imaginary part would be lost), boolean, string or object.
    VertexShapeError
        Not ``(n, 3)``.
    EmptyMeshError
        No vertices.
    NonFiniteVertexError
        NaN or infinite coordinates, with the count of bad vertices and the first index.
    """
    array = vertices if isinstance(vertices, np.ndarray) else np.asarray(vertices)
    if array.dtype.kind not in "iuf":
        real_array(array, name, (None, 3))  # raises the TypeError naming the dtype
    if array.ndim != 2 or array.shape[1] != 3:
        raise VertexShapeError(f"{name} must be an (n, 3) array, got shape {array.shape}")
    if array.shape[0] == 0:
        raise EmptyMeshError(f"{name}: the mesh has no vertices")
    v = np.ascontiguousarray(array, dtype=np.float64)
    # One scan of the flat array first: the per-row ``all(axis=1)`` over three columns cost
    # 0.73 ms for the 50,000 vertices of a 100k-triangle sphere (a deforming body pays the
    # check every frame); the rows are only looked at to name a bad vertex.
    if not all_finite(v):
        ids = np.flatnonzero(~np.isfinite(v).all(axis=1))
        raise NonFiniteVertexError(len(ids), ids[0], f"vertex {ids[0]} is {v[ids[0]].tolist()}")
    return v


def all_finite(array: np.ndarray) -> bool:
    """Whether every value of a float64 ``array`` (any shape) is finite.

    The frame's own check of new vertices: one compiled scan that keeps the interpreter lock
    (:func:`_count_non_finite`), where ``np.isfinite(v).all()`` lets go of it twice.
    """
    return _count_non_finite(frozen(array, np.float64).reshape(-1).view(np.int64)) == 0


#: The exponent bits of a float64: all set for an infinity or a NaN, and only then.
_EXPONENT_BITS = 0x7FF0000000000000


@njit(cache=True)
def _count_non_finite(bits):
    """How many of the float64 values whose bits are ``bits`` ``(n,) int64`` are NaN or
    infinite.

    Compiled without ``nogil`` on purpose. The frame runs on a worker thread while the GUI
    thread runs Python, and every release of the interpreter lock (each numpy reduction over
    a big array, each ``nogil`` kernel) lets the GUI thread take it, the frame then waiting
    for its next release. In the window (bunny x bunny, 1280x800), the deform phase took
    2.6 ms with the rest box's six reductions, ``isfinite().all()`` and a copy, against
    0.6-0.9 ms without them (0.7 ms off-screen). On the exponent bits the count is one
    vectorised pass: 6 us for the bunny's 104,502 values, against 13 us for
    ``np.isfinite(v).all()`` and 30 us for a loop that stops at the first bad value.
    """
    n = 0
    for i in range(bits.shape[0]):
        n += (bits[i] & _EXPONENT_BITS) == _EXPONENT_BITS
    return n


def check_faces(faces, n_vertices: int) -> np.ndarray:
    """Return ``faces`` as a contiguous ``(m, 3) int32`` array, or raise.

    Only integer arrays are indices: floats (even whole ones, as before), booleans, strings
    and objects are refused rather than converted, so nothing is silently reinterpreted.

    Raises
    ------
    FaceTypeError
        Not integers (a ``TypeError`` and a :class:`FaceShapeError`).
    FaceShapeError
        Not an ``(m, 3)`` array.
    EmptyMeshError
        No faces.
    FaceIndexError
        Indices outside ``[0, n_vertices)``, with the count of bad faces, the first index, the
        bad value and ``n_vertices``.
    """
    f = faces if isinstance(faces, np.ndarray) else np.asarray(faces)
    if f.ndim != 2 or f.shape[1] != 3:
        raise FaceShapeError(f"faces must be an (m, 3) array of vertex indices, got {f.shape}")
    if f.shape[0] == 0:
        raise EmptyMeshError("faces: the mesh has no triangles")
    if f.dtype.kind not in "iu":
        what = {"b": "booleans", "f": "floating-point numbers", "c": "complex numbers",
                "U": "strings", "S": "bytes", "O": "Python objects"}.get(f.dtype.kind,
                                                                         str(f.dtype))  # fmt: skip
        raise FaceTypeError(f"faces must be integer vertex indices, got {what} ({f.dtype})")
    # One pass of min/max finds the common case (all in range) without a per-face mask.
    lo, hi = int(f.min()), int(f.max())
    if lo < 0 or hi >= n_vertices:
        bad = ((f < 0) | (f >= n_vertices)).any(axis=1)
        ids = np.flatnonzero(bad)
        row = f[ids[0]]
        value = next(int(x) for x in row if x < 0 or x >= n_vertices)
        detail = (f"faces: face {ids[0]} is {row.tolist()}, index {value} is not in "
                  f"[0, {n_vertices}) for a mesh of {n_vertices} vertices")  # fmt: skip
        raise FaceIndexError(len(ids), ids[0], detail)
    return np.ascontiguousarray(f, dtype=np.int32)


def check_coordinate_bound(mesh: TriMesh, name: str, pose=None) -> None:
    """Raise ``ValueError`` naming ``name`` if the posed mesh reaches past MAX_ABS_COORDINATE.

    Parameters
    ----------
    mesh : TriMesh
    name : str
        The argument, for the message (``"mesh_a"``).
    pose : Pose, optional
        World pose; its scale and translation count.
    """
    reach = float(np.max(np.abs(mesh.vertices)))
    if pose is not None:
        # |s R x + t| per axis is at most s |x|_2 + |t|, and |x|_2 <= sqrt(3) max|x_i|.
        if not pose.is_identity:
            reach = pose.scale * math.sqrt(3.0) * reach + float(np.max(np.abs(pose.translation)))
    if not reach <= MAX_ABS_COORDINATE:
        raise ValueError(
            f"{name}: coordinates reach {reach:.3g} (with its pose), past the supported bound "
            f"{MAX_ABS_COORDINATE:.3g} (2**240): products of its coordinates would overflow "
            "float64; scale the mesh down"
        )


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
    """A triangle mesh with read-only, validated arrays.

    Every way of making one checks its input: ``TriMesh(vertices=..., faces=...)`` validates
    exactly as :meth:`from_arrays` does (vectorised, O(n + m)), so no face index can send a
    kernel outside the vertex array.

    Attributes
    ----------
    vertices : (n, 3) float64, read-only
        Finite real coordinates (integer input is converted; complex, boolean, string or
        object input raises ``TypeError`` naming ``vertices``).
    faces : (m, 3) int32, read-only
        Vertex indices of each triangle, each in ``[0, n)``. Only integer input is accepted
        (floats, booleans, strings, objects raise :class:`~core.errors.FaceTypeError`).
    source_face_ids : (m,) int64, read-only
        For each triangle, the index of the face it came from in the source file (polygons
        with k sides become k - 2 triangles that share one source id). Default ``arange(m)``.
    name : str
        A label for messages and the viewer (the file stem for loaded meshes).

    Raises
    ------
    TypeError
        Non-real vertices, non-integer faces, or a name that is not a string.
    EmptyMeshError, NonFiniteVertexError, FaceShapeError, FaceIndexError
        As :func:`check_vertices` and :func:`check_faces`.
    """

    vertices: np.ndarray
    faces: np.ndarray
    source_face_ids: np.ndarray | None = None
    name: str = "mesh"
    _degenerate: np.ndarray | None = field(default=None, repr=False, init=False)

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str, got {type(self.name).__name__}")
        v = check_vertices(self.vertices)
        f = check_faces(self.faces, v.shape[0])
        if self.source_face_ids is None:
            src = np.arange(f.shape[0], dtype=np.int64)
        else:
            src = np.asarray(self.source_face_ids)
            if src.dtype.kind not in "iu":
                raise TypeError(f"source_face_ids must be integers, got {src.dtype}")
            src = np.ascontiguousarray(src, dtype=np.int64)
            if src.shape != (f.shape[0],):
                raise FaceShapeError(
                    f"source_face_ids must have shape ({f.shape[0]},), got {src.shape}"
                )
        # Copies where the caller could still write to the array it passed.
        if v is self.vertices:
            v = v.copy()
        if f is self.faces:
            f = f.copy()
        if src is self.source_face_ids:
            src = src.copy()
        object.__setattr__(self, "vertices", read_only(v))
        object.__setattr__(self, "faces", read_only(f))
        object.__setattr__(self, "source_face_ids", read_only(src))

    @classmethod
    def _trusted(cls, vertices, faces, source_face_ids, name) -> TriMesh:
        """Wrap arrays that already passed the checks (read-only, right dtypes), unchecked.

        Private: only for code holding another mesh's validated ``faces`` and freshly checked
        vertices (:meth:`with_vertices`), where re-checking the faces would cost O(m) a frame.
        """
        mesh = object.__new__(cls)
        for key, value in (("vertices", vertices), ("faces", faces),
                           ("source_face_ids", source_face_ids), ("name", name),
                           ("_degenerate", None)):  # fmt: skip
            object.__setattr__(mesh, key, value)
        return mesh

    @classmethod
    def from_arrays(cls, vertices, faces, name: str = "mesh", source_face_ids=None) -> TriMesh:
        """Validate and wrap arrays (the same as the constructor, positional order of old).

        Parameters
        ----------
        vertices : (n, 3) array_like of real numbers
        faces : (m, 3) array_like of int
        name : str
        source_face_ids : (m,) array_like of int, optional
            Defaults to ``arange(m)``.

        Raises
        ------
        TypeError, EmptyMeshError, NonFiniteVertexError, FaceShapeError, FaceIndexError
        """
        return cls(vertices, faces, source_face_ids, name)

    def with_vertices(self, vertices, *, is_fresh: bool = False) -> TriMesh:
        """A mesh with the same faces (the same array object) and new vertex positions.

        Parameters
        ----------
        vertices : (n, 3) array_like of float
            Must have as many rows as this mesh.
        is_fresh : bool
            True when ``vertices`` is a new array that nothing else holds (a
            :class:`core.deform.base.Deformer`'s output): it is made read-only and kept
            instead of copied. The caller must not write it afterwards.

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
        if v is vertices and not is_fresh:
            v = v.copy()
        return TriMesh._trusted(read_only(v), self.faces, self.source_face_ids, self.name)

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
            mask = read_only(degenerate_mask(self.vertices, self.faces))
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
