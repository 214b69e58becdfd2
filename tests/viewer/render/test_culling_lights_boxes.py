"""What the frame rate work changed in the drawing: back faces culled on closed meshes only,
one headlight and a flat background, and tree boxes read per drawn node (nothing timed)."""

from __future__ import annotations

import numpy as np
import pytest
import pyvista as pv

from viewer.render.culling import has_inward_part, hole_area_fraction, may_cull_back_faces
from viewer.render.volumes import VolumeSet, as_volume_set, volumes_groups_polydata


def _arrays(poly: pv.PolyData) -> tuple[np.ndarray, np.ndarray]:
    poly = poly.triangulate()
    return np.asarray(poly.points, dtype=np.float64), poly.regular_faces.astype(np.int64)


class _Mesh:
    """The two fields of a TriMesh that the culling choice reads."""

    def __init__(self, vertices, faces):
        self.vertices, self.faces = vertices, faces


def test_a_closed_mesh_and_one_with_small_holes_are_culled():
    sphere = _arrays(pv.Sphere(theta_resolution=24, phi_resolution=24))
    assert hole_area_fraction(*sphere) == 0.0
    assert may_cull_back_faces(_Mesh(*sphere))
    from core.io import load_mesh

    bunny = load_mesh("assets/stanford-bunny.obj")
    # Five holes in its base: about 1.8 % of its area.
    assert 0.01 < hole_area_fraction(bunny.vertices, bunny.faces) < 0.03
    assert may_cull_back_faces(bunny)


@pytest.mark.parametrize("name, poly, fraction", [
    ("sheet", pv.Plane(i_resolution=12, j_resolution=12), 1.0),
    ("tube with open ends, 4 radii long", pv.Cylinder(radius=1.0, height=4.0, resolution=48,
                                                      capping=False), 0.25),
    ("bowl", pv.Sphere(theta_resolution=32, phi_resolution=32).clip("z"), 0.5),
])
def test_open_surfaces_keep_their_back_faces(name, poly, fraction):
    vertices, faces = _arrays(poly)
    assert hole_area_fraction(vertices, faces) == pytest.approx(fraction, rel=0.05), name
    assert not may_cull_back_faces(_Mesh(vertices, faces)), name


def test_a_cavity_or_a_mesh_turned_inside_out_keeps_its_back_faces():
    vertices, faces = _arrays(pv.Sphere(theta_resolution=24, phi_resolution=24))
    assert not has_inward_part(vertices, faces)
    # A hollow ball: the inner wall faces the cavity, so from outside it is seen from behind.
    hollow = (np.vstack([vertices, 0.8 * vertices]),
              np.vstack([faces, faces[:, ::-1] + vertices.shape[0]]))
    assert has_inward_part(*hollow)
    assert not may_cull_back_faces(_Mesh(*hollow))
    assert not may_cull_back_faces(_Mesh(vertices, faces[:, ::-1].copy()))


def _renderer(scene: str):
    from viewer.controller import Controller
    from viewer.model import ViewerModel
    from viewer.render import SceneRenderer

    model = ViewerModel()
    controller = Controller(model, is_threaded=False)
    plotter = pv.Plotter(off_screen=True, window_size=[320, 200])
    renderer = SceneRenderer(plotter)
    model.scene_changed.connect(lambda: renderer.set_bodies(model.bodies, model.scene_title))
    assert controller.scenes.load_scene(scene)
    model.set_playing(False)
    return model, controller, plotter, renderer


@pytest.mark.parametrize("scene, culled", [
    ("bunny-bunny", {"bunny A": True, "bunny B": True}),
    ("cloth-sphere", {"cloth": False, "ball": True}),
    ("rippling-shell", {"hollow ball": False}),
])
def test_scene_meshes_cull_back_faces_only_where_nothing_is_lost(qapp, scene, culled):
    model, controller, plotter, renderer = _renderer(scene)
    try:
        drawn = {body.name: bool(actor.prop.GetBackfaceCulling())
                 for body, actor in zip(model.bodies, renderer.mesh_actors)}
        assert drawn == culled
    finally:
        plotter.close()
        controller.shutdown()


def test_one_headlight_and_a_flat_background(qapp):
    model, controller, plotter, renderer = _renderer("two-spheres")
    try:
        lights = list(plotter.renderer.GetLights())
        assert len(lights) == 1 and lights[0].GetLightType() == 1  # VTK_LIGHT_TYPE_HEADLIGHT
        assert not plotter.renderer.GetGradientBackground()
        # The canvas corners (no mesh there) are the one background colour.
        plotter.render()
        image = plotter.screenshot(return_img=True)
        corners = image[[2, 2, -3, -3], [2, -3, 2, -3], :3]
        assert (corners == corners[0]).all()
        assert tuple(corners[0]) == (0xf4, 0xf6, 0xf9)
    finally:
        plotter.close()
        controller.shutdown()


class _JoinedRows:
    """Rows ``[bmin, bmax]`` joined when read, like the core's rows of the trees' own boxes;
    counts the joins."""

    def __init__(self, boxes):
        self.boxes, self.n_joins = boxes, 0

    def __len__(self):
        return len(self.boxes)

    def __getitem__(self, i):
        self.n_joins += 1
        return np.concatenate(self.boxes[i], axis=1)

    def __iter__(self):
        return (self[i] for i in range(len(self)))


class _Tree:
    def __init__(self, bmin, bmax):
        self.bmin, self.bmax = bmin, bmax


class _Volumes:
    """A core FrameVolumes for the tree-box kind, as much of it as the render layer reads."""

    name, label, noun, noun_plural, pair_noun, max_drawn = ("aabb", "AABB", "box", "boxes",
                                                            "box pairs", None)

    def __init__(self, rows):
        self.rows = rows

    @staticmethod
    def separating_test(_sep):
        return ""

    @staticmethod
    def wire(rows):
        from core.bv import get_kind

        return get_kind("aabb").wire(rows)


def test_tree_boxes_are_read_for_the_drawn_nodes_only():
    rng = np.random.default_rng(7)
    trees = []
    for _ in range(2):
        bmin = rng.random((50, 3))
        trees.append(_Tree(bmin, bmin + rng.random((50, 3))))
    rows = _JoinedRows([(t.bmin, t.bmax) for t in trees])
    volumes = as_volume_set(_Volumes(rows), trees)
    ids = np.array([3, 17, 40])
    drawn = volumes_groups_polydata(volumes, [(0, ids, None), (1, ids[:2], None)])
    assert rows.n_joins == 0  # a frame's whole trees are never joined to draw a few boxes
    joined = VolumeSet("aabb", "AABB", [rows[0], rows[1]], _Volumes.wire)
    expected = volumes_groups_polydata(joined, [(0, ids, None), (1, ids[:2], None)])
    np.testing.assert_array_equal(drawn.points, expected.points)
    np.testing.assert_array_equal(drawn.lines, expected.lines)
    assert drawn.n_cells == 12 * 5


def _wait_for_paints(qtbot, window):
    """Let Qt deliver the repaints a render scheduled."""
    from PyQt6.QtWidgets import QApplication

    for _ in range(5):
        qtbot.wait(50)
        QApplication.processEvents()


def test_a_redraw_renders_once_and_the_canvas_shows_it(qtbot, make_window):
    # pyvistaqt's canvas re-rendered the scene in the repaint after every explicit render: two
    # renders per drawn frame while playing (13.3 renders a second for 6.6 frames on
    # bunny-bunny). The native canvas must keep one.
    window = make_window()
    _wait_for_paints(qtbot, window)
    canvas = window.plotter
    for _ in range(3):
        before = canvas.n_renders
        window.redraw()
        _wait_for_paints(qtbot, window)
        assert canvas.n_renders - before == 1
    # A repaint that no explicit render asked for (an expose, a camera drag) still renders.
    before = canvas.n_renders
    canvas.update()
    _wait_for_paints(qtbot, window)
    assert canvas.n_renders - before == 1
