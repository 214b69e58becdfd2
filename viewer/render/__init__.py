"""Frame -> batched PolyData and named actors (pyvista only; no Qt widgets)."""

from viewer.render.overlays import OVERLAY_NAMES, Overlays, build_overlays
from viewer.render.scene import SceneRenderer

__all__ = ["OVERLAY_NAMES", "Overlays", "SceneRenderer", "build_overlays"]
