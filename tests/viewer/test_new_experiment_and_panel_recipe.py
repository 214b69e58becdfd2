"""The recipes "An experiment" and "A dock panel" of CONTRIBUTING.md, followed for a made-up
experiment and a made-up panel.

The made-up experiment, ``"toy"``, is the block below marked "the experiment's module": a run
that squares its sizes and says whether it ran on a given scene. Its registration is one
``register`` call, done here on the live registry for one test and undone afterwards. The
made-up panel, :class:`FrameCountPanel`, is a label showing the shown frame's number; its
registration is one row of :data:`viewer.qt.panels.docks.PANELS`. Nothing else changes: the
Experiments menu, the Experiments window (with "Use the current scene"), the default layout
and View > Docks must pick them up from the registries alone.

The last tests check the other side: the recipes name the files the additions touch, and no
module of the viewer keeps its own list of experiment names (the list that said which
experiments run on the current scene is a field of the registry entry now).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QLabel, QVBoxLayout, QWidget

import core.experiments as experiments
from core.experiments import EXPERIMENTS, Column, Experiment, ExperimentResult
from viewer.qt.panels import docks
from viewer.qt.panels.docks import PANELS, PanelRow, dock_names
from viewer.words.actions import EXPERIMENTS as EXPERIMENTS_MENU
from viewer.words.actions import VIEW

REPO_ROOT = Path(__file__).resolve().parents[2]
RUN_TIMEOUT_MS = 60_000

#: The files the recipes say an addition touches (the module, and its registry's file).
FILES_A_NEW_EXPERIMENT_TOUCHES = ("core/experiments/<name>.py", "core/experiments/__init__.py")
FILES_A_NEW_PANEL_TOUCHES = ("viewer/qt/panels/<name>.py", "viewer/qt/panels/docks.py")

# -- the experiment's module (core/experiments/toy.py in a real addition) -----------------------

TOY_COLUMNS = (Column("size", "", "the size asked for"),
               Column("square", "", "the size times itself"))


def run_toy(options, progress):
    """Square each size; the summary says whether a scene was given."""
    sizes = options.sizes or (3,)
    rows = []
    for i, size in enumerate(sizes):
        progress.report(i, len(sizes), f"size {size}")
        rows.append((size, size * size))

    def draw(figure):
        axes = figure.add_subplot()
        axes.plot([r[0] for r in rows], [r[1] for r in rows], "o-")
        axes.set_xlabel("size")
        axes.set_ylabel("square")

    scene = options.scene
    return ExperimentResult(
        "toy", "Squares", TOY_COLUMNS, rows, f"{len(rows)} squares.", "Squares of the sizes.",
        {"on_scene": scene is not None, "scene": scene.title if scene else ""}, draw, 0.0)


EXPERIMENT = Experiment(name="toy", title="Squares", source="a made-up experiment",
                        sizes_meaning="numbers to square", default_sizes=(3, 4),
                        quick_sizes=(2,), run=run_toy, takes_scene=True)

# -- the panel's module (viewer/qt/panels/frame_count.py in a real addition) --------------------


class FrameCountPanel(QWidget):
    """The shown frame's number, refreshed on every frame."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.label = QLabel("no frame yet")
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        model.frame_ready.connect(self.refresh)

    def refresh(self, frame) -> None:
        self.label.setText("no frame yet" if frame is None else f"frame {frame.index}")


PANEL_ROW = PanelRow("frame_count_dock", "Frame count", FrameCountPanel,
                     takes_controller=False)

# -- the registrations ---------------------------------------------------------------------------


@pytest.fixture
def toy(monkeypatch):
    """The experiment registered for one test (``experiments.register(EXPERIMENT)`` in a real
    addition); the registry is restored afterwards."""
    monkeypatch.setitem(EXPERIMENTS, EXPERIMENT.name, EXPERIMENT)
    return EXPERIMENT


@pytest.fixture
def frame_count_row(monkeypatch):
    """The panel's row appended to the registry for one test."""
    monkeypatch.setattr(docks, "PANELS", [*PANELS, PANEL_ROW])
    return PANEL_ROW


def _menu_actions(menu) -> list:
    """Every action of ``menu`` and of its sub-menus."""
    found = []
    for action in menu.actions():
        found.append(action)
        if action.menu() is not None:
            found.extend(_menu_actions(action.menu()))
    return found


def test_the_registered_experiment_runs_from_the_command_lines_registry(toy):
    result = experiments.run_experiment("toy", experiments.ExperimentOptions(sizes=(5,)))
    assert result.rows == [(5, 25)]
    assert experiments.get_experiment("toy") is toy


def test_the_experiments_menu_runs_the_new_experiment_on_the_scene(toy, make_window, qtbot):
    window = make_window()
    entry = window.experiments_menu.experiment_actions["toy"]
    assert entry in _menu_actions(window.menus[EXPERIMENTS_MENU])
    assert entry.text() == "Squares…"
    entry.trigger()
    panel = window.docks["experiments_dock"].panel
    assert panel.name == "toy"
    assert panel.catalogue["toy"].takes_scene  # read from the registry entry
    assert not panel.use_scene.isHidden()
    panel.use_scene.setChecked(True)
    panel.quick_button.click()
    window.experiments_menu.run_action.trigger()
    assert window.model.experiment_running == "toy"
    qtbot.waitUntil(lambda: window.model.experiment_running is None, timeout=RUN_TIMEOUT_MS)
    result = panel.result
    assert result is not None and result.name == "toy"
    assert result.rows == [(2, 4)]
    assert result.summary["on_scene"] is True
    assert "sphere" in result.summary["scene"]


def test_the_new_panel_is_a_dock_of_the_default_layout_and_the_view_menu(
        frame_count_row, make_window, qtbot):
    assert dock_names()[-1] == "frame_count_dock"
    window = make_window()
    dock = window.docks["frame_count_dock"]
    assert dock.windowTitle() == "Frame count"
    assert isinstance(dock.panel, FrameCountPanel)
    # Tabbed into the column on the right with the others, in the row's place (the last tab).
    assert window.dockWidgetArea(dock) == Qt.DockWidgetArea.RightDockWidgetArea
    assert dock in window.tabifiedDockWidgets(window.docks[dock_names()[0]])
    toggle = window.dock_actions["frame_count_dock"]
    assert toggle in _menu_actions(window.menus[VIEW])
    assert toggle.toolTip() == "Show or hide the Frame count dock"
    toggle.trigger()
    assert dock.isHidden()
    toggle.trigger()
    assert not dock.isHidden()
    # It works: the frame shown is the one it names, after the next frame too.
    assert dock.panel.label.text() == f"frame {window.model.frame.index}"
    first = window.model.frame.index
    window.table_actions["tools.step_frame"].trigger()
    qtbot.waitUntil(lambda: window.model.frame.index != first, timeout=RUN_TIMEOUT_MS)
    assert dock.panel.label.text() == f"frame {window.model.frame.index}"


def test_a_layout_remembered_before_the_panel_existed_keeps_the_new_dock(
        make_window, settings, monkeypatch):
    """No layout version to bump: a dock missing from the remembered layout stays where the
    default layout put it, tabbed and shown."""
    first = make_window()
    first.close()  # remembers its layout, without the new dock
    monkeypatch.setattr(docks, "PANELS", [*PANELS, PANEL_ROW])
    window = make_window(window_settings=settings)
    dock = window.docks["frame_count_dock"]
    assert not dock.isHidden() and not dock.isFloating()
    assert dock in window.tabifiedDockWidgets(window.docks[dock_names()[0]])


def test_the_made_up_additions_are_gone_after_their_tests():
    assert "toy" not in EXPERIMENTS
    assert "frame_count_dock" not in dock_names()


def _recipe(title: str) -> str:
    """The section ``title`` of CONTRIBUTING.md, its lines joined by single spaces."""
    text = (REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    return " ".join(text.split(f"## {title}", 1)[1].split("\n## ", 1)[0].split())


def test_a_new_experiment_is_one_module_and_its_registration():
    recipe = _recipe("An experiment")
    assert ("**one module in `core/experiments/`** and **one `register` call in "
            "`core/experiments/__init__.py`**") in recipe
    assert f"Files a new experiment touches: {len(FILES_A_NEW_EXPERIMENT_TOUCHES)}" in recipe


def test_a_new_dock_panel_is_one_module_and_one_row():
    recipe = _recipe("A dock panel")
    assert ("**one module in `viewer/qt/panels/`** and **one row of `PANELS` in "
            "`viewer/qt/panels/docks.py`**") in recipe
    assert f"Files a new dock panel touches: {len(FILES_A_NEW_PANEL_TOUCHES)}" in recipe


# -- no module of the viewer lists experiments by name ------------------------------------------

#: Viewer modules that list experiment names on purpose, with the reason.
LISTS_EXPERIMENTS_ON_PURPOSE = {
    "lessons/checking.py": "a lesson naming an experiment of another build still reads "
                           "(EXPERIMENT_NAMES: the names it may know besides the registry's)",
}


def experiment_lists(source: str, names: set[str]) -> list[int]:
    """Lines of a tuple, list, set or dict literal holding two or more experiment names."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        items = (node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set))
                 else node.keys if isinstance(node, ast.Dict) else [])
        found = [e for e in items if isinstance(e, ast.Constant) and e.value in names]
        if len(found) >= 2:
            lines.append(node.lineno)
    return lines


def test_the_check_sees_a_list_of_experiments():
    names = set(EXPERIMENTS)
    assert experiment_lists('X = frozenset({"sat-axes", "splits"})', names) == [1]
    assert experiment_lists('MODES = ("refit", "rebuild", "auto")', names) == []


def test_no_viewer_module_lists_experiments():
    names = set(EXPERIMENTS)
    viewer = REPO_ROOT / "viewer"
    found = {}
    for path in sorted(viewer.rglob("*.py")):
        lines = experiment_lists(path.read_text(encoding="utf-8"), names)
        name = str(path.relative_to(viewer))
        if lines and name not in LISTS_EXPERIMENTS_ON_PURPOSE:
            found[name] = lines
    assert found == {}
