"""Heat maps: each mesh's triangles, or each tree's boxes, coloured by the work of the query.

Two named actors and one colour bar, updated in place like every overlay:

- ``heat_tris``: every triangle of A and of B (world coordinates), filled, coloured by its
  volume plus triangle tests (cell array ``"heat"``);
- ``heat_nodes``: the boxes of both trees at the shown tree depth (12 line cells a box, as the
  tree overlays), coloured by their visits or their share of the SAH cost;
- one colour bar per body (``vtkScalarBarActor`` s), titled with the body and the unit of
  what is coloured.

Each body has its own colour scale: the work of a query is lopsided (13,623 tests on one
triangle of A, at most 10 on any of B's in the bunny-sphere scene), and one scale for both
left B all in the darkest colour. The cells carry their raw value (``"heat"``) and that value
placed on its body's scale (``"heat_scaled"``, 0 to 1, linear or logarithmic), which one
lookup table colours; each body's bar shows its own range with the same colours.

The colormap is viridis (van der Walt and Smith 2015): perceptually uniform, readable in grey
and under the common colour-vision deficiencies, so "brighter = more work" holds for every
student. Colours are flat (no lighting) so that a pixel's colour is the colour bar's colour
for its value. The heat values come from the controller (``core.lab.heat.FrameHeat``,
duck-typed: ``values(body, what)``); this module only draws them.
"""

from __future__ import annotations

import textwrap
import weakref
from dataclasses import dataclass, field

import numpy as np
import pyvista as pv
from vtkmodules.vtkCommonCore import vtkDoubleArray
from vtkmodules.vtkRenderingAnnotation import vtkScalarBarActor
from vtkmodules.vtkRenderingCore import vtkTextActor

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

MAX_LOG_LABELS = 6
"""Most labels on a log-scale colour bar."""

BAR_PLACES = ((0.52, 0.175, 0.45, 0.085), (0.52, 0.02, 0.45, 0.085))
"""Where the colour bars and their labels stand before the first render (normalized
viewport: x, y, width, height), each title just above: the first body's above the second's,
in the lower right corner. Every render lays them out again in pixels from the font
(:func:`bar_layout`)."""

BAR_LINE_EM = 1.35
"""Height of one line of bar text (a title, the tick labels), in ems of the bar font."""

BAR_THICKNESS_EM = 1.0
"""Thickness of the colour bar itself, in ems."""

BAR_GAP_EM = 0.6
"""Free space between one bar's tick labels and the next bar's title, in ems."""

BAR_MARGIN = 0.02
"""Gap under the lowest bar, as a fraction of the view's height."""

BAR_FONT_PX = 14
"""Colour bar title and label size at 96 DPI (times the screen scale), like the legend's."""


def bar_layout(view: tuple[int, int], font_px: int, n_bars: int = 2) -> list[dict]:
    """Where each colour bar, its tick labels and its title stand, in display pixels (y up),
    top bar first: the bar's box holds the bar and, under it, one line of tick labels; the
    title stands on the box. Sized from the font: with the box a fixed share of the view
    (8.5 %), the labels of a larger font (lecture mode, a small export) ran out of their
    box into the title below.

    Returns
    -------
    list of dict
        ``{"box": (x, y, width, height), "title_y": y, "bar_ratio": float}`` per bar.
    """
    line = BAR_LINE_EM * font_px
    thickness = BAR_THICKNESS_EM * font_px
    box_h = thickness + line
    gap = BAR_GAP_EM * font_px
    x = BAR_PLACES[0][0] * view[0]
    width = BAR_PLACES[0][2] * view[0]
    y = BAR_MARGIN * view[1]
    out = []
    for _ in range(n_bars):  # bottom bar first
        out.append({"box": (x, y, width, box_h), "title_y": y + box_h + 0.15 * font_px,
                    "bar_ratio": thickness / box_h})
        y += box_h + line + gap
    return out[::-1]


NOTE_EM_PER_CHAR = 0.55
"""Average advance of a note character in ems (VTK's Arial: digits 0.556, lower case about
0.5), for wrapping the canvas note left of the colour bars."""


def lines_left_of_bars(lines: list[str], view_width: int, font_px: int,
                       measure=None) -> list[str]:
    """``lines`` wrapped so that none reaches the colour bars in the lower right.

    The canvas note stands in the lower left; at 1280x800 its heat line ("heat map: 135,183 of
    138,902 triangles took part in no test ...", 88 characters) ran under B's bar. A line
    that ``measure`` finds narrow enough stays whole; the others are wrapped at
    :data:`NOTE_EM_PER_CHAR` (an average: with it alone, lines that fitted were broken before
    their last word, "... 23 / ms)"). A line keeps its leading spaces on each piece.

    Parameters
    ----------
    lines : list of str
    view_width : int
        The view's width in pixels.
    font_px : int
        The note's font size in pixels.
    measure : callable, optional
        ``measure(line) -> int``: the line's width in pixels in the note's font.

    Returns
    -------
    list of str
    """
    room_px = BAR_PLACES[0][0] * view_width - font_px  # the note's 4 px margin and a gap
    width = max(24, int(room_px / (NOTE_EM_PER_CHAR * max(font_px, 1))))
    out = []
    for line in lines:
        if len(line) <= width or (measure is not None and measure(line) <= room_px):
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip(" "))]
        out.extend(textwrap.wrap(line, width, subsequent_indent=indent) or [line])
    return out


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


def scaled(values: np.ndarray, scale: tuple[float, float], is_log: bool) -> np.ndarray:
    """``(n,) float64`` place of each value on ``scale`` (0 = low end, 1 = high end), as a
    lookup table with that range (logarithmic when ``is_log``) places it; values below the
    range (zeros on a log scale) take 0."""
    values = np.asarray(values, dtype=np.float64)
    low, high = float(scale[0]), float(scale[1])
    if is_log:
        values, low, high = np.log10(np.maximum(values, low)), np.log10(low), np.log10(high)
    if not high > low:
        return np.zeros(values.shape)
    return np.clip((values - low) / (high - low), 0.0, 1.0)


def bar_ticks(scale: tuple[float, float], is_log: bool,
              is_count: bool = True) -> tuple[int, str, np.ndarray | None]:
    """``(n_labels, printf format, label values or None)`` of a colour bar over ``scale``.

    Linear counts: whole numbers, with as many labels as fall on whole numbers (a label "4.75
    tests" means nothing). Log: the powers of ten inside the range (1, 10, 100, 1000; the
    evenly spaced labels read 10.5, 110, 1.15e+03), or its two ends when fewer than two
    powers fall inside; at most :data:`MAX_LOG_LABELS`, every other power beyond that.
    """
    low, high = float(scale[0]), float(scale[1])
    if is_log and low > 0:
        # The small slack keeps a range ending on a power of ten (log10(1000) is
        # 2.9999999999999996) from losing that label.
        first = int(np.ceil(np.log10(low) - 1e-9))
        last = int(np.floor(np.log10(high) + 1e-9))
        powers = [10.0 ** k for k in range(first, last + 1)]
        while len(powers) > MAX_LOG_LABELS:
            powers = powers[::2]
        if len(powers) >= 2:
            return len(powers), "%.0f" if powers[0] >= 1 else "%g", np.asarray(powers)
        return 2, "%.3g", np.asarray([low, high])
    if is_count:
        top = int(round(high))
        for n in (5, 4, 6, 3, 7):
            if top % (n - 1) == 0:
                return n, "%.0f", None
        return 2, "%.0f", None
    return 5, "%.3g", None


def _plain_black_text(prop, text_scale: float) -> None:
    """A colour bar's text style: black, plain, :data:`BAR_FONT_PX` scaled (8 px at least)."""
    prop.SetColor(0.0, 0.0, 0.0)
    prop.SetFontSize(max(8, round(BAR_FONT_PX * text_scale)))
    prop.BoldOff()
    prop.ItalicOff()
    prop.ShadowOff()


@dataclass
class HeatPicture:
    """What the heat layer draws for one frame.

    Attributes
    ----------
    polys : dict[str, pv.PolyData]
        One per name of :data:`HEAT_ACTORS`; cell arrays ``"heat"`` (the value) and
        ``"heat_scaled"`` (its place on its body's scale, 0 to 1: what is coloured).
    title : str
        What one colour means, with its unit ("" when no heat map is drawn).
    scales : dict[int, (float, float)]
        Per body drawn (0 = A, 1 = B), the low and high end of its colour scale.
    is_log : bool
    is_count : bool
        The values are counts (whole numbers), not shares.
    notes : list of str
        Lines for the canvas note.
    """

    polys: dict = field(default_factory=dict)
    title: str = ""
    scales: dict = field(default_factory=dict)
    is_log: bool = False
    is_count: bool = True
    notes: list = field(default_factory=list)


def _world(points: np.ndarray, pose: np.ndarray) -> np.ndarray:
    return points @ pose[:3, :3].T + pose[:3, 3]


def build_heat(frame, heat, mode: str, level: int | None, poses, hidden=frozenset(),
               is_log: bool = False, cap: int = 20_000, cap_words: str = "cap") -> HeatPicture:
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
    cap_words : str
        What set ``cap``, said in the note ("cap", or the drawing budget that cut it).
    """
    out = HeatPicture(polys={name: pv.PolyData() for name in HEAT_ACTORS})
    if mode == "off" or heat is None or frame is None or len(frame.trees) < 2:
        return out
    out.is_log, out.is_count = bool(is_log), mode != "sah"
    shown, places = [], []

    def add_body(body: int, values: np.ndarray) -> None:
        scale = heat_range(values, out.is_log, out.is_count)
        out.scales[body] = scale
        shown.append(values)
        places.append(scaled(values, scale, out.is_log))

    if mode == "work":
        corners, n_idle, n_all = [], 0, 0
        for body in (0, 1):
            if body in hidden:
                continue
            mesh = frame.meshes[body]
            work = np.asarray(heat.values(body, "work"), dtype=np.float64)
            # Only triangles that did work are painted; the others keep their body's colour.
            # Painted in the colormap's darkest colour, the idle ones (9,640 of 10,112 on the
            # cloth, 135k of 139k on bunny-bunny) hid both bodies under one dark purple.
            busy = work > 0
            n_idle += int(np.count_nonzero(~busy))
            n_all += int(work.shape[0])
            if busy.any():
                corners.append(_world(mesh.vertices[mesh.faces[busy]], poses[body]))
                add_body(body, work[busy])
        if n_all:
            out.notes.append(f"heat map: {n_idle:,} of {n_all:,} triangles took part in no "
                             "test (left in their body's colour)")
        if corners:
            poly = triangles_polydata(np.concatenate(corners))
            poly.cell_data["heat"] = np.concatenate(shown)
            poly.cell_data["heat_scaled"] = np.concatenate(places)
            poly.cell_data.active_scalars_name = "heat_scaled"
            out.polys["heat_tris"] = poly
    else:
        groups = []
        for body in (0, 1):
            if body in hidden:
                continue
            tree = frame.trees[body]
            ids = (np.asarray(tree.level_nodes) if level is None else
                   np.asarray(tree.nodes_at_depth(min(level, tree.max_depth))))
            if ids.shape[0] > cap:
                out.notes.append(f"heat boxes of {'AB'[body]}: drawing {cap} of "
                                 f"{ids.shape[0]} ({cap_words})")
                ids = ids[:cap]
            if ids.shape[0]:
                groups.append((tree.bmin[ids], tree.bmax[ids], poses[body]))
                add_body(body, np.asarray(heat.values(body, mode), dtype=np.float64)[ids])
        if groups:
            poly = boxes_groups_polydata(groups)
            # 12 edges a box, in box order.
            poly.cell_data["heat"] = np.repeat(np.concatenate(shown), 12)
            poly.cell_data["heat_scaled"] = np.repeat(np.concatenate(places), 12)
            poly.cell_data.active_scalars_name = "heat_scaled"
            out.polys["heat_nodes"] = poly
    if not shown:
        return out
    out.title = HEAT_TITLES[mode]
    n_idle = int(sum(np.count_nonzero(v == 0) for v in shown))
    n_shown = int(sum(v.shape[0] for v in shown))
    if mode != "work":
        depth = "every depth" if level is None else f"tree depth {level} (or the deepest)"
        out.notes.append(f"heat map: boxes at {depth} coloured by {HEAT_TITLES[mode]}")
        if mode == "visits":
            out.notes.append(f"  {n_idle:,} of {n_shown:,} were never tested (darkest)")
    return out


class HeatLayer:
    """The heat map's actors and colour bars (one per body) on one plotter.

    Parameters
    ----------
    plotter : pyvista.BasePlotter
    text_scale : float
        Screen scale (logical DPI / 96).
    """

    def __init__(self, plotter, text_scale: float = 1.0):
        self.plotter = plotter
        # The cells are coloured by their place on their body's scale (0 to 1); each bar's
        # own table has the same colours over that body's values.
        self.lut = pv.LookupTable(cmap=HEAT_CMAP)
        self.lut.scalar_range = (0.0, 1.0)
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
        self.bar_luts = [pv.LookupTable(cmap=HEAT_CMAP) for _ in BAR_PLACES]
        self.bars = [self._make_bar(lut, place, text_scale)
                     for lut, place in zip(self.bar_luts, BAR_PLACES)]
        self.bar_title_actors = [self._make_title(place, text_scale) for place in BAR_PLACES]
        self.font_px = max(8, round(BAR_FONT_PX * text_scale))
        self._bar_of: dict[int, int] = {}  # body -> index of its bar in bars
        self.last = HeatPicture()
        self._made_for: tuple = ()
        self._placed_for = None
        # Laid out before every render (the view's size or the font may have changed); a
        # weak reference: the renderer must not keep the layer alive.
        ref = weakref.ref(self)
        self._observer = plotter.renderer.AddObserver(
            "StartEvent", lambda *_a: ref() is not None and ref().place())

    def set_font_px(self, px: int) -> None:
        """The bars' text ``px`` pixels (lecture mode scales it like the legend's)."""
        if int(px) != self.font_px:
            self.font_px = int(px)
            self._placed_for = None

    def place(self) -> None:
        """Lay the bars, their labels and titles out for the view's size and the font
        (:func:`bar_layout`)."""
        view = tuple(int(v) for v in self.plotter.renderer.GetSize())
        key = (view, self.font_px)
        if key == self._placed_for or view[0] <= 0 or view[1] <= 0:
            return
        self._placed_for = key
        for bar, title, spot in zip(self.bars, self.bar_title_actors,
                                    bar_layout(view, self.font_px, len(self.bars))):
            x, y, w, h = spot["box"]
            bar.SetPosition(x / view[0], y / view[1])
            bar.SetPosition2(w / view[0], h / view[1])
            bar.SetBarRatio(spot["bar_ratio"])
            for prop in (bar.GetTitleTextProperty(), bar.GetLabelTextProperty()):
                prop.SetFontSize(self.font_px)
            title.SetPosition((x + 0.5 * w) / view[0], spot["title_y"] / view[1])
            title.GetTextProperty().SetFontSize(self.font_px)

    def _make_title(self, place, text_scale: float) -> vtkTextActor:
        """A bar's title, centred above it: the bar's own title sat under its labels, and
        the two lines overlapped (VTK puts both on the same side of a horizontal bar)."""
        title = vtkTextActor()
        title.GetPositionCoordinate().SetCoordinateSystemToNormalizedViewport()
        title.SetPosition(place[0] + 0.5 * place[2], place[1] + place[3] + 0.004)
        prop = title.GetTextProperty()
        _plain_black_text(prop, text_scale)
        prop.SetJustificationToCentered()
        prop.SetVerticalJustificationToBottom()
        # On a light backing like the bar's: over dark boxes the black words were lost.
        prop.SetBackgroundColor(1.0, 1.0, 1.0)
        prop.SetBackgroundOpacity(0.85)
        title.VisibilityOff()
        self.plotter.renderer.AddActor(title)
        return title

    def _make_bar(self, lut, place, text_scale: float) -> vtkScalarBarActor:
        bar = vtkScalarBarActor()
        bar.SetLookupTable(lut)
        bar.SetOrientationToHorizontal()
        bar.SetNumberOfLabels(5)
        # Labels under the bar; its title is a text of its own above it (_make_title).
        bar.SetTextPositionToPrecedeScalarBar()
        bar.SetPosition(*place[:2])
        bar.SetPosition2(*place[2:])
        bar.UnconstrainedFontSizeOn()
        # A light backing under the bar and its tick labels: drawn over the dark tree boxes
        # of the heat map, "0" and "5" could not be read (640x400 export).
        bar.DrawBackgroundOn()
        bar.GetBackgroundProperty().SetColor(1.0, 1.0, 1.0)
        bar.GetBackgroundProperty().SetOpacity(1.0)
        for prop in (bar.GetTitleTextProperty(), bar.GetLabelTextProperty()):
            _plain_black_text(prop, text_scale)
        bar.VisibilityOff()
        self.plotter.renderer.AddActor(bar)
        return bar

    def picture(self, frame, heat, mode: str, level, poses, hidden=frozenset(),
                is_log: bool = False, cap: int = 20_000,
                cap_words: str = "cap") -> HeatPicture:
        """:func:`build_heat`, or the last picture when nothing it depends on changed.

        Measured on the bunny pair (69k triangles each): the triangle picture takes 143 ms
        to build, and the window redraws the same frame on every level, selection or dock
        change; the triangle heat does not depend on the level.
        """
        key = (frame, heat, mode, None if mode == "work" else level, frozenset(hidden),
               bool(is_log), int(cap), cap_words,
               tuple(np.asarray(p).tobytes() for p in poses))
        if (len(key) == len(self._made_for)
                and all(a is b or a == b for a, b in zip(key, self._made_for))):
            return self.last
        self._made_for = key
        return build_heat(frame, heat, mode, level, poses, hidden, is_log, cap, cap_words)

    @property
    def title(self) -> str:
        """What the colour bars show, as drawn, without the body ("" when none is shown)."""
        if not self.bar_titles():
            return ""
        return self.last.title + (" (log scale)" if self.last.is_log else "")

    def bar_titles(self) -> list[str]:
        """Each shown colour bar's title ("A: volume tests per node"), top bar first."""
        return [title.GetInput() or "" for title in self.bar_title_actors
                if title.GetVisibility()]

    def bar_labels(self, body: int) -> list[str]:
        """The labels of body ``body``'s colour bar as printed (custom labels only: the
        log-scale powers of ten; [] otherwise)."""
        if body not in self._bar_of:
            return []
        bar = self.bars[self._bar_of[body]]
        if not bar.GetUseCustomLabels():
            return []
        values = bar.GetCustomLabels()
        fmt = bar.GetLabelFormat()
        return [fmt % values.GetValue(i) for i in range(values.GetNumberOfTuples())]

    def show(self, picture: HeatPicture) -> None:
        for name in HEAT_ACTORS:
            poly = self.polys[name]
            poly.shallow_copy(picture.polys.get(name, pv.PolyData()))
            poly.Modified()
        self.last = picture
        self._bar_of = {}
        for bar, title in zip(self.bars, self.bar_title_actors):
            bar.VisibilityOff()
            title.VisibilityOff()
        if not picture.title:
            return
        scale_words = " (log scale)" if picture.is_log else ""
        for index, (body, scale) in enumerate(sorted(picture.scales.items())[:len(self.bars)]):
            bar, lut = self.bars[index], self.bar_luts[index]
            self._bar_of[body] = index
            lut.log_scale = picture.is_log
            lut.scalar_range = scale
            title = self.bar_title_actors[index]
            title.SetInput(f"{'AB'[body]}: {picture.title}{scale_words}")
            title.VisibilityOn()
            n_labels, fmt, values = bar_ticks(scale, picture.is_log, picture.is_count)
            bar.SetNumberOfLabels(n_labels)
            bar.SetLabelFormat(fmt)
            if values is None:
                bar.SetUseCustomLabels(False)
            else:
                labels = vtkDoubleArray()
                for value in values:
                    labels.InsertNextValue(float(value))
                bar.SetCustomLabels(labels)
                bar.SetUseCustomLabels(True)
            bar.VisibilityOn()

    def color_of(self, value: float, body: int = 0) -> tuple[int, int, int]:
        """``(r, g, b)`` 0-255 body ``body``'s colour bar gives ``value`` (what its pixels
        should be)."""
        lut = self.bar_luts[self._bar_of.get(body, 0)]
        rgb = [0.0, 0.0, 0.0]
        lut.GetColor(float(value), rgb)
        return tuple(int(round(255 * c)) for c in rgb)
