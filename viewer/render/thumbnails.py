"""Small off-screen pictures of one tree level drawn with one bounding-volume kind (for the
compare view). pyvista only."""

from __future__ import annotations

import numpy as np
import pyvista as pv

from viewer.render.decimation import DISPLAY_MAX_TRIANGLES, decimated
from viewer.render.geometry import mesh_polydata
from viewer.render.scene import set_default_view
from viewer.render.style import BACKGROUND, TREE_A_COLOR, TREE_B_COLOR
from viewer.render.volumes import as_volume_set, volumes_groups_polydata

THUMBNAIL_SIZE = (360, 280)
"""Pixels of one picture: four fit side by side in a 1500-pixel dialog."""


def volumes_image(frame, volumes, level: int, title: str = "",
                  size: tuple[int, int] = THUMBNAIL_SIZE, mesh_colors=("#7fa7d9", "#9ccc7a")
                  ) -> np.ndarray:  # fmt: skip
    """Both meshes (faint) and their volumes at tree depth ``level``, off screen.

    Parameters
    ----------
    frame : core.pipeline.Frame
    volumes : core.frame_volumes.FrameVolumes or VolumeSet
    level : int
        Tree depth (clamped to each tree's depth).
    title : str
    size : (width, height)

    Returns
    -------
    (h, w, 3) uint8
    """
    volumes = as_volume_set(volumes)
    plotter = pv.Plotter(off_screen=True, window_size=list(size))
    try:
        plotter.set_background(BACKGROUND)
        for i in range(2):
            mesh = frame.meshes[i]
            pose = np.asarray(frame.poses[i].as_matrix())
            poly = mesh_polydata(mesh.vertices, mesh.faces)
            if mesh.n_faces > DISPLAY_MAX_TRIANGLES:
                poly, _ = decimated(poly, DISPLAY_MAX_TRIANGLES)
            actor = plotter.add_mesh(poly, color=mesh_colors[i], opacity=0.3,
                                     reset_camera=False)
            actor.user_matrix = pose
            ids = frame.trees[i].nodes_at_depth(min(level, frame.trees[i].max_depth))
            if volumes.max_drawn is not None:
                ids = ids[:volumes.max_drawn]
            wire = volumes_groups_polydata(volumes, [(i, ids, pose)])
            if wire.n_points:
                plotter.add_mesh(wire, color=(TREE_A_COLOR, TREE_B_COLOR)[i], line_width=1.5,
                                 lighting=False, reset_camera=False)
        if title:
            plotter.add_text(title, position="upper_left", font_size=9, color="black")
        set_default_view(plotter)
        return np.asarray(plotter.screenshot(return_img=True))[..., :3].copy()
    finally:
        plotter.close()
