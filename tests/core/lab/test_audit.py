"""``python -m core audit LOG``: an engine's contact log checked frame by frame against the
exact answer (issue 28 item 3)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from core.cli import main
from core.lab import audit

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "contact-log"
LOG = EXAMPLE / "two-spheres-fcl.jsonl"


def _run(capsys, *argv) -> tuple[int, str, str]:
    status = main(["audit", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def _copy_example(tmp_path) -> Path:
    for item in EXAMPLE.iterdir():
        if item.suffix in (".obj", ".npy", ".jsonl"):
            shutil.copy(item, tmp_path / item.name)
    return tmp_path / LOG.name


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def test_the_shipped_fcl_log_agrees_on_every_frame(capsys):
    status, out, err = _run(capsys, LOG, "--json")
    assert status == 0 and not err
    report = json.loads(out)
    assert set(report) == {"log", "engine", "mesh_a", "mesh_b", "n_frames", "n_disagreeing",
                           "disagreeing_frames", "frames"}
    assert report["engine"].startswith("python-fcl")
    assert report["n_frames"] == 6 and report["n_disagreeing"] == 0
    first = report["frames"][0]
    assert set(first) == {"frame", "line", "agrees", "n_engine", "n_exact", "only_engine",
                          "missed"}
    assert first["n_engine"] == first["n_exact"] == 156  # the Two spheres scene's contacts
    status, text, _ = _run(capsys, LOG)
    assert status == 0 and "agrees with the exact answer on every frame" in text


def test_the_shipped_log_is_what_python_fcl_makes(tmp_path):
    pytest.importorskip("fcl")
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_log", EXAMPLE / "make_log.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made = module.make(tmp_path)
    shipped, fresh = _lines(LOG), _lines(made)
    assert [r.get("pairs") for r in fresh] == [r.get("pairs") for r in shipped]
    assert [r.get("pose_b") for r in fresh] == [r.get("pose_b") for r in shipped]


def test_one_pair_removed_and_one_added_are_reported_as_exactly_those_two(tmp_path, capsys):
    path = _copy_example(tmp_path)
    records = _lines(path)
    frame = records[4]  # frame 3, the one with A's deformed vertices
    removed = frame["pairs"].pop(7)
    frame["distances"].pop(7)
    added = [0, 0]  # two triangles on opposite sides of the spheres: far apart
    assert added not in frame["pairs"]
    frame["pairs"].append(added)
    frame["distances"].append(-0.5)
    _write(path, records)
    status, out, _ = _run(capsys, path, "--json")
    report = json.loads(out)
    assert status == 1 and report["disagreeing_frames"] == [3]
    audited = report["frames"][3]
    assert [[p["a"], p["b"]] for p in audited["missed"]] == [removed]
    assert audited["missed"][0]["exact_gap"] == 0.0  # a contact the engine missed
    assert [[p["a"], p["b"]] for p in audited["only_engine"]] == [added]
    assert audited["only_engine"][0]["exact_gap"] > 0.1  # apart: the engine's false pair
    assert audited["only_engine"][0]["engine_distance"] == -0.5
    status, text, _ = _run(capsys, path)
    assert f"missed: ({removed[0]}, {removed[1]}) touching" in text
    assert "only the engine reports: (0, 0) apart by" in text
    assert "disagrees with the exact answer on 1 of 6 frames: 3" in text


def _bad(tmp_path, mutate) -> str:
    path = _copy_example(tmp_path)
    records = _lines(path)
    mutate(records)
    _write(path, records)
    with pytest.raises(audit.ContactLogError) as caught:
        audit.read_contact_log(path)
    text = str(caught.value)
    assert "\n" not in text and str(path) in text
    return text


@pytest.mark.parametrize("mutate,words", [
    (lambda r: r[0].pop("bvh_lab_contact_log"), "line 1: not a contact log"),
    (lambda r: r[0].update(bvh_lab_contact_log=2), "line 1: version 2 is newer"),
    (lambda r: r[0].update(colour="red"), "line 1: unknown header key 'colour'"),
    (lambda r: r[0].update(mesh_b="missing.obj"), "line 1: 'mesh_b' missing.obj"),
    (lambda r: r[2].update(pairs=[[0, 999999]]), "line 3: 'pairs'[0] names triangle 999999"),
    (lambda r: r[2].update(pairs=[[0]]), "line 3: 'pairs' must be a list of"),
    (lambda r: r[2].update(pose_b=[1, 0, 0]), "line 3: 'pose_b' must be 16 numbers"),
    (lambda r: r[2].update(pose_b=[2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]),
     "line 3: 'pose_b'"),
    (lambda r: r[2].update(distances=[1.0]), "line 3: 'distances' must be one number per pair"),
    (lambda r: r[2].update(speed=3), "line 3: unknown key 'speed'"),
    (lambda r: r[4].update(vertices_a="nowhere.npy"), "line 5: 'vertices_a' nowhere.npy"),
    (lambda r: r[2].update(frame="two"), "line 3: 'frame' must be an integer"),
])
def test_bad_logs_name_the_file_the_line_and_the_problem(tmp_path, mutate, words):
    assert words in _bad(tmp_path, mutate)


def test_a_vertex_file_of_the_wrong_shape_is_named(tmp_path):
    path = _copy_example(tmp_path)
    np.save(tmp_path / "sphere-a-frame3.npy", np.zeros((5, 3)))
    with pytest.raises(audit.ContactLogError, match=r"line 5: 'vertices_a' sphere-a-frame3"):
        audit.read_contact_log(path)


def test_budgets_end_in_one_line(tmp_path, monkeypatch, capsys):
    path = _copy_example(tmp_path)
    monkeypatch.setattr(audit, "MAX_FRAMES", 2)
    status, _, err = _run(capsys, path)
    assert status == 2 and "line 4: more than 2 frames" in err
    monkeypatch.setattr(audit, "MAX_FRAMES", 100)
    monkeypatch.setattr(audit, "MAX_PAIRS_PER_FRAME", 10)
    status, _, err = _run(capsys, path)
    assert status == 2 and "line 2: 156 pairs; a frame may list at most 10" in err
    not_json = tmp_path / "garbage.jsonl"
    not_json.write_text("this is not json\n")
    status, _, err = _run(capsys, not_json)
    assert status == 2 and "garbage.jsonl line 1: not JSON" in err
    empty = _write(tmp_path / "empty.jsonl", [_lines(path)[0]])
    assert "has no frame" in _run(capsys, empty)[2]
