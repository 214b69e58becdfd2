"""The pair budget: a valid but very bad tree (random leaf order, exact boxes) ends in one
:class:`PairBudgetError` line naming the tree and the budget, set through the request, before
the buffers that grow with the pair count pass it; a query can be cancelled."""

from __future__ import annotations

import numpy as np
import pytest

from core.bvh import build_tree
from core.bvh.scramble import scrambled_tree
from core.bvh.treefile import write_tree
from core.bvh.treefile_read import read_tree
from core.bvh.validate import validate_tree
from core.cli import main
from core.collide import collide, self_collide
from core.collide.budget import DEFAULT_PAIR_BUDGET, QueryControl
from core.collide.bvquery import collide_bv
from core.collide.dispatch import run_query
from core.errors import BVHLabError, PairBudgetError, QueryCancelled
from core.io.write import write_mesh
from core.lab.heat import HeatOverBudget, HeatUnavailable, frame_heat
from core.lab.steps import traversal_steps
from core.pipeline import DEFAULT_REQUEST, BodyInput, FramePipeline, PipelineSettings
from core.request import CollisionRequest, FrameOptions
from tests.core.meshgen import sphere_mesh

BUDGET = 20_000


@pytest.fixture(scope="module")
def sphere():
    return sphere_mesh(30)  # 3,480 triangles


@pytest.fixture(scope="module")
def good_tree(sphere):
    return build_tree(sphere)


@pytest.fixture(scope="module")
def bad_tree(sphere, good_tree):
    return scrambled_tree(good_tree, sphere, seed=3)


@pytest.fixture(scope="module")
def bad_file_tree(sphere, bad_tree, tmp_path_factory):
    path = tmp_path_factory.mktemp("trees") / "random.json"
    write_tree(path, bad_tree)
    return read_tree(path, sphere)


def test_the_scrambled_tree_is_valid_and_keeps_the_topology(sphere, good_tree, bad_tree):
    assert validate_tree(bad_tree, sphere.vertices).n_found == 0
    assert np.array_equal(bad_tree.first, good_tree.first)
    assert np.array_equal(bad_tree.count, good_tree.count)
    assert sorted(bad_tree.prim_ids.tolist()) == list(range(sphere.n_faces))
    assert not np.array_equal(bad_tree.prim_ids, good_tree.prim_ids)


@pytest.mark.parametrize("trace", [True, False], ids=["level loop", "depth first"])
def test_bvh_labs_own_bad_tree_ends_in_one_line_naming_it(sphere, good_tree, bad_tree, trace):
    request = CollisionRequest(trace=trace, pair_budget=BUDGET)
    with pytest.raises(PairBudgetError) as info:
        run_query(request, sphere, sphere, trees=(good_tree, bad_tree))
    exc = info.value
    where = f" at level {exc.level}" if trace else ""
    assert str(exc) == (f"BVH Lab's AABB tree of body B: more than 20,000 overlapping volume "
                        f"pairs{where}; its boxes overlap too much")  # fmt: skip
    assert (exc.level is not None) == trace
    assert exc.budget == BUDGET and isinstance(exc, BVHLabError)


def test_a_tree_read_from_a_file_is_named_by_its_file(sphere, good_tree, bad_file_tree):
    request = CollisionRequest(trace=True, pair_budget=BUDGET, bv="obb")
    with pytest.raises(PairBudgetError, match=r"^tree from random\.json: more than 20,000 "
                       r"overlapping volume pairs at level \d+; its boxes overlap too much$"):
        run_query(request, sphere, sphere, trees=(bad_file_tree.tree, good_tree))


def test_the_pipeline_names_a_pinned_file_tree(sphere, bad_file_tree):
    pipe = FramePipeline(PipelineSettings(DEFAULT_REQUEST.replace(pair_budget=BUDGET)))
    pipe.pin_tree("b", bad_file_tree, sphere)
    bodies = [BodyInput("a", sphere), BodyInput("b", sphere)]
    with pytest.raises(PairBudgetError, match=r"^tree from random\.json: more than 20,000 "):
        pipe.step(bodies)
    pipe.unpin("b")
    pipe.settings = PipelineSettings()
    assert pipe.step(bodies).result.n_contacts > 0  # the pipeline stays usable


def test_both_bad_trees_are_named_together(sphere, bad_tree):
    with pytest.raises(PairBudgetError, match=r"^BVH Lab's AABB tree of body A against BVH "
                       r"Lab's AABB tree of body B: more than 20,000 .*; their boxes overlap"):
        collide(sphere, bad_tree, sphere, bad_tree, trace=True, pair_budget=BUDGET)


@pytest.mark.parametrize("bv", [None, "obb"], ids=["tree boxes", "obb"])
@pytest.mark.parametrize("trace", [True, False])
@pytest.mark.parametrize("threads", [1, 2])
def test_the_budget_is_exact_on_a_good_query(sphere, good_tree, trace, threads, bv,
                                             monkeypatch):
    """Exactly as many overlaps as the budget passes; one more fails, with one thread or with
    the frontier split between two (each half counts into its own slot; an unrecorded walk of
    fitted volumes in pieces, each thread's finished pieces added to the head's slot)."""
    import core.collide.traversal_driver as driver

    monkeypatch.setattr(driver.numba, "get_num_threads", lambda: threads)
    monkeypatch.setattr(driver, "SPLIT_FRONTIER", 64)
    shifted = sphere.with_vertices(sphere.vertices + [0.3, 0.0, 0.0])
    tree_b = build_tree(shifted)

    def query(**kwargs):
        if bv is None:
            return collide(sphere, good_tree, shifted, tree_b, trace=trace, **kwargs)
        return collide_bv(sphere, good_tree, shifted, tree_b, bv=bv, trace=trace, **kwargs)

    whole = query()
    n = whole.counters.n_bv_overlaps
    assert n > 1000
    same = query(pair_budget=n)
    assert np.array_equal(same.pairs, whole.pairs)
    assert same.counters == whole.counters
    with pytest.raises(PairBudgetError, match=f"more than {n - 1:,} overlapping"):
        query(pair_budget=n - 1)


def test_self_collision_has_the_budget(sphere, bad_tree):
    with pytest.raises(PairBudgetError, match=r"^BVH Lab's AABB tree of body A: more than "
                       r"20,000 overlapping volume pairs at level \d+; its boxes"):
        self_collide(sphere, bad_tree, pair_budget=BUDGET)
    pipe = FramePipeline(PipelineSettings(
        DEFAULT_REQUEST.replace(pair_budget=BUDGET), frame=FrameOptions(self_collision=True)))
    pipe.pin_tree("a", bad_tree, sphere)
    with pytest.raises(PairBudgetError, match=r"^BVH Lab's AABB tree of body A: more than"):
        pipe.step([BodyInput("a", sphere)])


def test_triangle_pairs_of_large_leaves_count_against_the_budget(sphere):
    tree = build_tree(sphere, leaf_size=256)
    whole = collide(sphere, tree, sphere, tree)
    n_tri = whole.counters.n_tri_tests
    assert n_tri > 10 * whole.counters.n_bv_overlaps
    with pytest.raises(PairBudgetError, match=f"more than {n_tri - 1:,} triangle pairs to test"):
        collide(sphere, tree, sphere, tree, pair_budget=n_tri - 1)


def test_steps_and_heat_refuse_a_trace_longer_than_the_budget(sphere, good_tree):
    """A frame whose traversal kept within its budget of overlaps can still have more traced
    rows (the culled pairs): the stepper and the heat map, about 50 bytes a row, refuse it."""
    shifted = sphere.with_vertices(sphere.vertices + [0.3, 0.0, 0.0])
    bodies = [BodyInput("a", sphere), BodyInput("b", shifted)]
    frame = FramePipeline().step(bodies)
    n_overlaps = frame.result.counters.n_bv_overlaps
    n_rows = int(frame.result.trace.level_start[-1])
    assert n_rows > n_overlaps
    tight = FramePipeline(PipelineSettings(
        DEFAULT_REQUEST.replace(pair_budget=n_overlaps))).step(bodies)
    assert tight.result.counters == frame.result.counters
    with pytest.raises(PairBudgetError, match=f"more than {n_overlaps:,} traced volume pairs "
                       "to step through"):
        traversal_steps(tight)
    with pytest.raises(HeatOverBudget, match=f"more than {n_overlaps:,} traced volume pairs "
                       "to colour by work") as info:
        frame_heat(tight)
    assert isinstance(info.value, HeatUnavailable) and isinstance(info.value, PairBudgetError)
    roomy = FramePipeline(PipelineSettings(
        DEFAULT_REQUEST.replace(pair_budget=n_rows))).step(bodies)
    assert len(traversal_steps(roomy)) == n_rows
    frame_heat(roomy)


def test_a_cancelled_query_stops(sphere, bad_tree):
    control = QueryControl()
    control.cancel()
    for trace in (True, False):
        with pytest.raises(QueryCancelled, match="the collision query was cancelled"):
            collide(sphere, bad_tree, sphere, bad_tree, trace=trace, control=control)
    with pytest.raises(QueryCancelled):
        FramePipeline().step([BodyInput("a", sphere), BodyInput("b", sphere)], control=control)


def test_the_control_reports_progress(sphere, good_tree):
    control = QueryControl()
    result = collide(sphere, good_tree, sphere, good_tree, trace=True, control=control)
    levels, tests, overlaps = control.progress()
    assert (tests, overlaps) == (result.counters.n_bv_tests, result.counters.n_bv_overlaps)
    assert levels == result.trace.n_levels - 1


def test_the_request_checks_the_budget():
    assert CollisionRequest().pair_budget == DEFAULT_PAIR_BUDGET == 50_000_000
    with pytest.raises(ValueError, match="pair_budget must be at least 1, got 0"):
        CollisionRequest(pair_budget=0)
    with pytest.raises(TypeError, match="pair_budget must be an integer"):
        CollisionRequest(pair_budget=1.5)


def test_the_cli_gives_one_line_and_exit_2(capsys, sphere, tmp_path):
    path = write_mesh(tmp_path / "ball.obj", sphere.vertices, sphere.faces)
    code = main(["contacts", str(path), str(path), "--pair-budget", "1000"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith("error: BVH Lab's AABB tree of body A against BVH Lab's AABB tree of "
                          "body B: more than 1,000 overlapping volume pairs at level ")
    assert main(["contacts", str(path), str(path), "--pair-budget", "0"]) == 2
    assert capsys.readouterr().err == "error: --pair-budget must be at least 1, got 0\n"
    assert main(["contacts", str(path), str(path), "--max-pairs", "3", "--json"]) == 0


def test_quality_stops_epo_at_the_budget_with_progress(capsys, sphere, bad_tree, bad_file_tree,
                                                        tmp_path):  # fmt: skip
    """EPO's walk meets every triangle from every node of a random-order tree (nodes x
    triangles): it stops past the budget, after one progress line per phase."""
    from core.bvh import tree_quality

    with pytest.raises(PairBudgetError, match=r"^BVH Lab's AABB tree: more than 100,000 "
                       r"volume-triangle pairs to measure EPO; its boxes overlap too much$"):
        tree_quality(sphere, bad_tree, pair_budget=100_000)
    mesh_path = write_mesh(tmp_path / "ball.obj", sphere.vertices, sphere.faces)
    code = main(["quality", str(mesh_path), "--tree", str(bad_file_tree.path),
                 "--pair-budget", "100000", "--progress"])  # fmt: skip
    lines = capsys.readouterr().err.splitlines()
    assert code == 2
    assert lines[-1] == ("error: tree from random.json: more than 100,000 volume-triangle pairs "
                         "to measure EPO; its boxes overlap too much")  # fmt: skip
    phases = [line.split(" (")[0] for line in lines[:-1]]
    assert phases == [f"quality: loading {mesh_path}", f"quality: reading {bad_file_tree.path}",
                      "quality: aabb volumes of 6,959 nodes", "quality: SAH and sibling overlap",
                      "quality: EPO of 6,959 nodes"]  # fmt: skip
    assert main(["quality", str(mesh_path), "--tree", str(bad_file_tree.path), "--json"]) == 0
    assert capsys.readouterr().err == ""  # not a terminal, no --progress: no progress lines


_CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from core import load_mesh
from core.bvh import build_tree
from core.bvh.scramble import scrambled_tree
from core.collide import collide
from core.errors import PairBudgetError
mesh = load_mesh({path!r})
bad = scrambled_tree(build_tree(mesh), mesh)
try:
    collide(mesh, bad, mesh, bad, trace=True)
except PairBudgetError as exc:
    print(exc)
    sys.exit(3)
"""


def test_the_default_budget_keeps_a_bad_bunny_within_4_gib(assets_dir):
    """The random-order tree of the 69,451-triangle bunny against itself, traced (the app's
    mode), in a process whose address space is capped at 4 GiB: a clean one-line error, not
    a MemoryError or a kill (without the budget it grew to the machine's 24 GiB)."""
    import subprocess
    import sys
    from pathlib import Path

    script = _CHILD.format(limit=4 << 30, path=str(assets_dir / "stanford-bunny.obj"))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[3])  # fmt: skip
    assert done.returncode == 3, done.stderr[-2000:]
    assert done.stdout.startswith("BVH Lab's AABB tree of body A against BVH Lab's AABB tree of "
                                  "body B: more than 50,000,000 overlapping volume pairs at "
                                  "level ")  # fmt: skip
