"""Qt widgets of the viewer (PyQt6): :mod:`~viewer.qt.main_window` assembles the window from
its parts (``window/``), its menus (``menus/``, built from the one action table
:mod:`~viewer.words.actions`), its dialogs (``dialogs/``) and its dock panels (``panels/``, the
registry ``panels.docks.PANELS``); the 3-D canvas widget itself is :mod:`viewer.canvas`."""
