"""What the canvas legend reads from the scene: which of its optional rows are drawn, and
the screen boxes it keeps clear when it picks its corner.

Functions of a :class:`viewer.render.scene.SceneRenderer` (``scene``), which owns the actors;
the legend itself is :class:`viewer.render.legend.CanvasLegend`.
"""

from __future__ import annotations

from viewer.render.legend import TEXT_WEIGHT
from viewer.render.screen_boxes import actor_boxes, text_box
from viewer.render.style import NOTE_FONT_PX, TITLE_FONT_PX


def drawn_legend_rows(scene) -> frozenset:
    """The optional legend rows (``style.LEGEND_ROW_KEYS``) whose colour is on screen:
    the last frame's overlays, the selection, the selected tree node and the brush."""
    drawn = set(scene._frame_drawn)
    if scene.polys["inspect"].n_cells or scene.polys["selection"].n_cells:
        drawn.add("selected")
    if scene.polys["node_highlight"].n_cells:
        drawn.add("node")
    if scene.polys["brush"].n_cells:
        drawn.add("brush")
    return frozenset(drawn)


def legend_avoid_boxes(scene) -> list:
    """Screen boxes the legend keeps clear (``(x0, y0, x1, y1[, weight])``, display
    pixels): every actor drawing something, the title, the note, the failure line and
    the heat map's colour bars."""
    renderer = scene.plotter.renderer
    actors = [a for a in scene.mesh_actors]
    actors += [scene.actors[name] for name, poly in scene.polys.items() if poly.n_cells]
    actors += [scene.heat.actors[name] for name, poly in scene.heat.polys.items()
               if poly.n_cells]
    boxes = list(actor_boxes(renderer, actors))
    # The stepper's pair under test (and its gap) is what the student reads: kept clear
    # like a text.
    pair = [scene.actors[name] for name in ("step_a", "step_b", "step_gap")
            if scene.polys[name].n_cells]
    boxes.extend((*box, TEXT_WEIGHT) for box in actor_boxes(renderer, pair))
    view = tuple(int(v) for v in renderer.GetSize())
    scale = scene.text_scale * scene.presentation_scale
    for actor, corner_id, corner, px in ((scene.title, 2, "upper_left", TITLE_FONT_PX),
                                         (scene.failure, 2, "upper_left", NOTE_FONT_PX),
                                         (scene.note, 0, "lower_left", NOTE_FONT_PX)):
        if actor.GetVisibility():
            box = text_box(actor.GetText(corner_id) or "", px * scale, corner, view)
            if box is not None:
                boxes.append((*box, TEXT_WEIGHT))
    for bar in scene.heat.bars:
        if bar.GetVisibility():
            x, y = bar.GetPosition()
            w, h = bar.GetPosition2()
            boxes.append((x * view[0], y * view[1], (x + w) * view[0],
                          (y + h) * view[1] + 1.5 * scene.heat.font_px, TEXT_WEIGHT))
    # The lecture caption and its line of keys: the band they take at the bottom, from
    # the caption's words (the bar places its actors when it renders, which may come
    # after the legend: read as last placed, an exported frame's legend sat over it).
    bar = scene.caption_bar
    if bar.caption or bar.hint:
        boxes.append((0.0, 0.0, float(view[0]), float(bar.top_px()), TEXT_WEIGHT))
    return boxes
