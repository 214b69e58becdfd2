"""File > Open contact log…: another engine's per-frame contacts checked in the app.

The same core code as ``python -m core audit LOG`` (:mod:`core.lab.audit`): the log is read and
checked, every frame's pairs are compared with the exact answer (the pairs only the engine
reports and the pairs it missed, each with its exact gap), and the log's frames (its poses
and vertex files) are run through the pipeline into a recording, so the timeline scrubs
through them with a marker at each disagreeing frame and the view draws that frame's bodies
with the disagreeing pairs outlined. All of it runs on the recording job's lane, with the
window's progress dialog and its Cancel. A bad log: one line naming the file, the line and
the reason; the scene stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.lab.audit import ContactLogError, FrameAudit, audit_log, read_contact_log
from core.mesh import TriMesh
from core.pipeline import BodyInput, FramePipeline
from core.recording import Recording, RecordingCancelled
from viewer.control.recording import report_open_failure
from viewer.control.stepping import camera_on_box

BODY_KEYS = ("{name}#log-a", "{name}#log-b")
"""Keys of the log's two bodies in the recording (the name before ``#`` is shown)."""


@dataclass(frozen=True)
class ContactLogAudit:
    """A contact log checked, as the app shows it.

    Attributes
    ----------
    path : Path
    engine : str
        The engine's name from the log's header ("" when it gives none).
    mesh_names : tuple of str
        The names of mesh A and mesh B.
    audits : tuple of core.lab.audit.FrameAudit
        One per log frame, in the log's order; position ``k`` of :attr:`recording` is log
        frame ``audits[k]``.
    recording : core.recording.Recording
        The log's frames run through the pipeline, one per log frame.
    """

    path: Path
    engine: str
    mesh_names: tuple
    audits: tuple
    recording: object

    @property
    def disagreeing(self) -> list[int]:
        """Positions (in the log's order) of the frames that disagree."""
        return [k for k, audit in enumerate(self.audits) if not audit.agrees]

    def summary(self) -> str:
        """``"two-spheres.jsonl: python-fcl 0.7, sphere-a against sphere-b, 6 frames: 2
        disagree with the exact answer (frames 2, 4)"``."""
        engine = self.engine or "the engine"
        bad = self.disagreeing
        head = (f"{self.path.name}: {engine}, {self.mesh_names[0]} against "
                f"{self.mesh_names[1]}, {len(self.audits):,} frames")
        if not bad:
            return f"{head}: every frame agrees with the exact answer"
        frames = ", ".join(str(self.audits[k].frame) for k in bad[:10])
        more = ", …" if len(bad) > 10 else ""
        return (f"{head}: {len(bad):,} disagree{'s' if len(bad) == 1 else ''} with the exact "
                f"answer (frame{'s' if len(bad) > 1 else ''} {frames}{more})")


@dataclass(frozen=True)
class DisagreeingPairs:
    """The pairs the view outlines on a log frame (the cross-check overlay's fields):
    ``only_ours`` the pairs the engine missed, ``only_theirs`` the pairs only it reports,
    ``(p, 2) int32`` each."""

    only_ours: object
    only_theirs: object


class _Cancel:
    """:func:`core.lab.audit.audit_log`'s ``control``: the job's Cancel as ``check_cancelled``."""

    def __init__(self, cancel):
        self._cancel = cancel

    def check_cancelled(self, what: str) -> None:
        if self._cancel():
            raise RecordingCancelled(f"{what} was cancelled")


def log_recording(log, settings, progress=None, cancel=None) -> Recording:
    """The log's frames run through a pipeline with ``settings`` (any thread): one recorded
    frame per log frame, the bodies at the log's poses with its vertices.

    Parameters
    ----------
    log : core.lab.audit.ContactLog
    settings : core.pipeline.PipelineSettings
    progress : callable, optional
        ``progress(done, total)`` after each frame.
    cancel : callable, optional
        ``cancel() -> bool``; True stops with :class:`core.recording.RecordingCancelled`.
    """
    pipe = FramePipeline(settings)
    recording = Recording(max_frames=max(1, len(log.frames)))
    keys = [pattern.format(name=mesh.name or f"body {i + 1}") for i, (pattern, mesh)
            in enumerate(zip(BODY_KEYS, (log.mesh_a, log.mesh_b)))]
    for k, frame in enumerate(log.frames):
        if cancel is not None and cancel():
            raise RecordingCancelled("opening the contact log was cancelled")
        meshes = [mesh if vertices is None else TriMesh(vertices, mesh.faces, name=mesh.name)
                  for mesh, vertices in ((log.mesh_a, frame.vertices_a),
                                         (log.mesh_b, frame.vertices_b))]
        shown = pipe.step([BodyInput(keys[0], meshes[0], frame.pose_a),
                           BodyInput(keys[1], meshes[1], frame.pose_b)], float(k))
        recording.append(shown, keys, settings.update)
        if progress is not None:
            progress(k + 1, len(log.frames))
    return recording


class ContactLogAuditing:
    """The controller's contact-log job: ``open_contact_log``, ``audit`` (the log shown, or
    None), ``position_of``, ``disagreeing_pairs`` and ``timeline_markers``.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    frames : viewer.control.frames.FrameRunning
        ``next_settings`` (the log's frames run with the app's choices).
    recorder : viewer.control.recording.FrameRecording
        ``start_job`` (the lane, progress dialog and Cancel) and ``show_recording``.
    """

    def __init__(self, model, frames, recorder) -> None:
        self.model = model
        self._frames = frames
        self._recorder = recorder
        self.audit: ContactLogAudit | None = None
        self._is_showing = False
        model.scene_changed.connect(self._on_scene)

    def _on_scene(self) -> None:
        # Another scene: the log's frames and markers are gone with the recording.
        if not self._is_showing:
            self.audit = None

    def is_shown(self) -> bool:
        """Whether the recording on the timeline is the log's."""
        return self.audit is not None and self.model.recording is self.audit.recording

    def open_contact_log(self, path, on_done=None) -> bool:
        """Read, check and run the contact log at ``path`` on the recording job's lane, then
        show its frames on the timeline (``on_done(is_open)`` on the GUI thread). Returns
        whether the job started."""
        path = Path(path)
        self._recorder.stop_playback()
        settings = self._frames.next_settings()

        def work(progress, cancel):
            log = read_contact_log(path)
            n = len(log.frames)
            audits = audit_log(log, progress=lambda done, _total: progress(done, 2 * n),
                               control=_Cancel(cancel))
            recording = log_recording(log, settings, lambda done, _total: progress(
                n + done, 2 * n), cancel)
            return ContactLogAudit(path, log.engine, (log.mesh_a.name, log.mesh_b.name),
                                   tuple(audits), recording)

        def done(audit, error):
            if report_open_failure(self.model, "Cannot open contact log", path, error,
                                   ContactLogError,
                                   f"Opening contact log {path.name} cancelled"):
                self._show(audit)
            if on_done is not None:
                on_done(error is None)

        return self._recorder.start_job(f"Checking contact log {path.name}", work, done)

    def _show(self, audit: ContactLogAudit) -> None:
        self._is_showing = True
        try:
            self.audit = audit
            self._recorder.show_recording(audit.recording, audit.path,
                                          title=f"Contact log {audit.path.stem}",
                                          notes=audit.summary())
        finally:
            self._is_showing = False
        bad = audit.disagreeing
        if bad:
            self._recorder.scrub_to(bad[0])
        self.model.message.emit(audit.summary())

    def position_of(self, log_index: int) -> int:
        """The recording position of the log's ``log_index``-th frame (they are the same)."""
        return int(log_index)

    def shown_frame_audit(self) -> FrameAudit | None:
        """The audit of the log frame the timeline shows (None: no log frame is shown)."""
        cursor = self.model.cursor
        if not self.is_shown() or cursor is None or not 0 <= cursor < len(self.audit.audits):
            return None
        return self.audit.audits[cursor]

    def disagreeing_pairs(self) -> DisagreeingPairs | None:
        """The pairs to outline on the shown log frame, or None when it agrees."""
        audit = self.shown_frame_audit()
        if audit is None or audit.agrees:
            return None
        return DisagreeingPairs(audit.missed, audit.only_engine)

    def pairs_bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(lo, hi)``, ``(3,) float64`` each: the world box around the triangles of the
        shown log frame's differing pairs, at the frame's poses; None when it agrees."""
        pairs, frame = self.disagreeing_pairs(), self.model.frame
        if pairs is None or frame is None or len(frame.meshes) < 2:
            return None
        both = np.concatenate([np.asarray(pairs.only_ours), np.asarray(pairs.only_theirs)])
        corners = []
        for body in (0, 1):
            mesh, pose = frame.meshes[body], frame.poses[body].as_matrix()
            points = mesh.vertices[mesh.faces[np.unique(both[:, body])]].reshape(-1, 3)
            corners.append(points @ pose[:3, :3].T + pose[:3, 3])
        corners = np.concatenate(corners)
        return corners.min(axis=0), corners.max(axis=0)

    def frame_pairs(self) -> bool:
        """Move the camera to the shown log frame's differing pairs (a missed contact is a
        few triangles inside the contact ring: too small to find at the scene's view),
        looking from where it looks now. False (nothing moves) when the frame agrees."""
        bounds = self.pairs_bounds()
        if bounds is None:
            return False
        self.model.restore_camera(camera_on_box(*bounds, self.model.read_camera()))
        return True

    def timeline_markers(self) -> list[tuple[int, str]]:
        """``(position, words)`` of each disagreeing frame, while the log is on the
        timeline."""
        if not self.is_shown():
            return []
        engine = self.audit.engine or "the engine"
        return [(k, f"{engine}: {self.audit.audits[k].text()}") for k in self.audit.disagreeing]
