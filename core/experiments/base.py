"""The experiments' common types: what one experiment is, what it is asked, what it returns.

An experiment is a plain function ``run(options, progress) -> ExperimentResult`` plus the words
a menu and the command line show. It runs headless (no Qt, no pyvista): the figure is drawn into
a :class:`matplotlib.figure.Figure` the caller hands in, so the command line renders it with the
Agg and SVG backends and the app with its Qt canvas, from the same code.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from core.mesh import TriMesh
from core.pose import Pose


@dataclass(frozen=True)
class Column:
    """One column of an experiment's table (and of its CSV).

    Attributes
    ----------
    name : str
        CSV header, snake_case (``"gap"``, ``"volume_tests"``).
    unit : str
        ``""`` for a pure number or a name, else the unit (``"ms"``, ``"tests"``).
    meaning : str
        One sentence, written in the CSV's header comment.
    """

    name: str
    unit: str
    meaning: str


class Cancelled(Exception):
    """Raised inside ``run()`` when the user cancelled."""


class Progress:
    """Handed to :attr:`Experiment.run`: reports progress and carries the cancel request.

    ``report(done, total, what)`` calls the callback given to the constructor (the app forwards
    it to a progress bar, the command line prints a line or nothing) and raises
    :class:`Cancelled` once :meth:`cancel` was called, from any thread. ``check()`` only raises.

    Parameters
    ----------
    callback : callable, optional
        ``callback(done: int, total: int, what: str)``; called in the experiment's thread.
    """

    def __init__(self, callback: Callable[[int, int, str], None] | None = None):
        self._callback = callback
        # An Event, not a bool: set from the GUI thread, read from the worker's.
        self._cancelled = threading.Event()

    def report(self, done: int, total: int, what: str) -> None:
        """Say that ``done`` of ``total`` steps are finished and ``what`` runs next.

        Raises
        ------
        Cancelled
            If :meth:`cancel` was called.
        """
        self.check()
        if self._callback is not None:
            self._callback(int(done), int(total), str(what))

    def check(self) -> None:
        """Raise :class:`Cancelled` if :meth:`cancel` was called; otherwise nothing."""
        if self._cancelled.is_set():
            raise Cancelled("the experiment was cancelled")

    def cancel(self) -> None:
        """Ask the run to stop at its next :meth:`report` or :meth:`check` (thread-safe)."""
        self._cancelled.set()

    @property
    def is_cancelled(self) -> bool:
        return self._cancelled.is_set()


@dataclass(frozen=True, eq=False)
class ExperimentScene:
    """Two posed (and possibly deforming) meshes an experiment runs on instead of its own.

    Attributes
    ----------
    mesh_a, mesh_b : TriMesh
        Rest meshes.
    pose_a, pose_b : Pose
    deformer_a, deformer_b : callable or None
        ``deformer(rest_vertices (n, 3) float64, t) -> (n, 3) float64`` (a :mod:`core.deform`
        deformer); None: the body is rigid.
    title : str
        Words for the figure and the reading ("the current scene: bunny against bunny").
    """

    mesh_a: TriMesh
    pose_a: Pose
    mesh_b: TriMesh
    pose_b: Pose
    deformer_a: Callable | None = None
    deformer_b: Callable | None = None
    title: str = "the given scene"


@dataclass(frozen=True)
class ExperimentOptions:
    """What one run is asked to do.

    Attributes
    ----------
    sizes : tuple of int or None
        The experiment's sizes (see :attr:`Experiment.sizes_meaning`); None: its
        ``default_sizes``.
    scene : ExperimentScene or None
        Two meshes and poses to run on; None: the experiment's own scene.
    frames : int or None
        Frames of a frame-based experiment (sat-axes, refit); None: its default.
    """

    sizes: tuple[int, ...] | None = None
    scene: ExperimentScene | None = None
    frames: int | None = None


@dataclass
class ExperimentResult:
    """What one run found.

    Attributes
    ----------
    name, title : str
        The experiment's registry key and title.
    columns : tuple of Column
    rows : list of tuple
        One tuple per CSV row, in ``columns`` order.
    reading : str
        One paragraph reading THIS run's numbers.
    caption : str
        Figure caption, citing the source paper.
    summary : dict
        Machine-readable key results (``{"slopes": {"aabb": -1.98, ...}}``).
    draw : callable
        ``draw(figure: matplotlib.figure.Figure) -> None`` draws the figure, caption included.
    seconds : float
        Wall time of the run.
    """

    name: str
    title: str
    columns: tuple[Column, ...]
    rows: list[tuple]
    reading: str
    caption: str
    summary: dict
    draw: Callable
    seconds: float


def rows_in_column_order(columns: tuple[Column, ...], rows: list[dict]) -> list[tuple]:
    """``ExperimentResult.rows`` from rows kept as dicts by column name.

    Parameters
    ----------
    columns : tuple of Column
    rows : list of dict
        Each holds at least every column's ``name``.

    Returns
    -------
    list of tuple
        One tuple per row, in ``columns`` order.
    """
    return [tuple(row[c.name] for c in columns) for row in rows]


def scenes_result(experiment: Experiment, scene_title: str, columns: tuple[Column, ...],
                  rows: list[dict], reading: str, caption: str, summary: dict,
                  draw: Callable) -> ExperimentResult:  # fmt: skip
    """The result of an experiment run over scenes (partitions, refit, splits).

    Parameters
    ----------
    experiment : Experiment
        Its name, and its title followed by ``scene_title``.
    scene_title : str
        The scenes the run measured, as the figure's title names them.
    columns : tuple of Column
    rows : list of dict
        Kept by column name; written in ``columns`` order (:func:`rows_in_column_order`).
    reading, caption : str
    summary : dict
    draw : callable
        ``draw(fig, rows, scene_title, caption)``, the experiment's figure.

    Returns
    -------
    ExperimentResult
        ``seconds`` 0: the runner times the run.
    """
    return ExperimentResult(
        name=experiment.name, title=f"{experiment.title}: {scene_title}", columns=columns,
        rows=rows_in_column_order(columns, rows), reading=reading, caption=caption,
        summary=summary, draw=lambda fig: draw(fig, rows, scene_title, caption), seconds=0.0,
    )  # fmt: skip


@dataclass(frozen=True)
class Experiment:
    """One experiment of the registry.

    Attributes
    ----------
    name : str
        Registry key and command-line name (``"pcp"``, ``"sat-axes"``, ...).
    title : str
        Words for menus ("Parallel close proximity").
    source : str
        The citation.
    sizes_meaning : str
        What ``--sizes`` means for it ("triangles per sphere").
    default_sizes : tuple of int
    quick_sizes : tuple of int
        Small sizes for tests and lessons (a run of a few seconds).
    run : callable
        ``run(options: ExperimentOptions, progress: Progress) -> ExperimentResult``.
    takes_scene : bool
        Whether ``run`` reads ``options.scene`` (two given meshes), so the app can run it on
        the current scene; False: it builds its own (pcp's concentric spheres).
    """

    name: str
    title: str
    source: str
    sizes_meaning: str
    default_sizes: tuple[int, ...]
    quick_sizes: tuple[int, ...]
    run: Callable
    takes_scene: bool = False
