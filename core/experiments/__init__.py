"""Experiments: classic results of the collision-detection literature, rerun on this engine,
each as a figure (PNG, SVG), its data (CSV) and a paragraph reading the numbers.

``python -m core experiment NAME`` (:mod:`core.cli.experiment`) and the app's Experiments
window run them through :func:`run_experiment` and :func:`write_outputs`. Each experiment is
one module with an :class:`~core.experiments.base.Experiment` named ``EXPERIMENT``,
registered in :data:`EXPERIMENTS` below.
"""

from __future__ import annotations

import time

import numpy as np

from core.experiments import cost_model, partitions, pcp, refit, sat_axes, splits
from core.experiments.base import (
    Cancelled,
    Column,
    Experiment,
    ExperimentOptions,
    ExperimentResult,
    ExperimentScene,
    Progress,
)
from core.experiments.output import csv_text, make_figure, write_outputs

#: Every experiment by name, in the order of issue 14.
EXPERIMENTS: dict[str, Experiment] = {}


def register(experiment: Experiment) -> None:
    """Add ``experiment`` to :data:`EXPERIMENTS` under its name."""
    EXPERIMENTS[experiment.name] = experiment


register(pcp.EXPERIMENT)
register(sat_axes.EXPERIMENT)
register(splits.EXPERIMENT)
register(refit.EXPERIMENT)
register(partitions.EXPERIMENT)
register(cost_model.EXPERIMENT)


def get_experiment(name: str) -> Experiment:
    """The experiment called ``name``; a one-line ValueError listing the names."""
    try:
        return EXPERIMENTS[name]
    except KeyError:
        raise ValueError(f"unknown experiment {name!r}; one of {', '.join(EXPERIMENTS)}") from None


def run_experiment(name: str, options: ExperimentOptions | None = None,
                   progress: Progress | None = None) -> ExperimentResult:
    """Run experiment ``name`` and return its result (``seconds`` set to the wall time).

    Parameters
    ----------
    name : str
        A key of :data:`EXPERIMENTS`.
    options : ExperimentOptions, optional
        Default: the experiment's own sizes and scene.
    progress : Progress, optional
        Receives the progress reports; its ``cancel()`` stops the run.

    Raises
    ------
    ValueError
        Unknown name, or sizes the experiment cannot run (one line).
    Cancelled
        ``progress.cancel()`` was called.
    """
    experiment = get_experiment(name)
    options = ExperimentOptions() if options is None else options
    progress = Progress() if progress is None else progress
    if options.sizes is not None:
        sizes = tuple(options.sizes)
        if not sizes or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                                and s >= 1 for s in sizes):  # fmt: skip
            raise ValueError(f"sizes must be whole numbers of at least 1, got {options.sizes}")
    if options.frames is not None and (not isinstance(options.frames, (int, np.integer))
                                       or options.frames < 1):  # fmt: skip
        raise ValueError(f"frames must be a whole number of at least 1, got {options.frames}")
    t0 = time.perf_counter()
    result = experiment.run(options, progress)
    result.seconds = time.perf_counter() - t0
    return result


__all__ = ["EXPERIMENTS", "Cancelled", "Column", "Experiment", "ExperimentOptions",
           "ExperimentResult", "ExperimentScene", "Progress", "csv_text", "get_experiment",
           "make_figure", "register", "run_experiment", "write_outputs"]
