"""Heat maps: each mesh's triangles, or each tree's boxes, coloured by the work of the query.

Two named actors and one colour bar, updated in place like every overlay:

- ``heat_tris``: every triangle of A and of B (world coordinates), filled, coloured by its
  volume plus triangle tests (cell array ``"heat"``);
- ``heat_nodes``: the boxes of both trees at the shown tree depth (12 line cells a box, as the
  tree overlays), coloured by their visits or their share of the SAH cost;
- the colour bar (a ``vtkScalarBarActor``), titled with the unit of what is coloured.

The colormap is viridis (van der Walt and Smith 2015): perceptually uniform, readable in grey
and under the common colour-vision deficiencies, so "brighter = more work" holds for every
student. Colours are flat (no lighting) so that a pixel's colour is the colour bar's colour
for its value. The heat values come from the controller (``core.collide.heat.FrameHeat``,
duck-typed: ``values(body, what)``); this module only draws them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyvista as pv
from vtkmodules.vtkRenderingAnnotation import vtkScalarBarActor

from viewer.render.geometry import boxes_groups_polydata, triangles_polydata

HEAT_CMAP = "viridis"

HEAT_MODES = ("off", "work", "visits", "sah")
"""Values of ``Display.heat_map``."""

HEAT_TITLES = {
    "work": "volume + triangle tests per triangle",
    "visits": "volume tests per node",
    "sah": "% of SAH cost",
}
"""The colour bar's title: what one colour means, with its unit."""

HEAT_ACTORS = ("heat_tris", "heat_nodes")

LOG_MIN_DECADES = 2.0
"""A log colour scale is offered (and used when asked) once the positive values span this
many powers of ten; below that a linear scale shows the differences better."""

BAR_FONT_PX = 14
"""Colour bar title and label size at 96 DPI (times the screen scale), like the legend's."""


def heat_range(values: np.ndarray, is_log: bool, is_count: bool = True) -> tuple[float, float]:
    """``(low, high)`` of the colour scale for ``values``.

    Linear: 0 to the largest value (for counts at least 1, so that all-zero work is the low
    colour; a share of the SAH cost is often far below 1 %, and spans 0 to its largest).
    Log: the smallest positive value to the largest; zeros are below the range and take the
    low colour.
    """
    values = np.asarray(values, dtype=np.float64)
    high = float(values.max()) if values.size else 1.0
    if not is_log:
        return 0.0, max(high, 1.0) if is_count or not high > 0 else high
    positive = values[values > 0]
    if positive.size == 0:
        return 1.0, 10.0
    low = float(positive.min())
    return low, max(high, low * 10.0)


def spans_decades(values: np.ndarray) -> float:
    """Powers of ten between the smallest and largest positive value (0 if none)."""
    positive = np.asarray(values, dtype=np.float64)
    positive = positive[positive > 0]
    if positive.size == 0:
        return 0.0
    return float(np.log10(positive.max() / positive.min()))


@dataclass
class HeatPicture:
    """What the heat layer draws for one frame.

    Attributes
    ----------
    polys : dict[str, pv.PolyData]
        One per name of :data:`HEAT_ACTORS`.
    title : str
        Colour bar title ("" when no heat map is drawn).
    scalar_range : (float, float)
    is_log : bool
    notes : list of str
        Lines for the canvas note.
    """

    polys: dict = field(default_factory=dict)
    title: str = ""
    scalar_range: tuple = (0.0, 1.0)
    is_log: bool = False
    notes: list = field(default_factory=list)


def _world(points: np.ndarray, pose: np.ndarray) -> np.ndarray:
    return points @ pose[:3, :3].T + pose[:3, 3]


def build_heat(frame, heat, mode: str, level: int | None, poses, hidden=frozenset(),
               is_log: bool = False, cap: int = 20_000) -> HeatPicture:
    """Heat geometry of ``frame``.

    Parameters
    ----------
    frame : core.pipeline.Frame
    heat : FrameHeat or None
        ``heat.values(body, "work" | "visits" | "sah")``: ``(m,)`` per triangle or ``(k,)``
        per node of each body.
    mode : str
        One of :data:`HEAT_MODES`.
    level : int or None
        Traversal level: node heat draws the boxes at this tree depth (clamped; None: all).
    poses : list of (4, 4) float64
    hidden : set of int
        Bodies not drawn.
    is_log : bool
    cap : int
        Most boxes drawn per tree.
    """
    out = HeatPicture(polys={name: pv.PolyData() for name in HEAT_ACTORS})
    if mode == "off" or heat is None or frame is None or len(frame.trees) < 2:
        return out
    shown = []
    if mode == "work":
        corners, values = [], []
        for body in (0, 1):
            if body in hidden:
                continue
            mesh = frame.meshes[body]
            corners.append(_world(mesh.vertices[mesh.faces], poses[body]))
            values.append(heat.values(body, "work"))
        if corners:
            # Only triangles that did work are painted; the others keep their body's colour.
            # Painted in the colormap's darkest colour, the idle ones (9,640 of 10,112 on the
            # cloth, 135k of 139k on bunny-bunny) hid both bodies under one dark purple.
            work = np.concatenate(values).astype(np.float64)
            busy = work > 0
            n_idle = int(np.count_nonzero(~busy))
            out.notes.append(f"heat map: {n_idle:,} of {len(work):,} triangles took part in no "
                             "test (left in their body's colour)")
            if not busy.any():
                return out
            poly = triangles_polydata(np.concatenate(corners)[busy])
            shown = work[busy]
            poly.cell_data["heat"] = shown
            poly.cell_data.active_scalars_name = "heat"
            out.polys["heat_tris"] = poly
    else:
        groups, values = [], []
        for body in (0, 1):
            if body in hidden:
                continue
            tree = frame.trees[body]
            ids = (np.asarray(tree.level_nodes) if level is None else
                   np.asarray(tree.nodes_at_depth(min(level, tree.max_depth))))
            if ids.shape[0] > cap:
                out.notes.append(f"heat boxes of {'AB'[body]}: drawing {cap} of "
                                 f"{ids.shape[0]} (cap)")
                ids = ids[:cap]
            groups.append((tree.bmin[ids], tree.bmax[ids], poses[body]))
            values.append(np.asarray(heat.values(body, mode), dtype=np.float64)[ids])
        if groups:
            poly = boxes_groups_polydata(groups)
            shown = np.concatenate(values)
            poly.cell_data["heat"] = np.repeat(shown, 12)  # 12 edges a box, in box order
            poly.cell_data.active_scalars_name = "heat"
            out.polys["heat_nodes"] = poly
    if len(shown) == 0:
        return out
    out.title = HEAT_TITLES[mode]
    out.is_log = bool(is_log)
    out.scalar_range = heat_range(shown, out.is_log, is_count=mode != "sah")
    n_idle = int(np.count_nonzero(shown == 0))
    if mode != "work":
        depth = "every depth" if level is None else f"tree depth {level} (or the deepest)"
        out.notes.append(f"heat map: boxes at {depth} coloured by {HEAT_TITLES[mode]}")
        if mode == "visits":
            out.notes.append(f"  {n_idle:,} of {len(shown):,} were never tested (darkest)")
    return out


def bar_labels(picture: HeatPicture) -> tuple[int, str]:
    """Number of colour-bar labels and their printf format: whole numbers for counts, with
    as many labels as fall on whole numbers (a label "4.75 tests" means nothing)."""
    if picture.is_log:
        return 5, "%.3g"
    if picture.title != HEAT_TITLES["sah"]:
        high = int(round(picture.scalar_range[1]))
        for n in (5, 4, 6, 3, 7):
            if high % (n - 1) == 0:
                return n, "%.0f"
        return 2, "%.0f"
    return 5, "%.3g"


class HeatLayer:
    """The heat map's actors and colour bar on one plotter.

    Parameters
    ----------
    plotter : pyvista.BasePlotter
    text_scale : float
        Screen scale (logical DPI / 96).
    """

    def __init__(self, plotter, text_scale: float = 1.0):
        self.plotter = plotter
        self.lut = pv.LookupTable(cmap=HEAT_CMAP)
        self.polys: dict[str, pv.PolyData] = {}
        self.actors: dict[str, pv.Actor] = {}
        for name in HEAT_ACTORS:
            poly = pv.PolyData()
            mapper = pv.DataSetMapper(poly)
            mapper.scalar_visibility = True
            mapper.SetScalarModeToUseCellData()
            mapper.lookup_table = self.lut
            mapper.SetUseLookupTableScalarRange(True)
            if name == "heat_tris":
                # In front of the meshes they cover, behind the contact triangles (which are
                # pulled forward by -2, -4): the contacts stay visible on the heat map.
                mapper.SetRelativeCoincidentTopologyPolygonOffsetParameters(-1.0, -2.0)
            actor = pv.Actor(mapper=mapper)
            actor.prop.lighting = False  # flat: the pixel is the colour bar's colour
            actor.prop.line_width = 3.0
            plotter.add_actor(actor, name=name, reset_camera=False, pickable=False,
                              render=False)  # fmt: skip
            self.polys[name], self.actors[name] = poly, actor
        self.bar = vtkScalarBarActor()
        self.bar.SetLookupTable(self.lut)
        self.bar.SetOrientationToHorizontal()
        self.bar.SetNumberOfLabels(5)
        # Labels under the bar, the title alone above it: on top of each other they collided.
        self.bar.SetTextPositionToPrecedeScalarBar()
        self.bar.SetPosition(0.52, 0.02)
        self.bar.SetPosition2(0.45, 0.11)
        self.bar.UnconstrainedFontSizeOn()
        size = max(8, round(BAR_FONT_PX * text_scale))
        for prop in (self.bar.GetTitleTextProperty(), self.bar.GetLabelTextProperty()):
            prop.SetColor(0.0, 0.0, 0.0)
            prop.SetFontSize(size)
            prop.BoldOff()
            prop.ItalicOff()
            prop.ShadowOff()
        self.bar.VisibilityOff()
        plotter.renderer.AddActor(self.bar)
        self.last = HeatPicture()
        self._made_for: tuple = ()

    def picture(self, frame, heat, mode: str, level, poses, hidden=frozenset(),
                is_log: bool = False, cap: int = 20_000) -> HeatPicture:
        """:func:`build_heat`, or the last picture when nothing it depends on changed.

        Measured on the bunny pair (69k triangles each): the triangle picture takes 143 ms
        to build, and the window redraws the same frame on every level, selection or dock
        change; the triangle heat does not depend on the level.
        """
        key = (frame, heat, mode, None if mode == "work" else level, frozenset(hidden),
               bool(is_log), int(cap), tuple(np.asarray(p).tobytes() for p in poses))
        if (len(key) == len(self._made_for)
                and all(a is b or a == b for a, b in zip(key, self._made_for))):
            return self.last
        self._made_for = key
        return build_heat(frame, heat, mode, level, poses, hidden, is_log, cap)

    @property
    def title(self) -> str:
        """The colour bar's title as drawn ("" when it is hidden)."""
        return (self.bar.GetTitle() or "") if self.bar.GetVisibility() else ""

    def show(self, picture: HeatPicture) -> None:
        for name in HEAT_ACTORS:
            poly = self.polys[name]
            poly.shallow_copy(picture.polys.get(name, pv.PolyData()))
            poly.Modified()
        self.last = picture
        if not picture.title:
            self.bar.VisibilityOff()
            return
        self.lut.log_scale = picture.is_log
        self.lut.scalar_range = picture.scalar_range
        scale = " (log scale)" if picture.is_log else ""
        self.bar.SetTitle(picture.title + scale)
        n_labels, fmt = bar_labels(picture)
        self.bar.SetNumberOfLabels(n_labels)
        self.bar.SetLabelFormat(fmt)
        self.bar.VisibilityOn()

    def color_of(self, value: float) -> tuple[int, int, int]:
        """``(r, g, b)`` 0-255 the colour bar gives ``value`` (what its pixels should be)."""
        rgb = [0.0, 0.0, 0.0]
        self.lut.GetColor(float(value), rgb)
        return tuple(int(round(255 * c)) for c in rgb)
