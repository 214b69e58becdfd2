"""The action table (viewer/words/actions.py) is the one source of the window's menus, keys, Keys
help and the key table of docs/app.md: they agree, every key is unique, every row is reachable."""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtGui import QAction, QKeySequence
from PyQt6.QtWidgets import QApplication

from viewer.qt.menus.help import HELP_TEXT, KeysDialog
from viewer.words.actions import ACTIONS, ACTIONS_BY_ID, TOOLBAR, keyed_rows, keys_markdown

KEYS_DOC = Path(__file__).resolve().parents[3] / "docs" / "app.md"
START, END = "<!-- keys-table: start -->\n", "<!-- keys-table: end -->"


def _portable(key: str) -> str:
    return QKeySequence(key).toString()


def test_the_readme_key_table_is_the_action_tables_rendering():
    text = KEYS_DOC.read_text(encoding="utf-8")
    assert START in text and END in text, "docs/app.md lost its keys-table markers"
    section = text[text.index(START) + len(START):text.index(END)]
    assert section == keys_markdown(), "write it with: python -m viewer.words.actions"


def test_every_key_of_the_table_is_unique_except_the_one_declared_pair():
    owners: dict[str, list[str]] = {}
    for row in ACTIONS:
        if row.kind == "action" and row.shortcut:
            owners.setdefault(_portable(row.shortcut), []).append(row.id)
    for key, ids in owners.items():
        if len(ids) > 1:
            # Two enabled actions on one key make Qt run neither: only a declared pair that
            # is never enabled at once may share one.
            assert len(ids) == 2 and ACTIONS_BY_ID[ids[1]].shares_key_with == ids[0], (key, ids)
    assert len({row.id for row in ACTIONS}) == len(ACTIONS)


def test_every_row_is_an_entry_a_toolbar_button_or_a_documented_key(window):
    in_menus = set()

    def walk(menu):
        for action in menu.actions():
            if action.menu() is not None:
                walk(action.menu())
            else:
                in_menus.add(id(action))

    walk(window.menuBar())
    on_toolbar = {id(a) for a in window.toolbar.actions()}
    for row in ACTIONS:
        if row.kind == "action":
            action = window.table_actions[row.id]
            place = on_toolbar if row.menu == TOOLBAR else in_menus
            assert id(action) in place, row.id
            assert action.shortcut().toString() == _portable(row.shortcut), row.id
        elif row.kind == "key":
            assert row.shortcut and row.words and not row.handler, row.id
    # Nothing with a key in the window that the table does not list (the scenes' Ctrl+N
    # are its "Ctrl+1…9" row).
    table_keys = {_portable(row.shortcut) for row in ACTIONS if row.kind == "action"}
    owners: dict[str, list[str]] = {}
    for action in window.findChildren(QAction):
        for key in action.shortcuts():
            text = key.toString()
            owners.setdefault(text, []).append(action.text())
            is_scene = text.startswith("Ctrl+") and text[5:].isdigit()
            assert text in table_keys or is_scene, (text, action.text())
    assert all(len(names) == 1 for key, names in owners.items() if key != "Esc"), owners
    assert not window.table_actions["experiments.cancel"].isEnabled()  # Esc: clear selection


def test_help_keys_lists_every_key_of_the_table(qtbot, window):
    window.table_actions["help.keys"].trigger()
    dialogs = [w for w in QApplication.topLevelWidgets()
               if isinstance(w, KeysDialog) and w.isVisible()]
    assert len(dialogs) == 1
    text = dialogs[0].browser.toPlainText()
    for row in keyed_rows():
        assert row.shortcut in text and row.place in text, row.id
    # It fits the screen: the table scrolls instead of pushing OK off it.
    screen = window.screen().availableGeometry()
    assert dialogs[0].height() <= screen.height()
    dialogs[0].close()


def test_the_help_prose_names_the_tables_keys():
    assert "{k[" not in HELP_TEXT
    assert f"({ACTIONS_BY_ID['stepper.toggle'].shortcut}, or " in HELP_TEXT
    assert f"<b>Move</b> mode ({ACTIONS_BY_ID['tools.move'].shortcut})" in HELP_TEXT


def test_the_controllers_messages_read_their_keys_from_the_table():
    # The control layer sits below the widgets; the table is plain data under both, so a
    # message of a job names a key through shortcut_of, never in its own words.
    control = Path(__file__).resolve().parents[3] / "viewer" / "control"
    sources = {path.name: path.read_text(encoding="utf-8") for path in control.glob("*.py")}
    for row in keyed_rows():
        if "+" not in row.shortcut:
            continue  # a single key ("." or "Esc") is also a plain word
        for name, text in sources.items():
            assert f"({row.shortcut} " not in text and f"{row.shortcut}:" not in text, \
                (name, row.shortcut)


def test_playing_turns_the_stepper_off_and_says_its_key(qtbot, window):
    from tests.viewer.conftest import status_said
    from tests.viewer.helpers import stepper_on

    stepper_on(window)
    window.model.set_playing(True)
    window.model.set_playing(False)
    key = ACTIONS_BY_ID["stepper.toggle"].shortcut
    assert not window.model.is_stepping
    assert status_said(window, "Playing: the stepper is off") == \
        f"Playing: the stepper is off ({key} turns it on again)."


README_TOUR_KEYS = {
    "F1": "help.read", "[": "tools.level_back", "]": "tools.level_forward",
    "A": "tools.all_levels", "Space": "tools.play", ".": "tools.step_frame", "M": "tools.move",
    "S": "tools.sculpt", "C": "tools.camera", "Ctrl+T": "stepper.toggle",
    "Right": "stepper.forward", "Left": "stepper.back", "Ctrl+Shift+Q": "tree.quality",
    "Ctrl+Shift+U": "tree.outliner", "F11": "view.lecture", "Ctrl+O": "file.open_mesh",
    "Ctrl+1…9": "file.scenes",
}
"""The keys the README's first session names, each with the table row whose key it is."""


def test_the_readmes_first_session_names_the_tables_keys():
    import re

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    tour = readme.split("## A first session", 1)[1].split("\n## ", 1)[0]
    named = [t for t in re.findall(r"\*\*([^*]+)\*\*", tour) if t != "Lessons"]  # a menu
    assert set(named) == set(README_TOUR_KEYS)  # a key added to the tour is listed above
    for key, action_id in README_TOUR_KEYS.items():
        assert ACTIONS_BY_ID[action_id].shortcut == key, (key, action_id)
