"""Room on a figure for text whose length depends on the run: a wrapped title, a caption."""

from __future__ import annotations

import textwrap

#: Height of one line of 9-point caption text with its spacing, inches.
CAPTION_LINE_IN = 0.155

#: Below the lowest axes: tick labels and the x-axis label, inches.
AXIS_LABELS_IN = 0.55


def caption_bottom(fig, caption: str) -> float:
    """The figure fraction to leave under the axes for ``caption`` as
    :func:`core.experiments.common.put_caption` wraps it (about 12 characters an inch), so
    that a long scene title in the caption does not run into the x-axis label."""
    lines = len(textwrap.wrap(caption, int(fig.get_figwidth() * 12)))
    inches = 0.15 + CAPTION_LINE_IN * lines + AXIS_LABELS_IN
    return min(0.45, inches / fig.get_figheight())


def wrapped(text: str, fig, fontsize: float) -> str:
    """``text`` broken into lines that fit the figure's width at ``fontsize`` points (a
    character is about half the font size wide)."""
    chars = int(fig.get_figwidth() * 72.0 / (0.55 * fontsize))
    return textwrap.fill(text, chars)
