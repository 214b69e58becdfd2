"""Wrong types, shapes and ranges at the public API: a TypeError or ValueError naming the
argument, before anything reaches a kernel."""

from __future__ import annotations

import numpy as np
import pytest

from core import contacts, load_mesh
from core.bvh import SplitRule, build_tree
from core.collide import DescendRule
from core.deform import DEFORMERS
from core.distance import min_distance, within_distance
from core.mesh import MAX_ABS_COORDINATE
from core.pipeline import BodyInput, FramePipeline, PipelineSettings
from core.pose import Pose
from core.request import CollisionRequest
from tests.core.meshgen import sphere_mesh

SPHERE = sphere_mesh(6)
NEAR = Pose.from_axis_angle((1, 2, 3), 0.4, (0.3, 0.2, 0.1))


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"mesh_a": SPHERE.vertices}, TypeError, "^mesh_a must be a TriMesh, got an array"),
        ({"mesh_b": "teapot.obj"}, TypeError, "^mesh_b must be a TriMesh, got str"),
        ({"pose_a": np.eye(4)}, TypeError, "^pose_a must be a Pose or None"),
        ({"pose_b": (np.eye(3), np.zeros(3))}, TypeError, "^pose_b must be a Pose or None"),
        ({"leaf_size": 0}, ValueError, "^leaf_size must be at least 1, got 0"),
        ({"leaf_size": 2.0}, TypeError, "^leaf_size must be an integer, got float"),
        ({"leaf_size": True}, TypeError, "^leaf_size must be an integer, got bool"),
        ({"split": "nope"}, ValueError, "^split must be one of midpoint"),
        ({"split": 3}, TypeError, "^split must be a SplitRule or its name"),
        ({"descend": "widest"}, ValueError, "^descend must be one of"),
        ({"trace": "yes"}, TypeError, "^trace must be a bool"),
    ],
)
def test_contacts_arguments(kwargs, error, message):
    args = {"mesh_a": SPHERE, "mesh_b": SPHERE, "pose_b": NEAR, **kwargs}
    with pytest.raises(error, match=message):
        contacts(**args)


@pytest.mark.parametrize("name, call", [("distance", "core.distance.min_distance"),
                                        ("containment", "core.containment.pair_containment"),
                                        ("self_collision", "core.collide.selfcollide")])
def test_contacts_refuses_an_option_it_would_not_run(name, call):
    # contacts(..., distance=True) answered with contacts only and said nothing (issue 29).
    with pytest.raises(ValueError, match=rf"^{name}=True: contacts\(\) answers the contact "
                                         rf"query .*a frame option .*{call}"):
        contacts(SPHERE, SPHERE, None, NEAR, **{name: True})
    from core.request import CollisionRequest

    # The request cannot hold a frame option at all: FrameOptions does.
    with pytest.raises(TypeError, match=rf"unexpected keyword argument '{name}'"):
        contacts(SPHERE, SPHERE, None, NEAR, request=CollisionRequest(**{name: True}))
    assert contacts(SPHERE, SPHERE, None, NEAR, **{name: False}).n_contacts > 0


def test_contacts_takes_rule_names():
    by_enum = contacts(SPHERE, SPHERE, None, NEAR, split=SplitRule.SAH,
                       descend=DescendRule.LARGER_VOLUME, leaf_size=np.int64(2))  # fmt: skip
    by_name = contacts(SPHERE, SPHERE, None, NEAR, split="sah", descend="larger_volume",
                       leaf_size=2)  # fmt: skip
    assert by_enum.n_contacts > 0
    np.testing.assert_array_equal(by_enum.pairs, by_name.pairs)


def test_load_mesh_name_must_be_a_string(assets_dir):
    with pytest.raises(TypeError, match="^name must be a str, got int"):
        load_mesh(assets_dir / "spot.obj", name=3)


# ---------------------------------------------------------------------------------------------
# Coordinates: a clear error past MAX_ABS_COORDINATE, the right answer up to it.


def _huge(value=1e308):
    v = SPHERE.vertices.copy()
    v[5] = [value, 0.0, 0.0]
    return SPHERE.with_vertices(v)


@pytest.mark.parametrize(
    "args, name",
    [
        ((_huge(), SPHERE, None, None), "mesh_a"),
        ((SPHERE, _huge(-1e308), None, None), "mesh_b"),
        ((SPHERE, SPHERE, None, Pose(translation=(0.0, 1e300, 0.0))), "mesh_b"),
        ((SPHERE, SPHERE, Pose(scale=1e200), None), "mesh_a"),
    ],
)
def test_coordinates_past_the_bound_name_the_mesh(args, name):
    # Before: a SystemError from the kernels for contacts, and an infinite distance with
    # pair [-1, -1] for the distance query.
    with pytest.raises(ValueError, match=f"^{name}: coordinates reach .* past the supported"):
        contacts(*args)
    mesh_a, mesh_b, pose_a, pose_b = args
    tree_a, tree_b = build_tree(mesh_a), build_tree(mesh_b)
    with pytest.raises(ValueError, match=f"^{name}: coordinates reach"):
        min_distance(mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b)
    with pytest.raises(ValueError, match=f"^{name}: coordinates reach"):
        within_distance(mesh_a, tree_a, mesh_b, tree_b, pose_a, pose_b, d=1.0)


def test_answers_near_the_bound_equal_the_unit_answers():
    # The sphere scaled to just below the bound (radius times sqrt(3) plus the translation),
    # posed the same way relative to its size: the same pairs and the same relative distance.
    k = MAX_ABS_COORDINATE / 8.0  # the distance case reaches sqrt(3) k + 3 k
    big = SPHERE.with_vertices(SPHERE.vertices * k)
    pose = Pose(NEAR.rotation, NEAR.translation * k)
    np.testing.assert_array_equal(contacts(big, big, None, pose).pairs,
                                  contacts(SPHERE, SPHERE, None, NEAR).pairs)  # fmt: skip
    far, far_big = Pose(translation=(3.0, 0, 0)), Pose(translation=(3.0 * k, 0, 0))
    t, t_big = build_tree(SPHERE), build_tree(big)
    unit = min_distance(SPHERE, t, SPHERE, t, None, far).distance
    scaled = min_distance(big, t_big, big, t_big, None, far_big).distance
    assert np.isfinite(scaled) and scaled / k == pytest.approx(unit, rel=1e-12)


def test_distance_arguments():
    tree = build_tree(SPHERE)
    with pytest.raises(TypeError, match="^mesh_b must be a TriMesh"):
        min_distance(SPHERE, tree, SPHERE.vertices, tree)
    with pytest.raises(TypeError, match="^tree_a must be a Tree"):
        min_distance(SPHERE, SPHERE, SPHERE, tree)
    with pytest.raises(TypeError, match="^pose_b must be a Pose or None"):
        min_distance(SPHERE, tree, SPHERE, tree, None, np.eye(4))
    other = sphere_mesh(4)
    with pytest.raises(ValueError, match="^tree_b was built on 120 triangles, mesh_b has 48"):
        min_distance(SPHERE, tree, other, tree)
    with pytest.raises(TypeError, match="^d must be a real number, got str"):
        within_distance(SPHERE, tree, SPHERE, tree, d="1")


# ---------------------------------------------------------------------------------------------
# The frame pipeline and the deformers.


@pytest.mark.parametrize(
    "make, kwargs, error, message",
    [
        (CollisionRequest, {"split": "sah"}, TypeError, "^split must be a SplitRule, got str"),
        (CollisionRequest, {"leaf_size": 0}, ValueError, "^leaf_size must be at least 1"),
        (PipelineSettings, {"drift_threshold": -0.1}, ValueError,
         "^drift_threshold must be a finite number >= 0"),
        (PipelineSettings, {"drift_threshold": "0.2"}, TypeError,
         "^drift_threshold must be a real number"),
        (CollisionRequest, {"trace": 1}, TypeError, "^trace must be a bool, got int"),
        (CollisionRequest, {"bv": "box"}, ValueError, "^bv must be one of aabb"),
    ],
)
def test_pipeline_settings(make, kwargs, error, message):
    """The frame's choices are checked where they are given: the query's by the request
    (the settings take it whole), the update's by the settings."""
    with pytest.raises(error, match=message):
        make(**kwargs)


def test_pipeline_bodies_and_time():
    with pytest.raises(TypeError, match="^mesh must be a TriMesh, got an array"):
        BodyInput("a", SPHERE.vertices)
    with pytest.raises(TypeError, match="^pose must be a Pose, got an array"):
        BodyInput("a", SPHERE, np.eye(4))
    with pytest.raises(TypeError, match="^key must be a str, got int"):
        BodyInput(1, SPHERE)
    with pytest.raises(TypeError, match="^deformer must be callable or None, got str"):
        BodyInput("a", SPHERE, Pose(), "twist")
    with pytest.raises(TypeError, match="^settings must be a PipelineSettings or None"):
        FramePipeline({"split": "sah"})
    pipe = FramePipeline()
    with pytest.raises(TypeError, match="^bodies\\[1\\] must be a BodyInput, got TriMesh"):
        pipe.step([BodyInput("a", SPHERE), SPHERE])
    with pytest.raises(ValueError, match="^t must be finite"):
        pipe.step([BodyInput("a", SPHERE)], float("nan"))
    frame = pipe.step([BodyInput("a", SPHERE), BodyInput("b", SPHERE, NEAR)], 0.0)
    assert frame.result.n_contacts > 0


def test_pipeline_uses_the_pose_scale():
    scaled = Pose(NEAR.rotation, NEAR.translation, 0.8)
    frame = FramePipeline().step([BodyInput("a", SPHERE), BodyInput("b", SPHERE, scaled)], 0.0)
    by_hand = contacts(SPHERE, SPHERE.with_vertices(SPHERE.vertices * 0.8), None, NEAR)
    assert by_hand.n_contacts > 0
    np.testing.assert_array_equal(frame.result.pairs, by_hand.pairs)


@pytest.mark.parametrize("value", ["fast", 1 + 2j, None])
def test_deformer_numbers_name_the_parameter(value):
    twist = DEFORMERS["twist"]
    with pytest.raises(TypeError, match="^amplitude must be a real number"):
        twist(amplitude=value)


def test_a_tree_of_another_mesh_is_refused_before_the_kernels():
    # The kernels index the mesh's faces with the tree's triangle ids: a bigger tree would
    # read past the end of the faces array.
    from core.collide import collide
    from core.collide.bvquery import collide_bv

    big, small = sphere_mesh(8), SPHERE
    big_tree, small_tree = build_tree(big), build_tree(small)
    with pytest.raises(ValueError, match="^tree_b was built on 224 triangles, mesh_b has 120"):
        collide(small, small_tree, small, big_tree)
    with pytest.raises(ValueError, match="^tree_a was built on 224 triangles, mesh_a has 120"):
        collide_bv(small, big_tree, small, small_tree, bv="obb")
    with pytest.raises(TypeError, match="^tree_a must be a Tree, got TriMesh"):
        collide(small, small, small, small_tree)
    with pytest.raises(ValueError, match="^volumes_b must have shape"):
        collide_bv(small, small_tree, small, small_tree, bv="obb", volumes_b=np.zeros((3, 2)))


def test_self_collide_refuses_a_tree_of_another_mesh():
    from core.collide import self_collide

    with pytest.raises(ValueError, match="^tree was built on 224 triangles, mesh has 120"):
        self_collide(SPHERE, build_tree(sphere_mesh(8)))
