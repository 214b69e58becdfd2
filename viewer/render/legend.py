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

import weakref

import numpy as np
import pyvista as pv
from vtkmodules.vtkRenderingAnnotation import vtkLegendBoxActor
from vtkmodules.vtkRenderingCore import vtkTextMapper

LEGEND_FONT_PX = 15
"""Legend text size at 96 DPI (pixels of the font's em): readable on a projector from the
back of a room; multiplied by the screen's logical DPI / 96."""

LEGEND_MARGIN_PX = 8
"""Gap between the legend and the view's top-right corner."""

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
    """A ``vtkLegendBoxActor`` in the view's top-right corner with a fixed font size.

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
        # Callables the scene renderer may set: the display point (x, y) the box must keep
        # clear of (the stepper's pair), or None; and the pixels kept free at the bottom
        # (the caption bar). The box then goes to the right-hand corner farther from it.
        self.keep_clear_of = None
        self.bottom_px = None
        self.corner = "top right"
        self._sized = None  # ((view, entries, font px), width, height) last measured
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

    def box_px(self) -> tuple[int, int]:
        """``(width, height)`` in pixels that makes the actor pick :attr:`font_px`: rows as
        tall as the longest entry's text at that size, the text column as wide."""
        if not self.entries:
            return 0, 0
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
        text_w, text_h = measure(widest, self.font_px)
        pad = 2 * LEGEND_PADDING_PX
        width = int(np.ceil(text_w / (1.0 - symbol_share))) + pad + 1
        height = text_h * len(self.entries) + pad
        return width, height

    def _choose_corner(self, view, width: int, height: int) -> tuple[str, int]:
        """``(corner, y0)``: top right, or bottom right (above :attr:`bottom_px`) when that
        box is farther from :attr:`keep_clear_of`'s point."""
        top_y0 = view[1] - LEGEND_MARGIN_PX - height
        point = self.keep_clear_of() if self.keep_clear_of is not None else None
        if point is None:
            return "top right", top_y0
        lift = int(self.bottom_px()) if self.bottom_px is not None else 0
        bottom_y0 = min(top_y0, LEGEND_MARGIN_PX + lift)
        x0 = view[0] - LEGEND_MARGIN_PX - width

        def distance(y0: int) -> float:  # from the point to the box
            dx = max(x0 - point[0], 0.0, point[0] - (x0 + width))
            dy = max(y0 - point[1], 0.0, point[1] - (y0 + height))
            return float(np.hypot(dx, dy))

        if distance(bottom_y0) > distance(top_y0):
            return "bottom right", bottom_y0
        return "top right", top_y0

    def place(self) -> None:
        """Put the box in the top-right corner (or the bottom-right one, see
        :meth:`_choose_corner`) at the size :meth:`box_px` gives."""
        view = tuple(self.renderer.GetSize())
        if view[0] <= 0 or view[1] <= 0:
            return
        size_key = (view, tuple(self.entries), self.font_px)
        if self._sized is None or self._sized[0] != size_key:  # measured once per change
            width, height = self.box_px()
            self._sized = (size_key, min(width, view[0] - 2 * LEGEND_MARGIN_PX),
                           min(height, view[1] - 2 * LEGEND_MARGIN_PX))
        _key, width, height = self._sized
        self.corner, y0 = self._choose_corner(view, width, height)
        key = (view, tuple(self.entries), self.font_px, y0)
        if key == self._placed_for:
            return
        self._placed_for = key
        x0 = view[0] - LEGEND_MARGIN_PX - width
        self.actor.SetPosition(x0 / view[0], y0 / view[1])
        self.actor.SetPosition2(width / view[0], height / view[1])

    def remove(self) -> None:
        self.renderer.RemoveObserver(self._observer)
        self.renderer.RemoveActor(self.actor)
