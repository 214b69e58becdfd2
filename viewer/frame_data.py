"""One frame's trace, counters and contacts as CSV tables and one JSON document.

Plain Python and numpy over the frame record the viewer already holds (no core call, no
Qt): a live frame or a recorded one is written the same way. The texts are made here; the
controller writes them to files (:mod:`viewer.control.exporting`).

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

import numpy as np

from viewer.state.shown import shown_result

FORMAT_VERSION = 1
"""``format_version`` of the JSON document; raised when a key changes meaning."""

CONTACT_KIND_WORDS = {1: "crossing", 2: "touching", 3: "coplanar"}
"""Words of ``core.collide.tritri.ContactKind`` values (the viewer does not import the core
here; a test checks they match)."""

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


def _self_pairs(trace, is_self: bool) -> np.ndarray:
    """``(N,) bool``: rows that pair a node with itself. In self-collision the traversal
    splits such a pair without a box test (a box always overlaps itself) but records it as
    overlapping (:mod:`core.collide.selfcollide`); they are not counted as tests."""
    node_a, node_b = np.asarray(trace.node_a), np.asarray(trace.node_b)
    return (node_a == node_b) if is_self else np.zeros(node_a.shape, dtype=bool)


def _level_rows(trace, is_self: bool) -> list[tuple]:
    if trace is None:
        return []
    tested = ~_self_pairs(trace, is_self)
    overlapped = (np.asarray(trace.sep_axis) == -1) & tested
    leaf_pairs = np.asarray(trace.leaf_pairs_per_level, dtype=np.int64)
    rows = []
    for d in range(trace.level_start.shape[0] - 1):
        start, stop = int(trace.level_start[d]), int(trace.level_start[d + 1])
        n_tested = int(np.count_nonzero(tested[start:stop]))
        n_overlapping = int(np.count_nonzero(overlapped[start:stop]))
        rows.append((d, n_tested, n_overlapping, n_tested - n_overlapping,
                     int(leaf_pairs[d]) if d < leaf_pairs.shape[0] else 0))
    return rows


def _trace_columns(trace):
    """``(level, node_a, node_b, sep_axis)`` arrays, one row per pair tested."""
    if trace is None:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, empty, empty
    level_start = np.asarray(trace.level_start, dtype=np.int64)
    levels = np.repeat(np.arange(level_start.shape[0] - 1), np.diff(level_start))
    return (levels, np.asarray(trace.node_a, dtype=np.int64),
            np.asarray(trace.node_b, dtype=np.int64), np.asarray(trace.sep_axis, dtype=np.int64))


def _counter_rows(frame, result) -> list[tuple]:
    rows = []
    counters = result.counters if result is not None else None
    for name, words in COUNTER_WORDS:
        value = int(getattr(counters, name)) if counters is not None else 0
        rows.append((name, value, "count", words))
    for phase, seconds in (frame.timings or {}).items():
        words = ("time of the whole frame (every phase)" if phase == "total"
                 else f"time of the {phase} phase of this frame")
        rows.append((f"time_{phase}", _six_digits(1e3 * float(seconds)), "ms", words))
    return rows


def _six_digits(value: float):
    """A float as JSON and CSV take it: finite values rounded to 6 significant digits."""
    return float(f"{value:.6g}") if math.isfinite(value) else None


def _contact_rows(result) -> list[tuple]:
    if result is None:
        return []
    pairs = np.asarray(result.pairs)
    kinds = np.asarray(result.kinds)
    segments = np.asarray(result.segments, dtype=np.float64).reshape(-1, 6)
    return [(int(a), int(b), CONTACT_KIND_WORDS.get(int(k), str(int(k))),
             *(repr(float(v)) for v in segment))
            for (a, b), k, segment in zip(pairs, kinds, segments)]


def frame_tables(frame) -> dict[str, list[tuple]]:
    """The rows of every table of :data:`TABLE_NAMES` (without the header line).

    Parameters
    ----------
    frame : core.pipeline.Frame
        Live or recorded.
    """
    result = shown_result(frame)
    trace = result.trace if result is not None else None
    is_self = frame.result is None and result is not None
    levels, node_a, node_b, sep_axis = _trace_columns(trace)
    is_self_pair = _self_pairs(trace, is_self) if trace is not None else np.zeros(0, bool)
    trace_rows = [(int(d), int(a), int(b),
                   "self pair" if own else "overlap" if s == -1 else "culled", int(s))
                  for d, a, b, s, own in zip(levels, node_a, node_b, sep_axis, is_self_pair)]
    return {
        "levels": _level_rows(trace, is_self),
        "trace": trace_rows,
        "counters": _counter_rows(frame, result),
        "contacts": _contact_rows(result),
    }


def table_csv(name: str, rows) -> str:
    """One table as CSV text: the header line of :data:`COLUMNS`, then the rows."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS[name])
    writer.writerows(rows)
    return text.getvalue()


def frame_document(frame, scene: str = "", bodies=(), recorded_index: int | None = None,
                   tables: dict | None = None) -> dict:
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
    tables : dict, optional
        :func:`frame_tables` of ``frame``, when already made.
    """
    result = shown_result(frame)
    trace = result.trace if result is not None else None
    tables = tables if tables is not None else frame_tables(frame)
    request = getattr(frame, "request", None)
    volumes = getattr(frame, "volumes", None)
    levels, node_a, node_b, sep_axis = _trace_columns(trace)
    is_self = frame.result is None and result is not None
    is_tested = ~_self_pairs(trace, is_self) if trace is not None else np.zeros(0, bool)
    return {
        "format_version": FORMAT_VERSION,
        "scene": scene,
        "bodies": list(bodies),
        "frame": {"index": int(frame.index), "time": _six_digits(float(frame.t)),
                  "recorded_index": recorded_index},
        "bounding_volume": volumes.name if volumes is not None else getattr(request, "bv", None),
        "self_collision": is_self,
        "counters": {name: value for name, value, _unit, _w in tables["counters"]
                     if not name.startswith("time_")},
        "timings_ms": {name[len("time_"):]: value for name, value, _unit, _w
                       in tables["counters"] if name.startswith("time_")},
        "levels": [dict(zip(("level", "tested", "overlapping", "culled", "leaf_pairs"), row))
                   for row in tables["levels"]],
        "trace": {"level": levels.tolist(), "node_a": node_a.tolist(),
                  "node_b": node_b.tolist(), "tested": is_tested.tolist(),
                  "overlapped": ((sep_axis == -1) & is_tested).tolist(),
                  "separating_test": sep_axis.tolist()},
        "contacts": [{"triangle_a": row[0], "triangle_b": row[1], "kind": row[2],
                      "segment": [[float(v) for v in row[3:6]], [float(v) for v in row[6:9]]]}
                     for row in tables["contacts"]],
    }


def frame_files(frame, stem: str, scene: str = "", bodies=(),
                recorded_index: int | None = None) -> dict[str, str]:
    """Every file of the frame data export: file name -> text.

    ``STEM.json`` and ``STEM-levels.csv``, ``STEM-trace.csv``, ``STEM-counters.csv``,
    ``STEM-contacts.csv``.
    """
    tables = frame_tables(frame)
    files = {f"{stem}-{name}.csv": table_csv(name, tables[name]) for name in TABLE_NAMES}
    document = frame_document(frame, scene, bodies, recorded_index, tables)
    # One top-level key a line: the short keys read at a glance and the trace's long lists
    # stay one line each (indented, every node id took a line: the cloth scene's frame was
    # 225 kB in 25,322 lines instead of 146 kB in 13).
    files[f"{stem}.json"] = "{\n" + ",\n".join(
        f" {json.dumps(key)}: {json.dumps(value)}" for key, value in document.items()) + "\n}\n"
    return files
