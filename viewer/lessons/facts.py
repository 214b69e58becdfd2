"""What a lesson step's caption may show and its ``expect`` table may check, read from the
state on screen.

A caption names a number of the frame shown in braces (``"{volume_tests} box tests"``), and
the lecture caption shows the number itself (:func:`fill_caption`), so a claim in numbers is
this scene's, never another experiment's. A step's ``expect`` (read by
:mod:`viewer.lessons.schema`) states what must be true when the step is shown;
:func:`unmet_expectations` says which of it is not. Plain Python, no Qt: the facts come from
the model, the stepper's step and the overlays the renderer drew.
"""

from __future__ import annotations

import math

CAPTION_FIELDS = {
    "contacts": "triangle pairs in contact in the frame shown",
    "volume_tests": "bounding-volume (box) tests of the frame's traversal",
    "triangle_tests": "exact triangle-triangle tests of the frame",
    "update_ms": "milliseconds the frame took to refit or rebuild the trees",
    "level": "the traversal level shown (a number, or \"all\")",
    "kind": "the bounding-volume kind the traversal tests",
    "update": "the tree update mode (refit, rebuild, auto)",
    "frame": "the number of the frame shown",
}
"""Numbers and words a caption can show with ``{name}`` (docs/lessons.md lists the same)."""

VISIBLE_OVERLAYS = {
    "A boxes": ("tree_a",),
    "B boxes": ("tree_b",),
    "overlapping pairs": ("overlap",),
    "culled pairs": ("culled",),
    "parent boxes": ("parents",),
    "contacts": ("contact_tris",),
    "intersection lines": ("contact_segments",),
    "partition cells": ("partition_cells", "partition_planes"),
    "closest points": ("distance",),
    "pair under test": ("step_a", "step_b"),
    "separating axis": ("step_axis",),
    "tested pairs": ("step_culled", "step_split", "step_leaf"),
}
"""Names an ``expect``'s ``visible`` and ``hidden`` lists use, with the overlays (actors of
:class:`viewer.render.SceneRenderer`) that draw them: a name is visible when one of its
overlays draws at least one cell."""

EXPECT_KEYS = {
    "contacts": "triangle pairs in contact (a whole number)",
    "volume_tests": "bounding-volume tests of the traversal (a whole number)",
    "triangle_tests": "exact triangle tests (a whole number)",
    "level": "the level shown (a whole number or \"all\")",
    "kind": "the bounding-volume kind",
    "update": "the tree update mode",
    "time": "the animation's time in seconds",
    "stepping": "the traversal stepper is on (true or false)",
    "culled": "the stepper's pair under test is culled (true or false)",
    "leaf_pair": "the stepper's pair under test is a pair of two leaves (true or false)",
    "update_ms_above": "the trees' update took more than this many milliseconds",
    "most_boxes": "at most this many boxes and pairs are drawn (keeps a step quick to draw)",
    "visible": "names of what is drawn (a list)",
    "hidden": "names of what is not drawn (a list)",
}
"""Keys of a step's ``expect`` table (docs/lessons.md lists the same)."""

BOX_OVERLAY_NAMES = ("tree_a", "tree_b", "parents", "overlap", "culled")
"""The overlays whose cells :data:`EXPECT_KEYS` ``most_boxes`` counts."""

CELLS_PER_BOX = 6
"""Cells (quads) of one drawn box: :data:`BOX_OVERLAY_NAMES` count boxes, not cells."""


def lesson_facts(model, step_view=None) -> dict:
    """The facts of the state on screen, by the names of :data:`CAPTION_FIELDS` and
    :data:`EXPECT_KEYS` (a fact that cannot be had, e.g. without a frame, is missing).

    Parameters
    ----------
    model : viewer.model.ViewerModel
        Read only: ``frame``, ``shown_result()``, ``level``, ``pipeline``, ``t``.
    step_view : viewer.render.stepper.StepView or None
        The stepper's step shown (None: the stepper is off).
    """
    facts: dict = {"level": "all" if model.level is None else int(model.level),
                   "kind": model.pipeline.bv, "update": model.pipeline.update.value,
                   "time": float(model.t), "stepping": step_view is not None}
    frame = model.frame
    if frame is not None:
        facts["frame"] = int(frame.index)
        if "update" in frame.timings:
            facts["update_ms"] = 1e3 * float(frame.timings["update"])
        result = model.shown_result()
        if result is not None:
            counters = result.counters
            facts["contacts"] = int(counters.n_contacts)
            facts["volume_tests"] = int(counters.n_bv_tests)
            facts["triangle_tests"] = int(counters.n_tri_tests)
    if step_view is not None:
        from viewer.render.stepper import CODE_CULLED, CODE_LEAF_PAIR

        facts["culled"] = step_view.outcome == CODE_CULLED
        facts["leaf_pair"] = step_view.outcome == CODE_LEAF_PAIR
    return facts


def _fact_text(name: str, value) -> str:
    if value is None:
        return "…"
    if name == "update_ms":
        return f"{value:.2f}" if value < 100 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def fill_caption(caption: str, facts: dict) -> str:
    """``caption`` with each ``{name}`` of :data:`CAPTION_FIELDS` replaced by its value in
    ``facts`` ("…" while it is not known, e.g. before the first frame); ``{{`` and ``}}``
    are braces."""
    if "{" not in caption and "}" not in caption:
        return caption
    return caption.format_map({name: _fact_text(name, facts.get(name))
                               for name in CAPTION_FIELDS})


def visible_names(cell_counts) -> set:
    """The names of :data:`VISIBLE_OVERLAYS` drawn, from ``cell_counts(overlay) -> int``."""
    return {name for name, overlays in VISIBLE_OVERLAYS.items()
            if any(cell_counts(overlay) > 0 for overlay in overlays)}


def drawn_boxes(cell_counts) -> int:
    """Boxes drawn by the overlays of :data:`BOX_OVERLAY_NAMES` (one per pair half)."""
    return sum(cell_counts(name) for name in BOX_OVERLAY_NAMES) // CELLS_PER_BOX


def unmet_expectations(expect: dict, facts: dict, cell_counts=None) -> list[str]:
    """What of ``expect`` (a step's table, keys of :data:`EXPECT_KEYS`) does not hold, one
    sentence each; empty when all of it does.

    Parameters
    ----------
    expect : dict
    facts : dict
        From :func:`lesson_facts`.
    cell_counts : callable or None
        ``cell_counts(overlay) -> int`` of the picture drawn (``visible``, ``hidden`` and
        ``most_boxes`` need it).
    """
    unmet = []
    for key, wanted in expect.items():
        if key in ("visible", "hidden", "most_boxes"):
            if cell_counts is None:
                unmet.append(f"{key}: no picture was drawn to check")
                continue
            if key == "most_boxes":
                n = drawn_boxes(cell_counts)
                if n > wanted:
                    unmet.append(f"most_boxes: {n:,} boxes drawn, more than {wanted:,}")
                continue
            shown = visible_names(cell_counts)
            wrong = [n for n in wanted if (n in shown) != (key == "visible")]
            if wrong:
                unmet.append(f"{key}: {', '.join(wrong)} " + (
                    "not drawn" if key == "visible" else "drawn"))
            continue
        if key == "update_ms_above":
            value = facts.get("update_ms")
            if value is None or not value > wanted:
                unmet.append(f"update_ms_above: the update took {_fact_text('update_ms', value)} "
                             f"ms, not more than {wanted:g}")
            continue
        value = facts.get(key)
        if key == "time" and value is not None:
            is_met = math.isclose(value, wanted, abs_tol=1e-6)
        else:
            is_met = value == wanted
        if not is_met:
            unmet.append(f"{key}: {value!r} shown, {wanted!r} expected")
    return unmet
