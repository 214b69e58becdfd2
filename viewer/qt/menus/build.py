"""Builds the main window's menus, toolbar and shortcuts from :data:`viewer.words.actions.ACTIONS`.

Two steps, because the window's parts answer the actions and some of them hold their own
actions: :func:`create_actions` makes every ``QAction`` of the table (text, key, tips) before
those parts exist; :func:`build_menus` then connects each to its handler and places it in its
menu or on the toolbar, with the entries the window makes at build time (``kind="group"``).
"""

from __future__ import annotations

from PyQt6.QtGui import QAction, QKeySequence
from PyQt6.QtWidgets import QMenu, QToolBar

from viewer.words.actions import ACTIONS, MENU_SEPARATOR, TOOLBAR

TOOLBAR_NAME = "tools_toolbar"


def make_action(window, text: str, slot=None, shortcut: str | None = None,
                tip: str = "") -> QAction:
    """One ``QAction`` of ``window``: its key works wherever the focus is in the window (the
    canvas included), its tip shows on hover in a menu and in the status bar."""
    action = QAction(text, window)
    if slot is not None:
        action.triggered.connect(slot)
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
    if tip:
        action.setToolTip(tip)
        action.setStatusTip(tip)
    window.addAction(action)  # shortcuts work while the canvas has focus
    return action


def create_actions(window) -> dict[str, QAction]:
    """Every action row of the table as a ``QAction`` of ``window``, by row id (not yet
    connected nor placed)."""
    actions: dict[str, QAction] = {}
    for row in ACTIONS:
        if row.kind != "action":
            continue
        text = row.label
        if row.menu == TOOLBAR and row.shortcut:
            text = f"{row.label} ({row.shortcut})"  # a button shows its key
        action = make_action(window, text, None, row.shortcut, row.help)
        action.setCheckable(row.checkable)
        actions[row.id] = action
    return actions


def resolve(window, path: str):
    """The object at dotted ``path`` on ``window``; a part that is a dict is indexed."""
    target = window
    for part in path.split("."):
        target = target[part] if isinstance(target, dict) else getattr(target, part)
    return target


def _connect(action: QAction, handler, args: tuple, takes_checked: bool) -> None:
    if takes_checked:
        action.triggered.connect(lambda checked=False, f=handler, a=args: f(*a, checked))
    else:
        action.triggered.connect(lambda _checked=False, f=handler, a=args: f(*a))


def make_toolbar(window) -> QToolBar:
    """The (empty) Tools toolbar of ``window``; :func:`build_menus` fills it."""
    toolbar = QToolBar("Tools")
    toolbar.setObjectName(TOOLBAR_NAME)
    window.addToolBar(toolbar)
    return toolbar


def build_menus(window, actions: dict[str, QAction], toolbar: QToolBar) -> dict[str, QMenu]:
    """Connect every action of ``actions`` to its handler and place the table's rows, in
    order, in the menu bar's menus and on ``toolbar``.

    Returns
    -------
    dict
        Menu path (``"&File/E&xport"``) -> ``QMenu``.
    """
    menus: dict[str, QMenu] = {}

    def menu_at(path: str) -> QMenu:
        if path not in menus:
            parent, _sep, title = path.rpartition(MENU_SEPARATOR)
            owner = menu_at(parent) if parent else window.menuBar()
            menus[path] = owner.addMenu(title)
            menus[path].setToolTipsVisible(True)
        return menus[path]

    for row in ACTIONS:
        if row.kind == "key":
            continue
        place = toolbar if row.menu == TOOLBAR else menu_at(row.menu)
        if row.kind == "separator":
            place.addSeparator()
        elif row.kind == "group":
            for action in resolve(window, row.handler)():
                place.addAction(action)
        else:
            action = actions[row.id]
            _connect(action, resolve(window, row.handler), row.args, row.takes_checked)
            place.addAction(action)
    return menus


def actions_under(actions: dict[str, QAction], place: str) -> dict[str, QAction]:
    """The actions whose id starts with ``place + "."``, keyed by the rest of the id
    (``"recording.save"`` -> ``"save"``)."""
    prefix = f"{place}."
    return {key.removeprefix(prefix): action for key, action in actions.items()
            if key.startswith(prefix)}
