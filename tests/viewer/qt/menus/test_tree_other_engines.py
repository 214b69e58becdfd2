"""Tree > Open with other engines' tree files: a coal OBBRSS model (its OBBs drawn as oriented
boxes, the scene switched to them) and a three-mesh-bvh tree (its boxes drawn as read)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from core.bv import obb
from core.bvh.tree_formats import read_any_tree
from core.io import load_mesh
from tests.viewer.conftest import settle, wait_scene

DATA = Path(__file__).resolve().parents[3] / "data"
THREE_MESH = DATA / "three-mesh-bvh" / "icosphere80.obj"
COAL_MESH = DATA / "coal" / "octahedron.obj"


def test_coal_and_three_mesh_bvh_trees_open_and_are_drawn_as_read(qtbot, window):
    assert window.controller.files.load_files([str(THREE_MESH), str(COAL_MESH)])
    wait_scene(qtbot, window)
    settle(qtbot, window)
    tools = window.tree_tools
    assert window.model.pipeline.bv != "obb"
    said = []
    window.model.message.connect(said.append)

    # Body B: coal's OBBRSS model, saved by coal as a binary archive (suffix .bin).
    assert tools.open_tree_file(1, str(DATA / "coal" / "octahedron-obbrss.bin"))
    settle(qtbot, window)
    assert window.model.pipeline.bv == "obb"  # the file's own kind is shown
    assert any("coal OBBRSS: the OBB part is drawn and tested" in line for line in said)
    frame = window.model.frame
    body_b = window.model.bodies[1]
    expected = read_any_tree(DATA / "coal" / "octahedron-obbrss.bin", body_b.rest)
    # The frame's volumes of B are the file's OBBs, node for node.
    np.testing.assert_array_equal(frame.volumes.rows[1], expected.volumes["obb"])
    assert frame.trees[1].n_nodes == 15
    # The legend says whose boxes these are (it said only "oriented boxes").
    window.redraw()
    label = frame.tree_words(1)
    assert "octahedron-obbrss.bin" in label
    assert window.renderer.legend_texts[1] == f"mesh B and its oriented boxes ({label})"
    assert window.renderer.legend_texts[0] == "mesh A and its oriented boxes"

    window.model.set_level(2)
    window.redraw()
    nodes = frame.trees[1].nodes_at_depth(2)
    drawn = window.renderer.polys["tree_b"]
    assert drawn.n_cells == 12 * nodes.shape[0]  # an oriented box is 12 edges
    pose = frame.poses[1].as_matrix()
    corners = obb.corners(expected.volumes["obb"][nodes]).reshape(-1, 3)
    posed = corners @ pose[:3, :3].T + pose[:3, 3]
    np.testing.assert_allclose(np.asarray(drawn.bounds)[::2], posed.min(axis=0), atol=1e-9)
    np.testing.assert_allclose(np.asarray(drawn.bounds)[1::2], posed.max(axis=0), atol=1e-9)
    assert window.model.validation is not None and window.model.validation.status().startswith(
        "tree of B")  # fmt: skip

    # Body A: three-mesh-bvh's serialize() as JSON; its boxes are the tree's own (AABB).
    window.model.set_pipeline(bv="aabb")
    assert tools.open_tree_file(0, str(DATA / "three-mesh-bvh" / "icosphere80.json"))
    settle(qtbot, window)
    assert window.model.pipeline.bv == "aabb"
    frame = window.model.frame
    body_a = window.model.bodies[0]
    read = read_any_tree(DATA / "three-mesh-bvh" / "icosphere80.json", body_a.rest)
    np.testing.assert_array_equal(frame.trees[0].bmin, read.tree.bmin)
    window.redraw()
    nodes = frame.trees[0].nodes_at_depth(2)
    drawn = window.renderer.polys["tree_a"]
    assert drawn.n_cells == 12 * nodes.shape[0]
    pose = frame.poses[0].as_matrix()
    corners = np.stack([read.tree.bmin[nodes], read.tree.bmax[nodes]])  # (2, j, 3)
    bits = np.array([[(c >> i) & 1 for i in range(3)] for c in range(8)])
    boxes = np.where(bits[:, None, :] == 1, corners[1][None], corners[0][None]).reshape(-1, 3)
    posed = boxes @ pose[:3, :3].T + pose[:3, 3]
    np.testing.assert_allclose(np.asarray(drawn.bounds)[::2], posed.min(axis=0), atol=1e-6)
    np.testing.assert_allclose(np.asarray(drawn.bounds)[1::2], posed.max(axis=0), atol=1e-6)
    assert any("three-mesh-bvh file icosphere80.json (index reordered), 39 nodes" in line
               for line in said)  # fmt: skip
    assert load_mesh(THREE_MESH).n_faces == 80
