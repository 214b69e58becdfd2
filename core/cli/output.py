"""A sub-command's report on standard output: one line of strict JSON (``--json``) or its text.

Reports are streamed: a pair list of millions of rows is written a block at a time, never
turned into one string."""

from __future__ import annotations

import json
import math
import sys

import numpy as np

_JSON_ROWS_PER_WRITE = 65536
"""Rows of a pair array formatted per write when streaming JSON: a few MB of text at a time,
instead of one string (and one Python list) for all 26 million pairs of a 2M-triangle mesh
against itself, which ended in a MemoryError."""


def _finite_or_null(value):
    """``value`` with every float that is NaN or infinite replaced by None (JSON null)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite_or_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_null(v) for v in value]
    return value


def number_text(value) -> str:
    """A measure in a text report: six significant digits, or "not defined" for None."""
    return "not defined" if value is None else f"{value:.6g}"


def _write_rows(array: np.ndarray, out) -> None:
    """An integer array as a JSON list, ``_JSON_ROWS_PER_WRITE`` rows per write."""
    out.write("[")
    for start in range(0, array.shape[0], _JSON_ROWS_PER_WRITE):
        if start:
            out.write(", ")
        out.write(json.dumps(array[start : start + _JSON_ROWS_PER_WRITE].tolist())[1:-1])
    out.write("]")


def write_json(report: dict, out) -> None:
    """Write ``report`` as one line of strict JSON (no NaN, no Infinity).

    Numpy arrays (the pair lists) are streamed in blocks; the text is the same as
    ``json.dumps`` of the whole report would give. Floats that are not finite become null.
    """
    out.write("{")
    for i, (key, value) in enumerate(report.items()):
        out.write((", " if i else "") + json.dumps(key) + ": ")
        if isinstance(value, np.ndarray):
            _write_rows(value, out)
        else:
            out.write(json.dumps(_finite_or_null(value), allow_nan=False))
    out.write("}\n")


def print_report(args, report: dict, text) -> None:
    """``report`` as one JSON object with ``--json``, else ``text()``, on standard output."""
    if args.json:
        write_json(report, sys.stdout)
    else:
        print(text())
