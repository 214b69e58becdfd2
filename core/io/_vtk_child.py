"""Child process that reads one ``.vtk`` or ``.vtp`` file with VTK's readers.

Run by :mod:`core.io.vtkfile` as ``python _vtk_child.py FILE OUT.npz MEMORY_BYTES``. VTK's
readers abort the process on some malformed files (``std::bad_alloc`` on a declared
10**12 points, a corrupt zlib block), so they never run in the caller's process. This
script imports only numpy and VTK (not ``core``, not pyvista: their imports cost start-up
time and are not needed), limits its own address space, reads the file, and either writes
``points``, ``offsets`` and ``corners`` to ``OUT.npz`` and prints ``ok``, or prints one
line ``corrupt: reason`` or ``no_triangles: reason``. A crash or a kill shows up to the
parent as the exit status.
"""

import resource
import sys

# VTK cell types that are surface polygons (vtkCellType.h); other cells are ignored.
_VTK_TRIANGLE, _VTK_POLYGON, _VTK_QUAD = 5, 7, 9


def _limit_memory(max_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (max_bytes, max_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file from an abort


def _vtk_error(text: str) -> str | None:
    """The first error VTK reported, as one line (its last line; the first names a source).

    The legacy reader reports a short binary block only as a generic warning whose text
    says "Error reading binary data!" (VTK 9.7), so the text counts as much as the kind.
    """
    for block in text.split("\n\n"):
        if "error" in block.lower():
            lines = [ln.strip() for ln in block.splitlines() if ln.strip()]
            line = lines[-1] if lines else "error"
            if "): " in line and line.startswith("vtk"):
                line = line.split("): ", 1)[1]
            return " ".join(line.split())[:200]
    return None


def _append_strips(np, vtk_to_numpy, offsets, corners, strips):
    """Add triangle strips as 3-corner polygons, alternating winding to keep orientation."""
    strip_offsets = vtk_to_numpy(strips.GetOffsetsArray()).astype(np.int64)
    strip_corners = vtk_to_numpy(strips.GetConnectivityArray()).astype(np.int64)
    tris = []
    for s in range(len(strip_offsets) - 1):
        ids = strip_corners[strip_offsets[s] : strip_offsets[s + 1]]
        for i in range(len(ids) - 2):
            a, b, c = ids[i], ids[i + 1], ids[i + 2]
            tris.append((b, a, c) if i % 2 else (a, b, c))
    # Each strip triangle becomes its own face, numbered after all polygons.
    tri_corners = np.asarray(tris, dtype=np.int64).reshape(-1)
    tri_offsets = offsets[-1] + np.arange(3, 3 * len(tris) + 1, 3, dtype=np.int64)
    return np.concatenate([offsets, tri_offsets]), np.concatenate([corners, tri_corners])


def read(path: str):
    """``("ok", (points, offsets, corners))`` or ``(kind, reason)``."""
    import numpy as np
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkCommonCore import vtkOutputWindow, vtkStringOutputWindow
    from vtkmodules.vtkCommonDataModel import vtkPolyData, vtkUnstructuredGrid

    window = vtkStringOutputWindow()
    vtkOutputWindow.SetInstance(window)
    if path.lower().endswith(".vtp"):
        from vtkmodules.vtkIOXML import vtkXMLPolyDataReader

        reader = vtkXMLPolyDataReader()
    else:
        from vtkmodules.vtkIOLegacy import vtkDataSetReader

        reader = vtkDataSetReader()
    reader.SetFileName(path)
    reader.Update()
    error = _vtk_error(window.GetOutput())
    if error is not None:
        return "corrupt", f"VTK cannot read it ({error})"
    dataset = reader.GetOutputDataObject(0)
    vtk_points = dataset.GetPoints() if hasattr(dataset, "GetPoints") else None
    if vtk_points is None or dataset.GetNumberOfPoints() == 0:
        return "corrupt", "no points (empty or not a VTK file)"
    points = vtk_to_numpy(vtk_points.GetData()).astype(np.float64).reshape(-1, 3)
    n_points = len(points)
    if isinstance(dataset, vtkPolyData):
        polys = dataset.GetPolys()
        offsets = vtk_to_numpy(polys.GetOffsetsArray()).astype(np.int64)
        corners = vtk_to_numpy(polys.GetConnectivityArray()).astype(np.int64)
        if len(offsets) == 0:
            offsets = np.zeros(1, dtype=np.int64)
        if dataset.GetNumberOfStrips():
            offsets, corners = _append_strips(
                np, vtk_to_numpy, offsets, corners, dataset.GetStrips()
            )
        if len(offsets) <= 1:
            return "no_triangles", (
                f"no polygons ({n_points} points, {dataset.GetNumberOfLines()} lines, "
                f"{dataset.GetNumberOfVerts()} vertex cells)"
            )
        return "ok", (points, offsets, corners)
    if isinstance(dataset, vtkUnstructuredGrid):
        cells = dataset.GetCells()
        offsets = vtk_to_numpy(cells.GetOffsetsArray()).astype(np.int64)
        corners = vtk_to_numpy(cells.GetConnectivityArray()).astype(np.int64)
        types = vtk_to_numpy(dataset.GetCellTypesArray())
        is_surface = np.isin(types, (_VTK_TRIANGLE, _VTK_POLYGON, _VTK_QUAD))
        if not is_surface.any():
            return "no_triangles", f"no polygon cells among {dataset.GetNumberOfCells()} cells"
        keep_ids = np.flatnonzero(is_surface)
        sizes = offsets[keep_ids + 1] - offsets[keep_ids]
        new_offsets = np.zeros(len(keep_ids) + 1, dtype=np.int64)
        np.cumsum(sizes, out=new_offsets[1:])
        gather = np.repeat(offsets[keep_ids], sizes) + (
            np.arange(new_offsets[-1]) - np.repeat(new_offsets[:-1], sizes)
        )
        return "ok", (points, new_offsets, corners[gather])
    return "no_triangles", f"holds a {dataset.GetClassName()}, not a surface mesh"


def main(argv: list[str]) -> int:
    path, out, memory_bytes = argv[0], argv[1], int(argv[2])
    _limit_memory(memory_bytes)
    try:
        kind, result = read(path)
    except MemoryError:
        kind, result = "memory", "reading it needs more memory than the limit"
    if kind == "ok":
        import numpy as np

        points, offsets, corners = result
        np.savez(out, points=points, offsets=offsets, corners=corners)
        print("ok")
    else:
        print(f"{kind}: {' '.join(str(result).split())}")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
