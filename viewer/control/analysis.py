"""What the viewer computes about a frame on demand: its heat map, a fresh tree beside the
refitted one (the ghost), and another engine's verdict on its contacts (the cross-check).

The heat map is numpy counting over the frame's own trace (:mod:`core.lab.heat`), done
on the GUI thread when a frame is drawn and kept for that frame; a recorded frame is coloured
by its own trace. The ghost (a tree build and a volume fit) and the cross-check (another
engine and exact arithmetic) run on lanes of the worker; when one is ready the model's
``analysis_changed`` asks the window to redraw.

The ghost's lane coalesces: one build at a time, and the one waiting is always the newest
frame's, so while a deformer plays every build finishes and is shown as of its frame
(``GhostView.frame``) instead of being overtaken. While playing, the ghost and the heat map
counted beside the frames start at most :data:`viewer.control.pacing.PLAYING_SHARE` of the
time (:class:`viewer.control.pacing.PlayingPace`), and at once when playing pauses. Each
cost (heat map, ghost, cross-check) goes to the model with the frame it was measured on, for
the Pipeline dock.
"""

from __future__ import annotations

import time

import numpy as np

from core.bvh.build import build_tree
from core.bvh.quality import sah_cost
from core.frame_volumes import TreeBoxRows, fitted_volumes
from core.lab.crosscheck import INSTALL_HINT, available_engine, cross_check_frame, engine_title
from core.lab.heat import HeatUnavailable, frame_heat
from viewer.control.frame_budget import INLINE_ANALYSIS_S
from viewer.control.pacing import PlayingPace
from viewer.control.worker import BESIDE_FRAME_NICE, Budget, Tag
from viewer.render.ghost import GhostView

GHOST_MAX_BYTES = 4 * 2**30
"""The ghost's memory budget: the fresh trees and volumes it builds may take at most 4 GiB
(about 27 million triangles at the 156 bytes a triangle measured in issue 27); past it the
ghost is refused with one line naming the budget instead of exhausting the machine."""


def ghost_bytes(frame) -> int:
    """What the ghost of ``frame`` allocates: a fresh tree and volumes as large as the
    frame's own (same triangles, leaf size and kind), counted from the frame's arrays."""
    total = 0
    for tree in frame.trees[:2]:
        total += sum(v.nbytes for v in vars(tree).values() if isinstance(v, np.ndarray))
    rows = frame.volumes.rows if frame.volumes is not None else ()
    if not isinstance(rows, TreeBoxRows):  # the trees' own boxes are counted with the trees
        total += sum(int(rows[i].nbytes) for i in range(min(2, len(rows))))
    return int(total)


def _ghost_job(control, frame) -> GhostView:
    # A build is not cancelled midway (the lane drops the waiting one instead), but it is
    # refused before it allocates more than its memory budget.
    control.reserve(ghost_bytes(frame))
    return fresh_ghost(frame)


def _cross_check_job(control, frame, engine: str):
    del control
    return cross_check_frame(frame, engine)


def _counted_heat(control, frame):
    """``(FrameHeat or None, why none)`` of ``frame``."""
    del control
    try:
        return frame_heat(frame), ""
    except HeatUnavailable as exc:
        return None, str(exc)


def _same_trees(a, b) -> bool:
    """Frames whose trees have the same nodes and triangles: one's heat colours the other."""
    return (len(a.trees) == len(b.trees) and len(a.meshes) == len(b.meshes)
            and all(x.n_nodes == y.n_nodes for x, y in zip(a.trees, b.trees))
            and all(x.faces.shape == y.faces.shape for x, y in zip(a.meshes, b.meshes)))


def _same_frame(a, b) -> bool:
    """The same frame of this scene: the very object, or the one its side results were merged
    into (same number, same meshes)."""
    return a is not None and b is not None and (a is b or (a.index == b.index
                                                           and a.meshes is b.meshes))


def fresh_ghost(frame) -> GhostView:
    """Build each tree of ``frame`` afresh on its current vertices (same split rule and leaf
    size), fit the frame's kind of volume to it, and measure both trees' SAH cost."""
    request = frame.request
    trees = [build_tree(mesh, tree.split, tree.leaf_size)
             for mesh, tree in zip(frame.meshes[:2], frame.trees[:2])]  # fmt: skip
    for tree in trees:
        # The drawing reads the levels (core.bvh.tree.derive_arrays): derived here, on the
        # ghost's lane. Derived when first drawn, they took 33 ms of the GUI thread per new
        # ghost on big-bunny's 560k-node trees (cProfile of the interactive benchmark).
        tree.level_start  # noqa: B018 - read for its side effect
    volumes = None
    if request is not None:
        volumes = fitted_volumes(trees, frame.meshes[:2], request.bv, request.obb_fit.name)
    return GhostView(
        frame=frame, trees=trees, volumes=volumes,
        sah_refit=[float(sah_cost(t.bmin, t.bmax, t.count)) for t in frame.trees[:2]],
        sah_fresh=[float(sah_cost(t.bmin, t.bmax, t.count)) for t in trees],
    )  # fmt: skip


class FrameAnalysis:
    """The controller's on-demand views of a frame: ``heat_for``, ``ghost_view``,
    ``cross_check_frame`` and ``crosscheck_view``.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    workers : viewer.control.worker.Workers
        The controller's workers; the job takes its lane(s) from them.
    is_threaded : bool
        False: everything runs inline (the benchmark, scripts).
    """

    def __init__(self, model, workers, is_threaded: bool) -> None:
        self.model = model
        self.is_threaded = is_threaded
        self._heat_cache = (None, None, "")  # frame, FrameHeat or None, why none
        self._heat_lane = workers.lane("heat", coalesce=True, nice=BESIDE_FRAME_NICE)
        self._heat_asked = None  # the newest frame whose heat the lane was asked for
        self._ghost: GhostView | None = None
        self._ghost_generation = 0  # scenes seen: a ghost of an older scene is dropped
        self._ghost_lane = workers.lane("ghost", coalesce=True, nice=BESIDE_FRAME_NICE)
        self._ghost_asked = None  # the newest frame a ghost was asked for
        self._crosscheck = None  # (frame, CrossCheck)
        self._check_lane = workers.lane("cross-check", nice=BESIDE_FRAME_NICE)
        self._check_callback = None
        self.heat_pace = PlayingPace(self._request_shown_heat,
                                     is_busy=lambda: self._heat_lane.is_busy)
        self.ghost_pace = PlayingPace(self._request_ghost,
                                      is_busy=lambda: self._ghost_lane.is_busy)
        self.model.frame_ready.connect(lambda _f: self._request_ghost())
        self.model.playing_changed.connect(self._on_playing)
        self.model.display_changed.connect(lambda _d: self._request_ghost())
        self.model.scene_changed.connect(self._forget_ghost)

    # -- heat -------------------------------------------------------------------------------
    def heat_for(self, frame):
        """``(FrameHeat or None, note)`` of ``frame``: note says why there is none, or that the
        heat shown is an older frame's.

        Counted on the GUI thread when the frame is drawn while that is cheap (its last
        cost, :data:`viewer.control.frame_budget.INLINE_ANALYSIS_S`); past it, on the
        coalescing heat lane for the newest frame, and meanwhile the newest counted heat of the
        same trees is shown with "from frame N"."""
        cached_frame, heat, note = self._heat_cache
        if frame is None:
            return None, ""
        if cached_frame is frame:
            return heat, note
        cost = self.model.analysis_costs.get("heat")
        if self._counts_heat_inline():
            start = time.perf_counter()
            heat, note = _counted_heat(None, frame)
            self._heat_cache = (frame, heat, note)
            if heat is not None:
                self.model.set_analysis_cost("heat", 1e3 * (time.perf_counter() - start),
                                             frame.index)
            return heat, note
        self._request_heat(frame)
        if heat is not None and cached_frame is not None and _same_trees(cached_frame, frame):
            # Short: the canvas note shares its lines with the heat map's colour bars.
            return heat, (f"from frame {cached_frame.index} (counted beside the frames: "
                          f"{cost.ms:,.0f} ms)")
        return None, f"of frame {frame.index}: counting beside the frames ({cost.text()})"

    def _on_playing(self, is_playing: bool) -> None:
        """Paused: the shown frame's heat and ghost are asked for now, not when the pace
        allows."""
        if not is_playing:
            self._request_shown_heat()
            self._request_ghost()

    def _request_shown_heat(self) -> None:
        """Count the shown frame's heat beside the frames, if it is not counted or asked."""
        frame = self.model.frame
        if (frame is not None and self.model.display.heat_map != "off"
                and self._heat_cache[0] is not frame and not self._counts_heat_inline()):
            self._request_heat(frame)

    def _counts_heat_inline(self) -> bool:
        """Whether the heat map is counted on the GUI thread as the frame is drawn: inline
        (no lanes), not measured yet, or its last count within INLINE_ANALYSIS_S."""
        cost = self.model.analysis_costs.get("heat")
        return not self.is_threaded or cost is None or cost.ms <= 1e3 * INLINE_ANALYSIS_S

    def _request_heat(self, frame) -> None:
        if self._heat_asked is frame or self.heat_pace.must_wait(self.model.is_playing):
            return
        self._heat_asked = frame
        self.heat_pace.start()
        self._heat_lane.submit(_counted_heat, frame, tag=Tag("heat map", frame.index),
                               on_result=lambda result, job: self._on_heat_done(frame, result,
                                                                                job),
                               on_error=self._on_heat_failed)

    def _on_heat_failed(self, error, job) -> None:
        self.heat_pace.finish(job.seconds)
        self._heat_asked = None
        self.model.error.emit("Heat map", f"{type(error).__name__}: {error}")

    def _on_heat_done(self, frame, result, job) -> None:
        self.heat_pace.finish(job.seconds)
        heat, note = result
        if self.model.frame is None or not _same_trees(frame, self.model.frame):
            return  # of other trees than the ones shown now (another scene, a rebuild)
        self._heat_cache = (frame, heat, note)
        if job.seconds is not None and heat is not None:
            self.model.set_analysis_cost("heat", 1e3 * job.seconds, frame.index)
        self.model.analysis_changed.emit()

    # -- ghost ------------------------------------------------------------------------------
    def ghost_view(self) -> GhostView | None:
        """The newest finished fresh tree of the shown scene (None: none yet).

        It is the shown frame's own when that one is ready, else the last one built: while a
        deformer plays on a big mesh every build ends after the frame moved on, and showing
        only the shown frame's ghost showed none at all. The drawing marks an older ghost
        with its frame (``GhostView.frame``). A ghost of other meshes (another scene, a
        sculpted or swapped body) is never returned.
        """
        ghost, frame = self._ghost, self.model.frame
        if ghost is not None and (ghost.frame.request is not None and frame is not None
                                  and frame.request is not None
                                  and ghost.frame.request.bv != frame.request.bv):
            return None  # another kind of volume than the frame shown
        if ghost is None or frame is None or ghost.frame is frame:
            return ghost if frame is not None else None
        if len(ghost.frame.meshes) < 2 or len(frame.meshes) < 2 or any(
                a.faces.shape != b.faces.shape
                for a, b in zip(ghost.frame.meshes[:2], frame.meshes[:2])):
            return None
        return ghost

    @property
    def is_ghost_building(self) -> bool:
        return self._ghost_lane.is_busy

    def _ghost_inputs(self) -> tuple:
        """The settings a ghost is fitted with: a ghost of another kind is not shown."""
        choice = self.model.pipeline
        return choice.bv, choice.obb_fit, choice.split

    def _request_ghost(self) -> None:
        """Build the shown frame's ghost on the ghost lane (coalescing: one build at a time,
        the one waiting replaced by the newest frame's)."""
        frame = self.model.frame
        if (not self.model.display.show_ghost or frame is None or len(frame.trees) < 2
                or _same_frame(self._ghost.frame if self._ghost is not None else None, frame)
                or _same_frame(self._ghost_asked, frame)
                or self.ghost_pace.must_wait(self.model.is_playing)):
            return
        self._ghost_asked = frame
        self.ghost_pace.start()
        tag = Tag("ghost", frame.index, self._ghost_generation, self._ghost_inputs())
        self._ghost_lane.submit(_ghost_job, frame, tag=tag, on_result=self._on_ghost_done,
                                on_error=self._on_ghost_failed,
                                budget=Budget(max_bytes=GHOST_MAX_BYTES))

    def _forget_ghost(self) -> None:
        """A new scene (or swapped bodies): the last ghost (and heat) was of other meshes."""
        self._heat_cache = (None, None, "")
        self._heat_asked = None
        self._ghost = None
        self._ghost_asked = None
        self._ghost_generation += 1

    def _on_ghost_done(self, ghost, job) -> None:
        self.ghost_pace.finish(job.seconds)
        tag = job.tag
        if tag.generation != self._ghost_generation or tag.inputs != self._ghost_inputs():
            return  # of another scene or kind: never shown
        if job.seconds is not None:
            self.model.set_analysis_cost("ghost", 1e3 * job.seconds, tag.frame_index)
        self._ghost = ghost
        self.model.analysis_changed.emit()

    def _on_ghost_failed(self, error, job) -> None:
        self.ghost_pace.finish(job.seconds)
        self._ghost_asked = None
        if job.tag.generation == self._ghost_generation:
            self.model.error.emit("Ghost tree", f"{type(error).__name__}: {error}")

    # -- cross-check ------------------------------------------------------------------------
    @staticmethod
    def cross_check_engine() -> tuple[str | None, str]:
        """``(engine key or None, words)``: the engine and its name and version, or the
        install hint when neither python-fcl nor coal is installed."""
        engine = available_engine()
        if engine is None:
            return None, INSTALL_HINT
        return engine, engine_title(engine)

    @property
    def is_cross_checking(self) -> bool:
        return self._check_lane.is_busy

    def cross_check_frame(self, on_done, engine: str | None = None) -> bool:
        """Compare the contacts the SHOWN frame reported (its pairs, found with its own trees,
        kind and margin: :func:`core.lab.crosscheck.cross_check_frame`) with the other engine in
        the worker thread, then ``on_done(check, error)`` on the GUI thread; the check's
        ``compared`` names the frame. False (and ``on_done`` not called) when there is
        nothing to check or a check is running.

        ``engine``: ``"fcl"`` or ``"coal"``; default the first installed."""
        frame = self.model.frame
        found, words = self.cross_check_engine()
        engine = engine or found
        if engine is None:
            self.model.error.emit("Cross-check", words)
            return False
        if frame is None or len(frame.meshes) < 2 or frame.result is None:
            self.model.error.emit("Cross-check", "the cross-check needs two meshes")
            return False
        if self._check_lane.is_busy:
            self.model.message.emit("Wait: a cross-check is still running")
            return False
        self._check_callback = on_done
        self._check_lane.submit(
            _cross_check_job, frame, engine, tag=Tag("cross-check", frame.index),
            on_result=lambda check, job: self._on_cross_check_done(frame, check, None, job),
            on_error=lambda error, job: self._on_cross_check_done(frame, None, error, job))
        return True

    def _on_cross_check_done(self, frame, check, error, job=None) -> None:
        if check is not None:
            if job is not None and job.seconds is not None:
                self.model.set_analysis_cost("cross-check", 1e3 * job.seconds, frame.index)
            self._crosscheck = (frame, check)
            self.model.analysis_changed.emit()
        callback, self._check_callback = self._check_callback, None
        if callback is not None:
            callback(check, error)

    def crosscheck_view(self):
        """The cross-check of the shown frame (None: none run for it)."""
        if self._crosscheck is None or self._crosscheck[0] is not self.model.frame:
            return None
        return self._crosscheck[1]

    def shutdown(self) -> None:
        self.heat_pace.stop()
        self.ghost_pace.stop()
        self._ghost_lane.cancel()
        self._check_lane.cancel()
        self._heat_lane.cancel()
