"""The per-frame sequence the viewer runs: deform, refit/rebuild/auto, collide."""

import dataclasses

import numpy as np
import pytest

from core.bvh import SplitRule
from core.collide.brute import brute_force_pairs
from core.errors import NonFiniteVertexError
from core.mesh import TriMesh
from core.pipeline import DEFAULT_REQUEST, BodyInput, FramePipeline, PipelineSettings, UpdateMode
from core.pose import Pose
from core.request import CollisionRequest, FrameOptions
from tests.core.meshgen import sphere_mesh


def squash(rest, t):
    """A pure deformer: flattens z by up to 40 % over t in [0, 1]."""
    out = rest.copy()
    out[:, 2] *= 1.0 - 0.4 * t
    return out


@pytest.fixture
def bodies():
    a = BodyInput("a", sphere_mesh(16), Pose(), squash)
    b = BodyInput("b", sphere_mesh(12, radius=0.6), Pose(np.eye(3), (1.2, 0.0, 0.0)))
    return [a, b]


def expected_pairs(frame):
    va = frame.poses[0].apply(frame.meshes[0].vertices)
    vb = frame.poses[1].apply(frame.meshes[1].vertices)
    return brute_force_pairs(va, frame.meshes[0].faces, vb, frame.meshes[1].faces)


def test_refit_mode_builds_once_then_refits(bodies):
    pipe = FramePipeline(PipelineSettings(update=UpdateMode.REFIT))
    frames = [pipe.step(bodies, t) for t in (0.0, 0.5, 1.0)]
    assert [f.rebuilt for f in frames] == [[True, True], [False, False], [False, False]]
    assert [f.index for f in frames] == [0, 1, 2]
    assert frames[0].trees[0].first is frames[2].trees[0].first  # same topology arrays
    # Squashing changes the boxes (the SAH drift may go either way); B did not move.
    assert abs(frames[2].drift[0]) > 1e-6 and frames[2].drift[1] == pytest.approx(0.0, abs=1e-12)
    for f in frames:
        assert np.array_equal(f.result.pairs, expected_pairs(f))
        assert f.result.trace is not None
        assert set(f.timings) == {"deform", "update", "traverse", "tritri", "total"}
    # The deformer ran: z is flattened at t = 1, the rest mesh untouched.
    assert frames[2].meshes[0].vertices[:, 2].max() == pytest.approx(0.6)
    assert bodies[0].mesh.vertices[:, 2].max() == pytest.approx(1.0)


def test_rebuild_mode_rebuilds_every_frame(bodies):
    pipe = FramePipeline(PipelineSettings(update=UpdateMode.REBUILD))
    frames = [pipe.step(bodies, t) for t in (0.0, 1.0)]
    assert frames[1].rebuilt == [True, True]
    assert np.array_equal(frames[1].result.pairs, expected_pairs(frames[1]))


def jitter(rest, t):
    """Moves every vertex by up to ``0.3 t`` in a fixed random direction: loosens the boxes."""
    rng = np.random.default_rng(7)
    return rest + t * rng.uniform(-0.3, 0.3, rest.shape)


def test_auto_mode_rebuilds_when_drift_passes_threshold(bodies):
    bodies = [dataclasses.replace(bodies[0], deformer=jitter), bodies[1]]
    pipe = FramePipeline(PipelineSettings(update=UpdateMode.AUTO, drift_threshold=0.01))
    pipe.step(bodies, 0.0)
    small = pipe.step(bodies, 0.001)
    assert small.rebuilt[0] is False and abs(small.drift[0]) <= 0.01
    big = pipe.step(bodies, 1.0)
    assert big.rebuilt[0] is True and big.drift[0] == 0.0
    # The next frame refits the new tree, built on the squashed mesh.
    after = pipe.step(bodies, 1.0)
    assert after.rebuilt[0] is False and after.drift[0] == pytest.approx(0.0, abs=1e-12)


def test_moving_a_body_is_a_pose_change_not_a_rebuild(bodies):
    pipe = FramePipeline()
    first = pipe.step(bodies, 0.0)
    moved = [bodies[0], dataclasses.replace(bodies[1], pose=Pose(np.eye(3), (3.0, 0, 0)))]
    second = pipe.step(moved, 0.0)
    assert second.rebuilt == [False, False]
    assert first.result.n_contacts > 0 and second.result.n_contacts == 0


def test_new_topology_or_settings_rebuild(bodies):
    pipe = FramePipeline()
    pipe.step(bodies, 0.0)
    other = sphere_mesh(10)
    swapped = [dataclasses.replace(bodies[0], mesh=other), bodies[1]]
    assert pipe.step(swapped, 0.0).rebuilt == [True, False]
    pipe.settings = dataclasses.replace(pipe.settings,
                                        request=pipe.settings.request.replace(split=SplitRule.SAH))
    frame = pipe.step(swapped, 0.0)
    assert frame.rebuilt == [True, True] and frame.trees[0].split is SplitRule.SAH


def test_single_body_has_no_result():
    pipe = FramePipeline()
    frame = pipe.step([BodyInput("only", sphere_mesh(8))], 0.0)
    assert frame.result is None and len(frame.trees) == 1


def test_deformer_producing_nan_raises_and_keeps_the_cache(bodies):
    pipe = FramePipeline()
    pipe.step(bodies, 0.0)

    def broken(rest, t):
        out = rest.copy()
        out[5] = np.nan
        return out

    with pytest.raises(NonFiniteVertexError) as info:
        pipe.step([dataclasses.replace(bodies[0], deformer=broken), bodies[1]], 0.0)
    assert info.value.first_index == 5 and info.value.count == 1
    assert pipe.step(bodies, 0.0).rebuilt == [False, False]


def test_trace_off_gives_same_contacts(bodies):
    traced = FramePipeline(PipelineSettings(CollisionRequest(trace=True))).step(bodies, 0.3)
    fast = FramePipeline(PipelineSettings(CollisionRequest(trace=False))).step(bodies, 0.3)
    assert fast.result.trace is None
    assert np.array_equal(fast.result.pairs, traced.result.pairs)


def test_mesh_is_read_only_after_deformation(bodies):
    frame = FramePipeline().step(bodies, 0.5)
    assert isinstance(frame.meshes[0], TriMesh)
    with pytest.raises(ValueError):
        frame.meshes[0].vertices[0, 0] = 1.0


def _two_sphere_union(offset: float) -> TriMesh:
    """One mesh made of two spheres of radius 1, ``offset`` apart on x (they cross if < 2)."""
    s = sphere_mesh(12)
    vertices = np.concatenate([s.vertices, s.vertices + (offset, 0.0, 0.0)])
    faces = np.concatenate([s.faces, s.faces + s.n_vertices])
    return TriMesh.from_arrays(vertices, faces, name="union")


def test_self_collision_finds_the_crossing_of_two_halves_of_one_mesh():
    mesh = _two_sphere_union(1.2)
    pipe = FramePipeline(PipelineSettings(frame=FrameOptions(self_collision=True)))
    frame = pipe.step([BodyInput("one", mesh)], 0.0)
    assert frame.result is None and len(frame.self_results) == 1
    got = frame.self_results[0]
    n = mesh.n_faces // 2
    half = mesh.vertices[: mesh.n_vertices // 2]
    expected = brute_force_pairs(half, mesh.faces[:n], half + (1.2, 0.0, 0.0), mesh.faces[:n])
    expected[:, 1] += n
    # Neighbouring triangles of one sphere never count; the two spheres' crossings all do.
    assert np.array_equal(got.pairs, expected)
    assert got.trace is not None and got.trace.n_levels > 3
    assert "self" in frame.timings
    apart = pipe.step([BodyInput("one", _two_sphere_union(3.0))], 0.0)
    assert apart.self_results[0].n_contacts == 0


def test_self_collision_off_by_default(bodies):
    frame = FramePipeline().step(bodies, 0.0)
    assert frame.self_results is None and frame.containment is None


@pytest.mark.parametrize(
    ("radius_b", "shift", "text"),
    [(3.0, 0.0, "A is inside B"), (0.3, 0.0, "B is inside A"), (1.0, 5.0, "apart")],
)
def test_containment_when_the_meshes_do_not_touch(radius_b, shift, text):
    a = BodyInput("a", sphere_mesh(12))
    b = BodyInput("b", sphere_mesh(12, radius=radius_b), Pose(np.eye(3), (shift, 0.0, 0.0)))
    frame = FramePipeline(PipelineSettings(
        frame=FrameOptions(containment=True))).step([a, b], 0.0)
    assert frame.result.n_contacts == 0
    assert frame.containment.text == text


def test_containment_is_none_in_contact_and_undefined_for_open_meshes(bodies):
    pipe = FramePipeline(PipelineSettings(frame=FrameOptions(containment=True)))
    touching = pipe.step([bodies[0], BodyInput("b", sphere_mesh(12), Pose(np.eye(3), (1.0, 0, 0)))])
    assert touching.result.n_contacts > 0 and touching.containment is None
    big = sphere_mesh(12, radius=3.0)
    keep = big.vertices[big.faces].mean(axis=1)[:, 2] < 2.5  # cut the cap off: open
    open_big = TriMesh.from_arrays(big.vertices, big.faces[keep], name="open")
    frame = pipe.step([BodyInput("a", sphere_mesh(8, radius=0.5)), BodyInput("o", open_big)])
    assert frame.containment.text.startswith("undefined: B is open (")
    assert "boundary edges" in frame.containment.text


@pytest.mark.parametrize("bv", ["obb", "sphere", "kdop14", "rss"])
def test_bv_setting_traverses_that_kind_with_the_same_contacts(bodies, bv):
    aabb = FramePipeline(PipelineSettings()).step(bodies, 0.3)
    other = FramePipeline(PipelineSettings(DEFAULT_REQUEST.replace(bv=bv))).step(bodies, 0.3)
    assert np.array_equal(other.result.pairs, aabb.result.pairs)
    assert np.array_equal(other.result.pairs, expected_pairs(other))
    # Another kind prunes differently: its box-test count is its own, and the trace has
    # one entry per test as for AABBs.
    assert other.result.trace is not None
    assert int(other.result.trace.tested_per_level.sum()) == other.result.counters.n_bv_tests
    assert other.timings["fit"] >= 0.0 and "fit" not in aabb.timings


def test_undeformed_body_keeps_its_tree_without_refit(bodies, monkeypatch):
    import core.pipeline as pipeline

    calls = []
    real_refit = pipeline.refit_tree

    def counting_refit(tree, mesh, leaves=None):
        calls.append(mesh.n_faces)
        return real_refit(tree, mesh, leaves)

    monkeypatch.setattr(pipeline, "refit_tree", counting_refit)
    pipe = FramePipeline(PipelineSettings(update=UpdateMode.REFIT))
    first = pipe.step(bodies, 0.0)
    moved = [bodies[0], dataclasses.replace(bodies[1], pose=Pose(np.eye(3), (1.1, 0.0, 0.0)))]
    second = pipe.step(moved, 0.5)
    # Only A (deformed) was refitted; B's tree object is the one built on frame 0.
    assert calls == [bodies[0].mesh.n_faces]
    assert second.trees[1] is first.trees[1] and second.rebuilt == [False, False]
    assert np.array_equal(second.result.pairs, expected_pairs(second))


def test_a_deformers_rest_box_is_measured_once_per_rest_array_and_frames_stay_exact(
        bodies, monkeypatch):  # fmt: skip
    from core.deform import base as deform_base
    from core.deform import make_deformer

    wave = make_deformer("wave", amplitude=0.1)
    a = dataclasses.replace(bodies[0], deformer=wave)
    bigger = dataclasses.replace(a, mesh=a.mesh.with_vertices(2.0 * a.mesh.vertices))
    expected = {t: wave(a.mesh.vertices, t) for t in (0.0, 0.1, 0.2)}
    expected_bigger = wave(bigger.mesh.vertices, 0.3)
    measured = []
    real_rest_box = deform_base.rest_box
    monkeypatch.setattr(deform_base, "rest_box",
                        lambda rest: measured.append(rest) or real_rest_box(rest))
    pipe = FramePipeline()
    for t, vertices in expected.items():
        frame = pipe.step([a, bodies[1]], t)
        assert np.array_equal(frame.meshes[0].vertices, vertices)
    assert len(measured) == 1 and measured[0] is a.mesh.vertices
    # New rest vertices (a sculpt, a reload): a new box, whose size scales the amplitude.
    frame = pipe.step([bigger, bodies[1]], 0.3)
    assert len(measured) == 2
    assert np.array_equal(frame.meshes[0].vertices, expected_bigger)
    # A plain callable is called as given and its output copied, never frozen in place.
    kept = []

    def plain_squash(rest, t):
        kept.append(squash(rest, t))
        return kept[-1]

    plain = dataclasses.replace(a, deformer=plain_squash)
    frame = pipe.step([plain, bodies[1]], 0.4)
    assert frame.meshes[0].vertices is not kept[0] and kept[0].flags.writeable
    assert np.array_equal(frame.meshes[0].vertices, kept[0])
