"""The 3-D canvas: pyvistaqt's ``QtInteractor`` drawing each explicit render once.

``QtInteractor.render()`` renders at once into VTK's framebuffer and schedules a repaint to
show it; pyvistaqt's ``paintGL`` then renders the whole scene again before showing it (it
always re-renders, because pyvista changes the scene without asking for a repaint). While
"Bunny vs bunny" played, every frame was rendered twice: 13.3 renders a second for 6.6
frames (VTK ``EndEvent`` count, 1280x800 screen under Xvfb), half of the frame time. Here
the repaint that follows an explicit render shows that render; any other repaint (expose,
resize, camera drags) renders as before.
"""

from __future__ import annotations

from pyvistaqt import QtInteractor


class Canvas(QtInteractor):
    """A ``QtInteractor`` whose repaint after :meth:`render` does not render again.

    Attributes
    ----------
    n_renders : int
        VTK renders finished (``EndEvent`` of the render window), whoever asked for them.
    """

    n_renders = 0
    _is_render_unshown = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ren_win.AddObserver("EndEvent", self._on_render_end)

    def _on_render_end(self, _ren_win, _event) -> None:
        self.n_renders += 1

    def render(self) -> None:
        """Render now (screenshots read it at once); the repaint this schedules shows it."""
        before = self.n_renders
        super().render()
        # Only a render that happened, on a canvas that will be painted, is left to show.
        self._is_render_unshown = self.n_renders > before and self.isVisible()

    def paintGL(self):  # noqa: N802 - Qt API
        if not self._is_render_unshown:
            super().paintGL()
            return
        self._is_render_unshown = False
        # pyvistaqt's paintGL skips its render while ``_in_paint`` is set (its guard against
        # a render asking for a paint from inside a paint) and only shows VTK's last frame.
        self._in_paint = True
        try:
            super().paintGL()
        finally:
            self._in_paint = False

    def resizeGL(self, w, h):  # noqa: N802 - Qt API
        self._is_render_unshown = False  # a new size needs a new render
        super().resizeGL(w, h)
