"""Where Qt meets VTK: the 3-D canvas widget, a pyvista plotter in a native window.

The one package that imports both PyQt6 and VTK; the widgets (:mod:`viewer.qt`) place it, the
render layer (:mod:`viewer.render`) draws into it, and it knows neither.
"""

from viewer.canvas.native_window import Canvas

__all__ = ["Canvas"]
