"""The outliner's search and a node's path to the root, with the reasons a bad node is bad.

The same core code as ``python -m core quality MESH --tree F --node ID | --triangle T``
(:mod:`core.bvh.diagnosis`): a node is found by its id (the FILE's id for a tree read from a
file, BVH Lab's otherwise; ``#12`` always means BVH Lab's) or by a triangle (the leaf that
holds it); its path lists each ancestor's measures, and the shown tree's worst nodes get
their reasons in words. The measures come from the Quality panel's measurement of the same
frame and body when there is one, else they are measured on the job's lane.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.bvh.diagnosis import (
    NodeSearchError,
    diagnose_worst,
    find_node,
    node_row,
    path_to_root,
    why_bad,
)
from viewer.control.error_log import one_line
from viewer.control.inspecting import _measure
from viewer.control.worker import BESIDE_FRAME_NICE, Tag
from viewer.state.frame_caption import frame_caption

BODY_NAMES = ("A", "B")

_QUERY = re.compile(r"^\s*(?:(?P<triangle>t|tri|triangle)\s*|(?P<ours>#)\s*|(?:node|n)\s*)?"
                    r"(?P<id>-?\d+)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class NodeQuery:
    """A parsed search: ``node_id`` (the file's, unless ``is_ours``) or ``triangle``."""

    node_id: int | None = None
    triangle: int | None = None
    is_ours: bool = False


def parse_query(text: str) -> NodeQuery:
    """``"17"`` / ``"node 17"``: a node id; ``"#17"``: BVH Lab's node id; ``"t 120"`` /
    ``"triangle 120"``: the leaf holding triangle 120. NodeSearchError naming the text when
    it is none of these."""
    match = _QUERY.match(text or "")
    if match is None:
        raise NodeSearchError(f"search {text.strip()!r}: type a node id (17), BVH Lab's node "
                              "id (#17) or a triangle (t 120)")
    value = int(match["id"])
    if match["triangle"]:
        return NodeQuery(triangle=value)
    return NodeQuery(node_id=value, is_ours=bool(match["ours"]))


def search_node(tree, text: str, file_ids=None) -> int:
    """BVH Lab's node index for the search ``text`` in ``tree`` (NodeSearchError naming the
    id when the tree has no such node or the mesh no such triangle)."""
    query = parse_query(text)
    ids = None if query.is_ours else file_ids
    if query.triangle is not None:
        try:
            return find_node(tree, triangle=query.triangle)
        except NodeSearchError as exc:
            raise NodeSearchError(str(exc).replace("--triangle", "triangle")) from None
    try:
        return find_node(tree, node_id=query.node_id, file_ids=ids)
    except NodeSearchError as exc:
        words = "node #" if query.is_ours else "node "
        raise NodeSearchError(str(exc).replace("--node ", words)) from None


@dataclass(frozen=True)
class NodePath:
    """A node's path to the root and the tree's worst nodes, with what they were computed on.

    Attributes
    ----------
    body : int
    node : int
        BVH Lab's index of the node searched.
    frame_index : int
        The frame whose tree was measured.
    caption : str
        The frame and the tree, in words ("frame 12, A: BVH Lab's AABB tree ...").
    kind_label : str
        The bounding volume measured ("boxes", "oriented boxes", ...).
    rows : tuple of dict
        :func:`core.bvh.diagnosis.node_row` of the node, its parent, ..., the root (node ids
        as people see them: the file's for a tree from a file).
    why : tuple of str
        Why the searched node is bad (empty: no reason applies).
    worst : tuple of dict
        :func:`core.bvh.diagnosis.diagnose_worst`: ``{"node", "worst_by", "why"}``.
    """

    body: int
    node: int
    frame_index: int
    caption: str
    kind_label: str
    rows: tuple
    why: tuple
    worst: tuple


def node_path(frame, body: int, node: int, quality, kind_label: str, file_ids=None) -> NodePath:
    """The :class:`NodePath` of ``node`` in ``frame``'s tree of ``body`` (any thread).

    Parameters
    ----------
    frame : core.pipeline.Frame
    body, node : int
    quality : core.bvh.metrics.TreeQuality
        The measures of that tree.
    kind_label : str
    file_ids : (n_nodes,) int64, optional
        The file's node ids, indexed by BVH Lab's.
    """
    tree, mesh = frame.trees[body], frame.meshes[body]

    def name(k):
        return int(file_ids[k]) if file_ids is not None else int(k)

    rows = tuple(node_row(quality, tree, k, name) for k in path_to_root(tree, node))
    return NodePath(body, int(node), int(frame.index),
                    frame_caption(frame, [body]), kind_label, rows,
                    tuple(why_bad(mesh, tree, node, name)),
                    tuple(diagnose_worst(mesh, tree, quality, name)))


class NodeSearching:
    """The controller's node search job: ``search`` and ``request_path``.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    workers : viewer.control.worker.Workers
    frames : viewer.control.frames.FrameRunning
        ``is_threaded``.
    tree_file_ids : callable
        The inspection job's ``tree_file_ids(frame)``.
    """

    def __init__(self, model, workers, frames, tree_file_ids) -> None:
        self.model = model
        self._frames = frames
        self._tree_file_ids = tree_file_ids
        # Only the newest request matters: a click on another node replaces a waiting one.
        self._lane = workers.lane("node path", coalesce=True, nice=BESIDE_FRAME_NICE)

    def search(self, body: int, text: str) -> tuple[int | None, str]:
        """Find ``text`` in the shown frame's tree of ``body`` and select it: ``(node,
        "")``, or ``(None, one line saying why not)``; the selection stays as it was then."""
        frame = self.model.frame
        if frame is None or body >= len(frame.trees):
            return None, ("no frame yet" if frame is None
                          else f"the scene has no body {BODY_NAMES[min(body, 1)]}")
        try:
            node = search_node(frame.trees[body], text,
                               self._tree_file_ids(frame).get(body))
        except NodeSearchError as exc:
            return None, f"{BODY_NAMES[body]}: {exc}"
        self.model.select_node(body, node)
        return node, ""

    def request_path(self, body: int, node: int, on_done) -> bool:
        """Compute the path of ``node`` of the shown frame's tree of ``body`` on the lane,
        then ``on_done(path, error_text)`` on the GUI thread (one of them None)."""
        frame = self.model.frame
        if frame is None or body >= len(frame.trees) or not 0 <= node < frame.trees[body].n_nodes:
            return False
        shown = self.model.quality
        quality = kind = None
        if shown is not None and shown.frame is frame and shown.body == body:
            quality, kind = shown.quality, shown.kind_label
        constants = self.model.cost_constants
        file_ids = self._tree_file_ids(frame).get(body)

        def work(_control):
            measured, label = quality, kind
            if measured is None:
                result = _measure(frame, body, constants)
                measured, label = result.quality, result.kind_label
            return node_path(frame, body, node, measured, label, file_ids)

        self._lane.submit(
            work, tag=Tag("node path", frame.index, 0, (body, node)),
            on_result=lambda path, _job: on_done(path, None),
            on_error=lambda error, _job: on_done(None, one_line(error)),
            inline=not self._frames.is_threaded)
        return True
