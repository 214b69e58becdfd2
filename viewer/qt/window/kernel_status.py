"""The status bar's view of the first start's background compile (:mod:`viewer.control.kernels`).

A progress bar "Compiling kernels 5 of 24" stays in the status bar while the compile runs, with
a tooltip that says what it is and why frames are slower meanwhile. A choice whose kernels are
not compiled yet (an OBB tree picked at step 3) says so in the status bar, and says again when
they are ready. The bar goes when the compile ends, with one message of how long it took (or
why it failed).
"""

from __future__ import annotations

from PyQt6.QtWidgets import QProgressBar

from viewer.state.status import KernelStatus

#: How long the one-off messages stay in the status bar (ms).
MESSAGE_MS = 8000

TOOLTIP = (
    "The first start compiles the collision kernels to machine code (about two minutes on "
    "two cores; later starts load them from disk in a second). Until a kernel is compiled it "
    "runs as Python: frames are exact and the same, only slower. The compile runs at low "
    "priority, so the window stays responsive."
)


def compile_progress_words(status: KernelStatus) -> str:
    """``Compiling kernels 5 of 24``, or the state in words before the first step ends."""
    if status.n_steps:
        return f"Compiling kernels {status.n_done} of {status.n_steps}"
    return "Compiling kernels…"


def finished_words(status: KernelStatus) -> str:
    """The message when the compile ends."""
    if status.error:
        return (f"Compiling the kernels in the background failed ({status.error}); each "
                "compiles when first used instead")
    return (f"Kernels compiled in {status.seconds:.0f} s: frames run at full speed now "
            "(later starts load them from disk)")


class KernelStatusBar:
    """Keeps the status bar's compile progress and messages in step with the model.

    Parameters
    ----------
    window : viewer.qt.main_window.MainWindow
        Its ``statusBar()``, ``model`` and ``controller`` are used.
    """

    def __init__(self, window):
        self.window = window
        self.bar = QProgressBar()
        self.bar.setObjectName("kernel_compile_progress")
        self.bar.setMinimumWidth(200)  # "Compiling kernels 12 of 23" on one line
        self.bar.setMaximumWidth(260)
        self.bar.setTextVisible(True)
        self.bar.setToolTip(TOOLTIP)
        self.bar.hide()
        window.statusBar().addPermanentWidget(self.bar)
        self._was_compiling = False
        self._missing: list[str] = []
        window.model.kernels_changed.connect(self.show_status)
        window.model.pipeline_changed.connect(lambda _p: self._on_choice())
        self.show_status(window.model.kernels)

    def show_status(self, status: KernelStatus) -> None:
        if status.is_compiling:
            self.bar.setRange(0, max(status.n_steps, 0))  # (0, 0): busy until the first step
            self.bar.setValue(status.n_done)
            self.bar.setFormat(compile_progress_words(status))
            self.bar.show()
            self._was_compiling = True
            self._report_ready_choice()
            return
        self.bar.hide()
        if self._was_compiling or status.error:
            self._was_compiling = False
            self.window.statusBar().showMessage(finished_words(status), MESSAGE_MS)

    def _on_choice(self) -> None:
        missing = self.window.controller.kernels.missing_kernels()
        self._missing = missing
        if missing:
            progress = compile_progress_words(self.window.model.kernels).lower()
            self.window.statusBar().showMessage(
                f"Not compiled yet: {', '.join(missing)} ({progress}). "
                "Frames run as Python, slower, until they are ready.", MESSAGE_MS)

    def _report_ready_choice(self) -> None:
        """Say once when the kernels the current choice waited for are compiled."""
        if not self._missing:
            return
        missing = self.window.controller.kernels.missing_kernels()
        if not missing:
            self.window.statusBar().showMessage(
                f"Compiled: {', '.join(self._missing)}. Frames run at full speed now.",
                MESSAGE_MS)
        self._missing = missing
