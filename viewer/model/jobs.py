"""Background work as the window reports it: messages and errors, files being read, job
progress, experiments, the cost model of the shown frame and the background kernel compile."""

from __future__ import annotations

from PyQt6.QtCore import QObject, pyqtSignal

from viewer.state.status import CostView, KernelStatus


class JobsModel(QObject):
    """What runs in the background and what it reported last."""

    message = pyqtSignal(str)
    error = pyqtSignal(str, str)  # title, text
    loading_changed = pyqtSignal(str)  # progress text while files are read; "" when done
    job_progress = pyqtSignal(str, int, int)  # a background job's words, done, total
    job_finished = pyqtSignal(str)  # that job's words; the dialog closes
    # Experiments window and the Stats dock's cost model.
    experiment_started = pyqtSignal(str)  # registry key of the experiment now running
    experiment_progress = pyqtSignal(int, int, str)  # done, total, what is being measured
    experiment_finished = pyqtSignal(object, object)  # result (opaque) or None, error or None
    cost_model_changed = pyqtSignal(object)  # CostView or None
    kernels_changed = pyqtSignal(object)  # KernelStatus of the background compile

    def __init__(self, parent=None):
        super().__init__(parent)
        self.loading: str = ""  # what is being read in the background, or ""
        # Experiments: the key running (None when idle) and the last finished result (an
        # opaque core ``ExperimentResult``), kept when a later run is cancelled or fails.
        self.experiment_running: str | None = None
        self.experiment_result = None
        # The cost model of the shown frame (Stats dock), or None before the first frame.
        self.cost_view: CostView | None = None
        # The background compile of the kernels (a first start), idle by default.
        self.kernels = KernelStatus()

    def set_loading(self, text: str) -> None:
        self.loading = text
        self.loading_changed.emit(text)

    def set_experiment_running(self, name: str | None) -> None:
        """``name``: the experiment that started; None: the run ended (see
        :meth:`finish_experiment`)."""
        self.experiment_running = name
        if name is not None:
            self.experiment_started.emit(name)

    def finish_experiment(self, result, error) -> None:
        """A run ended: ``result`` (kept as the last result) or ``error`` (the previous
        result stays; a cancelled run has a ``Cancelled`` error)."""
        self.experiment_running = None
        if result is not None:
            self.experiment_result = result
        self.experiment_finished.emit(result, error)

    def set_cost_view(self, view: CostView | None) -> None:
        self.cost_view = view
        self.cost_model_changed.emit(view)

    def set_kernels(self, status: KernelStatus) -> None:
        self.kernels = status
        self.kernels_changed.emit(status)
