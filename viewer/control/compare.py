"""Run one frame through several bounding-volume kinds and tabulate the cost (headless).

The compare view (``viewer.qt.dialogs.compare``) shows these rows, computed on a worker lane
(:class:`KindComparison`) so the window keeps painting; tests check them against the core.
Same trees (topology) for every kind, so the differences are the volumes' alone: their
tightness (total volume of the nodes at one depth), the volume pairs the traversal tested,
the triangle pairs it sent to the exact test, and the time to fit, refit and query.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numpy as np

from core.bv import ObbFit, fit_from_triangles, get_kind, refit_volumes
from core.collide import DescendRule
from core.collide.bvquery import collide_bv
from core.frame_volumes import volume_set  # noqa: F401 - the compare view draws each kind
from viewer.control.worker import Tag, Workers

DEFAULT_KINDS = ("aabb", "aabb15", "obb", "sphere", "kdop14", "rss")
"""Kinds ticked when the compare view opens: one of each family, and the axis-aligned boxes
with both tests (SAT lite and 15 axes) side by side."""

SAT_KINDS = ("aabb", "aabb15")
"""The same boxes under SAT lite (6 face axes) and the full 15-axis test (van den Bergen
1997): the compare view's ready choice and the note under its table."""

WARM_UP_TRIANGLES = 80
"""Triangles of each sphere of the warm-up pair: every kernel a kind's row times runs once
on it first, untimed, so the row's times are the kernels' own and not their loading or
compiling (the first run showed 337 ms where a rerun showed 0.9 ms)."""

TRAVERSE_REPEATS = 3
"""Traversals timed per kind; the best is shown. A single traversal of the teaching scenes
takes well under a millisecond, where one scheduler hiccup doubles it."""


@dataclass(frozen=True)
class CompareRow:
    """One kind on one frame.

    Attributes
    ----------
    kind, label : str
        Registry key and the kind's short label.
    has_fit_choice : bool
        The kind's fit has a method to choose (the OBB fit): its label names the method.
    level : int
        Tree depth the volume total is taken at (clamped to each tree's depth).
    total_volume : float
        Sum of the volumes of A's and B's nodes at that depth (smaller = tighter): each
        shape's own volume (``BVKind.shape_volumes``; for a k-DOP the polytope's, not the
        upper bound its ``volume`` gives the descend rule, which would show every k-DOP as
        loose as the AABB).
    n_bv_tests, n_bv_overlaps, n_tri_tests, n_contacts : int
        The core's counters of the query.
    fit_ms : float
        Fitting both trees' volumes from their triangles.
    refit_ms : float
        The kind's refit of both trees (bottom-up merge, or from primitives where the kind
        has no exact merge; see ``BVKind.refit_exact``).
    query_ms : float
        Traversal plus triangle tests, best of :data:`TRAVERSE_REPEATS` runs (the first
        alone still paid for touching the frame's arrays first: 6 ms against 1 ms).
    refit_exact : bool
    traverse_ms : float
        The tandem traversal alone (volume tests), best of :data:`TRAVERSE_REPEATS` runs.
    """

    kind: str
    label: str
    has_fit_choice: bool
    level: int
    total_volume: float
    n_bv_tests: int
    n_bv_overlaps: int
    n_tri_tests: int
    n_contacts: int
    fit_ms: float
    refit_ms: float
    query_ms: float
    refit_exact: bool
    traverse_ms: float = 0.0


def total_volume(kind, rows: np.ndarray, node_ids: np.ndarray) -> float:
    """Sum of the shape volumes (``BVKind.shape_volumes``) of rows ``node_ids`` of ``(k, w)
    float64`` volume rows."""
    node_ids = np.asarray(node_ids, dtype=np.int64)
    return float(kind.shape_volumes(np.asarray(rows)[node_ids]).sum())


def compare_kinds(frame, kinds, level: int, descend: str = "LARGER_VOLUME",
                  obb_fit: str = "SURFACE", control=None) -> list[CompareRow]:
    """Run the frame's two posed meshes through each kind.

    Parameters
    ----------
    frame : core.pipeline.Frame
        Uses its first two meshes, trees and poses.
    kinds : sequence of str
        Keys of ``core.bv.BV_KINDS``.
    level : int
        Depth for the tightness column.
    descend : str
        Name of a ``DescendRule``.
    obb_fit : str
        Name of the ``ObbFit`` member the ``"obb"`` kind is fitted with.
    control : viewer.control.worker.JobControl, optional
        Checked before each kind (cancel), and told each kind done (progress).

    Returns
    -------
    list of CompareRow
        One per kind, in the order given.
    """
    meshes, trees, poses = frame.meshes[:2], frame.trees[:2], frame.poses[:2]
    rows_out = []
    for n_done, name in enumerate(kinds):
        if control is not None:
            control.check()
            control.progress(n_done, len(kinds), name)
        kind = get_kind(name)
        warm_up_kind(kind, obb_fit, descend, poses)
        t0 = time.perf_counter()
        rows = [fit_from_triangles(t, m, kind, ObbFit[obb_fit]) for t, m in zip(trees, meshes)]
        t1 = time.perf_counter()
        for t, m in zip(trees, meshes):
            refit_volumes(t, m, kind)
        t2 = time.perf_counter()
        result = collide_bv(meshes[0], trees[0], meshes[1], trees[1], poses[0], poses[1],
                            bv=kind, descend=DescendRule[descend], volumes_a=rows[0],
                            volumes_b=rows[1])  # fmt: skip
        t3 = time.perf_counter()
        traverse_s, query_s = result.timings["traverse"], t3 - t2
        for _ in range(TRAVERSE_REPEATS - 1):
            t4 = time.perf_counter()
            again = collide_bv(meshes[0], trees[0], meshes[1], trees[1], poses[0], poses[1],
                               bv=kind, descend=DescendRule[descend], volumes_a=rows[0],
                               volumes_b=rows[1])  # fmt: skip
            query_s = min(query_s, time.perf_counter() - t4)
            traverse_s = min(traverse_s, again.timings["traverse"])
        volume = sum(total_volume(kind, r, t.nodes_at_depth(min(level, t.max_depth)))
                     for r, t in zip(rows, trees))  # fmt: skip
        c = result.counters
        rows_out.append(CompareRow(
            kind.name, kind.label, kind.has_fit_choice, int(level), volume, c.n_bv_tests,
            c.n_bv_overlaps, c.n_tri_tests, c.n_contacts, 1e3 * (t1 - t0), 1e3 * (t2 - t1),
            1e3 * query_s, kind.refit_exact, 1e3 * traverse_s,
        ))  # fmt: skip
    return rows_out


@functools.lru_cache(maxsize=1)
def _warm_up_pair():
    """Two small spheres and their trees (made once): what :func:`warm_up_kind` runs on."""
    from core.bvh import SplitRule, build_trees
    from core.experiments.common import sphere_mesh

    sphere = sphere_mesh(WARM_UP_TRIANGLES)
    return [sphere, sphere], build_trees([sphere, sphere], SplitRule.MIDPOINT, 1)


def warm_up_kind(kind, obb_fit: str, descend: str, poses) -> None:
    """Run ``kind``'s fit, refit and query once on a small pair, untimed: the kernels a row
    times are loaded (and compiled, on a cold cache) before its clock starts. The frame's
    ``poses`` place the pair, so the query takes the same (rotated or not) path."""
    meshes, trees = _warm_up_pair()
    rows = [fit_from_triangles(t, m, kind, ObbFit[obb_fit]) for t, m in zip(trees, meshes)]
    for t, m in zip(trees, meshes):
        refit_volumes(t, m, kind)
    collide_bv(meshes[0], trees[0], meshes[1], trees[1], poses[0], poses[1], bv=kind,
               descend=DescendRule[descend], volumes_a=rows[0], volumes_b=rows[1])


class KindComparison:
    """The compare dialog's controller: :func:`compare_kinds` on a worker lane of its own.

    One run at a time; a run asked for while one goes waits, and a newer one replaces it.
    Each run is tagged with its frame and the scene's generation: :meth:`forget` (a new
    scene) cancels the run and makes a result still on its way stale.

    Parameters
    ----------
    parent : QObject, optional
        Owner of the workers (the dialog).
    """

    def __init__(self, parent=None):
        self.workers = Workers(parent=parent)
        self._lane = self.workers.lane("compare", coalesce=True)
        self.generation = 0

    @property
    def is_running(self) -> bool:
        return self._lane.is_busy

    def run(self, frame, kinds, level: int, descend: str, obb_fit: str, on_rows, on_error):
        """Start :func:`compare_kinds`; ``on_rows(rows, job)`` or ``on_error(error, job)``
        follows on the GUI thread (``job.tag``: the frame's index and the generation)."""
        kinds = tuple(kinds)
        return self._lane.submit(
            lambda control: compare_kinds(frame, kinds, level, descend, obb_fit, control),
            tag=Tag("compare", int(frame.index), self.generation,
                    (kinds, int(level), descend, obb_fit)),
            on_result=on_rows, on_error=on_error)

    def is_current(self, job) -> bool:
        """Whether ``job``'s result belongs to the scene shown now."""
        return job.tag.generation == self.generation

    def forget(self) -> None:
        """A new scene: cancel the run; a result of the old scene is not shown."""
        self.generation += 1
        self._lane.cancel()

    def shutdown(self) -> None:
        self.workers.shutdown()
