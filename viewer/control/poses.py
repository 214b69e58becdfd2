"""Moving a body: its pose changes, its vertices never do (the traversal tests B's volumes in
A's frame)."""

from __future__ import annotations

import numpy as np

from core.pose import Pose


class BodyPosing:
    """The controller's pose job: translate and rotate a body, and where and how big it is.

    ``model.set_pose`` asks for the next frame. A move while a recorded frame is shown goes
    live first, and the end of a drag marks the recording.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    recording : viewer.control.recording.FrameRecording
        Its ``go_live_before_editing`` and ``mark_grabbed``.
    """

    def __init__(self, model, recording) -> None:
        self.model = model
        self._recording = recording

    def translate_body(self, index: int, delta_world) -> None:
        """Move body ``index`` by ``delta_world``, ``(3,) float64``."""
        self._recording.go_live_before_editing()
        pose = np.array(self.model.bodies[index].pose)
        pose[:3, 3] += np.asarray(delta_world, dtype=np.float64)
        self.model.set_pose(index, pose)

    def rotate_body(self, index: int, axis_world, angle_rad: float, center_world) -> None:
        """Rotate body ``index`` about a world axis through ``center_world``."""
        self._recording.go_live_before_editing()
        spin = Pose.from_axis_angle(axis_world, angle_rad)
        c = np.asarray(center_world, dtype=np.float64)
        about = Pose(np.eye(3), c).compose(spin).compose(Pose(np.eye(3), -c))
        pose = about.compose(Pose.from_matrix(self.model.bodies[index].pose))
        self.model.set_pose(index, pose.as_matrix())

    def end_drag(self, index: int) -> None:
        """A drag of body ``index`` ended: the recording marks the frame it left."""
        if 0 <= index < len(self.model.bodies):
            self._recording.mark_grabbed()

    def centroid_world(self, index: int) -> np.ndarray:
        """World position of the centre of body ``index``'s rest box, ``(3,) float64``."""
        body = self.model.bodies[index]
        lo, hi = body.rest.bounds
        return Pose.from_matrix(body.pose).apply(0.5 * (lo + hi))

    def body_size(self, index: int) -> float:
        """Longest side of body ``index``'s rest box (drag steps and the brush scale by it)."""
        lo, hi = self.model.bodies[index].rest.bounds
        return float((hi - lo).max())
