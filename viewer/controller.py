"""The viewer's controller: the one object the window and its docks ask to change the scene.

Each of its jobs is a plain class in a module of :mod:`viewer.control` (scenes, files, poses,
sculpt, frames, animation, recording, stepping, session, analysis, inspecting, node_search,
tree_diff, contact_log, exporting, lessons, experiments, costs, kernels) that is given what
it uses when it is made: the model, the workers it takes its lanes from, and the other jobs
(or their methods) it calls.
:class:`Controller` makes them in dependency order and keeps each as an attribute named for
what it does; callers say which job they ask (``controller.frames.request_frame()``).
"""

from __future__ import annotations

from PyQt6.QtCore import QObject

from viewer.control.analysis import FrameAnalysis
from viewer.control.animation import Animation
from viewer.control.contact_log import ContactLogAuditing
from viewer.control.costs import CostModelling
from viewer.control.experiments import ExperimentRunning
from viewer.control.exporting import FrameExporting
from viewer.control.files import FileLoading
from viewer.control.frames import FrameRunning
from viewer.control.inspecting import Inspecting
from viewer.control.kernels import KernelCompiling
from viewer.control.lessons import LessonPlaying
from viewer.control.node_search import NodeSearching
from viewer.control.poses import BodyPosing
from viewer.control.recording import FrameRecording
from viewer.control.scenes import SceneLoading
from viewer.control.sculpt import Sculpting
from viewer.control.session import SessionKeeping
from viewer.control.stepping import Stepping
from viewer.control.tree_diff import TreeDiffing
from viewer.control.worker import Workers
from viewer.model import ViewerModel


class Controller(QObject):
    """Runs the core for the viewer: its jobs, made in dependency order.

    Two pairs of jobs need each other: the frame job records every frame it delivers and the
    recording job asks for frames; the recording job forgets the sculpt job's strokes when it
    opens a recording and the sculpt job marks its strokes on the recording. The first of each
    pair is given a callable that reaches the second once it exists.

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
        self.workers = workers = Workers(
            parent=self, on_unhandled=lambda error, job: model.error.emit(
                f"{job.tag.what.capitalize()} failed", f"{type(error).__name__}: {error}"))
        self.frames = FrameRunning(model, workers, is_threaded,
                                   record=lambda frame: self.recorder.record_frame(frame))
        self.kernels = KernelCompiling(model, workers, is_threaded, self.frames.request_frame)
        self.recorder = FrameRecording(model, workers, self.frames, parent=self,
                                       forget_strokes=lambda: self.sculpting.forget_strokes(),
                                       other_markers=lambda: self.contact_log.timeline_markers())
        self.poses = BodyPosing(model, self.recorder)
        self.sculpting = Sculpting(model, self.recorder, body_size=self.poses.body_size)
        self.scenes = SceneLoading(model, workers, self.frames, self.sculpting.forget_strokes)
        self.contact_log = ContactLogAuditing(model, self.frames, self.recorder)
        self.files = FileLoading(model, workers, self.frames, self.scenes.replace_scene)
        self.animation = Animation(model, self.frames.request_frame, parent=self)
        self.inspector = Inspecting(model, workers, self.frames)
        self.nodes = NodeSearching(model, workers, self.frames, self.inspector.tree_file_ids)
        self.tree_diff = TreeDiffing(model, self.frames, self.recorder,
                                     self.inspector.tree_file_ids)
        self.stepper = Stepping(model, workers, is_threaded, self.inspector.tree_file_ids)
        self.session = SessionKeeping(model, workers, self.recorder, self.sculpting,
                                      self.scenes.replace_scene, self.frames.request_frame,
                                      parent=self)
        self.analysis = FrameAnalysis(model, workers, is_threaded)
        self.exporter = FrameExporting(model, workers)
        self.lessons = LessonPlaying(model, self.frames, self.scenes, self.files,
                                     self.animation, self.stepper, self.recorder.start_job,
                                     go_live=self.recorder.go_live)
        self.experiments = ExperimentRunning(model, workers)
        self.costs = CostModelling(model, workers)

    def shutdown(self) -> None:
        """Stop the clock and every job (the window is closing): what each job must still do
        (timers, the compile process, the autosave running), then one stop of the workers,
        which cancels the rest, waits for them and refuses later submits. The scene, file,
        pose, sculpt, stepper and lesson jobs hold no timer or process of their own: the
        workers' stop covers their lanes."""
        for job in (self.animation, self.recorder, self.frames, self.session, self.analysis,
                    self.inspector, self.exporter, self.experiments, self.costs, self.kernels):
            job.shutdown()
        self.workers.shutdown()
