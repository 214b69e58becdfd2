"""``python -m core contacts``: text, JSON, pose options and errors."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from core import contacts
from core.pose import Pose, rotation_matrix
from tests.core.helpers import run_cli


def test_json_pairs_equal_the_api(capsys, assets_dir, spot, teapot):
    code, out, err = run_cli(
        capsys, "contacts", assets_dir / "spot.obj", assets_dir / "teapot.obj",
        "--scale-b", 0.22, "--rotate-b", 0, 1, 0, 30, "--translate-b", 0.1, 0.05, 0.2, "--json",
    )  # fmt: skip
    assert code == 0, err
    report = json.loads(out)
    small = teapot.with_vertices(teapot.vertices * 0.22)
    pose = Pose(rotation_matrix((0, 1, 0), math.radians(30)), (0.1, 0.05, 0.2))
    expected = contacts(spot, small, None, pose)
    assert report["pairs"] == expected.pairs.tolist()
    assert len(report["pairs"]) > 100
    assert report["counters"]["contacts"] == len(report["pairs"])
    assert report["counters"]["bv_tests"] == expected.counters.n_bv_tests
    assert sum(row["tested"] for row in report["levels"]) == report["counters"]["bv_tests"]
    assert report["levels"][0] == {"level": 0, "tested": 1, "overlapping": 1, "leaf_pairs": 0}
    assert set(report["timings_ms"]) == {"load", "build", "traverse", "tritri"}


def test_scale_is_applied_before_rotation_and_translation(capsys, assets_dir, spot):
    # Scaling about B's own origin then translating: spot scaled 2x and moved by its
    # translation only touches where the world-space result says it does.
    code, out, _ = run_cli(capsys, "contacts", assets_dir / "spot.obj", assets_dir / "spot.obj",
                           "--scale-b", 2.0, "--translate-b", 0.3, 0, 0, "--json")  # fmt: skip
    assert code == 0
    big = spot.with_vertices(spot.vertices * 2.0)
    expected = contacts(spot, big, None, Pose(np.eye(3), (0.3, 0, 0)))
    assert json.loads(out)["pairs"] == expected.pairs.tolist()


def test_polygon_ids_are_triangles_after_triangulation(capsys, assets_dir, suzanne):
    suzanne_path = assets_dir / "suzanne.obj"
    code, out, _ = run_cli(capsys, "contacts", suzanne_path, suzanne_path,
                           "--translate-b", 0.05, 0.02, 0, "--json")  # fmt: skip
    assert code == 0
    report = json.loads(out)
    pairs = np.array(report["pairs"])
    assert pairs.max() < suzanne.n_faces and pairs.max() >= 500  # triangle ids, not quad ids
    src = np.array(report["source_pairs"])
    assert np.array_equal(src[:, 0], suzanne.source_face_ids[pairs[:, 0]])
    assert src.max() < 500


def test_text_output_lists_pairs_levels_and_times(capsys, assets_dir):
    code, out, _ = run_cli(capsys, "contacts", assets_dir / "spot.obj", assets_dir / "spot.obj",
                           "--translate-b", 0.2, 0, 0, "--max-pairs", 3)  # fmt: skip
    assert code == 0
    assert "contacts:" in out and "level  tested  overlapping  leaf pairs" in out
    assert "more (--json lists all)" in out
    assert out.count("  A ") == 3


def test_text_pairs_use_the_frame_tables_kind_words(capsys, assets_dir, monkeypatch):
    # One words table for a contact's kind: the CLI's pair lines read core.lab.tables's, as the
    # app's frame tables and exports do (the CLI once spelled ContactKind's names itself).
    from core.lab import tables

    monkeypatch.setattr(tables, "CONTACT_KIND_WORDS", dict.fromkeys((1, 2, 3), "KINDWORD"))
    code, out, _ = run_cli(capsys, "contacts", assets_dir / "spot.obj", assets_dir / "spot.obj",
                           "--translate-b", 0.2, 0, 0, "--max-pairs", 3)  # fmt: skip
    assert code == 0
    assert [line.split()[-1] for line in out.splitlines() if line.startswith("  A ")] == [
        "KINDWORD"] * 3
    assert tables.contact_kind_word(9) == "9"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["missing.obj", "{spot}"], "missing.obj"),
        (["{spot}", "{spot}", "--scale-b", "0"], "--scale-b"),
        (["{spot}", "{spot}", "--leaf-size", "0"], "--leaf-size"),
        (["{spot}", "{spot}", "--rotate-b", "0", "0", "0", "10"], "axis"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, assets_dir, argv, message):
    argv = [a.format(spot=assets_dir / "spot.obj") for a in argv]
    code, out, err = run_cli(capsys, "contacts", *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err


def test_corrupt_file_is_one_line_and_exit_2(capsys, tmp_path, assets_dir):
    bad = tmp_path / "broken.stl"
    bad.write_bytes(b"solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0")
    code, _, err = run_cli(capsys, "contacts", bad, assets_dir / "spot.obj")
    assert code == 2 and "broken.stl" in err and err.count("\n") == 1


def test_module_entry_point_and_help(assets_dir):
    done = subprocess.run(
        [sys.executable, "-m", "core", "contacts", "--help"], capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    assert "triangles after that split" in done.stdout and "--translate-b" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "core", "contacts", "nope.ply", str(assets_dir / "spot.obj")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "nope.ply" in bad.stderr


@pytest.mark.parametrize("kind", ["grid", "octree", "kdtree", "bsp"])
def test_partition_gives_the_tree_contacts(capsys, assets_dir, kind):
    common = [assets_dir / "spot.obj", assets_dir / "teapot.obj", "--scale-b", 0.22,
              "--rotate-b", 0, 1, 0, 30, "--translate-b", 0.1, 0.05, 0.2, "--json"]  # fmt: skip
    _, tree_out, _ = run_cli(capsys, "contacts", *common)
    code, out, err = run_cli(capsys, "contacts", *common, "--partition", kind)
    assert code == 0, err
    report = json.loads(out)
    assert report["partition"] == kind
    assert report["pairs"] == json.loads(tree_out)["pairs"]
    c = report["counters"]
    assert c["contacts"] == len(report["pairs"]) and c["candidates"] >= c["contacts"]
    assert c["candidates_before_dedup"] >= c["candidates"] and c["shared_cells"] > 0


def test_partition_options_and_text(capsys, assets_dir):
    spot = assets_dir / "spot.obj"
    code, out, _ = run_cli(capsys, "contacts", spot, spot, "--translate-b", 0.2, 0, 0,
                           "--partition", "grid", "--cell-size", 0.05)  # fmt: skip
    assert code == 0 and "partition: grid" in out and "candidate pairs" in out
    code, _, err = run_cli(capsys, "contacts", spot, spot, "--partition", "grid", "--capacity", 4)
    assert code == 2 and err.startswith("error: ") and "capacity" in err


def test_obb_fit_and_obbtree_split_give_the_tree_contacts(capsys, assets_dir):
    """Every OBB fit, on the OBBTree split, finds the default query's pairs; the fits differ
    in how many boxes they test."""
    common = [assets_dir / "spot.obj", assets_dir / "teapot.obj", "--scale-b", 0.22,
              "--rotate-b", 0, 1, 0, 30, "--translate-b", 0.1, 0.05, 0.2, "--json"]  # fmt: skip
    _, tree_out, _ = run_cli(capsys, "contacts", *common)
    tests = {}
    for fit in ("vertices", "surface"):
        code, out, err = run_cli(capsys, "contacts", *common, "--bv", "obb", "--split", "obb",
                                 "--obb-fit", fit)  # fmt: skip
        assert code == 0, err
        report = json.loads(out)
        assert report["obb_fit"] == fit and report["split"] == "obb"
        assert report["pairs"] == json.loads(tree_out)["pairs"]
        tests[fit] = report["counters"]["bv_tests"]
    assert tests["vertices"] != tests["surface"]
    with pytest.raises(SystemExit) as bad:
        run_cli(capsys, "contacts", *common, "--bv", "obb", "--obb-fit", "nope")
    assert bad.value.code == 2 and "--obb-fit" in capsys.readouterr().err
