"""The tree file: our trees round-trip exactly, foreign trees are renumbered and give the
oracle's contacts, broken bounds are read and listed, and hostile files fail in one line."""

from __future__ import annotations

import dataclasses
import json
import os
import zipfile

import numpy as np
import pytest

from core.bvh import SplitRule, build_tree, sah_cost
from core.bvh.treefile import ImportedTree, TreeFileError, write_tree
from core.bvh.treefile_read import read_tree
from core.bvh.validate import ViolationKind, validate_tree
from core.collide.brute import brute_force_pairs
from core.collide.dispatch import tree_query
from core.mesh import TriMesh
from core.pose import Pose
from core.request import CollisionRequest
from tests.core.helpers import FOREIGN, FOUR, as_foreign, assert_same_tree
from tests.core.meshgen import sphere_mesh

# ---- round trip ------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".json", ".npz"])
@pytest.mark.parametrize("rule, leaf_size", [(SplitRule.MIDPOINT, 1), (SplitRule.SAH, 4),
                                             (SplitRule.LBVH, 2), (SplitRule.OBB, 3)])
def test_round_trip_gives_the_same_tree_and_metrics(tmp_path, suffix, rule, leaf_size):
    mesh = sphere_mesh(9)
    tree = build_tree(mesh, rule, leaf_size)
    path = write_tree(tmp_path / f"tree{suffix}", tree)
    imported = read_tree(path, mesh)
    assert isinstance(imported, ImportedTree)
    assert_same_tree(tree, imported.tree)
    assert imported.split is rule and imported.tree.split is rule
    assert imported.tree.leaf_size == leaf_size
    assert imported.tree.faces is mesh.faces
    assert np.array_equal(imported.file_ids, np.arange(tree.n_nodes))
    assert imported.source == f"file tree{suffix}, {tree.n_nodes:,} nodes"
    got = imported.tree
    assert sah_cost(got.bmin, got.bmax, got.count) == sah_cost(tree.bmin, tree.bmax, tree.count)
    keep = ("n_nodes", "n_leaves", "depth_min", "depth_max", "leaf_size_mean", "leaf_size_max",
            "sah_cost", "volume_sum")  # fmt: skip
    assert {k: getattr(got.stats, k) for k in keep} == {k: getattr(tree.stats, k) for k in keep}
    assert validate_tree(got, mesh.vertices).ok


def test_json_has_one_node_per_line_of_bounds(tmp_path):
    mesh = sphere_mesh(4)
    tree = build_tree(mesh)
    text = write_tree(tmp_path / "t.json", tree).read_text()
    keys = json.loads(text)
    assert keys["format"] == "bvh-lab-tree" and keys["version"] == 1
    assert keys["nodes"] == tree.n_nodes and keys["triangles"] == mesh.n_faces
    lines = text.splitlines()
    row = lines.index('  "bounds": [') + 1 + 5
    assert json.loads(lines[row].rstrip(",")) == [*tree.bmin[5].tolist(), *tree.bmax[5].tolist()]


# ---- foreign trees ---------------------------------------------------------------------------

def _foreign(**changes) -> dict:
    keys = json.loads(FOREIGN)
    keys.update(changes)
    return keys


def test_hand_written_foreign_tree_is_renumbered(tmp_path):
    path = tmp_path / "foreign.json"
    path.write_text(FOREIGN)
    imported = read_tree(path, FOUR)
    tree = imported.tree
    # Breadth first from the root (file node 4): children adjacent and after their parent.
    assert imported.file_ids.tolist() == [4, 6, 1, 0, 3, 5, 2]
    assert imported.file_ids.dtype == np.int64
    assert tree.first.tolist() == [1, 3, 5, 0, 1, 2, 3]
    assert tree.count.tolist() == [0, 0, 0, 1, 1, 1, 1]
    assert tree.parent.tolist() == [-1, 0, 0, 1, 1, 2, 2]
    assert tree.depth.tolist() == [0, 1, 1, 2, 2, 2, 2]
    assert tree.prim_ids.tolist() == [2, 0, 3, 1]
    assert tree.bmax[1].tolist() == [1, 1, 2] and tree.bmin[2].tolist() == [2, 0, 0]
    assert imported.split is None and imported.node_of(6) == 1 and imported.file_id(1) == 6
    assert tree.stats.n_leaves == 4 and tree.stats.depth_max == 2
    assert validate_tree(tree, FOUR.vertices).ok
    # A triangle standing across t0 (x in 0..1, z = 0) and t1 (x in 2..3, z = 0).
    crossing = TriMesh.from_arrays(np.array([[0.2, 0.2, -1], [2.8, 0.2, -1], [1.5, 0.2, 3]]),
                                   np.array([[0, 1, 2]]))  # fmt: skip
    result = tree_query(CollisionRequest(), FOUR, tree, crossing, build_tree(crossing))
    expected = brute_force_pairs(FOUR.vertices, FOUR.faces, crossing.vertices, crossing.faces)
    assert expected.tolist() == [[0, 0], [1, 0]]
    assert np.array_equal(np.sort(result.pairs, axis=0), expected)


def test_flat_layout_with_children_before_parents_is_renumbered(tmp_path):
    # Flat layout (children at first, first + 1), but node 3's children are nodes 1 and 2.
    keys = {"format": "bvh-lab-tree", "version": 1, "triangles": 4, "nodes": 7,
            "bounds": [[0, 0, 0, 3, 1, 2], [0, 0, 0, 1, 1, 0], [2, 0, 0, 3, 1, 0],
                       [0, 0, 0, 3, 1, 0], [0, 0, 2, 3, 1, 2], [0, 0, 2, 1, 1, 2],
                       [2, 0, 2, 3, 1, 2]],
            "first": [3, 0, 1, 1, 5, 2, 3], "count": [0, 1, 1, 0, 0, 1, 1],
            "order": [0, 1, 2, 3]}  # fmt: skip
    path = tmp_path / "flat.npz"
    np.savez(path, **{k: np.asarray(v) for k, v in keys.items()})
    imported = read_tree(path, FOUR)
    assert imported.file_ids.tolist() == [0, 3, 4, 1, 2, 5, 6]
    assert imported.tree.first.tolist() == [1, 3, 5, 0, 1, 2, 3]
    assert imported.tree.prim_ids.tolist() == [0, 1, 2, 3]
    assert validate_tree(imported.tree, FOUR.vertices).ok


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_foreign_tree_gives_the_oracles_contacts(tmp_path, suffix):
    mesh_a = sphere_mesh(10)
    mesh_b = sphere_mesh(7, radius=0.6)
    ours = build_tree(mesh_a, SplitRule.SAH, 3)
    keys = as_foreign(ours, seed=5)
    path = tmp_path / f"foreign{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps(keys))
    else:
        np.savez(path, **{k: np.asarray(v) for k, v in keys.items()})
    imported = read_tree(path, mesh_a)
    tree = imported.tree
    assert validate_tree(tree, mesh_a.vertices).ok
    assert tree.n_nodes == ours.n_nodes and tree.stats.n_leaves == ours.stats.n_leaves
    # Each of our nodes carries the box of the file node it came from.
    bounds = np.asarray(keys["bounds"])
    assert np.array_equal(tree.bmin, bounds[imported.file_ids, :3])
    assert sah_cost(tree.bmin, tree.bmax, tree.count) == pytest.approx(ours.stats.sah_cost)
    pose_b = Pose(translation=(1.05, 0.2, 0.1))
    result = tree_query(CollisionRequest(), mesh_a, tree, mesh_b, build_tree(mesh_b), None,
                        pose_b)  # fmt: skip
    vb = mesh_b.vertices @ pose_b.rotation.T + pose_b.translation
    expected = brute_force_pairs(mesh_a.vertices, mesh_a.faces, vb, mesh_b.faces)
    assert len(expected) > 10
    got = result.pairs[np.lexsort((result.pairs[:, 1], result.pairs[:, 0]))]
    assert np.array_equal(got, expected)


def test_broken_bounds_are_read_and_listed_with_the_files_node_id(tmp_path):
    keys = _foreign()
    keys["bounds"][6] = [0, 0, 0, 1, 1, 1.5]  # file node 6 no longer reaches t2 at z = 2
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(keys))
    imported = read_tree(path, FOUR)
    report = validate_tree(imported.tree, FOUR.vertices, file_ids=imported.file_ids)
    (violation,) = report.violations
    assert violation.kind is ViolationKind.CHILD_OUTSIDE and violation.node == 1
    assert violation.size == 0.5
    # Named by the file's ids: node 6 and its child 0 (BVH Lab's nodes 1 and 3).
    assert violation.text == "node 6 (depth 1): child 0 sticks out by 0.5 along +z"
    assert (violation.child, violation.axis) == (3, "+z")


def test_write_refuses_bad_suffix_and_nan(tmp_path):
    mesh = sphere_mesh(4)
    tree = build_tree(mesh)
    with pytest.raises(TreeFileError, match=r"t\.txt: unknown tree file type '\.txt'"):
        write_tree(tmp_path / "t.txt", tree)
    bmin = tree.bmin.copy()
    bmin[3, 1] = np.nan
    with pytest.raises(TreeFileError, match="node 3's box is not a finite number"):
        write_tree(tmp_path / "t.json", dataclasses.replace(tree, bmin=bmin))
    assert not (tmp_path / "t.json").exists()
    with pytest.raises(TreeFileError, match="cannot write"):
        write_tree(tmp_path / "no-such-dir" / "t.json", tree)


# ---- hostile files ---------------------------------------------------------------------------


def _json(keys):
    def make(path):
        path.write_text(json.dumps(keys))
    return make


def _npz(**arrays):
    def make(path):
        keys = {k: np.asarray(v) for k, v in json.loads(FOREIGN).items()}
        keys.update(arrays)
        with open(path, "wb") as out:
            np.savez(out, **keys)
    return make


def _bytes(data: bytes):
    def make(path):
        path.write_bytes(data)
    return make


def _children(counts=None, **rows):
    """FOREIGN with some rows of ``children`` replaced (``n3=[...]`` for node 3) and, for a
    leaf made internal, its ``count`` set to 0 (``counts={3: 0}``)."""
    keys = _foreign()
    for name, row in rows.items():
        keys["children"][int(name[1:])] = row
    for node, count in (counts or {}).items():
        keys["count"][node] = count
    return keys


# Root 0 with two leaves; nodes 3 and 5 are each other's child (a cycle the root never reaches).
DETACHED_CYCLE = _foreign(children=[[1, 2], [-1, -1], [-1, -1], [4, 5], [-1, -1], [3, 6],
                                    [-1, -1]],
                          start=[0, 0, 1, 0, 2, 0, 3], count=[0, 1, 1, 0, 1, 0, 1])  # fmt: skip


def _pickled(path):
    keys = {k: np.asarray(v) for k, v in json.loads(FOREIGN).items()}
    keys["order"] = np.array([2, 0, 3, 1], dtype=object)
    with open(path, "wb") as out:
        np.savez(out, **keys)


def _truncated_member(path):
    _npz()(path)
    data = bytearray(path.read_bytes())
    # Cut the first member's stored bytes in half (the central directory stays intact).
    with zipfile.ZipFile(path) as archive:
        info = archive.infolist()[0]
    header_end = info.header_offset + 30 + len(info.filename)
    data[header_end + 20:header_end + 40] = b"\x00" * 20
    path.write_bytes(bytes(data))


def _unpacks_large(path):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("bounds.npy", "w") as member:
            np.lib.format.write_array(member, np.zeros((20_000, 6)))


NAN = float("nan")  # json.dumps writes the NaN token, which a hand-edited file may hold
HOSTILE = [
    ("missing.json", None, "no such file"),
    ("dir.json", lambda p: p.mkdir(), "is a directory, not a tree file"),
    ("pipe.json", lambda p: os.mkfifo(p), "is a named pipe (FIFO), not a regular tree file"),
    ("t.tree", _json(_foreign()), "unknown tree file type '.tree'"),
    ("text.json", _bytes(b"bounds: 1, 2"), "not JSON (Expecting value at line 1 column 1)"),
    ("binary.json", _bytes(b"\xff\xfe\x00garbage"), "not JSON (not UTF-8 text)"),
    ("list.json", _json([1, 2]), "the JSON is a list, not an object"),
    ("text.npz", _bytes(b"not a zip archive"), "not an npz archive (not a zip file)"),
    ("empty.npz", lambda p: zipfile.ZipFile(p, "w").close(), "holds no .npy arrays"),
    ("pickled.npz", _pickled, "array 'order': holds pickled Python objects"),
    ("crc.npz", _truncated_member, "array 'format': damaged (Bad CRC-32"),
    ("bomb.npz", _unpacks_large, "too large: its arrays unpack to"),
    ("format.json", _json(_foreign(format="other-tree")), "not a BVH Lab tree file"),
    ("noformat.json", _json({"nodes": 3}), "not a BVH Lab tree file (no 'format' key"),
    ("version.json", _json(_foreign(version=2)), "format version 2; this app reads version 1"),
    ("noorder.json", _json({k: v for k, v in _foreign().items() if k != "order"}),
     "missing key 'order'"),
    ("nolayout.json", _json({k: v for k, v in _foreign().items() if k != "children"}),
     "missing key 'children' (or 'first' for the flat layout)"),
    ("both.json", _json(_foreign(first=[0] * 7)), "has both 'children' and 'first'"),
    ("nodes.json", _json(_foreign(nodes="7")), "'nodes' must be a whole number"),
    ("shape.json", _json(_foreign(bounds=[[0, 0, 0, 1, 1]] * 7)),
     "'bounds' must have shape (k, 6), got (7, 5)"),
    ("ragged.json", _json(_foreign(bounds=[[0, 0, 0, 1, 1, 1]] * 6 + [[0]])),
     "'bounds' must be an array of shape (k, 6)"),
    ("strings.json", _json(_foreign(bounds=[["0"] * 6] * 7)),
     "'bounds' must hold numbers, got strings"),
    ("floats.npz", _npz(children=np.array(json.loads(FOREIGN)["children"], float)),
     "'children' must hold integers, got dtype float64"),
    ("count.json", _json(_foreign(nodes=8)), "node count mismatch: 'nodes' is 8 but 'bounds' "
     "has 7 rows"),
    ("tris.json", _json(_foreign(triangles=5)), "the tree is over 5 triangles but the mesh "
     "four has 4"),
    ("nan.json", _json(_foreign(bounds=[[0, 0, 0, 1, 1, 1]] * 3 + [[0, 0, NAN, 1, 1, 1]]
                                + [[0, 0, 0, 1, 1, 1]] * 3)),
     "node 3: bounds hold NaN or infinity"),
    ("range.json", _json(_children(n6=[0, 99])), "node 6: child 99 is not a node id (0..6"),
    ("unary.json", _json(_children(n6=[0, -1])), "node 6 has 1 child; only binary trees"),
    ("shared.json", _json(_children({3: 0}, n3=[5, 2])), "node 2 is reached twice (a shared "
     "child): it is the child of nodes 1 and 3 (1 other node reached twice)"),
    ("cycle.json", _json(_children({3: 0}, n3=[4, 5])), "node 4 is reached twice (a cycle): it "
     "is the child of node 3, which is under node 4"),
    ("tworoots.json", _json(_children(n4=[6, 3])), "node 3 is reached twice (a shared child): "
     "it is the child of nodes 4 and 6"),
    ("forest.json", _json(_children({6: 1}, n6=[-1, -1])), "3 nodes are nobody's child (0, 3, "
     "4): a tree has one root, and from it the others are unreachable"),
    ("detached.json", _json(DETACHED_CYCLE), "node 3 is reached twice (a cycle): it is the "
     "child of node 5, which is under node 3 (4 nodes are unreachable from node 0, the one "
     "node that is nobody's child)"),
    ("leafrange.json", _json(_foreign(start=[0, 0, 3, 1, 0, 4, 0])),
     "node 5: leaf range 4+1 is outside 'order' (0..4)"),
    ("emptyleaf.json", _json(_foreign(count=[1, 0, 1, 0, 0, 1, 0])),
     "node 3 is a leaf with no triangles"),
    ("order.json", _json(_foreign(order=[2, 0, 2, 1])),
     "'order' is not a permutation of the triangle ids: 1 id repeated (first 2), 1 missing "
     "(first 3)"),
    ("orderid.json", _json(_foreign(order=[2, 0, 7, 1])),
     "'order' is not a permutation of the triangle ids: 7 is not a triangle id"),
    ("overlap.json", _json(_foreign(start=[0, 0, 3, 0, 0, 2, 0])),
     "leaves 0 and 3 both hold triangle 2 (order[0]): leaf 0's range 0+1 and leaf 3's range "
     "0+1 overlap (1 triangle in no leaf, the first triangle 0 at order[1])"),
]  # fmt: skip


def test_the_catalogue_is_large_enough():
    assert len(HOSTILE) >= 15


@pytest.mark.parametrize("name, make, words", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_file_fails_in_one_line_naming_it(tmp_path, name, make, words):
    path = tmp_path / name
    if make is not None:
        make(path)
    with pytest.raises(TreeFileError) as caught:
        read_tree(path, FOUR, max_bytes=60_000)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: "), message
    assert words in message, message


# ---- each mistake names the node at fault by its id in the file -----------------------------

# Root 2 over two leaves of two triangles each: leaf 0 holds order[0:2], leaf 1 order[2:4].
TWO_LEAVES = {"format": "bvh-lab-tree", "version": 1, "triangles": 4, "nodes": 3,
              "bounds": [[0, 0, 0, 3, 1, 2], [0, 0, 0, 3, 1, 2], [0, 0, 0, 3, 1, 2]],
              "children": [[-1, -1], [-1, -1], [0, 1]], "start": [0, 2, 0],
              "count": [2, 2, 0], "order": [2, 0, 3, 1]}  # fmt: skip


def _read_error(tmp_path, keys) -> str:
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(keys))
    with pytest.raises(TreeFileError) as caught:
        read_tree(path, FOUR)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    return message[len(f"{path}: "):]


def test_a_leaf_one_short_names_the_missing_triangle_and_the_leaf(tmp_path):
    # Leaf 0's count edited from 2 to 1: triangle order[1] = 0 is in no leaf.
    reason = _read_error(tmp_path, {**TWO_LEAVES, "count": [1, 2, 0]})
    assert reason == ("triangle 0 (order[1]) is in no leaf: leaf 0's range 0+1 ends just "
                      "before it and leaf 1's range 2+2 starts just after (is leaf 0's count "
                      "one short, or leaf 1's start one too late?)")  # fmt: skip
    # The last leaf one short: only the leaf before the gap can be at fault.
    reason = _read_error(tmp_path, {**TWO_LEAVES, "count": [2, 1, 0]})
    assert reason == ("triangle 1 (order[3]) is in no leaf: leaf 1's range 2+1 ends just "
                      "before it (is its count one short?)")  # fmt: skip


def test_overlapping_leaf_ranges_name_both_leaves(tmp_path):
    # Leaf 0's count edited from 2 to 3: its range runs into leaf 1's.
    reason = _read_error(tmp_path, {**TWO_LEAVES, "count": [3, 2, 0], "start": [0, 1, 0]})
    assert reason == ("leaves 0 and 1 both hold triangle 0 (order[1]): leaf 0's range 0+3 and "
                      "leaf 1's range 1+2 overlap (2 triangles are held twice in all; 1 "
                      "triangle in no leaf, the first triangle 1 at order[3])")  # fmt: skip


def test_a_shared_child_names_the_node_reached_twice_and_its_parents(tmp_path):
    # File node 1's children edited from [5, 2] to [5, 0]: node 0 is now also node 6's child
    # (and node 2 nobody's, which the old message named instead).
    reason = _read_error(tmp_path, _children(n1=[5, 0]))
    assert reason == ("node 0 is reached twice (a shared child): it is the child of nodes 1 "
                      "and 6")  # fmt: skip


def test_a_cycle_names_the_node_reached_twice_and_the_node_under_it(tmp_path):
    # File node 6's children edited from [0, 3] to [0, 4]: 4 is the root, now under itself.
    reason = _read_error(tmp_path, _children(n6=[0, 4]))
    assert reason == ("node 4 is reached twice (a cycle): it is the child of node 6, which is "
                      "under node 4 (6 nodes are unreachable from node 3, the one node that is "
                      "nobody's child)")  # fmt: skip
    # Leaf 3 (under node 6) made a parent of nodes 6 and 2: node 6 is reached again from
    # below; two parents, one of them under it.
    reason = _read_error(tmp_path, _children({3: 0}, n3=[6, 2]))
    assert reason == ("node 6 is reached twice (a cycle): it is the child of nodes 3 and 4, "
                      "and node 3 is under node 6")  # fmt: skip


def test_too_large_file_is_refused_from_its_size(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(FOREIGN + " " * 2000)
    with pytest.raises(TreeFileError, match=r"big\.json: too large: .* the limit is"):
        read_tree(path, FOUR, max_bytes=1000)
    assert read_tree(path, FOUR).tree.n_nodes == 7


def test_the_documented_example_reads(tmp_path, repo_root):
    text = (repo_root / "docs" / "file-formats.md").read_text()
    section = text[text.index("## Tree files"):]
    begin = section.index("```json\n") + len("```json\n")
    example = section[begin:section.index("```\n", begin)]
    path = tmp_path / "example.json"
    path.write_text(example)
    imported = read_tree(path, FOUR)
    assert imported.file_ids.tolist() == [4, 6, 1, 0, 3, 5, 2]
    assert validate_tree(imported.tree, FOUR.vertices).ok
