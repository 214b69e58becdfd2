"""Tree inspection: quality metrics, invariant checks, and trees read from or written to files.

* **Quality** (``core.bvh.metrics.tree_quality``) of one body's tree, in the kind the shown
  frame's traversal tested, with the user's cost constants. It runs on a worker lane (EPO
  clips every triangle against the volumes near it: seconds on 100k triangles) while
  ``model.quality_status`` says so. It is recomputed when the shown frame, the body or the
  constants change; while playing at most once every :data:`QUALITY_INTERVAL_S` and at most
  :data:`viewer.control.pacing.PLAYING_SHARE` of the time (a refitting
  scene makes a new tree every frame), and at once when playing pauses.
* **Invariants** (``core.bvh.validate.validate_tree``) of the shown trees, on demand (in a
  worker thread above :data:`THREADED_CHECK_NODES` nodes) or with every frame when the
  "after every refit" setting is on (the pipeline checks, the frame carries the reports).
* **Tree files** (``core.bvh.treefile``): a body's tree read from a file is checked and pinned
  in the pipeline (``FramePipeline.pin_tree``) until "BVH Lab's own tree" unpins it; the shown
  tree is written as JSON or NPZ.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.bv import TREE_BOX_KIND
from core.bvh.metrics import CostConstants, tree_quality
from core.bvh.tree_formats import read_any_tree
from core.bvh.treefile import TreeFileError, write_tree
from core.bvh.validate_volumes import validate_given, validate_imported
from core.errors import BVHLabError
from core.lab.inspect import inspect_node
from viewer.control.error_log import one_line, operation, printable
from viewer.control.pacing import PlayingPace
from viewer.control.worker import BESIDE_FRAME_NICE, Tag
from viewer.state.checks import TreeCheck, ViolationRow
from viewer.state.frame_caption import frame_caption

QUALITY_INTERVAL_S = 1.0
"""Least time between the starts of two quality computations while playing."""

THREADED_CHECK_NODES = 50_000
"""Trees with more nodes than this are checked in a worker thread (a 500k-triangle tree has
1M nodes)."""

BODY_NAMES = ("A", "B")


@dataclass(frozen=True, eq=False)
class QualityResult:
    """The quality of one body's tree in one frame, for the Quality panel and the outliner.

    Attributes
    ----------
    body : int
        0 (A) or 1 (B).
    frame : core.pipeline.Frame
        The frame whose tree was measured.
    tree : core.bvh.Tree
    quality : core.bvh.metrics.TreeQuality
    kind_label : str
        The kind measured, in words ("boxes", "oriented boxes", ...).
    note : str
        Why the kind measured is not the frame's (empty when it is).
    seconds : float
        Wall time of the computation.
    """

    body: int
    frame: object
    tree: object
    quality: object
    kind_label: str
    note: str
    seconds: float


def _kind_of(frame) -> tuple[str, str]:
    """``(registry key, label)`` of the volumes the frame's traversal tested."""
    volumes = frame.volumes
    if volumes is None or len(frame.trees) < 2:
        return TREE_BOX_KIND, "boxes"
    return volumes.name, volumes.label


def _measure(frame, body: int, constants: tuple[float, float]) -> QualityResult:
    """The quality of ``frame``'s tree of ``body`` (any thread)."""
    start = time.perf_counter()
    tree, mesh = frame.trees[body], frame.meshes[body]
    key, label = _kind_of(frame)
    cost = CostConstants(traversal=constants[0], intersection=constants[1])
    note = ""
    volumes = frame.volumes
    rows = None
    if volumes is not None and key != TREE_BOX_KIND and body < len(volumes.rows):
        rows = volumes.rows[body]
    try:
        quality = tree_quality(mesh, tree, key, cost, volumes=rows)
    except (ValueError, NotImplementedError) as exc:
        if key == TREE_BOX_KIND:
            raise
        # A kind the metrics do not measure yet: the tree's own boxes instead, and say so.
        note = f"{label}: {exc}; measured with the tree's own boxes"
        key, label = TREE_BOX_KIND, "boxes"
        quality = tree_quality(mesh, tree, key, cost)
    return QualityResult(body, frame, tree, quality, label, note, time.perf_counter() - start)


def violation_parts(violation, file_ids=None) -> tuple[str, str]:
    """``(part, axis)`` of one ``core.bvh.validate.Violation``: what sticks out (``"child
    75"``, the child named by ``file_ids`` when given, or ``"triangle 1234"``) and along which
    axis and side (``"+x"``); "" for what the violation does not name."""
    part = ""
    if violation.child >= 0:
        child = violation.child
        if file_ids is not None and 0 <= child < len(file_ids):
            child = int(file_ids[child])
        part = f"child {child}"
    elif violation.triangle >= 0:
        part = f"triangle {violation.triangle}"
    return part, violation.axis


def tree_check(reports, frame, file_ids: dict, is_every_refit: bool = False,
               caption: str = "") -> TreeCheck:  # fmt: skip
    """A :class:`viewer.state.checks.TreeCheck` of per-body ``ValidationReport`` s (None entries
    skipped), naming nodes of trees read from files by the file's ids. ``caption``: which
    trees were checked; default, the frame's number and trees of the bodies checked."""
    violations, summaries, bad_nodes, n_found = [], [], {}, {}
    for body, report in enumerate(reports):
        if report is None:
            continue
        bad_nodes[body] = np.asarray(report.nodes(), dtype=np.int64)
        n_found[body] = int(report.n_found)
        ids = file_ids.get(body)
        for v in report.violations:
            shown = int(ids[v.node]) if ids is not None and 0 <= v.node < len(ids) else v.node
            part, axis = violation_parts(v, ids)
            violations.append(ViolationRow(body, int(v.node), shown, v.kind.value, float(v.size),
                                        v.text, part, axis))
        summaries.append(f"tree of {BODY_NAMES[body]}: {report.summary()}")
    violations.sort(key=lambda v: (-v.size, v.body, v.node))
    index = int(frame.index) if frame is not None else -1
    if not caption and frame is not None:
        checked = [b for b, report in enumerate(reports) if report is not None]
        caption = frame_caption(frame, checked)
    return TreeCheck(tuple(violations), tuple(summaries), index, is_every_refit, bad_nodes,
                     n_found, caption)


class Inspecting:
    """The controller's inspection job: ``request_quality``, ``check_invariants``,
    ``set_validate_after_refit``, ``open_tree_file`` (and ``open_tree_file_async``),
    ``use_own_tree``, ``save_tree_file`` (and ``save_tree_file_async``),
    ``tree_file_ids`` and ``inspect_node``.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    workers : viewer.control.worker.Workers
        The controller's workers; the job takes its lane(s) from them.
    frames : viewer.control.frames.FrameRunning
        Its pipeline (trees pinned from files), ``is_threaded`` and ``request_frame``.
    """

    def __init__(self, model, workers, frames) -> None:
        self.model = model
        self._frames = frames
        # Quality, invariant checks and tree files take turns on one lane, in order.
        self._inspect_lane = workers.lane("inspect", nice=BESIDE_FRAME_NICE)
        self._quality_running = None  # key of the computation in flight
        self.quality_pace = PlayingPace(self.request_quality, min_interval_s=QUALITY_INTERVAL_S)
        self._pinned: dict[str, object] = {}  # body key -> ImportedTree
        self._pinned_pipe = None
        self._scene_generation = 0  # results of an older scene are never shown
        self.is_quality_on = False  # the Quality panel (or the outliner) is shown
        self.model.frame_ready.connect(self._on_frame_for_inspect)
        self.model.quality_inputs_changed.connect(self.request_quality)
        self.model.playing_changed.connect(lambda playing: None if playing
                                           else self.request_quality())
        self.model.scene_changed.connect(self._on_scene_for_inspect)

    # -- the clicked box ----------------------------------------------------------------------
    def inspect_node(self, frame, body: int, tri_id: int, level: int | None,
                     depth: int | None = None):
        """The inspector's record of the box above triangle ``tri_id`` of ``body`` in
        ``frame`` (:func:`core.lab.inspect.inspect_node`); None without a frame or tree."""
        return inspect_node(frame, body, tri_id, level, depth=depth)

    # -- quality ----------------------------------------------------------------------------
    def set_quality_on(self, is_on: bool) -> None:
        """Compute quality only while a view shows it (the Quality dock is open)."""
        self.is_quality_on = bool(is_on)
        if is_on:
            self.request_quality()

    def _quality_key(self):
        frame = self.model.frame
        return (id(frame), self.model.quality_body, self.model.cost_constants,
                self._scene_generation)

    def request_quality(self) -> None:
        """Measure the shown frame's tree of ``model.quality_body`` (see the module note for
        when)."""
        if not self.is_quality_on:
            return
        frame = self.model.frame
        body = self.model.quality_body
        if frame is None or body >= len(frame.trees):
            self.model.set_quality(None)
            self.model.set_quality_status("No tree to measure yet." if frame is None else
                                          f"The scene has no body {BODY_NAMES[body]}.")
            return
        current = self.model.quality
        key = self._quality_key()
        if current is not None and (id(current.frame), current.body,
                                    self._shown_constants(current)) == key[:3]:
            return
        if self._quality_running is not None:
            return  # _on_quality_done asks again when the result is not the current one
        if self.quality_pace.must_wait(self.model.is_playing):
            return
        self._start_quality(frame, body, self.model.cost_constants, key)

    @staticmethod
    def _shown_constants(result) -> tuple[float, float]:
        c = result.quality.constants
        return (float(c.traversal), float(c.intersection))

    def _start_quality(self, frame, body, constants, key) -> None:
        self._quality_running = key
        self.quality_pace.start()
        n = frame.trees[body].n_nodes
        self.model.set_quality_status(f"Measuring the tree of {BODY_NAMES[body]} "
                                      f"({n:,} nodes)…")

        # The tag carries the request's key: a result of an older frame, body, constants or
        # scene is told apart from the current one when it arrives.
        self._inspect_lane.submit(
            lambda _control: _measure(frame, body, constants),
            tag=Tag("quality", frame.index, self._scene_generation, key),
            on_result=lambda result, job: self._on_quality_done(job.tag.inputs, result, None),
            # shown as a line, never a crash
            on_error=lambda error, job: self._on_quality_done(job.tag.inputs, None, error),
            inline=not self._frames.is_threaded)

    def _on_quality_done(self, key, result, error) -> None:
        self._quality_running = None
        self.quality_pace.finish()
        now = self._quality_key()
        if error is not None:
            self.model.set_quality_status(f"Quality not measured: {error}")
        elif key[1:] == now[1:]:
            # Same scene, body and constants: shown even if a newer frame arrived meanwhile
            # (while playing, every frame is newer by the time a measurement ends).
            self.model.set_quality(result)
            self.model.set_quality_status(
                f"Measured in {result.seconds:.2f} s" + (f" ({result.note})" if result.note
                                                         else ""))
        if key != now:
            self.request_quality()

    def _on_frame_for_inspect(self, frame) -> None:
        if frame is None:
            self.model.set_quality(None)
            return
        reports = frame.validation
        if self.model.validate_after_refit and reports is not None:
            self.model.set_validation(tree_check(reports, frame, self.tree_file_ids(frame),
                                                 is_every_refit=True))
        self.request_quality()

    # -- invariants -------------------------------------------------------------------------
    def check_invariants(self) -> bool:
        """Check the shown frame's trees now (Tree > Check tree invariants). Returns False
        when there is no frame."""
        frame = self.model.frame
        if frame is None:
            self.model.message.emit("No frame yet: nothing to check.")
            return False
        file_ids = self.tree_file_ids(frame)
        trees = list(zip(frame.trees[:2], frame.meshes[:2]))

        def work(_control):
            reports = [validate_given(tree, mesh.vertices, file_ids=file_ids.get(body))
                       for body, (tree, mesh) in enumerate(trees)]
            return tree_check(reports, frame, file_ids)

        n_nodes = sum(tree.n_nodes for tree, _mesh in trees)
        is_threaded = self._frames.is_threaded and n_nodes > THREADED_CHECK_NODES
        if is_threaded:
            self.model.message.emit(f"Checking {n_nodes:,} nodes…")
        self._inspect_lane.submit(
            work, tag=Tag("invariant check", frame.index,
                          self._scene_generation),
            on_result=lambda check, _job: self._on_check_done(check, None),
            # shown as a message, never a crash
            on_error=lambda error, _job: self._on_check_done(None, error),
            inline=not is_threaded)
        return True

    def _on_check_done(self, check, error) -> None:
        if error is not None:
            self.model.error.emit("Invariant check failed", f"{type(error).__name__}: {error}")
            return
        self.model.set_validation(check)
        self.model.message.emit(check.status())

    def set_validate_after_refit(self, is_on: bool) -> None:
        """The debug setting: the pipeline checks every tree it refits or builds."""
        self.model.validate_after_refit = bool(is_on)
        if not is_on and self.model.validation is not None \
                and self.model.validation.is_every_refit:
            self.model.set_validation(None)
        self._frames.request_frame()

    # -- tree files -------------------------------------------------------------------------
    def _on_scene_for_inspect(self) -> None:
        self._scene_generation += 1
        # A new scene gets a new pipeline, whose trees are BVH Lab's own; a swap of bodies
        # keeps the pipeline and its pins, whose body indices are recounted here.
        if self._frames.pipe is not self._pinned_pipe:
            self._pinned = {}
            self._pinned_pipe = self._frames.pipe
        for index, body in enumerate(self.model.bodies[:2]):
            imported = self._pinned.get(body.key)
            if imported is not None:
                self.model.tree_sources[index] = imported.source

    def tree_file_ids(self, frame) -> dict:
        """Per body index, the FILE'S node ids of a tree read from a file (``(k,) int64``,
        indexed by BVH Lab's node id), for the bodies whose shown tree is that tree."""
        out = {}
        if frame is None:
            return out
        sources = frame.tree_sources
        for index, body in enumerate(self.model.bodies[:2]):
            imported = self._pinned.get(body.key)
            # A frame that names its trees says whether this one is the pinned file's (a
            # frame that failed with it leaves an older frame, with BVH Lab's tree, shown).
            is_pinned_tree = sources is None or (index < len(sources)
                                                 and sources[index] is not None)
            if (imported is not None and is_pinned_tree and index < len(frame.trees)
                    and frame.trees[index].n_nodes == imported.tree.n_nodes):
                out[index] = imported.file_ids
        return out

    def _tree_file_body(self, body: int):
        """The scene's body ``body`` (A or B) to read a tree for, or None (said as an error)."""
        if not 0 <= body < min(2, len(self.model.bodies)):
            self.model.error.emit("Cannot open tree file", f"the scene has no body "
                                  f"{BODY_NAMES[min(body, 1)]}")
            return None
        return self.model.bodies[body]

    @staticmethod
    def _read_tree_file(rest, path):
        """Read and check a tree file for the rest mesh ``rest`` (any thread):
        ``(imported, report)``, or ``(None, error words naming the file)``."""
        name = Path(path).name
        try:
            with operation("Reading tree file", path):
                imported = read_any_tree(path, rest)
                report = validate_imported(imported, rest.vertices)
        except (TreeFileError, BVHLabError, OSError, ValueError) as exc:
            text = printable(str(exc))
            return None, text if name in text else f"{name}: {text}"
        except Exception as exc:  # noqa: BLE001 - any failure is one message, never a hang
            # Raised in the worker, an exception no one caught would end the job without its
            # result: the window said "Reading tree file…" for good.
            return None, one_line(exc)
        return imported, report

    def _use_tree_file(self, body: int, entry, path, imported, report) -> bool:
        """Pin a tree read by :meth:`_read_tree_file` and show its check (GUI thread)."""
        if imported is None:
            self.model.error.emit("Cannot open tree file", report)
            return False
        try:
            self._frames.pipe.pin_tree(entry.key, imported, entry.rest)
        except (BVHLabError, ValueError) as exc:
            name = Path(path).name
            self.model.error.emit("Cannot open tree file", f"{name}: {exc}")
            return False
        self._pinned_pipe = self._frames.pipe
        self._pinned[entry.key] = imported
        self.model.set_tree_source(body, imported.source)
        check = tree_check([report if i == body else None for i in range(body + 1)], None,
                           {body: imported.file_ids},
                           caption=f"{BODY_NAMES[body]}: tree from {Path(path).name} as read, "
                                   "rest pose")  # fmt: skip
        self.model.select_node(None)
        self.model.set_validation(check)
        note = ""
        if imported.volumes:
            # An engine's file brings its own volumes (coal's oriented boxes): show those.
            if self.model.pipeline.bv not in imported.volumes:
                self.model.set_pipeline(bv=next(iter(imported.volumes)))
            note = f" {imported.volume_note}."
        self.model.message.emit(f"Tree of {BODY_NAMES[body]} from {imported.source}.{note} "
                                + check.status())
        self._frames.request_frame()
        return True

    def open_tree_file(self, body: int, path) -> bool:
        """Read a tree for body ``body`` from ``path`` (JSON or NPZ), check it and use it
        from the next frame on. A bad file: one error line naming it; nothing changes.
        Reads on the calling thread (see :meth:`open_tree_file_async` for the menu)."""
        entry = self._tree_file_body(body)
        if entry is None:
            return False
        imported, report = self._read_tree_file(entry.rest, path)
        return self._use_tree_file(body, entry, path, imported, report)

    def open_tree_file_async(self, body: int, path, on_done=None) -> bool:
        """:meth:`open_tree_file` with the reading and checking in a worker thread, while
        ``model.loading_changed`` says so: a 1M-node JSON tree takes about 4 s to read, and
        the window stalled that long. ``on_done(is_open)`` is called on the GUI thread.
        If the scene changes meanwhile, the tree is not used (a message says so).

        Returns
        -------
        bool
            Whether reading started.
        """
        entry = self._tree_file_body(body)
        if entry is None:
            return False
        self.model.set_loading(f"Reading tree file {Path(path).name} for body "
                               f"{BODY_NAMES[body]}…")

        rest = entry.rest  # the mesh read for; a sculpt replaces it (the Body stays)

        def work(_control):
            try:
                imported, report = self._read_tree_file(rest, path)
            except BaseException as exc:  # MemoryError, KeyboardInterrupt: still one answer
                imported, report = None, one_line(exc)
            return body, entry, rest, path, imported, report, on_done

        self._inspect_lane.submit(
            work, tag=Tag("tree file", None, self._scene_generation, (body, str(path))),
            on_result=lambda read, _job: self._on_tree_read(read),
            on_error=lambda error, _job: self._on_tree_read(
                (body, entry, rest, path, None, one_line(error), on_done)),
            inline=not self._frames.is_threaded)
        return True

    def _on_tree_read(self, job) -> None:
        body, entry, rest, path, imported, report, on_done = job
        self.model.set_loading("")
        bodies = self.model.bodies
        if body >= len(bodies) or bodies[body] is not entry or entry.rest is not rest:
            # The scene changed, or the body was sculpted, while the file was read: the tree
            # and its check belong to a mesh that is no longer shown.
            self.model.message.emit(f"Tree file {Path(path).name} not used: the scene "
                                    "changed while it was read.")
            is_open = False
        else:
            try:
                is_open = self._use_tree_file(body, entry, path, imported, report)
            except Exception as exc:  # noqa: BLE001 - one message; the scene stays as it was
                self.model.error.emit("Cannot open tree file", one_line(exc))
                is_open = False
        if on_done is not None:
            on_done(is_open)

    def use_own_tree(self, body: int) -> bool:
        """Body ``body`` gets BVH Lab's own tree again (unpins a tree read from a file)."""
        if not 0 <= body < min(2, len(self.model.bodies)):
            return False
        entry = self.model.bodies[body]
        if entry.key not in self._pinned:
            self.model.message.emit(f"The tree of {BODY_NAMES[body]} is already BVH Lab's "
                                    "own.")
            return False
        self._frames.pipe.unpin(entry.key)
        del self._pinned[entry.key]
        self.model.set_tree_source(body, None)
        self.model.select_node(None)
        self.model.set_validation(None)
        self.model.message.emit(f"Tree of {BODY_NAMES[body]}: built by BVH Lab again.")
        self._frames.request_frame()
        return True

    def _tree_to_save(self, body: int):
        """The shown frame's tree of body ``body``, or None (said as an error)."""
        frame = self.model.frame
        if frame is None or body >= len(frame.trees):
            self.model.error.emit("Cannot save tree", f"no tree of {BODY_NAMES[min(body, 1)]}"
                                  " yet")
            return None
        return frame.trees[body]

    @staticmethod
    def _write_tree_file(tree, path) -> str | None:
        """Write ``tree`` to ``path`` (any thread): None, or error words naming the file."""
        try:
            write_tree(path, tree)
        except (TreeFileError, BVHLabError, OSError, ValueError) as exc:
            text = str(exc)
            name = Path(path).name
            return text if name in text else f"{name}: {text}"
        return None

    def _saved_tree_file(self, body: int, tree, path, error) -> bool:
        if error is not None:
            self.model.error.emit("Cannot save tree", error)
            return False
        self.model.message.emit(f"Saved the tree of {BODY_NAMES[body]} ({tree.n_nodes:,} "
                                f"nodes) to {path}")
        return True

    def save_tree_file(self, body: int, path) -> bool:
        """Write the shown frame's tree of body ``body`` to ``path`` (``.json`` or ``.npz``).
        Writes on the calling thread (see :meth:`save_tree_file_async` for the menu)."""
        tree = self._tree_to_save(body)
        if tree is None:
            return False
        return self._saved_tree_file(body, tree, path, self._write_tree_file(tree, path))

    def save_tree_file_async(self, body: int, path, on_done=None) -> bool:
        """:meth:`save_tree_file` with the writing in a worker thread, while
        ``model.loading_changed`` says so: a 1M-node tree takes about 6 s to write as JSON.
        The tree written is the one shown when the save began. ``on_done(is_saved)`` is
        called on the GUI thread.

        Returns
        -------
        bool
            Whether writing started.
        """
        tree = self._tree_to_save(body)
        if tree is None:
            return False
        self.model.set_loading(f"Writing the tree of {BODY_NAMES[body]} to {Path(path).name}…")

        self._inspect_lane.submit(
            lambda _control: (body, tree, path, self._write_tree_file(tree, path), on_done),
            tag=Tag("tree file", None, self._scene_generation, (body, str(path))),
            on_result=lambda written, _job: self._on_tree_written(written),
            on_error=lambda error, _job: self._on_tree_written(
                (body, tree, path, one_line(error), on_done)),
            inline=not self._frames.is_threaded)
        return True

    def _on_tree_written(self, job) -> None:
        body, tree, path, error, on_done = job
        self.model.set_loading("")
        is_saved = self._saved_tree_file(body, tree, path, error)
        if on_done is not None:
            on_done(is_saved)

    def shutdown(self) -> None:
        # The inspect lane stops with the controller's workers.
        self.quality_pace.stop()

