"""Drawing copies of big meshes: at most :data:`DISPLAY_MAX_TRIANGLES` triangles are drawn per
mesh (collision always uses every triangle), and the copy is made once per topology, ahead
of time on any thread if asked (:func:`prepare_display_copy`).
"""

from __future__ import annotations

import weakref

import numpy as np
import pyvista as pv

from viewer.render.geometry import mesh_polydata

DISPLAY_MAX_TRIANGLES = 20_000
"""Meshes larger than this are DRAWN with a decimated copy (collision always uses every
triangle). Software OpenGL (llvmpipe, 2 cores) measured about 0.4 us per drawn triangle: the
two 69k-triangle bunnies cost about 60 ms per render, the same pair drawn with 20k triangles
each about a third of that."""



def decimated(poly: pv.PolyData, max_triangles: int) -> tuple[pv.PolyData, np.ndarray]:
    """A copy of a triangle mesh with at most about ``max_triangles`` triangles for drawing.

    ``vtkDecimatePro`` only collapses edges onto existing vertices, so the copy's points are
    a subset of the mesh's: a deformed mesh is shown by indexing its vertices.

    Returns
    -------
    poly : pv.PolyData
    vertex_ids : (k,) int64
        Vertex of the full mesh behind each point of the copy.
    """
    source = poly.copy(deep=False)
    source.point_data["source_id"] = np.arange(poly.n_points, dtype=np.int64)
    reduced = source.decimate_pro(1.0 - max_triangles / poly.n_cells, preserve_topology=True)
    ids = np.asarray(reduced.point_data["source_id"], dtype=np.int64)
    out = pv.PolyData(np.array(reduced.points), faces=reduced.faces)
    return out, ids


# Drawing copies made ahead of time (e.g. by the file loader's worker thread: vtkDecimatePro
# measured 28 s on a 2M-triangle sphere), keyed by the id of the mesh's faces array, which
# TriMesh.with_vertices shares: a moved or deformed mesh reuses its copy.
_DISPLAY_COPIES: dict[int, tuple[weakref.ref, np.ndarray, np.ndarray]] = {}


def prepare_display_copy(mesh, max_triangles: int = DISPLAY_MAX_TRIANGLES) -> bool:
    """Make the decimated drawing copy of a big mesh now (any thread, no rendering).

    Returns
    -------
    bool
        True if a copy was made (the mesh has more than ``max_triangles`` triangles).
    """
    if mesh.n_faces <= max_triangles:
        return False
    faces = mesh.faces
    key = id(faces)
    entry = _DISPLAY_COPIES.get(key)
    if entry is not None and entry[0]() is faces:
        return True
    poly, ids = decimated(mesh_polydata(mesh.vertices, faces), max_triangles)
    _DISPLAY_COPIES[key] = (weakref.ref(faces, lambda _r, k=key: _DISPLAY_COPIES.pop(k, None)),
                            np.asarray(poly.faces).copy(), ids)
    return True


def display_copy(mesh) -> tuple[pv.PolyData, np.ndarray]:
    """The decimated drawing copy of ``mesh`` and its vertex ids (made now if not prepared)."""
    prepare_display_copy(mesh)
    _ref, cells, ids = _DISPLAY_COPIES[id(mesh.faces)]
    return pv.PolyData(np.array(mesh.vertices[ids]), faces=cells), ids
