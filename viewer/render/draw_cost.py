"""Why drawing a frame was slow, in words: what the renderer drew and how to draw less.

The core's time of a frame has its own words (``viewer.control.frame_budget``); this is the
other half of a frame the user waits for: copying the overlays into the actors and VTK's
render. On this machine's software renderer (llvmpipe, 2 cores) a render costs about 10 ms
of CPU for an empty 874x660 view and about 50 ms for the big-bunny scene with the heat map and
the ghost on (CPU time of one render, single-threaded, measured with ``LP_NUM_THREADS=0``),
and it grows with the pixels of the view, so the words name the view's size as well as the
layers that drew most.
"""

from __future__ import annotations

DRAW_BUDGET_S = 0.05
"""Drawing (overlay update plus render) longer than this is called slow. Half of the 100 ms
the GUI thread may be blocked at most: a frame's drawing past it leaves no room for the
events and the panels of the same turn."""

# Named actor -> (what its cells are, for people; how to draw fewer). Ordered as said.
_LAYERS = (
    ("heat_tris", "heat-map triangles", "turn the heat map off (Levels and overlays)"),
    ("heat_nodes", "heat-map boxes", "turn the heat map off (Levels and overlays)"),
    ("ghost", "lines of the ghost tree", "untick \u201cGhost: freshly built tree\u201d"),
    ("tree_a", "lines of A's boxes", "show one traversal level, not all"),
    ("tree_b", "lines of B's boxes", "show one traversal level, not all"),
    ("parents", "lines of parent boxes", "untick \u201cparent boxes (faint)\u201d"),
    ("culled", "lines of culled pairs", "untick \u201cculled pairs (faint)\u201d"),
    ("overlap", "lines of overlapping pairs", "show one traversal level, not all"),
    ("contact_tris", "contact triangles", "untick \u201ccontacts\u201d"),
    ("node_triangles", "triangles of the selected node", "clear the selection (Esc)"),
)
_LAYER_NAMES = frozenset(name for name, _said, _advice in _LAYERS)
_BODY_WORDS = ("mesh triangles", "make the window smaller: the software renderer's time "
               "grows with the pixels it fills")


def drawn_cells(actors) -> dict[str, int]:
    """Cells each visible named layer draws.

    Parameters
    ----------
    actors : mapping of str to vtkActor
        The renderer's actors by name (``plotter.renderer.actors``).

    Returns
    -------
    dict
        ``{name: cells}`` for the layers of :data:`_LAYERS` and ``"bodies"`` (every visible
        ``body:`` actor's triangles together); layers drawing nothing are left out.
    """
    out: dict[str, int] = {}
    for name, actor in actors.items():
        if not actor.GetVisibility():
            continue
        mapper = actor.GetMapper() if hasattr(actor, "GetMapper") else None
        # A label or text mapper (the pseudo-code's labels) has no input data set: nothing
        # counted (test_pseudocode failed on vtkLabeledDataMapper).
        data = mapper.GetInput() if hasattr(mapper, "GetInput") else None
        if data is None or not hasattr(data, "GetNumberOfCells"):
            continue
        cells = int(data.GetNumberOfCells())
        if cells == 0:
            continue
        key = "bodies" if name.startswith("body:") else name
        if key == "bodies" or key in _LAYER_NAMES:
            out[key] = out.get(key, 0) + cells
    return out


def slow_drawing_words(frame_index: int | None, overlay_s: float, render_s: float,
                       cells: dict, size: tuple[int, int],
                       budget_s: float = DRAW_BUDGET_S) -> str:
    """Why drawing a frame took longer than ``budget_s``, in one line; "" when it did not.

    Parameters
    ----------
    frame_index : int or None
        The frame drawn (None: no frame, the scene alone).
    overlay_s, render_s : float
        Seconds copying the overlays into the actors, and rendering.
    cells : dict
        :func:`drawn_cells` of the view.
    size : (int, int)
        The view's width and height in pixels.
    budget_s : float

    Returns
    -------
    str
        For example ``"Drawing frame 57 is slow (143 ms: 12 ms overlays, 131 ms render,
        against 50 ms) at 874x660 pixels: 40,000 mesh triangles, 6,013 heat-map triangles —
        make the window smaller: ..."``.
    """
    total = float(overlay_s) + float(render_s)
    if total <= budget_s:
        return ""
    what = f"frame {frame_index}" if frame_index is not None else "the view"
    words = {name: (said, advice) for name, said, advice in _LAYERS}
    words["bodies"] = _BODY_WORDS
    layers = sorted(cells.items(), key=lambda item: -item[1])
    listed = ", ".join(f"{n:,} {words[name][0]}" for name, n in layers[:3])
    # The advice of the layer that drew most: 1,532 contact triangles beside 40,000 mesh
    # triangles are not why a frame is slow (seen on bunny-bunny), and the meshes' only
    # choice is fewer pixels.
    advice = words[layers[0][0]][1] if layers else _BODY_WORDS[1]
    return (f"Drawing {what} is slow ({1e3 * total:,.0f} ms: {1e3 * overlay_s:,.0f} ms "
            f"overlays, {1e3 * render_s:,.0f} ms render, against {1e3 * budget_s:,.0f} ms) "
            f"at {int(size[0])}x{int(size[1])} pixels"
            + (f": {listed}" if listed else "") + f" \u2014 {advice}")


class SlowDrawingNotice:
    """Says why drawing was slow once per reason (the layers and the advice), like a slow
    frame's core time: the same reason frame after frame would fill the status bar."""

    def __init__(self, budget_s: float = DRAW_BUDGET_S):
        self.budget_s = float(budget_s)
        self._reason = ""  # the last reason said

    def check(self, frame_index: int | None, overlay_s: float, render_s: float, actors,
              size: tuple[int, int]) -> tuple[str, bool]:
        """``(words, is_new)``: :func:`slow_drawing_words` of this drawing, and whether its
        reason differs from the last one said (then say it).

        ``actors`` is the renderer's named actors, or a function returning them: called only
        when the drawing passed its budget (walking every actor took a median of 0.7 ms of
        the GUI thread a frame on bunny-bunny at 1280x800, time the frame's core may wait
        for the interpreter lock)."""
        if float(overlay_s) + float(render_s) <= self.budget_s:
            self._reason = ""
            return "", False
        cells = drawn_cells(actors() if callable(actors) else actors)
        words = slow_drawing_words(frame_index, overlay_s, render_s, cells, size, self.budget_s)
        reason = words.split(" pixels", 1)[-1]
        is_new = bool(words) and reason != self._reason
        self._reason = reason if words else ""
        return words, is_new
