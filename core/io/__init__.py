"""Load triangle meshes from files: OBJ, STL, PLY, OFF, VTK (legacy), VTP, glTF 2.0.

Every loader returns a :class:`core.mesh.TriMesh` whose triangles are in the file's own face
order: a polygon with k corners becomes k - 2 fan triangles ``(c0, cj, cj+1)`` that share one
``source_face_ids`` entry, so contact pairs can be reported in the file's numbering.

One module per format; :mod:`core.io.common` holds what they share (file checks, the size
limit, number grammars, assembly). OBJ, STL, PLY and OFF are read by our own small parsers,
because the VTK readers measured unsafe or lossy on these formats (VTK 9.7, pyvista 0.49):

* a truncated binary PLY file crashes the process (segmentation fault in ``vtkPLYReader``);
* a truncated ASCII PLY file and a truncated ASCII STL file are read without any error
  (the STL one as 10,593 garbage triangles from a 1,680-triangle file);
* ``vtkOBJReader`` gives every face corner its own point when the file has texture
  coordinates (Spot: 17,568 points instead of the file's 2,930 vertices).

VTK and VTP files go through VTK's readers in a child process (:mod:`core.io.vtkfile`), glTF
through trimesh (:mod:`core.io.gltf`). trimesh also reads OBJ, STL, PLY and OFF, but measured
worse than these parsers on the bad-file catalogue (trimesh 5.2): it silently loads a PLY face
index of 40 digits, float PLY indices (truncated), coordinates of 1e308 and NaN, and an ASCII
STL whose facets have 4 then 2 vertices; it raises bare ``IndexError``/``OverflowError`` on
others; and it refuses two valid files (an OBJ with a UTF-8 BOM, a binary STL whose header
starts with "solid" and has trailing bytes). On 400 seeded mutants per format (the fuzz test's
mutations) it loaded 59 (OBJ), 106 (OFF), 59 (ASCII PLY), 13 (binary PLY) and 97 (ASCII STL)
files these parsers refuse, many of them truncated.

Before any reading, the path must be a regular file (a FIFO would block forever, a link to
``/dev/zero`` would never end) no larger than :data:`MAX_FILE_BYTES`. Parsing only reads
numbers: a mesh file never executes code, and OBJ material libraries or other referenced
files are never opened. Problems raise subclasses of :class:`core.errors.MeshFileError` (or
the counted vertex and face errors of :mod:`core.errors`, prefixed with the file name) whose
message is one line that names the file and the reason. Degenerate triangles are kept (see
:attr:`TriMesh.n_degenerate`).
"""

from __future__ import annotations

import os
from pathlib import Path

from core.errors import CorruptMeshFileError, UnsupportedMeshFormatError
from core.io.common import (
    MAX_ABS_COORDINATE,
    MAX_FILE_BYTES,
    assemble,
    check_regular_file,
    fan_triangulate,
    read_regular_file,
)
from core.io.obj import parse_obj
from core.io.off import parse_off
from core.io.ply import parse_ply
from core.io.stl import parse_stl
from core.mesh import TriMesh

SUPPORTED_EXTENSIONS: tuple[str, ...] = (
    ".obj", ".off", ".ply", ".stl", ".vtk", ".vtp", ".glb", ".gltf",
)  # fmt: skip
"""File extensions :func:`load_mesh` reads (compared case-insensitively)."""

__all__ = [
    "MAX_ABS_COORDINATE",
    "MAX_FILE_BYTES",
    "SUPPORTED_EXTENSIONS",
    "fan_triangulate",
    "load_mesh",
]


def load_mesh(
    path: str | os.PathLike, name: str | None = None, *, max_bytes: int = MAX_FILE_BYTES
) -> TriMesh:
    """Read a triangle mesh from a file.

    Parameters
    ----------
    path : str or PathLike
        An ``.obj``, ``.off``, ``.ply``, ``.stl``, ``.vtk``, ``.vtp``, ``.glb`` or ``.gltf``
        file.
    name : str, optional
        The mesh's label; defaults to the file name without its extension.
    max_bytes : int, optional
        Largest file read, default :data:`MAX_FILE_BYTES` (2 GiB). Checked before opening
        and enforced while reading.

    Returns
    -------
    TriMesh
        ``vertices (n, 3) float64``, ``faces (m, 3) int32`` in file face order (fan
        triangulated), ``source_face_ids (m,) int64`` the index of each triangle's face in
        the file. STL files store every triangle's corners separately; corners with exactly
        equal coordinates are merged into one vertex (first occurrence order).

    Raises
    ------
    MeshFileError
        Missing file, a directory, a FIFO, device or other non-regular file, a file larger
        than ``max_bytes``, or a file that cannot be opened.
    UnsupportedMeshFormatError
        The extension is not in :data:`SUPPORTED_EXTENSIONS`.
    CorruptMeshFileError
        Empty, truncated, not following its format, numbers outside the grammar, face
        indices that are not whole numbers or too large, coordinates beyond
        :data:`MAX_ABS_COORDINATE`, or a VTK reader that crashed or ran out of time.
    NoTrianglesError
        Only points or lines, or no polygons at all.
    NonFiniteVertexError
        NaN or infinite coordinates (``count`` vertices, the first at ``first_index``).
    FaceIndexError
        Faces referring to vertices that do not exist (``count`` faces, the first at
        ``first_index`` in the file's face numbering).
    """
    file = Path(path)
    ext = file.suffix.lower()
    check_regular_file(file, max_bytes)
    if ext not in SUPPORTED_EXTENSIONS:
        raise UnsupportedMeshFormatError(
            file,
            f"unsupported file type {ext or '(no extension)'!r}; "
            f"supported: {', '.join(SUPPORTED_EXTENSIONS)}",
        )
    label = file.stem if name is None else name
    if ext in (".vtk", ".vtp"):
        from core.io.vtkfile import read_vtk

        return assemble(file, label, *read_vtk(file, max_bytes), weld=False)
    if ext in (".glb", ".gltf"):
        from core.io.gltf import read_gltf

        return assemble(file, label, *read_gltf(file, max_bytes), weld=False)
    data = read_regular_file(file, max_bytes)
    if not data.strip():
        raise CorruptMeshFileError(file, "the file is empty")
    points, offsets, corners = _TEXT_READERS[ext](file, data)
    return assemble(file, label, points, offsets, corners, weld=ext == ".stl")


_TEXT_READERS = {".obj": parse_obj, ".off": parse_off, ".ply": parse_ply, ".stl": parse_stl}
