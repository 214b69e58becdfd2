"""Tree > Compare two trees…: two trees of the shown body's mesh side by side, in the app.

The same core code as ``python -m core diff MESH --tree A --tree B`` (:mod:`core.lab.tree_diff`):
node counts, depth and leaf-size histograms, SAH and EPO per level, the nodes whose boxes
differ most and the cost of the same query with each tree. The mesh is the shown frame's
(deformed) mesh of the body; each tree is the shown one (refitted while a deformer plays, or
read from a file), a fresh build with the frame's split rule and leaf size, a build with
another rule, or a tree file (any spec of ``core.lab.tree_diff.tree_from_spec``). It runs on the
recording job's lane with the window's progress dialog and Cancel, and the result names the
frame, the body and the two trees it was computed on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.lab.tree_diff import TreeSource, diff_trees, tree_from_spec
from core.recording import RecordingCancelled
from viewer.control.worker import JobCancelled
from viewer.render.tree_diff import TreeDiffView
from viewer.state.frame_caption import tree_words

BODY_NAMES = ("A", "B")
SHOWN = "shown"
"""Spec of the shown frame's tree of the body."""
FRESH = "fresh"
"""Spec of a tree built afresh on the shown vertices with the frame's split rule and leaf
size (against the shown one: how a refitted tree's shape compares with a rebuild)."""
BUILT = "built"
"""Spec of the body's tree as it was last built, its boxes as they were then: the newest
recorded frame (at or before the shown one) that built it. Against the shown, refitted tree
the diff names the nodes that grew most since the build (a deformer playing)."""


@dataclass(frozen=True, eq=False)
class TreeDiffResult:
    """A tree diff and what it was computed on.

    Attributes
    ----------
    frame_index : int
    generation : int
        The scene it belongs to (:attr:`TreeDiffing.generation` when it started).
    body : int
    mesh_name : str
    sources : tuple of core.lab.tree_diff.TreeSource
        The two trees.
    report : dict
        :func:`core.lab.tree_diff.diff_trees` (the JSON of ``python -m core diff``).
    differ_nodes : tuple of (n,) int64
        Per tree, BVH Lab's indices of the nodes listed in ``report["differ_most"]``.
    """

    frame_index: int
    generation: int
    body: int
    mesh_name: str
    sources: tuple
    report: dict
    differ_nodes: tuple

    def caption(self) -> str:
        """``"frame 12, body A (sphere): tree 1 = ..., tree 2 = ..."``."""
        return (f"frame {self.frame_index}, body {BODY_NAMES[self.body]} ({self.mesh_name}): "
                f"tree 1 = {self.sources[0].words}; tree 2 = {self.sources[1].words}")


def internal_ids(source: TreeSource, shown_ids) -> np.ndarray:
    """``(n,) int64``: BVH Lab's indices of nodes named by ``source``'s ids."""
    if source.file_ids is None:
        return np.asarray(shown_ids, dtype=np.int64)
    ids = np.asarray(source.file_ids)
    return np.array([int(np.flatnonzero(ids == i)[0]) for i in shown_ids], dtype=np.int64)


def last_build(recording, frame, body: int, key: str, cursor: int | None):
    """The newest recorded frame at or before ``cursor`` (None: the newest) in which body
    ``body`` (key ``key``) had its tree built with the topology ``frame`` shows, or None."""
    if frame.rebuilt and body < len(frame.rebuilt) and frame.rebuilt[body]:
        return frame
    if recording is None or len(recording) == 0:
        return None
    start = len(recording) - 1 if cursor is None else min(cursor, len(recording) - 1)
    n_nodes = frame.trees[body].n_nodes
    for position in range(start, -1, -1):
        recorded = recording[position]
        keys = recording.body_keys(position)
        if (body < len(keys) and keys[body] == key and body < len(recorded.rebuilt)
                and recorded.rebuilt[body] and recorded.trees[body].n_nodes == n_nodes):
            return recorded
    return None


def _source(spec: str, frame, body: int, file_ids, settings, built=None) -> TreeSource:
    """The tree ``spec`` names over the frame's mesh of ``body`` (any thread); ``built``:
    the frame of the last build (for :data:`BUILT`)."""
    mesh = frame.meshes[body]
    if spec == BUILT:
        return TreeSource(built.trees[body], f"the tree as built at frame {built.index} "
                          "(boxes as they were then)", file_ids)
    if spec == SHOWN:
        return TreeSource(frame.trees[body], f"the shown tree ({tree_words(frame, body)})",
                          file_ids)
    if spec == FRESH:
        request = settings.request
        spec = f"build:{request.split.name.lower()}:{int(request.leaf_size)}"
        source = tree_from_spec(spec, mesh)
        return TreeSource(source.tree, f"a fresh {source.words}", None)
    return tree_from_spec(spec, mesh)


class TreeDiffing:
    """The controller's tree-diff job: ``compare``, ``result``, ``is_stale``, ``set_drawn``
    and ``diff_view``.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    frames : viewer.control.frames.FrameRunning
        ``next_settings`` (the split rule and leaf size of a fresh build).
    recorder : viewer.control.recording.FrameRecording
        ``start_job``: the lane, the progress dialog and its Cancel.
    tree_file_ids : callable
        The inspection job's ``tree_file_ids(frame)``.
    """

    def __init__(self, model, frames, recorder, tree_file_ids) -> None:
        self.model = model
        self._frames = frames
        self._recorder = recorder
        self._tree_file_ids = tree_file_ids
        self.result: TreeDiffResult | None = None
        self.drawn: int | None = None  # which tree the view draws (0, 1) or None
        self.generation = 0
        self.on_changed = []  # callables run when the result or the drawn tree changes
        model.scene_changed.connect(self._on_scene)

    def _on_scene(self) -> None:
        self.generation += 1
        if self.result is not None:
            self.result, self.drawn = None, None
            self._changed()

    def _changed(self) -> None:
        for callback in list(self.on_changed):
            callback()

    def compare(self, body: int, first: str = SHOWN, second: str = FRESH) -> bool:
        """Diff two trees of the shown frame's mesh of ``body`` on the job lane (progress and
        Cancel in the window's dialog). ``first``, ``second``: :data:`SHOWN`, :data:`FRESH`,
        ``build:RULE[:LEAF]``, ``refit:FILE`` or a tree file. A bad spec or file: one error
        line; the last result stays. Returns whether the job started."""
        frame = self.model.frame
        if frame is None or body >= len(frame.trees):
            self.model.error.emit("Cannot compare trees", "no frame yet" if frame is None else
                                  f"the scene has no body {BODY_NAMES[min(body, 1)]}")
            return False
        file_ids = self._tree_file_ids(frame).get(body)
        settings = self._frames.next_settings()
        generation = self.generation
        entry = self.model.bodies[body] if body < len(self.model.bodies) else None
        name = entry.name if entry is not None else ""
        built = None
        if BUILT in (first, second):
            built = last_build(self.model.recording, frame, body,
                               entry.key if entry is not None else "", self.model.cursor)
            if built is None:
                self.model.error.emit(
                    "Cannot compare trees", f"no recorded frame holds the last build of "
                    f"{BODY_NAMES[body]}'s tree (Recording > Record frames keeps them)")
                return False

        def work(progress, cancel):
            progress(0, 3)
            sources = [_source(spec, frame, body, file_ids, settings, built)
                       for spec in (first, second)]
            if cancel():
                raise RecordingCancelled("the tree diff was cancelled")
            progress(1, 3)
            report = diff_trees(frame.meshes[body], *sources)
            if cancel():
                raise RecordingCancelled("the tree diff was cancelled")
            progress(3, 3)
            rows = report["differ_most"]
            nodes = (internal_ids(sources[0], [r["node_first"] for r in rows]),
                     internal_ids(sources[1], [r["node_second"] for r in rows]))
            return TreeDiffResult(int(frame.index), generation, body, name, tuple(sources),
                                  report, nodes)

        def done(result, error):
            if isinstance(error, (JobCancelled, RecordingCancelled)):
                self.model.message.emit("Tree diff cancelled")
            elif error is not None:
                self.model.error.emit("Cannot compare trees", str(error).splitlines()[0]
                                      if str(error) else type(error).__name__)
            elif result.generation != self.generation:
                self.model.message.emit("Tree diff not shown: the scene changed meanwhile.")
            else:
                self.result = result
                self.drawn = 0 if self.drawn is None else self.drawn
                self.model.message.emit(f"Trees compared: {result.caption()}")
                self._changed()

        return self._recorder.start_job(f"Comparing two trees of {BODY_NAMES[body]}", work,
                                        done)

    def is_stale(self) -> bool:
        """Whether the view shows another frame than the one the result was computed on."""
        frame = self.model.frame
        return (self.result is not None and frame is not None
                and int(frame.index) != self.result.frame_index)

    def set_drawn(self, tree: int | None) -> None:
        """Draw tree 0 or 1 of the result in the view (None: neither)."""
        self.drawn = tree
        self._changed()

    def diff_view(self) -> TreeDiffView | None:
        """What the view draws: the drawn tree with its most-changed nodes, or None."""
        result, k = self.result, self.drawn
        if result is None or k is None:
            return None
        # The legend row stays short (the dialog names the tree in full) and says when its
        # boxes are another frame's.
        late = f", frame {result.frame_index}" if self.is_stale() else ""
        return TreeDiffView(result.body, result.sources[k].tree, result.differ_nodes[k],
                            f"diff: tree {k + 1} of {BODY_NAMES[result.body]}{late}")
