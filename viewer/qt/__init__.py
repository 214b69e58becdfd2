"""Qt widgets of the viewer (PyQt6): the main window, docks and canvas input (the 3-D canvas
widget itself is :mod:`viewer.canvas`)."""
