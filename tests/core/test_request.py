"""One request and one result: CollisionRequest taken by contacts(), the frame pipeline and
the CLI; tree and partition queries answer with the same result type; a frame carries every
extra the viewer draws, each with its own timing."""

import numpy as np
import pytest

import core.partition
from core import contacts
from core.bv import ObbFit, fit_volumes
from core.bvh import SplitRule, build_tree
from core.collide.brute import brute_force_pairs
from core.collide.dispatch import run_query
from core.collide.query import CollisionResult
from core.distance import min_distance
from core.partition import partition_contacts
from core.pipeline import DEFAULT_REQUEST, BodyInput, FramePipeline, PipelineSettings, UpdateMode
from core.pose import Pose
from core.request import FRAME_OPTION_FIELDS, REQUEST_FIELDS, CollisionRequest, FrameOptions
from tests.core.meshgen import sphere_mesh

A = sphere_mesh(12)
B = sphere_mesh(10, radius=0.6)
TOUCH = Pose(np.eye(3), (1.2, 0.0, 0.0))
APART = Pose(np.eye(3), (3.0, 0.0, 0.0))


@pytest.mark.parametrize(
    "fields, error, message",
    [
        ({"bv": "cube"}, ValueError, "^bv must be one of aabb"),
        ({"split": "sah"}, TypeError, "^split must be a SplitRule, got str"),
        ({"leaf_size": 0}, ValueError, "^leaf_size must be at least 1"),
        ({"distance": "yes"}, TypeError, "^distance must be a bool, got str"),
        ({"containment": 1}, TypeError, "^containment must be a bool, got int"),
        ({"margin": -1.0}, ValueError, "^margin must be a finite distance >= 0"),
        ({"partition": "quadtree"}, ValueError, "^partition must be None or one of grid"),
        ({"partition_params": {"cell_size": 0.1}}, ValueError,
         "^partition_params need a partition kind"),
        ({"partition": "grid", "partition_params": {"depth": 3}}, ValueError,
         r"^grid has no setting \['depth'\]"),
        ({"partition": "grid", "partition_params": 3}, TypeError,
         "^partition_params must be a dict of settings, got int"),
    ],
)
def test_request_errors_name_the_field_in_one_line(fields, error, message):
    # distance and containment are frame options now: their record checks them the same way.
    record = FrameOptions if set(fields) <= set(FRAME_OPTION_FIELDS) else CollisionRequest
    with pytest.raises(error, match=message) as info:
        record(**fields)
    assert "\n" not in str(info.value)


def test_request_replace_checks_again_and_names_unknown_fields():
    request = CollisionRequest(partition="octree", partition_params={"max_depth": 5})
    assert request.partition_params == (("max_depth", 5),)
    assert request.replace(trace=True).trace and request.replace(trace=True).partition == "octree"
    with pytest.raises(TypeError, match="^CollisionRequest has no field 'spilt'"):
        request.replace(spilt=SplitRule.SAH)
    with pytest.raises(ValueError, match="^leaf_size must be at least 1"):
        request.replace(leaf_size=0)
    hash(request)  # frozen and hashable: usable as a cache key


def test_contacts_takes_a_request_and_keywords_override_it():
    request = CollisionRequest(split=SplitRule.SAH, leaf_size=2, trace=True)
    by_request = contacts(A, B, None, TOUCH, request)
    by_keywords = contacts(A, B, None, TOUCH, split="sah", leaf_size=2, trace=True)
    assert by_request.n_contacts > 0 and by_request.trace is not None
    np.testing.assert_array_equal(by_request.pairs, by_keywords.pairs)
    assert by_request.counters == by_keywords.counters
    # An override changes only what it names.
    fast = contacts(A, B, None, TOUCH, request, trace=False)
    assert fast.trace is None and fast.counters == by_request.counters
    with pytest.raises(TypeError, match="^request must be a CollisionRequest or None"):
        contacts(A, B, None, TOUCH, {"split": "sah"})
    with pytest.raises(TypeError, match="^CollisionRequest has no field 'colour'"):
        contacts(A, B, None, TOUCH, colour="red")


@pytest.mark.parametrize("bv", ["aabb", "obb", "kdop14"])
def test_contacts_with_any_kind_or_partition_equals_the_oracle(bv):
    va, vb = A.vertices, TOUCH.apply(B.vertices)
    expected = brute_force_pairs(va, A.faces, vb, B.faces)
    tree = contacts(A, B, None, TOUCH, bv=bv, obb_fit="vertices")
    part = contacts(A, B, None, TOUCH, partition="octree", partition_params={"max_depth": 4})
    np.testing.assert_array_equal(tree.pairs, expected)
    np.testing.assert_array_equal(part.pairs, expected)
    assert tree.partition_kind is None and tree.cells.shape == (0, 2, 3)
    assert part.partition_kind == "octree" and part.cells.shape[0] > 0


def test_tree_and_partition_queries_share_one_result_type():
    # One name for one type: the PartitionResult alias of CollisionResult is gone (issue 29).
    assert not hasattr(core.partition, "PartitionResult")
    part = partition_contacts(A, B, None, TOUCH, kind="grid")
    assert isinstance(part, CollisionResult)
    assert part.counters.n_tri_tests == part.n_tri_tests == part.n_candidates
    assert part.counters.n_contacts == part.n_contacts > 0
    assert set(part.timings) == {"build", "candidates", "tritri"}
    tree = run_query(CollisionRequest(), A, B, None, TOUCH)
    assert set(tree.timings) == {"traverse", "tritri"}
    assert tree.n_tri_tests == tree.counters.n_tri_tests


def test_partition_query_refuses_a_margin():
    with pytest.raises(ValueError, match="^margin works with the tree traversal"):
        run_query(CollisionRequest(partition="grid", margin=0.1), A, B, None, TOUCH)


def test_frame_options_are_bools_off_by_default():
    assert FrameOptions() == FrameOptions(False, False, False)
    assert FrameOptions(distance=np.bool_(True)).distance
    for name in FRAME_OPTION_FIELDS:
        with pytest.raises(TypeError, match=f"^{name} must be a bool, got int$"):
            FrameOptions(**{name: 1})
    assert FrameOptions().replace(containment=True) == FrameOptions(containment=True)
    with pytest.raises(TypeError, match="^containment must be a bool, got str$"):
        FrameOptions().replace(containment="yes")
    with pytest.raises(TypeError, match="^FrameOptions has no field 'margin'"):
        FrameOptions().replace(margin=0.1)


@pytest.mark.parametrize("name", FRAME_OPTION_FIELDS)
def test_a_frame_option_is_not_a_request_field(name):
    """The three analyses only the frame pipeline runs live on FrameOptions, which the
    settings hold beside the request; the request refuses them, naming where they went."""
    assert name not in REQUEST_FIELDS and not hasattr(DEFAULT_REQUEST, name)
    with pytest.raises(TypeError, match=f"^CollisionRequest has no field '{name}': it is a "
                                        f"frame option"):
        DEFAULT_REQUEST.replace(**{name: True})
    held = PipelineSettings(frame=FrameOptions(**{name: True}))
    assert getattr(held.frame, name) is True and held.request == DEFAULT_REQUEST
    assert PipelineSettings().frame == FrameOptions()
    with pytest.raises(TypeError, match="^frame must be a FrameOptions or None"):
        PipelineSettings(frame={name: True})


def test_pipeline_settings_hold_a_request():
    request = CollisionRequest(bv="obb", obb_fit=ObbFit.VERTICES, trace=True)
    held = PipelineSettings(request, update=UpdateMode.AUTO)
    assert held.request is request and held.request.bv == "obb"
    assert held.update is UpdateMode.AUTO
    from_default = PipelineSettings(
        DEFAULT_REQUEST.replace(bv="obb", obb_fit=ObbFit.VERTICES), update=UpdateMode.AUTO)
    assert from_default == held
    # A changed request changes only those fields.
    assert PipelineSettings(request.replace(margin=0.1)).request == request.replace(margin=0.1)
    assert PipelineSettings().request.trace  # the viewer's default: the trace is drawn
    with pytest.raises(TypeError, match="^request must be a CollisionRequest or None"):
        PipelineSettings(request="obb")


@pytest.mark.parametrize("name", REQUEST_FIELDS)
def test_pipeline_settings_neither_take_nor_show_a_request_field(name):
    """The query's choices live on the request only: a request field given to the settings
    is refused, and the settings have no attribute of that name to read it back from."""
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{name}'"):
        PipelineSettings(**{name: getattr(DEFAULT_REQUEST, name)})
    assert not hasattr(PipelineSettings(), name)


def _frame(pose_b, frame=None, **request):
    pipe = FramePipeline(PipelineSettings(DEFAULT_REQUEST.replace(**request), frame=frame))
    return pipe.step([BodyInput("a", A), BodyInput("b", B, pose_b)], 0.0)


def test_frame_carries_the_volumes_the_traversal_fitted():
    frame = _frame(TOUCH, bv="obb", obb_fit=ObbFit.HULL_SURFACE)
    volumes = frame.volumes
    assert volumes.name == "obb" and volumes.kind().name == "obb"
    for tree, mesh, rows in zip(frame.trees, frame.meshes, volumes.rows):
        # The fit the traversal used (the core's cache), not a fit of its own.
        assert rows is fit_volumes(tree, mesh, "obb", ObbFit.HULL_SURFACE)
    assert {"points", "line_sizes", "line_ids"} <= set(volumes.wire(volumes.rows[0][:3]))
    boxes = _frame(TOUCH).volumes
    assert boxes.name == "aabb"
    np.testing.assert_array_equal(boxes.rows[1][:, :3], frame.trees[1].bmin)
    kdop = _frame(TOUCH, bv="kdop14").volumes
    assert kdop.kind().parameters["directions"].shape == (7, 3) and kdop.rows[0].shape[1] == 14


def test_frame_runs_each_requested_extra_with_its_own_timing():
    touching = _frame(TOUCH, FrameOptions(distance=True, containment=True, self_collision=True),
                      bv="sphere", partition="kdtree")
    assert touching.result.n_contacts > 0
    np.testing.assert_array_equal(touching.partition.pairs, touching.result.pairs)
    assert touching.partition.partition_kind == "kdtree"
    # Touching: no distance, no containment; they are not timed either.
    assert touching.distance is None and touching.containment is None
    assert set(touching.timings) == {"deform", "update", "fit", "traverse", "tritri",
                                     "partition", "self", "total"}
    assert len(touching.self_results) == 2
    apart = _frame(APART, FrameOptions(distance=True, containment=True))
    assert apart.result.n_contacts == 0 and apart.partition is None
    expected = min_distance(A, build_tree(A), B, build_tree(B), None, APART, bv="rss")
    assert apart.distance.distance == pytest.approx(expected.distance)
    assert apart.distance.distance == pytest.approx(3.0 - 1.0 - 0.6, abs=0.05)
    assert apart.containment.text == "apart"
    assert set(apart.timings) == {"deform", "update", "traverse", "tritri", "distance",
                                  "containment", "total"}
    parts = sum(v for k, v in apart.timings.items() if k != "total")
    assert parts <= apart.timings["total"]
    assert apart.request == PipelineSettings(DEFAULT_REQUEST).request
    assert apart.frame_options == FrameOptions(distance=True, containment=True)
