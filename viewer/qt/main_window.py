"""The main window: assembles the canvas, the docks and timeline (:mod:`viewer.qt.window.layout`),
the menus, toolbar and keys (:mod:`viewer.qt.menus.build` from :mod:`viewer.words.actions`), the
status bar (:mod:`viewer.qt.window.status_line`), its dialogs (:mod:`viewer.qt.dialogs.window`),
help (:mod:`viewer.qt.menus.help`) and remembered settings (:mod:`viewer.qt.window.settings`), and
keeps the canvas in step with the model."""

from __future__ import annotations

import time
from dataclasses import replace

from PyQt6.QtCore import QSettings, QTimer, pyqtSignal
from PyQt6.QtGui import QAction, QActionGroup
from PyQt6.QtWidgets import QMainWindow, QMessageBox

from viewer.canvas import Canvas
from viewer.control.error_log import ErrorLog
from viewer.qt.dialogs.contact_log import ContactLogMenu
from viewer.qt.dialogs.scene_switch import load_scene_asking, may_leave_recording
from viewer.qt.dialogs.tree_diff import TreeDiffMenu
from viewer.qt.dialogs.window import ProgressDialogs
from viewer.qt.menus import help as window_help
from viewer.qt.menus.build import (
    actions_under,
    build_menus,
    create_actions,
    make_action,
    make_toolbar,
)
from viewer.qt.menus.experiments import ExperimentsMenu
from viewer.qt.menus.export import ExportMenu
from viewer.qt.menus.files import FileMenu
from viewer.qt.menus.lessons import LessonMenu
from viewer.qt.menus.recording import RecordingMenu
from viewer.qt.menus.session import SessionMenu
from viewer.qt.menus.tree import TreeTools
from viewer.qt.panels.common import WhenShown
from viewer.qt.panels.docks import dock_names, make_docks
from viewer.qt.widgets import show_kept
from viewer.qt.window import layout
from viewer.qt.window import settings as window_settings
from viewer.qt.window.caption import CanvasCaption
from viewer.qt.window.error_guard import error_log_dialog
from viewer.qt.window.interaction import CanvasInteraction
from viewer.qt.window.kernel_status import KernelStatusBar
from viewer.qt.window.lecture import LectureMode
from viewer.qt.window.status_line import StatusLine
from viewer.qt.window.stepper_view import StepperView
from viewer.qt.window.timeline import TimelinePanel
from viewer.render import SceneRenderer
from viewer.render.draw_cost import SlowDrawingNotice
from viewer.render.prepared_overlays import OverlayRequest
from viewer.render.scene import set_default_view
from viewer.scenes import SCENES
from viewer.state.display import Mode
from viewer.state.side_results import shown_side
from viewer.state.status import ViewTimings
from viewer.words.actions import shortcut_of

DRIFT_KEY = shortcut_of("recording.drift")
"""Recording > Drift and frame time…"""

CROSSCHECK_KEY = shortcut_of("view.crosscheck")
"""View > Cross-check this frame with python-fcl…"""

LEGEND_REPICK_S = 0.25
"""While playing, the canvas legend moves to another corner at most four times a second."""

COLD_START_DELAY_MS = 700
"""Show the "preparing kernels" dialog only if the first frame takes longer than this (a warm
numba cache gives the first two-sphere frame in well under a second)."""


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
        self.error_log = ErrorLog()  # window.error_guard writes it; Help > Error log reads it
        self._error_box: QMessageBox | None = None
        self._has_frame = False
        self._drawn_full_resolution = False
        self._drawn_visible: dict[str, bool] = {}  # body key -> shown at the last redraw
        # Redraws asked for by results (a frame, a ghost, a side result, an inspected box) are
        # coalesced into one per event-loop turn: a ghost finishing with a frame rendered the
        # whole scene twice back to back (65-72 ms each on the 278k-triangle bunny, software
        # OpenGL, measured under load).
        self._redraw_timer = QTimer(self, singleShot=True, interval=0,
                                    timeout=self._redraw_in_two_turns)
        # ... and drawn in two turns of the event loop: the overlays' copy in one, the render
        # in the next, so that input and timers run between them (a zero-interval QTimer
        # lets expired timers in; a posted call would not). Big-bunny with every analysis
        # on: the copy took 15-30 ms and the render 35-60 ms of one GUI block.
        self._render_timer = QTimer(self, singleShot=True, interval=0,
                                    timeout=self._render_prepared)
        self._prepared = (None, 0.0)  # the frame the overlays hold, and their time
        self.progress_dialogs = ProgressDialogs(self, controller.recorder.cancel_job)
        self.setWindowTitle("BVH Lab")
        self.resize(*layout.default_window_size(self.screen()))

        self.plotter = Canvas(self, multi_samples=0)
        self.setCentralWidget(self.plotter)
        # Count the renders VTK really finished (a closed canvas skips its render), and report
        # the first frame only once the canvas is visible: on screen, not before.
        self._n_renders = 0
        self._is_first_frame_drawn = False
        self._redraws_held = False  # inside a batch of model changes (a new scene)
        self._is_redraw_held = False  # a redraw was asked for inside it
        self._slow_notice = SlowDrawingNotice()
        self.plotter.ren_win.AddObserver("EndEvent", self._count_render)
        # Canvas text follows the screen's logical DPI (96 = scale 1), like the widgets' text.
        self.renderer = SceneRenderer(self.plotter, text_scale=self.logicalDpiY() / 96.0)
        self.interaction = CanvasInteraction(self.plotter, self.renderer, model, controller, self)
        self.docks = make_docks(model, controller)
        self.docks["scene_dock"].panel.scene_octree_requested.connect(self.open_scene_octree)
        self.docks["scene_dock"].panel.may_switch_scene = lambda: may_leave_recording(self)
        self.timeline = TimelinePanel(model, controller)
        self.timeline_dock = layout.make_timeline_dock(self.timeline)
        layout.apply_default_layout(self)
        self.tree_tools = TreeTools(self)
        self.stepper_view = StepperView(self)
        self.lecture = LectureMode(self)
        self.caption = CanvasCaption(self)
        self.status_line = StatusLine(self.statusBar())
        controller.frames.overlay_request = self._overlay_request
        # The status bar's times and recording summary change with every frame while playing:
        # written at most every PLAYING_REFRESH_S (0.7 ms of the GUI thread a frame on
        # bunny-bunny, interpreter-lock time the next frame's core waited for).
        self._timings_refresh = WhenShown(self.status_line.timing_label, model,
                                          lambda frame: self.status_line.show_timings(
                                              self.model, frame))
        self._recording_refresh = WhenShown(self.status_line.recording_label, model,
                                            self._show_recording_now)
        self.kernel_status = KernelStatusBar(self)
        self._build_menus()

        model.changes_batched.connect(self._hold_redraws)
        model.scene_changed.connect(self._on_scene)
        model.body_changed.connect(self._on_body)
        model.selection_changed.connect(self._on_selection)
        model.frame_ready.connect(self._on_frame)
        model.level_changed.connect(lambda _l: self._refresh_inspect_and_redraw())
        model.display_changed.connect(self._on_display)
        model.inspect_changed.connect(lambda _i: self._redraw_for_result())
        model.mode_changed.connect(self._on_mode)
        model.message.connect(lambda text: self.statusBar().showMessage(text, 5000))
        model.error.connect(self.show_error)
        model.loading_changed.connect(self.progress_dialogs.show_loading)
        model.step_mode_changed.connect(self.stepper_view.on_step_mode)
        model.step_position_changed.connect(lambda _p: self.stepper_view.on_stepper())
        model.steps_changed.connect(lambda _s: self.stepper_view.on_stepper())
        model.playing_changed.connect(
            lambda _p: self._show_timings(model.frame) if model.frame is not None else None)
        model.playing_changed.connect(self._legend_pace)
        model.recording_changed.connect(self._show_recording)
        model.cursor_changed.connect(self._on_cursor)
        model.job_progress.connect(self.progress_dialogs.show_job)
        model.job_finished.connect(lambda _words: self.progress_dialogs.hide_job())
        model.analysis_changed.connect(self._on_side_result)
        model.side_changed.connect(lambda _side: self._on_side_result())
        model.frame_failed.connect(self._on_frame_failed)
        signals = controller.lessons.lesson_signals
        signals.step_changed.connect(lambda _i: self._redraw_for_result())
        signals.lesson_changed.connect(lambda _l: self._redraw_for_result())
        signals.figure_changed.connect(lambda _r: self.update_figure())
        self._restored_layout = window_settings.restore_settings(self)

    # -- menus, toolbar and keys (viewer.words.actions) ----------------------------------------
    def _build_menus(self) -> None:
        """Every menu entry, toolbar button and key from the action table; the parts that
        answer them are made between the actions and the menus (they hold their actions)."""
        self.table_actions = create_actions(self)
        self.file_menu = FileMenu(self)
        self.session_menu = SessionMenu(self)
        self.contact_log_menu = ContactLogMenu(self)
        self.tree_diff_menu = TreeDiffMenu(self)
        self.export_menu = ExportMenu(self)
        self.recording_menu = RecordingMenu(self)
        self.lesson_menu = LessonMenu(self)
        self.experiments_menu = ExperimentsMenu(self)
        self.toolbar = make_toolbar(self)
        self.menus = build_menus(self, self.table_actions, self.toolbar)
        actions = self.table_actions
        self.open_action = actions["file.open_mesh"]
        self.clear_selection_action = actions["view.clear_selection"]
        self.reset_layout_action = actions["view.reset_layout"]
        self.lecture_action = actions["view.lecture"]
        self.heat_action = actions["view.heat"]
        self.ghost_action = actions["view.ghost"]
        self.model.display_changed.connect(lambda d: self.ghost_action.setChecked(d.show_ghost))
        self.crosscheck_action = actions["view.crosscheck"]
        engine, words = self.controller.analysis.cross_check_engine()
        if engine is not None:
            self.crosscheck_action.setText(f"Cross-check this frame with {words.split()[0]}…")
        tip = (f"Run this frame's meshes A and B through {words} and list the triangle pairs "
               "only one engine reports, each with its exact gap" if engine is not None
               else words)
        self.crosscheck_action.setToolTip(tip)
        self.crosscheck_action.setStatusTip(tip)
        self.crosscheck_action.setEnabled(engine is not None)
        group = QActionGroup(self)
        self.mode_actions: dict[Mode, QAction] = {}
        for mode in Mode:
            self.mode_actions[mode] = actions[f"tools.{mode.value}"]
            group.addAction(self.mode_actions[mode])
        self.mode_actions[self.model.mode].setChecked(True)
        self.play_action = actions["tools.play"]
        self.recording_actions = actions_under(actions, "recording")
        self.recording_actions["record"].setChecked(self.model.is_recording)
        self.stepper_view.bind_actions(
            actions["stepper.toggle"],
            {key: action for key, action in actions_under(actions, "stepper").items()
             if key != "toggle"})
        self.tree_tools.bind_actions()

    def scene_actions(self) -> list[QAction]:
        """File > Built-in scenes: one entry per scene, Ctrl+1, Ctrl+2, … in order."""
        # Through load_scene_asking: a recording is not dropped unasked.
        return [make_action(self, spec.title, lambda _c=False, k=key: load_scene_asking(self, k),
                            f"Ctrl+{i + 1}") for i, (key, spec) in enumerate(SCENES.items())]

    def dock_toggle_actions(self) -> list[QAction]:
        """View menu: show or hide each dock of the default layout."""
        self.dock_actions: dict[str, QAction] = {}
        for name in dock_names():
            action = self.docks[name].toggleViewAction()
            action.setToolTip(f"Show or hide the {self.docks[name].windowTitle()} dock")
            self.dock_actions[name] = action
        return list(self.dock_actions.values())

    def toolbar_toggle_actions(self) -> list[QAction]:
        """View menu: show or hide the toolbar and the timeline."""
        return [self.toolbar.toggleViewAction(), self.timeline_dock.toggleViewAction()]

    def choose_mode(self, name: str) -> None:
        """Camera (C), Move (M) or Sculpt (S): what a left-drag on the canvas does."""
        self.model.set_mode(Mode(name))

    def show_ghost(self, is_on: bool) -> None:
        """View > Ghost: a tree built fresh on the frame beside the refitted one."""
        self.model.set_display(show_ghost=is_on)

    def open_crosscheck_dialog(self):
        """View > Cross-check this frame…: runs the check in the background and shows it."""
        from viewer.qt.dialogs.crosscheck import CrossCheckDialog

        dialog = show_kept(self, "crosscheck_dialog",
                           lambda: CrossCheckDialog(self.model, self.controller, self))
        dialog.run()
        return dialog

    def _on_scene(self) -> None:
        self._has_frame = False
        self._set_bodies()
        self.renderer.set_selection(None)
        self.renderer.set_brush(None)
        # One render for the new scene, not one here, one for the selection cleared and one
        # for the cleared frame (82 ms each on the 278k-triangle bunny, software OpenGL).
        set_default_view(self.plotter)
        self.request_redraw()
        QTimer.singleShot(COLD_START_DELAY_MS, self._show_progress_if_waiting)
        self.statusBar().showMessage(
            f"{self.model.scene_title}: computing the first frame", 8000)

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
            self._redraw_for_change()
        elif not self.is_redraw_pending and not self.controller.frames.is_frame_running:
            # Else the pending redraw, or the frame on its way (a sculpt stroke, a drag ask
            # for one), renders the new shape or pose: rendered here as well, each mouse move
            # of a stroke on big-bunny with every analysis on rendered twice (GUI blocks of
            # 104-121 ms).
            self.plotter.render()

    def _on_selection(self, index: int) -> None:
        body = self.model.bodies[index] if 0 <= index < len(self.model.bodies) else None
        self.renderer.set_selection(body if body is not None and body.is_visible else None)
        if body is not None:
            self.statusBar().showMessage(f"Selected {body.name}", 3000)
        if not self.is_redraw_pending:  # else the pending redraw shows it
            self.plotter.render()

    def _on_display(self, display) -> None:
        if display.is_full_resolution != self._drawn_full_resolution:
            self._set_bodies()
            self._on_selection(self.model.selected)
        self.renderer.set_mesh_opacity(self.stepper_view.mesh_opacity(display.mesh_opacity))
        self._redraw_for_change()

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
        self.progress_dialogs.show_first_frame(self.model.kernels.is_compiling)

    def _on_frame(self, frame) -> None:
        if frame is None:  # a new scene cleared the last one's frame: nothing of it stays
            self.status_line.clear_timings()
            self.request_redraw()
            return
        self.progress_dialogs.hide_first_frame()
        if not self._has_frame:
            self.statusBar().showMessage(f"{self.model.scene_title} · F1: how to read this "
                                         "view", 8000)
        self._has_frame = True
        if self.model.inspect is not None:
            self._refresh_inspect()
        self._redraw_for_result()

    def failure_text(self) -> str:
        """The failed frame's mark ("frame 38 failed: <reason> - showing frame 37; its
        contacts are not drawn"), "" when the last live frame did not fail."""
        failure = self.model.frame_failure
        if failure is None:
            return ""
        text = failure.text(self.model.frame)
        return text + ("; its contacts are not drawn" if self.model.frame is not None else "")

    def _on_frame_failed(self, _failure) -> None:
        self.status_line.show_failure(self.failure_text())
        self._redraw_for_result()

    def _refresh_inspect(self) -> None:
        info = self.model.inspect
        if info is None:
            return
        # The clicked box stays the same while the level moves: its depth is kept.
        self.model.inspect = self.controller.inspector.inspect_node(
            self.model.frame, info.body, info.triangle, self.model.level, depth=info.depth)
        self.model.inspect_changed.emit(self.model.inspect)

    def _refresh_inspect_and_redraw(self) -> None:
        if self.model.inspect is not None:
            self._refresh_inspect()  # emits inspect_changed, which redraws
        else:
            self._redraw_for_change()

    def step_note(self) -> str:
        """Canvas note (:meth:`viewer.qt.window.stepper_view.StepperView.step_note`)."""
        return self.stepper_view.step_note()

    def _legend_pace(self, is_playing: bool) -> None:
        """While playing, the canvas legend picks its corner at most every
        :data:`LEGEND_REPICK_S`; paused, at every render."""
        self.renderer.canvas_legend.repick_every_s = LEGEND_REPICK_S if is_playing else 0.0

    def _count_render(self, _ren_win, _event) -> None:
        self._n_renders += 1

    def request_redraw(self) -> None:
        """Redraw once the events already queued have run: every request of one event-loop
        turn (a frame and the ghost or side result that finished with it) is one render."""
        if not self._redraw_timer.isActive():
            self._redraw_timer.start()

    def _redraw_for_result(self) -> None:
        """While playing, results come in streams (a frame, then the ghost or side result
        finishing with it): coalesced by :meth:`request_redraw`. Paused, a result comes from
        one change (a click, a step, a scrub) and is drawn as one
        (:meth:`_redraw_for_change`)."""
        if self.model.is_playing:
            self.request_redraw()
        else:
            self._redraw_for_change()

    @property
    def is_redraw_pending(self) -> bool:
        """A :meth:`request_redraw` has not been drawn yet (or is prepared, not rendered)."""
        return self._redraw_timer.isActive() or self._render_timer.isActive()

    def _on_side_result(self) -> None:
        """A ghost, a cross-check or a side result (distance, inside test) finished: drawn at
        once when paused; while a frame is on its way its redraw shows it (one render, not
        two)."""
        if not self.controller.frames.is_frame_running:
            self.request_redraw()

    def _hold_redraws(self, is_held: bool) -> None:
        """A batch of model changes (a new scene's dozen signals) draws once, at its end."""
        self._redraws_held = is_held
        if not is_held and self._is_redraw_held:
            self._is_redraw_held = False
            self.redraw()

    def redraw(self) -> None:
        """Copy the last frame into the overlays and render now; records overlay and render
        time. A pending :meth:`request_redraw` is drawn by this one."""
        if self._redraws_held:
            self._is_redraw_held = True
            return
        self._redraw_timer.stop()
        self._render_timer.stop()
        if self.plotter.ren_win is None:
            return
        self._render_frame(self.model.frame, self._prepare_frame())

    def _redraw_for_change(self) -> None:
        """A user's change (a level, a display choice, a step while paused): the scene's
        overlays now, so the handler returns with them in place, and the render in the next
        turn. Both in one turn blocked the GUI thread 90-106 ms on big-bunny (the heat map
        switched on while paused: a 14 ms count, 30 ms of overlays, a 60 ms render)."""
        self._redraw_timer.stop()
        self._redraw_in_two_turns()

    def _redraw_in_two_turns(self) -> None:
        """A :meth:`request_redraw`: the overlays now, the render in the next turn."""
        if self._redraws_held:
            self._is_redraw_held = True
            return
        if self.plotter.ren_win is None:
            return
        self._prepared = (self.model.frame, self._prepare_frame())
        self._render_timer.start()

    def finish_redraw(self) -> None:
        """Render now a redraw whose overlays are prepared and whose render waits for the
        next turn (:meth:`_redraw_for_change`): an export grabs what is drawn."""
        if self._render_timer.isActive():
            self._render_timer.stop()
            self._render_prepared()

    def _render_prepared(self) -> None:
        if self._redraws_held:
            self._is_redraw_held = True
        elif self.plotter.ren_win is not None:
            self._render_frame(*self._prepared)
            if self._redraw_timer.isActive():
                # A newer frame asked for a redraw while this one was being drawn. Qt fires,
                # in one pass, every timer that was due when the pass began, oldest first: its
                # timer, started before this render, would copy the next overlays right now,
                # ahead of the input and timers that waited through the render. Started
                # again, it is due after them.
                self._redraw_timer.start()

    def _prepare_frame(self) -> float:
        """Put the shown frame into the scene's overlays, marks and caption; the overlays'
        time in seconds."""
        frame = self.model.frame
        hidden = self._hidden_bodies()
        if frame is not None and self.model.cursor is not None:
            # A recorded frame: the meshes stand where they were then, not where they are now.
            self.renderer.set_body_poses([pose.as_matrix() for pose in frame.poses])
        self.stepper_view.follow_pair()
        step = self.controller.stepper.step_view() if self.model.is_stepping else None
        heat, heat_note = (self.controller.analysis.heat_for(frame)
                           if self.model.display.heat_map != "off" else (None, ""))
        display = self.model.display
        failure = self.failure_text()
        if failure:
            # The frame shown is older than the settings and trees now asked for: its
            # contacts are taken away rather than shown as if they were the answer.
            display = replace(display, show_contacts=False)
        self.renderer.set_failure(failure)
        # Step mode shows the contacts of the leaf pairs reached by this level, like the
        # stepper (all of them showed at level 0).
        level_contacts = (self.controller.stepper.level_contact_ids(frame, self.model.level)
                          if self.model.is_step_mode and step is None else None)
        overlay_s = self.renderer.update_frame(frame, display, self.model.level,
                                               self.model.inspect,
                                               self.stepper_view.step_note(), hidden,
                                               step, heat=heat, heat_note=heat_note,
                                               contact_ids=level_contacts,
                                               ghost=self.controller.analysis.ghost_view(),
                                               crosscheck=self._outlined_pairs(),
                                               tree_diff=self.controller.tree_diff.diff_view(),
                                               side=shown_side(frame, self.model.side,
                                                               self.model.side_by_frame),
                                               prepared=self.controller.frames.prepared_overlays,
                                               budget=self.renderer.line_budget(display))
        self.renderer.update_marks(frame, self.model.selected_node,
                                   self.tree_tools.violation_nodes(),
                                   self.controller.inspector.tree_file_ids(frame), hidden)
        self.refresh_caption()
        return overlay_s

    def _hidden_bodies(self) -> frozenset:
        """Tested bodies (0 = A, 1 = B) the user hid."""
        return frozenset(i for i, body in enumerate(self.model.bodies[:2])
                         if not body.is_visible)

    def _overlay_request(self) -> OverlayRequest | None:
        """The view choices the next live frame's overlays are built for on the frame's
        lane; None when the frame would not be drawn with them (a recorded frame shown, the
        stepper, a clicked box)."""
        model = self.model
        if (model.cursor is not None or model.is_step_mode or model.is_stepping
                or model.inspect is not None):
            return None
        return OverlayRequest(model.display, model.level, self._hidden_bodies(),
                              self.renderer.line_budget(model.display))

    def _render_frame(self, frame, overlay_s: float) -> None:
        """Render the scene prepared for ``frame`` and report the view's timings."""
        start = time.perf_counter()
        n_renders = self._n_renders
        self.plotter.render()
        render_s = time.perf_counter() - start
        self.renderer.observe_render(render_s)
        if (frame is not None and self._n_renders > n_renders and self.plotter.isVisible()
                and not self._is_first_frame_drawn):
            self._is_first_frame_drawn = True
            self.first_frame_drawn.emit()
        self.model.set_view_timings(ViewTimings(overlay_s, render_s,
                                                self._slow_drawing(frame, overlay_s, render_s)))
        if frame is not None:
            self._show_timings(frame)

    def _slow_drawing(self, frame, overlay_s: float, render_s: float) -> str:
        words, is_new = self._slow_notice.check(
            frame.index if frame is not None else None, overlay_s, render_s,
            lambda: self.plotter.renderer.actors, tuple(self.plotter.ren_win.GetSize()))
        if is_new:
            self.model.message.emit(words)
        return words

    def _outlined_pairs(self):
        """The pairs whose triangles the view outlines: a cross-check's of the shown frame,
        else the disagreeing pairs of the contact-log frame shown."""
        return (self.controller.analysis.crosscheck_view()
                or self.controller.contact_log.disagreeing_pairs())

    # -- lessons and lecture mode (viewer.qt.window.caption) --------------------------------
    def refresh_caption(self) -> None:
        self.caption.refresh()

    def update_figure(self) -> None:
        self.caption.update_figure()

    def resizeEvent(self, event):  # noqa: N802 - Qt API
        super().resizeEvent(event)
        if self.controller.lessons.figure is not None:
            QTimer.singleShot(0, self.update_figure)

    def _show_timings(self, frame) -> None:
        self._timings_refresh(frame)

    def open_compare(self):
        """Show the compare view (created once, kept between openings)."""
        from viewer.qt.dialogs.compare import CompareDialog

        return show_kept(self, "compare_dialog", lambda: CompareDialog(self.model, self))

    def open_scene_octree(self):
        """Show the many-objects scene octree demo (Zhou et al. 2009) in its own window."""
        from viewer.qt.dialogs.scene_octree import SceneOctreeWindow

        return show_kept(self, "octree_window", lambda: SceneOctreeWindow(self))

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

    def reset_layout(self) -> None:
        """View > Reset layout: the default docks, and that layout remembered at once (so a
        broken layout saved earlier is not restored over it on the next start)."""
        layout.apply_default_layout(self)
        self.settings.setValue("window_state", self.saveState(layout.LAYOUT_VERSION))
        self.settings.sync()
        self.statusBar().showMessage("Layout reset: every dock is back on the right", 5000)

    def canvas_share(self) -> float:
        """Share of the window width the 3-D view has (0 before the window is laid out)."""
        return layout.canvas_share(self)

    def _check_restored_layout(self) -> None:
        """After the first show: fall back to the default layout if the remembered one hides
        every dock or squeezes the canvas below :data:`viewer.qt.window.layout.MIN_CANVAS_SHARE`."""
        if not self._restored_layout:
            return
        self._restored_layout = False
        if not layout.is_layout_usable(self):
            self.reset_layout()

    def showEvent(self, event):  # noqa: N802 - Qt API
        super().showEvent(event)
        # The dock area makes its tab bars when it lays the docks out, after the first show.
        QTimer.singleShot(0, lambda: layout.show_whole_tab_titles(self))
        if self._restored_layout:
            QTimer.singleShot(0, self._check_restored_layout)
        if not self._is_first_frame_drawn and self.model.frame is not None:
            # The first frame was computed while the window was hidden: draw it now that it
            # can be seen (a paused scene would otherwise wait for the next change).
            QTimer.singleShot(0, self.redraw)

    def reset_camera(self) -> None:
        set_default_view(self.plotter)
        self.plotter.render()

    # -- recording --------------------------------------------------------------------------
    def _show_recording(self) -> None:
        self._recording_refresh()

    def _show_recording_now(self) -> None:
        self.status_line.show_recording(self.model.recording)

    def _on_cursor(self, cursor) -> None:
        if cursor is None:  # live again: every mesh back at its live pose
            for i, body in enumerate(self.model.bodies):
                self.renderer.update_body(i, body)
        self._show_recording()

    def show_error(self, title: str, text: str) -> None:
        """Show an error without blocking (a modal dialog would stall the frame loop)."""
        self.last_error = (title, text)
        self.progress_dialogs.hide_first_frame()
        self.statusBar().showMessage(f"{title}: {text}", 10000)
        if self._error_box is None:
            self._error_box = QMessageBox(QMessageBox.Icon.Warning, title, text,
                                          QMessageBox.StandardButton.Ok, self)
        self._error_box.setWindowTitle(title)
        self._error_box.setText(text)
        self._error_box.open()

    def show_help(self) -> None:
        """Help > How to read this view."""
        self._help_box = window_help.show_help(self)

    def show_keys(self) -> None:
        """Help > Keys: every key, from the action table."""
        self._keys_box = window_help.show_keys(self)

    def show_error_log(self) -> None:
        dialog = error_log_dialog(self, self.error_log)
        dialog.open()
        self._error_log_dialog = dialog

    def last_scene(self) -> str:
        return window_settings.last_scene(self.settings)

    def save_settings(self) -> None:
        window_settings.save_settings(self)

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
