"""The main window: canvas in the centre, docks around it, menus, toolbar and status bar."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from PyQt6.QtCore import QSettings, Qt, QTimer, pyqtSignal
from PyQt6.QtGui import QAction, QActionGroup, QKeySequence
from PyQt6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressDialog,
    QSpinBox,
    QTabBar,
    QToolBar,
)

from viewer.choices import bv_choices, obb_fit_choices, partition_choices, split_choices
from viewer.control.error_log import ErrorLog
from viewer.control.files import MAX_TRIANGLES, WARN_TRIANGLES
from viewer.controller import Controller
from viewer.model import Mode, UpdateChoice, ViewTimings
from viewer.qt.canvas import Canvas
from viewer.qt.docks import make_docks
from viewer.qt.error_guard import error_log_dialog
from viewer.qt.experiments_menu import ExperimentsMenu
from viewer.qt.export_menu import ExportMenu
from viewer.qt.interaction import CanvasInteraction
from viewer.qt.kernel_status import KernelStatusBar
from viewer.qt.lecture import KEYS_LESSON_DESK, LECTURE_KEY, LectureMode
from viewer.qt.lesson_menu import LessonMenu
from viewer.qt.panels.levels import GHOST_KEY, HEAT_KEY, level_text, tree_depth_text
from viewer.qt.panels.stepper import STEP_BUTTONS, TOGGLE_KEY, position_text
from viewer.qt.session_menu import SessionMenu
from viewer.qt.timeline import TimelinePanel
from viewer.qt.tree_menu import TreeTools
from viewer.render import SceneRenderer, inspect_node
from viewer.render.lecture import figure_image
from viewer.render.scene import set_default_view
from viewer.scenes import DEFAULT_SCENE, SCENES
from viewer.side_results import shown_side
from viewer.timing import SHORT_WORDS, last_and_median, shown_phases

DRIFT_KEY = "Ctrl+Shift+D"
"""Recording > Drift and frame time…"""

CROSSCHECK_KEY = "Ctrl+Shift+X"
"""View > Cross-check this frame with python-fcl…"""

COLD_START_DELAY_MS = 700
"""Show the "preparing kernels" dialog only if the first frame takes longer than this (a warm
numba cache gives the first two-sphere frame in well under a second)."""

DEFAULT_DOCK_ORDER = ("levels_dock", "scene_dock", "deform_dock", "pipeline_dock", "stats_dock",
                      "stepper_dock", "pseudocode_dock", "quality_dock", "outliner_dock",
                      "experiments_dock")
"""The docks of the default layout, one tab each in a single column on the right, in tab
order; the first is raised. One column of tabs leaves the 3-D view about two thirds of a
1280 px wide screen (two columns left it 540 px)."""

DOCK_WIDTH_PX = 400
"""Default width of the dock column (logical pixels): the widest panel (the Pipeline dock's
volume choice) fits without clipping, and at 1280x800 the canvas keeps about 860 px."""

MIN_CANVAS_SHARE = 0.6
"""A remembered layout that leaves the canvas less than this share of the window width is
not restored: the default layout is used instead."""

LAYOUT_VERSION = 5
"""Version of the saved dock layout (``QMainWindow.saveState``); a state saved by an older
layout (two dock columns, no timeline under the canvas, no Quality and Outliner docks, or no
Experiments dock) is ignored."""

RECORDING_FILTER = "BVH Lab recordings (*.bvhrec);;All files (*)"

DEFAULT_RECORDING_MB = 512.0
"""Default memory cap of the recording (MB); the Memory limit dialog changes it."""

DEFAULT_RECORDING_FRAMES = 3000
"""Default frame cap of the recording: 100 s at 30 frames a second."""

DEFAULT_WINDOW_SIZE = (1500, 950)
"""Default window size on a large screen; smaller screens get their available size."""

WINDOW_FRAME_PX = 40
"""Height a window manager's title bar and borders add around the window (Qt does not know
it before the window is shown); kept free on a screen smaller than the default size."""


def default_window_size(screen) -> tuple[int, int]:
    """``(width, height)`` of a new window: :data:`DEFAULT_WINDOW_SIZE` or, on a smaller
    screen, its available size less the window frame (a 1280x800 screen: 1280x760)."""
    width, height = DEFAULT_WINDOW_SIZE
    if screen is None:
        return width, height
    available = screen.availableGeometry()
    return (min(width, available.width()),
            min(height, available.height() - WINDOW_FRAME_PX))


STEP_MESH_OPACITY = 0.25
"""Most mesh opacity while the traversal stepper is on (the display's own comes back when it
is turned off)."""

MESH_FILTER = "Meshes (*.obj *.stl *.ply *.off *.vtk *.vtp *.glb *.gltf);;All files (*)"

HELP_TEXT = """<h3>How to read this view</h3>
<p>Two meshes, <b>A</b> (blue) and <b>B</b> (green), each carry a tree of axis-aligned
boxes (or of the bounding volume chosen in the Pipeline dock). To find where they
touch, the traversal starts with the two root boxes and, whenever two boxes overlap, splits
one of them and tests the children: that is one <i>level</i>.</p>
<ul>
<li><b>Level slider</b>: a <i>traversal level</i> is one round of pair tests (level 0
tests the two roots). At level <i>d</i> the view shows, in <b>light orange</b>, both
volumes of every pair the traversal found overlapping at that level, and the volumes of each
tree at <i>tree depth</i> <i>d</i> (dark blue for A, dark green for B). The two differ: with
the larger-volume rule a box at depth 5 may be tested at levels 9 to 11. Turn on <i>culled
pairs</i> to see, in grey, the pairs tested and rejected there. The last position,
<i>all</i>, shows every level at once.</li>
<li>Filled triangles are the triangles of A and B that really meet: <b>vermillion red</b>
where they cross, <b>yellow</b> where they only touch (a corner or an edge on the other
surface), <b>purple</b> where they lie on each other in one plane. The <b>black</b> lines
are where they meet. With no contact, the Stats dock and the canvas say whether one mesh is
inside the other, or that this is undefined because a mesh is open, and an <b>orange</b>
line joins the two closest points.</li>
<li>The <i>self-collision</i> scenes test one mesh against itself: the orange pairs are two
boxes of the same tree.</li>
<li><b>Step mode</b> pauses and walks through the levels one at a time with a sentence each.</li>
<li>The <b>Stepper</b> dock (Ctrl+T, or Home) walks this frame's traversal one pair test at a
time, in the engine's order: <b>Right</b>/<b>Left</b> one test forward/back, <b>O</b> the next
overlap, <b>P</b> the next pair of leaves, <b>T</b> the next contact, <b>E</b> the end of the
level, <b>Home</b> back to the root pair. The pair under test is drawn bold (A's volume dark
blue, B's dark green), the pairs decided before it faint (grey culled, orange split, pink
leaf pairs). For a culled pair a cyan arrow is the separating axis, the thick blue and green
segments on it are the two volumes' extents along it and the wine-red segment is the gap
between them, labelled with the test's name. The <b>Pseudo-code</b> dock marks the line being
executed (▶, yellow).</li>
<li><b>Click</b> a mesh in Camera mode to inspect the volume under the cursor: its id, its
tree depth, triangle count, and its pair tests at every traversal level where it was tested,
each culled one with the test that separated them (an axis of A or B, an edge-edge axis, a
slab, a centre distance). The clicked volume and its partners at the shown level are framed
in <b>cyan</b>; click a level in the list to show it. <b>Esc</b> clears the selection.</li>
<li><b>Move</b> mode (M): drag a mesh to slide it, right-drag or Ctrl-drag to turn it, arrow
keys to nudge. Moving is a pose change: the trees are not rebuilt.</li>
<li><b>Sculpt</b> mode (S): drag on a surface to pull it; Ctrl+Z undoes a stroke.</li>
<li>Nothing is lost: <b>File &gt; Export mesh</b> (Ctrl+E) writes a body as it is drawn
(deformed, sculpted) to OBJ, PLY or STL; <b>Save session</b> (Ctrl+Alt+S) and <b>Open
session</b> (Ctrl+Alt+O) keep the whole scene with its choices and camera. The session is
also saved a few seconds after every change, and after a crash the next start offers it
back.</li>
<li>The <b>Pipeline</b> dock chooses the bounding volume (boxes, oriented boxes, spheres,
k-DOPs, capsules, rounded rectangles), how oriented boxes are fitted, the split rule and a
spatial partition; the legend and the inspector name the chosen volume.</li>
<li>The <b>timeline</b> under the view records every frame. Drag its slider (or
<b>Shift+Left</b> / <b>Shift+Right</b>) to show a recorded frame: the overlays, the level
slider, the Stats dock and the inspector then show that frame. The markers are events
(▼ first contact, ◆ most contacts, ■ tree rebuilt for drift, ● body moved, ▲ body
sculpted, ✚ settings changed); <b>Ctrl+Shift+Left/Right</b> jump to the previous or next
one. <b>Space</b> plays the recording while a recorded frame is shown, <b>Shift+Space</b>
plays it backwards, and
<b>L</b> (or <i>Live</i>) goes back to the live scene. The Recording menu saves and opens
recordings and replays one with another bounding volume, split rule, update or descend rule.
</li>
<li>The <b>Tree</b> menu debugs a hierarchy. The <b>Quality</b> panel (Ctrl+Shift+Q) measures
one tree in the chosen volume: SAH cost with its constants C<sub>t</sub> and C<sub>i</sub>,
EPO, sibling overlap, depth and leaf-size histograms, and lists the worst nodes by each
measure; the <b>Outliner</b> (Ctrl+Shift+U) shows each tree node by node with its partners in
this frame. A row clicked there, or a volume clicked on the canvas, is the selected node:
drawn thick in <b>violet</b> with its triangles tinted. <i>Check tree invariants</i>
(Ctrl+Shift+I) lists every node whose box does not enclose its children or triangles and
draws it in <b>dark red</b>. A tree built by another engine is read with <i>Open tree file
for body A/B</i> (JSON or NPZ) and used for the query until <i>Use BVH Lab's own tree
again</i>; <i>Save tree</i> writes ours in the same format.</li>
<li><b>Lecture mode</b> (F11) shows the view alone, full screen, with large text and a
caption; <b>Right</b>/<b>Left</b> step, <b>Space</b> plays, <b>Esc</b> leaves. The
<b>Lessons</b> menu plays built-in lessons step by step (PageDown, PageUp) and saves the
current state as a step of your own lesson file (Ctrl+Alt+L).</li>
<li>The <b>Stats</b> dock counts the work: volume tests N<sub>bv</sub> (pairs of bounding
volumes tested), triangle tests N<sub>p</sub>, and the time of each phase; its cost model
T = N<sub>u</sub>·C<sub>u</sub> + N<sub>bv</sub>·C<sub>bv</sub> + N<sub>p</sub>·C<sub>p</sub>
multiplies each count by its unit cost measured on this machine and sets the predicted time
beside the measured one.</li>
<li>The <b>Experiments</b> menu (Ctrl+Shift+E) reruns classic results (parallel close
proximity, separating axes, build rules, refit against rebuild, spatial partitions, the cost
model) and shows their figures; Ctrl+Return runs, Esc cancels, and each figure saves as PNG
or SVG, its numbers as CSV.</li>
</ul>"""


def pipeline_choice_names() -> dict[str, set[str]]:
    """Pipeline choices remembered between runs: model field -> the values offered now."""
    return {
        "bv": {key for key, _l, _d in bv_choices()},
        "partition": {key for key, _l in partition_choices()},
        "obb_fit": {name for name, _l, _t in obb_fit_choices()},
        "split": {name for name, _l, _t in split_choices()},
        "descend": set(Controller.descend_rules()),
    }


FAILURE_LABEL_STYLE = "color: #D55E00; font-weight: bold;"
"""The status bar's mark of a failed frame (Okabe-Ito vermillion, as on the canvas)."""


class MainWindow(QMainWindow):
    """The BVH Lab window.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    controller : viewer.controller.Controller
    settings : QSettings, optional
        Where layout and last choices are remembered (tests pass a scratch file).
    """

    first_frame_drawn = pyqtSignal()
    """Emitted once per window, when the first frame of the core, overlays included, has been
    rendered on screen (the ``first frame after X.X s`` line of ``python -m viewer``)."""

    def __init__(self, model, controller, settings: QSettings | None = None, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        self.settings = settings if settings is not None else QSettings("bvh-lab", "bvh-lab")
        self.last_error: tuple[str, str] | None = None
        self.error_log = ErrorLog()  # viewer.qt.error_guard writes it; Help > Error log reads it
        self._error_box: QMessageBox | None = None
        self._has_frame = False
        self._drawn_full_resolution = False
        self._drawn_visible: dict[str, bool] = {}  # body key -> shown at the last redraw
        self._progress: QProgressDialog | None = None
        self._loading_dialog: QProgressDialog | None = None
        self.setWindowTitle("BVH Lab")
        self.resize(*default_window_size(self.screen()))

        self.plotter = Canvas(self, auto_update=False, multi_samples=0)
        self.setCentralWidget(self.plotter)
        # Count the renders VTK really finished (pyvistaqt's render() may skip one), and report
        # the first frame only once the canvas is visible: on screen, not before.
        self._n_renders = 0
        self._is_first_frame_drawn = False
        self.plotter.ren_win.AddObserver("EndEvent", self._count_render)
        # Canvas text follows the screen's logical DPI (96 = scale 1), like the widgets' text.
        self.renderer = SceneRenderer(self.plotter, text_scale=self.logicalDpiY() / 96.0)
        self.interaction = CanvasInteraction(self.plotter, self.renderer, model, controller, self)
        self.docks = make_docks(model, controller)
        self.docks["scene_dock"].panel.scene_octree_requested.connect(self.open_scene_octree)
        self.timeline = TimelinePanel(model, controller)
        self.timeline_dock = QDockWidget("Timeline")
        self.timeline_dock.setObjectName("timeline_dock")
        self.timeline_dock.setWidget(self.timeline)
        self.timeline_dock.setAllowedAreas(Qt.DockWidgetArea.BottomDockWidgetArea
                                           | Qt.DockWidgetArea.TopDockWidgetArea)
        self._job_dialog: QProgressDialog | None = None
        self.apply_default_layout()
        self.tree_tools = TreeTools(self)
        self.lecture = LectureMode(self)
        self._figure_drawn_for = None  # (result id, view size) of the figure on the canvas

        self.fps_label = QLabel("")
        self.fps_label.setToolTip("Frames per second while playing; when paused, how long the "
                                  "last frame took (compute, overlay update and render)")
        self.timing_label = QLabel("")
        self.timing_label.setToolTip(
            "Time of each phase of the last frame in milliseconds, and in brackets the median "
            "of the frames of the last second (one frame alone jumps)")
        self.frame_state_label = QLabel("")
        self.frame_state_label.setStyleSheet(FAILURE_LABEL_STYLE)
        self.frame_state_label.setToolTip(
            "The last frame failed or was cancelled: the view, its contacts taken away, and "
            "every panel show the last good frame, named in each panel's header")
        self.frame_state_label.setVisible(False)
        self.statusBar().addPermanentWidget(self.frame_state_label)
        self.recording_label = QLabel("")
        self.recording_label.setToolTip(
            "What the recording holds (Recording > Memory limit… caps it; the oldest frames go)")
        self.statusBar().addPermanentWidget(self.recording_label)
        self.statusBar().addPermanentWidget(self.timing_label)
        self.statusBar().addPermanentWidget(self.fps_label)
        self.kernel_status = KernelStatusBar(self)
        self._build_actions()

        model.scene_changed.connect(self._on_scene)
        model.body_changed.connect(self._on_body)
        model.selection_changed.connect(self._on_selection)
        model.frame_ready.connect(self._on_frame)
        model.level_changed.connect(lambda _l: self._refresh_inspect_and_redraw())
        model.display_changed.connect(self._on_display)
        model.inspect_changed.connect(lambda _i: self.redraw())
        model.mode_changed.connect(self._on_mode)
        model.message.connect(lambda text: self.statusBar().showMessage(text, 5000))
        model.error.connect(self.show_error)
        model.loading_changed.connect(self._on_loading)
        model.step_mode_changed.connect(self._on_step_mode)
        model.step_position_changed.connect(lambda _p: self._on_stepper())
        model.steps_changed.connect(lambda _s: self._on_stepper())
        model.playing_changed.connect(
            lambda _p: self._show_timings(model.frame) if model.frame is not None else None)
        model.recording_changed.connect(self._show_recording)
        model.cursor_changed.connect(self._on_cursor)
        model.job_progress.connect(self._on_job_progress)
        model.job_finished.connect(self._on_job_finished)
        model.analysis_changed.connect(self.redraw)
        model.frame_failed.connect(self._on_frame_failed)
        signals = controller.lesson_signals
        signals.step_changed.connect(lambda _i: self.redraw())
        signals.lesson_changed.connect(lambda _l: self.redraw())
        signals.figure_changed.connect(lambda _r: self.update_figure())
        self._restore_settings()

    # -- actions ----------------------------------------------------------------------------
    def _build_actions(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        self.open_action = self._action("&Open mesh (add to scene)…", self.open_mesh,
                                        QKeySequence.StandardKey.Open)
        file_menu.addAction(self.open_action)
        file_menu.addAction(self._action("Open meshes as a &new scene…", self.open_new_scene,
                                         "Ctrl+Shift+O"))
        scenes_menu = file_menu.addMenu("&Built-in scenes")
        for i, (key, spec) in enumerate(SCENES.items()):
            scenes_menu.addAction(self._action(spec.title, lambda _c=False, k=key:
                                               self.controller.load_scene(k), f"Ctrl+{i + 1}"))
        file_menu.addSeparator()
        file_menu.addAction(self._action("&Save screenshot…", self.save_screenshot,
                                         QKeySequence.StandardKey.Save))
        self.session_menu = SessionMenu(self, file_menu)
        self.export_menu = ExportMenu(self, file_menu)
        file_menu.addSeparator()
        file_menu.addAction(self._action("&Quit", self.close, QKeySequence.StandardKey.Quit))

        edit_menu = menu.addMenu("&Edit")
        edit_menu.addAction(self._action("&Undo sculpt stroke",
                                         lambda: self.controller.undo_stroke(),
                                         QKeySequence.StandardKey.Undo))

        view_menu = menu.addMenu("&View")
        view_menu.addAction(self._action("&Reset camera", self.reset_camera, "R"))
        self.clear_selection_action = self._action("Clear &selection", self.clear_selection,
                                                   "Escape")
        self.clear_selection_action.setToolTip("Forget the clicked box and the selected mesh")
        view_menu.addAction(self.clear_selection_action)
        view_menu.addAction(self._action("&Compare bounding volumes…", self.open_compare,
                                         "Ctrl+K"))
        view_menu.addAction(self._action("Scene &octree demo (Zhou 2009)…",
                                         self.open_scene_octree, "Ctrl+J"))
        self._build_analysis_actions(view_menu)
        view_menu.addSeparator()
        self.dock_actions: dict[str, QAction] = {}
        for name in DEFAULT_DOCK_ORDER:
            action = self.docks[name].toggleViewAction()
            action.setToolTip(f"Show or hide the {self.docks[name].windowTitle()} dock")
            view_menu.addAction(action)
            self.dock_actions[name] = action
        self.reset_layout_action = self._action("Reset &layout", self.reset_layout,
                                                "Ctrl+Shift+R")
        self.reset_layout_action.setToolTip(
            "Bring back every dock, tabbed in one column on the right of the view")
        view_menu.addAction(self.reset_layout_action)
        self.lecture_action = self._action(
            "L&ecture mode", lambda: self.lecture.toggle(), LECTURE_KEY,
            "The view alone, full screen, large text and a caption, for a projector; "
            "Right/Left step, Space plays, Esc leaves")
        self.lecture_action.setCheckable(True)
        view_menu.addAction(self.lecture_action)

        toolbar = QToolBar("Tools")
        toolbar.setObjectName("tools_toolbar")
        self.addToolBar(toolbar)
        group = QActionGroup(self)
        self.mode_actions: dict[Mode, QAction] = {}
        for mode, text, key, tip in (
            (Mode.CAMERA, "Camera", "C", "Drag to turn the view, wheel to zoom, click to inspect"),
            (Mode.MOVE, "Move", "M", "Drag a mesh to slide it; right- or Ctrl-drag turns it"),
            (Mode.SCULPT, "Sculpt", "S", "Drag on a surface to pull it"),
        ):
            action = self._action(f"{text} ({key})", lambda _c=False, m=mode:
                                  self.model.set_mode(m), key)
            action.setCheckable(True)
            action.setToolTip(tip)
            group.addAction(action)
            toolbar.addAction(action)
            self.mode_actions[mode] = action
        self.mode_actions[self.model.mode].setChecked(True)
        toolbar.addSeparator()
        self.play_action = self._action("Play / pause (Space)", self.toggle_play, "Space")
        toolbar.addAction(self.play_action)
        toolbar.addAction(self._action("Step frame (.)", lambda: self.controller.step_time(1 / 30),
                                       "."))
        toolbar.addSeparator()
        levels = self.docks["levels_dock"].panel
        toolbar.addAction(self._action("◀ Level ([)", lambda: levels.step_level(-1), "["))
        toolbar.addAction(self._action("Level ▶ (])", lambda: levels.step_level(+1), "]"))
        toolbar.addAction(self._action("All levels (A)", lambda: self.model.set_level(None), "A"))
        toolbar.addSeparator()
        toolbar.addAction(self._action("Reset camera (R)", self.reset_camera))
        view_menu.addSeparator()
        view_menu.addAction(toolbar.toggleViewAction())
        self._build_stepper_actions(menu)
        self.tree_tools.build_menu(menu)

        self._build_recording_menu(menu, view_menu)
        self.lesson_menu = LessonMenu(self, menu)
        self.experiments_menu = ExperimentsMenu(self, menu)

        help_menu = menu.addMenu("&Help")
        help_menu.addAction(self._action("&How to read this view", self.show_help,
                                         QKeySequence.StandardKey.HelpContents))
        help_menu.addAction(self._action(
            "&Error log…", self.show_error_log, None,
            "The errors the app caught, with their tracebacks (for a bug report)"))

    def _build_recording_menu(self, menu, view_menu) -> None:
        """Recording menu: save, open, replay, clear, limits, record on/off, and the
        timeline's keys (free of the other shortcuts: the stepper has Left, Right, Home)."""
        timeline = self.timeline
        rec = menu.addMenu("&Recording")
        self.recording_actions: dict[str, QAction] = {}

        def add(key, text, slot, shortcut=None, tip=""):
            action = self._action(text, slot, shortcut, tip)
            rec.addAction(action)
            self.recording_actions[key] = action
            return action

        add("save", "&Save recording…", self.save_recording_as, "Ctrl+Shift+S",
            "Write every recorded frame to a .bvhrec file")
        add("open", "&Open recording…", self.open_recording_file, "Ctrl+Shift+P",
            "Read a .bvhrec file and show its frames on the timeline")
        add("replay", "&Replay with other settings…", self.open_replay_dialog, "Ctrl+Shift+Y",
            "Run the recorded shapes again with another bounding volume or rule and compare")
        add("drift", "&Drift and frame time…", self.open_drift_dialog, DRIFT_KEY,
            "Plot each tree's SAH drift and the frame time over the recorded frames, with the "
            "automatic rebuilds marked; click the plot to show a frame")
        rec.addSeparator()
        add("step_back", "One frame &back", lambda: self.controller.step_recorded(-1),
            "Shift+Left")
        add("step_forward", "One frame &forward", lambda: self.controller.step_recorded(+1),
            "Shift+Right")
        add("previous_event", "&Previous event", lambda: self.controller.jump_to_event(-1),
            "Ctrl+Shift+Left")
        add("next_event", "&Next event", lambda: self.controller.jump_to_event(+1),
            "Ctrl+Shift+Right")
        add("reverse", "Play &backwards", timeline.toggle_reverse, "Shift+Space")
        add("live", "Back to &live", self.controller.go_live, "L",
            "Leave the recording and show the live scene")
        rec.addSeparator()
        add("clear", "&Clear recording", self.controller.clear_recording, None,
            "Forget every recorded frame")
        add("limits", "&Memory limit…", self.ask_recording_limits, None,
            "Most megabytes and frames the recording keeps")
        record = add("record", "Record &frames", self.controller.set_recording_enabled, None,
                     "Keep every live frame on the timeline")
        record.setCheckable(True)
        record.setChecked(self.model.is_recording)
        view_menu.addAction(self.timeline_dock.toggleViewAction())
    def _build_analysis_actions(self, view_menu) -> None:
        """View menu: heat map (H steps through its choices), ghost (G), cross-check."""
        levels = self.docks["levels_dock"].panel
        view_menu.addSeparator()
        self.heat_action = self._action("Next &heat map", levels.next_heat_map, HEAT_KEY)
        self.heat_action.setToolTip("Off → triangles by work → nodes by visits → nodes by SAH "
                                    "share → off (Levels dock, Draw)")
        view_menu.addAction(self.heat_action)
        self.ghost_action = self._action("&Ghost: freshly built tree", lambda on:
                                         self.model.set_display(show_ghost=on), GHOST_KEY)
        self.ghost_action.setCheckable(True)
        self.model.display_changed.connect(
            lambda d: self.ghost_action.setChecked(d.show_ghost))
        view_menu.addAction(self.ghost_action)
        engine, words = self.controller.cross_check_engine()
        name = words.split()[0] if engine is not None else "python-fcl"
        tip = (f"Run this frame's meshes A and B through {words} and list the triangle pairs "
               "only one engine reports, each with its exact gap" if engine is not None
               else words)
        self.crosscheck_action = self._action(f"Cross-check this frame with {name}…",
                                              self.open_crosscheck_dialog, CROSSCHECK_KEY, tip)
        self.crosscheck_action.setEnabled(engine is not None)
        view_menu.addAction(self.crosscheck_action)

    def open_drift_dialog(self):
        """Recording > Drift and frame time… (created once, kept between openings)."""
        from viewer.qt.drift_dialog import DriftDialog

        if getattr(self, "drift_dialog", None) is None:
            self.drift_dialog = DriftDialog(self.model, self.controller, self)
        self.drift_dialog.show()
        self.drift_dialog.raise_()
        return self.drift_dialog

    def open_crosscheck_dialog(self):
        """View > Cross-check this frame…: runs the check in the background and shows it."""
        from viewer.qt.crosscheck_dialog import CrossCheckDialog

        if getattr(self, "crosscheck_dialog", None) is None:
            self.crosscheck_dialog = CrossCheckDialog(self.model, self.controller, self)
        self.crosscheck_dialog.show()
        self.crosscheck_dialog.raise_()
        self.crosscheck_dialog.run()
        return self.crosscheck_dialog

    def _build_stepper_actions(self, menu) -> None:
        """The Stepper menu: on/off (Ctrl+T) and one action per stepper button with its key.

        The step keys are enabled only while the stepper is on, so that Left and Right still
        nudge a selected mesh in Move mode otherwise (a disabled shortcut lets the key through
        to the canvas).
        """
        stepper_menu = menu.addMenu("S&tepper")
        self.stepper_toggle_action = self._action("&Step the traversal", self.toggle_stepper,
                                                  TOGGLE_KEY)
        self.stepper_toggle_action.setCheckable(True)
        self.stepper_toggle_action.setToolTip("Walk this frame's traversal one pair test at a "
                                              "time (pauses playing)")
        stepper_menu.addAction(self.stepper_toggle_action)
        stepper_menu.addSeparator()
        panel = self.docks["stepper_dock"].panel
        self.stepper_actions: dict[str, QAction] = {}
        for key, text, shortcut, tip in STEP_BUTTONS:
            action = self._action(text, lambda _c=False, k=key: self._step_key(k), shortcut)
            action.setToolTip(tip)
            stepper_menu.addAction(action)
            self.stepper_actions[key] = action
        self.stepper_actions["restart"].setEnabled(True)  # Home also turns the stepper on
        self._stepper_panel = panel
        self._sync_stepper_actions()

    def toggle_stepper(self) -> None:
        """Ctrl+T: the stepper on (raising its dock) or off."""
        if self.model.is_stepping:
            self.controller.stop_stepper()
        else:
            self.docks["stepper_dock"].raise_()
            self.controller.start_stepper()

    def _step_key(self, key: str) -> None:
        if key == "restart" and not self.model.is_stepping:
            self.docks["stepper_dock"].raise_()
        self._stepper_panel.press(key)

    def _sync_stepper_actions(self) -> None:
        is_on = self.model.is_stepping
        self.stepper_toggle_action.setChecked(is_on)
        has_steps = is_on and self.model.steps is not None
        for key, action in self.stepper_actions.items():
            action.setEnabled(key == "restart" or has_steps)

    def _on_stepper(self) -> None:
        self._sync_stepper_actions()
        # The axis and the intervals run through the pair, inside the meshes: fainter meshes
        # while stepping let them show (measured on the two-spheres screenshot: at 0.55 the
        # intervals inside the spheres were barely visible).
        opacity = self.model.display.mesh_opacity
        if self.model.is_stepping:
            opacity = min(opacity, STEP_MESH_OPACITY)
        self.renderer.set_mesh_opacity(opacity)
        self.redraw()

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        action.triggered.connect(slot)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            # On hover in a menu and in the status bar alike.
            action.setToolTip(tip)
            action.setStatusTip(tip)
        self.addAction(action)  # shortcuts work while the canvas has focus
        return action

    # -- slots ------------------------------------------------------------------------------
    def _on_scene(self) -> None:
        self._has_frame = False
        self._set_bodies()
        self.renderer.set_selection(None)
        self.renderer.set_brush(None)
        self.reset_camera()
        QTimer.singleShot(COLD_START_DELAY_MS, self._show_progress_if_waiting)
        self.statusBar().showMessage(
            f"Scene: {self.model.scene_title} — computing the first frame", 8000)

    def _set_bodies(self) -> None:
        display = self.model.display
        self.renderer.set_bodies(self.model.bodies, self.model.scene_title,
                                 display.mesh_opacity, display.is_full_resolution)
        self._drawn_full_resolution = display.is_full_resolution

    def _on_body(self, index: int) -> None:
        body = self.model.bodies[index]
        self.renderer.update_body(index, body)
        if index == self.model.selected:
            self.renderer.set_selection(body if body.is_visible else None)
        if index < 2 and body.is_visible != self._drawn_visible.get(body.key, True):
            # Shown or hidden: its boxes, pair boxes and contacts come and go with the mesh.
            self._drawn_visible[body.key] = body.is_visible
            self.redraw()
        else:
            self.plotter.render()

    def _on_selection(self, index: int) -> None:
        body = self.model.bodies[index] if 0 <= index < len(self.model.bodies) else None
        self.renderer.set_selection(body if body is not None and body.is_visible else None)
        if body is not None:
            self.statusBar().showMessage(f"Selected {body.name}", 3000)
        self.plotter.render()

    def _on_display(self, display) -> None:
        if display.is_full_resolution != self._drawn_full_resolution:
            self._set_bodies()
            self._on_selection(self.model.selected)
        self.renderer.set_mesh_opacity(display.mesh_opacity if not self.model.is_stepping
                                       else min(display.mesh_opacity, STEP_MESH_OPACITY))
        self.redraw()

    def _on_mode(self, mode) -> None:
        self.mode_actions[mode].setChecked(True)
        if mode is not Mode.SCULPT:
            self.renderer.set_brush(None)
        self.statusBar().showMessage(self.mode_actions[mode].toolTip(), 5000)
        self.plotter.render()

    def _show_progress_if_waiting(self) -> None:
        """A busy dialog while the first frame of a scene is computed (non-modal: the window
        stays usable)."""
        if self._has_frame or self.plotter.ren_win is None:
            return
        if self._progress is None:
            self._progress = QProgressDialog("", None, 0, 0, self)
            self._progress.setWindowTitle("BVH Lab")
            self._progress.setMinimumDuration(0)
        if self.model.kernels.is_compiling:
            # The kernels run as Python while they compile: big scenes take a while.
            self._progress.setLabelText(
                "Computing the first frame while the kernels compile in the background…\n"
                "(until they are compiled the collision code runs as Python, more slowly)")
        else:
            self._progress.setLabelText(
                "Building the trees and preparing the collision kernels…\n"
                "(later starts load the kernels from disk)")
        self._progress.show()

    def _on_loading(self, text: str) -> None:
        """A busy dialog while files are read in the background (the tree build that
        follows has its own, :meth:`_show_progress_if_waiting`)."""
        if not text:
            if self._loading_dialog is not None:
                self._loading_dialog.hide()
            return
        if self._loading_dialog is None:
            self._loading_dialog = QProgressDialog("", None, 0, 0, self)
            self._loading_dialog.setWindowTitle("BVH Lab: opening meshes")
            self._loading_dialog.setMinimumDuration(0)
        self._loading_dialog.setLabelText(
            f"{text}\nThen the trees are built. Meshes of up to {MAX_TRIANGLES:,} triangles"
            f" open; above {WARN_TRIANGLES:,} expect a low frame rate.")
        self._loading_dialog.show()

    def _on_frame(self, frame) -> None:
        if frame is None:  # a new scene cleared the last one's frame: nothing of it stays
            self.timing_label.setText("")
            self.fps_label.setText("")
            self.redraw()
            return
        if self._progress is not None:
            self._progress.hide()
        if not self._has_frame:
            self.statusBar().showMessage(f"Scene: {self.model.scene_title}. Press F1 for how to "
                                         "read this view.", 8000)
        self._has_frame = True
        if self.model.inspect is not None:
            self._refresh_inspect()
        self.redraw()

    def failure_text(self) -> str:
        """The failed frame's mark ("frame 38 failed: <reason> - showing frame 37; its
        contacts are not drawn"), "" when the last live frame did not fail."""
        failure = self.model.frame_failure
        if failure is None:
            return ""
        text = failure.text(self.model.frame)
        return text + ("; its contacts are not drawn" if self.model.frame is not None else "")

    def _on_frame_failed(self, _failure) -> None:
        text = self.failure_text()
        self.frame_state_label.setText(text)
        # The status bar may cut the words short: the tooltip holds them whole.
        self.frame_state_label.setToolTip(f"{text}. The view and every panel show the last "
                                          "good frame, named in each panel's header.")
        self.frame_state_label.setVisible(bool(text))
        self.redraw()

    def _refresh_inspect(self) -> None:
        info = self.model.inspect
        if info is None:
            return
        # The clicked box stays the same while the level moves: its depth is kept.
        self.model.inspect = inspect_node(self.model.frame, info["body"], info["triangle"],
                                          self.model.level, depth=info["depth"])
        self.model.inspect_changed.emit(self.model.inspect)

    def _refresh_inspect_and_redraw(self) -> None:
        if self.model.inspect is not None:
            self._refresh_inspect()  # emits inspect_changed, which redraws
        else:
            self.redraw()

    def _on_step_mode(self, is_on: bool) -> None:
        if is_on and self.model.is_stepping:
            self.controller.stop_stepper()  # the level step mode and the stepper exclude
        self.redraw()

    def step_note(self) -> str:
        """Canvas note: the stepper's position, the step-mode sentence, or the current
        level."""
        levels = self.docks["levels_dock"].panel
        if self.model.is_stepping:
            view = self.controller.step_view()
            if view is None:
                return "stepper: " + (self.model.steps_note or "preparing the pair tests…")
            return f"stepper: {position_text(view)}"
        if self.model.is_step_mode:
            return levels.current_sentence()
        n = self.model.n_levels()
        if n == 0:
            return ""
        if self.model.level is None:
            return f"all {n} traversal levels; every tree depth"
        frame = self.model.frame
        depths = [tree_depth_text(frame, i, self.model.level) for i in range(len(frame.trees))]
        where = (f"boxes at {depths[0][3:]}" if len(set(depths)) == 1 else
                 f"boxes of A {depths[0]}, of B {depths[1]}")
        return f"{level_text(self.model.level, n)}; {where}"

    def _count_render(self, _ren_win, _event) -> None:
        self._n_renders += 1

    def redraw(self) -> None:
        """Copy the last frame into the overlays and render; records overlay and render time."""
        if self.plotter.ren_win is None:
            return
        frame = self.model.frame
        hidden = {i for i, body in enumerate(self.model.bodies[:2]) if not body.is_visible}
        if frame is not None and self.model.cursor is not None:
            # A recorded frame: the meshes stand where they were then, not where they are now.
            self.renderer.set_body_poses([pose.as_matrix() for pose in frame.poses])
        step = self.controller.step_view() if self.model.is_stepping else None
        heat, heat_note = (self.controller.heat_for(frame)
                           if self.model.display.heat_map != "off" else (None, ""))
        display = self.model.display
        failure = self.failure_text()
        if failure:
            # The frame shown is older than the settings and trees now asked for: its
            # contacts are taken away rather than shown as if they were the answer.
            display = replace(display, show_contacts=False)
        self.renderer.set_failure(failure)
        overlay_s = self.renderer.update_frame(frame, display, self.model.level,
                                               self.model.inspect, self.step_note(), hidden,
                                               step, heat=heat, heat_note=heat_note,
                                               ghost=self.controller.ghost_view(),
                                               crosscheck=self.controller.crosscheck_view(),
                                               side=shown_side(frame, self.model.side,
                                                               self.model.side_by_frame))
        self.renderer.update_marks(frame, self.model.selected_node,
                                   self.tree_tools.violation_nodes(),
                                   self.controller.tree_file_ids(frame), hidden)
        self.refresh_caption()
        start = time.perf_counter()
        n_renders = self._n_renders
        self.plotter.render()
        render_s = time.perf_counter() - start
        if (frame is not None and self._n_renders > n_renders and self.plotter.isVisible()
                and not self._is_first_frame_drawn):
            self._is_first_frame_drawn = True
            self.first_frame_drawn.emit()
        self.model.set_view_timings(ViewTimings(overlay_s, render_s))
        if frame is not None:
            self._show_timings(frame)

    # -- lessons and lecture mode -----------------------------------------------------------
    def state_caption(self) -> str:
        """The current state in words (lecture mode's caption without a lesson)."""
        model = self.model
        note = self.step_note()
        shown = model.shown_result() if model.frame is not None else None
        words = f"{model.scene_title}: {note}" if note else model.scene_title
        if shown is not None:
            n = shown.counters.n_contacts
            words += (f"; {n:,} triangle pairs touch" if n else "; no triangles touch")
        return words + "."

    def refresh_caption(self) -> None:
        """The caption bar: the lesson step's caption (and where in the lesson), or in lecture
        mode the state in words; the keys under it."""
        step = self.controller.lesson_step()
        if step is not None:
            lesson = self.controller.lesson
            caption = step.caption
            keys = self.lecture.key_hint() if self.lecture.is_on else KEYS_LESSON_DESK
            hint = f"{lesson.title}, step {step.number} of {len(lesson)}   ·   {keys}"
        elif self.lecture.is_on:
            caption, hint = self.state_caption(), self.lecture.key_hint()
        else:
            caption, hint = "", ""
        self.renderer.set_caption(caption, hint)

    def update_figure(self) -> None:
        """Draw the lesson's experiment figure over the canvas at the canvas's size (above
        the caption bar), or take it away."""
        result = self.controller.figure
        if result is None:
            self._figure_drawn_for = None
            self.renderer.show_figure(None)
            self.redraw()
            return
        width, height = (int(x) for x in self.plotter.ren_win.GetSize())
        key = (id(result), width, height, self.lecture.scale)
        if key != self._figure_drawn_for:
            self.refresh_caption()
            bottom = self.renderer.caption_bar.top_px() + 8
            image = figure_image(result, int(0.92 * width),
                                 max(100, int(0.96 * (height - bottom))))
            self.renderer.show_figure(image, bottom)
            self._figure_drawn_for = key
        self.redraw()

    def resizeEvent(self, event):  # noqa: N802 - Qt API
        super().resizeEvent(event)
        if self.controller.figure is not None:
            QTimer.singleShot(0, self.update_figure)

    def _show_timings(self, frame) -> None:
        """Status bar: contacts, each phase's last time with its median over the last
        second, and the frame rate while playing (the last frame's time when paused)."""
        history = self.model.timing_history
        shown = self.model.shown_result()  # bodies A and B, or one body against itself
        contacts = shown.counters.n_contacts if shown is not None else 0
        phases = shown_phases(frame.timings, frame.result is None)
        if not any(body.deformer for body in self.model.bodies):
            phases.remove("deform")  # nothing deforms: "deform 0.0" only takes room
        phases.remove("total")  # "last frame ... ms" at the end already says the whole time
        self.timing_label.setText(
            f"contacts {contacts:,} | ms (median of 1 s): " + " · ".join(
                f"{SHORT_WORDS[name]} {last_and_median(history, name, 1)}" for name in phases))
        if self.model.is_playing and self.model.fps > 0:
            self.fps_label.setText(f"{self.model.fps:.1f} FPS")
        else:
            total = (frame.timings.get("total", 0.0) + self.model.view_timings.overlay
                     + self.model.view_timings.render)
            self.fps_label.setText(f"last frame {1e3 * total:.1f} ms")

    def open_compare(self):
        """Show the compare view (created once, kept between openings)."""
        from viewer.qt.compare import CompareDialog

        if getattr(self, "compare_dialog", None) is None:
            self.compare_dialog = CompareDialog(self.model, self)
        self.compare_dialog.show()
        self.compare_dialog.raise_()
        return self.compare_dialog

    def open_scene_octree(self):
        """Show the many-objects scene octree demo (Zhou et al. 2009) in its own window."""
        from viewer.qt.scene_octree import SceneOctreeWindow

        if getattr(self, "octree_window", None) is None:
            self.octree_window = SceneOctreeWindow(self)
        self.octree_window.show()
        self.octree_window.raise_()
        return self.octree_window

    def clear_selection(self) -> None:
        """Esc: no inspected box, no selected mesh."""
        self.model.set_inspect(None)
        self.model.set_selected(-1)

    def toggle_play(self) -> None:
        """Space: plays or pauses the recording while a recorded frame is shown, else the
        live animation."""
        if self.model.cursor is not None:
            self.timeline.toggle_play()
            return
        if self.model.is_step_mode and not self.model.is_playing:
            self.model.set_step_mode(False)
        self.model.set_playing(not self.model.is_playing)

    # -- layout ---------------------------------------------------------------------------
    def apply_default_layout(self) -> None:
        """Every dock shown, docked and tabbed in one column on the right; Levels raised."""
        area = Qt.DockWidgetArea.RightDockWidgetArea
        docks = [self.docks[name] for name in DEFAULT_DOCK_ORDER]
        for dock in docks:
            dock.setFloating(False)
            self.addDockWidget(area, dock)
            dock.show()
        for dock in docks[1:]:
            self.tabifyDockWidget(docks[0], dock)
        docks[0].raise_()
        self.timeline_dock.setFloating(False)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.timeline_dock)
        self.timeline_dock.show()
        self.resizeDocks([docks[0]], [DOCK_WIDTH_PX], Qt.Orientation.Horizontal)
        QTimer.singleShot(0, self.show_whole_tab_titles)

    def reset_layout(self) -> None:
        """View > Reset layout: the default docks, and that layout remembered at once (so a
        broken layout saved earlier is not restored over it on the next start)."""
        self.apply_default_layout()
        self.settings.setValue("window_state", self.saveState(LAYOUT_VERSION))
        self.settings.sync()
        self.statusBar().showMessage("Layout reset: every dock is back on the right", 5000)

    def canvas_share(self) -> float:
        """Share of the window width the 3-D view has (0 before the window is laid out)."""
        return self.plotter.width() / max(1, self.width())

    def _check_restored_layout(self) -> None:
        """After the first show: fall back to the default layout if the remembered one hides
        every dock or squeezes the canvas below :data:`MIN_CANVAS_SHARE`."""
        if not self._restored_layout:
            return
        self._restored_layout = False
        is_any_shown = any(d.isVisible() for d in self.docks.values())
        if not is_any_shown or self.canvas_share() < MIN_CANVAS_SHARE:
            self.reset_layout()

    def show_whole_tab_titles(self) -> None:
        """Dock tabs keep their whole titles and scroll when they do not fit: with eight docks
        in one column Qt cut them to "S…" and "Pse…" (seen at 1280 and 1920 wide)."""
        for bar in self.findChildren(QTabBar):
            bar.setElideMode(Qt.TextElideMode.ElideNone)
            bar.setUsesScrollButtons(True)

    def showEvent(self, event):  # noqa: N802 - Qt API
        super().showEvent(event)
        # The dock area makes its tab bars when it lays the docks out, after the first show.
        QTimer.singleShot(0, self.show_whole_tab_titles)
        if self._restored_layout:
            QTimer.singleShot(0, self._check_restored_layout)
        if not self._is_first_frame_drawn and self.model.frame is not None:
            # The first frame was computed while the window was hidden: draw it now that it
            # can be seen (a paused scene would otherwise wait for the next change).
            QTimer.singleShot(0, self.redraw)

    def reset_camera(self) -> None:
        set_default_view(self.plotter)
        self.plotter.render()

    # -- files ------------------------------------------------------------------------------
    def _ask_files(self, title: str) -> list[str]:
        start = self.settings.value("last_dir", str(Path.home()))
        paths, _ = QFileDialog.getOpenFileNames(self, title, start, MESH_FILTER)
        if paths:
            self.settings.setValue("last_dir", str(Path(paths[0]).parent))
        return paths

    def open_mesh(self) -> None:
        paths = self._ask_files("Add meshes to the scene")
        if paths:
            self.controller.load_files_async(paths, replace_scene=False)

    def open_new_scene(self) -> None:
        paths = self._ask_files("Open meshes as a new scene")
        if paths:
            self.controller.load_files_async(paths, replace_scene=True)

    def save_screenshot(self, path: str | None = None) -> str | None:
        if not path:
            path, _ = QFileDialog.getSaveFileName(self, "Save screenshot", "bvh-lab.png",
                                                  "PNG image (*.png)")
        if not path:
            return None
        self.plotter.screenshot(path)
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return path

    # -- recording --------------------------------------------------------------------------
    def _show_recording(self) -> None:
        recording = self.model.recording
        self.recording_label.setText(recording.summary() if recording is not None
                                     and len(recording) else "")

    def _on_cursor(self, cursor) -> None:
        if cursor is None:  # live again: every mesh back at its live pose
            for i, body in enumerate(self.model.bodies):
                self.renderer.update_body(i, body)
        self._show_recording()

    def _on_job_progress(self, words: str, done: int, total: int) -> None:
        """A progress dialog with Cancel while a recording is saved, opened or replayed, a
        session saved or opened, or a mesh exported."""
        if self._job_dialog is None:
            self._job_dialog = QProgressDialog("", "Cancel", 0, 0, self)
            self._job_dialog.setMinimumDuration(0)
            self._job_dialog.setAutoClose(False)
            self._job_dialog.setAutoReset(False)
            self._job_dialog.canceled.connect(self.controller.cancel_job)
        dialog = self._job_dialog
        dialog.setWindowTitle(f"BVH Lab: {words.split(' ')[0].lower()}")
        dialog.setLabelText(f"{words}…" + (f" ({done:,} of {total:,})" if total else ""))
        dialog.setMaximum(max(total, 0))
        dialog.setValue(min(done, total) if total else 0)
        if not dialog.isVisible():
            dialog.show()

    def _on_job_finished(self, _words: str) -> None:
        if self._job_dialog is not None:
            self._job_dialog.hide()

    def _ask_recording_path(self, title: str, is_save: bool) -> str:
        start = self.settings.value("last_recording_dir", str(Path.home()))
        if is_save:
            name = f"{self.model.scene_key or 'recording'}.bvhrec"
            path, _ = QFileDialog.getSaveFileName(self, title, str(Path(start) / name),
                                                  RECORDING_FILTER)
            if path and not Path(path).suffix:
                path += ".bvhrec"
        else:
            path, _ = QFileDialog.getOpenFileName(self, title, start, RECORDING_FILTER)
        if path:
            self.settings.setValue("last_recording_dir", str(Path(path).parent))
        return path

    def save_recording_as(self, path: str | None = None) -> bool:
        """Recording > Save recording…: ask for a file (unless ``path``) and write it."""
        path = path or self._ask_recording_path("Save recording", is_save=True)
        return bool(path) and self.controller.save_recording(path)

    def open_recording_file(self, path: str | None = None) -> bool:
        """Recording > Open recording…: ask for a file (unless ``path``) and show it."""
        path = path or self._ask_recording_path("Open recording", is_save=False)
        return bool(path) and self.controller.open_recording(path)

    def open_replay_dialog(self):
        """Recording > Replay with other settings… (created once, kept between openings)."""
        from viewer.qt.replay_dialog import ReplayDialog

        if getattr(self, "replay_dialog", None) is None:
            self.replay_dialog = ReplayDialog(self.model, self.controller, self)
        self.replay_dialog.refresh()
        self.replay_dialog.show()
        self.replay_dialog.raise_()
        return self.replay_dialog

    def ask_recording_limits(self) -> bool:
        """Recording > Memory limit…: most megabytes and frames held, remembered."""
        dialog = QDialog(self)
        dialog.setWindowTitle("Recording memory limit")
        form = QFormLayout(dialog)
        megabytes = QDoubleSpinBox()
        megabytes.setRange(1.0, 1_000_000.0)
        megabytes.setDecimals(0)
        megabytes.setSuffix(" MB")
        frames = QSpinBox()
        frames.setRange(1, 10_000_000)
        frames.setSuffix(" frames")
        megabytes.setValue(self.controller.recording_limits[0])
        frames.setValue(self.controller.recording_limits[1])
        megabytes.setToolTip("Above this the oldest frames are dropped (arrays shared by "
                             "several frames count once)")
        frames.setToolTip("Above this many frames the oldest are dropped")
        form.addRow("Memory", megabytes)
        form.addRow("Frames", frames)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(dialog.accept)
        buttons.rejected.connect(dialog.reject)
        form.addRow(buttons)
        self.limits_dialog = dialog
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return False
        return self.apply_recording_limits(megabytes.value(), frames.value())

    def apply_recording_limits(self, max_megabytes: float, max_frames: int) -> bool:
        """Cap the recording and remember the caps (QSettings)."""
        if not self.controller.set_recording_limits(max_megabytes, max_frames):
            return False
        self.settings.setValue("recording/max_megabytes", float(max_megabytes))
        self.settings.setValue("recording/max_frames", int(max_frames))
        self.statusBar().showMessage(f"Recording keeps at most {max_megabytes:g} MB and "
                                     f"{max_frames:,} frames", 5000)
        return True

    def show_error(self, title: str, text: str) -> None:
        """Show an error without blocking (a modal dialog would stall the frame loop)."""
        self.last_error = (title, text)
        if self._progress is not None:
            self._progress.hide()
        self.statusBar().showMessage(f"{title}: {text}", 10000)
        if self._error_box is None:
            self._error_box = QMessageBox(QMessageBox.Icon.Warning, title, text,
                                          QMessageBox.StandardButton.Ok, self)
        self._error_box.setWindowTitle(title)
        self._error_box.setText(text)
        self._error_box.open()

    def show_help(self) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, "How to read this view", HELP_TEXT,
                          QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.RichText)
        box.open()
        self._help_box = box

    def show_error_log(self) -> None:
        dialog = error_log_dialog(self, self.error_log)
        dialog.open()
        self._error_log_dialog = dialog

    # -- settings ---------------------------------------------------------------------------
    def _restore_settings(self) -> None:
        s = self.settings
        geometry = s.value("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)  # Qt moves a window saved off-screen back onto it
        state = s.value("window_state")
        # restoreState refuses a state saved with another LAYOUT_VERSION (the old layout).
        self._restored_layout = state is not None and self.restoreState(state, LAYOUT_VERSION)
        try:
            limits = (float(s.value("recording/max_megabytes", DEFAULT_RECORDING_MB)),
                      int(s.value("recording/max_frames", DEFAULT_RECORDING_FRAMES)))
        except (TypeError, ValueError):
            limits = (DEFAULT_RECORDING_MB, DEFAULT_RECORDING_FRAMES)
        if limits != self.controller.recording_limits:
            self.controller.set_recording_limits(*limits)
        is_recording = str(s.value("recording/enabled", "true")).lower() == "true"
        self.recording_actions["record"].setChecked(is_recording)
        self.model.is_recording = is_recording
        update = s.value("update_mode")
        if update in {c.value for c in UpdateChoice}:
            self.model.set_pipeline(update=UpdateChoice(update))
        try:
            self.model.set_pipeline(drift_threshold=float(s.value("drift_threshold", 0.25)))
            self.model.set_brush(float(s.value("brush_radius", self.model.brush_radius)),
                                 float(s.value("brush_strength", self.model.brush_strength)))
        except (TypeError, ValueError):
            pass
        for field in ("show_tree_a", "show_tree_b", "show_parents", "show_overlap",
                      "show_culled", "show_contacts"):
            value = s.value(f"display/{field}")
            if value is not None:
                self.model.set_display(**{field: str(value).lower() == "true"})
        # Names the current build offers; a value saved by another version is ignored.
        for field, names in pipeline_choice_names().items():
            value = s.value(f"pipeline/{field}")
            if value is not None and str(value) in names:
                self.model.set_pipeline(**{field: str(value)})

    def last_scene(self) -> str:
        key = self.settings.value("last_scene", DEFAULT_SCENE)
        return key if key in SCENES else DEFAULT_SCENE

    def save_settings(self) -> None:
        s = self.settings
        s.setValue("geometry", self.saveGeometry())
        s.setValue("window_state", self.saveState(LAYOUT_VERSION))
        if self.model.scene_key is not None:
            s.setValue("last_scene", self.model.scene_key)
        s.setValue("update_mode", self.model.pipeline.update.value)
        s.setValue("drift_threshold", self.model.pipeline.drift_threshold)
        s.setValue("brush_radius", self.model.brush_radius)
        s.setValue("brush_strength", self.model.brush_strength)
        s.setValue("recording/enabled", bool(self.model.is_recording))
        for field in ("show_tree_a", "show_tree_b", "show_parents", "show_overlap",
                      "show_culled", "show_contacts"):
            s.setValue(f"display/{field}", bool(getattr(self.model.display, field)))
        for field in pipeline_choice_names():
            s.setValue(f"pipeline/{field}", getattr(self.model.pipeline, field))
        s.sync()

    def closeEvent(self, event):  # noqa: N802 - Qt API
        if getattr(self, "_is_closed", False):
            # Closed again (a test's teardown closes every window it made): the controller is
            # shut down and the canvas' objects are gone already.
            super().closeEvent(event)
            return
        self._is_closed = True
        self.lecture.leave()  # the docks it hid are saved as they were before it
        self.save_settings()
        self.model.set_playing(False)
        self.controller.shutdown()
        self.interaction.deleteLater()
        self.plotter.close()
        super().closeEvent(event)
