"""The traversal stepper's pair on the canvas: its overlays copied into the scene's named
actors, the separation's words beside the axis arrow, and where the pair stands on screen.

Functions of a :class:`viewer.render.scene.SceneRenderer` (``scene``), which owns the actors
and the state they update (``last_step_overlays``, ``step_label_text``); the overlays
themselves are built by :func:`viewer.render.stepper.build_step_overlays`.
"""

from __future__ import annotations

import textwrap

import numpy as np

from viewer.render.overlays import node_volumes
from viewer.render.stepper import STEP_OVERLAY_NAMES, StepView, build_step_overlays, segments
from viewer.render.style import NOTE_FONT_PX, STEP_GAP_COLOR

STEP_LABEL_CHARS = 36
"""Line length of the separation's label beside the arrow (at 48 it ran off the right edge
of a 1280x800 lecture view when the arrow pointed right)."""


def update_step(scene, frame, step: StepView | None):
    """Copy the stepper's overlays of ``step`` into their actors (empty when None)."""
    shown = step if frame is not None and len(frame.trees) >= 2 else None
    if shown is None and scene._is_step_empty and scene.last_step_overlays is not None:
        # Emptied already: emptying nine overlays and removing the absent label again
        # cost 1.3 ms of every played frame's redraw (bunny-bunny, 1280x800, cProfile).
        return scene.last_step_overlays
    poses = [] if frame is None else [
        p.as_matrix() if hasattr(p, "as_matrix") else np.asarray(p, np.float64)
        for p in frame.poses]

    def pair_volumes(groups):
        return node_volumes(frame, frame.trees, [(b, ids, poses[b]) for b, ids in groups])

    def leaf_triangles(body, ids):
        mesh = frame.meshes[body]
        corners = np.asarray(mesh.vertices, np.float64)[np.asarray(mesh.faces)[ids]]
        matrix = poses[body]
        corners = corners @ matrix[:3, :3].T + matrix[:3, 3]  # (t, 3, 3) in the world
        return segments(corners[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 3))

    out = build_step_overlays(shown, pair_volumes, leaf_triangles)
    for name in STEP_OVERLAY_NAMES:
        scene._set_poly(name, out.polys[name])
    set_step_label(scene, out.label_point, out.label)
    scene.last_step_overlays = out
    scene._is_step_empty = shown is None
    return out


def step_label_font_px(scene) -> int:
    """The separation label's font size: the note's, scaled in lecture mode like the
    caption (it was 12 px beside a 24 px caption)."""
    return max(8, round(NOTE_FONT_PX * scene.text_scale * scene.presentation_scale))


def set_step_label(scene, point, text: str) -> None:
    """The separation's words beside the axis arrow's head (one named actor; None
    removes it)."""
    scene._step_label_at = (point, text)
    scene.step_label_text = text if point is not None else ""
    if point is None or not text:
        # add_point_labels names its actors "<name>-labels" and "<name>-points": removing
        # "step_label" left the last culled pair's words on the canvas.
        for name in ("step_label-labels", "step_label-points"):
            scene.plotter.remove_actor(name, render=False)
        return
    # One line each for the test, A's span, B's span and the gap (wrapped at any space,
    # a span's two numbers came apart over two lines).
    parts = (text.replace(": A spans", ":\nA spans").replace(", B spans", "\nB spans")
             .replace(", gap", "\ngap").splitlines())
    wrapped = "\n".join(line for part in parts
                         for line in textwrap.wrap(part, STEP_LABEL_CHARS))
    scene.plotter.add_point_labels(
        np.asarray(point, dtype=np.float64).reshape(1, 3), [wrapped], name="step_label",
        font_size=step_label_font_px(scene), bold=False, text_color="black",
        shape_color="white", shape_opacity=0.9, point_color=STEP_GAP_COLOR,
        show_points=False, always_visible=True, reset_camera=False, render=False,
        pickable=False)


def step_pair_display_point(scene):
    """``(x, y)`` display pixels of the stepper's pair's centre, or None when no pair
    is drawn (the legend keeps clear of it)."""
    if scene._is_step_empty:
        return None
    boxes = [scene.polys[name] for name in ("step_a", "step_b") if scene.polys[name].n_points]
    if not boxes:
        return None
    lo = np.min([np.asarray(b.bounds)[0::2] for b in boxes], axis=0)
    hi = np.max([np.asarray(b.bounds)[1::2] for b in boxes], axis=0)
    x, y, _depth = scene.world_to_display(0.5 * (lo + hi))
    return float(x), float(y)
