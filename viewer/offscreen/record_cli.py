"""``--record`` and ``--replay`` of ``python -m viewer``: a recording made and replayed
headless.

``record_scene`` plays a built-in scene through the same :class:`viewer.controller.Controller`
as the window (its deformers, the benchmark's 30 Hz clock, one frame at a time, nothing drawn)
and saves every frame; ``replay_file`` runs a saved recording again with other settings and
reports, frame by frame, what changed.
"""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

from core.bv import ObbFit
from core.bvh import SplitRule
from core.collide import DescendRule
from core.pipeline import PipelineSettings, UpdateMode
from core.recording import Recording, open_recording, recorded_settings, replay, save_recording
from core.recording.store import MEGABYTE
from core.text import printable

FRAME_DT = 1.0 / 30.0
"""Animation time between recorded frames: the benchmark's and the soak test's 30 Hz clock."""


class RecordCliError(ValueError):
    """A bad scene, file or option of ``--record`` / ``--replay`` (one line)."""


def _check_writable(path: Path) -> None:
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise RecordCliError(f"{path}: is a directory")
    if not parent.is_dir():
        raise RecordCliError(f"{path}: cannot write: no directory {parent}")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise RecordCliError(f"{path}: cannot write: permission denied")


def record_scene(scene: str, n_frames: int, path) -> dict:
    """Play built-in ``scene`` for ``n_frames`` frames and save them to ``path``.

    Returns
    -------
    dict
        ``{"scene", "frames", "megabytes" (in memory), "file_megabytes", "seconds", "path"}``.

    Raises
    ------
    RecordCliError
        Unknown scene, fewer than one frame, an unwritable file, a frame that failed.
    """
    from PyQt6.QtCore import QCoreApplication

    from viewer.controller import Controller
    from viewer.model import ViewerModel
    from viewer.scenes import SCENES

    if scene not in SCENES:
        raise RecordCliError(f"unknown scene {scene!r}; scenes: {', '.join(SCENES)}")
    if n_frames < 1:
        raise RecordCliError(f"--frames must be at least 1, got {n_frames}")
    path = Path(path)
    _check_writable(path)
    app = QCoreApplication.instance() or QCoreApplication([])  # noqa: F841 - timers need one
    model = ViewerModel()
    errors = []
    model.error.connect(lambda title, text: errors.append(f"{title}: {text}"))
    controller = Controller(model, is_threaded=False)
    start = time.perf_counter()
    try:
        if not controller.scenes.load_scene(scene):
            raise RecordCliError(errors[-1] if errors else f"cannot load scene {scene!r}")
        model.set_playing(False)
        recording = Recording(max_frames=max(n_frames, 3000))
        for i in range(n_frames):
            model.set_time(i * FRAME_DT)
            frame = controller.frames.step_sync()
            recording.append(frame, [body.key for body in model.bodies],
                             controller.frames.pipe.settings.update)  # fmt: skip
        save_recording(recording, path)
    except ValueError as exc:  # RecordingFileError, a frame's bad input
        raise RecordCliError(str(exc)) from None
    finally:
        controller.shutdown()
    return {"scene": scene, "frames": len(recording), "dropped": recording.n_dropped,
            "megabytes": recording.nbytes / MEGABYTE,
            "file_megabytes": path.stat().st_size / MEGABYTE,
            "seconds": time.perf_counter() - start, "path": str(path)}


def format_record(summary: dict) -> str:
    """The one line ``--record`` prints."""
    dropped = f" ({summary['dropped']} oldest dropped)" if summary["dropped"] else ""
    return (f"recorded {summary['frames']} frames of {summary['scene']}{dropped} to "
            f"{summary['path']}: {summary['megabytes']:.1f} MB in memory, "
            f"{summary['file_megabytes']:.1f} MB on disk, {summary['seconds']:.1f} s")


def replay_file(path, bv: str | None = None, split: str | None = None,
                update: str | None = None, descend: str | None = None,
                obb_fit: str | None = None) -> dict:  # fmt: skip
    """Replay a saved recording with the recorded settings, some of them changed.

    Parameters
    ----------
    path : str or os.PathLike
    bv : str, optional
        A key of ``core.bv.BV_KINDS``; None keeps the recorded one (and so for the others).
    split, descend, obb_fit : str, optional
        Member names (any case) of ``SplitRule``, ``DescendRule``, ``ObbFit``.
    update : str, optional
        ``"refit"``, ``"rebuild"`` or ``"auto"``.

    Returns
    -------
    dict
        ``{"file", "settings", "all_identical", "mismatches", "frames", "recorded",
        "seconds"}``; ``frames`` holds per frame ``frame, bv_tests, tri_tests, time_ms,
        contacts_identical`` and ``recorded`` the recording's own ``frame, bv_tests,
        tri_tests, time_ms``.

    Raises
    ------
    RecordCliError
        A bad file (:class:`core.recording.RecordingFileError`'s line), a bad option, or a
        replay the recorded settings cannot run (a partition past its budget, say).
    """
    shown = printable(str(path))
    try:
        recording = open_recording(path)
        base = recorded_settings(recording)
        changes = {}
        if bv is not None:
            changes["bv"] = bv
        if split is not None:
            changes["split"] = SplitRule[split.upper()]
        if descend is not None:
            changes["descend"] = DescendRule[descend.upper()]
        if obb_fit is not None:
            changes["obb_fit"] = ObbFit[obb_fit.upper()]
        mode = base.update if update is None else UpdateMode(update)
        settings = PipelineSettings(base.request.replace(**changes), mode, base.drift_threshold,
                                    frame=base.frame)
    except KeyError as exc:
        raise RecordCliError(f"unknown choice {exc}") from None
    except (TypeError, ValueError) as exc:
        raise RecordCliError(str(exc)) from None
    try:
        report = replay(recording, settings)
    except (TypeError, ValueError, IndexError) as exc:
        raise RecordCliError(f"{shown}: cannot replay: {exc}") from None
    except MemoryError:
        raise RecordCliError(f"{shown}: cannot replay: out of memory") from None
    rows = report.rows
    return {
        "file": shown,
        "settings": report.settings,
        "all_identical": report.all_identical,
        "mismatches": report.mismatches,
        "frames": [{"frame": r.frame, "bv_tests": r.bv_tests, "tri_tests": r.tri_tests,
                    "time_ms": r.time_ms, "contacts_identical": r.contacts_identical}
                   for r in rows],
        "recorded": [{"frame": r.frame, "bv_tests": r.recorded_bv_tests,
                      "tri_tests": r.recorded_tri_tests,
                      "time_ms": r.recorded_time_ms if math.isfinite(r.recorded_time_ms)
                      else None} for r in rows],
        "seconds": report.seconds,
    }  # fmt: skip


def replay_json(summary: dict) -> str:
    """The replay as one strict JSON object."""
    return json.dumps(summary, allow_nan=False)


def format_replay(summary: dict) -> str:
    """The replay as a table a person reads, mismatches called out."""
    lines = [f"replay of {summary['file']} with {summary['settings']}",
             f"{'frame':>6}  {'volume tests':>22}  {'triangle tests':>20}  "
             f"{'ms':>17}  contacts"]  # fmt: skip
    for row, old in zip(summary["frames"], summary["recorded"]):
        old_ms = "-" if old["time_ms"] is None else f"{old['time_ms']:.2f}"
        same = "identical" if row["contacts_identical"] else "DIFFERENT  <<<"
        lines.append(f"{row['frame']:>6}  {old['bv_tests']:>10,} -> {row['bv_tests']:>8,}  "
                     f"{old['tri_tests']:>8,} -> {row['tri_tests']:>8,}  "
                     f"{old_ms:>7} -> {row['time_ms']:>6.2f}  {same}")  # fmt: skip
    n = len(summary["frames"])
    if summary["all_identical"]:
        lines.append(f"contacts identical in all {n} frames (recorded -> replayed)")
    else:
        bad = summary["mismatches"]
        lines.append(f"CONTACTS DIFFER in {len(bad)} of {n} frames: "
                     f"{', '.join(str(i) for i in bad)}")
    return "\n".join(lines)
