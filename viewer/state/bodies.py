"""The bodies of a scene as plain values: meshes are opaque ``TriMesh`` values and poses
plain ``(4, 4)`` matrices."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Body:
    """One mesh in the scene.

    Attributes
    ----------
    key : str
        Stable id; the pipeline caches trees per key.
    name : str
    rest : TriMesh
        Current rest mesh (after sculpting), local coordinates.
    original : TriMesh
        Rest mesh as loaded, for "reset to rest pose".
    pose : (4, 4) float64
        World pose, ``x_world = R x + t``.
    color : str
    is_visible : bool
    deformer : str or None
        Key in ``core.deform.DEFORMERS``.
    deformer_params : dict
        Field values of that deformer.
    notes : list of str
        What loading found about the mesh (degenerate triangles kept, open boundaries,
        polygons split into triangles), one sentence each; shown where the body is listed.
    """

    key: str
    name: str
    rest: object
    original: object
    pose: np.ndarray
    color: str
    is_visible: bool = True
    deformer: str | None = None
    deformer_params: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
