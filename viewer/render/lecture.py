"""What lecture mode and a lesson video add to the canvas: a caption bar at the bottom (the
step's caption and a line of keys) and an experiment's figure over the view.

Both are drawn by VTK on the canvas itself, so a screenshot and an exported video frame show
them exactly as the room sees them. Sizes are pixels of the view: the caption's font follows
:func:`lecture_scale`, the figure is drawn by matplotlib at the view's size (no resampling).
"""

from __future__ import annotations

import textwrap
import weakref

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk
from vtkmodules.vtkCommonDataModel import vtkImageData
from vtkmodules.vtkRenderingCore import vtkActor2D, vtkImageMapper, vtkTextActor

LECTURE_REFERENCE_HEIGHT_PX = 533
"""Lecture mode scales text and lines by the screen height over this: 1.5 on a 1280x800
screen, 2.03 at 1920x1080. The legend's 15 px then is about 1/36 of the screen height and the
caption's 18 px about 1/30: the size slide guidelines give for text read from the back of a
room (no more than about 15 lines of body text on a slide)."""

MAX_LINE_SCALE = 2.0
"""Lines grow with the text but at most this much: at 2.5x the deep tree levels became a
solid mat of lines."""

CAPTION_FONT_PX = 18
"""Caption text at scale 1 (pixels); the key line under it is 0.7 of that."""

CAPTION_MARGIN = 0.02
"""Gap under the caption bar, as a share of the view's height."""

CAPTION_CHARS_PER_EM = 0.52
"""Average width of a caption character in ems (Arial, measured on the caption of the first
built-in lesson): used to wrap the caption to the view's width."""

MAX_CAPTION_LINES = 3

HINT_COLOR = (0.25, 0.25, 0.25)


def lecture_scale(screen_height_px: int) -> float:
    """Text scale for a projector on a screen ``screen_height_px`` tall (at least 1)."""
    return max(1.0, float(screen_height_px) / LECTURE_REFERENCE_HEIGHT_PX)


def line_scale(scale: float) -> float:
    """Line width factor for text scale ``scale``."""
    return min(max(1.0, scale), MAX_LINE_SCALE)


class CaptionBar:
    """The caption at the bottom centre of the view, wrapped to its width, with a smaller
    line of keys under it, on a light bar; hidden while both are empty.

    Parameters
    ----------
    renderer : vtkRenderer
    """

    def __init__(self, renderer):
        self.renderer = renderer
        self.caption = ""
        self.hint = ""
        self.font_px = CAPTION_FONT_PX
        self.lift_px = 0  # kept free under the bar (the desk view's note is there)
        self.actor = vtkTextActor()
        prop = self.actor.GetTextProperty()
        prop.SetFontFamilyToArial()
        prop.SetColor(0.0, 0.0, 0.0)
        prop.SetJustificationToCentered()
        prop.SetVerticalJustificationToBottom()
        prop.SetBackgroundColor(1.0, 1.0, 1.0)
        prop.SetBackgroundOpacity(0.9)
        prop.SetFrame(True)
        prop.SetFrameColor(0.6, 0.6, 0.6)
        prop.SetLineSpacing(1.15)
        self.actor.SetTextScaleModeToNone()
        self.hint_actor = vtkTextActor()
        hint = self.hint_actor.GetTextProperty()
        hint.SetFontFamilyToArial()
        hint.SetColor(*HINT_COLOR)
        hint.SetJustificationToCentered()
        hint.SetVerticalJustificationToBottom()
        hint.SetBackgroundColor(1.0, 1.0, 1.0)
        hint.SetBackgroundOpacity(0.9)
        self.hint_actor.SetTextScaleModeToNone()
        for actor in (self.actor, self.hint_actor):
            actor.SetVisibility(False)
            renderer.AddActor(actor)
        self._placed_for = None
        ref = weakref.ref(self)
        self._observer = renderer.AddObserver(
            "StartEvent", lambda *_a: ref() is not None and ref().place())

    def set_text(self, caption: str, hint: str = "") -> None:
        if (caption, hint) != (self.caption, self.hint):
            self.caption, self.hint = caption, hint
            self._placed_for = None

    def set_font_px(self, px: int) -> None:
        if int(px) != self.font_px:
            self.font_px = int(px)
            self._placed_for = None

    def set_lift_px(self, px: int) -> None:
        """Keep ``px`` pixels free under the bar (text drawn in the lower-left corner)."""
        if int(px) != self.lift_px:
            self.lift_px = int(px)
            self._placed_for = None

    def lines(self, view_width_px: int) -> list[str]:
        """The caption wrapped to the view's width (at most :data:`MAX_CAPTION_LINES`)."""
        if not self.caption:
            return []
        chars = max(20, int(0.92 * view_width_px / (CAPTION_CHARS_PER_EM * self.font_px)))
        return textwrap.wrap(self.caption, chars, max_lines=MAX_CAPTION_LINES,
                             placeholder=" …")

    def place(self) -> None:
        view = tuple(self.renderer.GetSize())
        key = (view, self.caption, self.hint, self.font_px, self.lift_px)
        if key == self._placed_for or view[0] <= 0 or view[1] <= 0:
            return
        self._placed_for = key
        hint_px = max(8, round(0.7 * self.font_px))
        bottom = int(CAPTION_MARGIN * view[1]) + self.lift_px
        self.hint_actor.GetTextProperty().SetFontSize(hint_px)
        self.hint_actor.SetInput(self.hint or " ")
        self.hint_actor.SetVisibility(bool(self.hint))
        self.hint_actor.SetDisplayPosition(view[0] // 2, bottom)
        lines = self.lines(view[0])
        self.actor.GetTextProperty().SetFontSize(self.font_px)
        self.actor.SetInput("\n".join(lines) or " ")
        self.actor.SetVisibility(bool(lines))
        above_hint = bottom + (int(1.5 * hint_px) if self.hint else 0)
        self.actor.SetDisplayPosition(view[0] // 2, above_hint)

    def top_px(self) -> int:
        """Height of the view the bar takes from the bottom (pixels)."""
        view = self.renderer.GetSize()
        n_lines = len(self.lines(view[0]))
        hint = int(1.5 * 0.7 * self.font_px) if self.hint else 0
        return (int(CAPTION_MARGIN * view[1]) + self.lift_px + hint
                + int(1.4 * self.font_px * n_lines))

    def texts(self) -> tuple[str, str]:
        """``(caption as drawn, key line)``."""
        self.place()
        return (self.actor.GetInput() if self.actor.GetVisibility() else "",
                self.hint_actor.GetInput() if self.hint_actor.GetVisibility() else "")


def figure_image(result, width_px: int, height_px: int) -> np.ndarray:
    """``(h, w, 4) uint8`` RGBA picture of an experiment result's figure
    (``result.draw(figure)``) drawn by matplotlib's Agg backend as large as fits in
    ``width_px`` x ``height_px``, keeping the figure's own proportions."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure()
    canvas = FigureCanvasAgg(figure)
    result.draw(figure)
    title = getattr(result, "title", "")
    if title and figure._suptitle is None and not figure.texts:
        figure.suptitle(title)
    # The experiment lays its figure out for its own size (squeezing it overlapped the legend
    # and the caption): the resolution is chosen instead, so it fills the box, text included.
    width_in, height_in = figure.get_size_inches()
    figure.set_dpi(min(width_px / width_in, height_px / height_in))
    canvas.draw()
    return np.asarray(canvas.buffer_rgba(), dtype=np.uint8).copy()


class FigureLayer:
    """A picture (an experiment's figure) over the view, centred above the caption bar.

    Parameters
    ----------
    renderer : vtkRenderer
    """

    def __init__(self, renderer):
        self.renderer = renderer
        self.image: np.ndarray | None = None
        self._data = vtkImageData()
        self.mapper = vtkImageMapper()
        self.mapper.SetInputData(self._data)
        self.mapper.SetColorWindow(255.0)
        self.mapper.SetColorLevel(127.5)
        self.actor = vtkActor2D()
        self.actor.SetMapper(self.mapper)
        self.actor.SetVisibility(False)
        renderer.AddActor(self.actor)

    def set_image(self, image: np.ndarray | None, bottom_px: int = 0) -> None:
        """Show ``image`` ``(h, w, 4) uint8`` (row 0 at the top) with its lower edge
        ``bottom_px`` above the view's bottom, centred across; None hides it."""
        self.image = image
        if image is None:
            self.actor.SetVisibility(False)
            return
        height, width = image.shape[:2]
        flipped = np.ascontiguousarray(image[::-1].reshape(-1, image.shape[2]))
        self._data.SetDimensions(width, height, 1)
        self._data.GetPointData().SetScalars(numpy_to_vtk(flipped, deep=True))
        self._data.Modified()
        view_width = self.renderer.GetSize()[0]
        self.actor.SetDisplayPosition(max(0, (view_width - width) // 2), int(bottom_px))
        self.actor.SetVisibility(True)

    @property
    def is_shown(self) -> bool:
        return bool(self.actor.GetVisibility())
