"""Run a recording's vertex states again with other settings, frame by frame.

The recorded meshes and poses of every frame go through a fresh
:class:`core.pipeline.FramePipeline` (no deformer: the recorded vertices are the state), so
the trees are built and refitted as they were live. Counters and times differ with the
settings; the contacts must not (the engine's contacts depend on no bounding-volume kind,
split rule, update mode or descend rule), and a frame whose contacts differ is a mismatch.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from core.checks import instance
from core.pipeline import BodyInput, Frame, FramePipeline, PipelineSettings
from core.recording.fileformat import RecordingCancelled
from core.recording.store import Recording


@dataclass(frozen=True)
class ReplayRow:
    """One frame replayed, beside what was recorded.

    Attributes
    ----------
    frame : int
        The recorded ``Frame.index``.
    bv_tests, tri_tests : int
        Volume pairs and exact triangle pairs tested by the replay (A against B).
    time_ms : float
        The replay's whole frame (``timings["total"]``), milliseconds.
    recorded_bv_tests, recorded_tri_tests : int
    recorded_time_ms : float
    contacts_identical : bool
        The set of (triangle of A, triangle of B, contact kind) is the recorded one, and so is
        every body's set of self-contacts when they were recorded.
    """

    frame: int
    bv_tests: int
    tri_tests: int
    time_ms: float
    recorded_bv_tests: int
    recorded_tri_tests: int
    recorded_time_ms: float
    contacts_identical: bool


@dataclass(frozen=True)
class ReplayReport:
    """Every frame of a replay.

    Attributes
    ----------
    rows : list of ReplayRow
    settings : str
        The replay's choices in words ("obb (surface fit), midpoint split, refit, ...").
    seconds : float
        Wall time of the whole replay.
    """

    rows: list = field(default_factory=list)
    settings: str = ""
    seconds: float = 0.0

    @property
    def all_identical(self) -> bool:
        """Every frame's contacts equal the recorded ones."""
        return all(row.contacts_identical for row in self.rows)

    @property
    def mismatches(self) -> list[int]:
        """Recorded frame indices whose contacts differ."""
        return [row.frame for row in self.rows if not row.contacts_identical]


def settings_words(settings: PipelineSettings) -> str:
    """A pipeline's choices as a person reads them."""
    from core.bv import get_kind

    request = settings.request
    kind = get_kind(request.bv)
    bv = f"{request.bv} ({request.obb_fit.name.lower()} fit)" if kind.has_fit_choice else request.bv
    words = [bv, f"{request.split.name.lower()} split", f"leaf size {request.leaf_size}",
             f"{settings.update.value} update", f"descend {request.descend.name.lower()}"]
    if settings.update.value == "auto":
        words[3] += f" (drift threshold {settings.drift_threshold:g})"
    if request.margin:
        words.append(f"margin {request.margin:g}")
    return ", ".join(words)


def _contact_set(result) -> set:
    if result is None:
        return set()
    return set(zip(result.pairs[:, 0].tolist(), result.pairs[:, 1].tolist(),
                   result.kinds.tolist()))  # fmt: skip


def contacts_equal(recorded: Frame, replayed: Frame) -> bool:
    """Same (A triangle, B triangle, kind) set, and the same self-contacts when recorded."""
    if _contact_set(recorded.result) != _contact_set(replayed.result):
        return False
    if recorded.self_results is not None:
        mine = replayed.self_results or [None] * len(recorded.self_results)
        if len(mine) != len(recorded.self_results):
            return False
        return all(_contact_set(a) == _contact_set(b)
                   for a, b in zip(recorded.self_results, mine))  # fmt: skip
    return True


def _tests(frame: Frame) -> tuple[int, int]:
    if frame.result is None:
        return 0, 0
    return frame.result.counters.n_bv_tests, frame.result.counters.n_tri_tests


def replay(recording: Recording, settings: PipelineSettings,
           progress: Callable[[int, int], None] | None = None,
           cancel: Callable[[], bool] | None = None) -> ReplayReport:  # fmt: skip
    """Run every recorded frame's meshes and poses again with ``settings``.

    Parameters
    ----------
    recording : Recording
    settings : PipelineSettings
        The choices to replay with. Self-collision follows each recorded frame (its
        self-contacts are compared when it has them).
    progress : callable, optional
        ``progress(done, total)`` after each frame.
    cancel : callable, optional
        ``cancel() -> bool``, asked between frames; True stops with
        :class:`RecordingCancelled`.

    Returns
    -------
    ReplayReport
    """
    instance(recording, "recording", Recording)
    instance(settings, "settings", PipelineSettings)
    start = time.perf_counter()
    pipe = FramePipeline(settings)
    rows = []
    for position in range(len(recording)):
        if cancel is not None and cancel():
            raise RecordingCancelled("the replay was cancelled")
        recorded = recording[position]
        wants_self = recorded.self_results is not None
        pipe.settings = (settings if settings.frame.self_collision == wants_self else
                         replace(settings, frame=settings.frame.replace(
                             self_collision=wants_self)))
        bodies = [BodyInput(key, mesh, pose) for key, mesh, pose in
                  zip(recording.body_keys(position), recorded.meshes, recorded.poses)]
        replayed = pipe.step(bodies, recorded.t)
        bv_tests, tri_tests = _tests(replayed)
        old_bv, old_tri = _tests(recorded)
        rows.append(ReplayRow(
            frame=int(recorded.index), bv_tests=int(bv_tests), tri_tests=int(tri_tests),
            time_ms=1e3 * float(replayed.timings["total"]),
            recorded_bv_tests=int(old_bv), recorded_tri_tests=int(old_tri),
            recorded_time_ms=1e3 * float(recorded.timings.get("total", np.nan)),
            contacts_identical=contacts_equal(recorded, replayed)))
        if progress is not None:
            progress(position + 1, len(recording))
    return ReplayReport(rows, settings_words(settings), time.perf_counter() - start)


def recorded_settings(recording: Recording, position: int = 0) -> PipelineSettings:
    """The settings a recorded frame ran with: its request, frame options and update mode
    (the AUTO drift threshold is not recorded: the default)."""
    instance(recording, "recording", Recording)
    frame = recording[position]
    if frame.request is None:
        return PipelineSettings(update=recording.update_mode(position))
    return PipelineSettings(frame.request, recording.update_mode(position),
                            frame=frame.frame_options)
