"""The viewer takes every fact about a bounding-volume kind from the core's registry row: the
choice labels, the words of the legend and the inspector, what is drawn, how many are drawn.
It compares no kind's name, so a new kind needs no change here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PyQt6.QtCore import Qt

from core.bv import BV_KINDS
from tests.core.helpers import kind_name_uses
from tests.viewer.conftest import settle
from tests.viewer.helpers import choose, culled_pair_at_own_depth, legend_entries
from viewer.render.volumes import VolumeSet, volumes_groups_polydata
from viewer.render.words import KindWords

VIEWER = Path(__file__).resolve().parents[3] / "viewer"


def test_bounding_volume_combo_shows_every_rows_people_name(window):
    combo = window.docks["pipeline_dock"].panel.volume_choice.bv
    items = [(combo.itemData(i), combo.itemText(i)) for i in range(combo.count())]
    assert items == [(key, row.people_name) for key, row in BV_KINDS.items()]
    for i, row in enumerate(BV_KINDS.values()):
        assert combo.itemData(i, Qt.ItemDataRole.ToolTipRole) == row.description


def test_the_viewer_compares_no_kind_name():
    keys = set(BV_KINDS)
    # The check itself finds what the viewer used to do.
    assert kind_name_uses('if kind.startswith("kdop"):\n    pass', keys, min_letters=1) == [1]
    assert kind_name_uses('x = name in ("aabb", "aabb15")', keys, min_letters=1) == [1]
    assert kind_name_uses('lite = by_kind["aabb"]', keys, min_letters=1) == [1]
    found = {}
    for path in sorted(VIEWER.rglob("*.py")):
        lines = kind_name_uses(path.read_text(), keys, min_letters=1)
        if lines:
            found[str(path.relative_to(VIEWER))] = lines
    assert found == {}


def test_render_draws_a_kind_it_has_never_heard_of():
    """A made-up kind (a tetrahedron per row) is drawn from its records alone."""
    tetra = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    edges = np.array([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)])

    def wire(rows):
        rows = np.asarray(rows).reshape(-1, 4)
        points = (rows[:, None, :3] + rows[:, None, 3:4] * tetra[None]).reshape(-1, 3)
        ids = (np.arange(rows.shape[0])[:, None, None] * 4 + edges[None]).ravel()
        return {"points": points, "line_sizes": np.full(6 * rows.shape[0], 2),
                "line_ids": ids}  # fmt: skip

    rows = np.array([[0.0, 0.0, 0.0, 1.0], [5.0, 0.0, 0.0, 2.0], [0.0, 5.0, 0.0, 0.5]])
    seen = []
    words = KindWords("tetrahedron", "tetrahedra", "tetrahedron pairs",
                      lambda sep: seen.append(sep) or f"face {sep + 1}")
    volumes = VolumeSet("tetra", "Tetrahedra", [rows, rows], wire, words, max_drawn=2)
    pose = np.eye(4)
    pose[:3, 3] = (10.0, 0.0, 0.0)
    poly = volumes_groups_polydata(volumes, [(0, np.array([1, 2]), None), (1, [0], pose)])
    assert poly.n_cells == 3 * 6 and poly.n_points == 3 * 4
    np.testing.assert_allclose(poly.points[:4], [5.0, 0.0, 0.0] + 2.0 * tetra)
    np.testing.assert_allclose(poly.points[8:], [10.0, 0.0, 0.0] + tetra)
    assert words.separation(2) == "face 3" and seen == [2]
    assert words.separation(-1) == "overlapping"


@pytest.mark.parametrize("key", ["kdop14", "lss"])
def test_inspector_and_legend_speak_with_the_rows_words(qtbot, window, key):
    row = BV_KINDS[key]
    choose(window.docks["pipeline_dock"].panel.volume_choice.bv, key)
    poses = window.controller.poses
    poses.rotate_body(1, (0.3, 1.0, 0.2), 0.7, poses.centroid_world(1))
    settle(qtbot, window)
    window.redraw()
    legend = legend_entries(window)
    assert legend[0] == f"mesh A and its {row.noun_plural}"
    assert legend[2] == f"{row.pair_noun} overlapping at this level"

    from core.lab.inspect import inspect_node

    frame = window.model.frame
    level, a, b, sep = culled_pair_at_own_depth(frame)
    info = inspect_node(frame, 0, int(frame.trees[0].triangles_under(a)[0]), level)
    k = info.partners.index(b)
    assert info.partner_separations[k] == row.separating_test(sep)
    assert info.noun == row.noun
    culled = [t for t in info.tests if not t.is_overlap]
    assert culled and all(t.separation == row.separating_test(t.sep) for t in culled)
    window.model.set_inspect(info)
    text = window.docks["levels_dock"].panel.inspect_label.text()
    assert f"{row.noun} {a} of A" in text
