"""The render layer: meshes and overlays as a fixed set of named actors, updated in place.

Works on any pyvista plotter (the window's canvas, :class:`viewer.canvas.Canvas`, or an
off-screen ``Plotter`` in benchmarks and tests); imports no Qt. Each overlay kind is added
once with a stable name, and every frame copies new geometry into the same PolyData
(``shallow_copy``), so the scene graph never grows.
"""

from __future__ import annotations

import textwrap
import time
from dataclasses import replace

import numpy as np
import pyvista as pv
from vtkmodules.vtkRenderingCore import vtkMapper, vtkTextMapper

from viewer.render.culling import may_cull_back_faces
from viewer.render.decimation import DISPLAY_MAX_TRIANGLES, display_copy
from viewer.render.drawing_budget import RENDER_BUDGET_S, LineBudget, RenderCost, ViewScale
from viewer.render.geometry import mesh_polydata, ring_polydata
from viewer.render.ghost import (
    DASHES_PER_SEGMENT,
    GhostView,
    build_crosscheck,
    build_ghost,
    ghost_box_counts,
)
from viewer.render.heat import BAR_FONT_PX as BAR_TITLE_PX
from viewer.render.heat import HeatLayer, build_heat, lines_left_of_bars
from viewer.render.lecture import (
    CAPTION_FONT_PX,
    CaptionBar,
    FigureLayer,
    line_scale,
)
from viewer.render.legend import LEGEND_FONT_PX, CanvasLegend
from viewer.render.legend_scene import drawn_legend_rows, legend_avoid_boxes
from viewer.render.marks import MARK_NAMES, Marks, build_marks
from viewer.render.overlays import OVERLAY_NAMES, Overlays, build_overlays, tested_hidden
from viewer.render.picking import (
    MeshPicker,
    box_on_screen,
    camera_axes,
    display_to_world,
    world_to_display,
)
from viewer.render.prepared_overlays import PreparedOverlays, usable_overlays
from viewer.render.step_drawing import (
    set_step_label,
    step_pair_display_point,
    update_step,
)
from viewer.render.stepper import STEP_OVERLAY_NAMES, StepView
from viewer.render.style import (
    BACKGROUND,
    CROSSCHECK_COLOR,
    DIFF_COLOR,
    FAILURE_COLOR,
    GHOST_COLOR,
    HEAT_SWATCH,
    LEGEND,
    NOTE_FONT_PX,
    NOTE_WIDTH_CHARS,
    OVERLAY_STYLE,
    TITLE_FONT_PX,
    frame_legend_rows,
    frame_words,
    ghost_words,
    legend_entries,
    pinned_tree_words,
    step_legend_entries,
)
from viewer.render.tree_diff import TreeDiffView, build_diff_nodes, build_diff_tree
from viewer.render.words import KindWords

ANALYSIS_NAMES = ("ghost", "crosscheck", "diff_tree", "diff_nodes")
"""Overlays the controller computes on demand (a fresh tree, another engine's answer)."""

LEVEL_OVERLAYS_OFF = {"show_tree_a": False, "show_tree_b": False, "show_parents": False,
                      "show_overlap": False, "show_culled": False}
"""Display fields turned off while the stepper is on: its pairs replace the level's."""

# Meshes are pushed back in depth so that the red contact triangles, which lie exactly on
# them, win the depth test instead of z-fighting.
vtkMapper.SetResolveCoincidentTopologyToPolygonOffset()


VIEW_DIRECTION = (1.0, 0.8, 1.7)
"""Default camera direction (from the target towards the camera); y is up, as in the
shipped meshes."""


def set_default_view(plotter) -> None:
    """Look at the whole scene from the front-right, above, with y up."""
    plotter.view_vector(VIEW_DIRECTION, viewup=(0.0, 1.0, 0.0), render=False)
    # The renderer's own reset: pyvista's ``Plotter.reset_camera`` renders whatever
    # ``render`` says (pyvista 0.49), one render more per new scene and per Reset view.
    plotter.renderer.reset_camera(render=False)
    plotter.camera.zoom(1.15)


class SceneRenderer:
    """Meshes and overlays of the viewer on one pyvista plotter.

    Parameters
    ----------
    plotter : pyvista.BasePlotter
    text_scale : float
        The screen's logical DPI / 96: legend, note and title sizes are multiplied by it.
    """

    def __init__(self, plotter, text_scale: float = 1.0):
        self.plotter = plotter
        self.text_scale = float(text_scale)
        self.n_prepared_drawn = 0  # frames drawn with the overlays their lane prepared
        self.mesh_polys: list[pv.PolyData] = []
        self.mesh_actors: list = []
        self._mesh_keys: list[str] = []
        self._drawn_meshes: list = []  # the TriMesh whose vertices each mesh poly holds
        self._display_ids: list = []  # per mesh: kept vertex ids of a decimated copy, or None
        self._rest_meshes: list = []  # the rest mesh each actor was last given
        self.display_notes: list[str] = []
        self.polys: dict[str, pv.PolyData] = {}
        self.actors: dict[str, pv.Actor] = {}
        self.last_overlays = Overlays()
        self.render_cost = RenderCost()  # fitted to this view's renders (line_budget)
        self.render_budget_s = RENDER_BUDGET_S
        # No multisampling: under software OpenGL (llvmpipe) 8x MSAA tripled the render time
        # of the two-sphere scene (47 ms -> 18 ms at 1280x800 without it).
        if plotter.ren_win is not None:
            plotter.ren_win.SetMultiSamples(0)
        # Plain alpha blending for the translucent meshes instead of VTK's order-independent
        # translucency pass: one colour per mesh hides the ordering errors, and the OIT pass
        # measured about 25% of the render time of the bunny pair under llvmpipe.
        plotter.renderer.SetUseOIT(False)
        plotter.set_background(BACKGROUND)
        # One light at the camera instead of pyvista's five-light kit: llvmpipe shades each
        # fragment once per light, and the translucent meshes cover much of the window. The
        # bunny pair at 1280x800 rendered in 65.2 ms instead of 86.9 (minimum of 25 renders,
        # same run); the meshes stay shaded, lit from where the student looks.
        plotter.remove_all_lights()
        plotter.add_light(pv.Light(light_type="headlight"))
        for name in (*OVERLAY_NAMES, "selection", "brush", *STEP_OVERLAY_NAMES,
                     *ANALYSIS_NAMES, *MARK_NAMES):
            self._add_overlay_actor(name)
        self.heat = HeatLayer(plotter, self.text_scale)
        self.last_step_overlays = None
        self._is_step_empty = False  # the step overlays hold nothing (no stepper shown)
        self.last_marks = Marks()
        self.step_label_text = ""
        self.legend_kind: KindWords | None = None
        self._legend_key = None
        self.canvas_legend = CanvasLegend(plotter.renderer, self.text_scale)
        self.canvas_legend.set_entries(LEGEND)
        self.legend = self.canvas_legend.actor
        self.legend_texts = self.canvas_legend.texts()
        self.note = plotter.add_text("", position="lower_left", color="black", name="note")
        self._note_probe = vtkTextMapper()  # measures note lines (_note_width_px)
        self.title = plotter.add_text("", position="upper_left", color="black", name="title")
        # A failed frame's mark: under the title (two blank lines clear the title's line).
        self.failure = plotter.add_text("", position="upper_left", color=FAILURE_COLOR,
                                        name="failure")
        self.failure.GetTextProperty().SetBold(True)
        self.failure_text = ""
        for corner, px in ((self.note, NOTE_FONT_PX), (self.title, TITLE_FONT_PX),
                           (self.failure, NOTE_FONT_PX)):
            # Minimum = maximum: VTK's corner text otherwise scales with the view's size.
            size = max(8, round(px * self.text_scale))
            corner.SetMinimumFontSize(size)
            corner.SetMaximumFontSize(size)
        self._picker = MeshPicker()
        self.canvas_legend.screen_boxes = self._legend_avoid_boxes
        self._legend_args = None  # set_legend_kind's last arguments but `drawn`
        self._frame_drawn: frozenset = frozenset()  # legend rows the last frame drew
        self.caption_bar = CaptionBar(plotter.renderer)
        self.figure_layer = FigureLayer(plotter.renderer)
        self.presentation_scale = 1.0
        # The legend keeps clear of the stepper's pair (it covered it at test 1,410 of Two
        # spheres) and of the caption bar: both are among _legend_avoid_boxes.
        self._step_label_at = (None, "")  # (point, text) of the separation's label

    # -- lecture mode -----------------------------------------------------------------------
    def set_presentation_scale(self, scale: float) -> None:
        """Text and lines for a projector: legend, note, title and caption fonts times
        ``scale``, line widths times :func:`viewer.render.lecture.line_scale` (1: as on a
        desk)."""
        self.presentation_scale = float(scale)
        text = self.text_scale * self.presentation_scale
        self.canvas_legend.set_font_px(max(8, round(LEGEND_FONT_PX * text)))
        self.heat.set_font_px(max(8, round(BAR_TITLE_PX * text)))
        for corner, px in ((self.note, NOTE_FONT_PX), (self.title, TITLE_FONT_PX),
                           (self.failure, NOTE_FONT_PX)):
            size = max(8, round(px * text))
            corner.SetMinimumFontSize(size)
            corner.SetMaximumFontSize(size)
        self.caption_bar.set_font_px(max(8, round(CAPTION_FONT_PX * text)))
        widths = line_scale(self.presentation_scale)
        for name, actor in self.actors.items():
            actor.prop.line_width = OVERLAY_STYLE[name][1] * widths
        set_step_label(self, *self._step_label_at)  # its font scales like the caption's

    def show_figure(self, image, bottom_px: int = 0) -> None:
        """An experiment's figure ``(h, w, 4) uint8`` over the view, the legend and the
        scene's title hidden under it (they showed around its edges); None takes it away."""
        self.figure_layer.set_image(image, bottom_px)
        is_shown = image is None
        self.legend.SetVisibility(is_shown)
        self.title.SetVisibility(is_shown)

    def set_failure(self, text: str) -> None:
        """The mark of a failed or cancelled frame under the title ("frame 38 failed: ...
        - showing frame 37"); "" takes it away."""
        self.failure_text = text
        lines = textwrap.wrap(text, NOTE_WIDTH_CHARS) if text else []
        self.failure.SetText(2, "\n\n" + "\n".join(lines) if lines else "")

    def set_caption(self, caption: str, hint: str = "") -> None:
        """The caption bar's text (both empty: no bar)."""
        self.caption_bar.set_text(caption, hint)

    def set_note_visible(self, is_visible: bool) -> None:
        """The lower-left note (hidden under the caption bar in lecture mode)."""
        self.note.SetVisibility(bool(is_visible))
        self._lift_caption()

    def _lift_caption(self) -> None:
        """The caption bar sits above the lower-left note's lines (they overlapped on the
        desk view's screenshot at 1280x800)."""
        text = self.note.GetText(0) or ""
        n_lines = len(text.splitlines()) if self.note.GetVisibility() and text.strip() else 0
        self.caption_bar.set_lift_px(int(n_lines * 1.25 * self._note_px()) + (4 if n_lines else 0))

    def _note_px(self) -> int:
        """The canvas note's font size in pixels."""
        return max(8, round(NOTE_FONT_PX * self.text_scale * self.presentation_scale))

    def _note_width_px(self, line: str) -> int:
        """``line``'s width in pixels in the canvas note's font (one probe for every call: a
        new text mapper a line cost 240 microseconds of a redraw, the reused one 42)."""
        probe = self._note_probe
        probe.GetTextProperty().ShallowCopy(self.note.GetTextProperty())
        probe.GetTextProperty().SetFontSize(self._note_px())
        probe.SetInput(line)
        size = [0, 0]
        probe.GetSize(self.plotter.renderer, size)
        return int(size[0])

    # -- actors -----------------------------------------------------------------------------
    def _add_overlay_actor(self, name: str) -> None:
        poly = pv.PolyData()
        mapper = pv.DataSetMapper(poly)
        mapper.scalar_visibility = False
        if name == "contact_tris":
            # Pull the red triangles towards the camera (see the module-level offset note).
            mapper.SetRelativeCoincidentTopologyPolygonOffsetParameters(-2.0, -4.0)
            # Each triangle carries its contact kind's colour as a uint8 RGB cell array.
            mapper.scalar_visibility = True
            mapper.SetScalarModeToUseCellData()
            mapper.SetColorModeToDirectScalars()
        if name == "node_triangles":
            # The tint lies on the mesh: pulled forward like the contact triangles.
            mapper.SetRelativeCoincidentTopologyPolygonOffsetParameters(-2.0, -4.0)
        if name in ("contact_segments", "crosscheck"):
            # The segments lie on the red triangles: pull them further forward still. So do
            # the outlines of a pair only one engine reports: a missed contact's edges are
            # the edges of its red triangles, and were hidden by them.
            mapper.SetRelativeCoincidentTopologyLineOffsetParameters(-4.0, -16.0)
        actor = pv.Actor(mapper=mapper)
        color, width, opacity = OVERLAY_STYLE[name]
        actor.prop.color = color
        actor.prop.line_width = width
        actor.prop.opacity = opacity
        # Flat colours: the legend's colours are exactly what is drawn.
        actor.prop.lighting = False
        if name == "distance":
            # The two closest points as balls at the ends of the distance segment.
            actor.prop.point_size = 16
            actor.prop.render_points_as_spheres = True
        self.plotter.add_actor(actor, name=name, reset_camera=False, pickable=False, render=False)
        self.polys[name] = poly
        self.actors[name] = actor

    def _set_poly(self, name: str, new: pv.PolyData) -> None:
        poly = self.polys[name]
        poly.shallow_copy(new)
        poly.Modified()

    def set_bodies(self, bodies, title: str = "", opacity: float = 0.55,
                   is_full_resolution: bool = False) -> None:
        """Replace every mesh actor.

        Parameters
        ----------
        bodies : list of viewer.state.bodies.Body
        title : str
            Shown top-left on the canvas.
        opacity : float
            Mesh opacity (translucent so that boxes inside stay visible).
        is_full_resolution : bool
            Draw every triangle even above :data:`DISPLAY_MAX_TRIANGLES`.
        """
        for key in self._mesh_keys:
            self.plotter.remove_actor(f"body:{key}", render=False)
        self.mesh_polys, self.mesh_actors, self._mesh_keys, self._drawn_meshes = [], [], [], []
        self._display_ids, self.display_notes, self._rest_meshes = [], [], []
        self._picker.clear()
        for body in bodies:
            mesh = body.rest
            ids = None
            if not is_full_resolution and mesh.n_faces > DISPLAY_MAX_TRIANGLES:
                # The full mesh's PolyData is not made for a decimated body (it was, and
                # thrown away: part of the seconds a 278k-triangle scene blocked the window).
                poly, ids = display_copy(mesh)
                self.display_notes.append(
                    f"{body.name}: drawn with {poly.n_cells:,} of {mesh.n_faces:,} triangles"
                    " (display only; collision uses all)")
            else:
                poly = mesh_polydata(mesh.vertices, mesh.faces)
            self._display_ids.append(ids)
            actor = self.plotter.add_mesh(
                poly, color=body.color, name=f"body:{body.key}", opacity=opacity,
                reset_camera=False, render=False, smooth_shading=False, pickable=True,
            )
            actor.user_matrix = body.pose
            actor.visibility = body.is_visible
            # Only the near wall of a closed mesh: half the shading of both walls (bunny pair
            # at 1280x800: 86.9 -> 56.7 ms per render, see viewer.render.culling).
            actor.prop.SetBackfaceCulling(may_cull_back_faces(mesh))
            self._picker.add(actor)
            self.mesh_polys.append(poly)
            self.mesh_actors.append(actor)
            self._mesh_keys.append(body.key)
            self._drawn_meshes.append(mesh)
            self._rest_meshes.append(mesh)
        for name in MARK_NAMES:
            # Last in the renderer's list, so drawn after (over) the translucent meshes.
            self.plotter.renderer.RemoveActor(self.actors[name])
            self.plotter.renderer.AddActor(self.actors[name])
        for name in (*OVERLAY_NAMES, *STEP_OVERLAY_NAMES, *ANALYSIS_NAMES, *MARK_NAMES):
            self._set_poly(name, pv.PolyData())
        self.heat.show(build_heat(None, None, "off", None, []))
        set_step_label(self, None, "")
        self._set_poly("selection", pv.PolyData())
        self.title.SetText(2, title)

    def update_body(self, index: int, body, opacity: float | None = None) -> None:
        """Pose, visibility, colour and rest vertices of one mesh actor."""
        if index >= len(self.mesh_actors):
            return
        actor = self.mesh_actors[index]
        actor.user_matrix = body.pose
        actor.visibility = body.is_visible
        actor.prop.color = body.color
        if opacity is not None:
            actor.prop.opacity = opacity
        # Only a new rest shape (sculpt, scene slider) is drawn at once; otherwise the actor
        # keeps the last frame's deformed vertices (a pose change must not flash the rest shape).
        if body.rest is not self._rest_meshes[index]:
            self._rest_meshes[index] = body.rest
            self._set_vertices(index, body.rest)

    def set_body_poses(self, matrices) -> None:
        """Place the mesh actors at the given ``(4, 4) float64`` poses (a recorded frame's;
        :meth:`update_body` puts a body back at its live pose)."""
        for actor, matrix in zip(self.mesh_actors, matrices):
            actor.user_matrix = np.asarray(matrix, dtype=np.float64)

    def _set_vertices(self, index: int, mesh) -> None:
        if self._drawn_meshes[index] is mesh:
            return
        poly = self.mesh_polys[index]
        ids = self._display_ids[index]
        if ids is not None:
            poly.points[:] = mesh.vertices[ids]
        elif mesh.n_vertices == poly.n_points:
            poly.points[:] = mesh.vertices
        else:
            return
        poly.GetPoints().Modified()
        self._drawn_meshes[index] = mesh

    def set_mesh_opacity(self, opacity: float) -> None:
        for actor in self.mesh_actors:
            actor.prop.opacity = opacity

    def set_selection(self, body) -> None:
        """Outline the selected body's box (``body`` None clears it)."""
        if body is None:
            self._set_poly("selection", pv.PolyData())
            self._refresh_legend_rows()
            return
        lo, hi = body.rest.bounds
        outline = pv.Box(bounds=(lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])).outline()
        self._set_poly("selection", outline)
        self.actors["selection"].user_matrix = body.pose
        self._refresh_legend_rows()

    def set_brush(self, center: np.ndarray | None, radius: float = 0.0) -> None:
        """Draw the brush footprint: a circle facing the camera (``center`` None hides it)."""
        if center is None:
            self._set_poly("brush", pv.PolyData())
            self._refresh_legend_rows()
            return
        cam = self.plotter.camera
        normal = np.asarray(cam.direction, dtype=np.float64)
        up = np.asarray(cam.up, dtype=np.float64)
        u = np.cross(normal, up)
        u /= np.linalg.norm(u)
        v = np.cross(u, normal)
        self._set_poly("brush", ring_polydata(np.asarray(center, np.float64), u, v, radius))
        self._refresh_legend_rows()

    # -- frames -----------------------------------------------------------------------------
    def update_frame(self, frame, display, level, inspect=None, extra_note: str = "",
                     hidden=frozenset(), step: StepView | None = None, heat=None,
                     heat_note: str = "", ghost: GhostView | None = None,
                     crosscheck=None, side=None, contact_ids=None,
                     tree_diff: TreeDiffView | None = None,
                     prepared: PreparedOverlays | None = None,
                     budget: LineBudget | None = None) -> float:
        """Copy a frame's deformed meshes and overlays into the actors.

        Parameters
        ----------
        frame : core.pipeline.Frame or None
        display : viewer.state.display.Display
        level : int or None
        inspect : core.lab.inspect.NodeInspection or None
        extra_note : str
            Added to the canvas note (e.g. the step-mode sentence).
        hidden : set of int
            Tested bodies the user hid (see :func:`viewer.render.overlays.build_overlays`).
        step : StepView or None
            The traversal stepper's step: its overlays are drawn and the level's volumes,
            pairs and selection are not (None: the normal view).
        heat : core.lab.heat.FrameHeat or None
            The frame's work per triangle and node, drawn as ``display.heat_map`` says.
        heat_note : str
            Why there is no heat map although one is asked for (added to the canvas note).
        ghost : GhostView or None
            A fresh tree of the frame's vertices, drawn when ``display.show_ghost``.
        crosscheck : core.lab.crosscheck.CrossCheck or None
            Another engine's verdict on the frame: the pairs the engines disagree on.
        side : viewer.state.side_results.ShownSide or None
            The distance and inside test computed beside the frames (None: the frame's own).
        contact_ids : (c,) int64 or None
            Only these rows of the frame's contacts are drawn (step mode's contacts reached
            by the level shown); None: all. The stepper's ``step.contact_ids`` win.
        tree_diff : viewer.render.tree_diff.TreeDiffView or None
            One tree of a tree diff: its volumes at the level, its most-changed nodes bold.
        prepared : viewer.render.prepared_overlays.PreparedOverlays or None
            Overlays the frame's lane built: drawn instead of building them here when they
            were built for this frame and these choices (counted in
            :attr:`n_prepared_drawn`).
        budget : viewer.render.drawing_budget.LineBudget or None
            The render time the level's boxes must fit (:meth:`line_budget`; None: only the
            box cap, as for an export). The ghost and the node heat map keep as many boxes
            per tree as the trees' layers kept.

        Returns
        -------
        float
            Seconds spent (the "overlay update" phase).
        """
        start = time.perf_counter()
        if frame is not None:
            for i, mesh in enumerate(frame.meshes[: len(self.mesh_polys)]):
                self._set_vertices(i, mesh)
        heat_mode = getattr(display, "heat_map", "off")
        if step is not None:
            display = replace(display, **LEVEL_OVERLAYS_OFF)
            inspect = None
            heat_mode, ghost = "off", None
        elif heat_mode in ("visits", "sah") and heat is not None:
            # The coloured boxes of the node heat map are the trees' boxes at this depth.
            display = replace(display, show_tree_a=False, show_tree_b=False)
        if not getattr(display, "show_ghost", False) or frame is None:
            ghost = None
        contact_rows = contact_ids if step is None else step.contact_ids
        overlays = usable_overlays(prepared, frame, display, level, inspect, hidden,
                                   contact_rows, side)
        if overlays is None:
            overlays = build_overlays(frame, display, level, inspect, hidden, contact_rows,
                                      side, budget)
        else:
            self.n_prepared_drawn += 1
        step_overlays = update_step(self, frame, step)
        poses = [] if frame is None else [
            p.as_matrix() if hasattr(p, "as_matrix") else np.asarray(p, np.float64)
            for p in frame.poses]
        hidden_ab = tested_hidden(hidden)
        box_cap, cap_words, limit_words = (int(display.box_cap), "cap",
                                           "the box cap; pick a level to see the rest")
        plan = overlays.plan
        if plan is not None and plan.tree_kept is not None and plan.tree_kept < box_cap:
            box_cap = plan.tree_kept
            cap_words = f"drawing budget {1e3 * plan.budget_s:.0f} ms"
            limit_words = cap_words
        picture = self.heat.picture(frame, heat, heat_mode, level, poses, hidden_ab,
                                    getattr(display, "heat_log", False), box_cap, cap_words)
        self.heat.show(picture)
        # An older frame's ghost (the newest build finished; while a deformer plays on a big
        # mesh every build ends after the frame moved on) stands where its frame's meshes
        # stood, and says which frame it is.
        ghost_notes = ghost_words(ghost, frame, ghost_box_counts(ghost, level, hidden_ab,
                                                                 box_cap), limit_words)
        self._set_poly("ghost", build_ghost(ghost, level, None if ghost is None else [
            p.as_matrix() if hasattr(p, "as_matrix") else np.asarray(p, np.float64)
            for p in ghost.frame.poses], hidden_ab, box_cap))
        self._set_poly("crosscheck", build_crosscheck(frame, crosscheck, poses))
        if step is not None or frame is None:
            tree_diff = None
        self._set_poly("diff_tree", build_diff_tree(tree_diff, level, poses, hidden_ab,
                                                    box_cap))
        self._set_poly("diff_nodes", build_diff_nodes(tree_diff, poses, hidden_ab))
        extra_rows = [(row, GHOST_COLOR) for row in ghost_notes]
        if picture.title:
            # Node heat draws each tree's own boxes, whatever kind the traversal tests.
            what = "triangles" if heat_mode == "work" else "tree boxes"
            bars = "a colour bar each" if len(picture.scales) > 1 else "colour bar"
            # What the colours count is each bar's title: said again here, the row made the
            # legend as wide as a 640x400 export and it covered the scene's title.
            # The frame the heat was counted on: one counted beside the frames may be older
            # than the frame shown.
            counted_on = heat.frame_index if heat is not None else -1
            heat_frame = counted_on if counted_on >= 0 else frame.index
            extra_rows.append((f"heat map: {what}, frame {heat_frame} ({bars})", HEAT_SWATCH))
        if self.polys["crosscheck"].n_cells:
            extra_rows.append(("triangles of pairs only one engine reports", CROSSCHECK_COLOR))
        if self.polys["diff_tree"].n_cells:
            n_changed = len(tree_diff.nodes)
            bold = f", its {n_changed} most-changed nodes (bold)" if n_changed else ""
            extra_rows.append((f"{tree_diff.words} (dashed){bold}", DIFF_COLOR))
        if step is not None and frame is not None:
            # Only the rows of what this step draws (a leaf pair has no axis, no gap).
            drawn = {name for name in STEP_OVERLAY_NAMES if self.polys[name].n_cells}
            self.set_step_legend(frame_words(frame), frozenset(drawn)
                                 | frame_legend_rows(overlays))
        elif frame is not None:
            self._frame_drawn = frame_legend_rows(overlays)
            self.set_legend_kind(frame_words(frame), has_partition=overlays.polys[
                "partition_cells"].n_cells > 0 or overlays.polys["partition_planes"].n_cells > 0,
                has_distance=overlays.polys["distance"].n_cells > 0,
                is_one_mesh=len(frame.trees) == 1, extra_rows=tuple(extra_rows),
                sources=pinned_tree_words(frame))
        for name in OVERLAY_NAMES:
            self._set_poly(name, overlays.polys[name])
        self.last_overlays = overlays
        lines = []
        if extra_note:
            # A corner annotation shrinks its font to fit the longest line: wrap instead.
            lines.extend(textwrap.wrap(extra_note, NOTE_WIDTH_CHARS))
        if heat_mode != "off" and heat_note:
            lines.append(f"heat map {heat_note}")
        lines.extend(picture.notes)
        lines.extend(overlays.notes)
        lines.extend(step_overlays.notes)
        lines.extend(self.display_notes)
        self._set_note(lines)
        return time.perf_counter() - start

    def line_budget(self, display) -> LineBudget:
        """The drawing budget of the view as it is now: its camera and size, the overlays'
        line widths, and the layers that draw the trees' boxes once more (the ghost, the node
        heat map) when ``display`` asks for them."""
        copies = []
        if getattr(display, "show_ghost", False):
            copies.append((float(self.actors["ghost"].prop.line_width), DASHES_PER_SEGMENT))
        if getattr(display, "heat_map", "off") in ("visits", "sah"):
            copies.append((float(self.heat.actors["heat_nodes"].prop.line_width), 0))
        widths = tuple((name, float(self.actors[name].prop.line_width))
                       for name in ("tree_a", "tree_b", "parents", "overlap", "culled"))
        return self.render_cost.budget(ViewScale.from_renderer(self.plotter.renderer), widths,
                                       tuple(copies), self.render_budget_s)

    def observe_render(self, render_s: float) -> None:
        """Refit the render-time estimate with the time of the render that drew the last
        :meth:`update_frame` (nothing is fitted when it was built without a budget)."""
        self.render_cost.observe(self.last_overlays.plan, render_s)

    def _set_note(self, lines: list[str]) -> None:
        """The lower-left note's lines, wrapped left of the heat map's colour bars when they
        show (they stand in the lower right), and the caption bar above them."""
        if any(bar.GetVisibility() for bar in self.heat.bars):
            lines = lines_left_of_bars(lines, self.plotter.renderer.GetSize()[0], self._note_px(),
                                       self._note_width_px)
        self.note.SetText(0, "\n".join(lines))
        self._lift_caption()

    def update_marks(self, frame, selected=None, violation_nodes=None, file_ids=None,
                     hidden=frozenset()) -> Marks:
        """Copy the selected node and the flagged nodes of ``frame`` into their actors
        (:func:`viewer.render.marks.build_marks`); returns what was drawn."""
        marks = build_marks(frame, selected, violation_nodes, file_ids, hidden)
        for name in MARK_NAMES:
            self._set_poly(name, marks.polys[name])
        if marks.notes:  # after the note update_frame wrote: what the two colours mean
            text = self.note.GetText(0)
            self._set_note([*(text.splitlines() if text else []), *marks.notes])
        self.last_marks = marks
        self._refresh_legend_rows()  # the selected node's row comes and goes with it
        return marks

    def set_step_legend(self, words: KindWords, drawn: frozenset | None = None) -> None:
        """The legend of the stepper's colours, naming the kind's volumes; only the rows of
        what is ``drawn`` (:func:`viewer.render.style.step_legend_entries`)."""
        key = ("stepper", words, drawn)
        if key == self._legend_key:
            return
        self._legend_key = key
        self.legend_kind = words
        self.canvas_legend.set_entries(step_legend_entries(words, drawn))
        self.legend_texts = self.canvas_legend.texts()

    def set_legend_kind(self, words: KindWords, has_partition: bool = False,
                        has_distance: bool = False, is_one_mesh: bool = False,
                        extra_rows=(), sources=()) -> None:
        """Name the volumes in the kind's ``words`` in the legend, with the partition and
        closest-points rows when those are drawn, for two meshes or one mesh tested against
        itself, a tree file's label in its mesh's row (``sources``), and ``extra_rows`` at
        the end (entries rewritten only when they change)."""
        self._legend_args = (words, has_partition, has_distance, is_one_mesh,
                             tuple(extra_rows), tuple(sources))
        drawn = drawn_legend_rows(self)
        key = (*self._legend_args, drawn)
        if key == self._legend_key:
            return
        self._legend_key = key
        self.legend_kind = words
        self.canvas_legend.set_entries(
            legend_entries(words, has_partition, has_distance, is_one_mesh, extra_rows, drawn,
                           sources))
        self.legend_texts = self.canvas_legend.texts()

    def _refresh_legend_rows(self) -> None:
        """The selection or the brush came or went: the legend's rows follow (outside the
        stepper, whose legend is its own)."""
        if self._legend_args is not None and (self._legend_key or ("",))[0] != "stepper":
            self.set_legend_kind(*self._legend_args)

    def _legend_avoid_boxes(self) -> list:
        """The screen boxes the legend keeps clear (:func:`legend_scene.legend_avoid_boxes`)."""
        return legend_avoid_boxes(self)

    def step_pair_display_point(self):
        """The stepper's pair's centre on screen (:func:`step_drawing.step_pair_display_point`)."""
        return step_pair_display_point(self)

    def box_on_screen(self, lo: np.ndarray, hi: np.ndarray) -> tuple[float, float, float, float]:
        """``(x0, y0, x1, y1)`` display pixels around the world box ``lo``-``hi``
        (:func:`viewer.render.picking.box_on_screen`)."""
        return box_on_screen(self.plotter.renderer, lo, hi)

    def cell_count(self, name: str) -> int:
        """Cells currently drawn by overlay ``name`` (heat map actors included)."""
        if name in self.heat.polys:
            return int(self.heat.polys[name].n_cells)
        return int(self.polys[name].n_cells)

    # -- picking and coordinates (viewer.render.picking) -----------------------------------
    def pick(self, x: float, y: float):
        """The mesh triangle under display point ``x, y`` (VTK pixels, origin bottom-left):
        ``(body index, triangle id, (3,) float64 world point)`` or None."""
        return self._picker.pick(self.plotter.renderer, x, y, self.mesh_actors,
                                 self._display_ids, self._drawn_meshes)

    def world_to_display(self, point: np.ndarray) -> np.ndarray:
        """``(3,) float64`` display x, y and depth of a world point."""
        return world_to_display(self.plotter.renderer, point)

    def display_to_world(self, x: float, y: float, depth: float) -> np.ndarray:
        """``(3,) float64`` world point at display ``x, y`` and display depth ``depth``."""
        return display_to_world(self.plotter.renderer, x, y, depth)

    def camera_axes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Camera right, up and viewing direction, unit ``(3,) float64`` each."""
        return camera_axes(self.plotter.camera)
