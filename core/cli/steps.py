"""``python -m core contacts A B ... --steps FILE.jsonl``: every volume-pair test, in order.

The order is the one the app's stepper shows (:func:`core.lab.steps.traversal_steps`,
the traversal's own order: level by level, row by row), written one JSON object a line::

    {"level": 3, "node_a": 5, "node_b": 2, "result": "culled", "test": "A's axis 2 (y)",
     "split": null}

``result`` is ``"overlap"`` or ``"culled"``; ``test`` the kind's words for the test that
culled the pair (null for an overlap); ``split`` which node of an overlapping pair is split
next, ``"A"``, ``"B"`` or ``"both"`` (null for a culled pair and for a pair of two leaves,
whose triangles go to the exact test). Nodes of a tree read from a file are the file's ids.
The line count is the report's ``bv_tests``.

The file grows with the traversal (a bad tree's traversal makes tens of millions of tests), so
it has a limit: :data:`DEFAULT_MAX_STEPS` lines unless ``--max-steps`` says otherwise; past it
the command refuses in one line before writing anything.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

#: Most lines ``--steps`` writes unless ``--max-steps`` raises it.
DEFAULT_MAX_STEPS = 5_000_000

#: About how long one line is (bytes), for saying how large a file would be.
STEP_LINE_BYTES = 110

#: Steps formatted per write: a few MB of text at a time.
_LINES_PER_WRITE = 65536

_SPLIT_WORDS = ("A", "B", "both")


def check_steps_budget(n_steps: int, max_steps: int) -> None:
    """Refuse (ValueError, one line) a traversal of more than ``max_steps`` tests."""
    if n_steps > max_steps:
        raise ValueError(
            f"--steps: the traversal made {n_steps:,} volume-pair tests, more than "
            f"--max-steps {max_steps:,} (about {n_steps * STEP_LINE_BYTES / 1e9:.1f} GB of "
            f"lines); raise --max-steps to write them all")  # fmt: skip


def write_steps(path, steps, file_ids=(None, None)) -> int:
    """Write ``steps`` (a :class:`core.lab.steps.TraversalSteps`) to ``path``, one JSON
    object a line; return the number of lines.

    Parameters
    ----------
    path : str or os.PathLike
    steps : TraversalSteps
    file_ids : pair of (k,) int64 or None
        For a body whose tree was read from a file, ``file_ids[node]`` is the file's id of
        node ``node`` (``ImportedTree.file_ids``); its nodes are written with it.

    Raises
    ------
    OSError
        The file cannot be written (an existing file is left as it was).
    """
    from core.files.safe_write import replace_file
    from core.lab.steps import CODE_CULLED, CODE_LEAF_PAIR, CODE_SPLIT

    columns = steps.columns()
    nodes = []
    for side, ids in zip(("node_a", "node_b"), file_ids):
        node = columns[side]
        nodes.append(node if ids is None else np.asarray(ids, dtype=np.int64)[node])
    words = {-1: "null"}
    for sep in np.unique(columns["sep_id"]).tolist():
        if sep >= 0:
            words[sep] = json.dumps(steps.kind.separating_test(sep))
    results = {CODE_CULLED: '"culled"', CODE_SPLIT: '"overlap"', CODE_LEAF_PAIR: '"overlap"'}
    splits = {-1: "null", **{i: json.dumps(w) for i, w in enumerate(_SPLIT_WORDS)}}
    n = int(columns["level"].shape[0])

    def write(out) -> None:
        for start in range(0, n, _LINES_PER_WRITE):
            block = slice(start, start + _LINES_PER_WRITE)
            rows = zip(columns["level"][block].tolist(), nodes[0][block].tolist(),
                       nodes[1][block].tolist(), columns["code"][block].tolist(),
                       columns["sep_id"][block].tolist(), columns["split"][block].tolist())
            out.write("".join(
                f'{{"level": {d}, "node_a": {a}, "node_b": {b}, "result": {results[code]}, '
                f'"test": {words[sep]}, "split": {splits[split]}}}\n'
                for d, a, b, code, sep, split in rows).encode("utf-8"))  # fmt: skip

    replace_file(Path(path), write)
    return n
