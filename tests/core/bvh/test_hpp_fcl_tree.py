"""hpp-fcl 2.x BVHModel files as hpp-fcl's serialization writes them (text, XML, binary; AABB,
OBB, RSS, OBBRSS, kIOS; tests/data/hpp-fcl/): read by content with their own volumes, told
apart from coal 3 files, queried with contacts equal to python-fcl's; and bad input (one line
naming the file and the problem)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from core.bvh.hpp_fcl_tree import is_hpp_fcl
from core.bvh.tree_formats import read_any_tree
from core.cli import main
from core.io import load_mesh
from tests.core.helpers import (
    assert_imported_tree_fits,
    assert_refused_on_other_meshes,
    fcl_pairs,
    tree_file_error,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "hpp-fcl"
COAL = DATA.parent / "coal"
OCTAHEDRON = DATA / "octahedron.obj"
KINDS = {"aabb": (), "obb": ("obb",), "rss": ("rss",), "obbrss": ("obb", "rss"),
         "kios": ("obb",)}  # fmt: skip
ARCHIVES = ("txt", "xml", "bin")


@pytest.mark.parametrize("archive", ARCHIVES)
@pytest.mark.parametrize("kind", list(KINDS))
def test_every_committed_hpp_fcl_file_reads_with_its_own_volumes(kind, archive):
    mesh = load_mesh(OCTAHEDRON)
    imported = read_any_tree(DATA / f"octahedron-{kind}.{archive}", mesh)
    name = {"obbrss": "OBBRSS", "kios": "kIOS"}.get(kind, kind.upper())
    assert imported.source == f"hpp-fcl {name} file octahedron-{kind}.{archive}, 15 nodes"
    assert imported.volume_note.startswith(f"hpp-fcl {name}")
    assert_imported_tree_fits(imported, mesh, KINDS[kind], DATA / f"octahedron-{kind}.bin")
    # hpp-fcl and coal build the same tree over this mesh: the same volumes, read two ways.
    coal = read_any_tree(COAL / f"octahedron-{kind}.{archive}", mesh)
    assert coal.source.startswith("coal ")
    for bv in imported.volumes:
        np.testing.assert_allclose(imported.volumes[bv], coal.volumes[bv], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(imported.tree.prim_ids, coal.tree.prim_ids)


@pytest.mark.parametrize("archive", ARCHIVES)
def test_hpp_fcl_and_coal_archives_are_told_apart_by_content(archive):
    for kind in KINDS:
        assert is_hpp_fcl((DATA / f"octahedron-{kind}.{archive}").read_bytes()[:4096])
        assert not is_hpp_fcl((COAL / f"octahedron-{kind}.{archive}").read_bytes()[:4096])


@pytest.mark.parametrize("tree_a, tree_b", [("obbrss.txt", "obbrss.bin"),
                                            ("obb.xml", "kios.bin"), ("rss.bin", "aabb.txt")])
def test_contacts_with_hpp_fcl_trees_equal_python_fcl(capsys, tree_a, tree_b):
    shift = np.array([0.9, 0.23, 0.17])
    code = main(["contacts", str(OCTAHEDRON), str(OCTAHEDRON), "--translate-b",
                 *map(str, shift), "--tree-a", str(DATA / f"octahedron-{tree_a}"),
                 "--tree-b", str(DATA / f"octahedron-{tree_b}"), "--json"])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert "hpp-fcl" in report["tree_a"]["text"] and "hpp-fcl" in report["tree_b"]["text"]
    ours = sorted(map(tuple, report["pairs"]))
    assert ours == fcl_pairs(load_mesh(OCTAHEDRON), load_mesh(OCTAHEDRON), shift)
    assert len(ours) >= 3


def _catalogue():
    head = (DATA / "octahedron-obbrss.txt").read_text()
    binary = (DATA / "octahedron-obbrss.bin").read_bytes()
    xml = (DATA / "octahedron-obbrss.xml").read_text()
    nodes_at = len(binary) - 256 * 15
    # Offsets in the binary archive: num_vertices at 169, the vertices' cols at 178,
    # has_prev_vertices and num_bvs just before the nodes.
    assert struct.unpack_from("<I", binary, 169) == (6,)
    assert struct.unpack_from("<q", binary, 178) == (6,)
    assert struct.unpack_from("<I", binary, nodes_at - 4) == (15,)

    def put(fmt, at, value):
        return binary[:at] + struct.pack(fmt, value) + binary[at + struct.calcsize(fmt):]

    return [
        ("truncated.txt", head[: head.rfind(" ", 0, 500)],
         "hpp-fcl text archive: the file ends before the vertices (after "),
        ("truncated.bin", binary[:300], "hpp-fcl binary archive: the file ends inside the "
         "vertices"),
        ("nodes-cut.bin", binary[:-100], "bytes of nodes are not 15 records of one size"),
        ("newer.bin", binary[:30] + struct.pack("<H", 99) + binary[32:],
         "boost archive version 99 is newer"),
        ("class.txt", head.replace("archive 19 0 0 ", "archive 19 0 3 ", 1),
         "hpp-fcl text archive: BVHModel class version 3 is newer than this reader knows"),
        ("class.xml", xml.replace('tracking_level="0" version="0"', 'tracking_level="0" '
                                  'version="2"', 1), "hpp-fcl XML archive: BVHModel class "
         "version 2 is newer than this reader knows"),
        ("cols.txt", head.replace(" 6 0 0 6 ", " 6 0 0 7 ", 1),
         "the vertices matrix has 7 columns, not 6"),
        ("huge-cols.bin", put("<q", 178, 2**62), "the vertices matrix has "
         "4,611,686,018,427,387,904 columns, not 6"),
        ("huge-count.bin", put("<I", 169, 2**31 - 1),
         "num_vertices is 2,147,483,647 but the mesh octahedron has 6 vertices"),
        ("huge-nodes.bin", put("<I", nodes_at - 4, 4_000_000_000),
         "num_bvs is 4,000,000,000, but an hpp-fcl tree over 8 triangles has 15 nodes"),
        ("prev.bin", put("<B", nodes_at - 6, 1), "has_prev_vertices is set"),
        ("prims.bin", put("<I", nodes_at + 256 * 14 + 8, 3),
         "num_primitives is 3: hpp-fcl's leaves hold one triangle"),
        ("child.bin", put("<i", nodes_at, 40),
         "hpp-fcl binary archive: node 0: first_child 40 names children 40, 41"),
        ("kdop.bin", binary[:nodes_at] + bytes(160 * 15),
         "KDOP<18> volumes: this reader reads hpp-fcl's AABB, OBB, RSS, OBBRSS, kIOS models"),
        ("xml-names.xml", xml.replace("<cols>6</cols>", "<rows>6</rows>", 1),
         "found <rows> where <cols> belongs"),
    ]


@pytest.mark.parametrize("name, content, words", _catalogue(), ids=lambda v: str(v)[:14])
def test_a_bad_hpp_fcl_file_is_one_line_naming_the_file_and_the_problem(tmp_path, name,
                                                                       content, words):  # fmt: skip
    assert words in tree_file_error(tmp_path / name, load_mesh(OCTAHEDRON), content)


def test_an_hpp_fcl_file_of_another_mesh_names_the_first_differing_vertex_and_triangle():
    assert_refused_on_other_meshes(
        DATA, load_mesh(OCTAHEDRON), r"hpp-fcl text archive: vertex 4 is \(0\.2, 0\.1, "
        r"0\.8\) in the file but \(0\.2, 0\.1, 1\.3\) in the mesh octahedron")
