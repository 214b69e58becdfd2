"""The viewer's controller: the one object the window and its docks ask to change the scene.

Each of its jobs is a module of :mod:`viewer.control` (scenes, files, poses, sculpt, frames,
animation, recording, stepping, session, analysis, inspecting, exporting, lessons,
experiments, costs);
:class:`Controller` composes them and wires them to the model's signals.
"""

from __future__ import annotations

from PyQt6.QtCore import QObject

from viewer.control.analysis import FrameAnalysis
from viewer.control.animation import Animation
from viewer.control.costs import CostModelling
from viewer.control.experiments import ExperimentRunning
from viewer.control.exporting import FrameExporting
from viewer.control.files import FileLoading
from viewer.control.frames import FrameRunning
from viewer.control.inspecting import Inspecting
from viewer.control.kernels import KernelCompiling
from viewer.control.lessons import LessonPlaying
from viewer.control.poses import BodyPosing
from viewer.control.recording import FrameRecording
from viewer.control.scenes import SceneLoading
from viewer.control.sculpt import Sculpting
from viewer.control.session import SessionKeeping
from viewer.control.stepping import Stepping
from viewer.control.worker import Workers
from viewer.model import ViewerModel


class Controller(QObject, SceneLoading, FileLoading, BodyPosing, Sculpting, FrameRunning,
                 Animation, FrameRecording, Stepping, SessionKeeping, FrameAnalysis,
                 Inspecting, FrameExporting, LessonPlaying, ExperimentRunning, CostModelling,
                 KernelCompiling):
    """Runs the core for the viewer.

    Parameters
    ----------
    model : ViewerModel
    is_threaded : bool
        Run frames in a worker thread (the app); False runs them inline (benchmark).
    """

    def __init__(self, model: ViewerModel, is_threaded: bool = True, parent=None):
        super().__init__(parent)
        self.model = model
        # Every long job runs on a lane of these workers; a job's error with no handler of its
        # own is shown as a message naming the job.
        self.workers = Workers(parent=self, on_unhandled=lambda error, job: model.error.emit(
            f"{job.tag.what.capitalize()} failed", f"{type(error).__name__}: {error}"))
        self._init_frame_running(is_threaded)
        self._init_kernel_compiling(is_threaded)
        self._init_file_loading()
        self._init_sculpting()
        self._init_animation()
        self._init_recording()
        self._init_stepping()
        self._init_session()
        self._init_analysis()
        self._init_inspecting()
        self._init_exporting()
        self._init_lessons()
        self._init_experiments()
        self._init_cost_model()
        model.scene_param_changed.connect(self._on_scene_param)

    def shutdown(self) -> None:
        """Stop the clock and every job (the window is closing): what each job must still do
        (timers, the compile process, the autosave running), then one stop of the workers,
        which cancels the rest, waits for them and refuses later submits."""
        self._stop_animation()
        self._shutdown_recording()
        self._shutdown_frame_running()
        self._shutdown_session()
        self._shutdown_analysis()
        self._shutdown_inspecting()
        self._shutdown_exporting()
        self._shutdown_experiments()
        self._shutdown_cost_model()
        self._shutdown_kernel_compiling()
        self.workers.shutdown()
