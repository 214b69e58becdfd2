"""A bounding-volume kind is its module and its registry row: every fact the rest of the code
uses about a kind (its name for people, how its separating tests are said, its parameters,
what it draws, whether it bounds distance) is read from the row, for every row."""

import numpy as np
import pytest

from core.bv import BV_KINDS, TREE_BOX_KIND, fit_volumes
from core.bv.kdop import DIRECTIONS
from core.bvh import SplitRule, build_tree
from core.distance import brute_force_distance, min_distance
from core.pose import Pose
from tests.core.meshgen import sphere_mesh, triangle_soup

KINDS = list(BV_KINDS)


@pytest.fixture(scope="module")
def soup_tree():
    mesh = triangle_soup(200, seed=4, clustered=True)
    return mesh, build_tree(mesh, SplitRule.SAH, 2)


@pytest.mark.parametrize("kind", KINDS)
def test_each_row_names_its_kind_for_people(kind):
    row = BV_KINDS[kind]
    assert row.people_name and "\n" not in row.people_name
    assert row.noun and row.noun_plural != row.noun and row.pair_noun.endswith(" pairs")
    assert row.name == kind and BV_KINDS[TREE_BOX_KIND].is_tree_box


def test_people_names_tell_every_kind_apart():
    names = [row.people_name for row in BV_KINDS.values()]
    assert len(set(names)) == len(names)


def _separating_ids(kind: str, soup_tree, rng) -> set[int]:
    """Every id the kind's ``overlap`` returned on node pairs of two copies of a soup, the
    second under random poses (some rotated, some only moved)."""
    mesh, tree = soup_tree
    rows = fit_volumes(tree, mesh, kind)
    row = BV_KINDS[kind]
    ids = set()
    scale = np.abs(mesh.vertices).max()
    for trial in range(60):
        angle = 0.0 if trial % 3 == 0 else rng.uniform(0.2, 3.0)
        pose = Pose.from_axis_angle(rng.normal(size=3), angle, rng.normal(size=3) * scale)
        rot = np.ascontiguousarray(pose.rotation)
        trans = np.ascontiguousarray(pose.translation)
        for a, b in rng.integers(0, tree.n_nodes, size=(40, 2)):
            ids.add(int(row.overlap(rows[a], rows[b], rot, trans, 0.0)))
    return ids - {-1}


@pytest.mark.parametrize("kind", KINDS)
def test_the_row_says_every_separating_test_its_overlap_returns(kind, soup_tree):
    ids = _separating_ids(kind, soup_tree, np.random.default_rng(11))
    assert ids, "no culled pair: the poses must separate some volumes"
    texts = {sep: BV_KINDS[kind].separating_test(sep) for sep in ids}
    for sep, text in texts.items():
        assert isinstance(text, str) and text and not text.startswith("test "), (sep, text)


@pytest.mark.parametrize("n", [6, 14, 18, 26])
def test_kdop_parameters_are_its_directions_and_its_slabs_name_them(n):
    row = BV_KINDS[f"kdop{n}"]
    dirs = row.parameters["directions"]
    np.testing.assert_array_equal(dirs, DIRECTIONS[n])
    for i, d in enumerate(dirs):
        text = row.separating_test(i)
        assert text.startswith(f"slab {i + 1} (direction (")
        shown = np.array([float(v) for v in text.split("direction (")[1].rstrip(")").split(",")])
        np.testing.assert_allclose(shown / np.linalg.norm(shown), d, atol=1e-12)
        assert row.separating_test(len(dirs) + i).startswith(f"B's slab {i + 1} (")
    assert all(not BV_KINDS[k].parameters for k in ("aabb", "obb", "sphere", "rss"))


def _check_record(rec: dict) -> None:
    points, sizes, ids = rec["points"], rec["line_sizes"], rec["line_ids"]
    assert points.dtype == np.float64 and points.ndim == 2 and points.shape[1] == 3
    assert sizes.dtype == np.int64 and ids.dtype == np.int64
    assert sizes.min() >= 2 and sizes.sum() == ids.shape[0]
    assert ids.min() >= 0 and ids.max() < points.shape[0]
    # Every point is used by some cell.
    assert np.unique(ids).shape[0] == points.shape[0]


@pytest.mark.parametrize("kind", KINDS)
def test_wire_draws_every_kind_on_its_volume(kind, soup_tree):
    """``wire`` gives plain line cells whose points lie on the boundary of (or inside) the
    volume of random rows, one row at a time and all at once."""
    mesh, tree = soup_tree
    rows = fit_volumes(tree, mesh, kind)
    row = BV_KINDS[kind]
    rng = np.random.default_rng(5)
    picked = rng.choice(tree.n_nodes, size=8, replace=False)
    scale = np.abs(mesh.vertices).max()
    n_cells = 0
    n_points = 0
    for node in picked:
        rec = row.wire(rows[node][None])
        _check_record(rec)
        outside = row.distance_outside(rows[node], rec["points"])
        assert outside.max() <= 1e-9 * scale, (kind, node)
        # Drawn on the boundary, not shrunk inside it.
        assert outside.max() >= -1e-9 * scale, (kind, node)
        n_cells += rec["line_sizes"].shape[0]
        n_points += rec["points"].shape[0]
    batch = row.wire(rows[picked])
    _check_record(batch)
    assert batch["line_sizes"].shape[0] == n_cells
    assert batch["points"].shape[0] == n_points


@pytest.mark.parametrize("kind", KINDS)
def test_shape_volumes_are_at_most_the_descend_rules_volume(kind, soup_tree):
    mesh, tree = soup_tree
    rows = fit_volumes(tree, mesh, kind)[:20]
    row = BV_KINDS[kind]
    shape = row.shape_volumes(rows)
    upper = np.array([row.volume(r) for r in rows])
    assert shape.shape == (20,) and np.all(shape >= 0.0)
    # A k-DOP's corners are snapped to a grid of 1e-9 of its coordinates' size: its polytope
    # volume is good to about 1e-8 relative on small nodes far from the origin.
    assert np.all(shape <= upper * (1.0 + 1e-6))
    if row.exact_volume is None:
        np.testing.assert_array_equal(shape, upper)
    if kind == "kdop6":  # a 6-DOP is its box
        np.testing.assert_allclose(shape, upper, rtol=1e-6)


def test_distance_takes_exactly_the_kinds_that_bound_distance():
    a = sphere_mesh(6, name="a")
    b = triangle_soup(40, seed=5, name="b")
    pose_b = Pose.from_axis_angle((1, -2, 0.5), 0.8, (2.4, 0.4, -0.2))
    expected, _ = brute_force_distance(a.vertices, a.faces, pose_b.apply(b.vertices), b.faces)
    ta, tb = build_tree(a), build_tree(b)
    bounding = [k for k, row in BV_KINDS.items() if row.bounds_distance]
    assert "rss" in bounding and "kdop14" not in bounding
    for kind, row in BV_KINDS.items():
        if row.bounds_distance:
            r = min_distance(a, ta, b, tb, None, pose_b, bv=kind)
            assert r.distance == pytest.approx(expected, rel=1e-12)
        else:
            with pytest.raises(ValueError, match="no distance bound") as err:
                min_distance(a, ta, b, tb, None, pose_b, bv=kind)
            assert str(err.value).endswith("use one of " + " ".join(bounding))
