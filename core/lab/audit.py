"""Check another engine's contact log against the exact answer, frame by frame.

An engineer's engine reports, every frame, which triangle pairs of two bodies touch. The log
is JSON lines (documented in docs/command-line.md, "Contact logs"):

* line 1, the header: ``{"bvh_lab_contact_log": 1, "mesh_a": "a.obj", "mesh_b": "b.obj",
  "engine": "python-fcl 0.7.0.10"}`` (mesh paths relative to the log; ``engine`` optional);
* every other line, one frame: ``{"frame": 0, "pose_a": [16 numbers], "pose_b": [...],
  "vertices_a": "a-0003.npy", "vertices_b": ..., "pairs": [[i, j], ...], "distances":
  [...]}``. ``pose_*`` is a row-major 4x4 rigid (or uniformly scaled) matrix, identity when
  left out; ``vertices_*`` a ``.npy`` file of the body's deformed vertices ``(n, 3)
  float64`` in its own coordinates (the mesh file's when left out); ``pairs`` the (triangle
  of A, triangle of B) pairs the engine reported; ``distances`` optional, one per pair (what
  the engine said about each pair: a separation or a penetration depth).

For every frame the exact answer is computed on the coordinates the log gives: both bodies
posed as a query poses them (B moved into A's frame, :func:`core.lab.crosscheck.
query_coordinates`), every triangle pair decided with exact predicates by BVH Lab's query.
The audit lists the pairs only the engine reports and the pairs it missed, each with its
exact gap (:mod:`core.lab.exact_gap`): 0 means the triangles touch (the engine missed a contact),
a positive gap means they are apart (the engine reported a pair that does not touch, or
counts "within its tolerance" as contact).

Budgets: a log of at most :data:`MAX_LOG_BYTES`, :data:`MAX_FRAMES` frames, lines of at most
:data:`MAX_LINE_BYTES` and :data:`MAX_PAIRS_PER_FRAME` pairs a frame; past one, one line
names the log, the line and the limit.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.errors import BVHLabError
from core.lab.crosscheck import query_coordinates
from core.lab.exact_gap import exact_gap
from core.lab.pair_sets import checked_pairs, pairs_not_in
from core.mesh import TriMesh
from core.pose import Pose

LOG_FORMAT = "bvh_lab_contact_log"
"""The header's key; its value is the format version."""
LOG_VERSION = 1
"""The newest version this reader knows."""
MAX_LOG_BYTES = 512 * 2**20
"""A contact log may be at most 512 MiB."""
MAX_LINE_BYTES = 64 * 2**20
"""One frame's line may be at most 64 MiB (about 4 million pairs)."""
MAX_FRAMES = 100_000
"""Frames a log may hold."""
MAX_PAIRS_PER_FRAME = 5_000_000
"""Pairs one frame may list."""
MAX_GAPS_PER_FRAME = 10_000
"""Differing pairs of one frame whose exact gap is computed (the rest are counted)."""
FRAME_KEYS = frozenset({"frame", "pose_a", "pose_b", "vertices_a", "vertices_b", "pairs",
                        "distances"})
HEADER_KEYS = frozenset({LOG_FORMAT, "mesh_a", "mesh_b", "engine"})


class ContactLogError(BVHLabError, ValueError):
    """A contact log that cannot be read: the message names the log, the line and why."""


@dataclass(frozen=True)
class LogFrame:
    """One frame of a contact log, checked.

    Attributes
    ----------
    line : int
        Its line number in the log (1-based).
    index : int
        The frame number the engine gave.
    pose_a, pose_b : Pose
    vertices_a, vertices_b : (n, 3) float64 or None
        Deformed vertices (None: the mesh file's).
    pairs : (c, 2) int32
        The engine's pairs, unique and sorted.
    distances : dict of (int, int) -> float
        What the engine said about each pair, when the log gives distances.
    """

    line: int
    index: int
    pose_a: Pose
    pose_b: Pose
    vertices_a: np.ndarray | None
    vertices_b: np.ndarray | None
    pairs: np.ndarray
    distances: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ContactLog:
    """A contact log read and checked: its meshes and frames.

    Attributes
    ----------
    path : Path
    engine : str
        The engine's name as the header gives it ("" when it does not).
    mesh_a, mesh_b : TriMesh
    frames : list of LogFrame
    """

    path: Path
    engine: str
    mesh_a: TriMesh
    mesh_b: TriMesh
    frames: list


@dataclass(frozen=True)
class FrameAudit:
    """One frame's engine pairs against the exact answer.

    Attributes
    ----------
    frame : int
    line : int
    n_engine, n_exact : int
        Pairs the engine reported, and the pairs that touch (exact).
    only_engine : (p, 2) int32
        Pairs the engine reported that do not touch.
    missed : (q, 2) int32
        Pairs that touch and the engine did not report.
    gap_only_engine, gap_missed : (p,) float64, (q,) float64
        Each one's exact gap (NaN past :data:`MAX_GAPS_PER_FRAME`).
    engine_distance_only_engine : (p,) float64
        The engine's distance of each pair only it reports (NaN when the log gives none).
    """

    frame: int
    line: int
    n_engine: int
    n_exact: int
    only_engine: np.ndarray
    missed: np.ndarray
    gap_only_engine: np.ndarray
    gap_missed: np.ndarray
    engine_distance_only_engine: np.ndarray

    @property
    def agrees(self) -> bool:
        return self.only_engine.shape[0] == 0 and self.missed.shape[0] == 0

    def text(self) -> str:
        """``"frame 3: agrees (156 pairs)"`` or ``"frame 3: 1 pair only the engine reports,
        1 missed (155 agreed)"``."""
        if self.agrees:
            return f"frame {self.frame}: agrees ({self.n_exact:,} pairs)"
        parts = []
        if self.only_engine.shape[0]:
            n = self.only_engine.shape[0]
            parts.append(f"{n:,} pair{'s' if n != 1 else ''} only the engine reports")
        if self.missed.shape[0]:
            parts.append(f"{self.missed.shape[0]:,} missed")
        agreed = self.n_engine - self.only_engine.shape[0]
        return f"frame {self.frame}: {', '.join(parts)} ({agreed:,} agreed)"

    def as_json(self) -> dict:
        def rows(pairs, gaps, distances=None):
            out = []
            for k, (i, j) in enumerate(pairs.tolist()):
                row = {"a": i, "b": j, "exact_gap": _finite_or_none(gaps[k])}
                if distances is not None:
                    row["engine_distance"] = _finite_or_none(distances[k])
                out.append(row)
            return out

        return {"frame": self.frame, "line": self.line, "agrees": self.agrees,
                "n_engine": self.n_engine, "n_exact": self.n_exact,
                "only_engine": rows(self.only_engine, self.gap_only_engine,
                                    self.engine_distance_only_engine),
                "missed": rows(self.missed, self.gap_missed)}  # fmt: skip


def _finite_or_none(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


# -- reading ------------------------------------------------------------------------------

def _fail(path, line: int | None, why: str):
    where = f"{path} line {line}" if line is not None else str(path)
    raise ContactLogError(f"{where}: {why}")


def _pose(path, line: int, value, key: str) -> Pose:
    if value is None:
        return Pose()
    try:
        matrix = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        _fail(path, line, f"{key!r} must be 16 numbers (a row-major 4x4 matrix)")
    if matrix.size != 16:
        _fail(path, line, f"{key!r} must be 16 numbers (a row-major 4x4 matrix), got "
                          f"{matrix.size}")
    try:
        return Pose.from_matrix(matrix.reshape(4, 4))
    except (TypeError, ValueError) as exc:
        _fail(path, line, f"{key!r}: {exc}")


def _vertices(path: Path, line: int, value, key: str, n_vertices: int) -> np.ndarray | None:
    if value is None:
        return None
    if not isinstance(value, str):
        _fail(path, line, f"{key!r} must name a .npy file of vertices")
    file = (path.parent / value).resolve()
    try:
        if file.stat().st_size > 64 + 24 * n_vertices + 4096:
            _fail(path, line, f"{key!r} {value}: larger than {n_vertices:,} float64 vertices")
        vertices = np.load(file, allow_pickle=False)
    except OSError as exc:
        _fail(path, line, f"{key!r} {value}: cannot read it ({exc.strerror or exc})")
    except ValueError as exc:
        _fail(path, line, f"{key!r} {value}: not a .npy array ({exc})")
    if vertices.shape != (n_vertices, 3) or not np.issubdtype(vertices.dtype, np.floating):
        _fail(path, line, f"{key!r} {value}: must be ({n_vertices:,}, 3) floats like the "
                          f"mesh, got {vertices.shape} {vertices.dtype}")
    vertices = np.ascontiguousarray(vertices, dtype=np.float64)
    if not np.isfinite(vertices).all():
        _fail(path, line, f"{key!r} {value}: has NaN or infinite coordinates")
    return vertices


def _pairs_and_distances(path, line: int, record: dict, n_a: int, n_b: int):
    raw = record.get("pairs")
    if not isinstance(raw, list):
        _fail(path, line, "'pairs' must be a list of [triangle of A, triangle of B]")
    if len(raw) > MAX_PAIRS_PER_FRAME:
        _fail(path, line, f"{len(raw):,} pairs; a frame may list at most "
                          f"{MAX_PAIRS_PER_FRAME:,}")
    if any(not isinstance(p, list) or len(p) != 2
           or not all(isinstance(x, int) and not isinstance(x, bool) for x in p)
           for p in raw):
        _fail(path, line, "'pairs' must be a list of [triangle of A, triangle of B] integers")
    try:
        pairs = checked_pairs(np.asarray(raw, dtype=np.int64).reshape(-1, 2), "'pairs'",
                             n_a, n_b)
    except ValueError as exc:
        _fail(path, line, str(exc))
    distances = {}
    given = record.get("distances")
    if given is not None:
        if (not isinstance(given, list) or len(given) != len(raw)
                or not all(isinstance(d, (int, float)) and not isinstance(d, bool)
                           for d in given)):
            _fail(path, line, "'distances' must be one number per pair")
        distances = {(int(i), int(j)): float(d) for (i, j), d in zip(raw, given)}
    return pairs, distances


def _load_mesh(path: Path, header: dict, key: str) -> TriMesh:
    from core.io import load_mesh

    name = header.get(key)
    if not isinstance(name, str) or not name:
        _fail(path, 1, f"the header must name {key!r} (a mesh file beside the log)")
    try:
        return load_mesh(path.parent / name)
    except (OSError, ValueError) as exc:
        _fail(path, 1, f"{key!r} {name}: {exc}")


def _json_line(path, number: int, text: str) -> dict:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        _fail(path, number, f"not JSON ({exc.msg} at column {exc.colno})")
    if not isinstance(record, dict):
        _fail(path, number, "must be a JSON object")
    return record


def read_contact_log(path: str | os.PathLike) -> ContactLog:
    """Read and check a contact log (format in the module docstring).

    Parameters
    ----------
    path : str or PathLike

    Returns
    -------
    ContactLog

    Raises
    ------
    ContactLogError
        One line naming the log, the line and the problem: not a contact log, a newer
        version, a mesh that does not load, a bad pose or vertex file, a pair naming a
        triangle the mesh does not have, or a budget passed.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        _fail(path, None, f"cannot read it ({exc.strerror or exc})")
    if size > MAX_LOG_BYTES:
        _fail(path, None, f"{size:,} bytes; a contact log may be at most {MAX_LOG_BYTES:,}")
    frames = []
    with open(path, "rb") as stream:
        header_text = stream.readline(MAX_LINE_BYTES + 1)
        header = _json_line(path, 1, header_text.decode("utf-8", "replace"))
        version = header.get(LOG_FORMAT)
        if version is None:
            _fail(path, 1, f"not a contact log (the first line has no {LOG_FORMAT!r})")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            _fail(path, 1, f"{LOG_FORMAT!r} must be a version number, got {version!r}")
        if version > LOG_VERSION:
            _fail(path, 1, f"version {version} is newer than this BVH Lab reads "
                           f"({LOG_VERSION}); update BVH Lab")
        unknown = sorted(set(header) - HEADER_KEYS)
        if unknown:
            _fail(path, 1, f"unknown header key {unknown[0]!r}")
        mesh_a = _load_mesh(path, header, "mesh_a")
        mesh_b = _load_mesh(path, header, "mesh_b")
        engine = header.get("engine", "")
        if not isinstance(engine, str):
            _fail(path, 1, "'engine' must be text")
        for number, raw in enumerate(iter(lambda: stream.readline(MAX_LINE_BYTES + 1), b""),
                                     start=2):
            if len(raw) > MAX_LINE_BYTES:
                _fail(path, number, f"longer than {MAX_LINE_BYTES:,} bytes")
            if not raw.strip():
                continue
            if len(frames) >= MAX_FRAMES:
                _fail(path, number, f"more than {MAX_FRAMES:,} frames")
            frames.append(_frame(path, number, _json_line(path, number, raw.decode(
                "utf-8", "replace")), mesh_a, mesh_b))
    if not frames:
        _fail(path, None, "has no frame (one JSON line per frame after the header)")
    return ContactLog(path, engine, mesh_a, mesh_b, frames)


def _frame(path, number: int, record: dict, mesh_a: TriMesh, mesh_b: TriMesh) -> LogFrame:
    unknown = sorted(set(record) - FRAME_KEYS)
    if unknown:
        _fail(path, number, f"unknown key {unknown[0]!r}")
    index = record.get("frame", number - 2)
    if not isinstance(index, int) or isinstance(index, bool):
        _fail(path, number, f"'frame' must be an integer, got {index!r}")
    pairs, distances = _pairs_and_distances(path, number, record, mesh_a.n_faces,
                                            mesh_b.n_faces)
    return LogFrame(
        line=number, index=index,
        pose_a=_pose(path, number, record.get("pose_a"), "pose_a"),
        pose_b=_pose(path, number, record.get("pose_b"), "pose_b"),
        vertices_a=_vertices(path, number, record.get("vertices_a"), "vertices_a",
                             mesh_a.n_vertices),
        vertices_b=_vertices(path, number, record.get("vertices_b"), "vertices_b",
                             mesh_b.n_vertices),
        pairs=pairs, distances=distances)  # fmt: skip


# -- checking -----------------------------------------------------------------------------

def _posed_mesh(mesh: TriMesh, vertices: np.ndarray | None) -> TriMesh:
    return mesh if vertices is None else TriMesh(vertices, mesh.faces, name=mesh.name)


def audit_frame(log: ContactLog, frame: LogFrame) -> FrameAudit:
    """One frame of ``log`` against the exact answer on its coordinates.

    Parameters
    ----------
    log : ContactLog
    frame : LogFrame

    Returns
    -------
    FrameAudit
    """
    from core import contacts

    mesh_a = _posed_mesh(log.mesh_a, frame.vertices_a)
    mesh_b = _posed_mesh(log.mesh_b, frame.vertices_b)
    exact = contacts(mesh_a, mesh_b, frame.pose_a, frame.pose_b)
    truth = checked_pairs(exact.pairs, "pairs", mesh_a.n_faces, mesh_b.n_faces)
    only_engine, missed = pairs_not_in(frame.pairs, truth), pairs_not_in(truth, frame.pairs)
    va, vb = query_coordinates(mesh_a, frame.pose_a, mesh_b, frame.pose_b)

    def gaps(pairs: np.ndarray) -> np.ndarray:
        out = np.full(pairs.shape[0], np.nan)
        for k, (i, j) in enumerate(pairs[:MAX_GAPS_PER_FRAME].tolist()):
            out[k] = exact_gap(va[mesh_a.faces[i]], vb[mesh_b.faces[j]])
        return out

    engine_distance = np.array([frame.distances.get((i, j), np.nan)
                                for i, j in only_engine.tolist()], dtype=np.float64)
    return FrameAudit(frame=frame.index, line=frame.line, n_engine=int(frame.pairs.shape[0]),
                      n_exact=int(truth.shape[0]), only_engine=only_engine, missed=missed,
                      gap_only_engine=gaps(only_engine), gap_missed=gaps(missed),
                      engine_distance_only_engine=engine_distance)  # fmt: skip


def audit_log(log: ContactLog, progress=None, control=None) -> list[FrameAudit]:
    """Every frame of ``log`` against the exact answer.

    Parameters
    ----------
    log : ContactLog
    progress : callable, optional
        ``progress(done, total)`` after each frame.
    control : core.collide.budget.QueryControl, optional
        Cancels the run at the next frame.
    """
    out = []
    for k, frame in enumerate(log.frames):
        if control is not None:
            control.check_cancelled("the contact-log audit")
        out.append(audit_frame(log, frame))
        if progress is not None:
            progress(k + 1, len(log.frames))
    return out


def audit_report(log: ContactLog, audits: list[FrameAudit]) -> dict:
    """The JSON object of ``python -m core audit LOG --json``."""
    disagreeing = [a.frame for a in audits if not a.agrees]
    return {"log": str(log.path), "engine": log.engine, "mesh_a": log.mesh_a.name,
            "mesh_b": log.mesh_b.name, "n_frames": len(audits),
            "n_disagreeing": len(disagreeing), "disagreeing_frames": disagreeing,
            "frames": [a.as_json() for a in audits]}  # fmt: skip
