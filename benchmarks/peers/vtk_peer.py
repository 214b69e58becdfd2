"""VTK's ``vtkCollisionDetectionFilter`` (OBB trees, Gottschalk et al. 1996), all contacts.

``pyvista.PolyData.collision`` wraps this filter but returns only mesh A's contact cells and
builds a new filter (two new OBB trees) on every call, so the adapter drives the same VTK
filter directly with pyvista's settings (box tolerance 0.001, cell tolerance 0, two cells
per node, ``contact_mode`` 0 = all contacts). It keeps one filter: the filter rebuilds an
OBB tree only when that input's data changed, so a rigid query re-uses both trees and a
deformed mesh A rebuilds only A's tree (VTK has no refit). Output 0 and output 1 carry a
``ContactCells`` field array each; entry k of the two arrays is one contacting pair.

The build phase is timed as ``vtkOBBTree.BuildLocator`` with the filter's tree settings,
the same work the filter does on its first update.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyvista as pv
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonMath import vtkMatrix4x4
from vtkmodules.vtkFiltersGeneral import vtkOBBTree
from vtkmodules.vtkFiltersModeling import vtkCollisionDetectionFilter

from benchmarks.peers import PeerAdapter, unique_pairs

# pyvista.PolyDataFilters.collision defaults.
BOX_TOLERANCE = 0.001
CELL_TOLERANCE = 0.0
CELLS_PER_NODE = 2


@dataclass
class VtkModel:
    """A mesh as VTK sees it.

    Attributes
    ----------
    poly : pyvista.PolyData
        Triangles only.
    tree : vtkOBBTree or None
        The tree built in the timed build phase (the filter builds its own copy).
    """

    poly: pv.PolyData
    tree: vtkOBBTree | None = None


def _set_matrix(matrix: vtkMatrix4x4, pose: np.ndarray) -> None:
    for i in range(4):
        for j in range(4):
            matrix.SetElement(i, j, float(pose[i, j]))
    matrix.Modified()


class VtkPeer(PeerAdapter):
    """VTK's OBB-tree collision filter."""

    name = "vtk-OBB"
    refit_note = "VTK has no refit: a changed input rebuilds its OBB tree on the next update"
    can_refit = False

    def __init__(self):
        self._filter = vtkCollisionDetectionFilter()
        self._filter.SetBoxTolerance(BOX_TOLERANCE)
        self._filter.SetCellTolerance(CELL_TOLERANCE)
        self._filter.SetNumberOfCellsPerNode(CELLS_PER_NODE)
        self._filter.SetCollisionModeToAllContacts()
        self._matrices = (vtkMatrix4x4(), vtkMatrix4x4())
        self._filter.SetMatrix(0, self._matrices[0])
        self._filter.SetMatrix(1, self._matrices[1])
        self._inputs: list[pv.PolyData | None] = [None, None]

    @staticmethod
    def polydata(vertices: np.ndarray, faces: np.ndarray) -> pv.PolyData:
        """Triangle PolyData from ``(n, 3) float64`` vertices and ``(m, 3) int32`` faces."""
        return pv.PolyData.from_regular_faces(vertices, faces)

    def build(self, vertices: np.ndarray, faces: np.ndarray, model=None) -> VtkModel:
        poly = self.polydata(vertices, faces)
        tree = vtkOBBTree()
        tree.SetDataSet(poly)
        tree.SetNumberOfCellsPerNode(CELLS_PER_NODE)
        tree.SetTolerance(BOX_TOLERANCE)
        tree.BuildLocator()
        return VtkModel(poly, tree)

    def frame_model(self, vertices: np.ndarray, faces: np.ndarray, model=None) -> VtkModel:
        # A new input makes the filter rebuild that input's OBB tree in the next query, so
        # no separate tree is built here (it would be built twice).
        return VtkModel(self.polydata(vertices, faces))

    def query(self, model_a: VtkModel, pose_a, model_b: VtkModel, pose_b):
        for port, model in enumerate((model_a, model_b)):
            if self._inputs[port] is not model.poly:
                self._filter.SetInputData(port, model.poly)
                self._inputs[port] = model.poly
        _set_matrix(self._matrices[0], pose_a)
        _set_matrix(self._matrices[1], pose_b)
        # Re-run even when nothing moved, so repeated identical queries are really timed.
        self._filter.Modified()
        self._filter.Update()
        return (
            vtk_to_numpy(self._filter.GetOutput(0).GetFieldData().GetArray("ContactCells")),
            vtk_to_numpy(self._filter.GetOutput(1).GetFieldData().GetArray("ContactCells")),
        )

    def pairs(self, raw) -> np.ndarray:
        cells_a, cells_b = raw
        return unique_pairs(np.stack([cells_a, cells_b], axis=1))
