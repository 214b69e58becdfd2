"""``python -m core experiment NAME [--sizes ...] [--out DIR] [--quick] [--frames N]``, run
in-process."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from core.bv import BV_KINDS
from core.cli import main
from core.cli.experiment import parse_sizes
from core.experiments import EXPERIMENTS
from tests.core.helpers import run_cli


@pytest.fixture(scope="module")
def quick_pcp(tmp_path_factory):
    """``experiment pcp --quick`` once for the module: its output folder and stdout."""
    folder = tmp_path_factory.mktemp("pcp")
    # capsys is per test: capture this one run by hand.
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["experiment", "pcp", "--quick", "--out", str(folder)])
    return code, folder, out.getvalue(), err.getvalue()


def test_writes_the_three_files_and_prints_paths_and_reading(quick_pcp):
    code, folder, out, err = quick_pcp
    assert code == 0 and err == ""  # progress lines only on a terminal
    for ext in ("png", "svg", "csv"):
        path = folder / f"pcp.{ext}"
        assert f"wrote {path}" in out and path.stat().st_size > 0
    assert (folder / "pcp.png").read_bytes()[:4] == b"\x89PNG"
    assert "<svg" in (folder / "pcp.svg").read_text()
    csv = (folder / "pcp.csv").read_text().splitlines()
    assert csv[0] == "# Parallel close proximity"
    assert any(line.startswith("triangles,gap,kind,") for line in csv)
    assert "Slopes of volume tests against the gap" in out
    assert "No query found a contact" in out


def _printed_slopes(out: str) -> dict[str, float]:
    block = out.split("slope of volume tests against the gap (log-log):")[1]
    return {m[1]: float(m[2]) for m in re.finditer(r"^  (\w+)\s+([+-]\d+\.\d+)$", block, re.M)}


def test_pcp_slopes_at_quick_sizes(quick_pcp):
    """At 20k triangles per sphere the AABB and sphere counts rise about as 1/gap^2 between
    the two widest gaps (slope -1.9 and -1.7 measured) before reaching the leaves, and the
    OBB's as 1/gap over four points (-1.1): -1.4 splits them with room on either side.
    """
    slopes = _printed_slopes(quick_pcp[2])
    assert set(slopes) == set(BV_KINDS)
    assert slopes["aabb"] <= -1.4 and slopes["sphere"] <= -1.4
    assert -1.4 <= slopes["obb"] <= -0.8 and -1.4 <= slopes["rss"] <= -0.8
    # The paper's point: tight oriented boxes are clearly flatter than the loose volumes.
    assert slopes["aabb"] < slopes["obb"] - 0.4 and slopes["sphere"] < slopes["obb"] - 0.3


def test_sizes_parse_spaces_commas_and_suffixes():
    assert parse_sizes(["1k,4k"]) == (1000, 4000)
    assert parse_sizes(["1000", "4000"]) == (1000, 4000)
    assert parse_sizes(["1.5k", "2M", "3K,"]) == (1500, 2_000_000, 3000)
    for bad, why in (("abc", "'abc' is not a size"), ("1.5", "'1.5' is not a whole number"),
                     ("0", "'0' is not a whole number of at least 1"), ("-3", "'-3' is not")):
        with pytest.raises(ValueError, match=why):
            parse_sizes([bad])
    with pytest.raises(ValueError, match="at least one size"):
        parse_sizes([","])


def _one_line_error(capsys, *argv) -> str:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


def test_unknown_name_lists_the_names(capsys, tmp_path):
    err = _one_line_error(capsys, "experiment", "pcpp", "--out", tmp_path)
    assert "unknown experiment 'pcpp'" in err and ", ".join(EXPERIMENTS) in err


def test_bad_size_is_one_line(capsys, tmp_path):
    err = _one_line_error(capsys, "experiment", "pcp", "--sizes", "2k,lots", "--out", tmp_path)
    assert "--sizes: 'lots' is not a size" in err
    err = _one_line_error(capsys, "experiment", "pcp", "--sizes", "8", "--out", tmp_path)
    assert "at least 16, got 8" in err
    assert list(tmp_path.iterdir()) == []


def test_out_that_is_a_file_is_one_line(capsys, tmp_path):
    (tmp_path / "taken").write_text("x")
    err = _one_line_error(capsys, "experiment", "pcp", "--quick", "--out", tmp_path / "taken")
    assert "is not a folder" in err and "taken" in err


def test_out_under_a_file_is_not_writable(capsys, tmp_path):
    (tmp_path / "taken").write_text("x")
    err = _one_line_error(capsys, "experiment", "pcp", "--out", tmp_path / "taken" / "sub")
    assert "is not a writable folder" in err


def test_missing_out_folder_is_made(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "experiment", "pcp", "--sizes", "64", "--out", tmp_path / "new")
    assert code == 0 and (tmp_path / "new" / "pcp.csv").is_file()


def test_quick_and_sizes_together_and_bad_frames(capsys, tmp_path):
    err = _one_line_error(capsys, "experiment", "pcp", "--quick", "--sizes", "1k", "--out",
                          tmp_path)  # fmt: skip
    assert "--quick and --sizes" in err
    err = _one_line_error(capsys, "experiment", "pcp", "--frames", "x", "--out", tmp_path)
    assert "--frames: 'x' is not a whole number" in err
