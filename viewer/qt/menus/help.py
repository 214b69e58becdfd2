"""Help > How to read this view and Help > Keys.

The keys named in the prose and the whole Keys table come from the action table
(:data:`viewer.words.actions.ACTIONS`), so the help cannot name a key the window does not have.
"""

from __future__ import annotations

from PyQt6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QTextBrowser,
    QVBoxLayout,
)

from viewer.words.actions import ACTIONS_BY_ID, keys_html

HELP_TEMPLATE = """<h3>How to read this view</h3>
<p>Two meshes, <b>A</b> (blue) and <b>B</b> (green), each carry a tree of axis-aligned boxes (or
of the bounding volume chosen in the Pipeline dock). To find where they touch, the traversal
starts with the two root boxes and, whenever two boxes overlap, splits one of them and tests the
children: that is one <i>level</i>.</p>
<ul>
<li><b>Level slider</b>: a <i>traversal level</i> is one round of pair tests (level 0 tests the
two roots). At level <i>d</i> the view shows, in <b>light orange</b>, both volumes of every pair
the traversal found overlapping at that level, and the volumes of each tree at <i>tree depth</i>
<i>d</i> (dark blue for A, dark green for B). The two differ: with the larger-volume rule a box at
depth 5 may be tested at levels 9 to 11. Turn on <i>culled pairs</i> to see, in grey, the pairs
tested and rejected there. The last position, <i>all</i>, shows every level at once.</li>
<li>Filled triangles are the triangles of A and B that really meet: <b>vermillion red</b> where
they cross, <b>yellow</b> where they only touch (a corner or an edge on the other surface),
<b>purple</b> where they lie on each other in one plane. The <b>black</b> lines are where they
meet. With no contact, the Stats dock and the canvas say whether one mesh is inside the other, or
that this is undefined because a mesh is open, and a <b>purple</b> line joins the two closest
points.</li>
<li>The <i>self-collision</i> scenes test one mesh against itself: the orange pairs are two boxes
of the same tree.</li>
<li><b>Step mode</b> pauses and walks through the levels one at a time with a sentence each.</li>
<li>The <b>Stepper</b> dock ({k[stepper.toggle]}, or {k[stepper.restart]}) walks this frame's
traversal one pair test at a time, in the engine's order:
<b>{k[stepper.forward]}</b>/<b>{k[stepper.back]}</b> one test forward/back,
<b>{k[stepper.overlap]}</b> the next overlap, <b>{k[stepper.leaf]}</b> the next pair of leaves,
<b>{k[stepper.contact]}</b> the next contact, <b>{k[stepper.level_end]}</b> the end of the level,
<b>{k[stepper.restart]}</b> back to the root pair. The pair under test is drawn bold (A's volume
dark blue, B's dark green), the pairs decided before it faint (grey culled, orange split, pink
leaf pairs). For a culled pair a cyan arrow is the separating axis, the thick blue and green
segments on it are the two volumes' extents along it and the wine-red segment is the gap between
them, labelled with the test's name. The <b>Pseudo-code</b> dock marks the line being executed (▶,
yellow).</li>
<li><b>Click</b> a mesh in Camera mode to inspect the volume under the cursor: its id, its tree
depth, triangle count, and its pair tests at every traversal level where it was tested, each
culled one with the test that separated them (an axis of A or B, an edge-edge axis, a slab, a
centre distance). The clicked volume and its partners at the shown level are framed in
<b>cyan</b>; click a level in the list to show it. <b>{k[view.clear_selection]}</b> clears the
selection.</li>
<li><b>Move</b> mode ({k[tools.move]}): drag a mesh to slide it, right-drag or Ctrl-drag to turn
it, arrow keys to nudge. Moving is a pose change: the trees are not rebuilt.</li>
<li><b>Sculpt</b> mode ({k[tools.sculpt]}): drag on a surface to pull it; {k[edit.undo]} undoes a
stroke.</li>
<li>Nothing is lost: <b>File &gt; Export mesh</b> ({k[file.export_mesh]}) writes a body as it is
drawn (deformed, sculpted) to OBJ, PLY or STL; <b>Save session</b> ({k[file.save_session]}) and
<b>Open session</b> ({k[file.open_session]}) keep the whole scene with its choices and camera. The
session is also saved a few seconds after every change, and after a crash the next start offers it
back.</li>
<li>The <b>Pipeline</b> dock chooses the bounding volume (boxes, oriented boxes, spheres, k-DOPs,
capsules, rounded rectangles), how oriented boxes are fitted, the split rule and a spatial
partition; the legend and the inspector name the chosen volume.</li>
<li>The <b>timeline</b> under the view records every frame. Drag its slider (or
<b>{k[recording.step_back]}</b> / <b>{k[recording.step_forward]}</b>) to show a recorded frame:
the overlays, the level slider, the Stats dock and the inspector then show that frame. The markers
are events (▼ first contact, ▽ contact again, ◆ most contacts, ■ tree rebuilt for drift,
● body moved, ▲ body sculpted, ✚ settings changed);
<b>{k[recording.previous_event]}/{k[recording.next_event]}</b> jump to the previous or next
one. <b>{k[tools.play]}</b> plays the recording while a recorded frame is shown,
<b>{k[recording.reverse]}</b> plays it backwards, and <b>{k[recording.live]}</b> (or
<i>Live</i>) goes back to the live scene. The Recording menu saves and opens recordings and
replays one with another bounding volume, split rule, update or descend rule. </li>
<li>The <b>Tree</b> menu debugs a hierarchy. The <b>Quality</b> panel ({k[tree.quality]}) measures
one tree in the chosen volume: SAH cost with its constants C<sub>t</sub> and C<sub>i</sub>, EPO,
sibling overlap, depth and leaf-size histograms, and lists the worst nodes by each measure; the
<b>Outliner</b> ({k[tree.outliner]}) shows each tree node by node with its partners in this frame.
A row clicked there, or a volume clicked on the canvas, is the selected node: drawn thick in
<b>violet</b> with its triangles tinted. <i>Check tree invariants</i> ({k[tree.check]}) lists
every node whose box does not enclose its children or triangles and draws it in <b>dark red</b>. A
tree built by another engine is read with <i>Open tree file for body A/B</i> (JSON or NPZ) and
used for the query until <i>Use BVH Lab's own tree again</i>; <i>Save tree</i> writes ours in the
same format.</li>
<li><b>Lecture mode</b> ({k[view.lecture]}) shows the view alone, full screen, with large text and
a caption; <b>Right</b>/<b>Left</b> step, <b>Space</b> plays, <b>Esc</b> leaves. The
<b>Lessons</b> menu plays built-in lessons step by step ({k[lessons.next]}, {k[lessons.previous]})
and saves the current state as a step of your own lesson file ({k[lessons.save_step]}).</li>
<li>The <b>Stats</b> dock counts the work: volume tests N<sub>bv</sub> (pairs of bounding volumes
tested), triangle tests N<sub>p</sub>, and the time of each phase; its cost model T =
N<sub>u</sub>·C<sub>u</sub> + N<sub>bv</sub>·C<sub>bv</sub> + N<sub>p</sub>·C<sub>p</sub>
multiplies each count by its unit cost measured on this machine and sets the predicted time beside
the measured one.</li>
<li>The <b>Experiments</b> menu ({k[experiments.window]}) reruns classic results (parallel close
proximity, separating axes, build rules, refit against rebuild, spatial partitions, the cost
model) and shows their figures; {k[experiments.run]} runs, {k[experiments.cancel]} cancels, and
each figure saves as PNG or SVG, its numbers as CSV.</li>
</ul>
<p>Every key of the window: <b>Help &gt; Keys</b>.</p>"""
"""The prose of Help > How to read this view; ``{k[ID]}`` is the key of action
``ID``."""


class _KeysOfActions(dict):
    """Action id -> its key, for :data:`HELP_TEMPLATE`."""

    def __missing__(self, action_id: str) -> str:
        return ACTIONS_BY_ID[action_id].shortcut


def help_html() -> str:
    """Help > How to read this view, with the keys of the action table."""
    return HELP_TEMPLATE.format(k=_KeysOfActions())


HELP_TEXT = help_html()


HELP_SIZE = (760, 900)
"""Size of the How to read this view window at most; a smaller screen gets 90 % of its free
height and width. In a message box the text was 1,050 px tall, taller than a 1280x800 screen
(its OK button out of reach); it scrolls inside instead."""


class ScrollingTextDialog(QDialog):
    """A titled page of HTML that scrolls inside, at most ``size`` and within 90 % of the
    screen's free width and height (Help > How to read this view, Help > Keys)."""

    def __init__(self, title: str, html: str, size: tuple[int, int], parent=None):
        super().__init__(parent)
        self.setWindowTitle(title)
        layout = QVBoxLayout(self)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(False)
        self.browser.setHtml(html)
        layout.addWidget(self.browser)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok)
        buttons.accepted.connect(self.accept)
        layout.addWidget(buttons)
        width, height = size
        screen = parent.screen() if parent is not None else self.screen()
        if screen is not None:
            free = screen.availableGeometry()
            width = min(width, int(0.9 * free.width()))
            height = min(height, int(0.9 * free.height()))
            self.setMaximumHeight(free.height())
        self.resize(width, height)

    def text(self) -> str:
        """The page as plain text (what a message box's ``text()`` gave)."""
        return self.browser.toPlainText()


class HelpDialog(ScrollingTextDialog):
    """Help > How to read this view: the prose, scrolling, within the screen."""

    def __init__(self, parent=None):
        super().__init__("How to read this view", HELP_TEXT, HELP_SIZE, parent)


def show_help(window) -> HelpDialog:
    """Help > How to read this view (not modal: the frame loop goes on)."""
    dialog = HelpDialog(window)
    dialog.open()
    return dialog


KEYS_SIZE = (640, 720)
"""Size of the Keys window; a smaller screen gets 90 % of its free height (the table of about
seventy keys scrolls: in a message box it was 1,900 px tall, its OK button off a 800 px
screen)."""


class KeysDialog(ScrollingTextDialog):
    """Help > Keys: the action table's keys, scrolling."""

    def __init__(self, parent=None):
        super().__init__("Keys", keys_html(), KEYS_SIZE, parent)


def show_keys(window) -> KeysDialog:
    """Help > Keys: every key of the window, the table the key table of docs/app.md is made from
    (not modal)."""
    dialog = KeysDialog(window)
    dialog.open()
    return dialog
