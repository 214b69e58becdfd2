"""The main window's menus: the builder over the action table (:mod:`~viewer.qt.menus.build`)
and one module per menu that answers its entries (File's session and export parts, Recording,
Tree, Lessons, Experiments, Help)."""
