"""The experiments framework: registry, progress and cancel, CSV, figure files."""

from __future__ import annotations

import csv
import threading

import numpy as np
import pytest

from core.bv import BV_KINDS
from core.experiments import (
    EXPERIMENTS,
    Cancelled,
    ExperimentOptions,
    Progress,
    csv_text,
    make_figure,
    run_experiment,
    write_outputs,
)
from core.experiments.common import concentric_spheres, facet_offsets, loglog_slope, sphere_mesh
from core.experiments.pcp import GAPS, fit_range
from tests.core.helpers import progress_cancelled_at

#: Triangles per sphere of the framework's runs: small, so each run takes a fraction of a
#: second; the sphere has 224 (the rings nearest 200).
TINY = 200
TINY_FACES = 224


@pytest.fixture(scope="module")
def pcp_result():
    return run_experiment("pcp", ExperimentOptions(sizes=(TINY,)))


def test_registry_holds_the_experiments_in_the_issue_order():
    names = list(EXPERIMENTS)
    assert names[0] == "pcp"
    for name, experiment in EXPERIMENTS.items():
        assert experiment.name == name and experiment.title and experiment.source
        assert experiment.sizes_meaning and experiment.default_sizes and experiment.quick_sizes


def test_unknown_name_lists_the_names():
    with pytest.raises(ValueError, match="unknown experiment 'nope'; one of pcp") as info:
        run_experiment("nope")
    assert "\n" not in str(info.value)


def test_bad_sizes_are_refused_in_one_line():
    for sizes in ((0,), (), (2.5,), ("2k",), (True,)):
        with pytest.raises(ValueError, match="sizes must be whole numbers"):
            run_experiment("pcp", ExperimentOptions(sizes=sizes))
    with pytest.raises(ValueError, match="frames must be a whole number of at least 1, got 0"):
        run_experiment("sat-axes", ExperimentOptions(frames=0))
    with pytest.raises(ValueError, match="at least 16, got 8"):
        run_experiment("pcp", ExperimentOptions(sizes=(8,)))


def test_sizes_giving_the_same_sphere_run_once():
    result = run_experiment("pcp", ExperimentOptions(sizes=(64, 200, 66, 64)))
    assert result.summary["triangles"] == [sorted({r[0] for r in result.rows})[0], TINY_FACES]
    assert len(result.rows) == 2 * len(GAPS) * len(BV_KINDS)


def test_csv_has_a_header_saying_what_each_column_is(pcp_result):
    text = csv_text(pcp_result, EXPERIMENTS["pcp"].source)
    lines = text.splitlines()
    comments = [line for line in lines if line.startswith("# ")]
    assert comments[0] == "# Parallel close proximity"
    assert comments[1].startswith("# source: S. Gottschalk") and "1996" in comments[1]
    assert comments[2:] == [f"# {c.name}{f' ({c.unit})' if c.unit else ''}: {c.meaning}"
                            for c in pcp_result.columns]  # fmt: skip
    table = list(csv.reader(lines[len(comments):]))
    assert table[0] == [c.name for c in pcp_result.columns]
    rows = table[1:]
    assert len(rows) == len(GAPS) * len(BV_KINDS) == len(pcp_result.rows)
    assert {r[2] for r in rows} == set(BV_KINDS)
    first = rows[0]
    assert int(first[0]) == pcp_result.rows[0][0] and float(first[1]) == pytest.approx(GAPS[0])
    assert int(first[3]) == pcp_result.rows[0][3] > 0


def test_pcp_counts_and_slopes_agree_with_the_rows(pcp_result):
    summary = pcp_result.summary
    assert summary["contacts"] == 0 and all(r[5] == 0 for r in pcp_result.rows)
    for kind in BV_KINDS:
        tests = [r[3] for r in pcp_result.rows if r[2] == kind]
        assert len(tests) == len(GAPS)
        # Closer spheres need more tests (up to a plateau: a few pairs more or less there).
        assert tests[-1] > tests[0], kind
        fit = fit_range(tests)
        assert fit[:2].all() and [r[6] for r in pcp_result.rows if r[2] == kind] == list(fit)
        gaps = np.array(GAPS)[fit]
        assert summary["slopes"][kind] == pytest.approx(
            loglog_slope(gaps, np.array(tests)[fit]))
    assert "No query found a contact" in pcp_result.reading
    assert f"{summary['slopes']['aabb']:+.2f}" in pcp_result.reading


def test_figure_has_labelled_axes_a_slope_legend_and_the_caption(pcp_result):
    fig = make_figure(pcp_result)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert "gap" in ax.get_xlabel() and "(tests)" in ax.get_ylabel()
    labelled = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert len(labelled) == len(BV_KINDS)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    slope = pcp_result.summary["slopes"]["obb"]
    assert any(label.startswith("obb") and f"{abs(slope):.2f}" in label for label in labels)
    texts = " ".join(t.get_text() for t in fig.texts)
    assert "Gottschalk" in texts and "1996" in texts


def test_write_outputs_writes_png_svg_and_csv(pcp_result, tmp_path):
    paths = write_outputs(pcp_result, tmp_path)
    assert paths == {ext: tmp_path / f"pcp.{ext}" for ext in ("png", "svg", "csv")}
    assert paths["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = paths["svg"].read_text()
    assert "<svg" in svg and len(svg) > 10_000
    assert paths["csv"].read_text() == csv_text(pcp_result, EXPERIMENTS["pcp"].source)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pcp.csv", "pcp.png", "pcp.svg"]


def test_write_outputs_refuses_a_missing_folder(pcp_result, tmp_path):
    with pytest.raises(OSError, match="does not exist"):
        write_outputs(pcp_result, tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError, match="is not a folder"):
        write_outputs(pcp_result, tmp_path / "file")


def test_cancel_mid_run_raises_cancelled_and_stops_reporting():
    progress, seen = progress_cancelled_at(3)
    with pytest.raises(Cancelled):
        run_experiment("pcp", ExperimentOptions(sizes=(TINY,)), progress)
    assert len(seen) == 3 and progress.is_cancelled
    assert seen[0][1] == len(GAPS) * len(BV_KINDS)  # total: every (gap, kind) query


def test_progress_cancel_from_another_thread():
    progress = Progress()
    progress.check()
    progress.report(0, 1, "start")
    worker = threading.Thread(target=progress.cancel)
    worker.start()
    worker.join()
    assert progress.is_cancelled
    with pytest.raises(Cancelled):
        progress.check()
    with pytest.raises(Cancelled):
        progress.report(1, 1, "after")


def test_sphere_mesh_is_closed_and_outward():
    mesh = sphere_mesh(800)
    assert abs(mesh.n_faces - 800) < 60
    edges = np.sort(mesh.faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    _, uses = np.unique(edges, axis=0, return_counts=True)
    assert (uses == 2).all()  # every edge shared by two faces: closed
    corners = mesh.vertices[mesh.faces]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    assert (np.einsum("ij,ij->i", normals, corners.mean(axis=1)) > 0).all()


@pytest.mark.parametrize("gap", [1e-1, 1e-4])
def test_concentric_spheres_are_exactly_gap_apart(gap):
    inner, outer = concentric_spheres(300, gap)
    # Distance from each inner vertex to each outer facet plane, least over all: the gap.
    corners = outer.vertices[outer.faces]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normals /= np.linalg.norm(normals, axis=1)[:, None]
    offsets = np.einsum("ij,ij->i", normals, corners[:, 0])
    distances = offsets[None, :] - inner.vertices @ normals.T
    assert distances.min() == pytest.approx(gap, rel=1e-9)
    assert facet_offsets(outer).min() > facet_offsets(inner).min()


def test_fit_range_stops_at_the_bend():
    # A line of slope -2 that bends to a plateau of 1000 after the third gap.
    tests = [10, 100, 300, 900, 1000, 1000, 1000]
    assert fit_range(tests).tolist() == [True, True, True, False, False, False, False]
    # Saturated from the start: the two widest gaps still give a slope.
    assert fit_range([900, 1000, 1000]).tolist() == [True, True, False]
    # A dip under the threshold after the bend does not rejoin the fit.
    assert fit_range([10, 20, 600, 200, 1000]).tolist() == [True, True, False, False, False]


def test_loglog_slope_of_a_power_law():
    x = np.array([1e-1, 1e-2, 1e-3])
    assert loglog_slope(x, 5.0 * x**-2) == pytest.approx(-2.0)
    assert np.isnan(loglog_slope([1.0], [2.0]))


def test_scenes_result_titles_orders_rows_and_draws_with_the_scene_title():
    from core.experiments.base import Column, Experiment, scenes_result

    columns = (Column("b", "", "second key, first column"), Column("a", "", "first key"))
    experiment = Experiment(name="made-up", title="Made up", source="", sizes_meaning="",
                            default_sizes=(1,), quick_sizes=(1,), run=lambda o, p: None)
    drawn = []
    result = scenes_result(experiment, "two cubes", columns, [{"a": 1, "b": 2}], "reading",
                           "caption", {"k": 1}, lambda *args: drawn.append(args))  # fmt: skip
    assert (result.name, result.title) == ("made-up", "Made up: two cubes")
    assert result.rows == [(2, 1)] and result.seconds == 0.0
    assert (result.reading, result.caption, result.summary) == ("reading", "caption", {"k": 1})
    result.draw("FIG")
    assert drawn == [("FIG", [{"a": 1, "b": 2}], "two cubes", "caption")]
