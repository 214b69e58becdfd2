"""three-mesh-bvh's serialize() saved as JSON (made once with Node, kept as test data): read
in both modes (index reordered, indirect), leaves mapped back to the mesh's faces, checked;
the bad-input catalogue; and any tree file recognised by its content whatever its suffix."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from core.bvh.tree_formats import read_any_tree, sniff
from core.bvh.treefile import TreeFileError, write_tree
from core.bvh.validate_volumes import validate_imported
from core.cli import main
from core.io import load_mesh
from tests.core.helpers import tree_file_error

DATA = Path(__file__).resolve().parents[2] / "data" / "three-mesh-bvh"
MESH = DATA / "icosphere80.obj"
FILES = ("icosphere80.json", "icosphere80-indirect.json")
BINARY = ("icosphere80.3mbvh", "icosphere80-indirect.3mbvh")


def _nodes(path: Path) -> bytes:
    return base64.b64decode(json.loads(path.with_suffix(".json").read_text())["roots"][0])


@pytest.mark.parametrize("name", FILES + BINARY)
def test_a_three_mesh_bvh_file_reads_with_its_leaves_on_the_meshs_faces(name):
    mesh = load_mesh(MESH)
    imported = read_any_tree(DATA / name, mesh)
    raw = _nodes(DATA / name)
    k = len(raw) // 32
    assert imported.tree.n_nodes == k == 39
    assert imported.source == (f"three-mesh-bvh file {name} ("
                               f"{'indirect' if 'indirect' in name else 'index reordered'}), "
                               f"39 nodes")  # fmt: skip
    # The boxes are the file's float32 bounds, node by node (file id -> ours).
    bounds = np.frombuffer(raw, dtype="<f4").reshape(k, 8)[:, :6].astype(np.float64)
    tree = imported.tree
    np.testing.assert_array_equal(tree.bmin, bounds[imported.file_ids, :3])
    np.testing.assert_array_equal(tree.bmax, bounds[imported.file_ids, 3:])
    # Each leaf's triangles (mesh face ids) lie in its box: the leaves map to the right faces.
    assert validate_imported(imported, mesh.vertices).ok
    assert sorted(tree.prim_ids.tolist()) == list(range(mesh.n_faces))
    assert tree.stats.leaf_size_max <= 5


def test_the_two_modes_and_both_forms_give_the_same_tree():
    mesh = load_mesh(MESH)
    a, *others = (read_any_tree(DATA / name, mesh) for name in FILES + BINARY)
    for b in others:
        np.testing.assert_array_equal(a.tree.first, b.tree.first)
        np.testing.assert_array_equal(a.tree.prim_ids, b.tree.prim_ids)
        np.testing.assert_array_equal(a.tree.bmin, b.tree.bmin)


def _binary(change_header=None, cut=0, version=1):
    data = (DATA / BINARY[0]).read_bytes()
    length = int.from_bytes(data[8:12], "little")
    header = json.loads(data[12 : 12 + length])
    if change_header is not None:
        change_header(header)
    text = json.dumps(header).encode()
    out = (b"3MBVH\0" + version.to_bytes(2, "little") + len(text).to_bytes(4, "little") + text
           + data[12 + length :])  # fmt: skip
    return out[: len(out) - cut]


BINARY_CATALOGUE = [
    ("container", _binary(version=2), "3MBVH container version 2; this reader reads version 1"),
    ("cut", _binary(cut=40), "'index.data' runs to byte "),
    ("offset", _binary(lambda h: h["roots"][0].update(offset=10**9)),
     "'roots[0]' runs to byte 1,000,001,248 of the data, which has "),
    ("not-offset", _binary(lambda h: h["roots"].__setitem__(0, "AAAA")),
     "'roots[0]' must be {\"offset\": bytes, \"length\": bytes} in a 3MBVH header"),
    ("header", b"3MBVH\0\x01\x00\xff\xff\xff\x7f{", "the 3MBVH header is 2,147,483,647 "
     "bytes, more than the file holds"),
]


@pytest.mark.parametrize("name, data, words", BINARY_CATALOGUE,
                         ids=[c[0] for c in BINARY_CATALOGUE])  # fmt: skip
def test_a_bad_3mbvh_file_is_one_line(tmp_path, name, data, words):
    path = tmp_path / f"{name}.3mbvh"
    message = tree_file_error(path, load_mesh(MESH), data)
    assert "\n" not in message and message.startswith(f"{path}: three-mesh-bvh: ")
    assert words in message


def test_validate_quality_and_contacts_take_a_three_mesh_bvh_file(capsys):
    tree = DATA / FILES[0]
    assert main(["validate", str(MESH), "--tree", str(tree)]) == 0
    assert "tree OK: 39 nodes checked" in capsys.readouterr().out
    assert main(["quality", str(MESH), "--tree", str(tree), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["violations"] == 0
    code = main(["contacts", str(MESH), str(MESH), "--translate-b", "1.3", "0.4", "0.1",
                 "--tree-a", str(tree), "--tree-b", str(DATA / FILES[1]), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["pairs_total"] > 0
    code = main(["contacts", str(MESH), str(MESH), "--translate-b", "1.3", "0.4", "0.1",
                 "--json"])  # fmt: skip
    built = json.loads(capsys.readouterr().out)
    assert sorted(map(tuple, built["pairs"])) == sorted(map(tuple, report["pairs"]))


def _edit(change):
    data = json.loads((DATA / FILES[0]).read_text())
    change(data)
    return json.dumps(data)


def _dtype(typed):
    return {"Uint16Array": "<u2", "Uint32Array": "<u4"}[typed["type"]]


def _index(data):
    return np.frombuffer(base64.b64decode(data["index"]["data"]),
                         dtype=_dtype(data["index"])).copy()  # fmt: skip


def _set_index(data, index):
    data["index"]["data"] = base64.b64encode(index.astype(_dtype(data["index"])).tobytes()
                                             ).decode()  # fmt: skip


def _swap_vertex(data):
    index = _index(data)
    index[5] = index[0] if index[5] != index[0] else index[1]
    _set_index(data, index)


def _root_bytes(data, change):
    raw = bytearray(base64.b64decode(data["roots"][0]))
    change(raw)
    data["roots"][0] = base64.b64encode(bytes(raw)).decode()


def _right_child(raw):
    raw[24:28] = (1000).to_bytes(4, "little")


def _leaf_past(raw):
    k = len(raw) // 32
    for node in range(k):
        if raw[32 * node + 30 : 32 * node + 32] == b"\xff\xff":
            raw[32 * node + 24 : 32 * node + 28] = (79).to_bytes(4, "little")
            return


CATALOGUE = [
    ("newer", _edit(lambda d: d.update(version=2)),
     "three-mesh-bvh: serialize() version 2 is newer than this reader knows"),
    ("no-roots", _edit(lambda d: d.pop("roots")), "missing key 'roots'"),
    ("two-roots", _edit(lambda d: d["roots"].append(d["roots"][0])),
     "2 roots (a geometry with groups): this reader reads one root"),
    ("cut", _edit(lambda d: d["roots"].__setitem__(0, d["roots"][0][:-8])),
     "roots[0] holds 1,242 bytes, not a whole number of 32-byte nodes"),
    ("not-base64", _edit(lambda d: d["roots"].__setitem__(0, "*" + d["roots"][0][1:])),
     "'roots[0]' is not base64"),
    ("huge", _edit(lambda d: d["roots"].__setitem__(0, "A" * 400_000)),
     "'roots[0]' holds about 300,000 bytes, more than a tree over the mesh's triangles has "
     "(5,088)"),
    ("index-count", _edit(lambda d: _set_index(d, _index(d)[:-3])),
     "'index' holds 237 vertex ids, not 3 for each of the mesh's 80 triangles"),
    ("not-a-permutation", _edit(_swap_vertex),
     "is not a triangle of the mesh, or is there twice: the index is not a permutation of "
     "the mesh's triangles"),
    ("right-child", _edit(lambda d: _root_bytes(d, _right_child)),
     "node 0: its right child 1000 is not a node after its left child 1 (0..38)"),
    ("leaf-past", _edit(lambda d: _root_bytes(d, _leaf_past)),
     "leaf triangles 79+"),
    ("index-type", _edit(lambda d: d["index"].update(type="Float32Array")),
     "'index' has type 'Float32Array' (one of Uint16Array, Uint32Array, Int32Array)"),
]


@pytest.mark.parametrize("name, text, words", CATALOGUE, ids=[c[0] for c in CATALOGUE])
def test_a_bad_three_mesh_bvh_file_is_one_line(tmp_path, name, text, words):
    path = tmp_path / f"{name}.json"
    message = tree_file_error(path, load_mesh(MESH), text)
    assert "\n" not in message and message.startswith(f"{path}: ")
    assert words in message


def test_an_indirect_buffer_that_is_not_a_permutation_is_named(tmp_path):
    data = json.loads((DATA / FILES[1]).read_text())
    dtype = _dtype(data["indirectBuffer"])
    twice = np.frombuffer(base64.b64decode(data["indirectBuffer"]["data"]), dtype=dtype).copy()
    twice[3] = twice[4]
    data["indirectBuffer"]["data"] = base64.b64encode(twice.tobytes()).decode()
    path = tmp_path / "twice.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TreeFileError, match=r"'indirectBuffer' is not a permutation: triangle "
                       r"\d+ is named (0|2) times"):
        read_any_tree(path, load_mesh(MESH))


def test_a_mesh_of_other_triangles_is_refused():
    mesh = load_mesh(MESH)
    from core.mesh import TriMesh

    fewer = TriMesh.from_arrays(mesh.vertices, mesh.faces[:-2], "fewer")
    with pytest.raises(TreeFileError, match="'index' holds 240 vertex ids, not 3 for each of "
                       "the mesh's 78 triangles"):
        read_any_tree(DATA / FILES[0], fewer)
    flipped = TriMesh.from_arrays(mesh.vertices, mesh.faces[:, [0, 2, 1]], "flipped")
    with pytest.raises(TreeFileError, match=r"triangle 0 is \(\d+, \d+, \d+\) in 'index' but "
                       r"\(\d+, \d+, \d+\) in the mesh: built on another mesh"):
        read_any_tree(DATA / FILES[1], flipped)


# ---- recognised by content -------------------------------------------------------------------


def test_every_format_is_recognised_by_its_content_whatever_its_suffix(tmp_path):
    coal = Path(__file__).resolve().parents[2] / "data" / "coal"
    octahedron = load_mesh(coal / "octahedron.obj")
    sphere = load_mesh(MESH)
    ours = tmp_path / "ours.json"
    write_tree(ours, read_any_tree(DATA / FILES[0], sphere))
    cases = [(ours, sphere, "file ours"), (DATA / FILES[0], sphere, "three-mesh-bvh"),
             (coal / "octahedron-obbrss.txt", octahedron, "coal OBBRSS"),
             (coal / "octahedron-obb.xml", octahedron, "coal OBB"),
             (coal / "octahedron-rss.bin", octahedron, "coal RSS")]  # fmt: skip
    for i, (path, mesh, source) in enumerate(cases):
        renamed = tmp_path / f"renamed-{i}.tree"
        shutil.copyfile(path, renamed)
        imported = read_any_tree(renamed, mesh)
        assert imported.source.startswith(source.replace("ours", "renamed-0.tree"))
    npz = tmp_path / "ours.npz"
    write_tree(npz, read_any_tree(ours, sphere))
    shutil.copyfile(npz, tmp_path / "ours.bin")
    assert read_any_tree(tmp_path / "ours.bin", sphere).tree.n_nodes == 39
    assert sniff(b"22 serialization::archive 19 1 0") == "coal"


def test_a_file_no_reader_knows_names_its_first_bytes(tmp_path):
    path = tmp_path / "mystery.dat"
    path.write_bytes(b"solid cube\nfacet normal 0 0 1\n")
    with pytest.raises(TreeFileError) as caught:
        read_any_tree(path, load_mesh(MESH))
    assert str(caught.value) == (
        f"{path}: not a tree file BVH Lab reads: starts with 'solid cube\\nfacet normal ' "
        f"(BVH Lab's .json or .npz, a coal or hpp-fcl BVHModel saved as text, XML or binary, "
        f"or three-mesh-bvh's serialize() as JSON or 3MBVH binary)")
    # Our own files keep their reader's messages.
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    with pytest.raises(TreeFileError, match=r"bad\.json: not JSON \("):
        read_any_tree(bad, load_mesh(MESH))
    with pytest.raises(TreeFileError, match=r"missing\.txt: no such file$"):
        read_any_tree(tmp_path / "missing.txt", load_mesh(MESH))
    with pytest.raises(TreeFileError, match=r"is a directory, not a tree file$"):
        read_any_tree(tmp_path, load_mesh(MESH))
