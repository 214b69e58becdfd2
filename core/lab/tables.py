"""One frame's trace, counters and contacts as typed tables, CSV texts and one JSON document.

Numpy over the frame record (no query is run): a live frame or a recorded one gives the same
tables. :func:`frame_tables` returns them as records (:class:`FrameTables`); the app's export
writes their texts (:func:`frame_files`, written to files by
:mod:`viewer.control.exporting`) and ``python -m core contacts`` reports the same per-level
rows (:func:`level_rows`).

Tables (each CSV's first line names every column and says what it holds):

* ``levels``: per traversal level, the volume pairs tested, overlapping, culled, and the
  overlapping leaf pairs sent to the triangle tests;
* ``trace``: every volume pair tested, level by level, with its outcome;
* ``counters``: the work counters of the query (the cost model's N terms) and the frame's
  phase times;
* ``contacts``: every contacting triangle pair with its contact kind and intersection
  segment (world coordinates).

The JSON holds the same under the keys documented in docs/app.md ("Frame data").
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass

import numpy as np

from core.collide.tritri import ContactKind

FORMAT_VERSION = 1
"""``format_version`` of the JSON document; raised when a key changes meaning."""

CONTACT_KIND_WORDS = {kind.value: kind.name.lower()
                      for kind in (ContactKind.CROSSING, ContactKind.TOUCHING,
                                   ContactKind.COPLANAR)}
"""Words of the contact kinds a contact can have (``core.collide.tritri.ContactKind``)."""


def contact_kind_word(kind: int) -> str:
    """The word of contact kind ``kind`` (:data:`CONTACT_KIND_WORDS`), else its number."""
    return CONTACT_KIND_WORDS.get(int(kind), str(int(kind)))

TABLE_NAMES = ("levels", "trace", "counters", "contacts")
"""The CSV tables, in the order written; file ``STEM-NAME.csv`` each."""

COUNTER_WORDS = (
    ("n_bv_tests", "bounding-volume pairs tested (N_bv of the cost model)"),
    ("n_bv_overlaps", "bounding-volume pairs found overlapping"),
    ("n_leaf_pairs", "overlapping pairs of two leaves (sent to the triangle tests)"),
    ("n_tri_tests", "exact triangle-triangle tests run (N_p of the cost model)"),
    ("n_contacts", "triangle pairs in contact"),
)
"""Each counter of ``Counters`` with what it counts."""

COLUMNS = {
    "levels": ("traversal level (0 = the two roots)",
               "volume pairs tested at this level",
               "pairs found overlapping (split further or sent to the triangle tests)",
               "pairs culled (separated) at this level",
               "overlapping leaf pairs sent to the triangle tests"),
    "trace": ("traversal level (0 = the two roots)",
              "node id in the first tree (body A)",
              "node id in the second tree (body B; body A's own tree in self-collision)",
              "outcome (overlap, culled, or self pair: a node with itself in self-collision, "
              "split without a test)",
              "id of the test that culled the pair (-1: it overlapped; numbered per volume "
              "kind, see docs/app.md)"),
    "counters": ("name", "value", "unit", "what it is"),
    "contacts": ("triangle id in body A", "triangle id in body B",
                 "contact kind (crossing, touching or coplanar)",
                 "segment start x (world)", "segment start y (world)",
                 "segment start z (world)", "segment end x (world)", "segment end y (world)",
                 "segment end z (world)"),
}
"""The header line of each CSV table: one description per column."""




@dataclass(frozen=True)
class LevelRow:
    """One traversal level of the ``levels`` table.

    Attributes
    ----------
    level : int
        0 = the two roots.
    tested, overlapping, culled : int
        Volume pairs tested at this level, found overlapping, culled (``tested -
        overlapping``); pairs of a node with itself (self-collision) are not tests.
    leaf_pairs : int
        Overlapping leaf pairs sent to the triangle tests.
    """

    level: int
    tested: int
    overlapping: int
    culled: int
    leaf_pairs: int

    def as_row(self) -> tuple:
        return (self.level, self.tested, self.overlapping, self.culled, self.leaf_pairs)


@dataclass(frozen=True, eq=False)
class TraceTable:
    """The ``trace`` table: every volume pair tested, level by level, as columns (a
    500k-triangle frame traces millions of pairs: one record a row would not do).

    Attributes
    ----------
    level, node_a, node_b, sep_axis : (N,) int64
        Traversal level, node of A, node of B (A's own tree in self-collision), the trace's
        separating id (-1: the pair overlapped).
    is_tested : (N,) bool
        False for a pair of a node with itself in self-collision (split without a test).
    """

    level: np.ndarray
    node_a: np.ndarray
    node_b: np.ndarray
    sep_axis: np.ndarray
    is_tested: np.ndarray

    @property
    def is_overlapped(self) -> np.ndarray:
        """``(N,) bool``: tested pairs that overlapped."""
        return (self.sep_axis == -1) & self.is_tested

    def rows(self) -> list[tuple]:
        """The CSV rows: level, node of A, node of B, outcome in words, separating id."""
        return [(int(d), int(a), int(b),
                 "self pair" if not tested else "overlap" if s == -1 else "culled", int(s))
                for d, a, b, s, tested in zip(self.level, self.node_a, self.node_b,
                                               self.sep_axis, self.is_tested)]


@dataclass(frozen=True)
class CounterRow:
    """One row of the ``counters`` table: a work counter or a phase time.

    Attributes
    ----------
    name : str
        A counter of :data:`COUNTER_WORDS`, or ``time_<phase>``.
    value : int or float or None
        A count, or milliseconds rounded to 6 significant digits (None if not finite).
    unit : str
        ``"count"`` or ``"ms"``.
    words : str
        What it is.
    """

    name: str
    value: int | float | None
    unit: str
    words: str

    @property
    def is_time(self) -> bool:
        return self.name.startswith("time_")

    def as_row(self) -> tuple:
        return (self.name, self.value, self.unit, self.words)


@dataclass(frozen=True)
class ContactRow:
    """One contacting triangle pair of the ``contacts`` table.

    Attributes
    ----------
    triangle_a, triangle_b : int
        Triangle ids in body A and body B (both A's in self-collision).
    kind : str
        ``"crossing"``, ``"touching"`` or ``"coplanar"`` (:data:`CONTACT_KIND_WORDS`).
    segment : tuple of 6 float
        Start and end of the intersection segment, world coordinates.
    """

    triangle_a: int
    triangle_b: int
    kind: str
    segment: tuple

    def as_row(self) -> tuple:
        return (self.triangle_a, self.triangle_b, self.kind, *(repr(v) for v in self.segment))


@dataclass(frozen=True, eq=False)
class FrameTables:
    """Every table of one frame (:data:`TABLE_NAMES`), of the result the view shows
    (:meth:`core.pipeline.Frame.shown_result`).

    Attributes
    ----------
    levels : tuple of LevelRow
    trace : TraceTable
    counters : tuple of CounterRow
    contacts : tuple of ContactRow
    is_self : bool
        The shown result is one body against itself.
    """

    levels: tuple
    trace: TraceTable
    counters: tuple
    contacts: tuple
    is_self: bool

    def rows(self, name: str) -> list[tuple]:
        """Table ``name``'s rows as CSV rows (without the header line)."""
        if name == "trace":
            return self.trace.rows()
        return [row.as_row() for row in getattr(self, name)]


def _self_pairs(trace, is_self: bool) -> np.ndarray:
    """``(N,) bool``: rows that pair a node with itself. In self-collision the traversal
    splits such a pair without a test (a volume always overlaps itself) but records it as
    overlapping (:mod:`core.collide.selfcollide`); they are not counted as tests."""
    node_a, node_b = np.asarray(trace.node_a), np.asarray(trace.node_b)
    return (node_a == node_b) if is_self else np.zeros(node_a.shape, dtype=bool)


def level_rows(trace, is_self: bool = False) -> tuple[LevelRow, ...]:
    """The ``levels`` table of a trace (empty for None).

    Parameters
    ----------
    trace : core.collide.trace.Trace or None
    is_self : bool
        One tree against itself: a node paired with itself is no test.
    """
    if trace is None:
        return ()
    tested = ~_self_pairs(trace, is_self)
    overlapped = (np.asarray(trace.sep_axis) == -1) & tested
    leaf_pairs = np.asarray(trace.leaf_pairs_per_level, dtype=np.int64)
    rows = []
    for d in range(trace.level_start.shape[0] - 1):
        start, stop = int(trace.level_start[d]), int(trace.level_start[d + 1])
        n_tested = int(np.count_nonzero(tested[start:stop]))
        n_overlapping = int(np.count_nonzero(overlapped[start:stop]))
        rows.append(LevelRow(d, n_tested, n_overlapping, n_tested - n_overlapping,
                             int(leaf_pairs[d]) if d < leaf_pairs.shape[0] else 0))
    return tuple(rows)


def _trace_table(trace, is_self: bool) -> TraceTable:
    if trace is None:
        empty = np.empty(0, dtype=np.int64)
        return TraceTable(empty, empty, empty, empty, np.zeros(0, dtype=bool))
    level_start = np.asarray(trace.level_start, dtype=np.int64)
    levels = np.repeat(np.arange(level_start.shape[0] - 1), np.diff(level_start))
    return TraceTable(levels, np.asarray(trace.node_a, dtype=np.int64),
                      np.asarray(trace.node_b, dtype=np.int64),
                      np.asarray(trace.sep_axis, dtype=np.int64), ~_self_pairs(trace, is_self))


def _counter_rows(frame, result) -> tuple[CounterRow, ...]:
    rows = []
    counters = result.counters if result is not None else None
    for name, words in COUNTER_WORDS:
        value = int(getattr(counters, name)) if counters is not None else 0
        rows.append(CounterRow(name, value, "count", words))
    for phase, seconds in (frame.timings or {}).items():
        words = ("time of the whole frame (every phase)" if phase == "total"
                 else f"time of the {phase} phase of this frame")
        rows.append(CounterRow(f"time_{phase}", _six_digits(1e3 * float(seconds)), "ms", words))
    return tuple(rows)


def _six_digits(value: float):
    """A float as JSON and CSV take it: finite values rounded to 6 significant digits."""
    return float(f"{value:.6g}") if math.isfinite(value) else None


def _contact_rows(result) -> tuple[ContactRow, ...]:
    if result is None:
        return ()
    pairs = np.asarray(result.pairs)
    kinds = np.asarray(result.kinds)
    segments = np.asarray(result.segments, dtype=np.float64).reshape(-1, 6)
    return tuple(ContactRow(int(a), int(b), contact_kind_word(k),
                            tuple(float(v) for v in segment))
                 for (a, b), k, segment in zip(pairs, kinds, segments))


def frame_tables(frame) -> FrameTables:
    """Every table of :data:`TABLE_NAMES` of ``frame``.

    Parameters
    ----------
    frame : core.pipeline.Frame
        Live or recorded.
    """
    result = frame.shown_result()
    trace = result.trace if result is not None else None
    is_self = frame.result is None and result is not None
    return FrameTables(levels=level_rows(trace, is_self), trace=_trace_table(trace, is_self),
                       counters=_counter_rows(frame, result), contacts=_contact_rows(result),
                       is_self=is_self)


def table_csv(name: str, rows) -> str:
    """One table as CSV text: the header line of :data:`COLUMNS`, then the rows."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS[name])
    writer.writerows(rows)
    return text.getvalue()


def frame_document(frame, scene: str = "", bodies=(), recorded_index: int | None = None,
                   tables: FrameTables | None = None) -> dict:
    """The frame as a JSON-ready dict (keys in docs/app.md, "Frame data").

    Parameters
    ----------
    frame : core.pipeline.Frame
    scene : str
        The scene's title.
    bodies : sequence of str
        Body names, A first.
    recorded_index : int or None
        Position on the timeline of a recorded frame; None for the live one.
    tables : FrameTables, optional
        :func:`frame_tables` of ``frame``, when already made.
    """
    tables = tables if tables is not None else frame_tables(frame)
    request, volumes = frame.request, frame.volumes
    trace = tables.trace
    return {
        "format_version": FORMAT_VERSION,
        "scene": scene,
        "bodies": list(bodies),
        "frame": {"index": int(frame.index), "time": _six_digits(float(frame.t)),
                  "recorded_index": recorded_index},
        "bounding_volume": (volumes.name if volumes is not None
                            else request.bv if request is not None else None),
        "self_collision": tables.is_self,
        "counters": {row.name: row.value for row in tables.counters if not row.is_time},
        "timings_ms": {row.name[len("time_"):]: row.value for row in tables.counters
                       if row.is_time},
        "levels": [{"level": row.level, "tested": row.tested, "overlapping": row.overlapping,
                    "culled": row.culled, "leaf_pairs": row.leaf_pairs}
                   for row in tables.levels],
        "trace": {"level": trace.level.tolist(), "node_a": trace.node_a.tolist(),
                  "node_b": trace.node_b.tolist(), "tested": trace.is_tested.tolist(),
                  "overlapped": trace.is_overlapped.tolist(),
                  "separating_test": trace.sep_axis.tolist()},
        "contacts": [{"triangle_a": row.triangle_a, "triangle_b": row.triangle_b,
                      "kind": row.kind,
                      "segment": [list(row.segment[:3]), list(row.segment[3:])]}
                     for row in tables.contacts],
    }


def frame_files(frame, stem: str, scene: str = "", bodies=(),
                recorded_index: int | None = None) -> dict[str, str]:
    """Every file of the frame data export: file name -> text.

    ``STEM.json`` and ``STEM-levels.csv``, ``STEM-trace.csv``, ``STEM-counters.csv``,
    ``STEM-contacts.csv``.
    """
    tables = frame_tables(frame)
    files = {f"{stem}-{name}.csv": table_csv(name, tables.rows(name)) for name in TABLE_NAMES}
    document = frame_document(frame, scene, bodies, recorded_index, tables)
    # One top-level key a line: the short keys read at a glance and the trace's long lists
    # stay one line each (indented, every node id took a line: the cloth scene's frame was
    # 225 kB in 25,322 lines instead of 146 kB in 13).
    files[f"{stem}.json"] = "{\n" + ",\n".join(
        f" {json.dumps(key)}: {json.dumps(value)}" for key, value in document.items()) + "\n}\n"
    return files
