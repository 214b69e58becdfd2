"""Every verdict is about the frame on screen: the cross-check compares the shown frame's own
pairs (its pinned tree included), and a failed frame is marked while every panel names the
frame and the tree its numbers come from."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PyQt6.QtWidgets import QApplication

from core.mesh import TriMesh
from tests.viewer.conftest import settle
from tests.viewer.helpers import open_quality_dock
from viewer.scenes import sphere

OWN = "BVH Lab's AABB tree (midpoint split)"


def _pairs(pairs) -> set:
    return {(int(i), int(j)) for i, j in pairs}


def _shrunk_leaf_file(saved, out, triangle: int) -> int:
    """Shrink, in a saved JSON tree, the box of the leaf holding ``triangle`` to a hundredth
    of its size at its low corner (the traversal then misses its contacts). Returns the
    leaf's id in the file."""
    data = json.loads(saved.read_text())
    first, count = np.asarray(data["first"]), np.asarray(data["count"])
    order = np.asarray(data["order"])
    leaf = next(int(n) for n in np.flatnonzero(count > 0)
                if triangle in order[first[n]:first[n] + count[n]])
    bounds = np.asarray(data["bounds"], dtype=np.float64)
    bounds[leaf, 3:] = bounds[leaf, :3] + 0.01 * (bounds[leaf, 3:] - bounds[leaf, :3])
    data["bounds"] = bounds.tolist()
    out.write_text(json.dumps(data))
    return leaf


def _wait_check(qtbot, dialog):
    qtbot.waitUntil(lambda: dialog.check is not None, timeout=120_000)
    QApplication.processEvents()


def test_cross_check_of_a_shrunk_leaf_tree_lists_exactly_the_missed_pairs(qtbot, window,
                                                                          tmp_path):
    pytest.importorskip("fcl")
    full = window.model.frame
    saved, mine = tmp_path / "a.json", tmp_path / "mine.json"
    assert window.controller.inspector.save_tree_file(0, str(saved))
    _shrunk_leaf_file(saved, mine, int(full.result.pairs[0, 0]))
    assert window.controller.inspector.open_tree_file(0, str(mine))
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.model.frame is not full, timeout=60_000)
    frame = window.model.frame
    assert frame.tree_sources[0] == "tree from mine.json"
    missed = _pairs(full.result.pairs) - _pairs(frame.result.pairs)
    assert missed and frame.result.n_contacts < full.result.n_contacts

    window.crosscheck_action.trigger()
    dialog = window.crosscheck_dialog
    _wait_check(qtbot, dialog)
    n = len(missed)
    # The old check ran a fresh default query and said "identical" here.
    assert dialog.verdict.text().startswith(
        f"frame {frame.index}, A: tree from mine.json, B: {OWN}: differs: {n} "
        f"pair{'s' if n > 1 else ''} only python-fcl reports "
        f"({frame.result.n_contacts:,} pairs agreed)")
    assert "#D55E00" in dialog.verdict.styleSheet()
    rows = [[dialog.table.item(r, c).text() for c in range(3)]
            for r in range(dialog.table.rowCount())]
    assert rows == [[f"{a}, {b}", "python-fcl only", "0 (touching or crossing)"]
                    for a, b in sorted(missed)]
    assert f"frame {frame.index}, A: tree from mine.json" in dialog.intro.text()
    assert not dialog.moved_on.isVisible()

    # The view moves on: the verdict stays, and says which frame it is about.
    window.controller.frames.request_frame()
    qtbot.waitUntil(lambda: window.model.frame is not frame, timeout=60_000)
    QApplication.processEvents()
    assert dialog.moved_on.isVisible()
    assert dialog.moved_on.text() == (
        f"This verdict is about frame {frame.index}; the view now shows frame "
        f"{window.model.frame.index}. Run the cross-check again to compare that frame.")


def _headers(window) -> dict:
    docks = window.docks
    return {"quality": docks["quality_dock"].panel.header.text(),
            "invariants": docks["quality_dock"].panel.check_header.text(),
            "stats": docks["stats_dock"].panel.header.text(),
            "outliner": docks["outliner_dock"].panel.header.text()}


def test_a_failed_frame_is_marked_and_every_panel_names_its_frame_and_tree(
        qtbot, window, tmp_path, monkeypatch):
    quality = open_quality_dock(qtbot, window)
    good = window.model.frame
    n = good.index
    assert good.result.n_contacts > 0 and window.renderer.cell_count("contact_tris") > 0
    saved = tmp_path / "a.json"
    assert window.controller.inspector.save_tree_file(0, str(saved))

    def out_of_memory(*_args, **_kwargs):
        raise MemoryError("the traversal ran out of memory")

    # The query fails with the pinned tree (as a tree whose boxes overlap too much did): the
    # frame on screen stays the last good one, computed with BVH Lab's own tree.
    monkeypatch.setattr(window.controller.frames.pipe, "step", out_of_memory)
    assert window.controller.inspector.open_tree_file(0, str(saved))
    qtbot.waitUntil(lambda: window.model.frame_failure is not None, timeout=60_000)
    QApplication.processEvents()
    assert window.model.frame is good and window.model.tree_sources[0] == "file a.json, " \
        f"{good.trees[0].n_nodes:,} nodes"
    failed = (f"frame {n + 1} failed: MemoryError: the traversal ran out of memory - "
              f"showing frame {n}")
    mark = failed + "; its contacts are not drawn"
    assert window.renderer.failure_text == mark
    assert "failed: MemoryError" in window.renderer.failure.GetText(2)
    state_label = window.status_line.frame_state_label
    assert state_label.isVisible() and state_label.text() == mark
    assert window.renderer.cell_count("contact_tris") == 0
    assert window.renderer.cell_count("contact_segments") == 0

    # Every panel names the frame and the tree its numbers come from: frame n and BVH Lab's
    # tree (the Quality header once named the pinned file over these numbers).
    stale = f"\n{failed}: these numbers are frame {n}'s"
    window.controller.inspector.check_invariants()
    QApplication.processEvents()
    headers = _headers(window)
    assert headers["quality"] == f"Numbers of frame {n}, A: {OWN}" + stale
    assert headers["stats"] == f"Numbers of frame {n}, A: {OWN}, B: {OWN}" + stale
    assert headers["outliner"] == f"Numbers of frame {n}, A: {OWN}, B: {OWN}" + stale
    assert headers["invariants"] == f"Checked: frame {n}, A: {OWN}, B: {OWN}\n{failed}"
    assert f"{OWN}" in quality.totals.text() and "a.json" not in quality.totals.text()
    outliner = window.docks["outliner_dock"].panel
    assert f"A: {good.trees[0].n_nodes:,} nodes, {OWN}" in outliner.note.text()
    assert "[file" not in outliner.items.cell_text(0, 1, 0)  # BVH Lab's ids, not the file's
    window.model.set_display(heat_map="work")
    QApplication.processEvents()
    heat_rows = [t for t in window.renderer.legend_texts if t.startswith("heat map:")]
    assert heat_rows and all(f", frame {n} (a colour bar each)" in t for t in heat_rows)
    window.model.set_display(heat_map="off")
    window.crosscheck_action.trigger()
    if window.controller.analysis.cross_check_engine()[0] is not None:
        _wait_check(qtbot, window.crosscheck_dialog)
        assert window.crosscheck_dialog.verdict.text().startswith(
            f"frame {n}, A: {OWN}, B: {OWN}: identical")
        assert window.crosscheck_dialog.moved_on.text() == failed + "."

    # The query works again: the mark goes, contacts are drawn, the headers name the file.
    monkeypatch.undo()
    window.controller.frames.request_frame()
    qtbot.waitUntil(lambda: window.model.frame is not good, timeout=60_000)
    settle(qtbot, window)
    frame = window.model.frame
    assert window.model.frame_failure is None and frame.index == n + 1
    assert window.renderer.failure_text == ""
    assert not window.status_line.frame_state_label.isVisible()
    assert window.renderer.cell_count("contact_tris") > 0
    qtbot.waitUntil(lambda: window.model.quality.frame is frame, timeout=120_000)
    headers = _headers(window)
    assert headers["quality"] == f"Numbers of frame {n + 1}, A: tree from a.json"
    assert headers["stats"] == f"Numbers of frame {n + 1}, A: tree from a.json, B: {OWN}"
    assert headers["outliner"] == headers["stats"]


def test_a_pinned_tree_that_no_longer_fits_its_mesh_fails_the_frame_visibly(qtbot, window,
                                                                            tmp_path):
    good = window.model.frame
    saved = tmp_path / "a.json"
    assert window.controller.inspector.save_tree_file(0, str(saved))
    assert window.controller.inspector.open_tree_file(0, str(saved))
    qtbot.waitUntil(lambda: window.model.frame is not good, timeout=60_000)
    settle(qtbot, window)
    pinned = window.model.frame
    assert pinned.tree_sources[0] == "tree from a.json"
    # A mesh change (a new rest shape with other triangles) under the pinned tree.
    vertices, faces = sphere(1.0, 20)()
    window.model.set_rest(0, TriMesh(vertices, faces))
    qtbot.waitUntil(lambda: window.model.frame_failure is not None, timeout=60_000)
    QApplication.processEvents()
    text = window.renderer.failure_text
    assert text.startswith(f"frame {pinned.index + 1} failed: Body ")
    assert text.endswith(f"unpin it first - showing frame {pinned.index}; its contacts are "
                         "not drawn")
    stats = window.docks["stats_dock"].panel.header.text()
    assert stats.startswith(f"Numbers of frame {pinned.index}, A: tree from a.json, B: {OWN}\n"
                            f"frame {pinned.index + 1} failed: Body ")
    assert window.renderer.cell_count("contact_tris") == 0
