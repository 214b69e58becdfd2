"""Experiments (``core.experiments``) run from the Experiments window, off the GUI thread.

One run at a time, on a worker lane (a daemon thread): a run is seconds to minutes of core
work and closing the window waits at most :data:`SHUTDOWN_WAIT_S` for it. The run reports
through a ``core.experiments.Progress`` whose callback relays ``(done, total, what)`` to the
model's ``experiment_progress``; Cancel calls ``Progress.cancel()``, after which the run's next
report raises ``Cancelled`` and the run ends with :class:`~viewer.control.recording.JobCancelled`
(the last result stays in the model). Experiments that take a scene may run on the current
bodies (meshes, poses and deformers of A and B).
"""

from __future__ import annotations

import inspect
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from core.deform import DEFORMERS
from core.experiments import (
    EXPERIMENTS,
    Cancelled,
    ExperimentOptions,
    ExperimentScene,
    Progress,
    csv_text,
    make_figure,
    run_experiment,
    write_outputs,
)
from core.files.safe_write import replace_file
from core.pose import Pose
from viewer.control.recording import JobCancelled
from viewer.control.worker import Tag

PROGRESS_INTERVAL_S = 0.05
"""Least time between two progress signals: a run may report thousands of steps a second and
each signal costs a repaint of the dock."""

SHUTDOWN_WAIT_S = 1.0
"""How long closing the window waits for a cancelled run to stop (it is a daemon thread: if it
is inside a long kernel call it is left behind rather than holding the window open)."""


@dataclass(frozen=True)
class ExperimentInfo:
    """What the Experiments window shows about one experiment before it runs.

    Attributes
    ----------
    name : str
        Registry key (``"pcp"``, ``"splits"``, ...).
    title, source, sizes_meaning : str
        Its title, the paper it reproduces, what its sizes are.
    shows : str
        What it shows: the first paragraph of its module's description ("" if none).
    default_sizes, quick_sizes : tuple of float or int
        The sizes it runs with by default, and a small set for a quick look.
    takes_scene : bool
        Whether it can run on the current scene's bodies.
    """

    name: str
    title: str
    source: str
    sizes_meaning: str
    shows: str
    default_sizes: tuple
    quick_sizes: tuple
    takes_scene: bool


def _shows(experiment) -> str:
    """The first paragraph of the docstring of the module that runs ``experiment``: each
    experiment's module opens by saying what it measures and what the figure shows."""
    module = sys.modules.get(getattr(experiment.run, "__module__", ""), None)
    doc = inspect.getdoc(module) if module is not None else None
    if not doc:
        return ""
    first = " ".join(doc.split("\n\n")[0].split())
    # "Experiment ``pcp``: volume tests against ..." -> "Volume tests against ...": the
    # registry key and reST marks mean nothing to a student reading the window.
    first = re.sub(r"^(Experiment\s+)?``[^`]+``\s*[:,-]\s*", "", first).replace("``", "")
    return first[:1].upper() + first[1:]


def _in_sentence(title: str) -> str:
    """A scene's title as the experiments put it mid-sentence ("Every split rule on two
    spheres overlapping"): the first letter lower case unless the first word is an acronym."""
    first = title.split(" ", 1)[0]
    if not title or (len(first) > 1 and first[:2].isupper()):
        return title
    return title[:1].lower() + title[1:]


class ExperimentRunning:
    """The controller's experiments job: ``experiment_catalogue``, ``run_experiment_named``,
    ``cancel_experiment``, ``is_experiment_running``, ``current_experiment_scene``,
    ``experiment_figure``, ``save_experiment_data`` and ``save_experiment_outputs``.
    Parameters
    ----------
    model : viewer.model.ViewerModel
    workers : viewer.control.worker.Workers
        The controller's workers; the job takes its lane(s) from them.
    """

    def __init__(self, model, workers) -> None:
        self.model = model
        self._experiment_lane = workers.lane("experiments",
                                                  shutdown_timeout=SHUTDOWN_WAIT_S)
        self._experiment_run_id = 0
        self._experiment_progress: Progress | None = None

    @staticmethod
    def experiment_catalogue() -> list[ExperimentInfo]:
        """Every registered experiment, in the registry's order."""
        return [ExperimentInfo(name, e.title, e.source, e.sizes_meaning, _shows(e),
                               tuple(e.default_sizes), tuple(e.quick_sizes),
                               e.takes_scene)
                for name, e in EXPERIMENTS.items()]  # fmt: skip

    @property
    def is_experiment_running(self) -> bool:
        return self._experiment_progress is not None

    def current_experiment_scene(self) -> ExperimentScene:
        """The current scene's bodies A and B as an experiment's scene (rest meshes, poses and
        deformers with their parameters). ValueError with fewer than two bodies."""
        bodies = self.model.bodies
        if len(bodies) < 2:
            raise ValueError("the current scene has fewer than two bodies; open a scene with "
                             "two meshes or clear 'Use the current scene'")

        def deformer(body):
            if body.deformer is None:
                return None
            return DEFORMERS[body.deformer](**body.deformer_params)

        a, b = bodies[0], bodies[1]
        return ExperimentScene(
            mesh_a=a.rest, pose_a=Pose.from_matrix(a.pose), mesh_b=b.rest,
            pose_b=Pose.from_matrix(b.pose), deformer_a=deformer(a), deformer_b=deformer(b),
            title=_in_sentence(self.model.scene_title) or f"{a.name} against {b.name}")

    def run_experiment_named(self, name: str, sizes=None, use_scene: bool = False) -> bool:
        """Start experiment ``name`` with ``sizes`` (None: its defaults) in a worker thread,
        on the current scene when ``use_scene``. The model announces the start, progress and
        end. False (and a message) when a run is already going or the scene is unusable."""
        if self.is_experiment_running:
            self.model.message.emit("Wait: an experiment is still running (Esc cancels it)")
            return False
        if name not in EXPERIMENTS:
            self.model.error.emit("Experiment", f"no experiment called {name!r}")
            return False
        scene = None
        if use_scene:
            try:
                scene = self.current_experiment_scene()
            except (ValueError, TypeError) as exc:
                self.model.finish_experiment(None, exc)
                return False
        options = ExperimentOptions(sizes=None if sizes is None else tuple(sizes), scene=scene)
        self._experiment_run_id += 1
        run_id = self._experiment_run_id
        last_sent = [0.0]
        control = [None]  # the job's control, once the run starts

        def report(done, total, what):
            now = time.perf_counter()
            if now - last_sent[0] >= PROGRESS_INTERVAL_S or done >= total:
                last_sent[0] = now
                control[0].progress(done, total, str(what))

        progress = Progress(report)
        self._experiment_progress = progress

        def work(job_control):
            control[0] = job_control
            try:
                return run_experiment(name, options, progress)
            except Cancelled:
                raise JobCancelled(f"the {name} experiment was cancelled") from None

        self.model.set_experiment_running(name)
        self._experiment_lane.submit(
            work, tag=Tag("experiment", inputs=(run_id, name)),
            on_result=lambda result, _job: self._on_experiment_done(run_id, result, None),
            # any failure becomes a red line
            on_error=lambda error, _job: self._on_experiment_done(run_id, None, error),
            on_progress=lambda done, total, what, _job: self._on_experiment_progress(
                run_id, done, total or 0, what))
        return True

    def cancel_experiment(self) -> None:
        """Cancel pressed: the run stops at its next progress report."""
        if self._experiment_progress is not None:
            self._experiment_progress.cancel()

    def _on_experiment_progress(self, run_id, done, total, what) -> None:
        if run_id == self._experiment_run_id and self.is_experiment_running:
            self.model.experiment_progress.emit(done, total, what)

    def _on_experiment_done(self, run_id, result, error) -> None:
        if run_id != self._experiment_run_id:
            return
        self._experiment_progress = None
        self.model.finish_experiment(result, error)

    # -- figure and files -------------------------------------------------------------------
    @staticmethod
    def experiment_figure(result):
        """A new matplotlib ``Figure`` of ``result`` at the size the command line saves (for
        Save figure: the same picture whatever the dock's size)."""
        return make_figure(result)

    @staticmethod
    def save_experiment_data(result, path) -> Path:
        """Write ``result``'s table to ``path`` as CSV (comment lines saying what each column
        is, then the rows); the path written. OSError naming the file."""
        path = Path(path)
        experiment = EXPERIMENTS.get(result.name)
        text = csv_text(result, experiment.source if experiment is not None else "")
        data = text.encode("utf-8")
        replace_file(path, lambda stream: stream.write(data))
        return path

    @staticmethod
    def save_experiment_outputs(result, folder) -> dict:
        """Write ``result``'s figure (PNG and SVG) and data (CSV) into ``folder`` (made if
        missing); ``{"png": path, "svg": path, "csv": path}``."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        return {key: Path(path) for key, path in write_outputs(result, folder).items()}

    def shutdown(self) -> None:
        # The controller's workers then wait at most SHUTDOWN_WAIT_S for the run to stop.
        self.cancel_experiment()
