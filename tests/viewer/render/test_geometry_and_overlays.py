"""The render layer without a window: batched geometry and overlays from real frames."""

from __future__ import annotations

import numpy as np

from core.lab.inspect import inspect_node
from viewer.render.geometry import (
    LINES_PER_BOX,
    box_corners,
    boxes_groups_polydata,
    boxes_polydata,
    segments_polydata,
    triangles_polydata,
)
from viewer.render.overlays import build_overlays, level_sentence, trace_pairs
from viewer.scenes import pose_matrix
from viewer.state.display import Display


def test_box_corners_are_the_eight_combinations_of_min_and_max():
    bmin = np.array([[0.0, 1.0, 2.0]])
    bmax = np.array([[3.0, 4.0, 5.0]])
    corners = box_corners(bmin, bmax)[0]
    expected = {(x, y, z) for x in (0.0, 3.0) for y in (1.0, 4.0) for z in (2.0, 5.0)}
    assert {tuple(c) for c in corners} == expected


def test_boxes_polydata_has_twelve_unit_edges_per_unit_box():
    bmin = np.zeros((3, 3)) + np.arange(3)[:, None]
    poly = boxes_polydata(bmin, bmin + 1.0)
    assert poly.n_points == 24 and poly.n_cells == 3 * LINES_PER_BOX
    lines = np.asarray(poly.lines).reshape(-1, 3)
    assert (lines[:, 0] == 2).all()
    lengths = np.linalg.norm(poly.points[lines[:, 1]] - poly.points[lines[:, 2]], axis=1)
    np.testing.assert_allclose(lengths, 1.0)


def test_boxes_polydata_applies_the_pose():
    pose = pose_matrix((1.0, 2.0, 3.0), (0, 0, 1), 90.0)
    poly = boxes_polydata(np.zeros((1, 3)), np.ones((1, 3)), pose)
    local = box_corners(np.zeros((1, 3)), np.ones((1, 3)))[0]
    np.testing.assert_allclose(poly.points, local @ pose[:3, :3].T + pose[:3, 3], atol=1e-12)


def test_groups_and_empty_inputs():
    empty = np.empty((0, 3))
    assert boxes_polydata(empty, empty).n_cells == 0
    poly = boxes_groups_polydata([(empty, empty, None), (np.zeros((2, 3)), np.ones((2, 3)), None)])
    assert poly.n_cells == 2 * LINES_PER_BOX
    assert triangles_polydata(np.zeros((0, 3, 3))).n_cells == 0
    assert segments_polydata(np.zeros((0, 2, 3))).n_cells == 0
    tris = triangles_polydata(np.arange(18, dtype=float).reshape(2, 3, 3))
    assert tris.n_cells == 2 and tris.n_points == 6


def test_overlays_follow_the_trace_at_every_level(sphere_frame):
    trace = sphere_frame.result.trace
    display = Display(show_culled=True)
    for level in range(trace.n_levels):
        pairs, overlapped = trace.level(level)
        out = build_overlays(sphere_frame, display, level)
        assert out.polys["overlap"].n_cells == 2 * LINES_PER_BOX * int(overlapped.sum())
        assert out.polys["culled"].n_cells == 2 * LINES_PER_BOX * int((~overlapped).sum())
        # The overlap overlay is A's box then B's box of each pair, in world coordinates.
        hit = pairs[overlapped]
        if len(hit):
            tree_a = sphere_frame.trees[0]
            pose_a = sphere_frame.poses[0]
            first = out.polys["overlap"].points[:8]
            node = hit[:1, 0]
            expected = pose_a.apply(box_corners(tree_a.bmin[node], tree_a.bmax[node])[0])
            np.testing.assert_allclose(first, expected, atol=1e-12)


def test_overlays_cap_and_say_so(sphere_frame):
    out = build_overlays(sphere_frame, Display(box_cap=100), None)
    assert out.polys["tree_a"].n_cells == 100 * LINES_PER_BOX
    assert out.polys["overlap"].n_cells == 100 * LINES_PER_BOX  # cap // 2 pairs, 2 boxes each
    assert any("cap" in note for note in out.notes)
    assert build_overlays(sphere_frame, Display(), 3).notes == []


def test_contact_overlay_counts_distinct_triangles(sphere_frame):
    out = build_overlays(sphere_frame, Display(), 5)
    pairs = sphere_frame.result.pairs
    n = len(np.unique(pairs[:, 0])) + len(np.unique(pairs[:, 1]))
    assert out.n_contact_tris == n == out.polys["contact_tris"].n_cells
    assert out.polys["contact_segments"].n_cells == len(pairs)
    hidden = build_overlays(sphere_frame, Display(show_contacts=False), 5)
    assert hidden.polys["contact_tris"].n_cells == 0


def test_all_levels_concatenate(sphere_frame):
    trace = sphere_frame.result.trace
    pairs, overlapped = trace_pairs(trace, None)
    assert len(pairs) == int(trace.tested_per_level.sum())
    assert int(overlapped.sum()) == int(trace.overlapping_per_level.sum())


def test_inspect_node_finds_the_ancestor_at_the_level(sphere_frame):
    tree = sphere_frame.trees[0]
    tri = int(sphere_frame.result.pairs[0, 0])
    info = inspect_node(sphere_frame, 0, tri, 3)
    node = info.node
    assert info.depth == 3 == int(tree.depth[node])
    assert tri in set(tree.triangles_under(node).tolist())
    pairs, overlapped = sphere_frame.result.trace.level(3)
    assert list(info.partners) == pairs[pairs[:, 0] == node, 1].tolist()
    deepest = inspect_node(sphere_frame, 0, tri, None)
    assert tree.count[deepest.node] > 0  # no level: the leaf itself


def test_level_sentence_gives_the_trace_numbers(sphere_frame):
    trace = sphere_frame.result.trace
    text = level_sentence(trace, 4)
    tested, overlap = trace.tested_per_level[4], trace.overlapping_per_level[4]
    assert text.startswith(f"Level 4: {tested} pairs tested, {overlap} overlap")
    assert "larger box" in text
    last = level_sentence(trace, trace.n_levels - 1)
    assert "ends here" in last or "triangle test" in last


def test_big_meshes_are_drawn_decimated_from_a_subset_of_their_vertices():
    import pyvista as pv

    from viewer.render.decimation import DISPLAY_MAX_TRIANGLES, decimated
    from viewer.render.geometry import mesh_polydata
    from viewer.render.scene import SceneRenderer
    from viewer.scenes import sphere
    from viewer.state.bodies import Body

    vertices, faces = sphere(1.0, 120)()
    assert len(faces) > DISPLAY_MAX_TRIANGLES
    poly, ids = decimated(mesh_polydata(vertices, faces), DISPLAY_MAX_TRIANGLES)
    assert poly.n_cells <= DISPLAY_MAX_TRIANGLES
    np.testing.assert_array_equal(poly.points, vertices[ids])

    from core.mesh import TriMesh

    mesh = TriMesh.from_arrays(vertices, faces, "big")
    plotter = pv.Plotter(off_screen=True, window_size=[200, 200])
    renderer = SceneRenderer(plotter)
    body = Body("big#0", "big", mesh, mesh, np.eye(4), "#7fa7d9")
    renderer.set_bodies([body])
    assert renderer.mesh_polys[0].n_cells <= DISPLAY_MAX_TRIANGLES
    assert "big: drawn with" in renderer.display_notes[0]
    renderer.update_body(0, Body("big#0", "big", mesh.with_vertices(2 * vertices), mesh,
                                 np.eye(4), "#7fa7d9"))
    kept = renderer._display_ids[0]
    np.testing.assert_allclose(renderer.mesh_polys[0].points, 2 * vertices[kept])
    renderer.set_bodies([body], is_full_resolution=True)
    assert renderer.mesh_polys[0].n_cells == len(faces) and renderer.display_notes == []
    plotter.close()


def test_inspect_lists_every_level_where_the_box_was_tested(sphere_frame):
    trace = sphere_frame.result.trace
    tri = int(sphere_frame.result.pairs[0, 1])
    info = inspect_node(sphere_frame, 1, tri, 5)
    expected = [d for d in range(trace.n_levels)
                if (trace.level(d)[0][:, 1] == info.node).any()]
    assert list(info.levels_tested) == expected
    assert expected  # a box above a contacting triangle is always tested
