"""Helpers the dock panels share: a label that wraps, a combo box that fits a narrow dock."""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QComboBox, QLabel

from viewer.frame_caption import frame_caption, tree_words

__all__ = ["frame_caption", "header_label", "header_text", "narrow_combo", "show_header",
           "tree_words", "wrap_label"]

COMBO_MIN_CHARS = 14
"""Characters a combo box shows when the dock is narrow; its popup still shows the whole
entries."""


def narrow_combo(combo: QComboBox) -> QComboBox:
    """Let a combo box shrink to :data:`COMBO_MIN_CHARS` instead of its longest entry."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(COMBO_MIN_CHARS)
    return combo


def wrap_label(label: QLabel) -> QLabel:
    """Let a label wrap its text and the user select it."""
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


HEADER_STYLE = "color: #555555;"
"""A panel's header line: what its numbers were computed on (grey, out of the way)."""
STALE_HEADER_STYLE = "color: #D55E00; font-weight: bold;"
"""The header while the last live frame failed: Okabe-Ito vermillion, as the canvas mark."""


def header_text(model, frame, bodies=None) -> str:
    """The header line of a panel whose numbers come from ``frame``: which frame and which
    trees, "(recorded)" for a frame of the recording, and while the last live frame failed,
    that failure and that these numbers are an older frame's."""
    if frame is None:
        return "No frame yet."
    text = "Numbers of " + frame_caption(frame, bodies)
    if model.cursor is not None and frame is model.frame:
        text += " (recorded)"
    failure = getattr(model, "frame_failure", None)
    if failure is not None:
        text += f"\n{failure.text(model.frame)}: these numbers are frame {frame.index}'s"
    return text


def header_label() -> QLabel:
    """A panel's header line (plain text, wraps, selectable)."""
    label = wrap_label(QLabel("No frame yet."))
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet(HEADER_STYLE)
    label.setToolTip("What these numbers were computed on: the frame and each body's tree")
    return label


def show_header(label: QLabel, model, frame, bodies=None) -> None:
    """Write :func:`header_text` into ``label``, in the stale colour after a failed frame."""
    label.setText(header_text(model, frame, bodies))
    is_stale = frame is not None and getattr(model, "frame_failure", None) is not None
    label.setStyleSheet(STALE_HEADER_STYLE if is_stale else HEADER_STYLE)
