"""The 3-D view as one interactive HTML page that opens offline (course websites, e-mail).

The scene of a render window (every actor as drawn now: meshes, the volumes at the current
level, overlapping pairs, contact triangles, segments; colours, opacities, line widths and the
camera) is serialised to the vtk.js scene format and embedded, base64, in trame-vtk's
standalone viewer page, which carries vtk.js itself inline. pyvista 0.49's
``Plotter.export_html`` (``plotter.trame.export_html`` of trame-pyvista) does the same but
first starts a trame web server (it needs ``nest_asyncio2`` outside Jupyter and binds a port),
only to call the same serialiser through it; here the serialiser is called directly, so the
app needs trame-vtk only (it brings trame-client; trame-pyvista would add the trame server
stack: aiohttp, wslink, vuetify).

The page loads nothing from the network: vtk.js's viewer adds five favicon links to
kitware.github.io, which :func:`scene_web_page` replaces by an empty ``data:`` URL. The other
``http(s)://`` texts left in the page load nothing (:data:`INERT_URLS`).

2-D text (the legend, the notes in the corners) is not part of the vtk.js scene; the page
shows the same title, legend and note as HTML over the 3-D view (they let the mouse through
to it), so a reader knows what each colour means.
"""

from __future__ import annotations

import html
import io
import json
import re
import zipfile

VTKJS_FAVICON = "https://kitware.github.io/vtk-js/icon/favicon-${t}x${t}.png"
"""The favicon URL vtk.js's standalone viewer puts in ``<link rel=icon>`` five times (sizes
16 to 196): the only resource the page would fetch from the network."""

EMPTY_DATA_URL = "data:,"
"""An empty inline resource: the browser requests nothing."""

INERT_URLS = (
    "http://www.kitware.com/Copyright.htm",  # licence comments in vtk.js's GLSL shaders
    "https://karthikkaranth.me/blog/",  # a GLSL comment citing a sampling method
    "https://kitware.github.io/vtk-js/docs/concepts_profile.html",  # an error message's text
    "http://any",  # the base of ``new URL(path, "http://any").pathname``: parsing, no request
)
"""Beginnings of the ``http(s)://`` texts vtk.js's inline code still holds: each is in a
comment, a message or a URL parsed for its path, none is requested by the page."""

_URL = re.compile(r"https?://[^\s\"'`)<>]*")


class WebPageError(RuntimeError):
    """The scene could not be turned into a page (one line saying why)."""


def _scene_archive(render_window) -> bytes:
    """The vtk.js scene of ``render_window`` as the ``.vtksz`` zip (``index.json``)."""
    try:
        from trame_vtk.modules.vtk.serializers import (
            SynchronizationContext,
            extract_array_hash,
            initialize_serializers,
            reference_id,
            serialize,
        )
    except ImportError as exc:  # a broken install: say what is missing
        raise WebPageError(f"the web-page export needs trame-vtk ({exc})") from exc
    initialize_serializers()
    context = SynchronizationContext()
    renderer = render_window.GetRenderers().GetFirstRenderer()
    camera = renderer.GetActiveCamera()
    scene = serialize(None, render_window, reference_id(render_window), context, 1)
    if not scene:
        raise WebPageError("the 3-D view holds nothing that can be exported")
    # What trame-vtk's export protocol adds (viewport.geometry.view.get.export).
    scene["extra"] = {"vtkRefId": reference_id(render_window),
                      "centerOfRotation": camera.GetFocalPoint(),
                      "camera": reference_id(camera)}
    arrays = {}
    for entry in extract_array_hash(scene):
        key = entry.get("hash")
        arrays[key] = dict(**entry, content=context.get_cached_data_array(key, False))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("index.json", json.dumps({"hashes": arrays, "scene": scene}),
                         compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


_OVERLAY_STYLE = """
<style>
  .bvhlab-overlay { position: fixed; z-index: 10; pointer-events: none; color: #000;
    font: 14px/1.35 Arial, Helvetica, sans-serif; }
  .bvhlab-title { top: 8px; left: 10px; font-size: 18px; }
  .bvhlab-note { bottom: 8px; left: 10px; }
  .bvhlab-legend { top: 8px; right: 10px; background: rgba(255, 255, 255, 0.92);
    border: 1px solid #999; padding: 6px 8px; }
  .bvhlab-legend div { white-space: nowrap; }
  .bvhlab-legend span { display: inline-block; width: 14px; height: 10px; margin-right: 6px;
    vertical-align: baseline; }
</style>
"""


def _overlay_html(title: str, legend, note: str) -> str:
    """The title (top left), legend (top right) and note (bottom left) as HTML, after the
    ``.content`` box the viewer draws into."""
    # Without a ``.content`` element the viewer takes over <body> and the texts vanish
    # under its full-screen canvas (seen in headless Chromium); with one it fills that box.
    parts = ['<div class="content"></div>', _OVERLAY_STYLE]
    if title:
        parts.append(f'<div class="bvhlab-overlay bvhlab-title">{html.escape(title)}</div>')
    if legend:
        rows = "".join(f'<div><span style="background:{html.escape(color)}"></span>'
                       f"{html.escape(text)}</div>" for text, color in legend)
        parts.append(f'<div class="bvhlab-overlay bvhlab-legend">{rows}</div>')
    if note:
        parts.append(f'<div class="bvhlab-overlay bvhlab-note">{html.escape(note)}</div>')
    return "\n".join(parts) + "\n"


def scene_web_page(render_window, title: str = "BVH Lab", legend=(), note: str = "") -> str:
    """The HTML text of an interactive page showing ``render_window``'s 3-D scene.

    Parameters
    ----------
    render_window : vtkRenderWindow
        Rendered since its actors last changed (``plotter.render_window`` after
        ``plotter.render()``).
    title : str
        The page's title (the browser tab, bookmarks), also shown at the top left.
    legend : sequence of (str, str)
        ``(text, "#rrggbb")`` entries shown at the top right, as on the canvas.
    note : str
        A line shown at the bottom left (the canvas's note: level, depth).

    Returns
    -------
    str
        A page that needs no network (see :func:`remote_urls`).

    Raises
    ------
    WebPageError
    """
    from trame_vtk.tools.vtksz2html import write_html

    text = io.StringIO()
    write_html(_scene_archive(render_window), text)
    page = text.getvalue().replace(VTKJS_FAVICON, EMPTY_DATA_URL)
    page, n_titles = re.subn(r"<title>.*?</title>", f"<title>{html.escape(title)}</title>",
                             page, count=1, flags=re.DOTALL)
    if n_titles == 0:
        page = page.replace("<head>", f"<head><title>{html.escape(title)}</title>", 1)
    head, body_end, tail = page.rpartition("</body>")
    if not body_end:
        raise WebPageError("the viewer page has no </body>")
    return head + _overlay_html(title, legend, note) + body_end + tail


def remote_urls(page: str) -> list[str]:
    """The ``http(s)://`` URLs of ``page`` that are not known to be inert
    (:data:`INERT_URLS`): an empty list for a page that opens offline."""
    return [url for url in _URL.findall(page)
            if not any(url.startswith(inert) for inert in INERT_URLS)]
