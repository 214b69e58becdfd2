"""The canvas legend rewrites only the rows that change (the heat map's row names its frame,
so while playing the entries change every frame): one swatch per colour, the other rows'
entries as they were, and the box placed from remembered text sizes."""

from __future__ import annotations

import pyvista as pv

from viewer.render import legend as legend_module
from viewer.render.legend import CanvasLegend

ROWS = [("boxes of A", "#0072B2"), ("boxes of B", "#009E73"), ("crossing", "#D55E00"),
        ("heat map: work, frame 1", "#000000")]


def _legend(monkeypatch):
    made = []

    def counting_swatch(color):
        made.append(color)
        return original(color)

    original = legend_module._swatch
    monkeypatch.setattr(legend_module, "_swatch", counting_swatch)
    plotter = pv.Plotter(off_screen=True, window_size=[400, 300])
    return plotter, CanvasLegend(plotter.renderer), made


def test_a_changed_row_text_makes_no_new_swatch_and_keeps_the_other_rows(monkeypatch):
    plotter, legend, made = _legend(monkeypatch)
    legend.set_entries(ROWS)
    assert len(made) == len(ROWS)
    first = [legend.actor.GetEntrySymbol(i) for i in range(len(ROWS))]
    for frame in range(2, 6):
        legend.set_entries([*ROWS[:3], (f"heat map: work, frame {frame}", "#000000")])
    assert len(made) == len(ROWS)  # no swatch built again
    assert legend.texts()[3] == "heat map: work, frame 5"
    assert [legend.actor.GetEntrySymbol(i) for i in range(3)] == first[:3]
    legend.set_entries([*ROWS, ("ghost", "#009E73")])  # a new row of a known colour
    assert len(made) == len(ROWS) and legend.actor.GetNumberOfEntries() == 5
    plotter.close()


def test_the_box_is_placed_from_remembered_text_sizes(monkeypatch):
    plotter, legend, _made = _legend(monkeypatch)
    legend.set_entries(ROWS)
    width, height = legend.box_px()
    assert width > 0 and height > 0
    n_known = len(legend._text_sizes)
    assert legend.box_px() == (width, height)
    assert len(legend._text_sizes) == n_known  # nothing measured again
    plotter.close()


def test_the_selected_tree_node_has_its_own_violet_row_while_it_is_drawn(qtbot, window):
    from tests.viewer.conftest import settle
    from viewer.render.marks import NODE_COLOR

    row = "selected tree node and its triangles"
    assert row not in window.renderer.legend_texts
    window.model.select_node(0, 1)
    settle(qtbot, window)
    window.redraw()
    assert window.renderer.polys["node_highlight"].n_cells > 0
    texts = window.renderer.legend_texts
    assert row in texts
    # Its swatch is the violet the box is drawn in, not the inspector's cyan.
    assert dict(window.renderer.canvas_legend.entries)[row].lower() == NODE_COLOR
    window.model.select_node(None)
    settle(qtbot, window)
    window.redraw()
    assert row not in window.renderer.legend_texts


def test_a_tree_read_from_a_file_is_named_in_its_meshs_row():
    from types import SimpleNamespace

    from viewer.render.style import PINNED_LABEL_CHARS, legend_entries, pinned_tree_words
    from viewer.words.kinds import kind_words

    words = kind_words("obb")
    rows = legend_entries(words, sources=("", "tree from coal.bin"))
    assert rows[0][0] == f"mesh A and its {words.plural}"
    assert rows[1][0] == f"mesh B and its {words.plural} (tree from coal.bin)"
    one = legend_entries(words, is_one_mesh=True, sources=("tree from mine.json",))
    assert one[0][0] == f"the mesh and its {words.plural} (tree from mine.json)"
    long_name = "tree from " + "x" * 80 + ".bin"
    frame = SimpleNamespace(tree_sources=[None, long_name])
    a, b = pinned_tree_words(frame)
    assert a == "" and len(b) <= PINNED_LABEL_CHARS and b.endswith("xx.bin") and "\u2026" in b
    assert pinned_tree_words(SimpleNamespace(tree_sources=None)) == ()
