"""What the viewer computes about a frame on demand: its heat map, a fresh tree beside the
refitted one (the ghost), and another engine's verdict on its contacts (the cross-check).

The heat map is numpy counting over the frame's own trace (:mod:`core.collide.heat`), done
on the GUI thread when a frame is drawn and kept for that frame; a recorded frame is coloured
by its own trace. The ghost (a tree build and a volume fit) and the cross-check (another
engine and exact arithmetic) run in a worker thread; when one is ready the model's
``analysis_changed`` asks the window to redraw.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from PyQt6.QtCore import QObject, pyqtSignal

from core.bvh.build import build_tree
from core.bvh.quality import sah_cost
from core.collide.heat import HeatUnavailable, frame_heat
from core.crosscheck import INSTALL_HINT, available_engine, cross_check_frame, engine_title
from core.frame_volumes import fitted_volumes
from viewer.render.ghost import GhostView


class _AnalysisRelay(QObject):
    """Carries worker results to the GUI thread (queued signals)."""

    ghost_done = pyqtSignal(object, object, object)  # GhostView or None, error, scene count
    check_done = pyqtSignal(object, object, object)  # frame, CrossCheck or None, error


def fresh_ghost(frame) -> GhostView:
    """Build each tree of ``frame`` afresh on its current vertices (same split rule and leaf
    size), fit the frame's kind of volume to it, and measure both trees' SAH cost."""
    request = frame.request
    trees = [build_tree(mesh, tree.split, tree.leaf_size)
             for mesh, tree in zip(frame.meshes[:2], frame.trees[:2])]  # fmt: skip
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
    ``cross_check_frame`` and ``crosscheck_view``. Uses the host's ``model``."""

    def _init_analysis(self) -> None:
        self._heat_cache = (None, None, "")  # frame, FrameHeat or None, why none
        self._ghost: GhostView | None = None
        self._ghost_building = None  # frame whose fresh tree is being built
        self._ghost_pending = False
        self._ghost_generation = 0  # scenes seen: a ghost of an older scene is dropped
        self._crosscheck = None  # (frame, CrossCheck)
        self._is_checking = False
        self._analysis_executor = ThreadPoolExecutor(max_workers=1,
                                                     thread_name_prefix="analysis")
        self._analysis_relay = _AnalysisRelay()
        self._analysis_relay.ghost_done.connect(self._on_ghost_done)
        self._analysis_relay.check_done.connect(self._on_cross_check_done)
        self.model.frame_ready.connect(lambda _f: self._request_ghost())
        self.model.display_changed.connect(lambda _d: self._request_ghost())
        self.model.scene_changed.connect(self._forget_ghost)

    # -- heat -------------------------------------------------------------------------------
    def heat_for(self, frame):
        """``(FrameHeat or None, note)`` of ``frame``: note says why there is none."""
        cached_frame, heat, note = self._heat_cache
        if frame is None:
            return None, ""
        if cached_frame is not frame:
            try:
                heat, note = frame_heat(frame), ""
            except HeatUnavailable as exc:
                heat, note = None, str(exc)
            self._heat_cache = (frame, heat, note)
        return heat, note

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
        if ghost is None or frame is None or ghost.frame is frame:
            return ghost if frame is not None else None
        if len(ghost.frame.meshes) < 2 or len(frame.meshes) < 2 or any(
                a.faces.shape != b.faces.shape
                for a, b in zip(ghost.frame.meshes[:2], frame.meshes[:2])):
            return None
        return ghost

    @property
    def is_ghost_building(self) -> bool:
        return self._ghost_building is not None

    def _request_ghost(self) -> None:
        frame = self.model.frame
        if (not self.model.display.show_ghost or frame is None or len(frame.trees) < 2
                or (self._ghost is not None and self._ghost.frame is frame)):
            return
        if self._ghost_building is not None:
            # One build at a time: while frames stream in, the newest is built next.
            self._ghost_pending = self._ghost_building is not frame
            return
        self._ghost_building = frame
        generation = self._ghost_generation

        def run():
            try:
                self._analysis_relay.ghost_done.emit(fresh_ghost(frame), None, generation)
            except Exception as exc:  # noqa: BLE001 - any failure becomes a message
                self._analysis_relay.ghost_done.emit(None, exc, generation)

        self._analysis_executor.submit(run)

    def _forget_ghost(self) -> None:
        """A new scene (or swapped bodies): the last ghost was of other meshes."""
        self._ghost = None
        self._ghost_generation += 1

    def _on_ghost_done(self, ghost, error, generation=None) -> None:
        self._ghost_building = None
        if error is not None:
            self.model.error.emit("Ghost tree", f"{type(error).__name__}: {error}")
        elif generation is None or generation == self._ghost_generation:
            self._ghost = ghost
            self.model.analysis_changed.emit()
        if self._ghost_pending:
            self._ghost_pending = False
            self._request_ghost()

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
        return self._is_checking

    def cross_check_frame(self, on_done, engine: str | None = None) -> bool:
        """Compare the contacts the SHOWN frame reported (its pairs, found with its own trees,
        kind and margin: :func:`core.crosscheck.cross_check_frame`) with the other engine in
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
        if self._is_checking:
            self.model.message.emit("Wait: a cross-check is still running")
            return False
        self._is_checking = True
        self._check_callback = on_done

        def run():
            try:
                check = cross_check_frame(frame, engine)
                self._analysis_relay.check_done.emit(frame, check, None)
            except Exception as exc:  # noqa: BLE001 - any failure becomes a message
                self._analysis_relay.check_done.emit(frame, None, exc)

        self._analysis_executor.submit(run)
        return True

    def _on_cross_check_done(self, frame, check, error) -> None:
        self._is_checking = False
        if check is not None:
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

    def _shutdown_analysis(self) -> None:
        self._analysis_executor.shutdown(wait=True, cancel_futures=True)
