"""The traversal stepped one volume-pair test at a time agrees with the frame it explains."""

import numba
import numpy as np
import pytest

from core.bv import BV_KINDS
from core.collide import traversal_driver
from core.collide.tandem import DescendRule, expand_leaf_pairs
from core.lab import pseudocode
from core.lab.steps import (
    CODE_CULLED,
    CODE_LEAF_PAIR,
    PairStep,
    StepOutcome,
    traversal_steps,
)
from core.pipeline import BodyInput, FramePipeline, PipelineSettings
from core.pose import Pose, rotation_matrix
from core.request import CollisionRequest, FrameOptions
from tests.core.meshgen import sphere_mesh


def _bulge(rest, t):
    """A pure deformer: pushes the +x half of the sphere out by 30 %."""
    out = rest.copy()
    out[:, 0] = np.where(out[:, 0] > 0, out[:, 0] * 1.3, out[:, 0])
    return out


def _scene(name):
    a, b = sphere_mesh(10), sphere_mesh(8, radius=0.7)
    if name == "two spheres":
        return [BodyInput("a", a), BodyInput("b", b, Pose(np.eye(3), (1.1, 0.2, 0.1)))]
    if name == "rotated":
        rot = rotation_matrix((1.0, 2.0, 0.5), 0.7)
        return [BodyInput("a", a, Pose(rotation_matrix((0, 0, 1), 0.3), (0.1, 0, 0))),
                BodyInput("b", b, Pose(rot, (1.0, 0.4, -0.2)))]  # fmt: skip
    return [BodyInput("a", a, Pose(), _bulge),
            BodyInput("b", b, Pose(rotation_matrix((0, 1, 0), 0.4), (1.3, 0.0, 0.2)))]


SCENES = ("two spheres", "rotated", "deformed")


def _frame(scene, bv="aabb", descend=DescendRule.LARGER_VOLUME, margin=0.0, leaf_size=4):
    request = CollisionRequest(bv=bv, descend=descend, trace=True, margin=margin,
                               leaf_size=leaf_size)  # fmt: skip
    return FramePipeline(PipelineSettings(request)).step(_scene(scene), 0.5)


def _check_agrees(frame, steps):
    result = frame.result
    assert len(steps) == result.counters.n_bv_tests > 0
    assert steps[len(steps) - 1].counters == result.counters
    leaf_steps = [s for s in steps if s.outcome is StepOutcome.LEAF_PAIR]
    assert len(leaf_steps) == result.counters.n_leaf_pairs
    tri = [s.triangle_pairs for s in leaf_steps]
    assert sum(t.shape[0] for t in tri) == result.counters.n_tri_tests
    hits = np.concatenate([s.contact_pairs for s in leaf_steps] + [np.empty((0, 2), np.int64)])
    assert {tuple(p) for p in hits} == {tuple(p) for p in result.pairs.astype(np.int64)}
    assert hits.shape[0] == result.n_contacts
    return leaf_steps


@pytest.mark.parametrize("scene", SCENES)
@pytest.mark.parametrize("descend", list(DescendRule))
@pytest.mark.parametrize("bv", list(BV_KINDS))
def test_stepping_to_the_end_gives_the_frame_counters(bv, descend, scene):
    frame = _frame(scene, bv, descend)
    steps = traversal_steps(frame)
    _check_agrees(frame, steps)


@pytest.mark.parametrize("scene", SCENES)
@pytest.mark.parametrize("descend", list(DescendRule))
def test_replaying_the_children_rebuilds_every_level_in_order(scene, descend):
    """A breadth-first queue fed with each step's children tests the trace's pairs in the
    trace's order (one thread), so the split decisions are the engine's."""
    frame = _frame(scene, "obb", descend)
    steps = traversal_steps(frame)
    queue = [(0, 0, 0)]
    for i in range(len(steps)):
        s = steps[i]
        assert queue.pop(0) == (s.level, s.node_a, s.node_b)
        queue += [(s.level + 1, a, b) for a, b in s.children]
        assert s.queue_length == len(queue)
        assert steps.waiting(i, limit=10**9) == queue
    assert queue == []


def test_triangle_pairs_are_what_the_engine_sends_to_the_exact_test():
    frame = _frame("rotated", "kdop14")
    steps = traversal_steps(frame)
    leaf_steps = _check_agrees(frame, steps)
    tree_a, tree_b = frame.trees
    leaf_a = np.array([s.node_a for s in leaf_steps], dtype=np.int32)
    leaf_b = np.array([s.node_b for s in leaf_steps], dtype=np.int32)
    expected = expand_leaf_pairs(leaf_a, leaf_b, tree_a.first, tree_a.count, tree_a.prim_ids,
                                 tree_b.first, tree_b.count, tree_b.prim_ids)  # fmt: skip
    assert np.array_equal(np.concatenate([s.triangle_pairs for s in leaf_steps]), expected)
    assert all(s.triangle_pairs.dtype == np.int64 for s in leaf_steps)


def test_a_frame_run_on_two_threads_steps_to_its_counters(monkeypatch):
    if numba.get_num_threads() < 2:
        pytest.skip("numba runs one thread here")
    one = _frame("two spheres", "aabb15", leaf_size=1)
    monkeypatch.setattr(traversal_driver, "SPLIT_FRONTIER", 16)
    two = _frame("two spheres", "aabb15", leaf_size=1)
    # The hand-off really happened: some level is in another order than one thread's.
    assert not np.array_equal(one.result.trace.node_a, two.result.trace.node_a)
    steps = traversal_steps(two)
    _check_agrees(two, steps)
    # Every waiting pair is tested later, at the level it was listed for. (The steps of each
    # pair are looked up once: a scan of the later steps per waiting pair took 13 s.)
    listed = [(s.node_a, s.node_b, s.level) for s in steps]
    positions = {}
    for position, (a, b, _level) in enumerate(listed):
        positions.setdefault((a, b), []).append(position)
    for i in range(0, len(listed), 7):
        for level, a, b in steps.waiting(i, limit=5):
            later = [p for p in positions.get((a, b), ()) if p > i]
            assert len(later) == 1 and listed[later[0]][2] == level


def test_margin_frame_steps_to_its_counters():
    frame = _frame("two spheres", "rss", margin=0.05)
    _check_agrees(frame, traversal_steps(frame))


def test_outcomes_and_words():
    frame = _frame("two spheres", "obb")
    steps = traversal_steps(frame)
    root = steps[0]
    assert (root.position, root.level, root.node_a, root.node_b) == (0, 0, 0, 0)
    assert root.outcome is StepOutcome.SPLIT and root.sep_id == -1
    assert "larger-volume rule" in root.split_words and "oriented box" in root.split_words
    culled = [s for s in steps if s.outcome is StepOutcome.CULLED]
    assert culled and all(s.sep_id >= 0 and s.children == () for s in culled)
    assert all(s.test_words == BV_KINDS["obb"].separating_test(s.sep_id) for s in culled)
    leaf = steps[steps.next_where(-1, "leaf")]
    assert leaf.outcome is StepOutcome.LEAF_PAIR and leaf.split_words == ""
    assert StepOutcome.CULLED.value == "separated"


def test_a_leaf_is_never_the_node_split():
    frame = _frame("rotated", "sphere")
    steps = traversal_steps(frame)
    tree_a, tree_b = frame.trees
    for s in steps:
        if s.outcome is StepOutcome.SPLIT and tree_a.count[s.node_a] > 0:
            assert s.split_words.startswith("split B") and "is a leaf" in s.split_words
            assert all(a == s.node_a for a, _ in s.children)


def test_next_where_stops_where_asked():
    frame = _frame("two spheres", "aabb")
    steps = traversal_steps(frame)
    _, _, codes = steps.decided(len(steps))
    i = steps.next_where(-1, "overlap")
    assert i == 0
    i = steps.next_where(0, "contact")
    assert steps[i].contact_pairs.shape[0] > 0
    assert all(steps[k].contact_pairs.shape[0] == 0 for k in range(i)
               if codes[k] == CODE_LEAF_PAIR)  # fmt: skip
    j = steps.next_where(i, "leaf")
    assert codes[j] == CODE_LEAF_PAIR and not (codes[i + 1:j] == CODE_LEAF_PAIR).any()
    end = steps.next_where(0, "level_end")
    assert end == steps.level_start[2] - 1
    assert steps.next_where(len(steps) - 1, "overlap") is None
    with pytest.raises(ValueError, match="cannot run to 'nowhere'"):
        steps.next_where(0, "nowhere")


@pytest.mark.parametrize("scene", SCENES)
def test_contacts_found_follow_the_running_count(scene):
    frame = _frame(scene, "obb")
    steps = traversal_steps(frame)
    pairs = np.asarray(frame.result.pairs)
    assert steps.contacts_found(-1).shape == (0,)
    found_before = set()
    for i in range(len(steps)):
        ids = steps.contacts_found(i)
        assert ids.shape[0] == steps[i].counters.n_contacts
        found = {tuple(p) for p in pairs[ids]}
        assert found_before <= found
        # What this step adds is exactly its own leaf pair's contacts.
        assert found - found_before == {tuple(p) for p in steps[i].contact_pairs}
        found_before = found
    assert np.array_equal(steps.contacts_found(len(steps) - 1), np.arange(pairs.shape[0]))


def test_decided_lists_the_steps_before_a_position():
    frame = _frame("deformed", "kdop6")
    steps = traversal_steps(frame)
    node_a, node_b, codes = steps.decided(5)
    assert node_a.shape == node_b.shape == codes.shape == (5,)
    for k in range(5):
        s = steps[k]
        assert (node_a[k], node_b[k]) == (s.node_a, s.node_b)
        assert (codes[k] == CODE_CULLED) == (s.outcome is StepOutcome.CULLED)


def test_a_frame_without_trace_says_turn_tracing_on():
    request = CollisionRequest(trace=False)
    frame = FramePipeline(PipelineSettings(request)).step(_scene("two spheres"))
    with pytest.raises(ValueError, match="^this frame has no trace: turn tracing on$"):
        traversal_steps(frame)


def test_a_self_collision_frame_is_refused_clearly():
    settings = PipelineSettings(CollisionRequest(trace=True),
                                frame=FrameOptions(self_collision=True))
    frame = FramePipeline(settings).step([BodyInput("a", sphere_mesh(6))])
    with pytest.raises(ValueError, match="self-collision"):
        traversal_steps(frame)


def test_positions_out_of_range_are_refused():
    steps = traversal_steps(_frame("two spheres"))
    with pytest.raises(IndexError, match="out of range"):
        steps[len(steps)]
    assert steps[-1].position == len(steps) - 1


# -- the pseudo-code beside the stepper ------------------------------------------------------
def _all_sep_ids(kind):
    """Every id the kind's test can return (its separating_test names each)."""
    if kind.name.startswith("kdop"):
        return range(kind.width)  # A's k/2 slabs, then B's
    if kind.name in ("aabb15", "obb"):
        return range(15)
    if kind.name == "aabb":
        return range(6)
    if kind.name in ("lss", "rss"):
        return range(2)
    return range(1)


def _culled_step(sep_id):
    from core.collide.trace import Counters

    empty = np.empty((0, 2), dtype=np.int64)
    return PairStep(position=0, level=0, node_a=0, node_b=0, outcome=StepOutcome.CULLED,
                    sep_id=sep_id, test_words="", split_words="", children=(),
                    triangle_pairs=empty, contact_pairs=empty, counters=Counters(),
                    queue_length=0)  # fmt: skip


@pytest.mark.parametrize("bv", list(BV_KINDS))
def test_every_sep_id_of_every_kind_maps_to_a_test_line(bv):
    kind = BV_KINDS[bv]
    listing = pseudocode.overlap_listing(kind)
    last = len(listing.lines)
    lines = {sep: pseudocode.test_line_for(kind, _culled_step(sep)) for sep in _all_sep_ids(kind)}
    for sep, line in lines.items():
        assert 1 <= line < last, (sep, line)
        assert "separated" in listing.lines[line - 1]
    assert "overlap" in listing.lines[last - 1]


def test_box_tests_point_at_the_loop_of_the_axis_that_separated():
    obb = BV_KINDS["obb"]
    text = pseudocode.SAT15.lines
    assert "A's axis" in text[pseudocode.test_line_for(obb, _culled_step(1)) - 1]
    assert "B's axis" in text[pseudocode.test_line_for(obb, _culled_step(4)) - 1]
    assert "A_i × B_j" in text[pseudocode.test_line_for(obb, _culled_step(9)) - 1]
    kdop = BV_KINDS["kdop14"]
    assert "B's slab" in pseudocode.KDOP.lines[
        pseudocode.test_line_for(kdop, _culled_step(8)) - 1]
    assert "B's slab" not in pseudocode.KDOP.lines[
        pseudocode.test_line_for(kdop, _culled_step(6)) - 1]


@pytest.mark.parametrize("descend", list(DescendRule))
def test_every_step_maps_to_a_traversal_line(descend):
    frame = _frame("rotated", "obb", descend)
    steps = traversal_steps(frame)
    lines = pseudocode.TRAVERSAL.lines
    seen = set()
    for i in range(len(steps)):
        s = steps[i]
        line = pseudocode.line_for(s)
        path = pseudocode.lines_for(s)
        assert line in path and path[:2] == (pseudocode.LINE_POP, pseudocode.LINE_TEST)
        text = lines[line - 1]
        seen.add(line)
        if s.outcome is StepOutcome.CULLED:
            assert "culled" in text
        elif s.outcome is StepOutcome.LEAF_PAIR:
            assert "exact test" in text
        elif line == pseudocode.LINE_SPLIT_A:
            assert s.split_words.startswith("split A") and "(a.left, b)" in text
        elif line == pseudocode.LINE_SPLIT_B:
            assert s.split_words.startswith("split B") and "(a, b.left)" in text
        else:
            assert descend is DescendRule.BOTH and s.split_words.startswith("split both")
        test_line = pseudocode.test_line_for("obb", s)
        assert 1 <= test_line <= len(pseudocode.SAT15.lines)
    assert {pseudocode.LINE_CULL, pseudocode.LINE_LEAVES} <= seen
    title = pseudocode.TRAVERSAL.title
    assert "van den Bergen 1998" in title and "Gottschalk, Lin, Manocha 1996" in title
    assert pseudocode.TRAVERSAL.numbered()[0].startswith(" 1  queue")


@pytest.mark.parametrize("bv", ["aabb", "obb", "kdop18"])
def test_a_stored_frame_steps_alike_without_its_pipeline(bv):
    import pickle

    frame = _frame("rotated", bv)
    stored = pickle.loads(pickle.dumps(frame))
    live, replayed = traversal_steps(frame), traversal_steps(stored)
    assert len(live) == len(replayed)
    for i in range(0, len(live), 3):
        a, b = live[i], replayed[i]
        assert (a.outcome, a.split_words, a.children, a.counters) == (
            b.outcome, b.split_words, b.children, b.counters)


@pytest.mark.parametrize("bv", ["aabb", "rss"])
def test_a_scaled_body_steps_with_the_volumes_the_traversal_tested(bv):
    bodies = _scene("two spheres")
    bodies[1] = BodyInput("b", bodies[1].mesh, Pose(np.eye(3), (1.3, 0.2, 0.1), scale=1.4))
    request = CollisionRequest(bv=bv, trace=True, leaf_size=4)
    frame = FramePipeline(PipelineSettings(request)).step(bodies)
    steps = traversal_steps(frame)
    _check_agrees(frame, steps)
    queue = [(0, 0, 0)]
    for i in range(len(steps)):
        s = steps[i]
        assert queue.pop(0) == (s.level, s.node_a, s.node_b)
        queue += [(s.level + 1, a, b) for a, b in s.children]


def test_bodies_far_apart_cull_the_roots_in_one_step():
    bodies = [BodyInput("a", sphere_mesh(6)),
              BodyInput("b", sphere_mesh(6), Pose(np.eye(3), (3.0, 0.0, 0.0)))]  # fmt: skip
    frame = FramePipeline(PipelineSettings(CollisionRequest(trace=True))).step(bodies)
    steps = traversal_steps(frame)
    assert len(steps) == 1
    assert steps.waiting(-1) == [(0, 0, 0)] and steps.waiting(0) == []
    root = steps[0]
    assert root.outcome is StepOutcome.CULLED and root.test_words == "A's axis 1 (x)"
    assert root.counters == frame.result.counters and root.queue_length == 0
    assert steps.next_where(-1, "level_end") == 0 and steps.next_where(0, "overlap") is None


def test_subtree_before_is_the_ancestor_pair_and_its_descendants_so_far():
    """Rebuilt from each step's children: the rows returned are exactly the ancestor pair
    ``levels_up`` levels above and the pairs under it tested before the position."""
    frame = _frame("deformed", "aabb")
    steps = traversal_steps(frame)
    parent = {}
    position_of = {}
    for i in range(len(steps)):
        s = steps[i]
        position_of[(s.level, s.node_a, s.node_b)] = i
        for a, b in s.children:
            parent[(s.level + 1, a, b)] = i
    parent_row = [parent.get((steps[i].level, steps[i].node_a, steps[i].node_b), -1)
                  for i in range(len(steps))]
    deep = max(range(len(steps)), key=lambda i: (steps[i].level, -i))
    for position in (0, 1, len(steps) // 2, deep):
        for levels_up in (0, 1, 3):
            ancestor, rows = steps.subtree_before(position, levels_up)
            expected_ancestor = position
            for _ in range(min(levels_up, steps[position].level)):
                expected_ancestor = parent_row[expected_ancestor]
            assert ancestor == expected_ancestor

            def under(r, top=expected_ancestor):
                while r > top:
                    r = parent_row[r]
                return r == top

            expected = [r for r in range(position) if under(r)]
            assert rows.tolist() == expected
    _root, everything = steps.subtree_before(deep, steps[deep].level)
    assert everything.tolist() == list(range(deep))
