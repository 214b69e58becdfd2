"""The main window's dialogs and separate windows, one module each (compare, contact log,
cross-check, drift, replay, tree diff, scene octree, the progress dialogs, the scene switch's
question)."""
