"""Write triangle meshes: OBJ (text), PLY (binary little-endian) and STL (binary).

The counterparts of the readers next to this module, numpy only. Each writer builds the whole
file in memory with vectorised code (one ``%`` format of every OBJ line, one structured array
for PLY and STL) and writes it atomically (a temporary file beside the target, renamed), so a
failed write leaves an existing file as it was.

What comes back through :func:`core.io.load_mesh`:

* **OBJ** writes every coordinate with ``%.17g``, which ``float()`` reads back to the same
  float64 (17 significant digits identify every double): vertices and faces bit-exact.
* **PLY** stores ``double`` coordinates and ``int`` indices: vertices and faces bit-exact.
* **STL** stores each triangle's three corners as **float32** (the format has no other type),
  so coordinates are rounded to the nearest float32 (relative error <= 2^-24, about 6e-8),
  and the reader merges corners with equal coordinates into shared vertices; the triangles
  come back in the same order with the same corners (rounded).

Measured for 500,000 random triangles on 250,000 vertices (file bytes built in memory, two
cores): PLY 0.02 s, STL 0.14 s, OBJ 0.58 s.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from core.errors import MeshFileError
from core.files.safe_write import replace_file

WRITE_FORMATS: dict[str, str] = {
    ".obj": "Wavefront OBJ (text, exact float64 coordinates)",
    ".ply": "PLY (binary little-endian, float64 coordinates)",
    ".stl": "STL (binary, float32 coordinates)",
}
"""Suffix -> what the file holds, for file dialogs and error messages."""

_STL_RECORD = np.dtype([("normal", "<f4", (3,)), ("corners", "<f4", (3, 3)), ("attr", "<u2")])
_PLY_VERTEX = np.dtype([("x", "<f8"), ("y", "<f8"), ("z", "<f8")])
_PLY_FACE = np.dtype([("n", "u1"), ("ids", "<i4", (3,))])


def _check_arrays(vertices, faces) -> tuple[np.ndarray, np.ndarray]:
    vertices = np.ascontiguousarray(vertices, dtype=np.float64)
    faces = np.ascontiguousarray(faces)
    if vertices.ndim != 2 or vertices.shape[1] != 3:
        raise ValueError(f"vertices must be an (n, 3) array, got shape {vertices.shape}")
    if faces.ndim != 2 or faces.shape[1] != 3 or faces.dtype.kind not in "iu":
        raise ValueError(f"faces must be an (m, 3) integer array, got {faces.dtype} of shape "
                         f"{faces.shape}")
    if faces.size and (int(faces.min()) < 0 or int(faces.max()) >= len(vertices)):
        raise ValueError(f"faces refer to vertices outside 0..{len(vertices) - 1}")
    if not np.isfinite(vertices).all():
        raise ValueError("vertices hold a coordinate that is not finite")
    return vertices, faces.astype(np.int64, copy=False)


def obj_bytes(vertices: np.ndarray, faces: np.ndarray, name: str = "") -> bytes:
    """The text of an OBJ file: ``v x y z`` lines (``%.17g``) then ``f i j k`` (1-based).

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int
    name : str
        Written as an ``o`` line when given.
    """
    vertices, faces = _check_arrays(vertices, faces)
    # One format string applied to all numbers at once: 0.45 s for 250,000 vertices against
    # 1.19 s for np.savetxt, which formats row by row in Python (measured on two cores).
    head = "# written by BVH Lab\n" + (f"o {name}\n" if name else "")
    v_text = ("v %.17g %.17g %.17g\n" * len(vertices)) % tuple(vertices.ravel().tolist())
    f_text = ("f %d %d %d\n" * len(faces)) % tuple((faces + 1).ravel().tolist())
    return (head + v_text + f_text).encode("ascii")


def ply_bytes(vertices: np.ndarray, faces: np.ndarray) -> bytes:
    """A binary little-endian PLY: ``double`` x, y, z and ``uchar int`` vertex_indices.

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int
    """
    vertices, faces = _check_arrays(vertices, faces)
    header = ("ply\nformat binary_little_endian 1.0\ncomment written by BVH Lab\n"
              f"element vertex {len(vertices)}\nproperty double x\nproperty double y\n"
              f"property double z\nelement face {len(faces)}\n"
              "property list uchar int vertex_indices\nend_header\n")
    vertex_rows = np.empty(len(vertices), _PLY_VERTEX)
    vertex_rows["x"], vertex_rows["y"], vertex_rows["z"] = vertices.T
    face_rows = np.empty(len(faces), _PLY_FACE)
    face_rows["n"] = 3
    face_rows["ids"] = faces
    return header.encode("ascii") + vertex_rows.tobytes() + face_rows.tobytes()


def stl_bytes(vertices: np.ndarray, faces: np.ndarray, name: str = "") -> bytes:
    """A binary STL: an 80-byte header, the triangle count, 50 bytes per triangle (float32).

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int
    name : str
        Put in the header after "BVH Lab" (the header must not start with "solid": readers
        would take the file for text).
    """
    vertices, faces = _check_arrays(vertices, faces)
    corners = vertices[faces]  # (m, 3, 3) float64
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    lengths = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.divide(normals, lengths, out=np.zeros_like(normals), where=lengths > 0)
    records = np.zeros(len(faces), _STL_RECORD)
    records["normal"] = normals
    records["corners"] = corners
    header = f"BVH Lab binary STL {name}".encode("ascii", "replace")[:80].ljust(80, b"\0")
    return header + np.uint32(len(faces)).tobytes() + records.tobytes()


def mesh_file_bytes(suffix: str, vertices: np.ndarray, faces: np.ndarray,
                    name: str = "") -> bytes:  # fmt: skip
    """The bytes of a mesh file of kind ``suffix`` (``.obj``, ``.ply`` or ``.stl``)."""
    suffix = suffix.lower()
    if suffix == ".obj":
        return obj_bytes(vertices, faces, name)
    if suffix == ".ply":
        return ply_bytes(vertices, faces)
    if suffix == ".stl":
        return stl_bytes(vertices, faces, name)
    raise ValueError(f"cannot write {suffix or 'a file without a suffix'!r}; writable: "
                     f"{', '.join(WRITE_FORMATS)}")


def write_mesh(path, vertices: np.ndarray, faces: np.ndarray, name: str = "") -> Path:
    """Write a triangle mesh to ``path``; the suffix picks the format (see the module).

    Parameters
    ----------
    path : str or os.PathLike
        Ends in ``.obj``, ``.ply`` or ``.stl`` (any case).
    vertices : (n, 3) float64
        Finite coordinates.
    faces : (m, 3) int
        Indices into ``vertices``.
    name : str
        The mesh's name (OBJ ``o`` line, STL header).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    MeshFileError
        One line naming ``path``: an unknown suffix, bad arrays, or a file that cannot be
        written (missing folder, no permission, disk full). An existing file is kept.
    """
    file = Path(os.fspath(path))
    try:
        data = mesh_file_bytes(file.suffix, vertices, faces, name)
    except ValueError as exc:
        raise MeshFileError(file, str(exc)) from None
    try:
        replace_file(file, lambda stream: stream.write(data))
    except OSError as exc:
        raise MeshFileError(file, f"cannot write: {exc.strerror or exc}") from None
    return file
