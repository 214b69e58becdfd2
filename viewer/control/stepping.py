"""The traversal stepper: the shown frame's tandem traversal, one volume-pair test at a time.

The steps come from ``core.lab.steps.traversal_steps`` on ``model.frame`` (a live frame or
a recorded one: both are just the frame shown). They are computed when the stepper is turned
on or a new frame arrives while it is on; a traversal with many pair tests is prepared on a
worker lane (the 500k-triangle frames trace millions of pairs) while the dock says so. The
job turns the current step into a plain :class:`viewer.render.stepper.StepView` for the dock,
the pseudo-code panel and the canvas, which import no core.
"""

from __future__ import annotations

import numpy as np

from core.lab import pseudocode
from core.lab.separation import separation
from core.lab.steps import (
    CODE_CULLED,
    CODE_LEAF_PAIR,
    CODE_SPLIT,
    StepOutcome,
    traversal_steps,
)
from viewer.control.worker import BESIDE_FRAME_NICE, Tag
from viewer.render.stepper import StepView
from viewer.state.display import CameraView
from viewer.words.actions import shortcut_of

STEPPER_KEY = shortcut_of("stepper.toggle")
"""Stepper > Step the traversal (the action table's key, written nowhere else)."""

THREADED_STEPS_ROWS = 200_000
"""Traces with more pair tests than this are turned into steps on a worker lane."""

WAITING_LISTED = 50
"""Pairs of the queue the dock lists; the rest are counted."""

HISTORY_LEVELS_UP = 3
"""The faint history drawn while stepping is the pairs tested under the current pair's
ancestor this many levels up (at most 2^3 pairs on the current level below it, with their
culled neighbours). All earlier pairs (870 faint boxes at test 1,410 of Two spheres) hid the
pair under test; the note says how many are left out."""

PAIR_FILL = 0.45
"""Framing the pair under test (Stepper > Frame the pair): its bounding sphere spans this
share of the view's height, so the faint history around it still shows."""

STOPS = {"overlap", "leaf", "contact", "level_end"}

STOP_WORDS = {
    "overlap": "no later pair overlaps",
    "leaf": "no later pair of two leaves",
    "contact": "no later leaf pair has a contact",
    "level_end": "this is the last pair",
}

_CODES = {StepOutcome.CULLED: CODE_CULLED, StepOutcome.SPLIT: CODE_SPLIT,
          StepOutcome.LEAF_PAIR: CODE_LEAF_PAIR}


def _prepare(frame, file_ids=None):
    """``(steps, note)``: the frame's steps, or None and why they cannot be had (one line).
    ``file_ids``: per body index, a tree file's node ids (the steps' words name them)."""
    if frame is None:
        return None, "No frame yet: the stepper starts once the first frame is computed."
    if frame.result is None and frame.self_results:
        return None, ("This is a self-collision frame (one mesh against itself): the stepper "
                      "walks the traversal of two meshes, A and B.")
    try:
        ids = file_ids or {}
        return traversal_steps(frame, (ids.get(0), ids.get(1))), ""
    except ValueError as exc:
        text = str(exc)
        text = text if text[1:2].isupper() else text[:1].lower() + text[1:]  # "BVH Lab's"
        return None, f"The stepper cannot walk this frame: {text}."


def _trace_rows(frame) -> int:
    trace = frame.result.trace if frame.result is not None else None
    return 0 if trace is None else int(trace.node_a.shape[0])


class Stepping:
    """The controller's stepper job: ``start_stepper``, ``stop_stepper``, ``step_by``,
    ``step_to``, ``step_run_to``, ``step_restart`` and ``step_view``.

    Listens to ``model.frame_ready``.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    workers : viewer.control.worker.Workers
        The controller's workers; the job takes its lane(s) from them.
    is_threaded : bool
        False: everything runs inline (the benchmark, scripts).
    tree_file_ids : callable
        The inspection job's ``tree_file_ids`` (the stepper's words name a tree file's nodes
        by the file's ids).
    """

    def __init__(self, model, workers, is_threaded: bool, tree_file_ids) -> None:
        self.model = model
        self.is_threaded = is_threaded
        self._tree_file_ids = tree_file_ids  # the inspection job's
        # Coalescing: only the newest frame's steps are wanted; one waiting for an older
        # frame is dropped, and one that finishes late is not shown (_on_steps_ready).
        self._steps_lane = workers.lane("steps", coalesce=True, nice=BESIDE_FRAME_NICE)
        self._steps_frame = None  # the frame the model's steps (or note) belong to
        self._step_view_cache = None  # ((steps id, position), StepView)
        self._level_steps = None  # (frame, its steps or None) for step mode's contacts
        self.framed_step = None  # (position, pair corners) of the pair last framed
        # Any other camera move (a lesson's camera, a session, a reset) makes the next
        # frame_new_pair frame again: frame_pair sets framed_step after its own move.
        self.model.camera_restored.connect(self._forget_framed_step)
        self.model.frame_ready.connect(self._on_frame_for_stepper)
        self.model.playing_changed.connect(self._on_playing_for_stepper)

    # -- on and off -------------------------------------------------------------------------
    def start_stepper(self) -> None:
        """Turn the stepper on at the root pair of the shown frame; pauses playing."""
        self.model.set_playing(False)
        if self.model.is_step_mode:
            self.model.set_step_mode(False)  # the level step mode and this one are exclusive
        self._load_steps(self.model.frame)
        self.framed_step = None
        self.model.set_step_position(0)

    def stop_stepper(self) -> None:
        """Turn the stepper off; the normal view comes back."""
        self.model.set_step_position(None)

    def _load_steps(self, frame) -> None:
        self._steps_frame = frame
        file_ids = self._tree_file_ids(frame)  # read here: the model is the GUI thread's
        if frame is None or not self.is_threaded or _trace_rows(frame) <= THREADED_STEPS_ROWS:
            steps, note = _prepare(frame, file_ids)
            self.model.set_steps(steps, note)
            return
        self.model.set_steps(None, "")  # "" with no steps: being prepared
        self.model.message.emit(f"Preparing {_trace_rows(frame):,} pair tests for the stepper…")
        self._steps_lane.submit(
            lambda _control: _prepare(frame, file_ids),
            tag=Tag("steps", frame.index),
            on_result=lambda prepared, _job: self._on_steps_ready(frame, *prepared),
            on_error=lambda error, _job: self._on_steps_ready(
                frame, None, f"The stepper cannot walk this frame: {error}."))

    def _on_steps_ready(self, frame, steps, note: str) -> None:
        if frame is self._steps_frame and self.model.is_stepping:
            self.model.set_steps(steps, note)

    def _on_playing_for_stepper(self, is_playing: bool) -> None:
        """Playing makes a new frame every tick: the stepper goes off rather than restart at
        every one."""
        if is_playing and self.model.is_stepping:
            self.stop_stepper()
            self.model.message.emit(f"Playing: the stepper is off ({STEPPER_KEY} turns it on "
                                    "again).")

    def _on_frame_for_stepper(self, frame) -> None:
        if not self.model.is_stepping or frame is self._steps_frame:
            return
        if frame is None:  # a new scene: the stepper goes off with the old frame
            self.stop_stepper()
            return
        self._load_steps(frame)
        if self.model.step_position == 0:
            self.model.step_position_changed.emit(0)  # the same number, a new frame's root
        else:
            self.model.set_step_position(0)
        self.model.message.emit("A new frame is shown: the stepper starts again at its root "
                                "pair.")

    # -- moving -----------------------------------------------------------------------------
    def n_steps(self) -> int:
        """Pair tests of the shown frame's traversal (0 without steps)."""
        steps = self.model.steps
        return 0 if steps is None else len(steps)

    def step_to(self, position: int) -> None:
        """Show pair test ``position`` (clamped to the traversal)."""
        n = self.n_steps()
        if not self.model.is_stepping or n == 0:
            return
        self.model.set_step_position(max(0, min(n - 1, int(position))))

    def step_by(self, delta: int) -> None:
        """Forward (``+1``) or back (``-1``) one pair test."""
        if self.model.is_stepping:
            self.step_to(self.model.step_position + int(delta))

    def step_restart(self) -> None:
        """Back to the root pair (turns the stepper on if it is off)."""
        if not self.model.is_stepping:
            self.start_stepper()
        else:
            self.step_to(0)

    def step_run_to(self, what: str) -> int | None:
        """Run forward to the next pair that overlaps (``"overlap"``), the next pair of two
        leaves (``"leaf"``), the next leaf pair with a contact (``"contact"``) or the last pair
        of this level (``"level_end"``); returns the new position, or None (and says why)
        when no later pair qualifies."""
        if what not in STOPS:
            raise ValueError(f"cannot run to {what!r}: one of {', '.join(sorted(STOPS))}")
        steps = self.model.steps
        if not self.model.is_stepping or steps is None:
            return None
        position = steps.next_where(self.model.step_position, what)
        if position is None:
            self.model.message.emit(f"Stepper: {STOP_WORDS[what]}.")
            return None
        self.model.set_step_position(position)
        return position

    # -- what is shown ----------------------------------------------------------------------
    def step_view(self) -> StepView | None:
        """The current step as plain values (None: stepper off or no steps)."""
        steps, position = self.model.steps, self.model.step_position
        if steps is None or position is None or len(steps) == 0:
            return None
        key = (id(steps), position)
        if self._step_view_cache is not None and self._step_view_cache[0] == key:
            return self._step_view_cache[1]
        view = _step_view(steps, min(position, len(steps) - 1), self._steps_frame)
        self._step_view_cache = (key, view)
        return view

    def pair_bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(lo, hi)``, ``(3,) float64`` each: the world box around the pair under test (both
        nodes' tree boxes at the frame's poses); None with the stepper off."""
        view, frame = self.step_view(), self._steps_frame
        if view is None or frame is None or len(frame.trees) < 2:
            return None
        corners = []
        for body, node in ((0, view.node_a), (1, view.node_b)):
            tree = frame.trees[body]
            lo, hi = np.asarray(tree.bmin[node], np.float64), np.asarray(tree.bmax[node],
                                                                          np.float64)
            box = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                            for z in (lo[2], hi[2])])
            pose = frame.poses[body]
            matrix = pose.as_matrix() if hasattr(pose, "as_matrix") else np.asarray(pose)
            corners.append(box @ matrix[:3, :3].T + matrix[:3, 3])
        corners = np.concatenate(corners)
        return corners.min(axis=0), corners.max(axis=0)

    def step_on_screen(self, bounds=None) -> tuple | None:
        """``(position, lo, hi)`` of the stepper's pair (its world bounds as tuples), or None:
        what :meth:`frame_pair` framed, compared by the window before framing it again (a
        lesson step frames its pair, and the frame its settings ask for brings new steps of
        the same pair)."""
        bounds = self.pair_bounds() if bounds is None else bounds
        if bounds is None:
            return None
        lo, hi = bounds
        return (self.model.step_position, tuple(map(float, lo)), tuple(map(float, hi)))

    def _forget_framed_step(self, _view=None) -> None:
        self.framed_step = None

    def frame_new_pair(self) -> bool:
        """:meth:`frame_pair` unless this pair, where it stands, was the last one framed: a
        lesson step frames its pair, and the window, following the stepper, framed the same
        pair a second time (two camera moves, two renders)."""
        if self.framed_step is not None and self.step_on_screen() == self.framed_step:
            return False
        return self.frame_pair()

    def frame_pair(self) -> bool:
        """Move the camera to the pair under test, looking from where it looks now, the pair
        spanning :data:`PAIR_FILL` of the view's height (Stepper > Frame the pair; lessons
        call it after a stepper step). False (and nothing moves) with the stepper off."""
        bounds = self.pair_bounds()
        if bounds is None:
            return False
        camera = self.model.read_camera()
        view = camera_on_box(*bounds, camera)
        self.model.restore_camera(view)
        self.framed_step = self.step_on_screen(bounds)
        return True

    def level_contact_ids(self, frame, level: int | None) -> np.ndarray | None:
        """Step mode (reveal one level at a time): rows of ``frame``'s contacts whose leaf
        pairs the traversal reached by the end of ``level``, as the stepper finds them (all
        156 of Two spheres showed at level 0); None: draw them all (every level shown, or
        a frame without a pair traversal to walk).

        The frame's steps are made once per frame (inline: vectorised over the trace)."""
        if level is None or frame is None:
            return None
        cached = self._level_steps
        if cached is None or cached[0] is not frame:
            try:
                steps = traversal_steps(frame, (None, None))
            except ValueError:
                steps = None
            self._level_steps = cached = (frame, steps)
        steps = cached[1]
        if steps is None or len(steps) == 0:
            return None
        starts = steps.level_start
        last = int(starts[min(int(level) + 1, starts.shape[0] - 1)]) - 1
        return steps.contacts_found(last)

    @staticmethod
    def traversal_pseudocode() -> tuple[str, list[str]]:
        """The tandem traversal's pseudo-code: its heading and its numbered lines."""
        return pseudocode.TRAVERSAL.title, traversal_lines()


def _separation_view(steps, step):
    """The core's :class:`~core.lab.separation.Separation` (plain arrays and numbers, drawn as
    it is), or None when the kind cannot say."""
    try:
        return separation(steps, step)  # the steps hold the query's inputs: no refit
    except ValueError:
        return None


def camera_on_box(lo: np.ndarray, hi: np.ndarray, camera: CameraView | None) -> CameraView:
    """A camera looking at the box ``lo``-``hi`` ((3,) float64 each) from ``camera``'s
    direction and up (the default view's without one), at the distance where the box's
    bounding sphere spans :data:`PAIR_FILL` of the view's height."""
    lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
    centre = 0.5 * (lo + hi)
    radius = max(0.5 * float(np.linalg.norm(hi - lo)), 1e-9)
    if camera is None:
        direction, up, angle = np.array([1.0, 0.8, 1.7]), (0.0, 1.0, 0.0), 30.0
    else:
        direction = np.asarray(camera.position, np.float64) - np.asarray(camera.focal_point,
                                                                         np.float64)
        up, angle = camera.view_up, float(camera.view_angle)
    norm = float(np.linalg.norm(direction))
    direction = direction / norm if norm > 0 else np.array([0.0, 0.0, 1.0])
    distance = radius / (PAIR_FILL * np.tan(np.radians(angle) / 2))
    position = centre + distance * direction
    scale = radius / PAIR_FILL  # a parallel view shows half its height
    return CameraView(tuple(float(x) for x in position), tuple(float(x) for x in centre),
                      tuple(float(x) for x in up), angle,
                      bool(camera is not None and camera.is_parallel), float(scale))


def _step_contacts(steps, position: int, frame):
    """``(pairs (c, 2) int64, kinds (c,) int8)``: the contacts this step found, in the frame's
    order, with their kinds (``result.kinds``)."""
    found = steps.contacts_found(position)
    before = steps.contacts_found(position - 1)
    rows = found[~np.isin(found, before)]
    result = frame.result if frame is not None else None  # a step view without its frame
    if result is None or rows.shape[0] == 0:
        return np.empty((0, 2), np.int64), np.empty(0, np.int8)
    return (np.asarray(result.pairs, np.int64)[rows].reshape(-1, 2),
            np.asarray(result.kinds, np.int8)[rows])


def _step_view(steps, position: int, frame=None) -> StepView:
    step = steps[position]
    decided_a, decided_b, decided_outcome = steps.decided(position)
    # The faint history: only the pairs under the current pair's ancestor a few levels up.
    history_root, rows = steps.subtree_before(position, HISTORY_LEVELS_UP)
    n_history_left = int(decided_a.shape[0] - rows.shape[0])
    decided_a, decided_b = decided_a[rows], decided_b[rows]
    decided_outcome = decided_outcome[rows]
    root = steps[history_root]
    contact_pairs, contact_kinds = _step_contacts(steps, position, frame)
    if contact_pairs.shape[0] != np.asarray(step.contact_pairs).reshape(-1, 2).shape[0]:
        contact_pairs, contact_kinds = np.asarray(step.contact_pairs), np.zeros(
            len(step.contact_pairs), np.int8)  # no frame given: kinds unknown
    counters = step.counters
    kind = steps.kind
    code = _CODES[step.outcome]
    try:
        test = pseudocode.overlap_listing(kind)
        test_title, test_lines = test.title, test.numbered()
        test_line = pseudocode.test_line_for(kind, step) - 1  # the listing counts from 1
    except ValueError as exc:  # a kind without pseudo-code: say so instead
        test_title, test_lines, test_line = str(exc), [], -1
    return StepView(
        position=position, n_steps=len(steps), level=step.level, n_levels=steps.n_levels,
        node_a=step.node_a, node_b=step.node_b, outcome=code, test_words=step.test_words,
        split_words=step.split_words, children=tuple(step.children),
        triangle_pairs=np.asarray(step.triangle_pairs), contact_pairs=contact_pairs,
        contact_kinds=contact_kinds,
        counters={name: int(getattr(counters, name)) for name in (
            "n_bv_tests", "n_bv_overlaps", "n_leaf_pairs", "n_tri_tests", "n_contacts")},
        queue_length=int(step.queue_length), waiting=steps.waiting(position, WAITING_LISTED),
        decided_a=np.asarray(decided_a), decided_b=np.asarray(decided_b),
        decided_outcome=np.asarray(decided_outcome),
        history_root=(int(root.level), int(root.node_a), int(root.node_b)),
        n_history_left=n_history_left,
        contact_ids=steps.contacts_found(position),
        separation=_separation_view(steps, step) if code == CODE_CULLED else None,
        noun=kind.noun, noun_plural=kind.noun_plural,
        traversal_title=pseudocode.TRAVERSAL.title,
        traversal_lines=traversal_lines(),
        traversal_line=pseudocode.line_for(step) - 1,
        test_title=test_title, test_lines=test_lines, test_line=test_line,
    )


def traversal_lines() -> list[str]:
    """The tandem traversal's pseudo-code, numbered lines (shown even with the stepper off)."""
    return pseudocode.TRAVERSAL.numbered()
