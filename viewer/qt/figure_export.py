"""Save figure…: every matplotlib figure of the app written as PNG or SVG, one helper for all.

The format follows the file name's suffix; without one, the filter chosen in the file dialog
adds it. PNG is written at :data:`PNG_DPI` so that a figure pasted on a slide stays sharp on a
projector; SVG stays vector (text as text) for editing.
"""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtWidgets import QFileDialog

FIGURE_FILTERS = {"PNG image (*.png)": ".png", "SVG drawing (*.svg)": ".svg"}
"""File dialog filters of Save figure and the suffix each one adds."""

FIGURE_SUFFIXES = (".png", ".svg")

PNG_DPI = 150
"""Dots per inch of a saved PNG (as the command line's): a 10-inch figure is 1500 pixels wide,
sharp on a projector."""


class FigureSaveError(ValueError):
    """A figure could not be saved (bad suffix, unwritable place); the text names the file."""


def figure_path(path: str, chosen_filter: str = "") -> Path:
    """The path to write: ``path`` with the suffix of ``chosen_filter`` added when it has
    none. FigureSaveError for a suffix other than .png or .svg."""
    target = Path(path)
    if not target.suffix:
        target = target.with_suffix(FIGURE_FILTERS.get(chosen_filter, ".png"))
    if target.suffix.lower() not in FIGURE_SUFFIXES:
        raise FigureSaveError(f"{target.name}: a figure is saved as .png or .svg, not "
                              f"{target.suffix}")
    return target


def save_figure(figure, path) -> Path:
    """Write matplotlib ``figure`` to ``path`` (PNG or SVG by its suffix).

    Returns the path written; FigureSaveError with a one-line reason otherwise."""
    target = figure_path(str(path))
    try:
        figure.savefig(target, format=target.suffix[1:].lower(), dpi=PNG_DPI)
    except OSError as exc:
        raise FigureSaveError(f"{target}: {exc.strerror or exc}") from exc
    return target


def ask_figure_path(parent, title: str, start: Path) -> str:
    """Ask where to save a figure (PNG or SVG); "" when cancelled. ``start`` is the proposed
    file (its suffix picks the filter shown first)."""
    filters = list(FIGURE_FILTERS)
    first = next((f for f, suffix in FIGURE_FILTERS.items() if suffix == start.suffix),
                 filters[0])
    path, chosen = QFileDialog.getSaveFileName(parent, title, str(start), ";;".join(filters),
                                               first)
    if not path:
        return ""
    return str(figure_path(path, chosen)) if not Path(path).suffix else path
