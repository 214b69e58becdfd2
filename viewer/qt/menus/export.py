"""File > Export: a video of recorded frames or of playing, the 3-D view as a web page, and the
frame's data as CSV and JSON.

Rendering stays on the GUI thread (VTK): a video of recorded frames shows and grabs one frame
per event-loop turn, so the window keeps answering, and hands each picture to the
controller's export job, which encodes in its worker thread. Every dialog starts in the folder
last used for its kind of file (QSettings).
"""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtCore import QObject, Qt, QTimer
from PyQt6.QtGui import QGuiApplication
from PyQt6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressDialog,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from viewer.qt.widgets import (
    browse_save_path,
    cancellable_progress,
    dialog_buttons,
    file_row,
    format_combo,
    link_format_and_suffix,
)
from viewer.render.movie import DEFAULT_FPS, grab_frame
from viewer.render.webpage import scene_web_page
from viewer.words.actions import EXPORT, shortcut_of

RECORD_VIDEO_KEY = shortcut_of("export.record_video")
"""File > Export > Record video while playing (on/off)."""

VIDEO_FORMATS = (
    (".mp4", "MP4 video, H.264 (slides, browsers) (*.mp4)"),
    (".gif", "GIF animation, loops (web pages, chat) (*.gif)"),
)
"""Suffix and file-dialog filter of each video format."""

MAX_BACKLOG = 4
"""Pictures rendered ahead of the encoder at most: more would only take memory (one 1080p
picture is 6 MB), since encoding is the slower step."""

MIN_WIDTH, MAX_WIDTH = 64, 3840


def _start_dir(settings, key: str) -> str:
    folder = settings.value(key, "")
    return folder if folder and Path(folder).is_dir() else str(Path.home())


class VideoDialog(QDialog):
    """File, format, frames, frame rate and width of a video: File > Export > Video….

    Parameters
    ----------
    title : str
    path : str
        The file proposed.
    view_size : (int, int)
        The canvas's ``(width, height)`` in pixels: the default width, and the shape every
        width keeps.
    n_recorded : int
        Frames on the timeline; 0 hides the range (a video of playing).
    first, last : int
        The range proposed (positions on the timeline).
    """

    def __init__(self, title: str, path: str, view_size, n_recorded: int = 0, first: int = 0,
                 last: int = 0, parent=None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.view_size = (max(int(view_size[0]), 2), max(int(view_size[1]), 2))
        layout = QVBoxLayout(self)
        note = QLabel("Frames are drawn as the view shows them now: the same overlays, level "
                      "and camera. MP4 (H.264) plays in slides and browsers; a GIF loops and "
                      "is larger.")
        note.setWordWrap(True)
        layout.addWidget(note)
        form = QFormLayout()
        self.path_edit = QLineEdit(path)
        self.path_edit.setToolTip("The file to write; its suffix (.mp4 or .gif) picks the format")
        form.addRow("File", file_row(self.path_edit, self._browse, "Choose the file"))
        self.format_combo = format_combo(
            VIDEO_FORMATS, "MP4: small, sharp, plays in PowerPoint, Keynote, Impress and "
            "browsers. GIF: 256 colours a frame, loops, larger")
        form.addRow("Format", self.format_combo)
        self.first_spin = QSpinBox()
        self.last_spin = QSpinBox()
        if n_recorded:
            for spin in (self.first_spin, self.last_spin):
                spin.setRange(1, n_recorded)
            self.first_spin.setValue(first + 1)
            self.last_spin.setValue(last + 1)
            self.first_spin.setToolTip("First recorded frame of the video (1 = the oldest "
                                       "held)")
            self.last_spin.setToolTip(f"Last recorded frame of the video ({n_recorded} = the "
                                      "newest)")
            frames = QWidget()
            span = QHBoxLayout(frames)
            span.setContentsMargins(0, 0, 0, 0)
            span.addWidget(self.first_spin)
            span.addWidget(QLabel("to"))
            span.addWidget(self.last_spin)
            span.addWidget(QLabel(f"of {n_recorded}"), 1)
            form.addRow("Recorded frames", frames)
        self.fps_spin = QSpinBox()
        self.fps_spin.setRange(1, 60)
        self.fps_spin.setValue(int(DEFAULT_FPS))
        self.fps_spin.setSuffix(" frames/s")
        self.fps_spin.setToolTip("Frames per second of the video: each drawn frame is one "
                                 "video frame")
        form.addRow("Frame rate", self.fps_spin)
        self.width_spin = QSpinBox()
        self.width_spin.setRange(MIN_WIDTH, MAX_WIDTH)
        self.width_spin.setValue(min(max(self.view_size[0], MIN_WIDTH), MAX_WIDTH))
        self.width_spin.setSuffix(" px")
        self.width_spin.setToolTip("Width of the video; the height keeps the view's shape. "
                                   "The view's own width is sharpest")
        self.height_label = QLabel()
        size = QWidget()
        sizes = QHBoxLayout(size)
        sizes.setContentsMargins(0, 0, 0, 0)
        sizes.addWidget(self.width_spin)
        sizes.addWidget(self.height_label, 1)
        form.addRow("Width", size)
        layout.addLayout(form)
        buttons = dialog_buttons(self, QDialogButtonBox.StandardButton.Save)
        layout.addWidget(buttons)
        self.width_spin.valueChanged.connect(self._show_height)
        link_format_and_suffix(self.format_combo, self.path_edit, "video")
        self._show_height()

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` of the video: the chosen width, the view's shape."""
        width = self.width_spin.value()
        height = max(2, round(width * self.view_size[1] / self.view_size[0]))
        return width, height

    @property
    def frame_range(self) -> tuple[int, int]:
        """``(first, last)`` timeline positions (0-based, inclusive), in order."""
        first, last = self.first_spin.value() - 1, self.last_spin.value() - 1
        return min(first, last), max(first, last)

    def _show_height(self) -> None:
        self.height_label.setText(f"× {self.size[1]} px (the view's shape)")

    def _browse(self) -> None:
        browse_save_path(self, self.path_edit, self.format_combo, VIDEO_FORMATS)


class ExportMenu(QObject):
    """Answers File > Export and its four actions (rows of :data:`viewer.words.actions.ACTIONS`).

    Parameters
    ----------
    window : viewer.qt.main_window.MainWindow
        Its ``table_actions`` are made already.
    """

    def __init__(self, window):
        super().__init__(window)
        self.window, self.model, self.controller = window, window.model, window.controller
        self.settings = window.settings
        self.video_dialog: VideoDialog | None = None
        self.progress: QProgressDialog | None = None
        self._render_queue: list[int] = []  # timeline positions still to render
        self._n_rendered = 0
        self._n_encoded = 0
        self._cursor_before: int | None = None
        self._is_grabbing = False  # recording a video of playing
        self._n_grabbed = 0
        actions = window.table_actions
        self.video_action = actions["export.video"]
        self.record_action = actions["export.record_video"]
        self.web_action = actions["export.web_page"]
        self.data_action = actions["export.frame_data"]
        # In the status bar's permanent part: a temporary message there gets only the room
        # the permanent labels leave, none at 1280 px wide while the timings are shown.
        self.recording_label = QLabel("")
        self.recording_label.setStyleSheet("color: #c00000; font-weight: bold")
        self.recording_label.setToolTip(f"A video of playing is being recorded; "
                                        f"{RECORD_VIDEO_KEY} finishes it")
        self.recording_label.hide()
        window.statusBar().insertPermanentWidget(0, self.recording_label)
        self.model.view_timings_changed.connect(self._grab_if_playing)

    @property
    def menu(self):
        """File > Export (built from the action table with the window's other menus)."""
        return self.window.menus[EXPORT]

    # -- helpers ----------------------------------------------------------------------------
    def _view_size(self) -> tuple[int, int]:
        width, height = self.window.plotter.ren_win.GetSize()
        return int(width), int(height)

    def _proposed_path(self, key: str, name: str) -> str:
        return str(Path(_start_dir(self.settings, key)) / name)

    def _remember_folder(self, key: str, path) -> None:
        self.settings.setValue(key, str(Path(path).parent))

    def _show_progress(self, title: str, words: str, total: int) -> QProgressDialog:
        if self.progress is None:
            self.progress = cancellable_progress(self.window, self.cancel)
        self.progress.setWindowTitle(title)
        self.progress.setLabelText(words)
        self.progress.setMaximum(max(total, 0))
        self.progress.setValue(0)
        self.progress.show()
        return self.progress

    def _hide_progress(self) -> None:
        if self.progress is not None:
            self.progress.hide()

    def cancel(self) -> None:
        """Cancel pressed: the rendering stops, the encoder throws the file away."""
        self._render_queue = []
        self.controller.exporter.cancel_export()

    # -- video of recorded frames -----------------------------------------------------------
    def ask_recorded_video(self) -> VideoDialog | None:
        """File > Export > Video of recorded frames… (Ctrl+Shift+M): the dialog, shown
        without blocking."""
        n = len(self.model.recording) if self.model.recording is not None else 0
        if n == 0:
            self.window.show_error("Export video", "Nothing is recorded yet: play the scene "
                                   "(Space) to record frames on the timeline")
            return None
        name = f"{self.model.scene_key or 'recording'}.mp4"
        dialog = VideoDialog("Video of recorded frames", self._proposed_path(
            "export/last_video_dir", name), self._view_size(), n, 0, n - 1, self.window)
        dialog.accepted.connect(lambda: self.export_recorded_video(
            dialog.path_edit.text(), dialog.frame_range, dialog.fps_spin.value(), dialog.size))
        self.video_dialog = dialog
        dialog.open()
        return dialog

    def export_recorded_video(self, path: str, frame_range=None, fps: float = DEFAULT_FPS,
                              size=None) -> bool:
        """Render recorded frames ``frame_range`` (first, last; default all) as the view
        draws them now and write them to ``path``; progress with Cancel. The shown frame
        comes back afterwards."""
        n = len(self.model.recording) if self.model.recording is not None else 0
        if n == 0:
            self.window.show_error("Export video", "Nothing is recorded yet")
            return False
        first, last = frame_range if frame_range is not None else (0, n - 1)
        first, last = max(0, int(first)), min(n - 1, int(last))
        if first > last:
            self.window.show_error("Export video", f"frames: the range {first + 1} to "
                                   f"{last + 1} holds no recorded frame")
            return False
        positions = list(range(first, last + 1))
        if not path or not self.controller.exporter.start_movie(
                path, fps, size, len(positions), on_progress=self._on_encoded,
                on_done=self._on_movie_done):
            return False
        self._remember_folder("export/last_video_dir", path)
        self._cursor_before = self.model.cursor
        self._render_queue = positions
        self._n_rendered = self._n_encoded = 0
        self._movie_total = len(positions)
        self._show_progress("BVH Lab: video", f"Rendering {Path(path).name}…", len(positions))
        QTimer.singleShot(0, self._render_next)
        return True

    def _render_next(self) -> None:
        """Show, draw and grab one recorded frame, then come back on the next event-loop
        turn (the window stays responsive; Cancel is seen in between)."""
        if not self._render_queue:
            return
        if not self.controller.exporter.is_exporting or self.window.plotter.ren_win is None:
            self._render_queue = []  # cancelled, failed, or the window closed
            return
        if self.controller.exporter.movie_backlog >= MAX_BACKLOG:
            QTimer.singleShot(5, self._render_next)
            return
        position = self._render_queue.pop(0)
        try:
            if self.model.cursor == position:
                self.window.redraw()
            else:
                self.controller.recorder.scrub_to(position)  # draws it (frame_ready)
                self.window.finish_redraw()  # its render waits for the next turn
            image = grab_frame(self.window.plotter)
        except Exception as exc:  # noqa: BLE001 - PyQt ends the app on an exception in a slot
            self.cancel()
            self.window.show_error("Export video", f"recorded frame {position + 1}: {exc}")
            return
        self.controller.exporter.add_movie_frame(image)
        self._n_rendered += 1
        self._update_video_progress()
        if self._render_queue:
            QTimer.singleShot(0, self._render_next)
        else:
            self.controller.exporter.finish_movie()
            self._restore_cursor()

    def _restore_cursor(self) -> None:
        if self._cursor_before is None:
            self.controller.recorder.go_live()
        elif self._cursor_before < len(self.model.recording):
            self.controller.recorder.scrub_to(self._cursor_before)

    def _on_encoded(self, done: int, _total: int) -> None:
        self._n_encoded = done
        self._update_video_progress()

    def _update_video_progress(self) -> None:
        if self.progress is None or not self.progress.isVisible():
            return
        total = getattr(self, "_movie_total", 0)
        if total:
            self.progress.setLabelText(f"Rendered {self._n_rendered:,} and encoded "
                                       f"{self._n_encoded:,} of {total:,} frames…")
            self.progress.setValue(min(self._n_encoded, total))
        else:
            self.progress.setLabelText(f"Encoded {self._n_encoded:,} frames…")

    def _on_movie_done(self, path, error) -> None:
        self._hide_progress()
        if self._render_queue:  # cancelled or failed while rendering
            self._render_queue = []
            self._restore_cursor()
        self._movie_total = 0
        if error is None and path is not None:
            self.window.statusBar().showMessage(f"Saved video {path}", 8000)

    # -- video of playing -------------------------------------------------------------------
    def toggle_record_video(self, is_on: bool | None = None) -> bool:
        """File > Export > Record video while playing (Ctrl+Shift+V): on asks for the file
        and grabs every frame drawn while playing; off finishes the video."""
        is_on = self.record_action.isChecked() if is_on is None else bool(is_on)
        if not is_on:
            self.stop_recording_video()
            return False
        dialog = VideoDialog("Record video while playing", self._proposed_path(
            "export/last_video_dir", f"{self.model.scene_key or 'playing'}.mp4"),
            self._view_size(), parent=self.window)
        self.video_dialog = dialog
        if dialog.exec() != QDialog.DialogCode.Accepted:
            self._set_record_checked(False)
            return False
        return self.start_recording_video(dialog.path_edit.text(), dialog.fps_spin.value(),
                                          dialog.size)

    def start_recording_video(self, path: str, fps: float = DEFAULT_FPS, size=None) -> bool:
        """Grab every frame drawn while the scene or the recording plays into ``path``
        until :meth:`stop_recording_video`."""
        if not path or not self.controller.exporter.start_movie(path, fps, size,
                                                       on_progress=self._on_encoded,
                                                       on_done=self._on_recording_done):
            self._set_record_checked(False)
            return False
        self._remember_folder("export/last_video_dir", path)
        self._is_grabbing = True
        self._n_grabbed = self._n_encoded = 0
        self._set_record_checked(True)
        self._show_grabbed()
        self.window.statusBar().showMessage(
            f"Recording video to {Path(path).name}: every frame drawn while playing (Space "
            f"plays; {RECORD_VIDEO_KEY} stops)", 8000)
        return True

    def _grab_if_playing(self, _timings=None) -> None:
        if not self._is_grabbing or not (self.model.is_playing or self.model.playback):
            return
        try:
            image = grab_frame(self.window.plotter)
        except Exception as exc:  # noqa: BLE001 - PyQt ends the app on an exception in a slot
            self.window.show_error("Record video", f"frame {self._n_grabbed + 1}: {exc}")
            self.controller.exporter.cancel_export()
            image = None
        if image is not None and self.controller.exporter.add_movie_frame(image):
            self._n_grabbed += 1
            self._show_grabbed()
        else:  # the encoder stopped (an error was shown)
            self._is_grabbing = False
            self._set_record_checked(False)
            self.recording_label.hide()

    def _show_grabbed(self) -> None:
        self.recording_label.setText(f"● REC video {self._n_grabbed:,} frames")
        self.recording_label.show()

    @property
    def n_grabbed(self) -> int:
        """Frames grabbed into the video of playing so far."""
        return self._n_grabbed

    def stop_recording_video(self) -> None:
        """Finish the video of playing: the grabbed frames are encoded and the file put in
        place (progress with Cancel while the encoder catches up)."""
        self._set_record_checked(False)
        self.recording_label.hide()
        if not self._is_grabbing:
            return
        self._is_grabbing = False
        self._movie_total = self._n_grabbed
        self._show_progress("BVH Lab: video", "Finishing the video…", self._n_grabbed)
        self._n_rendered = self._n_grabbed
        self._update_video_progress()
        self.controller.exporter.finish_movie()

    def _on_recording_done(self, path, error) -> None:
        self._is_grabbing = False
        self.recording_label.hide()
        self._set_record_checked(False)
        self._on_movie_done(path, error)

    def _set_record_checked(self, is_on: bool) -> None:
        self.record_action.blockSignals(True)
        self.record_action.setChecked(is_on)
        self.record_action.blockSignals(False)

    # -- web page ---------------------------------------------------------------------------
    def ask_web_page(self, path: str | None = None) -> bool:
        """File > Export > 3-D view as web page (HTML)… (Ctrl+Shift+W)."""
        if not path:
            name = f"{self.model.scene_key or 'bvh-lab'}.html"
            path, _ = QFileDialog.getSaveFileName(
                self.window, "3-D view as web page", self._proposed_path(
                    "export/last_web_dir", name), "Web page (*.html *.htm)")
            if path and Path(path).suffix.lower() not in (".html", ".htm"):
                path += ".html"
        if not path:
            return False
        self._remember_folder("export/last_web_dir", path)
        self.window.redraw()  # the page shows what is drawn now
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            page = scene_web_page(self.window.plotter.render_window,
                                  f"BVH Lab: {self.model.scene_title or 'scene'}",
                                  self.window.renderer.canvas_legend.entries,
                                  self.window.step_note())
        except Exception as exc:  # noqa: BLE001 - PyQt ends the app on an exception in a slot
            self.window.show_error("Export web page", f"{path}: {exc}")
            return False
        finally:
            QGuiApplication.restoreOverrideCursor()
        return self.controller.exporter.save_web_page(path, page)

    # -- frame data -------------------------------------------------------------------------
    def ask_frame_data(self, path: str | None = None) -> bool:
        """File > Export > Frame data (CSV and JSON)… (Ctrl+Shift+F): the shown frame
        (live or recorded)."""
        frame = self.model.frame
        if frame is None:
            self.window.show_error("Export frame data", "there is no frame yet")
            return False
        if not path:
            name = f"{self.model.scene_key or 'frame'}-frame-{frame.index}.json"
            path, _ = QFileDialog.getSaveFileName(
                self.window, "Frame data (a JSON file; the CSV tables go beside it)",
                self._proposed_path("export/last_data_dir", name), "JSON (*.json)")
        if not path:
            return False
        self._remember_folder("export/last_data_dir", path)
        return self.controller.exporter.export_frame_data(path)
