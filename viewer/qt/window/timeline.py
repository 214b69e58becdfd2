"""The timeline under the canvas: a slider over the recorded frames with the recording's event
markers painted on it, the transport buttons, the playback speed and "Live".

It reads the model (``recording``, ``cursor``, ``playback``) and asks the controller to move
(``scrub_to``, ``step_recorded``, ``jump_to_event``, ``play_recording``, ``go_live``); it
refreshes itself from model signals with its widgets' signals blocked.
"""

from __future__ import annotations

from dataclasses import dataclass

from PyQt6.QtCore import QEvent, QPointF, QRect, Qt, pyqtSignal
from PyQt6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap, QPolygonF, QTransform
from PyQt6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QToolButton,
    QToolTip,
    QWidget,
)

from viewer.qt.panels.common import WhenShown
from viewer.words.actions import shortcut_of


@dataclass(frozen=True)
class MarkerStyle:
    """How one kind of event is drawn: an Okabe-Ito colour and a shape, so that colour is
    never the only cue (Okabe & Ito 2008, "Color Universal Design")."""

    rgb: tuple[int, int, int]
    shape: str  # "triangle_down", "diamond", "square", "circle", "triangle_up", "cross"
    symbol: str  # the same shape as a character, for legends and tooltips
    is_hollow: bool = False  # drawn as an outline in its colour (a lighter kind of the same)


MARKER_STYLES = {
    "FIRST_CONTACT": MarkerStyle((213, 94, 0), "triangle_down", "▼"),  # vermillion
    # The bodies touch again: the same mark (it is a contact's start); its tooltip and the
    # slider's legend say "contact again".
    "CONTACT_AGAIN": MarkerStyle((213, 94, 0), "triangle_down", "▽", is_hollow=True),
    "CONTACT_PEAK": MarkerStyle((204, 121, 167), "diamond", "◆"),  # reddish purple
    "REBUILD": MarkerStyle((0, 114, 178), "square", "■"),  # blue
    "GRABBED": MarkerStyle((0, 158, 115), "circle", "●"),  # bluish green
    "SCULPTED": MarkerStyle((230, 159, 0), "triangle_up", "▲"),  # orange
    "OPENED": MarkerStyle((86, 180, 233), "cross", "✚"),  # sky blue
    # A contact log's frame whose pairs differ from the exact answer (File > Open contact
    # log): black, the one Okabe-Ito colour left, and a shape of its own.
    "ENGINE_DISAGREES": MarkerStyle((0, 0, 0), "x", "✖"),
}
"""Marker style by event kind name (``core.recording.EventKind`` member names; the widget
reads them as strings, it does not import the core)."""

UNKNOWN_MARKER = MarkerStyle((0, 0, 0), "circle", "●")

MARKER_SIZE_PX = 9
"""Width of a marker: big enough to hit with the pointer for its tooltip."""

MARKER_HIT_PX = 6
"""A tooltip names a marker when the pointer is this close to it horizontally."""

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)
"""Playback speeds offered (x the recorded rate)."""


@dataclass(frozen=True)
class Marker:
    """One event on the slider: recorded ``position``, kind ``name``, tooltip ``text``."""

    position: int
    kind: str
    text: str


def frame_label_text(cursor: int | None, n_frames: int) -> str:
    """The timeline's label: "frame 37 of 240 (recorded)", or "live" (with the count held)."""
    if cursor is None:
        if n_frames == 0:
            return "live"
        return f"live ({n_frames:,} frame{'' if n_frames == 1 else 's'} recorded)"
    return f"frame {cursor + 1:,} of {n_frames:,} (recorded)"


def _marker_path(shape: str, x: float, y: float, size: float) -> QPainterPath:
    """A closed path of ``shape`` centred on ``(x, y)``, ``size`` pixels wide."""
    h = size / 2
    path = QPainterPath()
    if shape == "circle":
        path.addEllipse(QPointF(x, y), h, h)
        return path
    if shape == "square":
        path.addRect(x - h * 0.85, y - h * 0.85, 1.7 * h, 1.7 * h)
        return path
    if shape == "x":
        w = h / 2.5
        bar = QPainterPath()
        bar.addRect(-h, -w, 2 * h, 2 * w)
        for angle in (45, -45):
            path.addPath(QTransform().translate(x, y).rotate(angle).map(bar))
        # The bars overlap at the centre: winding fill keeps it filled when merged.
        path.setFillRule(Qt.FillRule.WindingFill)
        return path.simplified()
    if shape == "cross":
        w = h / 2.5
        path.addRect(x - h, y - w, 2 * h, 2 * w)
        path.addRect(x - w, y - h, 2 * w, 2 * h)
        return path.simplified()
    points = {
        "triangle_down": [(-h, -h), (h, -h), (0, h)],
        "triangle_up": [(-h, h), (h, h), (0, -h)],
        "diamond": [(0, -h), (h, 0), (0, h), (-h, 0)],
    }[shape]
    path.addPolygon(QPolygonF([QPointF(x + dx, y + dy) for dx, dy in points]))
    path.closeSubpath()
    return path


def _mirrored(icon: QIcon) -> QIcon:
    """``icon`` flipped left to right (the style has no "play backwards" icon)."""
    pixmap = icon.pixmap(32, 32)
    return QIcon(QPixmap.fromImage(pixmap.toImage().transformed(QTransform().scale(-1, 1))))


class EventSlider(QSlider):
    """A horizontal slider over recorded frames with event markers painted above its groove;
    the pointer over a marker shows the event's words."""

    def __init__(self, parent=None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.markers: list[Marker] = []
        self.setMinimumHeight(3 * MARKER_SIZE_PX + 12)
        self.setMouseTracking(True)

    def set_markers(self, markers: list[Marker]) -> None:
        if markers != self.markers:
            self.markers = list(markers)
            self.update()

    def x_of(self, position: int) -> float:
        """Widget x (logical pixels) of the handle's centre at ``position``."""
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        style = self.style()
        groove = style.subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                      QStyle.SubControl.SC_SliderGroove, self)
        handle = style.subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                      QStyle.SubControl.SC_SliderHandle, self)
        span = max(1, groove.width() - handle.width())
        offset = QStyle.sliderPositionFromValue(self.minimum(), self.maximum(), position, span)
        return groove.x() + handle.width() / 2 + offset

    def marker_at(self, x: float) -> Marker | None:
        """The marker nearest widget x ``x`` within :data:`MARKER_HIT_PX`, or None."""
        best, best_d = None, MARKER_HIT_PX + 1
        for marker in self.markers:
            d = abs(self.x_of(marker.position) - x)
            if d < best_d:
                best, best_d = marker, d
        return best

    def marker_rect(self) -> QRect:
        """Band above the groove where the markers are drawn."""
        return QRect(0, 1, self.width(), MARKER_SIZE_PX + 2)

    def paintEvent(self, event):  # noqa: N802 - Qt API
        super().paintEvent(event)
        if not self.markers:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        y = 1 + MARKER_SIZE_PX / 2 + 1
        outline = QPen(QColor(40, 40, 40))
        outline.setWidthF(0.8)
        for marker in self.markers:
            style = MARKER_STYLES.get(marker.kind, UNKNOWN_MARKER)
            x = self.x_of(marker.position)
            if style.is_hollow:
                ring = QPen(QColor(*style.rgb))
                ring.setWidthF(1.8)
                painter.setPen(ring)
                painter.setBrush(QColor(255, 255, 255))
            else:
                painter.setPen(outline)
                painter.setBrush(QColor(*style.rgb))
            painter.drawPath(_marker_path(style.shape, x, y, MARKER_SIZE_PX))
        painter.end()

    def event(self, event):
        if event.type() == QEvent.Type.ToolTip:
            x = event.position().x() if hasattr(event, "position") else event.pos().x()
            marker = self.marker_at(x)
            if marker is not None:
                symbol = MARKER_STYLES.get(marker.kind, UNKNOWN_MARKER).symbol
                QToolTip.showText(event.globalPos(),
                                  f"{symbol} frame {marker.position + 1}: {marker.text}", self)
            else:
                QToolTip.showText(event.globalPos(), self.toolTip(), self)
            return True
        return super().event(event)


_STANDARD_ICONS: dict[tuple[str, QStyle.StandardPixmap], QIcon] = {}
"""The style's media icons, looked up once per process: ``QStyle.standardIcon`` took about
30 ms a call under Xvfb (an icon-theme search each time; cProfile of building a window:
0.21 s of its 0.69 s for the timeline's seven buttons)."""


def standard_icon(widget: QWidget, which: QStyle.StandardPixmap) -> QIcon:
    """``widget.style().standardIcon(which)``, kept for the next window with the same style."""
    key = (widget.style().name(), which)
    if key not in _STANDARD_ICONS:
        _STANDARD_ICONS[key] = widget.style().standardIcon(which)
    return _STANDARD_ICONS[key]


class TimelinePanel(QWidget):
    """The recorded frames under the canvas: slider with markers, buttons, speed, Live."""

    speed_changed = pyqtSignal(float)

    def __init__(self, model, controller, parent=None):
        super().__init__(parent)
        self.model, self.controller = model, controller
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)

        icons = QStyle.StandardPixmap

        def button(text: str, icon, tip: str, slot) -> QToolButton:
            # The style's media icons (drawn, not font glyphs: a font without the media
            # symbols showed empty boxes) with a word beside them.
            b = QToolButton()
            b.setText(text)
            if icon is not None:
                b.setIcon(standard_icon(self, icon))
            b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            b.setToolTip(tip)
            b.setAutoRaise(True)
            b.clicked.connect(slot)
            layout.addWidget(b)
            return b

        key = shortcut_of
        self.previous_event_button = button(
            "Event", icons.SP_MediaSkipBackward,
            f"Previous event marker ({key('recording.previous_event')})",
            lambda: controller.recorder.jump_to_event(-1))
        self.step_back_button = button(
            "", icons.SP_MediaSeekBackward,
            f"One recorded frame back ({key('recording.step_back')})",
            lambda: controller.recorder.step_recorded(-1))
        self.reverse_button = button(
            "Reverse", icons.SP_MediaPlay,
            f"Play the recording backwards ({key('recording.reverse')})", self.toggle_reverse)
        self.reverse_button.setIcon(_mirrored(self.reverse_button.icon()))
        self.play_button = button(
            "Play", icons.SP_MediaPlay,
            f"Play or pause the recording ({key('tools.play')} while a recorded frame is shown)",
            self.toggle_play)
        self.step_forward_button = button(
            "", icons.SP_MediaSeekForward,
            f"One recorded frame forward ({key('recording.step_forward')})",
            lambda: controller.recorder.step_recorded(+1))
        self.next_event_button = button(
            "Event", icons.SP_MediaSkipForward,
            f"Next event marker ({key('recording.next_event')})",
            lambda: controller.recorder.jump_to_event(+1))
        self._play_icon = self.play_button.icon()
        self._reverse_icon = self.reverse_button.icon()
        self._pause_icon = standard_icon(self, icons.SP_MediaPause)

        self.slider = EventSlider()
        self.slider.setToolTip("Drag to show a recorded frame; the markers are events: "
                               + ", ".join(f"{MARKER_STYLES[k].symbol} {words}" for k, words in (
                                   ("FIRST_CONTACT", "first contact"),
                                   ("CONTACT_AGAIN", "contact again"),
                                   ("CONTACT_PEAK", "most contacts"),
                                   ("REBUILD", "tree rebuilt (drift)"),
                                   ("GRABBED", "body moved"),
                                   ("SCULPTED", "body sculpted"),
                                   ("OPENED", "settings changed"),
                                   ("ENGINE_DISAGREES", "a contact log's engine disagrees "
                                                        "with the exact answer"))))
        self.slider.valueChanged.connect(self._on_slider)
        layout.addWidget(self.slider, 1)

        self.speed = QComboBox()
        for i, speed in enumerate(SPEEDS):
            self.speed.addItem(f"{speed:g}×", speed)
            self.speed.setItemData(i, f"Play {speed * 30:g} recorded frames a second",
                                   Qt.ItemDataRole.ToolTipRole)
        self.speed.setCurrentIndex(SPEEDS.index(1.0))
        self.speed.setToolTip("Playback speed (1× = 30 recorded frames a second)")
        self.speed.currentIndexChanged.connect(self._on_speed)
        layout.addWidget(self.speed)

        self.live_button = button("● Live", None, "Back to the live scene (L)",
                                  controller.recorder.go_live)
        self.label = QLabel("live")
        self.label.setMinimumWidth(self.label.fontMetrics().horizontalAdvance(
            "frame 3,000 of 3,000 (recorded)") + 8)
        self.label.setToolTip("The frame shown: a recorded one, or the live scene")
        layout.addWidget(self.label)

        # A recording grows by a frame with every frame while playing: its slider and label
        # follow at most every PLAYING_REFRESH_S (0.3 ms of the GUI thread a frame).
        self.recording_refresh = WhenShown(self, model, self.refresh)
        model.recording_changed.connect(self.recording_refresh)
        model.cursor_changed.connect(lambda _c: self.refresh())
        model.playback_changed.connect(lambda _d: self._refresh_buttons())
        model.scene_changed.connect(self.refresh)
        self.refresh()

    # -- reading the model ------------------------------------------------------------------
    def markers(self) -> list[Marker]:
        recording = self.model.recording
        if recording is None:
            return []
        markers = [Marker(e.position, e.kind.name, e.text) for e in recording.events()]
        # A contact log's disagreeing frames (File > Open contact log) while it is shown.
        markers += [Marker(position, "ENGINE_DISAGREES", text)
                    for position, text in self.controller.contact_log.timeline_markers()]
        return markers

    def refresh(self) -> None:
        recording = self.model.recording
        n = len(recording) if recording is not None else 0
        cursor = self.model.cursor
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, n - 1))
        self.slider.setValue(cursor if cursor is not None else max(0, n - 1))
        self.slider.setEnabled(n > 0)
        self.slider.blockSignals(False)
        self.slider.set_markers(self.markers() if n else [])
        self.label.setText(frame_label_text(cursor, n))
        for b in (self.previous_event_button, self.step_back_button, self.reverse_button,
                  self.play_button, self.step_forward_button, self.next_event_button):
            b.setEnabled(n > 0)
        self.live_button.setEnabled(cursor is not None)
        self._refresh_buttons()

    def _refresh_buttons(self) -> None:
        playback = self.model.playback
        self.play_button.setText("Pause" if playback > 0 else "Play")
        self.play_button.setIcon(self._pause_icon if playback > 0 else self._play_icon)
        self.reverse_button.setText("Pause" if playback < 0 else "Reverse")
        self.reverse_button.setIcon(self._pause_icon if playback < 0 else self._reverse_icon)

    # -- writing ----------------------------------------------------------------------------
    def speed_value(self) -> float:
        return float(self.speed.currentData())

    def _on_speed(self, _index: int) -> None:
        self.model.set_playback_speed(self.speed_value())
        self.speed_changed.emit(self.speed_value())

    def _on_slider(self, value: int) -> None:
        self.controller.recorder.stop_playback()
        self.controller.recorder.scrub_to(value)

    def toggle_play(self) -> None:
        """Play the recording forward, or pause it."""
        if self.model.playback != 0:
            self.controller.recorder.stop_playback()
        else:
            self.controller.recorder.play_recording(self.speed_value(), reverse=False)

    def toggle_reverse(self) -> None:
        """Play the recording backwards, or pause it."""
        if self.model.playback != 0:
            self.controller.recorder.stop_playback()
        else:
            self.controller.recorder.play_recording(self.speed_value(), reverse=True)
