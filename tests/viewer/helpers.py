"""Helpers the viewer tests share: screenshots of the canvas and its legend, colour checks on
them, keys and combo choices driven like a user, a controller without a window, the Quality
dock opened, a recorder job waited for, a recorded approach of two spheres, a tree written
as another engine would. Fixtures and the wait helpers (``settle``, ``wait_scene``,
``click``, ``drag``, ``qt_point``) are in ``tests/viewer/conftest.py``."""

from __future__ import annotations

import itertools
import json

import numpy as np
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QApplication, QFileDialog

from tests.core.helpers import foreign_tree
from tests.viewer.colour_vision import MACHADO_2009, delta_e, hex_rgb, simulate
from tests.viewer.conftest import settle

# -- screenshots and the legend on them --------------------------------------------------------
MIN_DELTA_E_CVD = 18.0
"""Least CIE76 difference of two overlays on screen together, under each simulation. 20 was
the aim; no set of eleven colours from the Okabe-Ito and Tol palettes reaches it under all
three simulations (the best found: 18.0), and eleven overlays can be on screen at once."""
MIN_DELTA_E_NORMAL = 25.0


def screenshot(window) -> np.ndarray:
    """``(h, w, 3) uint8``: the canvas as drawn now (redrawn first, events processed)."""
    window.redraw()
    QApplication.processEvents()
    return np.asarray(window.plotter.screenshot(return_img=True))[..., :3]


def legend_box(window, image):
    """(rows, cols) slices of the legend box in the image."""
    legend = window.renderer.legend
    height, width = image.shape[:2]
    x0, y0 = legend.GetPosition()
    dx, dy = legend.GetPosition2()
    cols = slice(int(round(x0 * width)), int(round((x0 + dx) * width)))
    rows = slice(height - int(round((y0 + dy) * height)), height - int(round(y0 * height)))
    return rows, cols


def swatch_pixels(window, image) -> dict[str, tuple[int, int]]:
    """Legend text -> (row, col) of a pixel of its swatch, found by its exact colour in the
    legend's swatch column."""
    rows, cols = legend_box(window, image)
    box = image[rows, cols].astype(int)
    swatch_cols = slice(0, max(4, box.shape[1] // 8))
    out = {}
    for text, color in window.renderer.canvas_legend.entries:
        target = hex_rgb(color).astype(int)
        hit = np.argwhere(np.abs(box[:, swatch_cols] - target).sum(axis=2) <= 3)
        assert hit.size, f"no swatch drawn for {text!r}"
        r, c = hit[len(hit) // 2]
        out[text] = (rows.start + int(r), cols.start + int(c))
    return out


def on_screen_together(a: str, b: str) -> bool:
    """Every two rows of one legend (it lists only what is drawn) are checked, the
    closest-points line against the contacts too: it was drawn in the crossing contacts'
    orange, which a student could not tell apart from a contact."""
    return True


def check_apart(window, image, save_dir=None) -> float:
    """Every two legend colours, read back from the screenshot, differ enough in normal
    vision and under each simulated deficiency; returns the least difference seen."""
    where = swatch_pixels(window, image)
    least = np.inf
    for vision in ("normal", *MACHADO_2009):
        seen = simulate(image, vision)
        bound = MIN_DELTA_E_NORMAL if vision == "normal" else MIN_DELTA_E_CVD
        for a, b in itertools.combinations(where, 2):
            if not on_screen_together(a, b):
                continue
            diff = float(delta_e(seen[where[a]], seen[where[b]]))
            least = min(least, diff)
            assert diff >= bound, f"{vision}: {a!r} vs {b!r} differ by only {diff:.1f}"
    return least


def text_heights(window, image) -> list[int]:
    """Heights in pixels of the dark text runs in the legend's text column."""
    rows, cols = legend_box(window, image)
    box = image[rows, cols].astype(int)
    text = box[:, box.shape[1] // 8: -4]
    is_dark = (text.sum(axis=2) < 250).any(axis=1)
    runs, start = [], None
    for i, dark in enumerate(np.append(is_dark, False)):
        if dark and start is None:
            start = i
        elif not dark and start is not None:
            runs.append(i - start)
            start = None
    return runs


def without_legend(window, image: np.ndarray) -> np.ndarray:
    """The image with the legend box painted white (its red swatch is a key, not a contact)."""
    legend = window.renderer.legend
    height, width = image.shape[:2]
    x0, y0 = legend.GetPosition()
    dx, dy = legend.GetPosition2()
    cols = slice(int(x0 * width) - 2, int((x0 + dx) * width) + 2)
    rows = slice(height - int((y0 + dy) * height) - 2, height - int(y0 * height) + 2)
    out = image.copy()
    out[rows, cols] = 255
    return out


# -- keys and choices ---------------------------------------------------------------------
def press_key(window, key, modifier=Qt.KeyboardModifier.NoModifier):
    """A key pressed on the canvas; the window is made active first, as a window manager
    does on a click (shortcuts only reach an active window)."""
    from pytestqt.qtbot import QtBot

    if QApplication.activeWindow() is not window:
        window.activateWindow()
        window.plotter.setFocus()
        for _ in range(200):
            QApplication.processEvents()
            if QApplication.activeWindow() is window:
                break
    QtBot.keyClick(window.plotter, key, modifier)
    QApplication.processEvents()


def stepper_on(window):
    """Step mode switched on with its key (Ctrl+T); returns the Stepper dock's panel."""
    window.docks["stepper_dock"].raise_()
    press_key(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    assert window.model.is_stepping
    return window.docks["stepper_dock"].panel


def choose(combo, data) -> None:
    """Pick the combo box item whose data is ``data`` (it must be there)."""
    index = combo.findData(data)
    assert index >= 0, data
    combo.setCurrentIndex(index)


def legend_entries(window) -> list[str]:
    """The canvas legend's rows as the VTK legend actor holds them."""
    legend = window.renderer.legend
    return [legend.GetEntryString(i) for i in range(legend.GetNumberOfEntries())]


def culled_pair_at_own_depth(frame):
    """A (level, node of A, node of B, separating id) of a culled pair whose A node is what
    the inspector picks at that level: the node at that depth, or a leaf above it (the
    larger-volume rule splits one side per level, so a pair's depths add up to the level)."""
    trace, tree = frame.result.trace, frame.trees[0]
    for d in range(trace.n_levels):
        pairs, overlapped = trace.level(d)
        seps = trace.separating_axis(d)
        for (a, b), is_hit, sep in zip(pairs, overlapped, seps):
            depth = int(tree.depth[a])
            if not is_hit and (depth == d or (tree.count[a] > 0 and depth <= d)):
                return d, int(a), int(b), int(sep)
    raise AssertionError("no culled pair in the trace")


# -- the controller, docks and jobs ------------------------------------------------------------
def windowless_controller(is_threaded=False):
    """``(ViewerModel, Controller)`` without a window; frames run on the calling thread
    unless ``is_threaded``."""
    from viewer.controller import Controller
    from viewer.model import ViewerModel

    model = ViewerModel()
    return model, Controller(model, is_threaded=is_threaded)


def open_quality_dock(qtbot, window):
    """The Quality dock shown and raised, once its numbers are those of the shown frame;
    returns its panel."""
    dock = window.docks["quality_dock"]
    dock.show()
    dock.raise_()
    QApplication.processEvents()
    qtbot.waitUntil(lambda: window.model.quality is not None
                    and window.model.quality.frame is window.model.frame, timeout=120_000)
    return dock.panel


def wait_recorder_job(qtbot, window) -> None:
    """Wait until the recorder's save or open (a worker job) is over."""
    qtbot.waitUntil(lambda: not window.controller.recorder.is_job_running, timeout=60_000)
    QApplication.processEvents()


# -- a recording and a tree file -----------------------------------------------------------
APART = 2.0
"""Sphere B moved this far to the right of its scene pose: the unit spheres no longer meet."""

N_STEPS = 4
STEP = -0.5
"""Then B comes back in four steps of 0.5: apart, apart, touching, the scene pose."""


def record_approach(qtbot, window) -> None:
    """B away from A (the recording cleared there), then back in :data:`N_STEPS` frames."""
    controller = window.controller
    controller.poses.translate_body(1, (APART, 0.0, 0.0))
    settle(qtbot, window)
    controller.recorder.clear_recording()
    settle(qtbot, window)
    qtbot.waitUntil(lambda: len(window.model.recording) == 1, timeout=30_000)
    for _ in range(N_STEPS):
        controller.poses.translate_body(1, (STEP, 0.0, 0.0))
        settle(qtbot, window)
    qtbot.waitUntil(lambda: len(window.model.recording) == N_STEPS + 1, timeout=30_000)


def foreign_tree_copy(tree, out, seed=3):
    """``tree`` written as another engine might (shuffled node ids, children layout), with
    two hand-made mistakes: one leaf's box pulled in along +x (its triangles stick out) and
    another leaf's box pushed out along -y past its parent's. Returns ``(file_id, shrunk,
    grown)``: the file id of each of our nodes and the two leaves (our ids)."""
    keys, file_id = foreign_tree(tree, seed, is_shuffled=False)
    bounds = np.asarray(keys["bounds"])
    leaves = np.flatnonzero(tree.count > 0)
    shrunk, grown = int(leaves[len(leaves) // 3]), int(leaves[2 * len(leaves) // 3])
    lo, hi = bounds[file_id[shrunk], 0], bounds[file_id[shrunk], 3]
    bounds[file_id[shrunk], 3] = lo + 0.25 * (hi - lo)
    parent = int(tree.parent[grown])
    bounds[file_id[grown], 1] = tree.bmin[parent, 1] - 0.125  # 0.125 below its parent's box
    out.write_text(json.dumps({**keys, "bounds": bounds.tolist()}))
    return file_id, shrunk, grown


def answer_file_dialog(monkeypatch, path, method: str = "getOpenFileName") -> None:
    """The system file dialog's ``method`` (``getOpenFileName``, ``getSaveFileName``)
    answers ``path`` from now on, as if the user chose it; no dialog opens."""
    monkeypatch.setattr(QFileDialog, method, staticmethod(lambda *a, **k: (str(path), "")))


def assert_trees_kept(qtbot, window, before) -> None:
    """A new frame (asked for and waited for) still has the trees of frame ``before``: the
    same layout and boxes for both bodies (a refused tree file changed nothing)."""
    window.controller.frames.request_frame()
    settle(qtbot, window)
    after = window.model.frame
    for b in range(2):
        np.testing.assert_array_equal(after.trees[b].first, before.trees[b].first)
        np.testing.assert_array_equal(after.trees[b].bmin, before.trees[b].bmin)
