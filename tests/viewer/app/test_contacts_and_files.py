"""Contacts you can trust, in the viewer: contact kinds in colour, containment, self-collision,
bad files, big files and a soak of the frame loop."""

from __future__ import annotations

import numpy as np
import pytest

from core.collide.tritri import ContactKind
from core.mesh import TriMesh
from core.pipeline import BodyInput, FramePipeline
from tests.viewer.helpers import screenshot, windowless_controller, without_legend
from viewer.qt.panels.stats import relation_text
from viewer.render.overlays import (
    KIND_COLORS,
    KIND_COPLANAR,
    KIND_CROSSING,
    KIND_TOUCHING,
    build_overlays,
    kind_colors,
    triangle_kinds,
)
from viewer.render.style import LEGEND
from viewer.state.display import Display


# -- 1. contact kinds in colour ---------------------------------------------------------------
def test_kind_constants_mirror_the_core():
    assert KIND_CROSSING == int(ContactKind.CROSSING)
    assert KIND_TOUCHING == int(ContactKind.TOUCHING)
    assert KIND_COPLANAR == int(ContactKind.COPLANAR)
    colors = {tuple(c) for c in KIND_COLORS.values()}
    assert len(colors) == 3  # three different shades
    labels = [label for label, _ in LEGEND]
    assert sum(label.startswith("contact:") for label in labels) == 3


def test_a_triangle_shows_its_strongest_contact_kind():
    ids, kinds = triangle_kinds(np.array([4, 4, 7, 9, 9, 2]),
                                np.array([KIND_TOUCHING, KIND_CROSSING, KIND_TOUCHING,
                                          KIND_TOUCHING, KIND_COPLANAR, KIND_COPLANAR]))
    assert ids.tolist() == [2, 4, 7, 9]
    assert kinds.tolist() == [KIND_COPLANAR, KIND_CROSSING, KIND_TOUCHING, KIND_COPLANAR]
    assert kind_colors(kinds).tolist() == [list(KIND_COLORS[k]) for k in kinds]


def _three_contacts():
    """A frame where A's triangle 0 crosses B's 0, A's 1 is touched by B's 1 (a corner on
    its face) and A's 2 overlaps B's 2 in their common plane; the groups are 10 apart."""
    a, b = [], []
    for k in range(3):
        x = 10.0 * k
        a.append([(x, 0, 0), (x + 1, 0, 0), (x, 1, 0)])
    b.append([(0.2, 0.2, -0.5), (0.2, 0.2, 0.5), (0.6, 0.2, 0.0)])
    b.append([(10.2, 0.2, 0.0), (10.2, 0.2, 1.0), (10.5, 0.5, 1.0)])
    b.append([(20.2, 0.2, 0.0), (21.2, 0.2, 0.0), (20.2, 1.2, 0.0)])
    faces = np.arange(9).reshape(3, 3)
    mesh_a = TriMesh.from_arrays(np.array(a, float).reshape(-1, 3), faces, name="a")
    mesh_b = TriMesh.from_arrays(np.array(b, float).reshape(-1, 3), faces, name="b")
    return FramePipeline().step([BodyInput("a", mesh_a), BodyInput("b", mesh_b)], 0.0)


def test_contact_triangles_are_coloured_by_kind():
    frame = _three_contacts()
    assert frame.result.pairs.tolist() == [[0, 0], [1, 1], [2, 2]]
    assert frame.result.kinds.tolist() == [KIND_CROSSING, KIND_TOUCHING, KIND_COPLANAR]
    out = build_overlays(frame, Display(), None)
    poly = out.polys["contact_tris"]
    assert poly.n_cells == 6
    # A's three triangles, then B's three, each in its pair's colour.
    expected = [KIND_CROSSING, KIND_TOUCHING, KIND_COPLANAR] * 2
    assert np.asarray(poly.cell_data["kind"]).tolist() == expected
    assert np.asarray(poly.cell_data["rgb"]).tolist() == [list(KIND_COLORS[k]) for k in expected]
    assert out.n_by_kind == {KIND_CROSSING: 2, KIND_TOUCHING: 2, KIND_COPLANAR: 2}
    assert relation_text(frame, frame.result) == (
        "<b>A and B</b>: 3 contact pairs (1 crossing, 1 touching, 1 coplanar overlap)")


def test_contact_colours_reach_the_pixels(qtbot, window):
    """Two-spheres contacts cross: the canvas shows the crossing red and no other kind."""

    image = without_legend(window, screenshot(window))[..., :3].astype(int)
    rgb = {k: np.array(c) for k, c in KIND_COLORS.items()}
    near = {k: (np.abs(image - c).sum(axis=2) < 30).sum() for k, c in rgb.items()}
    assert set(np.unique(window.renderer.polys["contact_tris"].cell_data["kind"])) == {
        KIND_CROSSING}
    assert near[KIND_CROSSING] > 50
    assert near[KIND_COPLANAR] == 0


# -- 2. containment -------------------------------------------------------------------------
def test_concentric_spheres_say_a_is_inside_b_on_canvas_and_in_stats(qtbot, make_window):
    window = make_window("concentric-spheres")
    frame = window.model.frame
    assert frame.result.n_contacts == 0
    assert frame.containment.text == "A is inside B"
    assert "no contact: A is inside B" in window.renderer.note.GetText(0)
    stats = window.docks["stats_dock"].widget()
    panel = stats.widget() if hasattr(stats, "widget") and stats.widget() else stats
    assert "A is inside B" in panel.relation.text()
    # Drag B far away: apart.
    pose = window.model.bodies[1].pose.copy()
    pose[:3, 3] += (5.0, 0.0, 0.0)
    window.model.set_pose(1, pose)
    qtbot.waitUntil(lambda: window.model.frame.containment is not None
                    and window.model.frame.containment.text == "apart", timeout=30_000)


def test_open_mesh_makes_containment_undefined(tmp_path):
    from viewer.scenes import sphere

    v, f = sphere(1.0, 12)()
    centroids = v[f].mean(axis=1)
    path = tmp_path / "bowl.obj"
    lines = [f"v {x} {y} {z}" for x, y, z in v * 3.0]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in f[centroids[:, 2] < 0.8]]
    path.write_text("\n".join(lines) + "\n")
    ball = tmp_path / "ball.obj"
    ball.write_text("\n".join([f"v {x} {y} {z}" for x, y, z in v * 0.3]
                              + [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in f]) + "\n")
    model, controller = windowless_controller()
    assert controller.files.load_files([str(ball), str(path)])
    text = model.frame.containment.text
    assert text.startswith("undefined: B is open (") and "boundary edges)" in text
    controller.shutdown()


# -- 3. self-collision ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def tube_frame():
    model, controller = windowless_controller()
    assert controller.scenes.load_scene("folding-tube")
    model.set_playing(False)
    model.set_time(1.0)  # the bend's peak (0.25 Hz): the inner wall has folded through
    frame = controller.frames.step_sync()
    n_levels = model.n_levels()
    controller.shutdown()
    return frame, n_levels


def test_folding_tube_collides_with_itself(tube_frame):
    frame, n_levels = tube_frame
    assert frame.result is None and len(frame.trees) == 1
    result = frame.self_results[0]
    assert result.n_contacts > 100
    assert (result.pairs[:, 0] < result.pairs[:, 1]).all()
    assert n_levels == result.trace.n_levels > 5
    # At rest (t = 0) the tube is straight: no self-contact.
    model, controller = windowless_controller()
    controller.scenes.load_scene("folding-tube")
    model.set_playing(False)
    model.set_time(0.0)
    assert controller.frames.step_sync().self_results[0].n_contacts == 0
    controller.shutdown()


def test_rippling_shell_crosses_itself_in_rings():
    from core.containment import edge_stats

    model, controller = windowless_controller()
    assert controller.scenes.load_scene("rippling-shell")
    model.set_playing(False)
    model.set_time(1.0)
    frame = controller.frames.step_sync()
    mesh = frame.meshes[0]
    assert edge_stats(mesh).n_boundary_edges == 0  # one closed mesh with two walls
    result = frame.self_results[0]
    kinds = np.bincount(result.kinds, minlength=4)
    assert kinds[KIND_CROSSING] > 100 and kinds[KIND_CROSSING] > kinds[KIND_TOUCHING]
    # Every contact pairs a triangle of the outer wall with one of the inner wall.
    n_outer = mesh.n_faces // 2
    assert ((result.pairs[:, 0] < n_outer) & (result.pairs[:, 1] >= n_outer)).all()
    controller.shutdown()


def test_self_traversal_levels_are_drawn_as_pairs_of_boxes_of_one_tree(tube_frame):
    frame, _ = tube_frame
    trace = frame.self_results[0].trace
    pairs_drawn = []
    for level in range(trace.n_levels):
        out = build_overlays(frame, Display(), level)
        level_pairs, overlapped = trace.level(level)
        is_self_pair = level_pairs[:, 0] == level_pairs[:, 1]
        assert overlapped[is_self_pair].all()  # a box always overlaps itself...
        # ...so those pairs are not drawn: only pairs of two different boxes.
        n_overlap = int(np.count_nonzero(overlapped & ~is_self_pair))
        assert n_overlap + is_self_pair.sum() == trace.overlapping_per_level[level]
        n_drawn = min(n_overlap, Display().box_cap // 2)  # capped, and the canvas says so
        assert out.polys["overlap"].n_cells == 24 * n_drawn
        assert (n_drawn < n_overlap) == any("overlapping pairs" in n for n in out.notes)
        assert out.polys["tree_b"].n_cells == 0  # one body: one tree
        depth = min(level, frame.trees[0].max_depth)
        assert out.polys["tree_a"].n_cells == 12 * len(frame.trees[0].nodes_at_depth(depth))
        pairs_drawn.append(n_overlap)
    assert max(pairs_drawn) > 10
    out = build_overlays(frame, Display(), 3)
    pairs = frame.self_results[0].pairs
    n_tris = np.unique(pairs).shape[0]
    assert out.polys["contact_tris"].n_cells == out.n_contact_tris == n_tris
    assert out.polys["contact_segments"].n_cells == pairs.shape[0]


def test_inspecting_a_box_of_the_self_traversal_lists_boxes_of_the_same_tree(tube_frame):
    from core.lab.inspect import inspect_node

    frame, _ = tube_frame
    result = frame.self_results[0]
    tri = int(result.pairs[0, 0])
    info = inspect_node(frame, 0, tri, 6)
    assert info is not None and info.depth <= 6 and info.triangle == tri
    level_pairs, _ = result.trace.level(6)
    node = info.node
    expected = sorted([int(b) for a, b in level_pairs if a == node]
                      + [int(a) for a, b in level_pairs if b == node and a != node])
    assert sorted(info.partners) == expected and expected
    assert 6 in info.levels_tested
    out = build_overlays(frame, Display(), 6, info)
    assert out.polys["inspect"].n_cells == 12 * (1 + len(info.partners))
    assert inspect_node(frame, 1, tri, 6) is None  # there is no body B


def test_folding_tube_in_the_window_fills_levels_and_stats(qtbot, make_window):
    window = make_window("folding-tube")
    window.model.set_time(1.0)
    window.controller.frames.request_frame()
    qtbot.waitUntil(lambda: window.model.frame is not None
                    and window.model.frame.self_results[0].n_contacts > 0, timeout=30_000)
    qtbot.waitUntil(lambda: not window.controller.frames.is_busy, timeout=30_000)
    n = window.model.n_levels()
    levels = window.docks["levels_dock"].panel
    assert levels.n_levels() == n > 5
    window.model.set_level(4)
    level_pairs, overlapped = window.model.frame.self_results[0].trace.level(4)
    n_other = int(np.count_nonzero(overlapped & (level_pairs[:, 0] != level_pairs[:, 1])))
    assert window.renderer.cell_count("overlap") == 24 * n_other > 0
    assert levels.current_sentence().startswith("Level 4:")
    assert window.renderer.cell_count("contact_tris") > 0


# -- 6. soak --------------------------------------------------------------------------------
def test_soak_keeps_memory_and_vtk_counts_flat():
    from viewer.bench.soak import format_soak, run_soak

    report = run_soak("cloth-sphere", n_frames=300, n_warmup=60, window=50)
    text = format_soak(report)
    assert report.is_ok, text
    assert report.memory_growth < 0.05
    assert report.counts_end["actors"] == report.counts_warm["actors"] > 5
    assert report.counts_end["polydata"] == report.counts_warm["polydata"]
    assert report.frame_ms_start > 0 and report.frame_ms_end > 0
    assert text.endswith("PASS")


# -- 4. bad input through File > Open -------------------------------------------------------
_TRI = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
BAD_FILES = {
    "missing": ("missing.obj", None, "no such file"),
    "unsupported extension": ("mesh.xyz", b"1 2 3\n", "unsupported file type"),
    "corrupt OBJ": ("corrupt.obj", b"v 0 0 zero\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", ""),
    "truncated binary STL": ("cut.stl", b"\0" * 80 + (10).to_bytes(4, "little") + b"\0" * 60, ""),
    "truncated ASCII STL": ("cut_ascii.stl",
                            b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n", ""),
    "corrupt PLY": ("cut.ply", b"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                    b"property float y\nproperty float z\nelement face 1\n"
                    b"property list uchar int vertex_indices\nend_header\n0 0 0\n", ""),
    "empty": ("empty.obj", b"", "empty"),
    "points only": ("points.obj", _TRI.encode(), ""),
    "lines only": ("lines.obj", (_TRI + "l 1 2\nl 2 3\n").encode(), ""),
    "NaN": ("nan.obj", b"v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", "NaN"),
    "Inf": ("inf.obj", b"v 0 0 0\nv inf 0 0\nv 0 1 0\nf 1 2 3\n", ""),
    "index out of range": ("range.obj", (_TRI + "f 1 2 9\n").encode(), "out of range"),
    "negative index": ("negative.obj", (_TRI + "f -7 1 2\n").encode(), ""),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_file_shows_a_message_and_leaves_the_scene_unchanged(tmp_path, case):
    file_name, data, reason = BAD_FILES[case]
    path = tmp_path / file_name
    if data is not None:
        path.write_bytes(data)
    model, controller = windowless_controller()
    controller.scenes.load_scene("two-spheres")
    bodies_before, frame_before = list(model.bodies), model.frame
    errors = []
    model.error.connect(lambda title, text: errors.append((title, text)))
    for replace_scene in (True, False):
        assert not controller.files.load_files([str(path)], replace_scene=replace_scene)
    assert len(errors) == 2
    title, text = errors[0]
    assert title == "Cannot open mesh"
    assert text.startswith(f"{file_name}: ") and len(text) > len(file_name) + 5
    assert reason.lower() in text.lower()
    assert model.bodies == bodies_before and model.frame is frame_before
    controller.shutdown()


def test_degenerate_triangles_load_with_a_note_of_how_many(tmp_path):
    path = tmp_path / "degenerate.obj"
    path.write_text(_TRI + "v 2 0 0\nf 1 2 3\nf 1 2 4\nf 1 1 3\n")  # collinear, repeated
    model, controller = windowless_controller()
    messages = []
    model.message.connect(messages.append)
    assert controller.files.load_files([str(path)])
    assert any("2 degenerate (zero-area) triangles" in m for m in messages)
    assert model.bodies[0].rest.n_faces == 3
    controller.shutdown()


# -- 5. big meshes: off the GUI thread, limits stated ---------------------------------------
def test_file_open_reads_off_the_gui_thread_while_the_event_loop_runs(
        qtbot, window, tmp_path, monkeypatch):
    import threading

    from PyQt6.QtCore import QTimer

    import viewer.control.files as files_module
    from viewer.scenes import sphere

    v, f = sphere(1.0, 40)()
    path = tmp_path / "big.obj"
    path.write_text("\n".join([f"v {x} {y} {z}" for x, y, z in v]
                              + [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in f]) + "\n")
    release = threading.Event()
    reader_threads = []
    real_load = files_module.load_mesh

    def slow_load(p):
        # Hold the read until the GUI thread has shown it keeps processing events.
        reader_threads.append(threading.current_thread())
        assert release.wait(60)
        return real_load(p)

    monkeypatch.setattr(files_module, "load_mesh", slow_load)
    monkeypatch.setattr(files_module, "WARN_TRIANGLES", 1000)
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(5)
    window.controller.files.load_files_async([str(path)], replace_scene=True)
    assert window.model.loading.startswith("Reading big.obj")
    loading = window.progress_dialogs.loading
    assert loading is not None and loading.isVisible()
    qtbot.waitUntil(lambda: len(ticks) >= 5, timeout=30_000)  # the loop runs during the load
    assert reader_threads and reader_threads[0] is not threading.main_thread()
    release.set()
    qtbot.waitUntil(lambda: window.model.scene_title == "big", timeout=60_000)
    timer.stop()
    assert window.model.loading == "" and not window.progress_dialogs.loading.isVisible()
    title, text = window.last_error
    assert title == "Large mesh" and "frames per second" in text
    assert f"{files_module.MAX_TRIANGLES:,} triangles" in text


def test_too_many_triangles_are_refused_with_the_limit(tmp_path, monkeypatch):
    import viewer.control.files as files_module

    path = tmp_path / "two.obj"
    path.write_text(_TRI + "v 1 1 0\nf 1 2 3\nf 2 4 3\n")
    monkeypatch.setattr(files_module, "MAX_TRIANGLES", 1)
    model, controller = windowless_controller()
    errors = []
    model.error.connect(lambda title, text: errors.append(text))
    assert not controller.files.load_files([str(path)])
    assert errors == ["two.obj: 2 triangles; BVH Lab opens meshes of up to 1 triangles"]
    controller.shutdown()


def test_soak_command_exit_code_follows_the_verdict(monkeypatch, capsys):
    import viewer.bench.soak as soak
    from viewer.__main__ import main

    def fake(scene, n_frames):
        report = soak.SoakReport(scene, n_frames, 1, 100, 110, {"actors": 1}, {"actors": 1})
        report.problems.append("resident memory grew 10.0 % after warm-up (limit 5 %)")
        return report

    monkeypatch.setattr(soak, "run_soak", fake)
    assert main(["--soak", "7", "--scene", "two-spheres"]) == 1
    out = capsys.readouterr().out
    assert "soak two-spheres: 7 frames" in out and out.rstrip().endswith("FAIL")


def test_drawing_copy_made_ahead_is_reused_by_moved_and_deformed_meshes():
    from viewer.render.decimation import display_copy, prepare_display_copy
    from viewer.scenes import sphere

    v, f = sphere(1.0, 40)()
    mesh = TriMesh.from_arrays(v, f, name="s")
    assert not prepare_display_copy(mesh, max_triangles=10 * mesh.n_faces)
    assert prepare_display_copy(mesh, max_triangles=500)
    poly, ids = display_copy(mesh)
    assert 0 < poly.n_cells <= 600 and poly.n_points == ids.shape[0]
    np.testing.assert_allclose(poly.points, mesh.vertices[ids])
    bigger = mesh.with_vertices(mesh.vertices * 2.0)  # same faces: same copy, new points
    poly2, ids2 = display_copy(bigger)
    assert np.array_equal(ids2, ids) and poly2.n_cells == poly.n_cells
    np.testing.assert_allclose(poly2.points, 2.0 * np.asarray(poly.points))
