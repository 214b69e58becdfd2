"""Helpers the dock panels share: a label that wraps, a combo box that fits a narrow dock."""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QComboBox, QLabel

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
