"""Qt widgets of the viewer (PyQt6 + pyvistaqt): the main window, docks and canvas input."""
