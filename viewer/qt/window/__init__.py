"""The parts the main window (:mod:`viewer.qt.main_window`) is assembled from: its layout,
settings, status bar, timeline, caption, lecture mode, canvas input, kernel status and the
exception guard. No part imports the window."""
