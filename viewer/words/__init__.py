"""The words of every choice and bounding-volume kind, read from the core's registries
(names only: nothing here runs a query), for the widgets, the command line and the lessons;
and the table of every menu entry and key (:mod:`~viewer.words.actions`), plain data that the
window builds its menus from and that the controller's messages read their keys from."""
