"""The model's sub-models: ViewerModel composes them and passes its old names on to them."""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtCore import pyqtBoundSignal

from viewer.model import DELEGATED, PARTS, ViewerModel
from viewer.state.display import DEFAULT_LEVEL, Mode
from viewer.state.pipeline import FrameFailure

REPO_ROOT = Path(__file__).resolve().parents[3]
MAX_MODULE_LINES = 600


def test_every_delegated_name_is_the_sub_models_own(qtbot):
    model = ViewerModel()
    seen: set[str] = set()
    for part_name, delegated in DELEGATED.items():
        part = getattr(model, part_name)
        assert isinstance(part, PARTS[part_name])
        assert part.parent() is model
        for kind, names in delegated.items():
            for name in names:
                assert name not in seen, f"{name} is passed on to two sub-models"
                seen.add(name)
                assert hasattr(part, name), f"{part_name} has no {name}"
                if kind == "signals":
                    assert isinstance(getattr(model, name), pyqtBoundSignal)
    # Every signal of a sub-model is reachable under its old name too.
    for part_name, cls in PARTS.items():
        signals = {n for n in dir(cls) if isinstance(getattr(getattr(model, part_name), n, None),
                                                     pyqtBoundSignal)}
        signals -= {"destroyed", "objectNameChanged"}
        assert signals == set(DELEGATED[part_name]["signals"]), part_name


def test_a_signal_and_a_value_reached_through_the_model_are_the_sub_models(qtbot):
    model = ViewerModel()
    got = []
    model.frame_failed.connect(got.append)
    model.frames_model.set_frame_failure(FrameFailure(3, "boom"))
    assert got == [FrameFailure(3, "boom")]
    assert model.frame_failure is model.frames_model.frame_failure
    model.mode = Mode.MOVE  # a value written through the model lands in its sub-model
    assert model.view_model.mode is Mode.MOVE
    with qtbot.waitSignal(model.view_model.level_changed) as blocker:
        model.set_level(2)
    assert blocker.args == [2] and model.level == 2


def test_a_new_scene_clears_every_sub_model(qtbot):
    model = ViewerModel()
    model.set_level(1)
    model.set_step_mode(True)
    model.select_node(0, 4)
    model.set_frame_failure(FrameFailure(7))
    model.set_slow_frame("slow")
    with qtbot.waitSignals([model.step_mode_changed, model.node_selected, model.frame_failed,
                            model.frame_ready]):
        model.set_scene([], "k", "title", "words")
    assert model.scene_model.scene_key == "k"
    assert model.view_model.level == DEFAULT_LEVEL
    assert not model.stepper_model.is_step_mode
    assert model.inspection_model.selected_node is None
    assert model.frames_model.frame_failure is None
    assert model.frames_model.slow_frame == ""


def test_the_model_and_state_modules_stay_small():
    for package in ("viewer/model", "viewer/state"):
        for path in sorted((REPO_ROOT / package).glob("*.py")):
            n = len(path.read_text(encoding="utf-8").splitlines())
            assert n <= MAX_MODULE_LINES, f"{path.name}: {n} lines"
