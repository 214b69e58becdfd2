"""The web page of a 3-D view: the scene inline, nothing requested from the network."""

from __future__ import annotations

from viewer.render.webpage import EMPTY_DATA_URL, VTKJS_FAVICON, remote_urls, scene_web_page


def test_page_of_an_off_screen_plotter_needs_no_network():
    import pyvista as pv

    plotter = pv.Plotter(off_screen=True, window_size=(200, 150))
    plotter.add_mesh(pv.Sphere(), color="red")
    plotter.render()
    page = scene_web_page(plotter.render_window, "A <sphere>", [("ball", "#ff0000")], "a note")
    plotter.close()
    assert remote_urls(page) == []
    assert VTKJS_FAVICON not in page and f'"href",`{EMPTY_DATA_URL}`' in page
    assert "<title>A &lt;sphere&gt;</title>" in page  # escaped
    assert '<span style="background:#ff0000"></span>ball</div>' in page
    assert "a note</div>" in page


def test_remote_urls_finds_a_resource_the_page_would_load():
    page = ('<link rel="icon" href="https://example.org/x.png"><img src=http://cdn.test/a.js>'
            '<!-- http://www.kitware.com/Copyright.htm -->')
    assert remote_urls(page) == ["https://example.org/x.png", "http://cdn.test/a.js"]
