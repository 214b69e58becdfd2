"""The 3-D canvas: a pyvista plotter in a native window of its own, drawn by VTK directly.

pyvistaqt's ``QtInteractor`` is a ``QOpenGLWidget``: VTK renders into the widget's
framebuffer object and Qt then composes that texture with the docks into the window, and
every explicit render was followed by a repaint that rendered the scene again. On this
machine's software renderer (llvmpipe under Xvfb) Qt's composition alone cost about 30 ms a
frame at 1280x800 (a 720-triangle scene: 50 ms a frame against 18.6 ms of VTK render; the
same scene in a native ``QWidget`` window, VTK's own ``QVTKRenderWindowInteractor``: 25 ms),
and 231 against 85 ms for 178k triangles. The canvas is therefore VTK's native-window
interactor (``QWidget`` base, ``WA_PaintOnScreen``: Qt never paints it, VTK's render window
draws into the X window itself) with pyvista's ``BasePlotter`` on top, set up as
``QtInteractor`` sets itself up. A render shows at once; a Qt repaint (expose, resize)
renders once.

Pixels are read from VTK's framebuffer (``screenshot``), never with ``QWidget.grab``, which
cannot see a native GL window's content.
"""

from __future__ import annotations

import contextlib

import vtkmodules.qt

# VTK's Qt module picks a binding by what is importable; the app is PyQt6, and a QWidget base
# (not QOpenGLWidget) is the point of this canvas.
vtkmodules.qt.PyQtImpl = "PyQt6"
vtkmodules.qt.QVTKRWIBase = "QWidget"

from PyQt6.QtCore import QTimer  # noqa: E402
from pyvista import global_theme  # noqa: E402 - after the binding is chosen
from pyvista.plotting import BasePlotter  # noqa: E402
from pyvista.plotting.render_window_interactor import RenderWindowInteractor  # noqa: E402
from vtkmodules.qt.QVTKRenderWindowInteractor import QVTKRenderWindowInteractor  # noqa: E402


@contextlib.contextmanager
def _no_base_plotter_init():
    """Qt's widget constructors continue the cooperative ``super()`` chain past the Qt
    classes, which would call ``BasePlotter.__init__`` with no arguments; it is called once,
    explicitly, after the widget exists (as pyvistaqt does)."""
    init = BasePlotter.__init__
    BasePlotter.__init__ = lambda *args, **kwargs: None
    try:
        yield
    finally:
        BasePlotter.__init__ = init


class Canvas(QVTKRenderWindowInteractor, BasePlotter):
    """A pyvista plotter drawn by VTK into a native child window.

    Parameters
    ----------
    parent : QWidget or None
    multi_samples : int
        Multisampling of the render window (0: none; the software renderer pays per sample).

    Attributes
    ----------
    n_renders : int
        VTK renders finished (``EndEvent`` of the render window), whoever asked for them.
    ren_win : vtkRenderWindow
    iren : pyvista RenderWindowInteractor
    """

    n_renders = 0

    def __init__(self, parent=None, multi_samples: int = 0):
        with _no_base_plotter_init():
            QVTKRenderWindowInteractor.__init__(self, parent=parent)
        BasePlotter.__init__(self)
        self.interactor = self
        self.ren_win = self.GetRenderWindow()
        self.ren_win.SetMultiSamples(int(multi_samples))
        for renderer in self.renderers:
            renderer.view_isometric()
            self.ren_win.AddRenderer(renderer)
        self.background_color = global_theme.background
        self._off_screen = False
        self.iren = RenderWindowInteractor(self, interactor=self.ren_win.GetInteractor())
        # pyvista's own mouse-move observer renders on every move; the app renders itself.
        self.iren.interactor.RemoveObservers("MouseMoveEvent")
        self.iren.initialize()
        self.enable_trackball_style()
        self._observers = {}
        self.iren.add_observer("KeyPressEvent", self.key_press_event)
        self.reset_key_events()
        self.ren_win.AddObserver("EndEvent", self._on_render_end)
        # BasePlotter renders only after its first show; the widget is its show.
        self._first_time = False
        # Exposes and resizes come in bursts (three paint events at a new window's first
        # show, about 16 ms of software render each under Xvfb): one render, from the
        # event loop, draws them all (see paintEvent).
        self._paint_timer = QTimer(self)
        self._paint_timer.setSingleShot(True)
        self._paint_timer.setInterval(0)
        self._paint_timer.timeout.connect(self._render_for_paint)
        self._renders_at_paint = 0

    def _on_render_end(self, _ren_win, _event) -> None:
        self.n_renders += 1

    def render(self) -> None:
        """Render now into the native window (screenshots read it at once). Not before the
        window shows: the first paint renders the scene as it is then, and the renders
        asked for while it was being built (each actor added, the first camera reset)
        were 5 of a new window's 15, about 20 ms each under Xvfb."""
        if getattr(self, "_closed", False) or not self.isVisible():
            return
        self._rendered = True
        BasePlotter.render(self)

    def paintEvent(self, _event):  # noqa: N802 - Qt API
        # An expose or a resize: draw the scene as it is, unless closed, once the burst of
        # paint events is over.
        if getattr(self, "_closed", False) or self.ren_win is None:
            return
        if not self._paint_timer.isActive():
            self._renders_at_paint = self.n_renders
            self._paint_timer.start()

    def _render_for_paint(self) -> None:
        # A render since the paint event (a redraw of the scene) already drew the window as
        # it is now.
        if (not getattr(self, "_closed", False) and self.ren_win is not None
                and self.n_renders == self._renders_at_paint):
            self.render()

    def close(self) -> None:
        """Release VTK's window and the plotter (returns None, unlike ``QWidget.close``)."""
        if getattr(self, "_closed", True):
            return
        BasePlotter.close(self)
        QVTKRenderWindowInteractor.close(self)
        self.ren_win = None
