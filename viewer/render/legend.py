"""The canvas legend: a colour swatch and black text per overlay, in a fixed, readable font.

``vtkLegendBoxActor`` fits its text to its box (``SetConstrainedFontSize``): given a box as a
fraction of the view, the font shrank with the view and with the longest label (about 7 px
at 1280x800). Here the box is sized in pixels from the font instead, every time the view's
size or the entries change, so the text is always :data:`LEGEND_FONT_PX` (times the screen's
scale) and the box grows with a longer label. The text is black (the actor colours an
entry's text with its colour unless that colour is negative); the colour is in the swatch,
a bar carrying its RGB as cell scalars.
"""

from __future__ import annotations

import time
import weakref

import numpy as np
import pyvista as pv
from vtkmodules.vtkRenderingAnnotation import vtkLegendBoxActor
from vtkmodules.vtkRenderingCore import vtkTextMapper

LEGEND_FONT_PX = 15
"""Legend text size at 96 DPI (pixels of the font's em): readable on a projector from the
back of a room; multiplied by the screen's logical DPI / 96."""

LEGEND_MARGIN_PX = 8
"""Gap between the legend and the view's corner it stands in."""

SMALL_VIEW_PX = 800
"""Views narrower than this (a 640x400 GIF or MP4 export) get a smaller legend font, in
proportion to their width: at 15 px the legend covered most of a 640x400 frame."""

SMALL_VIEW_MIN_FONT_PX = 9
"""The smallest legend font a small view gets (still readable on a video frame)."""

CORNERS = ("top right", "bottom right", "top left", "bottom left")
"""The corners a legend may stand in, in the order preferred when they hide as much."""

TEXT_WEIGHT = 4.0
"""Weight of a box of text or of a box a helper asked to keep clear (the stepper's pair)
against a box of geometry: covering a word or the pair under test hides more than covering
a part of a mesh."""


def small_view_font_px(font_px: int, view_width: int) -> int:
    """The legend font for a view ``view_width`` pixels wide: ``font_px`` from
    :data:`SMALL_VIEW_PX` up, in proportion below (at least :data:`SMALL_VIEW_MIN_FONT_PX`)."""
    if view_width >= SMALL_VIEW_PX:
        return int(font_px)
    return max(min(int(font_px), SMALL_VIEW_MIN_FONT_PX),
               round(font_px * view_width / SMALL_VIEW_PX))


def corner_origin(corner: str, view: tuple[int, int], box: tuple[int, int],
                  margin: int = LEGEND_MARGIN_PX) -> tuple[int, int]:
    """Lower-left pixel ``(x, y)`` (VTK display coordinates, y up) of a ``box = (width,
    height)`` in ``corner`` of a ``view = (width, height)``."""
    x = view[0] - margin - box[0] if corner.endswith("right") else margin
    y = view[1] - margin - box[1] if corner.startswith("top") else margin
    return int(x), int(y)


def pick_corner(view: tuple[int, int], box: tuple[int, int], avoid=(),
                margin: int = LEGEND_MARGIN_PX) -> str:
    """The corner of :data:`CORNERS` where a legend of ``box = (width, height)`` pixels hides
    the least of ``avoid``.

    Parameters
    ----------
    view : (int, int)
        The view's width and height in pixels.
    box : (int, int)
        The legend's width and height.
    avoid : iterable of (x0, y0, x1, y1) or (x0, y0, x1, y1, weight)
        Screen boxes in pixels (VTK display coordinates, y up). Boxes without a weight are
        geometry: they count once together, as the share of the legend that lies over any
        of them (a scene's many overlays overlap each other). A weighted box (a text, the
        stepper's pair) counts the share of itself the legend would cover, times its
        weight.
    margin : int

    Returns
    -------
    str
        The corner with the least cost; the first of :data:`CORNERS` on a tie.
    """
    geometry, weighted = [], []
    for b in avoid:
        x0, y0, x1, y1 = (float(v) for v in b[:4])
        if len(b) > 4:
            area = max(x1 - x0, 1.0) * max(y1 - y0, 1.0)
            weighted.append((x0, y0, x1, y1, float(b[4]), area))
        else:
            geometry.append((x0, y0, x1, y1))
    geometry = np.asarray(geometry, dtype=np.float64).reshape(-1, 4)
    # The legend's area sampled on a grid: the share of it over geometry.
    u = (np.arange(GRID[0]) + 0.5) / GRID[0]
    v = (np.arange(GRID[1]) + 0.5) / GRID[1]
    gu, gv = np.meshgrid(u, v)
    best, best_cost = CORNERS[0], np.inf
    for corner in CORNERS:
        lx, ly = corner_origin(corner, view, box, margin)
        hx, hy = lx + box[0], ly + box[1]
        cost = 0.0
        if geometry.shape[0]:
            px = (lx + gu * box[0]).reshape(-1, 1)
            py = (ly + gv * box[1]).reshape(-1, 1)
            covered = ((px >= geometry[:, 0]) & (px <= geometry[:, 2])
                       & (py >= geometry[:, 1]) & (py <= geometry[:, 3])).any(axis=1)
            cost += float(covered.mean())
        for x0, y0, x1, y1, weight, area in weighted:
            w = min(hx, x1) - max(lx, x0)
            h = min(hy, y1) - max(ly, y0)
            if w > 0 and h > 0:
                cost += weight * w * h / area
        if cost < best_cost - 1e-9:
            best, best_cost = corner, cost
    return best


GRID = (24, 12)
"""Points across and up the legend box at which :func:`pick_corner` asks whether geometry
lies under it."""

LEGEND_PADDING_PX = 6

MAX_MEASURED_TEXTS = 256
"""Text sizes a legend remembers (then it starts again): its rows, and the heat map's row
once per frame number."""


def _hex_to_rgb8(color: str) -> tuple[int, int, int]:
    color = color.lstrip("#")
    return tuple(int(color[i:i + 2], 16) for i in (0, 2, 4))


SWATCH_ASPECT = 2.0
"""Width / height of a swatch: the actor draws a swatch at most half a row tall, so a bar
twice as wide shows more of the colour than a square."""


def _swatch(color: str) -> pv.PolyData:
    """A bar carrying ``color`` as uint8 RGB cell scalars (drawn as is)."""
    a = SWATCH_ASPECT
    bar = pv.PolyData(np.array([[-a, -1, 0], [a, -1, 0], [a, 1, 0], [-a, 1, 0]], float),
                      faces=np.array([4, 0, 1, 2, 3]))
    bar.cell_data["rgb"] = np.array([_hex_to_rgb8(color)], dtype=np.uint8)
    return bar


class CanvasLegend:
    """A ``vtkLegendBoxActor`` with a fixed font size, in the corner of the view where it
    hides the least (:func:`pick_corner`), smaller in a small view
    (:func:`small_view_font_px`).

    What it keeps clear: the boxes ``screen_boxes()`` gives (the scene sets it: its drawn
    geometry and text) and the boxes set by name with :meth:`set_avoid` (the stepper's pair).

    Parameters
    ----------
    renderer : vtkRenderer
    scale : float
        Screen scale (logical DPI / 96): the font is ``LEGEND_FONT_PX * scale`` pixels.
    """

    def __init__(self, renderer, scale: float = 1.0):
        self.renderer = renderer
        self.font_px = max(8, round(LEGEND_FONT_PX * scale))
        self.actor = vtkLegendBoxActor()
        actor = self.actor
        actor.SetUseBackground(True)
        actor.SetBackgroundColor(1.0, 1.0, 1.0)
        actor.SetBackgroundOpacity(0.92)
        actor.BorderOn()
        actor.GetProperty().SetColor(0.6, 0.6, 0.6)
        actor.SetPadding(LEGEND_PADDING_PX)
        text = actor.GetEntryTextProperty()
        text.SetColor(0.0, 0.0, 0.0)
        text.SetFontFamilyToArial()
        text.BoldOff()
        text.ShadowOff()
        actor.SetScalarVisibility(True)
        self.entries: list[tuple[str, str]] = []
        self._placed_for = None  # (view size, entries, corner) the box was last placed for
        self.repick_every_s = 0.0  # > 0: keep the corner that long while the view is the same
        self._picked = (None, -float("inf"))  # (view size, entries, font) and when, last pick
        self.corner = CORNERS[0]
        self.screen_boxes = lambda: []  # (x0, y0, x1, y1[, weight]) of what is drawn
        self._avoid: dict[str, list] = {}
        # One swatch per colour and one measurement per (text, points), kept: the heat map's
        # row names its frame, so the entries change every frame while playing, and building
        # a swatch per entry and measuring every text again took 7 ms of each frame.
        self._swatches: dict[str, pv.PolyData] = {}
        self._text_sizes: dict[tuple[str, int], tuple[int, int]] = {}
        renderer.AddActor(actor)
        # Placed before every render: the view may have been resized since the last one.
        # A weak reference: the renderer must not keep the legend (and itself) alive.
        ref = weakref.ref(self)
        self._observer = renderer.AddObserver(
            "StartEvent", lambda *_a: ref() is not None and ref().place())

    def set_entries(self, entries) -> None:
        """``[(text, "#rrggbb"), ...]``; rewrites the actor only when they change."""
        entries = [(str(t), str(c)) for t, c in entries]
        if entries == self.entries:
            return
        previous = self.entries if len(self.entries) == len(entries) else []
        self.entries = entries
        actor = self.actor
        actor.SetNumberOfEntries(len(entries))
        for i, (text, color) in enumerate(entries):
            if i < len(previous) and previous[i] == (text, color):
                continue  # the same row: only the rows that changed are written
            swatch = self._swatches.get(color)
            if swatch is None:
                swatch = self._swatches[color] = _swatch(color)
            # A negative colour keeps the text black; the swatch's scalars give its colour.
            actor.SetEntry(i, swatch, text, (-1.0, -1.0, -1.0))
        actor.Modified()
        self._placed_for = None

    def set_font_px(self, px: int) -> None:
        """Entry text ``px`` pixels (lecture mode scales it for a projector)."""
        if int(px) != self.font_px:
            self.font_px = int(px)
            self._placed_for = None

    def texts(self) -> list[str]:
        return [t for t, _c in self.entries]

    def set_avoid(self, name: str, boxes) -> None:
        """Keep ``boxes`` (``(x0, y0, x1, y1)`` in display pixels, y up) clear of the legend,
        under ``name`` (a new call replaces that name's boxes; ``[]`` forgets them)."""
        boxes = [tuple(float(v) for v in b[:4]) + (TEXT_WEIGHT,) for b in boxes]
        if boxes:
            self._avoid[name] = boxes
        else:
            self._avoid.pop(name, None)

    def shown_font_px(self, view_width: int | None = None) -> int:
        """The font size the legend is drawn at in a view ``view_width`` wide (default: the
        renderer's)."""
        if view_width is None:
            view_width = int(self.renderer.GetSize()[0])
        return small_view_font_px(self.font_px, view_width) if view_width > 0 else self.font_px

    def box_px(self, font_px: int | None = None) -> tuple[int, int]:
        """``(width, height)`` in pixels that makes the actor pick ``font_px`` (default
        :meth:`shown_font_px`): rows as tall as the longest entry's text at that size, the
        text column as wide."""
        if not self.entries:
            return 0, 0
        if font_px is None:
            font_px = self.shown_font_px()
        probe = vtkTextMapper()
        probe.GetTextProperty().ShallowCopy(self.actor.GetEntryTextProperty())
        size = [0, 0]

        def measure(text: str, points: int) -> tuple[int, int]:
            known = self._text_sizes.get((text, points))
            if known is not None:
                return known
            probe.SetInput(text)
            probe.GetTextProperty().SetFontSize(points)
            probe.GetSize(self.renderer, size)
            if len(self._text_sizes) >= MAX_MEASURED_TEXTS:
                self._text_sizes.clear()  # a frame number per frame: forget the old ones
            self._text_sizes[(text, points)] = (size[0], size[1])
            return size[0], size[1]

        # The actor fits the font to the entry widest at 12 pt and gives the swatch column
        # the share a / (a + w / h) of the width, a the swatch's aspect and w, h that entry's
        # size at 12 pt (vtkLegendBoxActor.cxx): the box below makes that entry, and so every
        # entry, exactly font_px.
        widest = max(self.texts(), key=lambda t: measure(t, 12)[0])
        w12, h12 = measure(widest, 12)
        symbol_share = SWATCH_ASPECT / (SWATCH_ASPECT + w12 / max(1, h12))
        text_w, text_h = measure(widest, font_px)
        pad = 2 * LEGEND_PADDING_PX
        width = int(np.ceil(text_w / (1.0 - symbol_share))) + pad + 1
        height = text_h * len(self.entries) + pad
        return width, height

    def place(self) -> None:
        """Put the box, at the size :meth:`box_px` gives, in the corner where it hides the
        least of what is drawn (:func:`pick_corner`)."""
        view = tuple(int(v) for v in self.renderer.GetSize())
        if view[0] <= 0 or view[1] <= 0 or not self.entries:
            return
        same_view = (view, tuple(self.entries), self.font_px)
        now = time.perf_counter()
        if (self.repick_every_s > 0 and self._picked[0] == same_view
                and now - self._picked[1] < self.repick_every_s):
            # Playing: the corner is picked again a few times a second, not every frame
            # (2.4 ms of each 50 ms frame of bunny x bunny went to measuring what it covers).
            return
        self._picked = (same_view, now)
        width, height = self.box_px(self.shown_font_px(view[0]))
        width = min(width, view[0] - 2 * LEGEND_MARGIN_PX)
        height = min(height, view[1] - 2 * LEGEND_MARGIN_PX)
        avoid = list(self.screen_boxes())
        for boxes in self._avoid.values():
            avoid.extend(boxes)
        self.corner = pick_corner(view, (width, height), avoid)
        key = (view, tuple(self.entries), self.font_px, self.corner)
        if key == self._placed_for:
            return
        self._placed_for = key
        x0, y0 = corner_origin(self.corner, view, (width, height))
        self.actor.SetPosition(x0 / view[0], y0 / view[1])
        self.actor.SetPosition2(width / view[0], height / view[1])

    def box_on_screen(self) -> tuple[int, int, int, int]:
        """``(x0, y0, x1, y1)`` of the legend in display pixels (y up), as last placed."""
        view = self.renderer.GetSize()
        x, y = self.actor.GetPosition()
        w, h = self.actor.GetPosition2()
        return (round(x * view[0]), round(y * view[1]), round((x + w) * view[0]),
                round((y + h) * view[1]))

    def remove(self) -> None:
        self.renderer.RemoveObserver(self._observer)
        self.renderer.RemoveActor(self.actor)
