"""File menu's "nothing lost" part: Export mesh, Open / Save session, the crash-restore offer.

Also keeps the model's camera in step with the canvas (a session saves and restores it).
"""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtCore import QObject, Qt, QTimer
from PyQt6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from viewer.qt.widgets import (
    ask_file_path,
    browse_save_path,
    dialog_buttons,
    file_row,
    format_combo,
    link_format_and_suffix,
)
from viewer.render.camera import apply_camera, read_camera
from viewer.state.display import CameraView

SESSION_FILTER = "BVH Lab sessions (*.bvhsession);;All files (*)"
EXPORT_FORMATS = (
    (".obj", "OBJ, text, exact float64 coordinates (*.obj)"),
    (".ply", "PLY, binary little-endian, exact float64 coordinates (*.ply)"),
    (".stl", "STL, binary, float32 coordinates rounded (*.stl)"),
)
"""Suffix and file-dialog filter of each format Export mesh writes."""


class ExportMeshDialog(QDialog):
    """Which body, which coordinates, which file: File > Export mesh….

    Parameters
    ----------
    bodies : list of viewer.state.bodies.Body
    selected : int
        The body chosen at first (the selected one; -1: the first).
    start_dir : str
    """

    def __init__(self, bodies, selected: int, start_dir: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Export mesh")
        layout = QVBoxLayout(self)
        note = QLabel("Writes the body's triangles as they are drawn now: deformed at this "
                      "moment, with your sculpting. World coordinates (the default) place it "
                      "where it is in the scene; local coordinates leave its pose out.")
        note.setWordWrap(True)
        layout.addWidget(note)
        form = QFormLayout()
        self.body_combo = QComboBox()
        for body in bodies:
            self.body_combo.addItem(f"{body.name} ({body.rest.n_faces:,} triangles)")
        self.body_combo.setCurrentIndex(selected if 0 <= selected < len(bodies) else 0)
        self.body_combo.setToolTip("The body to export")
        form.addRow("Body", self.body_combo)
        self.world_radio = QRadioButton("World: as placed in the scene (pose applied)")
        self.local_radio = QRadioButton("Local: the mesh's own frame (no pose)")
        self.world_radio.setChecked(True)
        self._coordinates = QButtonGroup(self)
        self._coordinates.addButton(self.world_radio)
        self._coordinates.addButton(self.local_radio)
        coordinates = QWidget()
        column = QVBoxLayout(coordinates)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.world_radio)
        column.addWidget(self.local_radio)
        form.addRow("Coordinates", coordinates)
        self.format_combo = format_combo(
            EXPORT_FORMATS, "OBJ and PLY keep every coordinate exactly; STL stores float32, "
            "so coordinates are rounded to about 7 digits")
        form.addRow("Format", self.format_combo)
        name = bodies[self.body_combo.currentIndex()].name if bodies else "mesh"
        self.path_edit = QLineEdit(str(Path(start_dir) / f"{name}.obj"))
        self.path_edit.setToolTip("The file to write; its suffix (.obj, .ply, .stl) picks the "
                                  "format")
        form.addRow("File", file_row(self.path_edit, self._browse))
        layout.addLayout(form)
        buttons = dialog_buttons(self, QDialogButtonBox.StandardButton.Save)
        layout.addWidget(buttons)
        link_format_and_suffix(self.format_combo, self.path_edit, "mesh")
        self._bodies = list(bodies)
        self._proposed_stem = name
        self.body_combo.currentIndexChanged.connect(self._propose_name)

    def _propose_name(self, index: int) -> None:
        """The file name follows the chosen body ("sphere B.obj" after choosing body B; it kept
        "sphere A.obj"), unless the user typed a name of their own: folder and suffix stay."""
        if not 0 <= index < len(self._bodies):
            return
        path = Path(self.path_edit.text())
        if path.stem != self._proposed_stem:
            return  # a name the user chose
        self._proposed_stem = self._bodies[index].name
        self.path_edit.setText(str(path.with_name(self._proposed_stem + path.suffix)))

    def _browse(self) -> None:
        browse_save_path(self, self.path_edit, self.format_combo, EXPORT_FORMATS)

    @property
    def coordinates(self) -> str:
        """``"world"`` or ``"local"``."""
        return "world" if self.world_radio.isChecked() else "local"


class SessionMenu(QObject):
    """Answers File > Export mesh…, Open session…, Save session and Save session as… (their
    entries are rows of :data:`viewer.words.actions.ACTIONS`); offers a crashed run's session
    (:meth:`offer_restore`).

    Parameters
    ----------
    window : viewer.qt.main_window.MainWindow
        Its ``table_actions`` are made already.
    """

    def __init__(self, window):
        super().__init__(window)
        self.window, self.model, self.controller = window, window.model, window.controller
        self.restore_box: QMessageBox | None = None
        self.export_dialog: ExportMeshDialog | None = None
        actions = window.table_actions
        self.export_action = actions["file.export_mesh"]
        self.open_action = actions["file.open_session"]
        self.save_action = actions["file.save_session"]
        self.save_as_action = actions["file.save_session_as"]
        self.model.camera_wanted.connect(self._write_camera, Qt.ConnectionType.DirectConnection)
        self.model.camera_restored.connect(self._apply_camera)

    # -- camera -----------------------------------------------------------------------------
    def _write_camera(self) -> None:
        self.model.camera = read_camera(self.window.plotter)

    def _apply_camera(self, view: CameraView) -> None:
        apply_camera(self.window.plotter, view)
        self.window.plotter.render()

    # -- export -----------------------------------------------------------------------------
    def ask_export_mesh(self) -> ExportMeshDialog | None:
        """File > Export mesh… (Ctrl+E): the dialog, shown without blocking."""
        if not self.model.bodies:
            self.window.show_error("Export mesh", "The scene is empty: nothing to export")
            return None
        start = self.window.settings.value("last_export_dir", str(Path.home()))
        dialog = ExportMeshDialog(self.model.bodies, self.model.selected, start, self.window)
        dialog.accepted.connect(lambda: self.export_mesh(
            dialog.body_combo.currentIndex(), dialog.path_edit.text(), dialog.coordinates))
        self.export_dialog = dialog
        dialog.open()
        return dialog

    def export_mesh(self, index: int, path: str, coordinates: str = "world") -> bool:
        if not path:
            return False
        self.window.settings.setValue("last_export_dir", str(Path(path).parent))
        return self.controller.session.export_mesh(index, path, coordinates)

    # -- sessions ---------------------------------------------------------------------------
    def _ask_session_path(self, title: str, is_save: bool) -> str:
        return ask_file_path(self.window, title, "last_session_dir", SESSION_FILTER,
                             ".bvhsession", "session", is_save)

    def ask_open_session(self, path: str | None = None) -> bool:
        """File > Open session… (Ctrl+Alt+O)."""
        path = path or self._ask_session_path("Open session", is_save=False)
        return bool(path) and self.controller.session.open_session(path)

    def save_session(self) -> bool:
        """File > Save session (Ctrl+Alt+S): to the session's file, asked the first time."""
        if self.controller.session.session_path is None:
            return self.ask_save_session_as()
        return self.controller.session.save_session(self.controller.session.session_path)

    def ask_save_session_as(self, path: str | None = None) -> bool:
        """File > Save session as… (Ctrl+Alt+Shift+S)."""
        path = path or self._ask_session_path("Save session as", is_save=True)
        return bool(path) and self.controller.session.save_session(path)

    # -- crash restore ----------------------------------------------------------------------
    def offer_restore(self, crashed) -> QMessageBox:
        """Ask whether to restore the session a run that stopped unexpectedly left
        (a ``viewer.control.autosave.CrashedSession``); [Restore] opens it, [Discard] deletes
        it. Shown without blocking."""
        box = QMessageBox(QMessageBox.Icon.Question, "Restore the last session?",
                          crashed.question(), QMessageBox.StandardButton.NoButton, self.window)
        restore = box.addButton("Restore", QMessageBox.ButtonRole.AcceptRole)
        discard = box.addButton("Discard", QMessageBox.ButtonRole.DestructiveRole)
        restore.setToolTip(f"Open {crashed.path}")
        discard.setToolTip("Delete it and keep the scene now open")
        box.setDefaultButton(restore)
        box.setEscapeButton(discard)

        def answered(button):
            if button is restore:
                self.controller.session.open_session(crashed.path)
            else:
                self.controller.session.discard_crashed_session()
                self.window.statusBar().showMessage("The previous session was discarded", 5000)

        box.buttonClicked.connect(answered)
        self.restore_box = box
        box.open()
        return box

    def offer_restore_later(self, crashed) -> None:
        """:meth:`offer_restore` once the event loop runs (the window is shown first)."""
        QTimer.singleShot(0, lambda: self.offer_restore(crashed))
