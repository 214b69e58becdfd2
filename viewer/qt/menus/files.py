"""File > Open mesh, Open meshes as a new scene and Save screenshot: the file dialogs, the
last folder remembered, the meshes read off the GUI thread by the controller."""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtWidgets import QFileDialog

MESH_FILTER = "Meshes (*.obj *.stl *.ply *.off *.vtk *.vtp *.glb *.gltf);;All files (*)"


class FileMenu:
    """Answers the File menu's mesh and screenshot entries of ``window`` (a
    :class:`viewer.qt.main_window.MainWindow`)."""

    def __init__(self, window):
        self.window = window

    def _ask_files(self, title: str) -> list[str]:
        settings = self.window.settings
        start = settings.value("last_dir", str(Path.home()))
        paths, _ = QFileDialog.getOpenFileNames(self.window, title, start, MESH_FILTER)
        if paths:
            settings.setValue("last_dir", str(Path(paths[0]).parent))
        return paths

    def open_mesh(self) -> None:
        paths = self._ask_files("Add meshes to the scene")
        if paths:
            self.window.controller.files.load_files_async(paths, replace_scene=False)

    def open_new_scene(self) -> None:
        paths = self._ask_files("Open meshes as a new scene")
        if paths:
            self.window.controller.files.load_files_async(paths, replace_scene=True)

    def save_screenshot(self, path: str | None = None) -> str | None:
        if not path:
            path, _ = QFileDialog.getSaveFileName(self.window, "Save screenshot", "bvh-lab.png",
                                                  "PNG image (*.png)")
        if not path:
            return None
        self.window.finish_redraw()  # a change's render may wait for the next turn
        self.window.plotter.screenshot(path)
        self.window.statusBar().showMessage(f"Saved {path}", 5000)
        return path
