"""A panel's refresh-when-shown filter survives the garbage collector taking it apart."""

from __future__ import annotations

from PyQt6.QtGui import QHideEvent
from PyQt6.QtWidgets import QApplication, QWidget

from viewer.model import ViewerModel
from viewer.qt.panels.common import WhenShown


def test_a_dying_panels_last_events_pass_its_emptied_filter(qtbot):
    panel = QWidget()
    qtbot.addWidget(panel)
    refreshed = []
    when_shown = WhenShown(panel, ViewerModel(panel), refreshed.append)
    # What the collector leaves of the filter while the panel it watches is being deleted:
    # a Python object with no attributes, still installed on the widget.
    when_shown.__dict__.clear()
    QApplication.sendEvent(panel, QHideEvent())  # raised AttributeError in the event loop
    assert refreshed == []
