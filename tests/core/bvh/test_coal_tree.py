"""coal BVHModel files as coal writes them (text, XML, binary; AABB, OBB, RSS, OBBRSS, kIOS):
read, drawn volumes in our row layout, checked, measured and queried with contacts equal to
python-fcl's; and the bad-input catalogue (one line naming the file, the node, the problem)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from core.bv import fit_volumes
from core.bvh.boost_archive import NEWEST_VERSION
from core.bvh.tree_formats import read_any_tree
from core.cli import main
from core.io import load_mesh
from core.mesh import TriMesh
from tests.core.helpers import (
    assert_imported_tree_fits,
    assert_refused_on_other_meshes,
    fcl_pairs,
    tree_file_error,
    write_obj,
)
from tests.core.meshgen import sphere_mesh

DATA = Path(__file__).resolve().parents[2] / "data" / "coal"
OCTAHEDRON = DATA / "octahedron.obj"
KINDS = {"aabb": (), "obb": ("obb",), "rss": ("rss",), "obbrss": ("obb", "rss"),
         "kios": ("obb",)}  # fmt: skip
ARCHIVES = ("txt", "xml", "bin")


def _coal_model(mesh: TriMesh, kind: str = "OBBRSS"):
    coal = pytest.importorskip("coal")
    model = getattr(coal, f"BVHModel{kind}")()
    model.beginModel(mesh.n_faces, mesh.n_vertices)
    model.addVertices(np.asarray(mesh.vertices, dtype=np.float64))
    model.addTriangles(np.asarray(mesh.faces, dtype=np.int64))
    model.endModel()
    return model


def _save(model, path: Path) -> Path:
    {".txt": model.saveToText, ".bin": model.saveToBinary}.get(
        path.suffix, lambda p: model.saveToXML(p, "model"))(str(path))  # fmt: skip
    return path


@pytest.mark.parametrize("archive", ARCHIVES)
@pytest.mark.parametrize("kind", list(KINDS))
def test_every_committed_coal_file_reads_with_its_own_volumes(kind, archive):
    mesh = load_mesh(OCTAHEDRON)
    imported = read_any_tree(DATA / f"octahedron-{kind}.{archive}", mesh)
    coal_name = {"obbrss": "OBBRSS", "kios": "kIOS"}.get(kind, kind.upper())
    assert imported.source.startswith(f"coal {coal_name} file octahedron-{kind}.{archive}")
    # Every volume holds every triangle under it (to coal's round-off), so nothing is
    # listed; the same volumes whatever the archive.
    assert_imported_tree_fits(imported, mesh, KINDS[kind], DATA / f"octahedron-{kind}.bin")


def test_an_aabb_file_keeps_coal_boxes_and_oriented_files_keep_their_volumes_for_queries():
    mesh = load_mesh(OCTAHEDRON)
    aabb = read_any_tree(DATA / "octahedron-aabb.txt", mesh)
    tree = aabb.tree
    for node in range(tree.n_nodes):
        corners = mesh.vertices[mesh.faces[tree.triangles_under(node)]].reshape(-1, 3)
        np.testing.assert_allclose(tree.bmin[node], corners.min(axis=0), atol=1e-15)
    obbrss = read_any_tree(DATA / "octahedron-obbrss.bin", mesh)
    # The query, the measures and the drawing get the file's rows for this tree and mesh.
    assert fit_volumes(obbrss.tree, mesh, "obb") is obbrss.volumes["obb"]
    assert fit_volumes(obbrss.tree, mesh, "rss") is obbrss.volumes["rss"]
    moved = mesh.with_vertices(mesh.vertices * 1.5)
    assert fit_volumes(obbrss.tree, moved, "obb") is not obbrss.volumes["obb"]


def test_the_fitted_boxes_are_measured_read_only_as_every_trees(monkeypatch):
    # The measures then run the signature the warm-up compiled: writable boxes compiled
    # sah_cost and volume_sum again at the first oriented coal file a user opened.
    from core.bvh import quality

    seen = []
    for name in ("sah_cost", "volume_sum"):
        measure = getattr(quality, name)
        monkeypatch.setattr(quality, name, lambda *args, _m=measure: (
            seen.append([a.flags.writeable for a in args]), _m(*args))[1])
    imported = read_any_tree(DATA / "octahedron-obb.txt", load_mesh(OCTAHEDRON))
    assert len(seen) == 2 and not any(flag for flags in seen for flag in flags)
    assert imported.tree.stats.sah_cost > 0


def test_python_bindings_write_what_the_committed_files_hold():
    mesh = load_mesh(OCTAHEDRON)
    model = _coal_model(mesh, "OBBRSS")
    data = model.saveToString() if hasattr(model, "saveToString") else None
    assert data is None or data.startswith("22 serialization::archive")
    for archive in ARCHIVES:
        path = _save(model, Path(f"/tmp/coal-octahedron-{id(model)}.{archive}"))
        try:
            ours = read_any_tree(path, mesh)
        finally:
            path.unlink()
        committed = read_any_tree(DATA / f"octahedron-obbrss.{archive}", mesh)
        for name in ("obb", "rss"):
            np.testing.assert_array_equal(ours.volumes[name], committed.volumes[name])
        np.testing.assert_array_equal(ours.tree.prim_ids, committed.tree.prim_ids)


@pytest.mark.parametrize("archive", ("txt", "bin"))
def test_contacts_with_coal_trees_equal_python_fcl(tmp_path, capsys, archive):
    shift = np.array([1.1, 0.23, 0.17])
    a_mesh, b_mesh = sphere_mesh(12), sphere_mesh(9, radius=0.7)
    paths = {}
    for key, mesh in (("a", a_mesh), ("b", b_mesh)):
        paths[key] = write_obj(tmp_path / f"{key}.obj", mesh)
        model = _coal_model(load_mesh(paths[key]), "OBBRSS")
        paths[f"tree_{key}"] = _save(model, tmp_path / f"{key}-tree.{archive}")
    code = main(["contacts", str(paths["a"]), str(paths["b"]), "--translate-b",
                 *map(str, shift), "--tree-a", str(paths["tree_a"]), "--tree-b",
                 str(paths["tree_b"]), "--json"])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["bv"] == "obb"  # the files' own oriented boxes
    assert "coal OBBRSS: the OBB part is drawn and tested" in report["tree_a"]["text"]
    ours = sorted(map(tuple, report["pairs"]))
    assert ours == fcl_pairs(load_mesh(paths["a"]), load_mesh(paths["b"]), shift)
    assert len(ours) > 10


def test_validate_and_quality_take_a_coal_file_and_list_a_volume_too_small(tmp_path, capsys):
    mesh = load_mesh(OCTAHEDRON)
    code = main(["validate", str(OCTAHEDRON), "--tree", str(DATA / "octahedron-obbrss.txt")])
    assert code == 0 and "tree OK: 15 nodes checked" in capsys.readouterr().out
    code = main(["quality", str(OCTAHEDRON), "--tree", str(DATA / "octahedron-rss.xml"),
                 "--json"])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["bv"] == "rss" and report["violations"] == 0
    # Shrink node 3's OBB half-length along its first axis (bytes 16 + 8 * 12 of its record).
    data = bytearray((DATA / "octahedron-obb.bin").read_bytes())
    k = 15
    start = len(data) - 136 * k + 136 * 3
    at = start + 16 + 8 * 12
    (half,) = struct.unpack_from("<d", data, at)
    struct.pack_into("<d", data, at, 0.5 * half)
    broken = tmp_path / "broken.coal"
    broken.write_bytes(bytes(data))
    imported = read_any_tree(broken, mesh)
    assert "obb" in imported.volumes
    code = main(["validate", str(OCTAHEDRON), "--tree", str(broken)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines[1].startswith("node 3 (depth 2): triangle ")
    assert f"sticks out of its oriented box (the file's) by {0.5 * half:.4g}" in lines[1]


def _text_with(path: Path, old: str, new: str, count: int = 1) -> str:
    text = path.read_text()
    assert old in text
    return text.replace(old, new, count)


def _catalogue():
    txt = DATA / "octahedron-obbrss.txt"
    binary = (DATA / "octahedron-obbrss.bin").read_bytes()
    head = txt.read_text()
    nodes_at = len(binary) - 256 * 15
    return [
        ("truncated.txt", head[:500],
         "coal text archive: the file ends before the vertices (after "),
        ("nodes-cut.txt", head[: len(head) // 2], "coal text archive: the 1,780 bytes of "
         "nodes are not 15 records"),
        ("truncated.bin", binary[:300], "coal binary archive: the file ends inside the "
         "vertices"),
        ("nodes-cut.bin", binary[:-100], "bytes of nodes are not 15 records of one size "
         "(the file is cut short, or num_bvs is wrong)"),
        ("newer.txt", head.replace("serialization::archive 20", "serialization::archive 21",
                                   1),
         f"boost archive version 21 is newer than this reader knows (it reads versions 17 to "
         f"{NEWEST_VERSION})"),
        ("newer.bin", binary[:30] + struct.pack("<H", 99) + binary[32:],
         "boost archive version 99 is newer"),
        ("vertices.txt", _text_with(txt, "\n1 6 0 ", "\n1 7 0 "),
         "the vertices array holds 7 items, not 6"),
        ("huge-count.bin", binary[:0xad] + b"\xff\xff\xff\x7f" + binary[0xb1:],
         "num_vertices is 2,147,483,647 but the mesh octahedron has 6 vertices"),
        ("huge-nodes.bin", binary[: nodes_at - 4] + struct.pack("<I", 4_000_000_000)
         + binary[nodes_at:], "num_bvs is 4,000,000,000, but a coal tree over 8 triangles "
         "has 15 nodes"),
        ("child.bin", binary[:nodes_at] + struct.pack("<i", 40) + binary[nodes_at + 4:],
         "node 0: first_child 40 names children 40, 41, not nodes 1..14"),
        ("leaf.bin", binary[:nodes_at + 256 * 14] + struct.pack("<i", -12)
         + binary[nodes_at + 256 * 14 + 4:],
         "node 14: first_child -12 names triangle 11, but the mesh has 8 (0..7)"),
        ("twice.bin", binary[:nodes_at + 256 * 14] + binary[nodes_at + 256 * 13:
                                                            nodes_at + 256 * 13 + 4]
         + binary[nodes_at + 256 * 14 + 4:], "are both leaves of triangle"),
        ("prims.bin", binary[:nodes_at + 256 * 14 + 8] + struct.pack("<I", 3)
         + binary[nodes_at + 256 * 14 + 12:],
         "node 14 is a leaf (triangle 4) but num_primitives is 3: coal's leaves hold one "
         "triangle"),
        ("nan.bin", binary[:nodes_at + 256 * 2 + 16] + struct.pack("<d", float("nan"))
         + binary[nodes_at + 256 * 2 + 24:], "node 2: its OBBRSS holds NaN or infinity"),
        ("kdop.bin", binary[:nodes_at - 4] + struct.pack("<I", 15) + bytes(160 * 15),
         "KDOP<18> volumes: this reader reads coal's AABB, OBB, RSS, OBBRSS, kIOS models"),
        ("xml-names.xml", _text_with(DATA / "octahedron-obbrss.xml", "<num_tris>",
                                     "<num_triangles>").replace("</num_tris>",
                                                                "</num_triangles>", 1),
         "found <num_triangles> where <num_tris> belongs"),
    ]


@pytest.mark.parametrize("name, content, words", _catalogue(), ids=lambda v: str(v)[:14])
def test_a_bad_coal_file_is_one_line_naming_the_file_and_the_problem(tmp_path, name, content,
                                                                    words):  # fmt: skip
    assert words in tree_file_error(tmp_path / name, load_mesh(OCTAHEDRON), content)


def test_a_coal_file_of_another_mesh_names_the_first_differing_vertex_and_triangle(tmp_path):
    assert_refused_on_other_meshes(
        DATA, load_mesh(OCTAHEDRON), r"vertex 4 is \(0\.2, 0\.1, 0\.8\) in the file but "
        r"\(0\.2, 0\.1, 1\.3\) in the mesh octahedron \(1 vertex differs\): "
        r"the tree was built on another mesh")
