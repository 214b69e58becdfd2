"""``python -m core``: negative numbers in exponent form, --max-pairs, strict streamed JSON,
coordinate bounds and out-of-memory as one-line errors."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from core import contacts
from core.cli import output
from core.cli.output import write_json
from core.pose import Pose
from tests.core.helpers import run_cli


def strict_json(text: str):
    """Parse as JSON that has no NaN or Infinity (Python's json accepts them by default)."""

    def refuse(constant):
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def _one_line_error(code, out, err, *words):
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err
    for word in words:
        assert word in err, err


# ---------------------------------------------------------------------------------------------
# Negative numbers in exponent form are values of every numeric option, never options.


def test_translate_b_takes_a_negative_exponent(capsys, assets_dir, spot):
    path = assets_dir / "spot.obj"
    code, out, err = run_cli(capsys, "contacts", path, path, "--translate-b", "0", "-1e-9", "0",
                             "--json")  # fmt: skip
    assert code == 0, err
    expected = contacts(spot, spot, None, Pose(np.eye(3), (0.0, -1e-9, 0.0)))
    assert strict_json(out)["pairs"] == expected.pairs.tolist()


@pytest.mark.parametrize(
    "command, options",
    [
        ("contacts", ["--translate-b", "-2E-1", "-1e-9", "-0.5e+0"]),
        ("contacts", ["--rotate-b", "-1e0", "0", "1", "-3e1"]),
        ("contacts", ["--max-pairs", "1e1"]),  # whole numbers in float form are integers
        ("distance", ["--translate-b", "-3e0", "0", "-1e-3"]),
        ("distance", ["--rotate-b", "0", "-1e0", "0", "-4.5e1"]),
    ],
)
def test_negative_exponents_are_accepted(capsys, assets_dir, command, options):
    path = assets_dir / "spot.obj"
    code, out, err = run_cli(capsys, command, path, path, *options, "--json")
    assert code == 0, err
    assert strict_json(out)["mesh_a"]["path"] == str(path)


@pytest.mark.parametrize(
    "command, options, message",
    [
        ("contacts", ["--scale-b", "-1e-3"], "--scale-b must be a positive number, got -0.001"),
        ("contacts", ["--leaf-size", "-1e0"], "--leaf-size must be at least 1, got -1"),
        ("contacts", ["--partition", "grid", "--cell-size", "-5e-2"],
         "--cell-size must be a positive number, got -0.05"),
        ("contacts", ["--partition", "octree", "--max-depth", "-1e0"],
         "--max-depth must be at least 0, got -1"),
        ("contacts", ["--partition", "octree", "--capacity", "-4e0"],
         "--capacity must be at least 1, got -4"),
        ("contacts", ["--max-pairs", "-1e0"], "--max-pairs must be at least 0, got -1"),
        ("contacts", ["--translate-b", "0", "-inf", "0"], "--translate-b needs three finite"),
        ("distance", ["--scale-b", "-2E-1"], "--scale-b must be a positive number"),
        ("distance", ["--leaf-size", "-1e1"], "--leaf-size must be at least 1, got -10"),
    ],
)  # fmt: skip
def test_negative_exponents_reach_the_option_checks(capsys, assets_dir, command, options,
                                                    message):  # fmt: skip
    # Before, argparse stopped at "-1e-3" as an unknown option ("expected one argument").
    path = assets_dir / "spot.obj"
    code, out, err = run_cli(capsys, command, path, path, *options)
    _one_line_error(code, out, err, message)


def test_integer_options_refuse_fractions(capsys, assets_dir):
    path = assets_dir / "spot.obj"
    with pytest.raises(SystemExit) as info:
        run_cli(capsys, "contacts", path, path, "--leaf-size", "2.5")
    assert info.value.code == 2 and "not a whole number: '2.5'" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# --max-pairs caps the list and says so; the total is always there.

OVERLAP = ["--translate-b", "0.2", "0", "0"]


def test_max_pairs_caps_json_and_reports_the_total(capsys, assets_dir):
    path = assets_dir / "spot.obj"
    code, out, _ = run_cli(capsys, "contacts", path, path, *OVERLAP, "--json")
    assert code == 0
    full = strict_json(out)
    total = len(full["pairs"])
    assert total > 50 and full["pairs_total"] == total == full["counters"]["contacts"]
    assert full["pairs_truncated"] is False

    code, out, _ = run_cli(capsys, "contacts", path, path, *OVERLAP, "--json", "--max-pairs", 7)
    assert code == 0
    capped = strict_json(out)
    assert capped["pairs"] == full["pairs"][:7]
    assert capped["source_pairs"] == full["source_pairs"][:7]
    assert capped["kinds"] == full["kinds"][:7]
    assert capped["pairs_total"] == total and capped["pairs_truncated"] is True
    assert capped["counters"] == full["counters"] and capped["levels"] == full["levels"]


def test_max_pairs_in_text_and_zero(capsys, assets_dir):
    path = assets_dir / "spot.obj"
    code, out, _ = run_cli(capsys, "contacts", path, path, *OVERLAP, "--max-pairs", 0)
    assert code == 0 and out.count("  A ") == 0
    total = int(out.split("contacts: ")[1].split()[0])
    assert f"  ... and {total} more (--json lists all)" in out
    code, out, _ = run_cli(capsys, "contacts", path, path, *OVERLAP)
    assert out.count("  A ") == 20  # the text default


# ---------------------------------------------------------------------------------------------
# Streamed, strict JSON.


def test_write_json_equals_json_dumps_and_streams(monkeypatch):
    rng = np.random.default_rng(0)
    pairs = rng.integers(0, 10**6, size=(1000, 2)).astype(np.int32)
    report = {"pairs": pairs, "kinds": pairs[:, 0] % 3, "n": 3, "x": 0.25,
              "nested": {"a": [1.5, 2]}}  # fmt: skip
    plain = {**report, "pairs": pairs.tolist(), "kinds": (pairs[:, 0] % 3).tolist()}

    class Recorder(io.StringIO):
        sizes: list[int] = []

        def write(self, s):
            self.sizes.append(len(s))
            return super().write(s)

    monkeypatch.setattr(output, "_JSON_ROWS_PER_WRITE", 64)
    out = Recorder()
    write_json(report, out)
    assert out.getvalue() == json.dumps(plain) + "\n"
    # 1000 rows in blocks of 64: no write holds more than one block of the pair list.
    assert max(out.sizes) < len(out.getvalue()) / 10


def test_write_json_never_writes_nan_or_infinity():
    out = io.StringIO()
    report = {"distance": float("inf"), "point_a": [float("nan"), 1.0, 2.0],
              "timings_ms": {"search": float("-inf")},
              "pairs": np.zeros((0, 2), np.int32)}  # fmt: skip
    write_json(report, out)
    parsed = strict_json(out.getvalue())
    assert parsed == {"distance": None, "point_a": [None, 1.0, 2.0],
                      "timings_ms": {"search": None}, "pairs": []}  # fmt: skip


@pytest.mark.parametrize("command", ["contacts", "distance"])
def test_cli_json_is_strict(capsys, assets_dir, command):
    spot = assets_dir / "spot.obj"
    code, out, err = run_cli(capsys, command, spot, assets_dir / "teapot.obj", "--scale-b", 0.2,
                             "--translate-b", 5, 0, 0, "--json")  # fmt: skip
    assert code == 0, err
    report = strict_json(out)
    if command == "distance":
        assert report["distance"] > 0 and report["pair"][0] >= 0
    else:
        assert report["pairs_total"] == 0 and report["pairs_truncated"] is False


# ---------------------------------------------------------------------------------------------
# Coordinates past the supported bound, and running out of memory: one line, exit 2.


def _huge_obj(tmp_path, value=1e308):
    path = tmp_path / "huge.obj"
    path.write_text(f"v 0 0 0\nv {value!r} 0 0\nv 0 {value!r} 0\nv 0 0 1\n"
                    "f 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n")  # fmt: skip
    return path


@pytest.mark.parametrize("command", ["contacts", "distance"])
@pytest.mark.parametrize("side", ["a", "b"])
def test_coordinates_near_float_max_are_one_line_errors(capsys, tmp_path, assets_dir, command,
                                                        side):  # fmt: skip
    # Before: a SystemError traceback from contacts, and from distance "Infinity" with
    # pair [-1, -1].
    huge, spot = _huge_obj(tmp_path), assets_dir / "spot.obj"
    a, b = (huge, spot) if side == "a" else (spot, huge)
    code, out, err = run_cli(capsys, command, a, b, "--json")
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "huge.obj" in err and "Infinity" not in err


def test_scale_b_that_pushes_b_past_the_bound_is_an_error(capsys, tmp_path, assets_dir):
    # 1e50 is within the bound (2**240, about 1.8e72) by itself, and near enough spot's
    # coordinates (the smallest nonzero one is 4.3e-19) for the exact triangle test's range:
    # a pair may span at most 2**240.
    path = _huge_obj(tmp_path, 1e50)
    code, out, err = run_cli(capsys, "contacts", path, assets_dir / "spot.obj", "--json")
    assert code == 0, err
    code, out, err = run_cli(capsys, "contacts", assets_dir / "spot.obj", path, "--scale-b", 1e23)
    _one_line_error(code, out, err, "huge.obj", "2**240")


def test_memory_error_is_one_line(capsys, assets_dir, monkeypatch):
    def too_big(report, out):
        raise MemoryError

    monkeypatch.setattr(output, "write_json", too_big)
    path = assets_dir / "spot.obj"
    code, out, err = run_cli(capsys, "contacts", path, path, "--json")
    _one_line_error(code, out, err, "out of memory", "--max-pairs")
