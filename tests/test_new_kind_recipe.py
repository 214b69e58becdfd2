"""The recipe "A bounding-volume kind" of CONTRIBUTING.md, followed for a made-up kind.

The made-up kind, ``"loose"``, is an axis-aligned box grown by :data:`LOOSE_MARGIN` on every
side (a "fat" box as dynamic trees keep them). Its module is the block below marked "the kind's
module", its registry row is :func:`loose_row`; it is registered for one test at a time and
unregistered afterwards. Nothing else changes: the query, the tree-quality metrics, the command
line's quality report and the viewer's words must all work from the row alone.

Its rows are tested by the AABB's SAT-lite ``overlap`` (same row layout), so the row takes that
kind's numba dispatch ``code`` and needs no dispatch branch (see the recipe: a kind with a test
of its own adds one branch in each of ``core/bv/registry.py``'s three ``*_by_code``
functions, in the same file as its row).

The second half checks the other side of the recipe: outside ``core/bv/`` no module of the
core compares a kind's registry key or reads it by key, except the ones listed in
:data:`NAMES_KINDS_ON_PURPOSE` with the reason.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from core import contacts
from core.bv import BV_KINDS, BVKind, aabb
from core.bv.shapes import Boxes
from core.bvh import build_tree
from core.bvh.metrics import tree_quality
from core.cli import main
from core.experiments.cost_model import kdop_cost_words
from core.io.write import write_mesh
from core.pose import Pose
from tests.core.helpers import kind_name_uses
from tests.core.meshgen import sphere_mesh
from viewer.words.choices import bv_choices
from viewer.words.kinds import has_fit_choice, kind_words, pair_noun, separation_text, volume_noun

REPO_ROOT = Path(__file__).resolve().parent.parent

# -- the kind's module (core/bv/loose.py in a real addition) ------------------------------------

#: Row layout: ``bmin`` (3) then ``bmax`` (3), the AABB's, each side grown by LOOSE_MARGIN.
WIDTH = 6
BMIN, BMAX = slice(0, 3), slice(3, 6)
LOOSE_MARGIN = 0.05


def _grow(out: np.ndarray) -> None:
    out[:, BMIN] -= LOOSE_MARGIN
    out[:, BMAX] += LOOSE_MARGIN


def fit(vertices, faces, prim_ids, prim_start, n_prims, out):
    """Every node's tight box, grown by the margin."""
    aabb.fit(vertices, faces, prim_ids, prim_start, n_prims, out)
    _grow(out)


def refit(vertices, faces, prim_ids, prim_start, n_prims, first, count, level_nodes,
          level_start, out):  # fmt: skip
    """The tight boxes merged bottom up (exact), then grown: the same rows as :func:`fit`."""
    aabb.refit(vertices, faces, prim_ids, prim_start, n_prims, first, count, level_nodes,
               level_start, out)  # fmt: skip
    _grow(out)


def shape(rows: np.ndarray) -> Boxes:
    """The rows as :class:`core.bv.shapes.Boxes`."""
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, WIDTH)
    return Boxes(rows[:, BMIN], rows[:, BMAX])


def separating_test(sep_id: int) -> str:
    return f"loose {aabb.separating_test(sep_id)}"


# -- its registry row (one more BVKind in core/bv/registry.py's _kinds()) ----------------------


def loose_row() -> BVKind:
    return BVKind(
        "loose", BV_KINDS["aabb"].code, WIDTH, fit, refit, aabb.overlap, aabb.volume,
        aabb.lower_bound, aabb.wire, True, "Loose AABB",
        "Axis-aligned boxes grown by a margin on every side, as dynamic trees keep them so "
        "that a moving body stays inside its box for a few frames; tested with SAT lite.",
        people_name="loose box (fat AABB)", noun="loose box", noun_plural="loose boxes",
        pair_noun="loose-box pairs", separating_test=separating_test,
        distance_outside=aabb.distance_outside, refit_how="exact merge, then grown, O(k)",
        shape=shape, listing="sat_lite",
    )  # fmt: skip


#: Files a new kind touches: its module and the registry (its row; plus, for a kind with an
#: overlap test of its own, one branch in each of the registry's three dispatch functions).
FILES_A_NEW_KIND_TOUCHES = ("core/bv/<kind>.py", "core/bv/registry.py")


@pytest.fixture
def loose(monkeypatch):
    """The made-up kind in the registry for one test; removed afterwards."""
    monkeypatch.setitem(BV_KINDS, "loose", loose_row())
    return BV_KINDS["loose"]


@pytest.fixture(scope="module")
def pair():
    a = sphere_mesh(12, name="A")
    b = sphere_mesh(10, radius=0.8, name="B")
    return a, b, Pose(np.eye(3), (1.5, 0.2, 0.1))


def test_the_query_runs_with_the_new_kind(loose, pair):
    a, b, pose_b = pair
    tight = contacts(a, b, None, pose_b, bv="aabb")
    found = contacts(a, b, None, pose_b, bv="loose")
    assert found.pairs.shape[0] > 0
    assert np.array_equal(found.pairs, tight.pairs)
    # Looser boxes overlap more often: more volume tests, never fewer.
    assert found.counters.n_bv_tests > tight.counters.n_bv_tests


def test_the_metrics_measure_the_new_kind(loose, pair):
    a, _, _ = pair
    tree = build_tree(a)
    tight = tree_quality(a, tree, "aabb")
    grown = tree_quality(a, tree, "loose")
    assert grown.bv == "loose"
    assert np.all(grown.nodes.volume > tight.nodes.volume)
    assert grown.sah > tight.sah and np.isfinite(grown.epo) and grown.epo >= tight.epo


def test_the_cli_quality_report_names_the_new_kind(loose, pair, tmp_path, capsys):
    a, _, _ = pair
    path = tmp_path / "a.obj"
    write_mesh(path, a.vertices, a.faces)
    assert main(["quality", str(path), "--bv", "loose", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["bv"] == "loose" and report["sah"] > 0
    assert main(["quality", str(path), "--bv", "loose"]) == 0
    assert "loose box (fat AABB)" in capsys.readouterr().out


def test_the_viewer_says_the_new_kind(loose):
    assert ("loose", "loose box (fat AABB)", loose.description) in bv_choices()
    assert volume_noun("loose") == "loose box"
    assert volume_noun("loose", plural=True) == "loose boxes"
    assert pair_noun("loose") == "loose-box pairs"
    assert separation_text("loose", 1) == f"loose {aabb.separating_test(1)}"
    assert kind_words("loose").noun == "loose box"
    assert not has_fit_choice("loose")


def test_a_kind_without_a_shape_is_refused_by_the_metrics_in_one_line(monkeypatch, pair):
    """No kind is measured as another's shape (a row of any other kind used to be read as a
    swept sphere's columns 12 to 14)."""
    monkeypatch.setitem(BV_KINDS, "loose", dataclasses.replace(loose_row(), shape=None))
    a, _, _ = pair
    with pytest.raises(ValueError, match="'loose' has no shape") as error:
        tree_quality(a, build_tree(a), "loose")
    assert "\n" not in str(error.value)


def test_kdop_cost_words_find_the_kdops_by_their_rows():
    costs = {name: SimpleNamespace(volume_test_ns=ns)
             for name, ns in (("aabb", 10.0), ("kdop14", 25.0), ("obb", 30.0), ("kdop6", 15.0))}
    words = kdop_cost_words(costs)
    assert "(6-DOP 1.5x, 14-DOP 2.5x here)" in words
    assert kdop_cost_words({"aabb": costs["aabb"], "obb": costs["obb"]}) == ""


def test_the_made_up_kind_is_gone_after_its_tests():
    assert "loose" not in BV_KINDS


def test_a_new_kind_is_one_module_and_the_registry():
    """The recipe names the files of :data:`FILES_A_NEW_KIND_TOUCHES` and no other."""
    text = (REPO_ROOT / "CONTRIBUTING.md").read_text()
    recipe = text.split("## A bounding-volume kind", 1)[1].split("\n## ", 1)[0]
    assert "**one module in `core/bv/`** and **one row in `core/bv/registry.py`**" in recipe
    assert f"Files a new kind touches: {len(FILES_A_NEW_KIND_TOUCHES)}" in recipe


# -- no module of the core outside core/bv/ names a kind ----------------------------------------

#: Core modules (outside ``core/bv/``) that name kinds by key, with the reason.
NAMES_KINDS_ON_PURPOSE = {
    "collide/traversal.py": "the OBB's overlap is called without the dispatch chain in the "
                            "hot loop (68 instead of 115 ns a pair, measured)",
    "experiments/sat_axes.py": "the experiment compares the OBB, the 15-axis and the SAT-lite "
                               "AABB tests by name",
    "experiments/pcp.py": "the figure draws the three kinds the paper discusses solid",
    "partition/compare.py": "its methods are the AABB tree and Gottschalk's OBB tree (with "
                            "its own split rule), named as the comparison's rows; Yu et al.'s "
                            'experiment compares the partitions with the method "aabb"',
    "experiments/partitions.py": 'its text compares the partitions with the method "aabb" '
                                 "(the AABB tree), a method name of partition/compare",
}


def test_the_check_sees_a_kind_named():
    keys = set(BV_KINDS)
    assert kind_name_uses('if name == "obb":\n    pass', keys) == [1]
    assert kind_name_uses('x = k.startswith("kdop")', keys) == [1]
    assert kind_name_uses('code = BV_KINDS["rss"].code', keys) == [1]
    assert kind_name_uses('x = kind.has_fit_choice', keys) == []
    assert kind_name_uses('if side == "a":\n    pass', keys) == []


def test_the_core_outside_its_kinds_names_no_kind():
    keys = set(BV_KINDS)
    core = REPO_ROOT / "core"
    found = {}
    for path in sorted(core.rglob("*.py")):
        module = path.relative_to(core).as_posix()
        if module.startswith("bv/") or module in NAMES_KINDS_ON_PURPOSE:
            continue
        lines = kind_name_uses(path.read_text(), keys)
        if lines:
            found[module] = lines
    assert found == {}
    for module in NAMES_KINDS_ON_PURPOSE:
        assert kind_name_uses((core / module).read_text(), keys), f"{module} no longer needs it"
