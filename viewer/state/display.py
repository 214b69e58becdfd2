"""What the view shows and how the user works in it: drag mode, overlays, level, camera."""

from __future__ import annotations

import enum
from dataclasses import dataclass

DEFAULT_LEVEL = 5
"""Level shown when a scene opens: deep enough that the overlapping boxes hug the contact
region, shallow enough to count the boxes by eye."""


class Mode(enum.Enum):
    """What a left-drag on the canvas does."""

    CAMERA = "camera"
    MOVE = "move"
    SCULPT = "sculpt"


@dataclass(frozen=True)
class Display:
    """Which overlays are drawn.

    Attributes
    ----------
    show_tree_a, show_tree_b : bool
        Boxes of each tree at the chosen depth.
    show_parents : bool
        Faint boxes of the level above.
    show_overlap : bool
        Pairs found overlapping at the chosen traversal level.
    show_culled : bool
        Pairs tested and culled at that level (faint).
    show_contacts : bool
        Contacting triangles (red) and their intersection segments.
    mesh_opacity : float
        Opacity of the meshes, so that boxes inside them stay visible.
    box_cap : int
        Most boxes drawn per overlay; above it the canvas says so.
    is_full_resolution : bool
        Draw big meshes with every triangle instead of a decimated copy (slower to render).
    heat_map : str
        ``"off"``, ``"work"`` (triangles by volume + triangle tests), ``"visits"`` (boxes by
        volume tests) or ``"sah"`` (boxes by their share of the SAH cost).
    heat_log : bool
        Log colour scale for the heat map (counts that span decades).
    show_ghost : bool
        Draw the volumes of a freshly built tree beside the refitted ones.
    """

    show_tree_a: bool = True
    show_tree_b: bool = True
    show_parents: bool = False
    show_overlap: bool = True
    show_culled: bool = False
    show_contacts: bool = True
    mesh_opacity: float = 0.55
    box_cap: int = 20_000
    is_full_resolution: bool = False
    heat_map: str = "off"
    heat_log: bool = False
    show_ghost: bool = False


@dataclass(frozen=True)
class CameraView:
    """Where the 3-D view's camera is (kept in the model so that a session can save it).

    A session file holds the same fields as ``core.session.CameraState``; this package
    imports no core, so :func:`viewer.control.session.camera_state` and ``camera_view``
    convert between the two (a test checks their fields agree).

    Attributes
    ----------
    position, focal_point, view_up : (3,) tuple of float
    view_angle : float
        Vertical view angle in degrees (perspective projection).
    is_parallel : bool
        Parallel projection instead of perspective.
    parallel_scale : float
        Half the view's height in world units (parallel projection).
    """

    position: tuple
    focal_point: tuple
    view_up: tuple
    view_angle: float = 30.0
    is_parallel: bool = False
    parallel_scale: float = 1.0
