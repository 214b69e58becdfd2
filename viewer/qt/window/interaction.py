"""Mouse and keys on the canvas: Camera, Move and Sculpt modes, and the click inspector.

An event filter on the canvas (:class:`viewer.canvas.Canvas`) sees every mouse event before
VTK does. In Camera mode it lets them through (pyvista's trackball) and only notices plain
clicks for the inspector; in Move and Sculpt modes a press on a mesh is consumed and drives
the model, while a press on empty space falls through to the camera.
"""

from __future__ import annotations

import numpy as np
from PyQt6.QtCore import QEvent, QObject, Qt

from viewer.state.display import Mode

CLICK_SLOP_PX = 4
"""A press and release closer than this (pixels) is a click, not a drag."""
ROTATE_RAD_PER_PX = 0.01
"""Rotation speed of a right-drag in Move mode (a 300 px drag turns about 170 degrees)."""
NUDGE_FRACTION = 0.02
"""An arrow key moves the selected mesh by this fraction of its size."""


class CanvasInteraction(QObject):
    """Event filter installed on the plotter widget.

    Parameters
    ----------
    plotter : viewer.canvas.Canvas
    renderer : viewer.render.SceneRenderer
    model : viewer.model.ViewerModel
    controller : viewer.controller.Controller
    """

    def __init__(self, plotter, renderer, model, controller, parent=None):
        super().__init__(parent)
        self.plotter, self.renderer = plotter, renderer
        self.model, self.controller = model, controller
        self._drag = None  # dict while a Move or Sculpt drag is in progress
        self._press_pos = None
        plotter.installEventFilter(self)
        plotter.setMouseTracking(True)

    # -- coordinates ------------------------------------------------------------------------
    def display_xy(self, event) -> tuple[float, float]:
        """VTK display coordinates of a Qt mouse event (origin bottom-left, device pixels)."""
        ratio = self.plotter.devicePixelRatioF()
        pos = event.position()
        height = self.plotter.ren_win.GetSize()[1]
        return pos.x() * ratio, height - pos.y() * ratio - 1

    # -- event filter -----------------------------------------------------------------------
    def eventFilter(self, obj, event):  # noqa: N802 - Qt API
        kind = event.type()
        try:
            if kind == QEvent.Type.MouseButtonPress:
                return self._press(event)
            if kind == QEvent.Type.MouseMove:
                return self._move(event)
            if kind == QEvent.Type.MouseButtonRelease:
                return self._release(event)
            if kind == QEvent.Type.KeyPress:
                return self._key(event)
            if kind in (QEvent.Type.DragEnter, QEvent.Type.Drop):
                return self._drop(event)
        except Exception as exc:  # noqa: BLE001 - an interaction never crashes the app
            self._drag = None
            self.model.message.emit(f"Interaction failed: {exc}")
            return True
        return False

    def _press(self, event) -> bool:
        self._press_pos = event.position()
        mode = self.model.mode
        if mode is Mode.CAMERA or not self.model.bodies:
            return False
        x, y = self.display_xy(event)
        hit = self.renderer.pick(x, y)
        if hit is None:
            if mode is Mode.MOVE and event.button() == Qt.MouseButton.LeftButton:
                self.model.set_selected(-1)
            return False  # empty space: the camera takes the drag
        body, _tri, point = hit
        if mode is Mode.MOVE:
            self.model.set_selected(body)
            is_rotate = (event.button() == Qt.MouseButton.RightButton
                         or bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier))
            center = self.controller.poses.centroid_world(body)
            depth = self.renderer.world_to_display(center)[2]
            self._drag = {"kind": "rotate" if is_rotate else "translate", "body": body,
                          "depth": depth, "last": (x, y), "center": center,
                          "world": self.renderer.display_to_world(x, y, depth)}
            return True
        if mode is Mode.SCULPT and event.button() == Qt.MouseButton.LeftButton:
            self.model.set_selected(body)
            depth = self.renderer.world_to_display(point)[2]
            self.controller.sculpting.begin_stroke(body)
            self._drag = {"kind": "sculpt", "body": body, "depth": depth, "world": point}
            return True
        return False

    def _move(self, event) -> bool:
        x, y = self.display_xy(event)
        drag = self._drag
        if drag is None:
            if self.model.mode is Mode.SCULPT and event.buttons() == Qt.MouseButton.NoButton:
                self._hover_brush(x, y)
            return False
        body = drag["body"]
        if drag["kind"] == "translate":
            world = self.renderer.display_to_world(x, y, drag["depth"])
            self.controller.poses.translate_body(body, world - drag["world"])
            drag["world"] = world
        elif drag["kind"] == "rotate":
            dx, dy = x - drag["last"][0], y - drag["last"][1]
            right, up, _forward = self.renderer.camera_axes()
            axis = dx * up - dy * right
            angle = ROTATE_RAD_PER_PX * float(np.hypot(dx, dy))
            if angle > 0:
                poses = self.controller.poses
                poses.rotate_body(body, axis, angle, poses.centroid_world(body))
            drag["last"] = (x, y)
        elif drag["kind"] == "sculpt":
            world = self.renderer.display_to_world(x, y, drag["depth"])
            self.controller.sculpting.sculpt(body, drag["world"], world - drag["world"])
            drag["world"] = world
            self.renderer.set_brush(world, self._brush_radius(body))
            self.plotter.render()
        return True

    def _release(self, event) -> bool:
        if self._drag is not None:
            drag, self._drag = self._drag, None
            if drag["kind"] == "sculpt":
                self.controller.sculpting.end_stroke(drag["body"])
            else:
                self.controller.poses.end_drag(drag["body"])
            return True
        press, self._press_pos = self._press_pos, None
        if (self.model.mode is Mode.CAMERA and press is not None
                and event.button() == Qt.MouseButton.LeftButton):
            delta = event.position() - press
            if abs(delta.x()) + abs(delta.y()) <= CLICK_SLOP_PX:
                self.inspect_at(*self.display_xy(event))
        return False

    def _key(self, event) -> bool:
        key = event.key()
        arrows = {Qt.Key.Key_Left: (-1, 0), Qt.Key.Key_Right: (1, 0), Qt.Key.Key_Up: (0, 1),
                  Qt.Key.Key_Down: (0, -1)}
        if key in arrows and self.model.mode is Mode.MOVE and self.model.selected >= 0:
            body = self.model.selected
            right, up, _ = self.renderer.camera_axes()
            sx, sy = arrows[key]
            step = NUDGE_FRACTION * self.controller.poses.body_size(body)
            self.controller.poses.translate_body(body, step * (sx * right + sy * up))
            return True
        if key == Qt.Key.Key_Escape:
            # Also a window shortcut (View > Clear selection); handled here too so that Esc
            # on the canvas works whether or not the window manager made the window active.
            self.model.set_inspect(None)
            self.model.set_selected(-1)
            return True
        # Swallow VTK's own single-letter keys ('w' wireframe, 'e'/'q' exit, 'p' pick...):
        # the window's menu shortcuts are the documented keys.
        return bool(event.text()) and event.text().isprintable()

    def _drop(self, event) -> bool:
        """Files dropped on the canvas are added to the scene like File > Open."""
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if not paths:
            return False
        event.acceptProposedAction()
        if event.type() == QEvent.Type.Drop:
            self.controller.files.load_files(paths, replace_scene=False)
        return True

    # -- helpers ----------------------------------------------------------------------------
    def _brush_radius(self, body: int) -> float:
        return self.model.brush_radius * self.controller.poses.body_size(body)

    def _hover_brush(self, x: float, y: float) -> None:
        hit = self.renderer.pick(x, y)
        if hit is None:
            self.renderer.set_brush(None)
        else:
            self.renderer.set_brush(hit[2], self._brush_radius(hit[0]))
        self.plotter.render()

    def inspect_at(self, x: float, y: float) -> None:
        """Show in the inspector the box under display point ``(x, y)`` (or clear it)."""
        hit = self.renderer.pick(x, y)
        if hit is None or hit[0] > 1:
            self.model.set_inspect(None)
            return
        info = self.controller.inspector.inspect_node(self.model.frame, hit[0], hit[1],
                                                      self.model.level)
        self.model.set_inspect(info)
        if info is not None:  # the clicked volume is also the node the tree docks select
            self.model.select_node(info.body, info.node)
