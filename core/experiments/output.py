"""An experiment's files: the figure as PNG and SVG and the table as CSV with a header saying
what each column is."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np

from core.experiments.base import ExperimentResult
from core.files.safe_write import replace_file

#: Resolution of the PNG: a 10-inch figure is 1500 pixels wide, sharp on a projector.
PNG_DPI = 150


def make_figure(result: ExperimentResult):
    """A new :class:`matplotlib.figure.Figure` with ``result``'s figure drawn in it.

    No pyplot: the figure is not attached to any GUI backend, so this runs in a worker
    thread and on a machine without a display.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10.0, 6.0), layout=None)
    result.draw(fig)
    return fig


def _cell(value) -> str:
    """A CSV cell: integers as they are, floats with 6 significant digits (NaN as ``nan``)."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return f"{value:.6g}" if math.isfinite(value) else str(value)
    return str(value)


def csv_text(result: ExperimentResult, source: str = "") -> str:
    """The CSV of ``result``: ``# `` comment lines (title, source, one line per column
    ``# name (unit): meaning``), then the header row, then the rows."""
    out = io.StringIO()
    out.write(f"# {result.title}\n")
    if source:
        out.write(f"# source: {source}\n")
    for column in result.columns:
        unit = f" ({column.unit})" if column.unit else ""
        out.write(f"# {column.name}{unit}: {column.meaning}\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([c.name for c in result.columns])
    for row in result.rows:
        writer.writerow([_cell(v) for v in row])
    return out.getvalue()


def write_outputs(result: ExperimentResult, out_dir) -> dict[str, Path]:
    """Write ``NAME.png``, ``NAME.svg`` and ``NAME.csv`` of ``result`` into ``out_dir``.

    Each file is written under a temporary name and renamed, so a failure leaves no half
    file. ``out_dir`` must exist.

    Returns
    -------
    dict
        ``{"png": Path, "svg": Path, "csv": Path}``.

    Raises
    ------
    OSError
        ``out_dir`` is missing, not a folder or not writable (one line naming it).
    """
    from core.experiments import EXPERIMENTS

    folder = Path(out_dir)
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise OSError(f"output folder {str(folder)!r} {what}")
    experiment = EXPERIMENTS.get(result.name)
    source = experiment.source if experiment is not None else ""
    paths = {ext: folder / f"{result.name}.{ext}" for ext in ("png", "svg", "csv")}
    fig = make_figure(result)
    try:
        replace_file(paths["png"], lambda s: fig.savefig(s, format="png", dpi=PNG_DPI))
        replace_file(paths["svg"], lambda s: fig.savefig(s, format="svg"))
        text = csv_text(result, source).encode("utf-8")
        replace_file(paths["csv"], lambda s: s.write(text))
    except PermissionError:
        raise OSError(f"output folder {str(folder)!r} is not writable") from None
    return paths
