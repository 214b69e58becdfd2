"""The in-memory recording: caps, shared-array accounting, events and bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

from core.pipeline import DEFAULT_REQUEST, BodyInput, FramePipeline, PipelineSettings, UpdateMode
from core.pose import Pose
from core.recording import EventKind, Recording, RecordingEvent
from core.recording.arrays import frame_arrays, owning_array
from core.request import FrameOptions
from tests.core.meshgen import sphere_mesh

A, B = sphere_mesh(8), sphere_mesh(6, radius=0.5)
GAPS = (3.0, 2.0, 1.2, 1.0, 0.9, 2.5)  # apart, apart, touching x3, apart


def _run(gaps=GAPS, settings=None):
    """Frames of B moving along x past A (nothing deforms: every frame shares the meshes)."""
    pipe = FramePipeline(settings or PipelineSettings())
    return [pipe.step([BodyInput("a", A), BodyInput("b", B, Pose(translation=(x, 0, 0)))])
            for x in gaps]


def _recorded(frames, **caps) -> Recording:
    rec = Recording(**caps)
    for frame in frames:
        rec.append(frame, ("a", "b"), UpdateMode.REFIT)
    return rec


def _distinct_bytes(frames) -> int:
    owners = {}
    for frame in frames:
        for array in frame_arrays(frame):
            owner = owning_array(array)
            owners[id(owner)] = owner
    return sum(a.nbytes for a in owners.values())


def test_frames_come_back_with_their_keys_and_update_mode():
    frames = _run()
    rec = Recording()
    for i, frame in enumerate(frames):
        update = UpdateMode.AUTO if i % 2 else UpdateMode.REFIT
        assert rec.append(frame, ["a", "b"], update) == i
    assert len(rec) == len(frames)
    assert all(rec[i] is frame for i, frame in enumerate(frames))
    assert rec[-1] is frames[-1]
    assert rec.body_keys(2) == ("a", "b")
    assert rec.update_mode(1) is UpdateMode.AUTO and rec.update_mode(2) is UpdateMode.REFIT


def test_shared_arrays_are_counted_once():
    frames = _run()
    rec = _recorded(frames)
    one = _recorded(frames[:1]).nbytes
    # The meshes and trees are the same objects every frame: only the poses and the
    # per-frame results add bytes, so six frames cost far less than six times one.
    assert rec.nbytes == _distinct_bytes(frames)
    assert one < rec.nbytes < 6 * one
    assert rec.nbytes - one < 0.5 * one * 5


def test_the_byte_count_follows_drops_and_clear():
    frames = _run()
    rec = _recorded(frames, max_frames=3)
    assert len(rec) == 3 and rec.n_dropped == 3
    assert rec[0] is frames[3]
    assert rec.nbytes == _distinct_bytes(frames[3:])
    rec.clear()
    assert len(rec) == 0 and rec.nbytes == 0 and rec.n_dropped == 0
    assert rec.events() == []


def test_the_megabyte_cap_drops_the_oldest_and_keeps_the_newest():
    frames = _run()
    one = _recorded(frames[:1]).nbytes
    rec = _recorded(frames, max_megabytes=1.5 * one / 1e6)
    assert 1 <= len(rec) < len(frames)
    assert rec.nbytes <= 1.5 * one
    assert rec[-1] is frames[-1]
    assert rec.n_dropped == len(frames) - len(rec)
    tiny = _recorded(frames, max_megabytes=1e-9)
    assert len(tiny) == 1 and tiny[0] is frames[-1]


def test_set_limits_drops_at_once_and_refuses_bad_values_without_change():
    rec = _recorded(_run())
    rec.set_limits(512.0, 2)
    assert len(rec) == 2 and rec.n_dropped == 4
    with pytest.raises(ValueError, match="max_frames must be at least 1"):
        rec.set_limits(512.0, 0)
    with pytest.raises(ValueError, match="max_megabytes"):
        rec.set_limits(float("nan"), 10)
    with pytest.raises(TypeError, match="max_frames must be an integer"):
        rec.set_limits(1.0, 2.5)
    assert rec.max_frames == 2 and len(rec) == 2


def test_events_first_contact_peak_and_user_events():
    frames = _run()
    rec = Recording()
    for i, frame in enumerate(frames):
        told = (EventKind.GRABBED,) if i == 1 else ()
        rec.append(frame, ("a", "b"), UpdateMode.REFIT, told)
    counts = [f.result.n_contacts for f in frames]
    first = next(i for i, n in enumerate(counts) if n)
    peak = int(np.argmax(counts))
    events = rec.events()
    assert events == sorted(events, key=lambda e: e.position)
    kinds = {(e.position, e.kind) for e in events}
    assert [e.position for e in events if e.kind is EventKind.FIRST_CONTACT] == [first]
    assert [e.position for e in events if e.kind is EventKind.CONTACT_PEAK] == [peak]
    assert (peak, EventKind.CONTACT_PEAK) in kinds
    assert (1, EventKind.GRABBED) in kinds
    text = next(e.text for e in events if e.kind is EventKind.FIRST_CONTACT)
    assert text == f"first contact: {counts[first]} triangle pairs"
    assert rec.next_event(0) == 1 and rec.next_event(1) == first
    assert rec.previous_event(first) == 1 and rec.previous_event(1) is None
    assert rec.next_event(len(rec) - 1) is None


def test_only_the_first_contact_is_called_first_contact():
    """Bodies that touch, part and touch again: the second start is "contact again" (every
    re-contact was labelled "first contact" on the timeline)."""
    from core.recording.events import FrameFacts, find_events

    counts = [0, 3, 5, 0, 0, 2, 0, 4]
    events = [e for e in find_events([FrameFacts(n) for n in counts])
              if e.kind in (EventKind.FIRST_CONTACT, EventKind.CONTACT_AGAIN)]
    assert [(e.position, e.kind, e.text) for e in events] == [
        (1, EventKind.FIRST_CONTACT, "first contact: 3 triangle pairs"),
        (5, EventKind.CONTACT_AGAIN, "contact again: 2 triangle pairs"),
        (7, EventKind.CONTACT_AGAIN, "contact again: 4 triangle pairs"),
    ]


def test_events_follow_when_the_oldest_frames_drop():
    frames = _run()
    rec = _recorded(frames, max_frames=4)  # holds frames 2..5: frame 2 touches
    assert rec.events()[0] == RecordingEvent(0, EventKind.FIRST_CONTACT,
                                             rec.events()[0].text)
    assert all(0 <= e.position < 4 for e in rec.events())


def test_a_settings_change_and_a_drift_rebuild_are_marked():
    pipe = FramePipeline(PipelineSettings(update=UpdateMode.AUTO, drift_threshold=0.0))
    rec = Recording()

    def ripple(v, t):
        return v + 0.4 * t * np.sin(9.0 * v[:, ::-1])

    for t in (0.0, 0.5, 1.0):
        frame = pipe.step([BodyInput("a", A, deformer=ripple),
                           BodyInput("b", B, Pose(translation=(3, 0, 0)))], t)
        rec.append(frame, ("a", "b"), UpdateMode.AUTO)
    pipe.settings = PipelineSettings(DEFAULT_REQUEST.replace(bv="obb"), update=UpdateMode.AUTO)
    frame = pipe.step([BodyInput("a", A), BodyInput("b", B, Pose(translation=(3, 0, 0)))])
    rec.append(frame, ("a", "b"), UpdateMode.AUTO)
    rebuilds = [e for e in rec.events() if e.kind is EventKind.REBUILD]
    # Frame 0 builds (first frame): not a drift rebuild; frames 1 and 2 squash A further and
    # pass a zero threshold.
    assert [e.position for e in rebuilds] == [1, 2]
    assert all(e.text.startswith("tree of a rebuilt") for e in rebuilds)
    # A frame option is a setting too: the frame that turns the distance on is marked.
    pipe.settings = PipelineSettings(DEFAULT_REQUEST.replace(bv="obb"), update=UpdateMode.AUTO,
                                     frame=FrameOptions(distance=True))
    frame = pipe.step([BodyInput("a", A), BodyInput("b", B, Pose(translation=(3, 0, 0)))])
    rec.append(frame, ("a", "b"), UpdateMode.AUTO)
    changed = [e for e in rec.events() if e.kind is EventKind.OPENED]
    assert [e.position for e in changed] == [3, 4]
    assert "bv aabb -> obb" in changed[0].text
    assert changed[1].text.endswith("settings changed: distance False -> True")


def test_summary_words():
    frames = _run()
    rec = _recorded(frames[:1], max_megabytes=512)
    assert rec.summary() == f"recording 1 frame, {rec.nbytes / 1e6:.1f} MB of 512 MB"
    rec = _recorded(frames, max_frames=2)
    assert rec.summary().startswith("recording 2 frames, ")
    assert rec.summary().endswith("(4 oldest dropped)")


@pytest.mark.parametrize("call, error, words", [
    (lambda r, f: r.append("frame", ("a", "b"), UpdateMode.REFIT), TypeError, "frame must be"),
    (lambda r, f: r.append(f, ("a",), UpdateMode.REFIT), ValueError, "body_keys must name"),
    (lambda r, f: r.append(f, "ab", UpdateMode.REFIT), TypeError, "body_keys must be"),
    (lambda r, f: r.append(f, ("a", 2), UpdateMode.REFIT), TypeError, r"body_keys\[1\]"),
    (lambda r, f: r.append(f, ("a", "b"), "refit"), TypeError, "update must be"),
    (lambda r, f: r.append(f, ("a", "b"), UpdateMode.REFIT, (EventKind.REBUILD,)),
     ValueError, r"user_events\[0\] must be one of GRABBED, SCULPTED"),
    (lambda r, f: Recording(max_megabytes=0), ValueError, "max_megabytes"),
    (lambda r, f: Recording(max_frames=True), TypeError, "max_frames"),
    (lambda r, f: r[5], IndexError, "position 5 is out of range"),
    (lambda r, f: r.body_keys("0"), TypeError, "position must be an integer"),
])  # fmt: skip
def test_bad_arguments_name_themselves_and_change_nothing(call, error, words):
    frames = _run(GAPS[:1])
    rec = _recorded(frames)
    before = (len(rec), rec.nbytes)
    with pytest.raises(error, match=words) as info:
        call(rec, frames[0])
    assert "\n" not in str(info.value)
    assert (len(rec), rec.nbytes) == before
