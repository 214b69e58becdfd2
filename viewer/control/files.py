"""Mesh files into the scene: read (on any thread), checked against the limits, then added.

Every file is read before anything changes: if one fails, a message names it and the scene
stays exactly as it was.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from core.containment import edge_stats
from core.errors import BVHLabError, MeshError
from core.io import load_mesh
from core.mesh import TriMesh
from viewer.control.error_log import one_line
from viewer.control.worker import Tag
from viewer.render.decimation import DISPLAY_MAX_TRIANGLES, prepare_display_copy
from viewer.scenes import default_color
from viewer.state.bodies import Body

MAX_TRIANGLES = 5_000_000
"""Largest mesh File > Open accepts. A tree of 5M triangles holds 10M nodes (about 1 GB of
boxes and indices with the trace arrays), near what a 24 GiB machine runs beside the app."""

WARN_TRIANGLES = 500_000
"""Above this a warning says the frame rate will drop: the 15 frames-per-second target is set
for two 69k-triangle bunnies, and refit, traversal and drawing grow with the triangle count."""

MAX_FILE_BYTES = 2 * 2**30
"""Largest mesh file read (2 GiB): the parsers hold the whole file in memory."""

_keys = itertools.count()


def new_body_key(name: str) -> str:
    """A key no other body of this process has, e.g. ``"bunny#7"`` (two bunnies may coexist)."""
    return f"{name}#{next(_keys)}"


def fit_vertices(vertices: np.ndarray, size: float) -> np.ndarray:
    """Centre ``(n, 3) float64`` vertices on their box centre and scale the longest side to
    ``size``."""
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    extent = float((hi - lo).max())
    scale = size / extent if extent > 0 else 1.0
    return (vertices - 0.5 * (lo + hi)) * scale


def mesh_notes(mesh: TriMesh) -> list[str]:
    """What a student should know about a mesh as loaded, one sentence each: degenerate
    triangles kept, open boundaries or non-manifold edges, polygons split into triangles.

    They stay listed with the body (Scene and Stats docks); a status-bar message alone was
    overwritten by the next one within a second."""
    notes = []
    if mesh.n_degenerate:
        notes.append(f"{mesh.n_degenerate:,} degenerate (zero-area) triangles kept: they never "
                     "count as contacts")
    edges = edge_stats(mesh)
    if edges.n_boundary_edges:
        notes.append(f"open: {edges.n_boundary_edges:,} boundary edges, so whether another "
                     "mesh is inside it is undefined")
    if edges.n_nonmanifold_edges:
        notes.append(f"{edges.n_nonmanifold_edges:,} non-manifold edges (shared by three "
                     "triangles or more)")
    source = np.asarray(mesh.source_face_ids)
    n_source = int(np.unique(source).size) if source.size else 0
    if n_source and n_source < mesh.n_faces:
        per_face = np.bincount(source - source.min())
        n_polygons = int(np.count_nonzero(per_face > 1))
        notes.append(f"{n_polygons:,} polygons of the file split into triangles "
                     f"({n_source:,} faces became {mesh.n_faces:,} triangles)")
    return notes


class FileLoading:
    """The controller's file job: ``load_files`` (inline) and ``load_files_async`` (File >
    Open).

    Parameters
    ----------
    model : viewer.model.ViewerModel
    workers : viewer.control.worker.Workers
        The controller's workers; the job takes its lane(s) from them.
    frames : viewer.control.frames.FrameRunning
        Asked for a frame, and to drop the one in flight when bodies are added.
    replace_scene : callable
        The scene job's ``replace_scene``.
    """

    def __init__(self, model, workers, frames, replace_scene) -> None:
        self.model = model
        self._frames = frames
        self._replace_scene = replace_scene  # the scene job's
        self._file_lane = workers.lane("files")
        self.last_load_note = ""

    @staticmethod
    def read_files(paths) -> tuple[list, str | None]:
        """Read mesh files (any thread: no Qt, no model).

        Returns
        -------
        meshes : list of TriMesh
            One per path (a path named twice gives the same mesh twice, read once); empty
            when one file failed.
        error : str or None
            "file name: reason" of the first file that could not be used.
        """
        meshes = []
        read: dict[str, TriMesh] = {}  # a file named twice is read once (meshes are immutable)
        for path in paths:
            if str(path) in read:
                meshes.append(read[str(path)])
                continue
            name = Path(path).name
            try:
                size = Path(path).stat().st_size if Path(path).is_file() else 0
                if size > MAX_FILE_BYTES:
                    return [], (f"{name}: the file is {size / 2**20:,.0f} MiB; BVH Lab opens "
                                f"mesh files of up to {MAX_FILE_BYTES / 2**20:,.0f} MiB")
                mesh = load_mesh(path)
            except (MeshError, BVHLabError, OSError, ValueError) as exc:
                reason = str(getattr(exc, "reason", exc))
                # The counted errors already start with the file's path: name it once.
                reason = reason.removeprefix(f"{path}: ").removeprefix(f"{Path(path)}: ")
                return [], f"{name}: {reason}"
            if mesh.n_faces > MAX_TRIANGLES:
                return [], (f"{name}: {mesh.n_faces:,} triangles; BVH Lab opens meshes of up "
                            f"to {MAX_TRIANGLES:,} triangles")
            meshes.append(mesh)
            read[str(path)] = mesh
        return meshes, None

    def load_files(self, paths, replace_scene: bool = True) -> bool:
        """Load mesh files; as a new scene, or added to the current one (scaled to fit).

        Every file is read before anything changes: if one fails, a message names it and the
        scene stays exactly as it was. Reads on the calling thread (see
        :meth:`load_files_async` for the window's File > Open).
        """
        meshes, error = self.read_files(paths)
        return self._apply_loaded(list(paths), meshes, error, replace_scene)

    def load_files_async(self, paths, replace_scene: bool = True) -> None:
        """Read mesh files on a worker lane, then replace or extend the scene on the GUI
        thread. ``model.loading_changed`` carries a progress text while the files are read
        (and "" when done); the first frame, which builds the trees, already runs off the GUI
        thread."""
        paths = list(paths)
        names = ", ".join(Path(p).name for p in paths)
        self.model.set_loading(f"Reading {names}…")

        def work(control):
            meshes, error = self.read_files(paths)
            if error is None and any(m.n_faces > DISPLAY_MAX_TRIANGLES for m in meshes):
                control.progress(0, None, f"Reading {names}: done. Making a lighter copy for "
                                 "drawing…")
                for mesh in meshes:
                    prepare_display_copy(mesh)
            return meshes, error

        self._file_lane.submit(
            work, tag=Tag("mesh files", inputs=tuple(str(p) for p in paths)),
            on_result=lambda read, _job: self._on_loaded(paths, *read, replace_scene),
            # an unexpected failure is one message too, and the progress text goes
            on_error=lambda error, _job: self._on_loaded(paths, [], one_line(error),
                                                         replace_scene),
            on_progress=lambda _done, _total, text, _job: self.model.set_loading(text))

    def _on_loaded(self, paths, meshes, error, replace_scene) -> None:
        self.model.set_loading("")
        self._apply_loaded(paths, meshes, error, replace_scene)

    def _apply_loaded(self, paths, meshes, error, replace_scene: bool) -> bool:
        if error is not None:
            self.model.error.emit("Cannot open mesh", error)
            return False
        start = 0 if replace_scene else len(self.model.bodies)
        bodies = []
        for i, mesh in enumerate(meshes):
            if not replace_scene:
                mesh = mesh.with_vertices(fit_vertices(mesh.vertices, 2.0))
            name = mesh.name or Path(paths[i]).stem
            bodies.append(Body(new_body_key(name), name, mesh, mesh, np.eye(4),
                               default_color(start + i), notes=mesh_notes(mesh)))
        if replace_scene:
            self.model.is_self_collision = False
            names = ", ".join(b.name for b in bodies)
            self._replace_scene(bodies, None, names, "Meshes opened from files.", None)
            self.model.set_playing(False)
        else:
            self._frames.discard_frames_in_flight()
            for body in bodies:
                self.model.add_body(body)
        n_tris = sum(b.rest.n_faces for b in bodies)
        text = f"Opened {len(bodies)} mesh(es), {n_tris:,} triangles"
        n_degenerate = sum(b.rest.n_degenerate for b in bodies)
        if n_degenerate:
            text += (f"; {n_degenerate:,} degenerate (zero-area) triangles kept: they never "
                     "count as contacts")
        if any(b.notes for b in bodies):
            text += " (notes: ⚠ in the Scene dock)"
        self.model.message.emit(text)
        self.last_load_note = text
        big = [b for b in bodies if b.rest.n_faces > WARN_TRIANGLES]
        if big:
            self.model.error.emit(
                "Large mesh",
                f"{', '.join(f'{b.name} has {b.rest.n_faces:,}' for b in big)} triangles. "
                f"Above {WARN_TRIANGLES:,} triangles the first tree build takes seconds and "
                "the frame rate drops well below 15 frames per second; big meshes are drawn "
                f"decimated. The limit is {MAX_TRIANGLES:,} triangles per mesh.")
        self._frames.request_frame()
        return True
