"""Plain viewer state and the Qt signals that announce its changes.

Widgets write the model; the controller and the render layer listen (napari ``_qt`` /
``_vispy`` split). The model holds no VTK object and calls nothing in the core: meshes are
opaque ``TriMesh`` values and poses are plain ``(4, 4)`` matrices.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace

import numpy as np
from PyQt6.QtCore import QObject, pyqtSignal

from viewer.side_results import MAX_KEPT_SIDE_RESULTS
from viewer.timing import TimingHistory

DEFAULT_LEVEL = 5
"""Level shown when a scene opens: deep enough that the overlapping boxes hug the contact
region, shallow enough to count the boxes by eye."""


class Mode(enum.Enum):
    """What a left-drag on the canvas does."""

    CAMERA = "camera"
    MOVE = "move"
    SCULPT = "sculpt"


class UpdateChoice(enum.Enum):
    """Viewer-side mirror of ``core.pipeline.UpdateMode`` (widgets never import the core)."""

    REFIT = "refit"
    REBUILD = "rebuild"
    AUTO = "auto"


@dataclass
class Body:
    """One mesh in the scene.

    Attributes
    ----------
    key : str
        Stable id; the pipeline caches trees per key.
    name : str
    rest : TriMesh
        Current rest mesh (after sculpting), local coordinates.
    original : TriMesh
        Rest mesh as loaded, for "reset to rest pose".
    pose : (4, 4) float64
        World pose, ``x_world = R x + t``.
    color : str
    is_visible : bool
    deformer : str or None
        Key in ``core.deform.DEFORMERS``.
    deformer_params : dict
        Field values of that deformer.
    notes : list of str
        What loading found about the mesh (degenerate triangles kept, open boundaries,
        polygons split into triangles), one sentence each; shown where the body is listed.
    """

    key: str
    name: str
    rest: object
    original: object
    pose: np.ndarray
    color: str
    is_visible: bool = True
    deformer: str | None = None
    deformer_params: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)


@dataclass(frozen=True)
class Display:
    """Which overlays are drawn.

    Attributes
    ----------
    show_tree_a, show_tree_b : bool
        Boxes of each tree at the chosen depth.
    show_parents : bool
        Faint boxes of the level above.
    show_overlap : bool
        Pairs found overlapping at the chosen traversal level.
    show_culled : bool
        Pairs tested and culled at that level (faint).
    show_contacts : bool
        Contacting triangles (red) and their intersection segments.
    mesh_opacity : float
        Opacity of the meshes, so that boxes inside them stay visible.
    box_cap : int
        Most boxes drawn per overlay; above it the canvas says so.
    is_full_resolution : bool
        Draw big meshes with every triangle instead of a decimated copy (slower to render).
    heat_map : str
        ``"off"``, ``"work"`` (triangles by volume + triangle tests), ``"visits"`` (boxes by
        volume tests) or ``"sah"`` (boxes by their share of the SAH cost).
    heat_log : bool
        Log colour scale for the heat map (counts that span decades).
    show_ghost : bool
        Draw the volumes of a freshly built tree beside the refitted ones.
    """

    show_tree_a: bool = True
    show_tree_b: bool = True
    show_parents: bool = False
    show_overlap: bool = True
    show_culled: bool = False
    show_contacts: bool = True
    mesh_opacity: float = 0.55
    box_cap: int = 20_000
    is_full_resolution: bool = False
    heat_map: str = "off"
    heat_log: bool = False
    show_ghost: bool = False


@dataclass(frozen=True)
class PipelineChoice:
    """What the user chose for the per-frame pipeline (mirrors ``PipelineSettings``).

    Attributes
    ----------
    update : UpdateChoice
    drift_threshold : float
        AUTO rebuilds when the SAH drift passes this value.
    split : str
        Name of a ``core.bvh.SplitRule`` member.
    descend : str
        Name of a ``core.collide.DescendRule`` member.
    bv : str
        Key of ``core.bv.BV_KINDS``: the bounding volume the traversal tests and the overlays
        draw.
    partition : str
        ``"none"`` or a key of ``core.partition.PARTITION_KINDS``: a spatial partition run
        on the same frame, its cells and planes drawn.
    obb_fit : str
        Name of a ``core.bv.ObbFit`` member: how the ``"obb"`` kind chooses its boxes' axes
        (the other kinds ignore it).
    margin : float
        Near-contact distance ``D >= 0``: pairs that do not touch but are at most ``D`` apart
        are reported with their distance; 0 means exact contact only.
    distance : bool
        Measure the minimum distance of A and B when they do not touch (beside the frame, on
        its own lane: :mod:`viewer.side_results`).
    containment : bool
        Test whether one of A and B is inside the other when they do not touch (beside the
        frame, like ``distance``).
    self_collision : bool
        Test every body against itself (inside the frame: a one-mesh scene's only result).
        The one place this choice is held; ``ViewerModel.is_self_collision`` reads it.
    """

    update: UpdateChoice = UpdateChoice.REFIT
    drift_threshold: float = 0.25
    split: str = "MIDPOINT"
    descend: str = "LARGER_VOLUME"
    bv: str = "aabb"
    partition: str = "none"
    obb_fit: str = "SURFACE"
    margin: float = 0.0
    distance: bool = True
    containment: bool = True
    self_collision: bool = False


@dataclass(frozen=True)
class CameraView:
    """Where the 3-D view's camera is (kept in the model so that a session can save it).

    Attributes
    ----------
    position, focal_point, view_up : (3,) tuple of float
    view_angle : float
        Vertical view angle in degrees (perspective projection).
    is_parallel : bool
        Parallel projection instead of perspective.
    parallel_scale : float
        Half the view's height in world units (parallel projection).
    """

    position: tuple
    focal_point: tuple
    view_up: tuple
    view_angle: float = 30.0
    is_parallel: bool = False
    parallel_scale: float = 1.0


@dataclass(frozen=True)
class ViolationRow:
    """One broken invariant, in plain words for the Quality panel and the canvas.

    Attributes
    ----------
    body : int
        0 (A) or 1 (B).
    node : int
        Node id in the tree as the app holds it (-1: the whole tree).
    shown_id : int
        The id people see: the FILE'S node id for a tree read from a file, else ``node``.
    what : str
        What is wrong, e.g. "child sticks out of its parent".
    size : float
        How far outside, mesh units (0 for topology).
    text : str
        One line naming the node and the problem.
    part : str
        What sticks out, as the check names it: ``"child 75"`` (the file's id for a tree
        read from a file) or ``"triangle 1234"``; "" when the violation names neither.
    axis : str
        The axis and side it sticks out the most along, ``"+x"`` ... ``"-z"``; "" when there
        is none (topology, or a box that is not a number).
    """

    body: int
    node: int
    shown_id: int
    what: str
    size: float
    text: str
    part: str = ""
    axis: str = ""


@dataclass(frozen=True)
class TreeCheck:
    """The last invariant check of the shown trees.

    Attributes
    ----------
    violations : tuple of ViolationRow
        Largest first.
    summaries : tuple of str
        One line per checked tree, e.g. "tree of A: 3 violations in 2 nodes; largest 0.01".
    frame_index : int
        Index of the frame whose trees were checked.
    is_every_refit : bool
        The check came with the frame (the "after every refit" setting), not on demand.
    bad_nodes : dict[int, (j,) int]
        Per body, every node with a violation, listed or not (drawn in red).
    n_found : dict[int, int]
        Per body, the violations found, listed or not (the check lists the largest 1,000);
        empty: as many as listed.
    caption : str
        Which trees were checked, in words: "frame 37, A: tree from mine.json, B: BVH Lab's
        AABB tree (midpoint split)", or for a tree checked as its file was read, "tree from
        mine.json as read, rest pose".
    """

    violations: tuple = ()
    summaries: tuple = ()
    frame_index: int = -1
    is_every_refit: bool = False
    bad_nodes: dict = field(default_factory=dict)
    n_found: dict = field(default_factory=dict)
    caption: str = ""

    def counts(self) -> dict[int, int]:
        """Per body with a violation, how many were found (the count the summaries give)."""
        counts: dict[int, int] = {}
        for v in self.violations:
            counts[v.body] = counts.get(v.body, 0) + 1
        for body, n in self.n_found.items():
            if n:
                counts[body] = max(int(n), counts.get(body, 0))
        return counts

    def status(self) -> str:
        """The status-bar line: "tree of A: 3 violations — see the Quality panel" (or the
        summaries when every tree is fine). It counts every violation found, as the
        panel's summaries do, not only the listed ones."""
        if not self.violations:
            return "; ".join(self.summaries)
        counts = self.counts()
        parts = [f"tree of {'AB'[b]}: {n:,} violation{'s' if n != 1 else ''}"
                 for b, n in sorted(counts.items())]
        return "; ".join(parts) + " — see the Quality panel (Invariants)"

    def nodes(self, body: int):
        """``(j,) int64`` distinct node ids of body ``body`` with a violation."""
        if body in self.bad_nodes:
            return np.asarray(self.bad_nodes[body], dtype=np.int64)
        ids = sorted({v.node for v in self.violations if v.body == body and v.node >= 0})
        return np.asarray(ids, dtype=np.int64)


@dataclass(frozen=True)
class FrameFailure:
    """A live frame that failed or was cancelled: the view still shows an older frame.

    Attributes
    ----------
    index : int
        The number the failed frame would have had.
    reason : str
        One line: the error's class and message ("" when cancelled).
    is_cancelled : bool
        Stopped on request rather than failed.
    """

    index: int
    reason: str = ""
    is_cancelled: bool = False

    def text(self, shown) -> str:
        """``"frame 38 failed: <reason> - showing frame 37"``; ``shown`` is the frame on
        screen (None: none)."""
        what = "was cancelled" if self.is_cancelled else f"failed: {self.reason}"
        now = f"showing frame {shown.index}" if shown is not None else "no frame to show"
        return f"frame {self.index} {what} - {now}"


@dataclass(frozen=True)
class AnalysisCost:
    """The last measured cost of one optional analysis, as the Pipeline dock shows it.

    Attributes
    ----------
    ms : float
        Milliseconds it took.
    frame_index : int or None
        The frame it was measured on (None: not a frame's).
    """

    ms: float
    frame_index: int | None = None

    def text(self) -> str:
        """``"1,588 ms (frame 37)"``."""
        ms = f"{self.ms:,.0f} ms" if self.ms >= 10 else f"{self.ms:.1f} ms"
        return ms if self.frame_index is None else f"{ms} (frame {self.frame_index})"


@dataclass(frozen=True)
class ViewTimings:
    """Seconds spent in the viewer for the last frame: overlay update and render."""

    overlay: float = 0.0
    render: float = 0.0


@dataclass(frozen=True)
class KernelStatus:
    """The background compile of the kernels on a first start, as the status bar shows it.

    Attributes
    ----------
    n_done, n_steps : int
        Warm-up steps compiled, of all (``core.warmup``); both 0 when nothing compiles.
    keys_done : frozenset of str
        The steps compiled (``"frame"``, ``"bv-obb"``, ``"partition-grid"``, ...).
    last_words : str
        What the last finished step compiled, for people.
    is_compiling : bool
        The compile runs now; kernels not compiled yet run as Python (correct, slower).
    seconds : float
        Time since the compile started, or what it took once finished.
    error : str
        Why the background compile stopped, "" when it did not fail.
    """

    n_done: int = 0
    n_steps: int = 0
    keys_done: frozenset = frozenset()
    last_words: str = ""
    is_compiling: bool = False
    seconds: float = 0.0
    error: str = ""


@dataclass(frozen=True, eq=False)
class CostView:
    """The cost model T = Nu·Cu + Nbv·Cbv + Np·Cp of one frame, as the Stats dock shows it.

    Attributes
    ----------
    frame : core.pipeline.Frame
        The frame it describes.
    kind_label : str
        The bounding volume whose unit costs are used, in words ("boxes", "spheres", ...).
    prediction : core.costmodel.CostPrediction or None
        The terms and the predicted total; None while the unit costs are measured.
    measured_ms : float
        The frame's measured core time for the same work (ms).
    measured_note : str
        What the measured time leaves out (a tree build), "" when nothing.
    status : str
        What is going on ("measuring unit costs of spheres…") or why there is no
        prediction; "" when ``prediction`` is shown.
    """

    frame: object
    kind_label: str
    prediction: object
    measured_ms: float
    measured_note: str = ""
    status: str = ""


class ViewerModel(QObject):
    """The viewer's state. Setters emit a signal only when the value changes."""

    scene_changed = pyqtSignal()  # the list of bodies was replaced
    body_changed = pyqtSignal(int)  # pose, mesh, visibility, colour or deformer of one body
    selection_changed = pyqtSignal(int)  # -1 = none
    mode_changed = pyqtSignal(object)
    level_changed = pyqtSignal(object)  # int or None (= all levels)
    display_changed = pyqtSignal(object)
    pipeline_changed = pyqtSignal(object)
    frame_ready = pyqtSignal(object)  # core Frame
    frame_failed = pyqtSignal(object)  # FrameFailure, or None once a frame is shown again
    view_timings_changed = pyqtSignal(object)
    time_changed = pyqtSignal(float)
    playing_changed = pyqtSignal(bool)
    step_mode_changed = pyqtSignal(bool)
    brush_changed = pyqtSignal()
    inspect_changed = pyqtSignal(object)  # dict or None
    message = pyqtSignal(str)
    error = pyqtSignal(str, str)  # title, text
    scene_param_changed = pyqtSignal(float)
    loading_changed = pyqtSignal(str)  # progress text while files are read; "" when done
    recording_changed = pyqtSignal()  # frames were recorded, dropped, cleared or opened
    cursor_changed = pyqtSignal(object)  # int (a recorded frame shown) or None (live)
    playback_changed = pyqtSignal(int)  # +1 playing the recording forward, -1 back, 0 stopped
    job_progress = pyqtSignal(str, int, int)  # a background job's words, done, total
    job_finished = pyqtSignal(str)  # that job's words; the dialog closes
    steps_changed = pyqtSignal(object)  # the stepper's steps (opaque) or None
    step_position_changed = pyqtSignal(object)  # int, or None when the stepper is off
    # The camera lives in the canvas; a session reads it from the model. ``camera_wanted``
    # asks the canvas to write its camera into ``camera`` now (a direct, synchronous call on
    # the GUI thread); ``camera_restored`` asks it to move to a saved CameraView.
    camera_wanted = pyqtSignal()
    camera_restored = pyqtSignal(object)  # CameraView
    analysis_changed = pyqtSignal()  # a fresh tree (ghost) or a cross-check is ready
    node_selected = pyqtSignal(object)  # (body, node) or None: the node picked for inspection
    quality_changed = pyqtSignal(object)  # the shown tree's quality (opaque) or None
    quality_inputs_changed = pyqtSignal()  # the body or the cost constants of the quality
    quality_status_changed = pyqtSignal(str)  # what the quality job is doing, "" when idle
    validation_changed = pyqtSignal(object)  # TreeCheck or None
    tree_sources_changed = pyqtSignal()  # a body's tree was pinned from a file or unpinned
    # Experiments window and the Stats dock's cost model.
    experiment_started = pyqtSignal(str)  # registry key of the experiment now running
    experiment_progress = pyqtSignal(int, int, str)  # done, total, what is being measured
    experiment_finished = pyqtSignal(object, object)  # result (opaque) or None, error or None
    cost_model_changed = pyqtSignal(object)  # CostView or None
    kernels_changed = pyqtSignal(object)  # KernelStatus of the background compile
    side_changed = pyqtSignal(object)  # the newest SideResult (distance, inside test) or None
    analysis_costs_changed = pyqtSignal()  # an optional analysis was measured anew
    slow_frame_changed = pyqtSignal(str)  # why the shown frame was slow, "" when it was not

    def __init__(self, parent=None):
        super().__init__(parent)
        self.bodies: list[Body] = []
        self.scene_key: str | None = None
        self.scene_title: str = ""
        self.scene_description: str = ""
        self.scene_param = None  # scenes.SceneParam or None
        self.scene_param_value: float = 0.0
        self.selected: int = -1
        self.mode: Mode = Mode.CAMERA
        self.level: int | None = None
        self.display = Display()
        self.pipeline = PipelineChoice()
        self.frame = None
        # The last live frame that failed or was cancelled while ``frame`` stays on screen;
        # None once a live frame is delivered (or the scene changes).
        self.frame_failure: FrameFailure | None = None
        self.view_timings = ViewTimings()
        self.t: float = 0.0
        self.is_playing: bool = False
        self.is_step_mode: bool = False
        self.brush_radius: float = 0.15  # fraction of the body's longest side
        self.brush_strength: float = 1.0
        self.inspect: dict | None = None
        self.fps: float = 0.0
        self.loading: str = ""  # what is being read in the background, or ""
        self.timing_history = TimingHistory()  # phase times of the last second, for medians
        # The recording (a core ``Recording``, opaque here: the controller owns and fills it)
        # and the position shown from it. ``frame`` is what every view draws: the live frame
        # when ``cursor`` is None, else the recorded one, so the level slider, the Stats dock,
        # the inspector and the overlays follow the timeline with no change of theirs.
        self.recording = None
        self.cursor: int | None = None
        self.live_frame = None
        self.is_recording: bool = True  # append every live frame delivered
        self.playback: int = 0  # +1 / -1 while the recording plays, 0 when it does not
        self.playback_speed: float = 1.0
        self._live_history = self.timing_history
        # The traversal stepper: the position of the pair under test (None: stepper off), the
        # steps of ``frame`` (an opaque core object, computed by the controller), and why the
        # frame cannot be stepped ("" when it can).
        self.step_position: int | None = None
        self.steps = None
        self.steps_note: str = ""
        self.camera: CameraView | None = None  # as of the last camera_wanted
        # Tree inspection (Quality panel, outliner, validation): one node selection shared by
        # the panel, the outliner and the canvas; the quality of one body's tree (an opaque
        # core ``TreeQuality`` with the body and frame it belongs to); the last invariant
        # check; and which body's tree comes from a file.
        self.selected_node: tuple[int, int] | None = None
        self.quality_body: int = 0
        self.cost_constants: tuple[float, float] = (1.0, 1.0)  # C_t, C_i
        self.quality = None  # QualityResult or None
        self.quality_status: str = ""
        self.validation: TreeCheck | None = None
        self.validate_after_refit: bool = False
        self.tree_sources: dict[int, str] = {}  # body index -> "file foo.json, 2,047 nodes"
        # Experiments: the key running (None when idle) and the last finished result (an
        # opaque core ``ExperimentResult``), kept when a later run is cancelled or fails.
        self.experiment_running: str | None = None
        self.experiment_result = None
        # The cost model of the shown frame (Stats dock), or None before the first frame.
        self.cost_view: CostView | None = None
        # The background compile of the kernels (a first start), idle by default.
        self.kernels = KernelStatus()
        # The newest distance and inside test computed beside the frames of this scene
        # (viewer.side_results.SideResult), and the recent ones by frame number, so that a
        # recorded frame finds its own (at most side_results.MAX_KEPT_SIDE_RESULTS).
        self.side = None
        self.side_by_frame: dict[int, object] = {}
        # The last measured cost of each optional analysis ("distance", "containment",
        # "self", "heat", "ghost", "cross-check") for the Pipeline dock.
        self.analysis_costs: dict[str, AnalysisCost] = {}
        self.slow_frame: str = ""

    # -- choices held in the pipeline -------------------------------------------------------
    @property
    def is_self_collision(self) -> bool:
        """The scene tests its first body against itself: ``pipeline.self_collision``, the one
        place it is held (the Pipeline dock's check box writes it too)."""
        return self.pipeline.self_collision

    @is_self_collision.setter
    def is_self_collision(self, value: bool) -> None:
        # Set while a scene is replaced, which asks for its frame itself: no signal here.
        self.pipeline = replace(self.pipeline, self_collision=bool(value))

    # -- scene ------------------------------------------------------------------------------
    def set_scene(self, bodies: list[Body], key: str | None, title: str, description: str,
                  param=None, param_value: float | None = None) -> None:
        """Replace the bodies; every view of the old scene is cleared here, in one place.

        ``param_value`` is the scene parameter's value (default: ``param.default``); a
        restored session passes the value its bodies were saved with."""
        self.bodies = list(bodies)
        self.scene_key = key
        self.scene_title = title
        self.scene_description = description
        self.scene_param = param
        self.scene_param_value = (float(param_value) if param_value is not None else
                                  param.default if param is not None else 0.0)
        was_stepping = self.is_step_mode
        # Everything that describes the old scene's frame: a clicked box, a selected body,
        # step mode's position, the timings of its frames. Each is emitted below so that no
        # view keeps showing it (the inspector once kept "box 1948 of B" across scenes).
        self.selected = -1
        self.frame = None
        self.live_frame = None
        had_failure = self.frame_failure is not None
        self.frame_failure = None
        was_scrubbed = self.cursor is not None
        self.cursor = None
        self.timing_history = self._live_history
        self.inspect = None
        self.is_step_mode = False
        was_stepping_pairs = self.step_position is not None
        self.step_position = None
        self.steps = None
        self.steps_note = ""
        self.level = DEFAULT_LEVEL
        had_node = self.selected_node is not None
        self.selected_node = None
        self.quality = None
        self.validation = None
        self.tree_sources = {}
        had_side = self.side is not None
        self.side, self.side_by_frame = None, {}
        self.slow_frame = ""
        self.timing_history.clear()
        self.scene_changed.emit()
        if had_side:
            self.side_changed.emit(None)
        self.selection_changed.emit(-1)
        self.inspect_changed.emit(None)
        if was_stepping:
            self.step_mode_changed.emit(False)
        if was_stepping_pairs:
            self.steps_changed.emit(None)
            self.step_position_changed.emit(None)
        self.level_changed.emit(self.level)
        if was_scrubbed:
            self.cursor_changed.emit(None)
        if had_node:
            self.node_selected.emit(None)
        self.quality_changed.emit(None)
        self.validation_changed.emit(None)
        self.tree_sources_changed.emit()
        if had_failure:
            self.frame_failed.emit(None)
        self.frame_ready.emit(None)

    def add_body(self, body: Body) -> None:
        self.bodies.append(body)
        self.frame = None
        self.scene_changed.emit()

    def set_pose(self, index: int, pose: np.ndarray) -> None:
        self.bodies[index].pose = np.array(pose, dtype=np.float64)
        self.body_changed.emit(index)

    def set_rest(self, index: int, mesh) -> None:
        self.bodies[index].rest = mesh
        self.body_changed.emit(index)

    def set_visible(self, index: int, is_visible: bool) -> None:
        if self.bodies[index].is_visible != is_visible:
            self.bodies[index].is_visible = is_visible
            self.body_changed.emit(index)

    def set_color(self, index: int, color: str) -> None:
        self.bodies[index].color = color
        self.body_changed.emit(index)

    def set_deformer(self, index: int, name: str | None, params: dict | None = None) -> None:
        body = self.bodies[index]
        body.deformer = name
        body.deformer_params = dict(params or {})
        self.body_changed.emit(index)

    def set_scene_param_value(self, value: float) -> None:
        if value != self.scene_param_value:
            self.scene_param_value = float(value)
            self.scene_param_changed.emit(self.scene_param_value)

    # -- view -------------------------------------------------------------------------------
    def read_camera(self) -> CameraView | None:
        """The canvas's camera now (asked through ``camera_wanted``), or None without one."""
        self.camera_wanted.emit()
        return self.camera

    def restore_camera(self, view: CameraView) -> None:
        """Move the canvas's camera to ``view``."""
        self.camera = view
        self.camera_restored.emit(view)

    def set_selected(self, index: int) -> None:
        if index != self.selected:
            self.selected = index
            self.selection_changed.emit(index)

    def set_mode(self, mode: Mode) -> None:
        if mode is not self.mode:
            self.mode = mode
            self.mode_changed.emit(mode)

    def set_level(self, level: int | None) -> None:
        if level != self.level:
            self.level = level
            self.level_changed.emit(level)

    def set_display(self, **changes) -> None:
        new = replace(self.display, **changes)
        if new != self.display:
            self.display = new
            self.display_changed.emit(new)

    def set_pipeline(self, **changes) -> None:
        new = replace(self.pipeline, **changes)
        if new != self.pipeline:
            self.pipeline = new
            self.pipeline_changed.emit(new)

    def set_frame(self, frame, now: float | None = None) -> None:
        """A live frame was computed: show it, unless a recorded frame is shown (then it is
        kept for :meth:`set_cursor` ``(None)``). Its phase times join the running medians
        (``now``: the clock in seconds, default ``time.perf_counter()``)."""
        self.live_frame = frame
        had_failure = frame is not None and self.frame_failure is not None
        if frame is not None:
            self._live_history.add(frame.timings, now)
            self.frame_failure = None  # cleared before the views redraw for the new frame
        if self.cursor is None:
            self.frame = frame
            self.frame_ready.emit(frame)
        if had_failure:
            self.frame_failed.emit(None)

    def set_side(self, side) -> None:
        """The newest distance and inside test computed beside the frames
        (:class:`viewer.side_results.SideResult`, or None to forget them)."""
        self.side = side
        if side is None:
            self.side_by_frame = {}
        else:
            self.side_by_frame[side.frame_index] = side
            while len(self.side_by_frame) > MAX_KEPT_SIDE_RESULTS:
                del self.side_by_frame[next(iter(self.side_by_frame))]
        self.side_changed.emit(side)

    def replace_live_frame(self, frame) -> None:
        """The live frame again, with more of its results (its side results merged in): shown
        anew if it is on screen. Its phase times are not counted a second time."""
        is_shown = self.cursor is None and self.frame is self.live_frame
        old = self.live_frame.timings if self.live_frame is not None else {}
        self._live_history.add({k: v for k, v in frame.timings.items() if k not in old})
        self.live_frame = frame
        if is_shown:
            self.frame = frame
            self.frame_ready.emit(frame)

    def set_analysis_cost(self, key: str, ms: float, frame_index: int | None) -> None:
        """The last measured cost of the optional analysis ``key`` (Pipeline dock)."""
        self.analysis_costs[key] = AnalysisCost(float(ms), frame_index)
        self.analysis_costs_changed.emit()

    def set_slow_frame(self, words: str) -> None:
        """Why the shown frame took longer than the frame budget ("" when it did not)."""
        if words != self.slow_frame:
            self.slow_frame = words
            self.slow_frame_changed.emit(words)

    def set_frame_failure(self, failure: FrameFailure | None) -> None:
        """A live frame failed or was cancelled (None: the mark is taken away); the frame
        shown stays, and every view says it is an older one."""
        self.frame_failure = failure
        self.frame_failed.emit(failure)

    # -- tree inspection --------------------------------------------------------------------
    def select_node(self, body: int | None, node: int | None = None) -> None:
        """Select node ``node`` of body ``body``'s tree (0 = A, 1 = B); None clears it."""
        selection = None if body is None or node is None else (int(body), int(node))
        if selection != self.selected_node:
            self.selected_node = selection
            self.node_selected.emit(selection)

    def set_quality_body(self, body: int) -> None:
        if body != self.quality_body:
            self.quality_body = int(body)
            self.quality_inputs_changed.emit()

    def set_cost_constants(self, traversal: float, intersection: float) -> None:
        """The SAH's C_t (one volume test) and C_i (one triangle test)."""
        constants = (float(traversal), float(intersection))
        if constants != self.cost_constants:
            self.cost_constants = constants
            self.quality_inputs_changed.emit()

    def set_quality(self, quality) -> None:
        self.quality = quality
        self.quality_changed.emit(quality)

    def set_quality_status(self, text: str) -> None:
        if text != self.quality_status:
            self.quality_status = text
            self.quality_status_changed.emit(text)

    def set_validation(self, check: TreeCheck | None) -> None:
        self.validation = check
        self.validation_changed.emit(check)

    def set_tree_source(self, body: int, source: str | None) -> None:
        """Body ``body``'s tree is read from a file (``source`` says which) or, with None,
        built by BVH Lab again."""
        if source is None:
            self.tree_sources.pop(int(body), None)
        else:
            self.tree_sources[int(body)] = source
        self.tree_sources_changed.emit()

    # -- experiments and cost model ---------------------------------------------------------
    def set_experiment_running(self, name: str | None) -> None:
        """``name``: the experiment that started; None: the run ended (see
        :meth:`finish_experiment`)."""
        self.experiment_running = name
        if name is not None:
            self.experiment_started.emit(name)

    def finish_experiment(self, result, error) -> None:
        """A run ended: ``result`` (kept as the last result) or ``error`` (the previous
        result stays; a cancelled run has a ``Cancelled`` error)."""
        self.experiment_running = None
        if result is not None:
            self.experiment_result = result
        self.experiment_finished.emit(result, error)

    def set_cost_view(self, view: CostView | None) -> None:
        self.cost_view = view
        self.cost_model_changed.emit(view)

    def set_kernels(self, status: KernelStatus) -> None:
        self.kernels = status
        self.kernels_changed.emit(status)

    # -- recording --------------------------------------------------------------------------
    def set_recording(self, recording) -> None:
        """Hold ``recording`` (a core ``Recording`` or None) and show the live frame."""
        self.recording = recording
        self.set_cursor(None)
        self.recording_changed.emit()

    def set_cursor(self, position: int | None) -> None:
        """Show recorded frame ``position`` (0 = the oldest held) or, with None, the live one.

        The Stats dock's phase times then are the recorded frame's own: a history of that
        one frame replaces the live medians until the view goes live again.
        """
        if position is None:
            if self.cursor is None:
                return
            self.cursor = None
            self.frame = self.live_frame
            self.timing_history = self._live_history
        else:
            n = len(self.recording) if self.recording is not None else 0
            if not 0 <= position < n:
                raise IndexError(f"recorded frame {position}: the recording holds {n} frames")
            if position == self.cursor:
                return
            self.cursor = int(position)
            self.frame = self.recording[self.cursor]
            self.timing_history = TimingHistory()
            self.timing_history.add(self.frame.timings)
        self.cursor_changed.emit(self.cursor)
        self.frame_ready.emit(self.frame)

    def set_playback(self, direction: int) -> None:
        """+1 / -1: the recording plays forward / backward; 0: it stops."""
        if direction != self.playback:
            self.playback = direction
            self.playback_changed.emit(direction)

    def set_playback_speed(self, speed: float) -> None:
        self.playback_speed = float(speed)

    def set_view_timings(self, timings: ViewTimings, now: float | None = None) -> None:
        self.view_timings = timings
        self.timing_history.add({"overlay": timings.overlay, "render": timings.render}, now)
        self.view_timings_changed.emit(timings)

    def set_time(self, t: float) -> None:
        self.t = float(t)
        self.time_changed.emit(self.t)

    def set_playing(self, is_playing: bool) -> None:
        if is_playing != self.is_playing:
            self.is_playing = is_playing
            self.playing_changed.emit(is_playing)

    def set_step_mode(self, is_step_mode: bool) -> None:
        if is_step_mode != self.is_step_mode:
            self.is_step_mode = is_step_mode
            self.step_mode_changed.emit(is_step_mode)

    def set_steps(self, steps, note: str = "") -> None:
        """The steps of the shown frame's traversal (None with ``note``: why there are none,
        one sentence; None and "": not computed yet)."""
        self.steps = steps
        self.steps_note = note
        self.steps_changed.emit(steps)

    def set_step_position(self, position: int | None) -> None:
        """The pair under test (None turns the stepper off)."""
        if position != self.step_position:
            self.step_position = position
            self.step_position_changed.emit(position)

    @property
    def is_stepping(self) -> bool:
        """Whether the traversal stepper is on."""
        return self.step_position is not None

    def set_brush(self, radius: float | None = None, strength: float | None = None) -> None:
        if radius is not None:
            self.brush_radius = float(radius)
        if strength is not None:
            self.brush_strength = float(strength)
        self.brush_changed.emit()

    def set_loading(self, text: str) -> None:
        self.loading = text
        self.loading_changed.emit(text)

    def set_inspect(self, info: dict | None) -> None:
        self.inspect = info
        self.inspect_changed.emit(info)

    def shown_result(self):
        """The collision result on display: bodies 0 and 1, or with one body and
        self-collision on, the body against itself (same rule as
        ``viewer.render.overlays.shown_result``); None without a frame."""
        frame = self.frame
        if frame is None:
            return None
        if frame.result is not None:
            return frame.result
        self_results = getattr(frame, "self_results", None)
        return self_results[0] if self_results else None

    def n_levels(self) -> int:
        """Levels of the last frame's traversal trace (0 when there is none)."""
        result = self.shown_result()
        if result is None or result.trace is None:
            return 0
        return int(result.trace.n_levels)
