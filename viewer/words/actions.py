"""Every menu entry, toolbar button and key of the main window, written once.

:data:`ACTIONS` is the one table the window builds its menus, toolbar and shortcuts from
(:mod:`viewer.qt.menus.build`), and the one source of the Keys help (Help > Keys) and of the
key table of docs/app.md (:func:`keys_markdown`; tests/viewer/qt/test_actions.py checks they
agree).
A key written anywhere else (a tooltip, a button, the caption bar's hint) reads it from here
with :func:`shortcut_of`.

Plain data: no Qt, no core. Handlers are named, not imported: ``handler`` is a dotted path
on the window (``"session_menu.ask_export_mesh"``, ``"docks.levels_dock.panel.next_heat_map"``)
that the builder resolves once the window's parts exist.
"""

from __future__ import annotations

from dataclasses import dataclass

MENU_SEPARATOR = "/"
"""Separates a menu from its submenu in :attr:`Action.menu` (``"&File/E&xport"``)."""


@dataclass(frozen=True)
class Action:
    """One row of the table.

    Attributes
    ----------
    id : str
        ``"<place>.<name>"``; the window keeps the built ``QAction`` under it in its
        ``table_actions``.
    menu : str
        Where the entry is: a menu path (``"&View"``, ``"&File/E&xport"``), ``"toolbar"``
        for a button of the Tools toolbar, or ``""`` for a key handled by a widget itself
        (:attr:`kind` ``"key"``: documented, no ``QAction``).
    label : str
        The entry's text with its ``&`` mnemonic (a toolbar button shows its key after it).
    shortcut : str
        Portable key text (``"Ctrl+Shift+S"``); ``""`` for none.
    help : str
        Tooltip and status-bar tip.
    handler : str
        Dotted path on the window of what the entry calls ("" for a key-only row).
    args : tuple
        Plain values passed to the handler.
    takes_checked : bool
        The handler also receives the checked state (after ``args``).
    checkable : bool
    kind : str
        ``"action"``, ``"separator"``, ``"group"`` (entries the window makes at build time,
        such as one per built-in scene: ``handler`` names the window method that returns
        them) or ``"key"`` (a key a widget handles itself; documented only).
    words : str
        What the key does, for the Keys help and docs/app.md; default: the label.
    shares_key_with : str
        Id of the one action that has the same key and is never active at the same time
        (Esc: Clear selection, or Cancel the experiment while one runs).
    """

    id: str
    menu: str
    label: str = ""
    shortcut: str = ""
    help: str = ""
    handler: str = ""
    args: tuple = ()
    takes_checked: bool = False
    checkable: bool = False
    kind: str = "action"
    words: str = ""
    shares_key_with: str = ""

    @property
    def plain_label(self) -> str:
        """The label without its mnemonic ``&`` and trailing ellipsis."""
        return self.label.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…")

    @property
    def place(self) -> str:
        """Where the entry is, in words: ``"File > Export"``, ``"toolbar"``, ``"canvas"``."""
        if self.kind == "key":
            return self.menu or "keys only"
        return " > ".join(part.replace("&", "") for part in self.menu.split(MENU_SEPARATOR))


def _sep(menu: str, n: int) -> Action:
    return Action(id=f"{menu.replace('&', '').lower()}.separator{n}", menu=menu, kind="separator")


FILE, EXPORT, SCENES = "&File", "&File/E&xport", "&File/&Built-in scenes"
EDIT, VIEW, STEPPER, TREE = "&Edit", "&View", "S&tepper", "T&ree"
RECORDING, LESSONS, EXPERIMENTS, HELP = "&Recording", "Le&ssons", "E&xperiments", "&Help"
TOOLBAR = "toolbar"
SESSION_TIP = ("A session keeps the scene: meshes with their sculpting, poses, deformers, "
               "choices and camera")
STEP_TIP = "Walk this frame's traversal one pair test at a time (pauses playing)"

STEP_KEY = "stepper_view.step_key"
"""The handler of every stepper key (:class:`viewer.qt.window.stepper_view.StepperView`)."""

ACTIONS: tuple[Action, ...] = (
    # -- File -------------------------------------------------------------------------------
    Action("file.open_mesh", FILE, "&Open mesh (add to scene)…", "Ctrl+O",
           handler="file_menu.open_mesh", words="add a mesh to the scene"),
    Action("file.open_new_scene", FILE, "Open meshes as a &new scene…", "Ctrl+Shift+O",
           handler="file_menu.open_new_scene"),
    Action("file.scenes", SCENES, kind="group", shortcut="Ctrl+1…9", handler="scene_actions",
           words="built-in scenes, in the menu's order"),
    _sep(FILE, 1),
    Action("file.screenshot", FILE, "&Save screenshot…", "Ctrl+S",
           handler="file_menu.save_screenshot"),
    _sep(FILE, 2),
    Action("file.open_contact_log", FILE, "Open &contact log…", "Ctrl+Shift+C",
           "Check another engine's contacts, frame by frame (JSON lines; the format is in "
           "docs/command-line.md), against the exact answer; its frames go on the timeline, each "
           "disagreeing one marked", "contact_log_menu.open_contact_log",
           words="open an engine's contact log and check it against the exact answer"),
    Action("file.export_mesh", FILE, "&Export mesh…", "Ctrl+E",
           "Write the selected body's current triangles as OBJ, PLY or STL",
           "session_menu.ask_export_mesh", words="export the selected body's mesh (OBJ, PLY, STL)"),
    _sep(FILE, 3),
    Action("file.open_session", FILE, "Open &session…", "Ctrl+Alt+O", SESSION_TIP,
           "session_menu.ask_open_session"),
    Action("file.save_session", FILE, "Save s&ession", "Ctrl+Alt+S", SESSION_TIP,
           "session_menu.save_session"),
    Action("file.save_session_as", FILE, "Save session &as…", "Ctrl+Alt+Shift+S", SESSION_TIP,
           "session_menu.ask_save_session_as"),
    Action("export.video", EXPORT, "&Video of recorded frames…", "Ctrl+Shift+M",
           "Render the timeline's recorded frames, as the view draws them now, to MP4 or GIF",
           "export_menu.ask_recorded_video"),
    Action("export.record_video", EXPORT, "&Record video while playing", "Ctrl+Shift+V",
           "On: every frame drawn while the scene or the recording plays goes into a video; "
           "off: the video is finished", "export_menu.toggle_record_video",
           takes_checked=True, checkable=True, words="record a video while playing (on / off)"),
    _sep(EXPORT, 1),
    Action("export.web_page", EXPORT, "3-D view as &web page (HTML)…", "Ctrl+Shift+W",
           "An interactive page of the 3-D view (meshes, volumes at this level, contacts, "
           "segments) that opens offline in any browser", "export_menu.ask_web_page"),
    Action("export.frame_data", EXPORT, "&Frame data (CSV and JSON)…", "Ctrl+Shift+F",
           "The shown frame's traversal trace, counters and contacts as CSV tables and one "
           "JSON file", "export_menu.ask_frame_data"),
    _sep(FILE, 4),
    Action("file.quit", FILE, "&Quit", "Ctrl+Q", handler="close"),
    # -- Edit -------------------------------------------------------------------------------
    Action("edit.undo", EDIT, "&Undo sculpt stroke", "Ctrl+Z",
           handler="controller.sculpting.undo_stroke"),
    # -- View -------------------------------------------------------------------------------
    Action("view.reset_camera", VIEW, "&Reset camera", "R", handler="reset_camera"),
    Action("view.clear_selection", VIEW, "Clear &selection", "Esc",
           "Forget the clicked box and the selected mesh", "clear_selection"),
    Action("view.compare", VIEW, "&Compare bounding volumes…", "Ctrl+K", handler="open_compare"),
    Action("view.scene_octree", VIEW, "Scene &octree demo (Zhou 2009)…", "Ctrl+J",
           handler="open_scene_octree"),
    _sep(VIEW, 1),
    Action("view.heat", VIEW, "Next &heat map", "H",
           "Off → triangles by work → nodes by visits → nodes by SAH share → off (Levels dock, "
           "Draw)", "docks.levels_dock.panel.next_heat_map"),
    Action("view.ghost", VIEW, "&Ghost: freshly built tree", "G",
           "The volumes of a tree built fresh on this frame, as grey dashes beside the "
           "refitted ones", "show_ghost", takes_checked=True, checkable=True,
           words="ghost of a freshly built tree on / off"),
    Action("view.crosscheck", VIEW, "Cross-check this frame with python-fcl…", "Ctrl+Shift+X",
           "Run this frame's meshes A and B through another engine and list the triangle pairs "
           "only one engine reports, each with its exact gap", "open_crosscheck_dialog"),
    _sep(VIEW, 2),
    Action("view.docks", VIEW, kind="group", handler="dock_toggle_actions",
           words="show or hide each dock"),
    Action("view.reset_layout", VIEW, "Reset &layout", "Ctrl+Shift+R",
           "Bring back every dock, tabbed in one column on the right of the view",
           "reset_layout"),
    Action("view.lecture", VIEW, "L&ecture mode", "F11",
           "The view alone, full screen, large text and a caption, for a projector; "
           "Right/Left step, Space plays, Esc leaves", "lecture.toggle", checkable=True,
           words="lecture mode on / off (Esc also leaves it)"),
    _sep(VIEW, 3),
    Action("view.toolbar", VIEW, kind="group", handler="toolbar_toggle_actions",
           words="show or hide the toolbar and the timeline"),
    # -- Tools toolbar ------------------------------------------------------------------------
    Action("tools.camera", TOOLBAR, "Camera", "C",
           "Drag to turn the view, wheel to zoom, click to inspect", "choose_mode",
           ("camera",), checkable=True, words="Camera mode"),
    Action("tools.move", TOOLBAR, "Move", "M",
           "Drag a mesh to slide it; right- or Ctrl-drag turns it", "choose_mode", ("move",),
           checkable=True, words="Move mode"),
    Action("tools.sculpt", TOOLBAR, "Sculpt", "S", "Drag on a surface to pull it",
           "choose_mode", ("sculpt",), checkable=True, words="Sculpt mode"),
    _sep(TOOLBAR, 1),
    Action("tools.play", TOOLBAR, "Play / pause", "Space", handler="toggle_play",
           words="play / pause (the recording while a recorded frame is shown)"),
    Action("tools.step_frame", TOOLBAR, "Step frame", ".", handler="controller.animation.step_time",
           args=(1 / 30,), words="one frame forward"),
    _sep(TOOLBAR, 2),
    Action("tools.level_back", TOOLBAR, "◀ Level", "[",
           handler="docks.levels_dock.panel.step_level", args=(-1,),
           words="previous traversal level"),
    Action("tools.level_forward", TOOLBAR, "Level ▶", "]",
           handler="docks.levels_dock.panel.step_level", args=(+1,),
           words="next traversal level"),
    Action("tools.all_levels", TOOLBAR, "All levels", "A", handler="model.set_level",
           args=(None,), words="all levels at once"),
    _sep(TOOLBAR, 3),
    Action("tools.reset_camera", TOOLBAR, "Reset camera (R)", handler="reset_camera"),
    # -- Stepper ----------------------------------------------------------------------------
    Action("stepper.toggle", STEPPER, "&Step the traversal", "Ctrl+T", STEP_TIP,
           "stepper_view.toggle", checkable=True, words="stepper on / off"),
    _sep(STEPPER, 1),
    Action("stepper.restart", STEPPER, "Restart", "Home",
           "Back to the root pair, the first test (Home)", STEP_KEY, ("restart",),
           words="stepper: back to the root pair (turns it on)"),
    Action("stepper.back", STEPPER, "◀ Back", "Left", "One pair test back (Left arrow)",
           STEP_KEY, ("back",), words="stepper: one pair test back"),
    Action("stepper.forward", STEPPER, "Forward ▶", "Right",
           "One pair test forward (Right arrow)", STEP_KEY, ("forward",),
           words="stepper: one pair test forward"),
    Action("stepper.overlap", STEPPER, "Next overlap", "O",
           "Run forward to the next pair whose volumes overlap (O)", STEP_KEY, ("overlap",),
           words="stepper: run to the next overlap"),
    Action("stepper.leaf", STEPPER, "Next leaf pair", "P",
           "Run forward to the next overlapping pair of two leaves, whose triangles are tested "
           "(P)", STEP_KEY, ("leaf",), words="stepper: run to the next leaf pair"),
    Action("stepper.contact", STEPPER, "Next contact", "T",
           "Run forward to the next leaf pair with triangles in contact (T)", STEP_KEY,
           ("contact",), words="stepper: run to the next contact"),
    Action("stepper.level_end", STEPPER, "End of level", "E",
           "Run forward to the last pair of this level (E)", STEP_KEY, ("level_end",),
           words="stepper: run to the end of the level"),
    Action("stepper.frame", STEPPER, "Frame the pair", "F",
           "Move the camera to the pair under test, looking from where it looks now (F)",
           STEP_KEY, ("frame",), words="stepper: frame the pair under test"),
    # -- Tree -------------------------------------------------------------------------------
    Action("tree.quality", TREE, "&Quality panel", "Ctrl+Shift+Q",
           "Show the Quality dock in front, or hide it when it is in front",
           "tree_tools.toggle_dock", ("quality_dock",), checkable=True),
    Action("tree.outliner", TREE, "O&utliner", "Ctrl+Shift+U",
           "Show the Outliner dock in front, or hide it when it is in front",
           "tree_tools.toggle_dock", ("outliner_dock",), checkable=True),
    _sep(TREE, 1),
    Action("tree.check", TREE, "&Check tree invariants", "Ctrl+Shift+I",
           "Each node encloses its children and its triangles in the current pose, the "
           "triangle ids are a permutation, the topology is consistent",
           "tree_tools.check_invariants"),
    Action("tree.every_refit", TREE, "Check invariants after every &refit", "",
           "Debug setting: the pipeline checks every tree it refits or builds (slower)",
           "tree_tools.set_validate_after_refit", takes_checked=True, checkable=True),
    Action("tree.diff", TREE, "Compare &two trees…", "Ctrl+Shift+T",
           "Two trees of the shown body's mesh side by side (the shown one, a fresh build, "
           "another split rule, a tree file): counts, histograms, SAH and EPO per level, the "
           "nodes that differ most, drawn in the view", "tree_diff_menu.open_dialog",
           words="compare two trees of a body's mesh (tree diff)"),
    _sep(TREE, 2),
    *(Action(f"tree.open_{body}", TREE, f"&Open tree file for body {name}…", "",
             f"Read a tree of body {name} built by another engine (BVH Lab's JSON or NPZ, coal's "
             "archives, three-mesh-bvh's serialize(); told by the content; formats in "
             "docs/file-formats.md), check it and use it for the collision query",
             "tree_tools.open_tree_file", (body,)) for body, name in enumerate("AB")),
    *(Action(f"tree.own_{body}", TREE, f"Use BVH Lab's own tree again for {name}", "",
             f"Forget the tree read from a file for body {name}: build BVH Lab's own",
             "controller.inspector.use_own_tree", (body,)) for body, name in enumerate("AB")),
    *(Action(f"tree.save_{body}", TREE, f"&Save tree of body {name}…", "",
             f"Write the shown tree of body {name} as JSON or as a NumPy archive (NPZ)",
             "tree_tools.save_tree_file", (body,)) for body, name in enumerate("AB")),
    # -- Recording --------------------------------------------------------------------------
    Action("recording.save", RECORDING, "&Save recording…", "Ctrl+Shift+S",
           "Write every recorded frame to a .bvhrec file", "recording_menu.save_recording_as"),
    Action("recording.open", RECORDING, "&Open recording…", "Ctrl+Shift+P",
           "Read a .bvhrec file and show its frames on the timeline",
           "recording_menu.open_recording_file"),
    Action("recording.replay", RECORDING, "&Replay with other settings…", "Ctrl+Shift+Y",
           "Run the recorded shapes again with another bounding volume or rule and compare",
           "recording_menu.open_replay_dialog"),
    Action("recording.drift", RECORDING, "&Drift and frame time…", "Ctrl+Shift+D",
           "Plot each tree's SAH drift and the frame time over the recorded frames, with the "
           "automatic rebuilds marked; click the plot to show a frame",
           "recording_menu.open_drift_dialog"),
    _sep(RECORDING, 1),
    Action("recording.step_back", RECORDING, "One frame &back", "Shift+Left",
           handler="controller.recorder.step_recorded", args=(-1,),
           words="one recorded frame back"),
    Action("recording.step_forward", RECORDING, "One frame &forward", "Shift+Right",
           handler="controller.recorder.step_recorded", args=(+1,),
           words="one recorded frame forward"),
    Action("recording.previous_event", RECORDING, "&Previous event", "Ctrl+Shift+Left",
           handler="controller.recorder.jump_to_event", args=(-1,),
           words="previous event marker on the timeline"),
    Action("recording.next_event", RECORDING, "&Next event", "Ctrl+Shift+Right",
           handler="controller.recorder.jump_to_event", args=(+1,),
           words="next event marker on the timeline"),
    Action("recording.reverse", RECORDING, "Play &backwards", "Shift+Space",
           handler="timeline.toggle_reverse", words="play the recording backwards"),
    Action("recording.live", RECORDING, "Back to &live", "L",
           "Leave the recording and show the live scene", "controller.recorder.go_live"),
    _sep(RECORDING, 2),
    Action("recording.clear", RECORDING, "&Clear recording", "", "Forget every recorded frame",
           "controller.recorder.clear_recording"),
    Action("recording.limits", RECORDING, "&Memory limit…", "",
           "Most megabytes and frames the recording keeps", "recording_menu.ask_recording_limits"),
    Action("recording.record", RECORDING, "Record &frames", "",
           "Keep every live frame on the timeline", "controller.recorder.set_recording_enabled",
           takes_checked=True, checkable=True),
    # -- Lessons ----------------------------------------------------------------------------
    Action("lessons.builtin", LESSONS, kind="group", handler="lesson_menu.builtin_action_list",
           words="the built-in lessons"),
    _sep(LESSONS, 1),
    Action("lessons.open", LESSONS, "&Open lesson file…", "Ctrl+Shift+L",
           "Play a lesson written as a TOML file (docs/lessons.md)", "lesson_menu.open_file"),
    Action("lessons.next", LESSONS, "&Next step", "PgDown",
           "Go to the lesson's next step (Right in lecture mode)", "controller.lessons.next_step",
           words="next lesson step (Right in lecture mode)"),
    Action("lessons.previous", LESSONS, "&Previous step", "PgUp",
           "Go back one step (Left in lecture mode)", "controller.lessons.previous_step",
           words="previous lesson step (Left in lecture mode)"),
    Action("lessons.close", LESSONS, "&Close lesson", "",
           "Leave the lesson: the scene stays; your settings from before it come back",
           "controller.lessons.close_lesson"),
    _sep(LESSONS, 2),
    Action("lessons.save_step", LESSONS, "&Save current state as a lesson step…", "Ctrl+Alt+L",
           "Append a step with this scene, its choices, level, update mode and camera, and "
           "a caption you type, to a new or existing lesson file", "lesson_menu.save_step"),
    # -- Experiments ------------------------------------------------------------------------
    Action("experiments.window", EXPERIMENTS, "Experiments &window", "Ctrl+Shift+E",
           "Show the Experiments window: rerun a classic result and get its figure",
           "experiments_menu.open_window"),
    _sep(EXPERIMENTS, 1),
    Action("experiments.list", EXPERIMENTS, kind="group",
           handler="experiments_menu.experiment_action_list",
           words="open the Experiments window on one experiment"),
    _sep(EXPERIMENTS, 2),
    Action("experiments.run", EXPERIMENTS, "&Run the experiment", "Ctrl+Return",
           "Run the experiment chosen in the Experiments window", "experiments_menu.run"),
    Action("experiments.cancel", EXPERIMENTS, "&Cancel the experiment", "Esc",
           "Stop the running experiment; the figure of the last run stays",
           "experiments_menu.panel.cancel", words="cancel the experiment while it runs",
           shares_key_with="view.clear_selection"),
    # -- Help -------------------------------------------------------------------------------
    Action("help.read", HELP, "&How to read this view", "F1", handler="show_help"),
    Action("help.keys", HELP, "&Keys", "",
           "Every key of the window, from the same table as the menus", "show_keys"),
    Action("help.error_log", HELP, "&Error log…", "",
           "The errors the app caught, with their tracebacks (for a bug report)",
           "show_error_log"),
    # -- Keys a widget handles itself --------------------------------------------------------
    Action("keys.nudge", "canvas, Move mode", kind="key", shortcut="arrows",
           words="nudge the selected mesh (Left/Right step the traversal while the stepper "
                 "is on)"),
    Action("keys.lecture", "lecture mode", kind="key", shortcut="Right, Left",
           words="next / previous lesson step; without a lesson one pair test while the "
                 "stepper is on, otherwise one traversal level"),
    Action("keys.lecture_play", "lecture mode", kind="key", shortcut="Space",
           words="play / pause"),
    Action("keys.lecture_leave", "lecture mode", kind="key", shortcut="Esc, F11",
           words="leave lecture mode"),
)
"""The window's menus, toolbar and keys, in the order they are built."""

ACTIONS_BY_ID: dict[str, Action] = {row.id: row for row in ACTIONS}


def shortcut_of(action_id: str) -> str:
    """The key of action ``action_id`` (``"Ctrl+T"``; ``""`` when it has none)."""
    return ACTIONS_BY_ID[action_id].shortcut


def rows_in(menu: str) -> list[Action]:
    """The rows of ``menu`` (a path, ``"toolbar"``) in table order, separators included."""
    return [row for row in ACTIONS if row.menu == menu]


def menu_paths() -> list[str]:
    """Every menu path of the table in the order of first appearance, each after its parent
    (``"&File"`` before ``"&File/E&xport"``); the toolbar and the key-only places left out."""
    paths: list[str] = []
    for row in ACTIONS:
        if row.kind == "key" or row.menu == TOOLBAR:
            continue
        parts = row.menu.split(MENU_SEPARATOR)
        for n in range(1, len(parts) + 1):
            path = MENU_SEPARATOR.join(parts[:n])
            if path not in paths:
                paths.append(path)
    return paths


def keyed_rows() -> list[Action]:
    """The rows with a key, in table order: what the Keys help and docs/app.md list."""
    return [row for row in ACTIONS if row.shortcut and row.kind != "separator"]


def _row_words(row: Action) -> str:
    return row.words or row.plain_label


def keys_markdown() -> str:
    """The key table of docs/app.md (between its ``keys-table`` markers), made from the table."""
    lines = ["| key | where | what it does |", "|---|---|---|"]
    for row in keyed_rows():
        key = row.shortcut.replace("|", "\\|")
        lines.append(f"| {key} | {row.place} | {_row_words(row)} |")
    return "\n".join(lines) + "\n"


def keys_html() -> str:
    """Help > Keys: the same rows as :func:`keys_markdown`, as an HTML table."""

    def escape(text: str) -> str:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    rows = "\n".join(f"<tr><td><b>{escape(row.shortcut)}</b></td><td>{escape(row.place)}</td>"
                     f"<td>{escape(_row_words(row))}</td></tr>" for row in keyed_rows())
    return ("<h3>Keys</h3>\n<table cellspacing=\"0\" cellpadding=\"3\">\n"
            "<tr><th align=\"left\">key</th><th align=\"left\">where</th>"
            f"<th align=\"left\">what it does</th></tr>\n{rows}\n</table>")


if __name__ == "__main__":  # python -m viewer.words.actions: the key table of docs/app.md
    print(keys_markdown(), end="")
