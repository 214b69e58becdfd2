"""The native VTK canvas: renders only once it shows, then at once when asked."""

from __future__ import annotations

import pyvista as pv

from viewer.canvas import Canvas


def test_no_render_before_the_canvas_shows_then_each_render_is_drawn(qtbot):
    canvas = Canvas()
    qtbot.addWidget(canvas)
    canvas.add_mesh(pv.Sphere())  # pyvista asks for a render on each actor added
    canvas.render()
    assert canvas.n_renders == 0
    canvas.resize(200, 150)
    canvas.show()
    qtbot.waitExposed(canvas)
    qtbot.waitUntil(lambda: canvas.n_renders >= 1, timeout=10_000)  # the first paint
    before = canvas.n_renders
    canvas.render()
    assert canvas.n_renders == before + 1
    canvas.close()
    canvas.render()  # closed: nothing, no error
    assert canvas.n_renders == before + 1
