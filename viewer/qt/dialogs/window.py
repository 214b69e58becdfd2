"""The main window's own dialogs: the three progress dialogs (the first frame of a scene,
files being read, a long job with Cancel) and the recording's memory limit."""

from __future__ import annotations

from PyQt6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QProgressDialog,
    QSpinBox,
)

from viewer.control.files import MAX_TRIANGLES, WARN_TRIANGLES
from viewer.qt.widgets import cancellable_progress, dialog_buttons


class ProgressDialogs:
    """The window's progress dialogs, each made on first use and kept (non-modal: the
    window stays usable).

    Parameters
    ----------
    parent : QWidget
    on_cancel : callable
        Called by the job dialog's Cancel.
    """

    def __init__(self, parent, on_cancel):
        self.parent, self.on_cancel = parent, on_cancel
        self.first_frame: QProgressDialog | None = None
        self.loading: QProgressDialog | None = None
        self.job: QProgressDialog | None = None

    def _busy(self, title: str) -> QProgressDialog:
        dialog = QProgressDialog("", None, 0, 0, self.parent)
        dialog.setWindowTitle(title)
        dialog.setMinimumDuration(0)
        return dialog

    def show_first_frame(self, is_compiling: bool) -> None:
        """A busy dialog while the first frame of a scene is computed."""
        if self.first_frame is None:
            self.first_frame = self._busy("BVH Lab")
        if is_compiling:
            # The kernels run as Python while they compile: big scenes take a while.
            self.first_frame.setLabelText(
                "Computing the first frame while the kernels compile in the background…\n"
                "(until they are compiled the collision code runs as Python, more slowly)")
        else:
            self.first_frame.setLabelText(
                "Building the trees and preparing the collision kernels…\n"
                "(later starts load the kernels from disk)")
        self.first_frame.show()

    def hide_first_frame(self) -> None:
        if self.first_frame is not None:
            self.first_frame.hide()

    def show_loading(self, text: str) -> None:
        """A busy dialog while files are read in the background ("" hides it; the tree
        build that follows has its own, :meth:`show_first_frame`)."""
        if not text:
            if self.loading is not None:
                self.loading.hide()
            return
        if self.loading is None:
            self.loading = self._busy("BVH Lab: opening meshes")
        self.loading.setLabelText(
            f"{text}\nThen the trees are built. Meshes of up to {MAX_TRIANGLES:,} triangles"
            f" open; above {WARN_TRIANGLES:,} expect a low frame rate.")
        self.loading.show()

    def show_job(self, words: str, done: int, total: int) -> None:
        """A progress dialog with Cancel while a recording is saved, opened or replayed, a
        session saved or opened, or a mesh exported."""
        if self.job is None:
            self.job = cancellable_progress(self.parent, self.on_cancel)
        dialog = self.job
        dialog.setWindowTitle(f"BVH Lab: {words.split(' ')[0].lower()}")
        dialog.setLabelText(f"{words}…" + (f" ({done:,} of {total:,})" if total else ""))
        dialog.setMaximum(max(total, 0))
        dialog.setValue(min(done, total) if total else 0)
        if not dialog.isVisible():
            dialog.show()

    def hide_job(self) -> None:
        if self.job is not None:
            self.job.hide()


class RecordingLimitsDialog(QDialog):
    """Recording > Memory limit…: most megabytes and frames the recording holds."""

    def __init__(self, max_megabytes: float, max_frames: int, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Recording memory limit")
        form = QFormLayout(self)
        self.megabytes = QDoubleSpinBox()
        self.megabytes.setRange(1.0, 1_000_000.0)
        self.megabytes.setDecimals(0)
        self.megabytes.setSuffix(" MB")
        self.frames = QSpinBox()
        self.frames.setRange(1, 10_000_000)
        self.frames.setSuffix(" frames")
        self.megabytes.setValue(max_megabytes)
        self.frames.setValue(max_frames)
        self.megabytes.setToolTip("Above this the oldest frames are dropped (arrays shared by "
                                  "several frames count once)")
        self.frames.setToolTip("Above this many frames the oldest are dropped")
        form.addRow("Memory", self.megabytes)
        form.addRow("Frames", self.frames)
        buttons = dialog_buttons(self, QDialogButtonBox.StandardButton.Ok)
        form.addRow(buttons)
