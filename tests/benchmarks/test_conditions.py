"""Every benchmark table says the load and the repeats it was measured under, and warns when
the load was above 1.5 (issue 27, item 6). Loads are made up: nothing is timed."""

from __future__ import annotations

import subprocess

import pytest

from benchmarks import bv_refit, conditions, frame_rate, targets, w2_kinds, yu2018
from benchmarks.conditions import Conditions


@pytest.fixture
def loads(monkeypatch):
    """Make ``load_average`` return the given values in turn."""
    values = []
    monkeypatch.setattr(conditions, "load_average", lambda: values.pop(0))
    return values


def test_the_load_is_read_before_and_after_and_the_higher_counts(loads):
    loads += [0.4, 1.2]
    with Conditions(5) as measured:
        assert measured.load_start == 0.4 and measured.load_end is None
    assert measured.words() == "load 0.4->1.2, 5 repeats"
    assert measured.load == 1.2
    assert measured.lines("the table") == ["  measured at load 0.4->1.2, 5 repeats"]


def test_a_load_above_one_and_a_half_gives_a_warning_naming_the_table(loads):
    loads += [0.9, 1.6]
    with Conditions(3) as measured:
        pass
    assert measured.lines("the W2 kind table at 100k") == [
        "  measured at load 0.9->1.6, 3 repeats",
        "warning: the W2 kind table at 100k was measured at load 1.6 (above 1.5): rerun on "
        "an idle machine before reporting a PASS"]
    assert Conditions(3, 1.5, 1.5).warning("x") is None  # the limit itself is not above it


def test_an_unknown_load_is_a_question_mark_and_never_a_warning():
    unknown = Conditions(7)
    assert unknown.words() == "load ?->?, 7 repeats"
    assert unknown.warning("x") is None


def test_the_targets_warning_is_the_same_sentence():
    spec = targets.TARGETS[0]
    outcome = targets.Outcome(spec, 0.4, load=2.0, repeats=5)
    assert targets.load_warnings([outcome]) == [
        conditions.high_load_warning(outcome.title, 2.0)]


def test_the_frame_rate_line_says_load_and_frames_and_warns(loads):
    loads += [1.0, 2.2]
    small = frame_rate.FRAME_RATE_TARGETS[0]
    table = "frames/second 24.0\n"

    def run(command, **kwargs):
        return subprocess.CompletedProcess(command, 0, table, "")

    outcome = frame_rate.measure(small, n_frames=60, run=run, xvfb=lambda spec: ["xvfb-run"])
    assert outcome.line() == ("frame rate 1280x800: 24.0 fps (target >= 30) MISS; "
                              "load 1.0->2.2, 60 frames")
    text = frame_rate.render([outcome])
    assert text.splitlines()[-1].startswith(
        "warning: frame rate 1280x800 was measured at load 2.2 (above 1.5)")
    again = frame_rate.outcome_from_json(outcome.as_json())
    assert again.conditions == outcome.conditions


def test_the_w2_kind_table_ends_with_its_conditions():
    report = {"label": "100k", "n_tris": 100, "rows": {"aabb": {}}, "fcl": {},
              "conditions": Conditions(3, 0.5, 0.7)}
    assert w2_kinds.format_size(report).splitlines()[-1] == (
        "  measured at load 0.5->0.7, 3 repeats")


def test_the_refit_table_ends_with_its_conditions(loads, monkeypatch):
    loads += [2.0, 2.5]
    monkeypatch.setattr(bv_refit, "sphere_case", lambda label, n: type("C", (), {"mesh": None}))
    monkeypatch.setattr(bv_refit, "_time_kinds_and_fits",
                        lambda label, mesh, repeats, lines: lines.append("  aabb 1.00 ms"))
    assert bv_refit.run("10k", 4) == [
        "  aabb 1.00 ms", "  measured at load 2.0->2.5, 4 repeats",
        "warning: the refit table at 10k was measured at load 2.5 (above 1.5): rerun on an "
        "idle machine before reporting a PASS"]


def test_the_yu_table_ends_with_its_conditions(loads, monkeypatch, capsys):
    loads += [0.2, 0.3]
    row = {"a": "teapot", "b": "spot", "n_a": 1, "n_b": 2, "contacts": 3, "overlap": 1e-3,
           "aabb": 2e-3, "bsp": 3e-3, "same": True}
    monkeypatch.setattr(yu2018, "yu_experiment", lambda a, b, repeats: [row])
    assert yu2018.main(["--repeats", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "  measured at load 0.2->0.3, 2 repeats"
